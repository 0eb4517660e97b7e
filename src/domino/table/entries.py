"""The one reader of a table log's moves: which moves an entry carries, and each logged
move with its round and its number in the round.

A table log (:mod:`domino.table.table`) is a list of entries
``{"v", "t", "seat", "kind", "payload"}``; the kinds are in :mod:`.model`. Moves stand in
three kinds: a human's own (:data:`~.model.MOVE`), the server's for a bot seat, a stand-in
or a seat whose player left (:data:`~.model.BOT_MOVE`), and the automatic moves of a turn
that ran out (:data:`~.model.TIMEOUT`, several). Round 1 begins with
:data:`~.model.START`, every further round with :data:`~.model.ROUND`. The analysis desk
reads the log through here, and so does the table's replay.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from .model import BOT_MOVE, MOVE, ROUND, START, TIMEOUT


class LoggedMove(NamedTuple):
    """One move of a table log: its round, its number in the round (both from 1, the
    opening not counted), the kind of the entry it stands in and the move as text."""

    round: int
    number: int
    kind: str
    text: str


def entry_moves(entry: Mapping[str, Any]) -> tuple[str, ...]:
    """The moves (as text) ``entry`` carries, in the order they were made; none for an
    entry that is no move (a timeout entry without moves carries none)."""
    kind = entry.get("kind")
    if kind in (MOVE, BOT_MOVE):
        return (entry["payload"]["move"],)
    if kind == TIMEOUT:
        return tuple(entry["payload"].get("moves", ()))
    return ()


def log_moves(entries: Iterable[Mapping[str, Any]]) -> Iterator[LoggedMove]:
    """Every move of the log, numbered within its round."""
    round_no, k = 0, 0
    for e in entries:
        kind = str(e.get("kind"))
        if kind == START:
            round_no, k = 1, 0
        elif kind == ROUND:
            round_no, k = int(e["payload"]["round"]), 0
        for text in entry_moves(e):
            k += 1
            yield LoggedMove(round_no, k, kind, text)
