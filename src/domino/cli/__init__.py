"""The ``domino`` console script: one entry point, one module per subcommand.

Each module in :data:`COMMANDS` defines ``register(subparsers)``, which adds
its subcommand and sets ``func`` (called with the parsed arguments; returns
the exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ("demo", "bench", "arena", "serve", "replay", "db", "puzzles", "mod")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="domino", description="Domino: the classic with 28 tiles, for 2-4 players."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"domino.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
