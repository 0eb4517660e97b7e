"""``domino replay FILE``: validate and replay a game record, print the outcome as JSON.

The record format is described in docs/records.md. ``FILE`` may be ``-`` for
standard input. A record that cannot be read or replayed prints the reason
(round, move and rule) on standard error and exits with status 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Final

from domino.rules.errors import RecordError
from domino.rules.record import dumps, replay


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        help="validate and replay a game record (JSON), print the outcome",
        description="Replay a game record (docs/records.md) and print, as JSON, how every "
        "round ended, who won, the points per seat or team (Fünferpunkte and round end "
        "separately) and the final standings.",
    )
    p.add_argument("file", help="the record (JSON); - reads standard input")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = args.file
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"domino replay: cannot read {name}: {one_line(str(exc))}", file=sys.stderr)
        return 1
    try:
        outcome = replay(text)
    except RecordError as exc:
        print(f"domino replay: {name}: {one_line(str(exc))}", file=sys.stderr)
        return 1
    sys.stdout.write(dumps(outcome.to_dict()) + "\n")
    return 0


#: Longest error text printed; a record quoting a huge value is cut in the middle.
MAX_MESSAGE: Final = 400


def one_line(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` on one line, at most ``limit`` characters (start and end kept).

    >>> one_line("a\\nb")
    'a b'
    >>> one_line("Round 1: " + "x" * 50 + " is bad.", limit=30)
    'Round 1: xxxx … xxxxxx is bad.'
    """
    text = " ".join(message.splitlines())
    if len(text) <= limit:
        return text
    head = (limit - 3) // 2
    tail = limit - 3 - head
    return f"{text[:head]} … {text[-tail:]}"
