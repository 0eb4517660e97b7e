"""RULES.md §2: 2, 3 or 4 seats in playing order; Paare with 4 seats, teams 0+2 and 1+3."""

from __future__ import annotations

import itertools

import pytest
from rules_support import play, start

from domino.rules import InvalidRulesError, MatchState, RoundState, Rules, shuffled_deal, view


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_s2_two_three_or_four_seats(seats: int) -> None:
    assert Rules(seats=seats).seats == seats
    m = MatchState(Rules(seats=seats), seed=1)
    assert len(m.round.hands) == seats
    assert len(m.scores) == seats


@pytest.mark.parametrize("seats", [0, 1, 5, 8])
def test_s2_other_seat_counts_are_refused(seats: int) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules(seats=seats)
    assert info.value.code == "bad_seats"


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_s2_next_is_seat_plus_one_modulo_n(seats: int) -> None:
    # Lager Aus: whoever cannot play passes, so the turn walks round the table.
    rules = Rules(seats=seats, lager=False)
    for seed in range(20):
        r = RoundState.start(rules, shuffled_deal(rules, seed=seed))
        if r.over:  # the opening blocked the round: nobody moves
            continue
        order = [r.turn]
        while not r.over and len(order) < 12:
            r.apply(r.legal_moves()[0])
            if not r.over:
                order.append(r.turn)
        assert order[0] == (r.opener + 1) % seats
        assert all(b == (a + 1) % seats for a, b in itertools.pairwise(order))


def test_s2_opener_at_the_last_seat_hands_the_turn_to_seat_0() -> None:
    r = start(
        Rules(seats=3, lager=False),
        "1|0 2|0 3|0 4|0 5|0 1|1 2|1",
        "3|1 4|1 5|1 2|2 3|2 4|2 5|2",
        "6|6 6|5 6|4 6|3 6|2 6|1 6|0",
    )
    assert r.opener == 2
    assert r.turn == 0


@pytest.mark.parametrize("seats", [2, 3])
def test_s2_paare_only_with_exactly_four_seats(seats: int) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules(seats=seats, pairs=True)
    assert info.value.code == "pairs_need_four"


def test_s2_paare_teams_are_seats_0_2_and_1_3() -> None:
    rules = Rules(seats=4, pairs=True)
    assert [rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert rules.sides == 2
    plain = Rules(seats=4)
    assert [plain.side_of(s) for s in range(4)] == [0, 1, 2, 3]
    assert plain.sides == 4


def test_s2_paare_points_are_kept_per_team() -> None:
    m = MatchState(Rules.preset("fuenferfieber", 4, pairs=True), seed=3)
    assert len(m.scores) == 2
    assert len(m.round.side_fives) == 2
    assert [s.side for s in m.standings()] == [0, 1]
    # Both partners hold their team's place.
    assert m.place_of_seat(0) == m.place_of_seat(2)
    assert m.place_of_seat(1) == m.place_of_seat(3)


def test_s2_paare_fives_go_to_the_team_of_the_seat_that_placed() -> None:
    r = start(
        Rules(seats=4, pairs=True, fives=True),
        "6|3 1|0 2|0 3|0 4|0 1|1 2|1",
        "6|2 3|1 4|1 2|2 3|2 4|2 3|3",
        "5|5 6|1 6|4 6|5 6|0 4|3 4|4",
        "6|6 5|0 5|1 5|2 5|3 5|4 0|0",
    )
    assert (r.opener, r.turn) == (3, 0)
    assert r.side_fives == [0, 0]  # 6|6 alone counts 12
    play(r, "6|3 R")  # seat 0: 6|6 at the left counts 12, plus 3: 15 for team A
    assert r.side_fives == [15, 0]
    play(r, "6|2 L")  # seat 1: 2 + 3 = 5 for team B
    assert r.side_fives == [15, 5]


def test_s2_partners_never_see_each_others_hands() -> None:
    rules = Rules(seats=4, pairs=True)
    m = MatchState(rules, seed=11)
    for seat in range(4):
        v = view(m, seat)
        partner = (seat + 2) % 4
        assert v.hand == m.round.hand(seat)
        assert not set(m.round.hand(partner)) & set(v.hand or ())
        assert partner_tiles_absent(v.to_dict(), m.round.hand(partner))


def partner_tiles_absent(d: dict[str, object], tiles: tuple[object, ...]) -> bool:
    import json

    text = json.dumps(d)
    return not any(f'"{t}"' in text for t in tiles)
