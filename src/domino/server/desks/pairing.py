"""Who plays whom: the matchmaking queue's choices and its pairing rule (issue 23).

Pure functions on the waiting rows; :class:`~domino.server.desks.queue.QueueDesk` reads
the rows, asks :func:`pair` for tables and starts them.

- A **choice** is seats and mode: ``"2:klassisch"``, ``"paare:blitz"``. Only players of
  the same choice meet.
- **Closest ratings first.** The longest waiting player of a choice is seated first,
  with the others whose rating is in range, nearest first. Two players are in range
  when their ratings differ by at most the wider of their two windows; a window is
  :data:`BASE_RANGE` and grows by :data:`WIDEN_PER_SECOND` for each second waited.
- **The wait.** When a player's longest wait (30 s, 1 min, 3 min) runs out, their
  table starts with whoever is in range and bots on the empty seats (never a player who
  chose *nur Menschen*: wait ``0``, who waits until people come). The bots' level is
  the one whose fixed rating (calibrated from the arena, :mod:`domino.ratings`) is
  nearest the table's mean (:func:`~domino.ratings.bot_level_for`).
- **Blocks.** Two players where one blocked the other never share a table.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import Final

from domino.ratings import BOT_RATINGS, bot_level_for
from domino.rules import Mode
from domino.server.storage.queue import QueueRow

__all__ = [
    "BASE_RANGE",
    "BOT_RATINGS",
    "SEAT_CHOICES",
    "WAITS",
    "WIDEN_PER_SECOND",
    "Table",
    "bot_level_for",
    "choice_of",
    "pair",
    "parse_choice",
    "pool_of",
]

#: The seats one can ask for: 2, 3, 4 players each for themselves, or 4 as two pairs.
SEAT_CHOICES: Final = ("2", "3", "4", "paare")
#: The longest waits one can choose, in seconds; 0 is *nur Menschen* (no bots, ever).
WAITS: Final = (30, 60, 180, 0)
#: Rating points two players may differ by at once, and how the window widens.
BASE_RANGE: Final = 100.0
WIDEN_PER_SECOND: Final = 10.0


def choice_of(seats: str, mode: str) -> str:
    """The queue's key for seats and mode (``ValueError`` when either is unknown).

    >>> choice_of("paare", "blitz")
    'paare:blitz'
    """
    if seats not in SEAT_CHOICES:
        raise ValueError(seats)
    return f"{seats}:{Mode(mode).value}"


def parse_choice(choice: str) -> tuple[int, bool, Mode]:
    """Seats, Paare and mode of a choice.

    >>> parse_choice("paare:klassisch")
    (4, True, <Mode.KLASSISCH: 'klassisch'>)
    """
    seats, mode = choice.split(":", 1)
    return (4, True, Mode(mode)) if seats == "paare" else (int(seats), False, Mode(mode))


def pool_of(choice: str) -> str:
    """The rating pool of a choice: ``"2"``, ``"3"``, ``"4"`` or ``"paare"``."""
    return choice.split(":", 1)[0]


@dataclass(frozen=True)
class Table:
    """One table the queue formed: its humans (longest waiting first) and bot seats."""

    choice: str
    humans: tuple[QueueRow, ...]
    bots: int

    @property
    def level(self) -> str:
        """The bots' level (from the humans' ratings)."""
        return bot_level_for([r.rating for r in self.humans])


def window(row: QueueRow, now: float) -> float:
    """How far ``row``'s rating window reaches after its wait so far."""
    return BASE_RANGE + WIDEN_PER_SECOND * max(0.0, now - row.joined_at)


def expired(row: QueueRow, now: float) -> bool:
    """Whether ``row``'s longest wait ran out (never for *nur Menschen*)."""
    return row.wait > 0 and now - row.joined_at >= row.wait


def _in_range(a: QueueRow, b: QueueRow, now: float) -> bool:
    return abs(a.rating - b.rating) <= max(window(a, now), window(b, now))


def pair(
    rows: Sequence[QueueRow], now: float, blocks: Set[frozenset[str]] = frozenset()
) -> list[Table]:
    """The tables to start now from the waiting ``rows`` (any choices, any order)."""
    by_choice: dict[str, list[QueueRow]] = {}
    for r in sorted(rows, key=lambda r: (r.joined_at, r.profile_id)):
        by_choice.setdefault(r.choice, []).append(r)
    tables: list[Table] = []
    for choice, waiting in by_choice.items():
        seats = parse_choice(choice)[0]
        left = list(waiting)
        while left:
            anchor = left.pop(0)
            with_bots = expired(anchor, now)
            group = [anchor]
            near = sorted(left, key=lambda r: (abs(r.rating - anchor.rating), r.joined_at))
            for r in near:
                if len(group) == seats:
                    break
                if with_bots and r.wait == 0 and len(group) + 1 < seats:
                    continue  # *nur Menschen* never sits with bots
                if all(
                    _in_range(g, r, now) and frozenset((g.profile_id, r.profile_id)) not in blocks
                    for g in group
                ):
                    group.append(r)
            if len(group) == seats or with_bots:
                tables.append(Table(choice, tuple(group), seats - len(group)))
                taken = {g.profile_id for g in group}
                left = [r for r in left if r.profile_id not in taken]
    return tables
