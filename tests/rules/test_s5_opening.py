"""RULES.md §5: the automatic opening, its tie-breaks, its orientation and its score."""

from __future__ import annotations

import pytest
from rules_support import T, deal, legal, start

from domino.rules import OPEN, TILES, MatchState, RoundState, Rules, Tile, shuffled_deal

NO_DOUBLES_A = "6|4 5|0 4|1 3|2 2|1 1|0 3|0"
NO_DOUBLES_B = "6|3 5|4 5|1 4|0 4|2 3|1 2|0"


def test_s5_the_highest_double_opens_wherever_it_is() -> None:
    r = start(
        Rules(seats=3, lager=False),
        "6|5 6|4 6|3 6|2 6|1 6|0 5|4",
        "1|1 2|2 1|0 2|0 3|0 4|0 5|0",
        "5|5 3|3 2|1 3|1 4|1 5|1 3|2",
    )
    assert r.opener == 2
    assert r.log[0].kind == OPEN and r.log[0].tile is T("5|5")
    assert T("5|5") not in r.hand(2)


def test_s5_a_double_beats_any_heavier_non_double() -> None:
    r = start(Rules(seats=2), "6|5 6|4 6|3 5|4 6|2 5|3 4|3", "0|0 1|0 2|0 3|0 4|0 2|1 3|1")
    assert r.log[0].tile is T("0|0") and r.opener == 1


def test_s5_without_doubles_the_most_pips_open() -> None:
    r = start(Rules(seats=2), "6|4 5|0 4|1 3|2 2|1 1|0 3|0", "6|5 4|0 4|2 3|1 2|0 5|1 6|0")
    assert r.log[0].tile is T("6|5") and r.opener == 1


def test_s5_between_equal_pips_the_higher_half_wins_6_3_before_5_4() -> None:
    # 6|5 and 6|4 are in the Lager; 6|3 and 5|4 both count 9.
    a = "5|4 5|0 4|1 3|2 2|1 1|0 3|0"
    b = "6|3 5|2 5|1 4|0 4|2 3|1 2|0"
    r = start(Rules(seats=2), a, b)
    assert r.log[0].tile is T("6|3") and r.opener == 1
    swapped = start(Rules(seats=2), b, a)
    assert swapped.log[0].tile is T("6|3") and swapped.opener == 0


def test_s5_every_tile_order_of_the_opening_is_strict() -> None:
    # For any two tiles held by different seats the opener is decided the same
    # way: doubles by number, then pips, then higher half; never a tie.
    def key(t: Tile) -> tuple[int, int, int]:
        return (int(t.is_double), t.pips, t.high)

    assert len({key(t) for t in TILES}) == 28


def test_s5_a_non_double_opener_lies_with_its_lower_half_left() -> None:
    r = start(Rules(seats=2), "5|4 5|0 4|1 3|2 2|1 1|0 3|0", "4|3 5|2 5|1 4|0 4|2 3|1 2|0")
    # 5|4 opens: left 4, right 5.
    assert r.log[0].tile is T("5|4")
    assert (r.left, r.right) == (4, 5)
    assert r.line_text() == "4|5"
    assert (r.left_double, r.right_double) == (False, False)


def test_s5_after_3_6_opens_the_left_end_shows_3_and_the_right_6() -> None:
    # Only 3|6 of the heavy non-doubles is dealt: every tile above 9 pips and
    # all doubles are in the Lager.
    rules = Rules(seats=3)
    d = deal(
        rules,
        "6|3 1|0 2|0 3|0 4|0",
        "2|1 3|1 4|1 5|1 3|2",
        "4|2 5|2 4|3 5|0 6|0",
        lager="6|6 5|5 4|4 3|3 2|2 1|1 0|0 6|5 6|4 5|4 5|3 6|2 6|1",
    )
    r = RoundState.start(rules, d)
    assert r.log[0].tile is T("6|3")
    assert (r.left, r.right) == (3, 6)


