"""The rules kernel driven directly, over ints (RULES.md §5-§8).

Hypothesis picks the shuffle, the variant and every choice; the bare
:class:`~domino.rules.kernel.Kernel` (no RoundState around it) must agree with
the independent model of ``rules_reference.py`` at every step, refuse every
other move without changing anything, and score the end as the model does.
The tables the kernel reads are checked against the plain rule functions they
are built from, and those against RULES.md's own examples.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_reference import RefRound
from rules_support import VARIANTS

from domino.bots.base import fives_after
from domino.rules import MOVES, TILES, Rules, Tile
from domino.rules.kernel import (
    BIT,
    BLOCKED,
    DOMINO,
    DRAW_I,
    ENDS,
    ES_COUNT,
    FIT,
    FIVES,
    LEFT,
    LEFT_DOUBLE,
    OPEN_ES,
    OPEN_FIVES,
    OPENING_ORDER,
    PASS_I,
    PLACE,
    PLAY_MOVES,
    PLAYS,
    RIGHT,
    RIGHT_DOUBLE,
    Kernel,
    ends_state,
    fives_count,
    fives_scored,
    place,
    plays,
    round_to_fives,
    score,
)
from domino.rules.tiles import WITH

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

orders = st.permutations(range(28))
variants = st.sampled_from(VARIANTS)
choices = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=80)


def _kernel(rules: Rules, order: list[int]) -> tuple[Kernel, RefRound]:
    """The deal ``order`` (hands in turn, then the Lager from its top) to kernel and model."""
    size, n = rules.hand_size, rules.seats
    hands = [order[i * size : (i + 1) * size] for i in range(n)]
    lager = order[n * size :] if rules.draws else []
    k = Kernel.from_masks(rules, [sum(1 << t for t in h) for h in hands], lager[::-1])
    ref = RefRound(
        rules.seats,
        rules.lager,
        rules.fives,
        rules.pairs,
        [[str(TILES[t]) for t in h] for h in hands],
        [str(TILES[t]) for t in lager],
    )
    return k, ref


def _snapshot(k: Kernel) -> tuple[object, ...]:
    return (
        tuple(k.hands),
        k.held,
        tuple(k.lager),
        k.es,
        k.turn,
        k.drew,
        k.drawn_fit,
        tuple(k.side_fives),
        k.reason,
    )


@SETTINGS
@given(order=orders, rules=variants, picks=choices)
def test_kernel_plays_the_model_and_refuses_everything_else(
    order: list[int], rules: Rules, picks: list[int]
) -> None:
    k, ref = _kernel(rules, order)
    assert k.opener == ref.opener
    step = 0
    while not k.reason:
        assert not ref.over
        assert (k.turn, (k.left, k.right), k.side_fives) == (ref.turn, ref.ends, ref.fives)
        assert k.held == sum(k.hands) and all(not a & b for a in k.hands for b in k.hands if a != b)
        legal = k.legal()
        assert tuple(m.index for m in k.legal_moves()) == legal  # the same moves, same order
        assert {str(MOVES[i]) for i in legal} == ref.legal()
        before = _snapshot(k)
        for mv in range(len(MOVES)):  # every other move is refused and changes nothing
            if mv not in legal:
                assert k.step(mv) == -1
                assert _snapshot(k) == before
        mv = legal[picks[step % len(picks)] % len(legal)]
        seat, lager, before_fives = k.turn, len(k.lager), sum(ref.fives)
        scored = k.step(mv)
        ref.apply(str(MOVES[mv]))
        assert scored == sum(ref.fives) - before_fives  # what this placement scored (§8)
        if mv == DRAW_I:
            assert len(k.lager) == lager - 1 and k.hands[seat] >> k.drawn & 1
        step += 1
        assert step < 200
    assert ref.over and k.legal() == () and k.legal_moves() == ()
    assert k.reason == ref.reason
    assert k.reason in (DOMINO, BLOCKED)
    winner, points = k.outcome()
    assert (winner, list(points), k.side_fives) == (ref.winner, ref.points, ref.fives)
    assert list(k.all_pips()) == ref.final_pips
    assert list(k.totals()) == [p + f for p, f in zip(ref.points, ref.fives, strict=True)]


@SETTINGS
@given(order=orders, rules=variants, picks=choices)
def test_kernel_resumed_mid_round_plays_on_identically(
    order: list[int], rules: Rules, picks: list[int]
) -> None:
    # What Meister's playouts do: rebuild the state from its parts and play on.
    k, _ = _kernel(rules, order)
    step = 0
    while not k.reason and step < len(picks):
        legal = k.legal()
        k.step(legal[picks[step] % len(legal)])
        step += 1
    if k.reason:
        return
    copy = Kernel.resume(
        rules,
        list(k.hands),
        list(k.lager),
        k.es,
        k.turn,
        opener=k.opener,
        drew=k.drew,
        drawn_fit=k.drawn_fit,
        side_fives=list(k.side_fives),
    )
    while not k.reason:
        assert copy.legal() == k.legal() and _snapshot(copy) == _snapshot(k)
        mv = k.legal()[-1]
        assert copy.step(mv) == k.step(mv)
    assert copy.reason == k.reason and copy.outcome() == k.outcome()


def test_tables_are_the_rule_functions() -> None:
    assert ES_COUNT == 196
    for es in range(ES_COUNT):
        left, right, ld, rd = LEFT[es], RIGHT[es], LEFT_DOUBLE[es], RIGHT_DOUBLE[es]
        assert ends_state(left, right, ld, rd) == es and ENDS[es] == (left, right)
        assert FIT[es] == WITH[left] | WITH[right]
        assert FIVES[es] == fives_scored(fives_count(None, left, right, ld, rd))
        assert fives_after(left, right, ld, rd) == FIVES[es]  # the bots count alike
        for t in TILES:
            for end in (0, 1):
                mv = 2 * t.index + end
                new = PLACE[mv * ES_COUNT + es]
                assert new == place(t.index, bool(end), es)
                at = right if end else left
                if not t.has(at):  # §6: fits when a half equals the end's number
                    assert new == -1
                    continue
                # the other half becomes the end; a double keeps it and counts twice (§8)
                assert (LEFT[new], RIGHT[new]) == (
                    (left, t.other(at)) if end else (t.other(at), right)
                )
                assert (LEFT_DOUBLE[new], RIGHT_DOUBLE[new]) == (
                    (ld, t.is_double) if end else (t.is_double, rd)
                )
    for t in TILES:
        assert BIT[2 * t.index] == BIT[2 * t.index + 1] == t.mask
        assert (LEFT[OPEN_ES[t.index]], RIGHT[OPEN_ES[t.index]]) == (t.low, t.high)  # §5
        assert OPEN_FIVES[t.index] == fives_scored(t.pips)  # §8: a lone tile counts all pips
    assert BIT[DRAW_I] == BIT[PASS_I] == 0


def test_s5_opening_order() -> None:
    # Doubles from 6|6 down, then most pips, between equal pips the higher half.
    names = [str(TILES[t]) for t in OPENING_ORDER]
    assert names[:7] == ["6|6", "5|5", "4|4", "3|3", "2|2", "1|1", "0|0"]
    assert names[7:11] == ["6|5", "6|4", "6|3", "5|4"]
    assert names[-1] == "1|0"


@given(fitting=st.integers(0, (1 << 28) - 1), es=st.integers(0, ES_COUNT - 1))
def test_plays_are_every_fitting_tile_at_every_end_it_fits(fitting: int, es: int) -> None:
    m = fitting & FIT[es]
    if not m:
        return
    got = plays(m, es)
    expect = [
        2 * t.index + end
        for t in TILES
        if m & t.mask
        for end in (0, 1)
        if t.has(RIGHT[es] if end else LEFT[es])
    ]
    assert list(got) == expect  # tile order, left before right (§6: two distinct moves)
    # the chunk tables legal() and legal_moves() read say the same
    lr = es >> 2
    chunks = [m >> (7 * k) & 127 for k in range(4)]
    assert sum((PLAYS[lr][k][c] for k, c in enumerate(chunks)), ()) == got
    assert sum((PLAY_MOVES[lr][k][c] for k, c in enumerate(chunks)), ()) == tuple(
        MOVES[i] for i in got
    )


@given(
    pips=st.lists(st.integers(0, 60), min_size=2, max_size=4),
    out=st.integers(0, 3),
    pairs=st.booleans(),
    fives=st.booleans(),
)
def test_score_follows_s7(pips: list[int], out: int, pairs: bool, fives: bool) -> None:
    n = len(pips)
    pairs = pairs and n == 4
    out_seat = out if out < n else None
    winner, points = score(pairs, fives, out_seat, tuple(pips))
    r = round_to_fives if fives else (lambda p: p)
    if pairs:
        team = (pips[0] + pips[2], pips[1] + pips[3])
        if team[0] == team[1]:
            assert (winner, points) == (None, (0, 0))
        else:
            w = 0 if team[0] < team[1] else 1
            assert winner == w and points[w] == r(team[1 - w]) and points[1 - w] == 0
    elif out_seat is not None:
        assert winner == out_seat and points[out_seat] == r(sum(pips))
        assert sum(points) == points[out_seat]
    else:
        low = min(pips)
        if pips.count(low) > 1:
            assert (winner, points) == (None, (0,) * n)
        else:
            assert winner == pips.index(low)
            assert points[winner] == r(sum(p - low for p in pips))
            assert sum(points) == points[winner]


def test_s7_the_rules_examples_score() -> None:
    # Domino with pips 0 + 5 + 7 left; blocked 5/3/9: 2 + 6 = 8, rounded 10 (§7).
    assert score(False, False, 1, (5, 0, 7)) == (1, (0, 12, 0))
    assert score(False, False, None, (5, 3, 9)) == (1, (0, 8, 0))
    assert score(False, True, None, (5, 3, 9)) == (1, (0, 10, 0))
    assert score(False, False, None, (3, 3, 9)) == (None, (0, 0, 0))


def test_a_lone_tile_counts_all_its_pips() -> None:
    t = Tile.parse("5|5")
    assert fives_count(t, 5, 5, True, True) == 10 and OPEN_FIVES[t.index] == 10
