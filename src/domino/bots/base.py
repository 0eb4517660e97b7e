"""What every bot shares: the :class:`Bot` protocol and small view helpers.

A bot is a policy: it maps a seat's :class:`~domino.rules.SeatView` (never the
state) plus its own memory and random generator to a legal move. Bots do no
I/O and read no clock; each owns a ``random.Random`` seeded at creation.
"""

from __future__ import annotations

from typing import Protocol

from domino.rules import Move, SeatView, Tile
from domino.rules.kernel import (
    ES_COUNT,
    FIVES,
    LEFT,
    LEFT_DOUBLE,
    PLACE,
    RIGHT,
    RIGHT_DOUBLE,
    ends_state,
)
from domino.rules.tiles import mask_of


class Bot(Protocol):
    """A policy for one seat; ``choose`` is only called when ``view.legal`` is non-empty."""

    level: str

    def choose(self, view: SeatView) -> Move:
        """A move from ``view.legal``."""
        ...


def hand_mask(view: SeatView) -> int:
    """The seat's own hand as a bitmask over ``TILES``."""
    return mask_of(view.hand or ())


def view_es(view: SeatView) -> int:
    """The kernel's ends state of ``view``'s open ends."""
    return ends_state(view.left, view.right, view.left_double, view.right_double)


def ends_after(view: SeatView, move: Move) -> tuple[int, int, bool, bool]:
    """Open ends ``(left, right, left_double, right_double)`` after playing ``move``."""
    assert move.tile is not None
    new = PLACE[move.index * ES_COUNT + view_es(view)]  # the kernel places it (RULES.md §6)
    assert new >= 0, f"{move} does not fit"
    return LEFT[new], RIGHT[new], LEFT_DOUBLE[new], RIGHT_DOUBLE[new]


def fives_after(left: int, right: int, ld: bool, rd: bool) -> int:
    """Fünferpunkte a placement scores given the ends after it (RULES.md §8); 0 if none.

    The rules kernel's table (:data:`domino.rules.kernel.FIVES`), so bots and engine
    count alike.

    A placement always leaves at least two tiles on the table (the opening is
    automatic), so the lone-tile case of §8 never applies to a bot's move.
    """
    return FIVES[ends_state(left, right, ld, rd)]


def tile_of(move: Move) -> Tile:
    """The tile a play move places (asserts it is a play)."""
    assert move.tile is not None
    return move.tile
