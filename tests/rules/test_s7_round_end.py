"""RULES.md §7: Domino!, Blockiert, ties, Paare by team totals, rounding, revealed hands."""

from __future__ import annotations

import json

import pytest
from rules_support import deal, legal, play, start

from domino.rules import BLOCKED, DOMINO, RoundState, Rules, round_to_fives, view

ZUGEMAUERT_2 = Rules.preset("zugemauert", 2)
PAARE = Rules(seats=4, pairs=True)

# Seat 0 chains 6|6 6|1 1|1 1|0 0|0 6|0 on the numbers 6, 1, 0; seat 1 holds
# only tiles of 2..5 and passes every turn.
CHAIN = "6|6 6|1 1|1 1|0 0|0 6|0"
CHAIN_MOVES = ("P", "6|1 R", "P", "1|1 R", "P", "1|0 R", "P", "0|0 R", "P", "6|0 L", "P")


def _chain(rules: Rules, last: str, seat1: str) -> RoundState:
    r = start(rules, f"{CHAIN} {last}", seat1)
    play(r, *CHAIN_MOVES)
    return r


def test_s7_domino_the_seat_playing_its_last_tile_scores_all_pips_left_in_other_hands() -> None:
    r = _chain(ZUGEMAUERT_2, "2|0", "2|2 3|3 4|4 5|5 3|2 4|2 5|2")
    assert r.turn == 0 and legal(r) == ["2|0 L", "2|0 R"]
    play(r, "2|0 R")
    res = r.result
    assert res is not None
    assert (res.reason, res.out_seat, res.winner) == (DOMINO, 0, 0)
    assert res.pips == (0, 46)
    assert res.points == (46, 0)
    assert res.totals == (46, 0)


def test_s7_domino_with_three_seats_sums_both_other_hands() -> None:
    # Seat 1 goes out with 3|3; seat 0 keeps 1|1 4|1 (7), seat 2 0|0 1|0 6|1 (8).
    rules = Rules(seats=3, lager=False)
    r = start(
        rules,
        "4|0 2|0 4|3 5|4 4|2 4|1 1|1",
        "3|2 3|1 5|0 6|6 6|4 3|3 5|2",
        "2|2 1|0 6|1 0|0 6|3 3|0 5|1",
    )
    play(r, "6|3 L", "4|3 L", "6|4 R", "P", "4|0 R", "5|0 R", "5|1 R", "5|4 L", "3|1 R")
    play(r, "3|0 R", "2|0 R", "3|2 R", "P", "P", "5|2 L", "2|2 L", "4|2 L", "3|3 R")
    res = r.result
    assert res is not None and (res.reason, res.out_seat, res.winner) == (DOMINO, 1, 1)
    assert res.pips == (7, 0, 8)
    assert res.points == (0, 15, 0)


def test_s7_domino_wins_even_when_the_last_tile_also_closes_the_line() -> None:
    # Seat 0 lays its last tile 5|1; seat 1 keeps 5|5, which fits neither end:
    # the line is closed too, but going out is Domino!, not Blockiert.
    r = start(ZUGEMAUERT_2, "6|6 6|1 2|2 3|3 5|1 6|2 4|0", "2|0 4|4 2|1 5|5 3|2 6|4 5|3")
    play(r, "6|4 L", "6|1 R", "4|4 L", "4|0 L", "2|0 L", "6|2 L", "2|1 R", "2|2 R")
    play(r, "3|2 R", "3|3 R", "5|3 R", "5|1 R")
    res = r.result
    assert res is not None
    assert not any(t.has(r.left) or t.has(r.right) for t in r.hand(1))
    assert (res.reason, res.out_seat, res.winner, res.points) == (DOMINO, 0, 0, (10, 0))


def test_s7_domino_under_fuenferpunkte_rounds_46_down_to_45() -> None:
    r = _chain(ZUGEMAUERT_2.replace(fives=True), "2|0", "2|2 3|3 4|4 5|5 3|2 4|2 5|2")
    play(r, "2|0 R")
    assert r.result is not None
    assert r.result.points == (45, 0)
    assert r.result.fives == (0, 0)  # no count in this line is a multiple of 5


