"""The package interface other agents build against (.notes/contracts.md)."""

import random

import pytest

from domino.bots import LEVEL_NAMES, LEVELS, auto_move, make_bot
from domino.bots.meister import Meister
from domino.rules import MatchState, Mode, Rules, view

CONFIGS = [
    Rules.preset(Mode.KLASSISCH, 2),
    Rules.preset(Mode.BLITZ, 3),
    Rules.preset(Mode.ZUGEMAUERT, 4),
    Rules.preset(Mode.FUENFERFIEBER, 3),
    Rules.preset(Mode.KLASSISCH, 4, pairs=True),
    Rules.preset(Mode.FUENFERFIEBER, 4, pairs=True),
]


def test_levels_and_names() -> None:
    assert LEVELS == ("anfaenger", "fortgeschritten", "profi", "meister")
    assert set(LEVEL_NAMES) == set(LEVELS)
    assert LEVEL_NAMES["anfaenger"] == "Anfänger"


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError):
        make_bot("grossmeister", seed=1)


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_whole_match_legally_in_every_config(level: str) -> None:
    for k, rules in enumerate(CONFIGS):
        match = MatchState(rules, seed=f"api/{level}/{k}")
        bots = [make_bot(level, seed=(k, s)) for s in range(rules.seats)]
        for b in bots:
            if isinstance(b, Meister):
                b.playouts = 40  # a smaller search keeps the test fast; the code path is the same
        assert all(b.level == level for b in bots)
        while True:
            rnd = match.round
            while not rnd.over:
                seat = rnd.turn
                v = view(match, seat)
                move = bots[seat].choose(v)
                assert move in v.legal
                match.apply(move, seat)
            if match.over:
                break
            match.start_round()


def test_auto_move_is_deterministic_and_plays_when_it_can() -> None:
    rng = random.Random(5)
    for k in range(30):
        match = MatchState(Rules(seats=3), seed=f"auto/{k}")
        rnd = match.round
        while not rnd.over:
            v = view(match, rnd.turn)
            move = auto_move(v)
            assert move == auto_move(v)
            assert move in v.legal
            if any(m.is_play for m in v.legal):
                assert move.is_play
            # a random move in between keeps the positions varied
            match.apply(rng.choice(v.legal) if k % 2 else move, rnd.turn)


def test_auto_move_sheds_the_heavier_tile_when_follow_ups_are_equal() -> None:
    from domino.rules import Deal, RoundState, Tile

    T = Tile.parse
    # Seat 1 holds 6|5 and 6|1 for the open 6 ends; either keeps the other one as a
    # follow-up and nothing else fits, so the heavier 6|5 goes first.
    deal = Deal(
        hands=(
            (T("6|6"), T("0|0"), T("1|0"), T("2|0"), T("3|0"), T("4|0"), T("2|2")),
            (T("6|5"), T("6|1"), T("3|3"), T("4|4"), T("4|3"), T("3|2"), T("4|2")),
        ),
        lager=tuple(
            T(t)
            for t in (
                "5|0",
                "5|5",
                "5|1",
                "1|1",
                "2|1",
                "3|1",
                "4|1",
                "5|2",
                "5|3",
                "5|4",
                "6|0",
                "6|2",
                "6|3",
                "6|4",
            )
        ),
    )
    r = RoundState.start(Rules(seats=2), deal)
    v = view(r, 1)
    assert str(auto_move(v)).startswith("6|5")
