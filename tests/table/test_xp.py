"""RULES.md §12: points to experience and levels."""

from __future__ import annotations

import pytest

from domino.rules import rank
from domino.table import level_for, level_progress, match_xp, xp_for_level


def test_s12_xp_for_places() -> None:
    places = [s.place for s in rank([50, 30, 20, 10])]
    assert [match_xp(p, places) for p in (1, 2, 3, 4)] == [60, 30, 20, 10]


def test_s12_shared_places_share_the_win_and_the_sides_below() -> None:
    places = [s.place for s in rank([40, 40, 10])]  # places 1, 1, 3
    assert places == [1, 1, 3]
    assert [match_xp(p, places) for p in places] == [40, 40, 10]
    # Everybody equal: all win, nobody is ranked below anybody.
    assert match_xp(1, [1, 1]) == 30


def test_s12_pairs_two_sides() -> None:
    places = [s.place for s in rank([100, 40])]
    assert [match_xp(p, places) for p in places] == [40, 10]


def test_s12_levels() -> None:
    assert [xp_for_level(level) for level in (1, 2, 3, 4)] == [0, 100, 300, 600]
    assert [level_for(x) for x in (0, 99, 100, 299, 300, 599, 600)] == [1, 1, 2, 2, 3, 3, 4]
    assert level_progress(0) == (1, 0, 100)
    assert level_progress(450) == (3, 150, 300)
    for xp in range(0, 3000, 7):
        level, into, span = level_progress(xp)
        assert xp_for_level(level) <= xp < xp_for_level(level + 1)
        assert 0 <= into < span


def test_s12_bad_input() -> None:
    with pytest.raises(ValueError):
        level_for(-1)
    with pytest.raises(ValueError):
        xp_for_level(0)