def test_s7_blocked_is_detected_at_once_nobody_has_to_pass_first() -> None:
    # After 6|0 L the ends are 0 and 0; seat 0 holds 5|5, seat 1 only 2..5.
    r = start(ZUGEMAUERT_2, f"{CHAIN} 5|5", "2|2 3|3 4|4 3|2 4|2 5|2 4|3")
    play(r, *CHAIN_MOVES[:-1])
    assert r.over
    assert r.log[-1].kind == "play" and str(r.log[-1].tile) == "6|0"
    res = r.result
    assert res is not None
    assert (res.reason, res.out_seat, res.winner) == (BLOCKED, None, 0)
    assert res.pips == (10, 43)
    assert res.points == (33, 0)


def test_s7_blocked_fewest_pips_scores_the_sum_of_differences() -> None:
    # Three seats, Lager Aus; 6|6 opens and every other 6 is out of play, so
    # the opening blocks the round. Pips: 29, 15, 51 -> seat 1 scores 14 + 36.
    r = start(
        Rules(seats=3, lager=False),
        "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
        "0|0 1|0 2|0 3|0 4|0 1|1 2|1",
        "4|2 5|2 3|3 4|3 5|3 4|4 5|4",
        out="6|5 6|4 6|3 6|2 6|1 6|0 5|5",
    )
    res = r.result
    assert res is not None and res.reason == BLOCKED
    assert res.pips == (29, 15, 51)
    assert res.winner == 1
    assert res.points == (0, 50, 0)


def test_s7_blocked_tie_scores_nothing() -> None:
    r = start(
        ZUGEMAUERT_2,
        "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
        "1|0 2|0 3|0 4|0 1|1 4|3 5|5",
        out="6|5 6|4 6|3 6|2 6|1 6|0",
    )
    res = r.result
    assert res is not None and res.reason == BLOCKED
    assert res.pips == (29, 29)
    assert res.winner is None and res.points == (0, 0)


def test_s7_blocked_tie_of_the_two_fewest_scores_nothing_with_three_seats() -> None:
    # Seat 1 draws eleven tiles until 0|0 fits; seat 2 draws the last one,
    # 3|3, which fits nowhere: blocked at once. Seats 0 and 2 hold 15 pips
    # each, seat 1 holds 74: two seats share the fewest.
    r = start(
        Rules(seats=3),
        "4|1 2|0 5|2 6|2 5|0",
        "6|5 4|4 2|1 6|1 6|4",
        "5|4 6|0 3|0 6|3 4|0",
        lager="1|0 5|1 1|1 4|2 6|6 3|2 5|5 4|3 2|2 5|3 3|1 0|0 3|3",
    )
    play(r, "4|0 R", "5|0 R", "6|5 R", "6|3 R", "4|1 L", "6|1 L", "6|0 L", "2|0 L", "2|1 L")
    play(r, "3|0 R", "D", "1|0 L", *["D"] * 11, "0|0 L", "D")
    res = r.result
    assert res is not None and res.reason == BLOCKED
    assert res.pips == (15, 74, 15)
    assert res.winner is None and res.points == (0, 0, 0)


def test_s7_blocked_at_once_after_a_draw_that_empties_the_lager_and_does_not_fit() -> None:
    r = start(
        Rules(seats=2),
        "4|1 5|4 5|1 3|2 1|0 5|2 2|2",
        "6|4 6|3 4|3 4|0 4|4 4|2 6|1",
        lager="6|6 5|5 3|0 6|0 6|5 2|1 5|3 6|2 0|0 3|1 3|3 2|0 5|0 1|1",
    )
    play(r, "5|4 R", "4|0 L", "1|0 L", "6|1 L", "5|1 R", "6|4 L", "4|1 R", "4|2 R", "3|2 R")
    play(r, "4|3 R", *["D"] * 13)
    assert not r.over and len(r.lager) == 1
    play(r, "D")
    assert r.over and r.log[-1].kind == "draw"
    res = r.result
    assert res is not None
    assert (res.reason, res.winner, res.pips, res.points) == (BLOCKED, 1, (91, 9), (0, 82))


