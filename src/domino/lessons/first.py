"""The guided first round ("So geht's"): the product page's example as a real deal.

6|6 lies, both ends show a 6; you hold 6|2, 2|2 and 3|5 (and, as every seat of three,
two more tiles: 4|2 and 6|3); you lay 6|2 on the right; Bot 1 has no 6 or 2, draws twice
and lays the second tile; you lay 2|2 crosswise; and so on until you are out (Domino!).
Seat 0 is the player, seats 1 and 2 the bots. Each step names the move made next and
the catalogue key of the sentence shown while it is due (``None``: no new sentence).
"""

from __future__ import annotations

from typing import Final

from domino.rules import Deal, Rules

RULES: Final = Rules(seats=3)

DEAL: Final = Deal.from_dict(
    {
        "hands": [
            ["6|2", "2|2", "5|3", "4|2", "6|3"],
            ["1|0", "4|0", "0|0", "5|4", "1|1"],
            ["6|6", "6|4", "6|0", "2|0", "2|1"],
        ],
        "lager": [
            "4|1", "6|1", "6|5", "5|1", "3|3", "5|0", "3|0",
            "5|5", "4|4", "3|2", "4|3", "3|1", "5|2",
        ],
    }
)  # fmt: skip

#: (seat, move, sentence key shown while this move is due). The player's moves are
#: seat 0's; the opening (6|6 by Bot 2) is the deal's own (§5).
STEPS: Final[tuple[tuple[int, str, str | None], ...]] = (
    (0, "6|2 R", "lesson.first.play_end"),
    (1, "D", "lesson.first.bot_draws"),
    (1, "D", None),
    (1, "6|1 L", "lesson.first.bot_fits"),
    (2, "2|1 L", "lesson.first.bot_plays"),
    (0, "2|2 R", "lesson.first.double"),
    (1, "D", "lesson.first.bot_draws_more"),
    (1, "D", None),
    (1, "D", None),
    (1, "D", None),
    (1, "D", None),
    (1, "D", None),
    (1, "D", None),
    (1, "D", None),
    (1, "3|2 R", "lesson.first.bot_plays"),
    (2, "2|0 L", "lesson.first.bot_plays"),
    (0, "6|3 R", "lesson.first.one_end"),
    (1, "5|0 L", "lesson.first.bot_plays"),
    (2, "6|4 R", "lesson.first.bot_plays"),
    (0, "5|3 L", "lesson.first.heavy"),
    (1, "4|4 R", "lesson.first.bot_plays"),
    (2, "D", "lesson.first.bot_draws"),
    (2, "4|3 R", "lesson.first.bot_fits"),
    (0, "D", "lesson.first.draw"),
    (0, "3|1 L", "lesson.first.drawn_fits"),
    (1, "3|3 R", "lesson.first.bot_plays"),
    (2, "D", "lesson.first.bot_draws_last"),
    (2, "P", "lesson.first.bot_passes"),
    (0, "P", "lesson.first.pass"),
    (1, "4|1 L", "lesson.first.bot_plays"),
    (2, "P", "lesson.first.bot_passes"),
    (0, "4|2 L", "lesson.first.domino"),
)

#: The sentences before the first move and after the last (the points are counted).
OPENING_KEY: Final = "lesson.first.opening"
END_KEY: Final = "lesson.first.count"