def test_s5_a_double_opener_shows_its_number_at_both_ends() -> None:
    r = start(Rules(seats=2), "4|4 1|0 2|0 3|0 2|1 3|1 3|2", "6|5 6|4 6|3 5|4 4|0 4|1 4|2")
    assert (r.left, r.right) == (4, 4)
    assert r.left_double and r.right_double
    # Both ends show 4: each fitting tile gives two distinct moves (§6).
    assert legal(r) == [f"{t} {end}" for t in ("4|0", "4|1", "4|2", "5|4", "6|4") for end in "LR"]


def test_s5_the_seat_after_the_opener_moves_next() -> None:
    for seats in (2, 3, 4):
        rules = Rules(seats=seats)
        for seed in range(10):
            m = MatchState(rules, seed=seed)
            assert m.round.turn == (m.round.opener + 1) % seats


@pytest.mark.parametrize(
    "opener_tile,scored",
    [("5|5", 10), ("0|0", 0), ("6|6", 0), ("3|3", 0)],
)
def test_s5_the_opening_scores_under_fuenferpunkte(opener_tile: str, scored: int) -> None:
    # Every double above the opener is in the Lager.
    higher = [f"{n}|{n}" for n in range(int(opener_tile[0]) + 1, 7)]
    rest = [t for t in TILES if not t.is_double]
    rules = Rules(seats=2, fives=True)
    hand0 = [opener_tile, *(str(t) for t in rest[:6])]
    hand1 = [str(t) for t in rest[6:13]]
    r = start(rules, " ".join(hand0), " ".join(hand1), lager=" ".join(higher))
    assert r.log[0].tile is T(opener_tile)
    assert r.side_fives == [scored, 0]
    assert r.log[0].fives == scored


def test_s5_a_non_double_opener_counts_all_its_pips_6_4_counts_10() -> None:
    rules = Rules(seats=2, fives=True)
    r = start(rules, NO_DOUBLES_A, NO_DOUBLES_B, lager="6|5")
    assert r.log[0].tile is T("6|4")
    assert r.side_fives == [10, 0]


def test_s5_no_fives_without_fuenferpunkte() -> None:
    r = start(Rules(seats=2), NO_DOUBLES_A, NO_DOUBLES_B, lager="6|5")
    assert r.log[0].tile is T("6|4")
    assert r.side_fives == [0, 0] and r.log[0].fives == 0


def test_s5_every_round_opens_this_way_also_rounds_2_to_8() -> None:
    rules = Rules.preset("zugemauert", 2).replace(target=150)
    m = MatchState(rules, seed="s5")
    while True:
        r = m.round
        held = [t for h in m.deals[-1].hands for t in h]
        best = max(held, key=lambda t: (t.is_double, t.pips, t.high))
        assert r.log[0].tile is best
        assert r.turn == (r.opener + 1) % 2
        while not r.over:
            r.apply(r.legal_moves()[0])
        if m.over:
            break
        m.start_round()
    assert m.round_no >= 2


def test_s5_the_opening_can_block_the_round_at_once() -> None:
    # Lager Aus: every other 6 is out of play, so nobody can answer 6|6.
    r = start(
        Rules(seats=2, lager=False),
        "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
        "0|0 1|0 2|0 3|0 4|0 1|1 2|1",
        out="6|5 6|4 6|3 6|2 6|1 6|0",
    )
    assert r.over and r.result is not None
    assert r.result.reason == "blocked"
    assert len(r.log) == 1 and legal(r) == []


def test_s5_seeded_deals_open_correctly() -> None:
    for seats in (2, 3, 4):
        rules = Rules(seats=seats)
        for seed in range(30):
            d = shuffled_deal(rules, seed=seed)
            r = RoundState.start(rules, d)
            held = [(t, s) for s, h in enumerate(d.hands) for t in h]
            best, seat = max(held, key=lambda x: (x[0].is_double, x[0].pips, x[0].high))
            assert (r.log[0].tile, r.opener) == (best, seat)