# -- Paare ----------------------------------------------------------------------
# Deals and moves found by seeded random playouts; the expected figures are
# worked out by hand in each comment.


def _paare(hands: list[str], moves: str) -> RoundState:
    r = RoundState.start(PAARE, deal(PAARE, *hands))
    play(r, *(m.strip() for m in moves.split(",")))
    assert r.over
    return r


def test_s7_paare_domino_by_team_b_scores_for_team_b() -> None:
    # Seat 1 goes out. Team A holds 7 + 6 = 13, team B 0 + 8 = 8: B scores 13.
    r = _paare(
        [
            "5|2 1|0 2|1 3|1 4|0 3|0 4|1",
            "5|4 1|1 6|5 6|1 5|3 6|6 2|2",
            "2|0 5|1 6|3 5|5 4|2 3|3 5|0",
            "4|3 6|0 6|4 4|4 0|0 6|2 3|2",
        ],
        "6|3 R, 6|4 L, 3|0 R, 5|4 L, 5|1 L, 0|0 R, 4|0 R, 1|1 L, 4|2 R, 3|2 R, 4|1 L, 5|3 R,"
        "5|0 R, 6|0 R, P, 6|5 R, 5|5 R, 4|4 L, 5|2 R, 2|2 R, 2|0 R, 4|3 L, 1|0 R, 6|1 R",
    )
    res = r.result
    assert res is not None
    assert (res.reason, res.out_seat, res.pips) == (DOMINO, 1, (7, 0, 6, 8))
    assert res.winner == 1
    assert res.points == (0, 13)


def test_s7_paare_domino_counts_the_partners_hand_and_the_lighter_team_wins() -> None:
    # Seat 1 goes out, but its partner (seat 3) holds 24: team A holds 14 + 5
    # = 19 < 24, so team A wins the round and scores team B's 24.
    r = _paare(
        [
            "5|5 6|4 5|2 5|3 2|1 2|2 6|3",
            "2|0 5|1 0|0 6|6 4|3 3|1 1|0",
            "6|1 6|2 3|2 6|0 5|0 3|3 3|0",
            "6|5 4|4 4|0 4|1 5|4 4|2 1|1",
        ],
        "6|1 L, 6|5 R, 5|5 R, 5|1 L, 5|0 R, 4|0 R, 5|3 L, 4|3 R, 3|3 L, P, 6|3 R, 3|1 L,"
        "6|2 R, 4|2 R, 6|4 R, 1|0 L, 6|0 R, P, P, 0|0 R, 3|0 R, P, P, 2|0 L",
    )
    res = r.result
    assert res is not None
    assert (res.reason, res.out_seat, res.pips) == (DOMINO, 1, (14, 0, 5, 24))
    assert res.winner == 0
    assert res.points == (24, 0)


def test_s7_paare_domino_where_the_teams_tie_scores_nothing() -> None:
    # Seat 1 goes out; team A holds 0 + 10, team B 0 + 10.
    r = _paare(
        [
            "0|0 6|3 5|0 1|1 4|3 4|0 5|4",
            "6|6 2|0 6|1 3|2 2|2 3|3 4|4",
            "4|2 6|2 2|1 5|2 6|0 6|4 5|5",
            "1|0 3|0 5|1 4|1 3|1 5|3 6|5",
        ],
        "6|0 R, 1|0 R, 1|1 R, 6|1 L, 2|1 R, 4|1 L, 5|4 L, 2|0 R, 5|2 L, 3|0 R, 6|3 R, 3|2 L,"
        "6|2 R, 5|3 L, 5|0 L, 2|2 R, 4|2 R, P, 4|0 L, 4|4 R, 6|4 R, 6|5 R, 4|3 L, 3|3 L",
    )
    res = r.result
    assert res is not None
    assert (res.reason, res.out_seat, res.pips) == (DOMINO, 1, (0, 0, 10, 10))
    assert res.winner is None
    assert res.points == (0, 0)


