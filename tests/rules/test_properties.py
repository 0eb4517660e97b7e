"""Hypothesis properties over arbitrary deals and move choices (RULES.md §1-§9).

Hypothesis picks the shuffle (any permutation of the 28 tiles), the variant
and the choice at every step; each test replays that against the engine and
the independent model of ``rules_reference.py``.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_reference import RefRound
from rules_support import VARIANTS, accounted, check_views, snapshot

from domino.rules import (
    MOVES,
    TILES,
    Deal,
    IllegalMoveError,
    Move,
    RoundState,
    Rules,
    Tile,
    rank,
    round_to_fives,
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

deals = st.permutations(TILES)
variants = st.sampled_from(VARIANTS)
choices = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=80)


def _deal(rules: Rules, order: list[Tile]) -> Deal:
    size, n = rules.hand_size, rules.seats
    hands = tuple(tuple(order[i * size : (i + 1) * size]) for i in range(n))
    rest = tuple(order[n * size :])
    return Deal(hands, rest, ()) if rules.draws else Deal(hands, (), rest)


def _pair(rules: Rules, d: Deal) -> tuple[RoundState, RefRound]:
    r = RoundState.start(rules, d)
    ref = RefRound(
        rules.seats,
        rules.lager,
        rules.fives,
        rules.pairs,
        [[str(t) for t in h] for h in d.hands],
        [str(t) for t in d.lager],
    )
    return r, ref


@SETTINGS
@given(order=deals, rules=variants, picks=choices)
def test_property_any_deal_and_choices_follow_the_model(
    order: list[Tile], rules: Rules, picks: list[int]
) -> None:
    r, ref = _pair(rules, _deal(rules, order))
    step = 0
    while not r.over:
        assert accounted(r)
        legal = r.legal_moves()
        assert {str(m) for m in legal} == ref.legal()
        check_views(r, fast=True)
        move = legal[picks[step % len(picks)] % len(legal)]
        r.apply(move)
        ref.apply(str(move))
        step += 1
        assert step < 200
    assert ref.over and accounted(r)
    check_views(r, fast=True)
    res = r.result
    assert res is not None
    assert (res.reason, res.winner) == (ref.reason, ref.winner)
    assert list(res.points) == ref.points and list(res.fives) == ref.fives
    assert list(res.pips) == ref.final_pips


@SETTINGS
@given(order=deals, rules=variants, picks=choices)
def test_property_every_illegal_move_is_refused_with_its_reason_and_changes_nothing(
    order: list[Tile], rules: Rules, picks: list[int]
) -> None:
    r, ref = _pair(rules, _deal(rules, order))
    for pick in picks:
        if r.over:
            break
        legal = r.legal_moves()
        names = {str(m) for m in legal}
        before = snapshot(r)
        for move in MOVES:  # all 58 moves, at every position reached
            if str(move) in names:
                assert r.can(move)
                continue
            try:
                r.apply(move)
            except IllegalMoveError as exc:
                assert exc.code == ref.refusal(str(move))
                assert str(exc)
            else:
                raise AssertionError(f"{move} accepted; legal were {sorted(names)}")
            assert snapshot(r) == before
        move = legal[pick % len(legal)]
        r.apply(move)
        ref.apply(str(move))


@given(a=st.integers(0, 6), b=st.integers(0, 6), end=st.sampled_from("LRlr"))
def test_property_tile_and_move_text_round_trips(a: int, b: int, end: str) -> None:
    t = Tile.of(a, b)
    assert Tile.parse(f"{a}|{b}") is t is Tile.parse(str(t))
    assert {t.low, t.high} == {a, b} and t.pips == a + b
    m = Move.parse(f"{a}|{b} {end}")
    assert m.tile is t and m.end == end.upper()
    assert Move.parse(str(m)) is m


@given(order=deals, rules=variants)
def test_property_deals_round_trip_through_dicts(order: list[Tile], rules: Rules) -> None:
    d = _deal(rules, order)
    d.validate(rules)
    assert Deal.from_dict(d.to_dict()) == d


@given(points=st.lists(st.integers(0, 300), min_size=2, max_size=4))
def test_property_places_count_the_sides_strictly_ahead(points: list[int]) -> None:
    standings = rank(points)
    assert sorted(s.side for s in standings) == list(range(len(points)))
    for s in standings:
        assert s.points == points[s.side]
        assert s.place == 1 + sum(p > s.points for p in points)
    assert [s.points for s in standings] == sorted(points, reverse=True)


@given(points=st.integers(0, 1000))
def test_property_rounding_to_fives_is_nearest_with_ties_impossible(points: int) -> None:
    rounded = round_to_fives(points)
    assert rounded % 5 == 0 and abs(rounded - points) <= 2
