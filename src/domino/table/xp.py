"""Points to experience and levels (RULES.md §12), pure so the server can reuse it.

>>> match_xp(place=1, places=[1, 2, 3])
50
>>> [level_for(x) for x in (0, 99, 100, 299, 300)]
[1, 1, 2, 2, 3]
>>> level_progress(150)
(2, 50, 200)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

PARTICIPATION: Final = 10
PER_SIDE_BELOW: Final = 10
WIN_BONUS: Final = 20


def match_xp(place: int, places: Sequence[int]) -> int:
    """XP for a finished match at ``place`` among the sides' ``places`` (shared places allowed).

    Taking part 10, 10 for every side ranked below (a strictly worse place), 20
    more for place 1 (shared too).

    >>> [match_xp(p, [1, 1, 3]) for p in (1, 3)]
    [40, 10]
    """
    below = sum(1 for p in places if p > place)
    return PARTICIPATION + PER_SIDE_BELOW * below + (WIN_BONUS if place == 1 else 0)


def xp_for_level(level: int) -> int:
    """The XP at which ``level`` is reached: 50·L·(L−1) (level 1 at 0, 2 at 100, 3 at 300)."""
    if level < 1:
        raise ValueError(f"Levels start at 1, not {level}.")
    return 50 * level * (level - 1)


def level_for(xp: int) -> int:
    """The level reached with ``xp`` experience points."""
    if xp < 0:
        raise ValueError(f"XP cannot be negative ({xp}).")
    level = 1
    while xp_for_level(level + 1) <= xp:
        level += 1
    return level


def level_progress(xp: int) -> tuple[int, int, int]:
    """``(level, xp into this level, xp this level spans until the next)``."""
    level = level_for(xp)
    start = xp_for_level(level)
    return level, xp - start, xp_for_level(level + 1) - start
