"""Meister's reading of the other seats' past plays: the hands it reconstructs are the
hands they held, Fortgeschritten's own plays are fully plausible, and weighed guesses
still agree with the view."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domino.bots import auto_move
from domino.bots.knowledge import Knowledge, infer
from domino.bots.meister import (
    Meister,
    _block,
    guess,
    guess_slots,
    held_hand,
    past_plays,
    plausibility,
    public_before_plays,
)
from domino.bots.profi import Profi, block_value
from domino.rules import WITH, MatchState, Mode, RoundState, Rules, SeatView, view
from domino.rules.hypothesis import Hypothesis, check
from domino.rules.kernel import BIT, ES_COUNT, PLACE

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RULES = [
    Rules(seats=2),
    Rules.preset(Mode.KLASSISCH, 3),
    Rules.preset(Mode.ZUGEMAUERT, 3),
    Rules.preset(Mode.FUENFERFIEBER, 4),
    Rules.preset(Mode.KLASSISCH, 4, pairs=True),
]

rules_st = st.sampled_from(RULES)
seeds = st.integers(min_value=0, max_value=10**9)


def _play(
    rules: Rules, seed: int, steps: int, policy: str
) -> tuple[RoundState, dict[int, tuple[int, int]]]:
    """A round after up to ``steps`` moves (random or Fortgeschritten's); per play made,
    by move index: the hand its seat held and the ends state before it."""
    rng = random.Random(seed)
    r = MatchState(rules, seed=f"inference/{seed}").round
    before: dict[int, tuple[int, int]] = {}
    for _ in range(steps):
        if r.over:
            break
        move = rng.choice(r.legal_moves()) if policy == "random" else auto_move(view(r, r.turn))
        if move.is_play:
            before[move.index] = (r.hands[r.turn], r.es)
        r.apply(move)
    return r, before


def _at_turn(
    rules: Rules, seed: int, steps: int, policy: str
) -> tuple[RoundState, SeatView, Knowledge, dict[int, tuple[int, int]]] | None:
    """:func:`_play`, then the view and the knowledge of the seat to move; ``None`` when
    the round is over by then."""
    r, before = _play(rules, seed, steps, policy)
    if r.over:
        return None
    v = view(r, r.turn)
    return r, v, infer(v), before


def _truth(r: RoundState) -> Hypothesis:
    return Hypothesis(tuple(r.hands), tuple(r.lager), r.out)


def _true_where(r: RoundState, know: Knowledge) -> tuple[tuple[int, ...], ...] | None:
    """The true tile of every slot of ``know``, when the model's account of who drew
    what when agrees with the truth (else ``None``: then no slot assignment is true)."""
    birth_of: dict[int, int] = {}  # tile -> history index of the event it came in with
    for idx, ev in enumerate(r.log):
        if ev.kind == "draw":
            assert ev.tile is not None
            birth_of[ev.tile.index] = idx
    for idx, b in know.sources:
        ev = r.log[idx]
        assert ev.tile is not None
        if birth_of.get(ev.tile.index, 0) != b:
            return None
    where = []
    for s, births in enumerate(know.births):
        tiles = [i for i in range(28) if r.hands[s] >> i & 1] if births else []
        row = []
        for b in births:
            match = [t for t in tiles if birth_of.get(t, 0) == b]
            if not match:
                return None
            tiles.remove(match[0])
            row.append(match[0])
        where.append(tuple(row))
    return tuple(where)


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_past_plays_rebuild_the_hand_each_seat_held(rules: Rules, seed: int, steps: int) -> None:
    at = _at_turn(rules, seed, steps, "random")
    if at is None:
        return
    r, v, know, before = at
    me = r.turn
    where = _true_where(r, know)
    plays = past_plays(v, know)
    for play in plays:
        s, es, mv, after, held, _ = play
        assert s != me
        hand, es_then = before[mv]
        assert es == es_then
        assert after & BIT[mv]
        if where is not None:  # the model's account of who drew what is the true one
            assert after & hand == after  # played since, held then
            assert held_hand(play, _truth(r), where) == hand
        if not rules.draws:
            assert held is None
            # The hand of now plus the tiles played since (this one too) is the hand of then.
            assert r.hands[s] | after == hand


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_fortgeschritten_plays_are_fully_plausible_in_the_true_deal(
    rules: Rules, seed: int, steps: int
) -> None:
    at = _at_turn(rules, seed, steps, "fortgeschritten")
    if at is None:
        return
    r, v, know, _ = at
    where = _true_where(r, know)
    if where is not None:
        assert plausibility(past_plays(v, know), _truth(r), where, rules.fives, 3.0) == 1.0


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_plausibility_is_a_probability_and_random_play_is_less_plausible(
    rules: Rules, seed: int, steps: int
) -> None:
    at = _at_turn(rules, seed, steps, "random")
    if at is None:
        return
    _, v, know, _ = at
    hyp, where = guess_slots(know, v, random.Random(seed))
    plays = past_plays(v, know)
    w = plausibility(plays, hyp, where, rules.fives, 3.0)
    assert 0.0 < w <= 1.0
    # A colder temperature never makes a deal more plausible.
    assert plausibility(plays, hyp, where, rules.fives, 1.0) <= w


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_slot_guesses_are_the_guesses(rules: Rules, seed: int, steps: int) -> None:
    at = _at_turn(rules, seed, steps, "random")
    if at is None:
        return
    r, v, know, _ = at
    hyp, where = guess_slots(know, v, random.Random(seed))
    assert guess(know, v, random.Random(seed)) == hyp
    for s, tiles in enumerate(where):
        assert len(tiles) == len(know.slots[s]) == len(know.births[s])
        mask = 0
        for j, t in enumerate(tiles):
            mask |= 1 << t
            assert not know.slots[s][j] >> t & 1  # each slot gets a tile it may be
        assert mask == (hyp.hands[s] if s != r.turn else 0)


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_weighed_guesses_agree_with_the_view(rules: Rules, seed: int, steps: int) -> None:
    at = _at_turn(rules, seed, steps, "fortgeschritten")
    if at is None:
        return
    r, v, know, _ = at
    me = r.turn
    bot = Meister(seed, tau=2.0, tries=4)
    plays = bot._evidence(v, know)
    for _ in range(5):
        hyp = bot._guess(know, v, plays)
        check(v, hyp)
        for s in range(rules.seats):
            if s != me:
                for n in range(7):
                    if know.lacks(s) >> n & 1:
                        assert not hyp.hands[s] & WITH[n]


@SETTINGS
@given(seed=seeds, pairs=st.booleans())
def test_the_public_blocking_term_is_profis_when_the_seat_played_out_its_hand(
    seed: int, pairs: bool
) -> None:
    # Without draws, a seat that went out played every tile it held: the tiles it played
    # from a moment on are its hand then, so the public estimate is Profi's own.
    rules = Rules.preset(Mode.ZUGEMAUERT, 4, pairs=pairs)
    m = MatchState(rules, seed=f"public/{seed}")
    r = m.round
    bot = Profi(seed)
    seen: dict[int, SeatView] = {}
    while not r.over:
        v = view(m, r.turn)
        move = bot.choose(v)
        if move.is_play:
            seen[move.index] = v
        r.apply(move)
    assert r.result is not None
    out = r.result.out_seat
    if out is None:
        return
    watcher = (out + 1) % rules.seats
    v = view(m, watcher)
    know = infer(v)
    public = public_before_plays(v)
    for play in past_plays(v, know):
        s, es, mv, _, _, _ = play
        if s != out:
            continue
        then = seen[mv]
        k = infer(then)
        for alt in then.legal:
            new = PLACE[alt.index * ES_COUNT + es]
            assert abs(_block(public, play, new) - block_value(then, k, alt)) < 1e-9
