"""RULES.md §8: Fünferpunkte after every tile placed, the opening included."""

from __future__ import annotations

import pytest
from rules_support import deal, play, start

from domino.rules import MatchState, Rules, view
from domino.rules.kernel import FIVES as FIVES_TABLE
from domino.rules.kernel import OPEN_FIVES, ends_state, fives_count
from domino.rules.tiles import Tile

FIVES = Rules(seats=2, fives=True)


def test_s8_rules_example_5_5_opens_10_then_5_0_right_counts_10() -> None:
    # 6|6 lies in the Lager, so 5|5 is the highest double dealt.
    r = start(FIVES, "5|5 1|0 2|1 3|1 4|1 3|2 4|2", "5|0 1|1 2|0 3|0 4|0 4|3 5|1", lager="6|6")
    assert r.opener == 0
    assert r.log[0].fives == 10 and r.side_fives == [10, 0]
    play(r, "5|0 R")
    assert (r.left, r.right, r.left_double) == (5, 0, True)
    assert r.log[-1].fives == 10
    assert r.side_fives == [10, 10]


def test_s8_a_lone_non_double_counts_all_its_pips_6_4_counts_10() -> None:
    r = start(FIVES, "6|4 5|0 4|1 3|2 2|1 1|0 3|0", "6|3 5|4 5|1 4|0 4|2 3|1 2|0")
    assert str(r.log[0].tile) == "6|4"
    assert r.side_fives == [10, 0]


def test_s8_an_end_formed_by_a_double_counts_it_twice() -> None:
    # 6|6 opens (12); 6|3 right: the left end is the double (12) + 3 = 15.
    r = start(FIVES, "6|6 1|0 2|1 3|1 4|1 5|1 4|2", "6|3 0|0 2|0 3|0 4|0 4|3 5|0")
    play(r, "6|3 R")
    assert r.log[-1].fives == 15 and r.side_fives == [0, 15]


def test_s8_a_double_at_each_end_counts_both_twice() -> None:
    # 3|3 opens (6, nothing); 3|2 R: 6 + 2 = 8; 2|2 R: 6 + 4 = 10 for seat 0.
    r = start(
        FIVES, "3|3 2|2 1|0 2|0 3|0 4|0 1|1", "3|2 3|1 4|1 5|1 2|1 4|2 5|0", lager="6|6 5|5 4|4"
    )
    assert str(r.log[0].tile) == "3|3" and r.opener == 0
    play(r, "3|2 R")
    assert r.side_fives == [0, 0]
    play(r, "2|2 R")
    assert (r.left_double, r.right_double) == (True, True)
    assert r.log[-1].fives == 10 and r.side_fives == [10, 0]


@pytest.mark.parametrize(
    "single,left,right,ld,rd,count",
    [
        ("5|5", 5, 5, True, True, 10),
        ("6|4", 4, 6, False, False, 10),
        (None, 5, 0, True, False, 10),
        (None, 6, 3, True, False, 15),
        (None, 3, 2, True, True, 10),
        (None, 4, 1, False, False, 5),
        (None, 0, 0, False, False, 0),
        (None, 6, 6, False, True, 18),
    ],
)
def test_s8_count_of_the_ends(
    single: str | None, left: int, right: int, ld: bool, rd: bool, count: int
) -> None:
    tile = Tile.parse(single) if single else None
    assert fives_count(tile, left, right, ld, rd) == count
    # ...and the kernel's tables that every placement actually reads (§8)
    scored = count if count and count % 5 == 0 else 0
    if tile is None:
        assert FIVES_TABLE[ends_state(left, right, ld, rd)] == scored
    else:
        assert OPEN_FIVES[tile.index] == scored


def test_s8_a_count_of_0_scores_nothing() -> None:
    # 0|0 is the only double dealt: it opens and counts 0.
    r = start(
        FIVES,
        "0|0 6|1 6|2 6|3 6|4 6|5 5|4",
        "1|0 2|0 3|0 4|0 5|0 6|0 2|1",
        lager="6|6 5|5 4|4 3|3 2|2 1|1",
    )
    assert str(r.log[0].tile) == "0|0" and r.side_fives == [0, 0]
    play(r, "1|0 R")  # 0|0 double at the left counts 0 twice, + 1
    assert r.side_fives == [0, 0]


def test_s8_counts_not_divisible_by_5_score_nothing_and_the_placing_seat_scores() -> None:
    # 6|6 opens (12); 6|2 R: 12 + 2 = 14; 6|3 L: 3 + 2 = 5 for seat 0.
    r = start(FIVES, "6|6 6|3 1|0 2|0 3|0 4|0 1|1", "6|2 2|1 3|1 4|1 5|1 2|2 3|2")
    play(r, "6|2 R")
    assert r.side_fives == [0, 0]
    play(r, "6|3 L")
    assert r.side_fives == [5, 0] and r.log[-1].seat == 0


def test_s8_without_fuenferpunkte_nothing_is_scored_during_play() -> None:
    r = start(Rules(seats=2), "5|5 1|0 2|1 3|1 4|1 3|2 4|2", "5|0 1|1 2|0 3|0 4|0 4|3 5|1")
    play(r, "5|0 R")
    assert r.side_fives == [0, 0] and all(e.fives == 0 for e in r.log)


def test_s8_fives_count_at_once_in_the_match_scores_and_every_view() -> None:
    rules = Rules(seats=2, fives=True)
    m = MatchState(rules, auto=False)
    m.start_round(
        deal(rules, "5|5 1|0 2|1 3|1 4|1 3|2 4|2", "5|0 1|1 2|0 3|0 4|0 4|3 5|1", lager="6|6")
    )
    assert m.scores == (10, 0)
    play(m, "5|0 R")
    assert m.scores == (10, 10)
    for audience in (0, 1, None):
        assert view(m, audience).scores == (10, 10)
        assert view(m, audience).to_dict()["scores"] == [10, 10]
    assert [e.fives for e in view(m, None).history] == [10, 10]


def test_s8_fives_are_kept_apart_from_the_round_end_points() -> None:
    # Lager Aus + Fünferpunkte: 5|5 opens (10 for seat 0) and every other 5 is
    # out of play, so the round blocks at once: seat 0 holds 15, seat 1 39;
    # 24 round-end points, rounded to 25, reported apart from the 10.
    r = start(
        Rules(seats=2, lager=False, fives=True),
        "5|5 1|0 2|0 3|0 4|0 1|1 2|1",
        "6|0 6|1 6|2 3|1 4|1 2|2 3|2",
        out="5|0 5|1 5|2 5|3 5|4 6|5 6|6",
    )
    res = r.result
    assert res is not None and res.reason == "blocked"
    assert res.pips == (15, 39)
    assert res.fives == (10, 0)
    assert res.points == (25, 0)
    assert res.totals == (35, 0)
