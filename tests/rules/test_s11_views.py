"""What an audience may know (RULES.md §4, §6, §11, §13): ``view(state, seat)``.

A seat knows its own hand, the line, the Lager's size, every seat's hand
size and points, and the public history (plays, draws as counts, passes);
never another hand or the Lager's order. A spectator knows the same without
a hand. After the round's end every hand still held is shown; Lager-Aus
leftovers never are.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from rules_support import (
    VARIANTS,
    allowed_tiles,
    check_views,
    play,
    revealed,
    revealed_in_json,
    start,
)

from domino.rules import TILES, MatchState, RoundState, Rules, shuffled_deal, tiles_of, view
from domino.rules.audience import PublicEvent, SeatView

EXAMPLE = ("6|6 0|0 4|0 4|1 4|4 5|0 5|4", "6|2 2|2 5|3 1|0 1|1 3|0 5|1")


def _example() -> RoundState:
    return start(Rules(seats=2), *EXAMPLE, lager="3|3 6|4")


def test_s11_a_seat_sees_its_own_hand_and_nothing_of_another() -> None:
    r = _example()
    play(r, "6|2 R", "D", "D")
    v0, v1 = view(r, 0), view(r, 1)
    assert v0.hand == r.hand(0) and v1.hand == r.hand(1)
    assert not set(r.hand(0)) & revealed(v1)
    assert not set(r.hand(1)) & revealed(v0)
    assert revealed(v1) <= allowed_tiles(r, 1)


def test_s11_a_draw_is_public_as_a_count_never_as_a_tile() -> None:
    r = _example()
    play(r, "6|2 R", "D", "D")
    for audience in (0, 1, None):
        v = view(r, audience)
        draws = [e for e in v.history if e.kind == "draw"]
        assert [(e.seat, e.tile) for e in draws] == [(0, None), (0, None)]
        assert all("tile" not in e.to_dict() for e in draws)
        assert v.drew == 2 and v.turn == 0
    # Even the drawing seat's history hides it; its hand shows it.
    assert {str(t) for t in view(r, 0).hand or ()} >= {"3|3", "6|4"}


def test_s11_the_lager_shows_as_a_number_never_its_order() -> None:
    r = _example()
    for audience in (0, 1, None):
        v = view(r, audience)
        assert v.lager_count == 14 and v.to_dict()["lager"] == 14
        lager = {TILES[i] for i in r.lager}
        assert not lager & revealed(v)
        assert not lager & revealed_in_json(v.to_dict())


def test_s11_legal_moves_only_for_the_seat_to_move() -> None:
    r = _example()
    assert [str(m) for m in view(r, 1).legal] == ["6|2 L", "6|2 R"]
    assert view(r, 0).legal == ()
    assert view(r, None).legal == ()
    assert view(r, 1).to_dict()["legal"] == ["6|2 L", "6|2 R"]


def test_s13_a_spectator_sees_line_counts_points_and_turn_never_a_hand() -> None:
    r = _example()
    play(r, "6|2 R")
    v = view(r, None)
    assert v.seat is None and v.hand is None
    assert v.to_dict()["hand"] is None
    assert [str(t) for t in v.played] == ["6|6", "6|2"]
    assert v.hand_counts == (6, 6) and v.lager_count == 14
    assert v.turn == 0 and v.scores == (0, 0)
    assert revealed(v) == {t for t, _, _ in r.line}


def test_s11_views_are_frozen_values() -> None:
    r = _example()
    v = view(r, 1)
    assert isinstance(v, SeatView)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.hand = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.history[0].seat = 1  # type: ignore[misc]
    assert isinstance(v.history[0], PublicEvent)
    assert isinstance(v.hand, tuple) and isinstance(v.line, tuple)
    # A view does not change when the state moves on.
    before = v.to_dict()
    play(r, "6|2 R")
    assert v.to_dict() == before


def test_s7_s11_after_the_round_every_hand_is_shown_and_leftovers_stay_hidden() -> None:
    rules = Rules(seats=3, lager=False)
    r = start(
        rules,
        "6|6 5|0 3|1 4|1 5|1 2|2 3|2",
        "0|0 1|0 2|0 3|0 4|0 1|1 2|1",
        "4|2 5|2 3|3 4|3 5|3 4|4 5|4",
        out="6|5 6|4 6|3 6|2 6|1 6|0 5|5",
    )
    assert r.over
    for audience in (0, 1, 2, None):
        v = view(r, audience)
        assert v.turn is None and v.legal == ()
        assert v.result is not None and len(v.result.hands) == 3
        seen = revealed(v)
        assert {t for h in (r.hand(0), r.hand(1), r.hand(2)) for t in h} <= seen
        out = set(tiles_of(r.out))
        assert len(out) == 7
        assert not out & seen
        assert not out & revealed_in_json(v.to_dict())
    check_views(r)


def test_s11_the_match_view_carries_round_number_and_match_scores() -> None:
    m = MatchState(Rules(seats=2), seed=3)
    v = view(m, 0)
    assert v.round_no == 1 and v.scores == m.scores
    d = v.to_dict()
    assert d["round"] == 1 and d["seat"] == 0
    json.dumps(d)


def test_s11_no_view_ever_reveals_a_hidden_tile_in_random_rounds() -> None:
    rng = random.Random(11)
    for i in range(len(VARIANTS) * 3):
        rules = VARIANTS[i % len(VARIANTS)]
        r = RoundState.start(rules, shuffled_deal(rules, rng=rng))
        while True:
            check_views(r)
            if r.over:
                break
            legal = r.legal_moves()
            r.apply(legal[rng.randrange(len(legal))])
