"""domino.rules.hypothesis and domino.bots.sample: hypothetical rounds agree with the engine."""

import random

import pytest

from domino.bots.sample import playout
from domino.bots.values import block_weights, greedy, greedy_block_es
from domino.rules import MOVES, PASS_MOVE, MatchState, Mode, RoundState, Rules, Tile, view
from domino.rules.hypothesis import Hypothesis, check, determinize
from domino.rules.kernel import ends_state

CONFIGS = [
    Rules.preset(Mode.KLASSISCH, 2),
    Rules.preset(Mode.BLITZ, 3),
    Rules.preset(Mode.ZUGEMAUERT, 3),
    Rules.preset(Mode.FUENFERFIEBER, 4),
    Rules.preset(Mode.KLASSISCH, 4, pairs=True),
    Rules.preset(Mode.FUENFERFIEBER, 4, pairs=True),
]


def _truth(r: RoundState) -> Hypothesis:
    return Hypothesis(tuple(r.hands), tuple(r.lager), r.out)


def _positions(rules: Rules, seed: int):  # type: ignore[no-untyped-def]
    """(round, view of the seat to move) at random moments of random rounds."""
    rng = random.Random(seed)
    for k in range(40):
        r = MatchState(rules, seed=f"sample/{seed}/{k}").round
        stop = rng.randrange(0, 30)
        while not r.over and stop:
            r.apply(rng.choice(r.legal_moves()))
            stop -= 1
        if not r.over:
            yield r, view(r, r.turn)


def _engine_playout(r: RoundState, first_index: int, block: bool = False) -> tuple[int, ...]:
    before = list(r.side_fives)
    r.apply(MOVES[first_index])
    while not r.over:
        legal = r.legal_moves()
        plays = [m for m in legal if m.is_play]
        if plays and block:
            idx = greedy_block_es(
                list(r.hands), r.turn, r.es, r.rules.fives, block_weights(r.rules)[r.turn]
            )
            move = MOVES[idx]
            assert move in plays
        elif plays:
            idx = greedy(
                r.hands[r.turn], r.left, r.right, r.left_double, r.right_double, r.rules.fives
            )
            move = MOVES[idx]
            assert move in plays
        else:
            move = legal[0]
            assert move is not PASS_MOVE or len(legal) == 1
        r.apply(move)
    assert r.result is not None
    return tuple(p + f - b for p, f, b in zip(r.result.points, r.result.fives, before, strict=True))


@pytest.mark.parametrize("k", range(len(CONFIGS)))
def test_playout_matches_the_engine_playing_the_same_moves(k: int) -> None:
    rules = CONFIGS[k]
    n = 0
    for r, v in _positions(rules, k):
        hyp = _truth(r)
        check(v, hyp)
        for first in v.legal:
            if first is PASS_MOVE and len(v.legal) > 1:
                continue
            expect = _engine_playout(determinize(v, hyp), first.index)
            assert playout(v, hyp, first) == expect
            expect = _engine_playout(determinize(v, hyp), first.index, block=True)
            assert playout(v, hyp, first, block=True) == expect
            n += 1
    assert n > 20


def test_block_weights_count_opponents_for_and_partners_against() -> None:
    assert block_weights(Rules(seats=2)) == (((1, 8),), ((0, 8),))
    assert block_weights(Rules.preset(Mode.KLASSISCH, 3))[0] == ((1, 8), (2, 4))
    pairs = block_weights(Rules.preset(Mode.KLASSISCH, 4, pairs=True))
    assert pairs[1] == ((2, 8), (3, -4), (0, 2))
    assert block_weights(Rules.preset(Mode.KLASSISCH, 4))[1] == ((2, 8), (3, 4), (0, 2))


def test_the_blocking_policy_prefers_a_play_the_next_opponent_cannot_answer() -> None:
    # Seat 0 holds 6|1 and 6|2 on ends 6|6 (no doubles), seat 1 only 2|0. Greedy sheds
    # the heavier 6|2 (both keep a follow-up); it leaves a 2 that seat 1 answers, 6|1 does not.
    hands = [Tile.parse("6|1").mask | Tile.parse("6|2").mask, Tile.parse("2|0").mask]
    es = ends_state(6, 6, False, False)
    rules = Rules(seats=2)
    plain = greedy(hands[0], 6, 6, False, False, False)
    assert MOVES[plain].tile == Tile.parse("6|2")
    smart = greedy_block_es(hands, 0, es, False, block_weights(rules)[0])
    assert MOVES[smart].tile == Tile.parse("6|1")


def test_determinize_reproduces_the_view() -> None:
    for rules in CONFIGS:
        for r, v in _positions(rules, 99):
            d = determinize(v, _truth(r))
            w = view(d, v.seat)
            assert (w.hand, w.left, w.right, w.lager_count, w.hand_counts, w.legal, w.drew) == (
                v.hand,
                v.left,
                v.right,
                v.lager_count,
                v.hand_counts,
                v.legal,
                v.drew,
            )


def test_check_refuses_a_guess_that_contradicts_the_view() -> None:
    r, v = next(_positions(Rules(seats=2), 3))
    hyp = _truth(r)
    other = 1 - r.turn
    with pytest.raises(ValueError):
        check(v, Hypothesis(hyp.hands[::-1], hyp.lager, hyp.out))
    if hyp.lager:
        # one Lager tile into the other hand: the hand size no longer agrees
        moved = list(hyp.hands)
        moved[other] |= 1 << hyp.lager[0]
        with pytest.raises(ValueError):
            check(v, Hypothesis(tuple(moved), hyp.lager[1:], hyp.out))
