"""RULES.md §9: target checked between rounds only, at most 8 rounds, shared places."""

from __future__ import annotations

import random

import pytest
from rules_support import SEATINGS, deal, play

from domino.rules import MAX_ROUNDS, PASS_MOVE, MatchState, Mode, RoundOverError, Rules, rank
from domino.rules.match import ROUNDS, TARGET

# Lager Aus, 2 seats: 6|6 opens and blocks at once with 29 pips each: a tie, 0 points.
TIE_HANDS = ("6|6 5|0 3|1 4|1 5|1 2|2 3|2", "1|0 2|0 3|0 4|0 1|1 4|3 5|5")
TIE_OUT = "6|5 6|4 6|3 6|2 6|1 6|0"
# Lager Aus, 3 seats: 6|6 opens and blocks at once; seat 1 scores 50.
FIFTY_HANDS = (
    "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
    "0|0 1|0 2|0 3|0 4|0 1|1 2|1",
    "4|2 5|2 3|3 4|3 5|3 4|4 5|4",
)
FIFTY_OUT = "6|5 6|4 6|3 6|2 6|1 6|0 5|5"


def test_s9_the_match_ends_after_a_round_that_brings_a_side_to_the_target() -> None:
    rules = Rules(seats=3, lager=False)  # Automatisch: 75
    m = MatchState(rules, auto=False)
    m.start_round(deal(rules, *FIFTY_HANDS, out=FIFTY_OUT))
    assert m.round.over and m.scores == (0, 50, 0)
    assert not m.over  # 50 < 75
    m.start_round(deal(rules, *FIFTY_HANDS, out=FIFTY_OUT))
    assert m.scores == (0, 100, 0)
    assert m.over and m.finished_reason == TARGET
    with pytest.raises(RoundOverError) as info:
        m.start_round()
    assert info.value.code == "match_over"


def test_s9_the_target_is_checked_only_between_rounds_never_in_the_middle() -> None:
    # Fünferpunkte with target 30: seat 1 has 30 after the sixth move, but the
    # round goes on to its end (Domino! by seat 1), and only then is the match over.
    rules = Rules(seats=2, fives=True, target=30)
    m = MatchState(rules, auto=False)
    m.start_round(
        deal(
            rules,
            "4|4 5|1 6|5 3|2 6|3 5|4 3|1",
            "5|2 3|3 5|5 2|2 6|1 4|2 0|0",
            lager="5|0 6|4 4|1 4|0 4|3 3|0 5|3 1|1 6|0 2|1 1|0 6|6 6|2 2|0",
        )
    )
    moves = "5|4 R,5|2 L,3|2 L,3|3 L,3|1 L,6|1 L,6|3 L,4|2 R,D,D,D,D,D,4|3 L,2|2 R,4|0 L,0|0 L"
    moves_list = moves.split(",")
    play(m, *moves_list[:6])
    assert max(m.scores) >= 30
    assert not m.over and not m.round.over and m.round.legal_moves()
    play(m, *moves_list[6:])
    assert m.round.over and m.over and m.finished_reason == TARGET
    res = m.round.result
    assert res is not None and res.fives == (5, 35) and res.points == (0, 45)
    assert m.scores == (5, 80)


def test_s9_after_round_8_the_match_ends_in_any_case() -> None:
    rules = Rules.preset("zugemauert", 2).replace(target=150)
    m = MatchState(rules, auto=False)
    for n in range(1, MAX_ROUNDS + 1):
        assert not m.over
        m.start_round(deal(rules, *TIE_HANDS, out=TIE_OUT))
        assert m.round_no == n and m.round.over
    assert MAX_ROUNDS == 8
    assert m.over and m.finished_reason == ROUNDS
    assert m.scores == (0, 0)
    assert [(s.side, s.place) for s in m.standings()] == [(0, 1), (1, 1)]
    with pytest.raises(RoundOverError):
        m.start_round()


def test_s9_ranking_by_points_equal_points_share_the_place_1_1_3() -> None:
    assert [(s.side, s.points, s.place) for s in rank([30, 30, 10])] == [
        (0, 30, 1),
        (1, 30, 1),
        (2, 10, 3),
    ]
    assert [(s.side, s.place) for s in rank([5, 40, 5, 40])] == [(1, 1), (3, 1), (0, 3), (2, 3)]
    assert [(s.side, s.place) for s in rank([1, 2, 3])] == [(2, 1), (1, 2), (0, 3)]
    assert [s.place for s in rank([0, 0, 0, 0])] == [1, 1, 1, 1]


def test_s9_with_paare_both_partners_get_their_teams_place() -> None:
    rules = Rules(seats=4, pairs=True, fives=True)
    m = MatchState(rules, seed=7)
    while not m.round.over:
        m.apply(m.round.legal_moves()[0])
    places = [m.place_of_seat(s) for s in range(4)]
    assert places[0] == places[2] and places[1] == places[3]
    team_places = {s.side: s.place for s in m.standings()}
    assert places == [team_places[0], team_places[1], team_places[0], team_places[1]]


def test_s9_a_new_round_reshuffles_redeals_and_opens() -> None:
    rules = Rules(seats=3)
    m = MatchState(rules, seed="s9")
    first = m.deals[0]
    with pytest.raises(RoundOverError) as info:
        m.start_round()
    assert info.value.code == "round_running"
    while not m.round.over:
        m.apply(m.round.legal_moves()[0])
    if not m.over:
        m.start_round()
        assert m.deals[1] != first
        assert m.round.log[0].kind == "open" and m.round_no == 2
        assert m.rounds[0].over and m.rounds[1] is m.round


def test_s9_seeded_matches_are_reproducible() -> None:
    def run() -> tuple[int, ...]:
        m = MatchState(Rules(seats=2), seed="same")
        while True:
            while not m.round.over:
                m.apply(m.round.legal_moves()[-1])
            if m.over:
                return m.scores
            m.start_round()

    assert run() == run()


def test_s9_moves_after_the_match_are_refused() -> None:
    rules = Rules(seats=3, lager=False, target=50)
    m = MatchState(rules, deal=deal(rules, *FIFTY_HANDS, out=FIFTY_OUT))
    assert m.over
    with pytest.raises(RoundOverError) as info:
        m.apply(PASS_MOVE)
    assert info.value.code == "match_over"


def test_s9_random_matches_end_only_between_rounds_at_the_target_or_after_8() -> None:
    rng = random.Random(9)
    variants = [Rules.preset(mode, s, p) for mode in Mode for s, p in SEATINGS]
    for i in range(120):
        rules = variants[i % len(variants)]
        m = MatchState(rules, seed=i)
        while True:
            while not m.round.over:
                assert not m.over
                legal = m.round.legal_moves()
                m.apply(legal[rng.randrange(len(legal))])
            if m.over:
                break
            assert max(m.scores) < rules.target_points and m.round_no < 8
            m.start_round()
        reached = max(m.scores) >= rules.target_points
        assert m.finished_reason == (TARGET if reached else ROUNDS)
        assert reached or m.round_no == 8
        totals = [0] * rules.sides
        for res in m.results:
            totals = [a + b for a, b in zip(totals, res.totals, strict=True)]
        assert tuple(totals) == m.scores
        assert len(m.results) == len(m.rounds) == len(m.deals) == m.round_no