def test_s7_paare_blocked_the_lighter_team_scores_the_other_teams_pips() -> None:
    # Team A holds 15 + 15 = 30, team B 26 + 26 = 52: A scores 52.
    r = _paare(
        [
            "4|0 5|2 3|1 2|0 1|1 6|6 6|5",
            "4|1 5|1 5|4 2|1 3|3 6|3 6|0",
            "6|4 5|3 1|0 2|2 5|0 6|2 3|2",
            "0|0 4|2 5|5 4|3 3|0 4|4 6|1",
        ],
        "6|3 R, 6|4 L, 4|4 L, 4|0 L, 6|0 L, 5|3 R, 6|1 L, 6|5 R, 2|1 L, 6|2 L",
    )
    res = r.result
    assert res is not None
    assert (res.reason, res.pips, res.winner, res.points) == (BLOCKED, (15, 26, 15, 26), 0, (52, 0))


def test_s7_paare_blocked_equal_team_pips_scores_nothing() -> None:
    # Team A 24 + 20, team B 24 + 20.
    r = _paare(
        [
            "2|1 6|6 0|0 5|4 4|4 5|2 6|4",
            "3|0 6|1 3|2 5|0 5|5 4|0 6|2",
            "4|2 4|3 4|1 1|0 6|0 3|3 6|5",
            "5|3 2|0 5|1 2|2 6|3 1|1 3|1",
        ],
        "6|1 R, 6|5 L, 5|1 L, 2|1 R, 6|2 R, 4|1 L, 6|3 R, 6|4 L, 3|0 R, 6|0 R",
    )
    res = r.result
    assert res is not None
    assert (res.reason, res.pips) == (BLOCKED, (24, 24, 20, 20))
    assert res.winner is None and res.points == (0, 0)


@pytest.mark.parametrize(
    "points,rounded",
    [(0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (46, 45), (47, 45), (48, 50), (49, 50)],
)
def test_s7_fuenferpunkte_rounds_to_the_nearest_five_1_2_down_3_4_up(
    points: int, rounded: int
) -> None:
    assert round_to_fives(points) == rounded


def test_s7_fuenferpunkte_rounds_blocked_points_too_33_up_to_35() -> None:
    hands = (f"{CHAIN} 5|5", "2|2 3|3 4|4 3|2 4|2 5|2 4|3")
    plain = start(ZUGEMAUERT_2, *hands)
    fives = start(ZUGEMAUERT_2.replace(fives=True), *hands)
    play(plain, *CHAIN_MOVES[:-1])
    play(fives, *CHAIN_MOVES[:-1])
    assert plain.result is not None and fives.result is not None
    assert plain.result.points == (33, 0)
    assert fives.result.points == (35, 0)


def test_s7_at_the_end_every_hand_still_held_is_shown_to_everyone() -> None:
    r = start(
        Rules(seats=3, lager=False),
        "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
        "0|0 1|0 2|0 3|0 4|0 1|1 2|1",
        "4|2 5|2 3|3 4|3 5|3 4|4 5|4",
        out="6|5 6|4 6|3 6|2 6|1 6|0 5|5",
    )
    assert r.result is not None
    shown = [[str(t) for t in h] for h in r.result.hands]
    for audience in (0, 1, 2, None):
        v = view(r, audience)
        assert v.result is not None
        assert [[str(t) for t in h] for h in v.result.hands] == shown
        assert v.to_dict()["result"]["hands"] == shown
        # Lager-Aus leftovers stay hidden, even now.
        text = json.dumps(v.to_dict())
        assert not any(f'"{t}"' in text for t in ["6|5", "6|4", "6|3", "6|2", "6|1", "6|0", "5|5"])
    assert shown[1] == ["0|0", "1|0", "2|0", "3|0", "4|0", "1|1", "2|1"]
