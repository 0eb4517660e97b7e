"""The Tipps of the product page as positions: in each, the tip decides the move.

A Tipp is a deal, the moves that lead to the position (all through the engine), the move
the tip recommends, and the catalogue keys of its question and its reason. The answer shown
is Meister's judgement on that seat's view (:func:`domino.lessons.build.tip`), which must
agree with the tip; ``tests/lessons`` runs it again. The positions were found by
``tools/find_tips.py`` among seeded random rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from domino.rules import Deal, Move, RoundState, Rules

#: Samples of Meister's judgement per Tipp (common to every choice).
SAMPLES: Final = 400


@dataclass(frozen=True, slots=True)
class Tip:
    key: str  # heavy, keep, offer, double, count: lesson.tip.<key>.(title|question|reason)
    seats: int
    deal: dict[str, Any]
    moves: tuple[str, ...]
    answer: str


def position(t: Tip) -> RoundState:
    """The Tipp's position: the deal opened and its moves applied (each checked)."""
    state = RoundState.start(Rules(seats=t.seats), Deal.from_dict(t.deal))
    for text in t.moves:
        state.apply(Move.parse(text))
    return state


TIPS: Final[tuple[Tip, ...]] = (
    Tip(
        key="heavy",
        seats=3,
        deal={
            "hands": [
                ["5|3", "6|4", "4|3", "6|3", "1|0"],
                ["5|5", "2|0", "6|0", "5|0", "5|2"],
                ["6|2", "5|1", "4|1", "0|0", "4|2"],
            ],
            "lager": [
                "3|1",
                "3|3",
                "6|5",
                "6|1",
                "2|2",
                "1|1",
                "3|0",
                "6|6",
                "5|4",
                "4|0",
                "3|2",
                "4|4",
                "2|1",
            ],
        },
        moves=("5|1 L",),
        answer="5|3 R",
    ),
    Tip(
        key="keep",
        seats=3,
        deal={
            "hands": [
                ["6|3", "5|4", "6|0", "5|3", "6|6"],
                ["3|1", "5|2", "5|0", "2|1", "6|1"],
                ["6|2", "3|3", "5|1", "4|1", "2|2"],
            ],
            "lager": [
                "2|0",
                "4|4",
                "4|3",
                "6|4",
                "3|2",
                "1|0",
                "6|5",
                "3|0",
                "5|5",
                "1|1",
                "4|2",
                "0|0",
                "4|0",
            ],
        },
        moves=(
            "6|1 L",
            "6|2 R",
            "D",
            "2|0 R",
            "5|0 R",
            "5|1 R",
            "D",
            "D",
            "D",
            "D",
            "D",
            "1|0 L",
            "2|1 R",
            "2|2 R",
        ),
        answer="6|0 L",
    ),
    Tip(
        key="offer",
        seats=3,
        deal={
            "hands": [
                ["5|5", "4|0", "6|6", "6|4", "6|0"],
                ["2|2", "1|1", "5|4", "4|4", "5|3"],
                ["6|2", "0|0", "5|2", "6|1", "1|0"],
            ],
            "lager": [
                "5|1",
                "6|3",
                "6|5",
                "4|2",
                "4|1",
                "4|3",
                "5|0",
                "2|1",
                "3|2",
                "3|1",
                "2|0",
                "3|3",
                "3|0",
            ],
        },
        moves=(
            "D",
            "D",
            "6|3 L",
            "6|2 R",
            "D",
            "D",
            "4|2 R",
            "4|4 R",
            "D",
            "4|1 R",
            "D",
            "4|3 L",
            "5|4 L",
            "5|2 L",
            "D",
            "D",
            "2|1 R",
            "2|2 L",
            "D",
            "3|2 L",
            "D",
            "3|1 L",
            "1|1 L",
            "6|1 L",
            "6|4 L",
            "D",
            "2|0 R",
            "0|0 R",
        ),
        answer="6|0 R",
    ),
    Tip(
        key="double",
        seats=3,
        deal={
            "hands": [
                ["4|3", "6|3", "5|5", "6|6", "5|4"],
                ["2|1", "5|0", "0|0", "3|1", "4|1"],
                ["2|0", "1|0", "5|1", "6|5", "5|2"],
            ],
            "lager": [
                "2|2",
                "6|2",
                "3|0",
                "4|0",
                "3|3",
                "6|0",
                "6|1",
                "1|1",
                "4|4",
                "6|4",
                "5|3",
                "4|2",
                "3|2",
            ],
        },
        moves=("D", "D", "6|2 L", "6|5 R"),
        answer="5|5 R",
    ),
    Tip(
        key="count",
        seats=3,
        deal={
            "hands": [
                ["6|5", "3|0", "5|3", "1|0", "2|0"],
                ["4|4", "0|0", "5|0", "5|4", "3|3"],
                ["3|1", "1|1", "4|0", "4|3", "2|2"],
            ],
            "lager": [
                "5|1",
                "6|0",
                "6|3",
                "5|5",
                "4|1",
                "6|2",
                "2|1",
                "6|4",
                "4|2",
                "6|1",
                "5|2",
                "6|6",
                "3|2",
            ],
        },
        moves=(
            "4|3 L",
            "5|3 L",
            "5|4 R",
            "D",
            "5|1 L",
            "6|5 R",
            "D",
            "6|0 R",
            "4|0 R",
            "1|0 L",
            "0|0 L",
            "D",
            "D",
            "D",
            "4|1 R",
            "3|0 L",
            "3|3 L",
            "6|3 L",
            "D",
            "6|2 L",
            "D",
            "2|1 L",
            "1|1 L",
            "D",
            "D",
            "D",
            "6|1 L",
            "D",
            "D",
            "6|6 L",
            "3|1 R",
            "6|4 L",
            "D",
            "3|2 R",
            "2|2 R",
        ),
        answer="4|2 R",
    ),
)
