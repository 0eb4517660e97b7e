"""``domino.openspiel``: the game ``python_domino`` passes OpenSpiel's own checks, its
resampling stays inside the seat's information, and OpenSpiel's IS-MCTS plays it."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed: pip install -e '.[openspiel]'"
)

import domino.openspiel  # noqa: E402 (registers python_domino)
from domino.rules import TILES  # noqa: E402
from domino.rules.kernel import DRAW_I, FIT, LEFT, PASS_I, RIGHT  # noqa: E402

#: Every rules variant: 2-4 seats, Lager on/off, Fünferpunkte on/off, Paare (4 seats; it
#: deals all tiles, Lager or not), and a match to a target.
VARIANTS = [
    f"python_domino(seats={n},lager={str(lager).lower()},fives={str(fives).lower()},"
    f"pairs={str(pairs).lower()})"
    for n in (2, 3, 4)
    for pairs in ((False, True) if n == 4 else (False,))
    for lager in (True, False)
    for fives in (True, False)
] + ["python_domino(seats=2,fives=true,target=50)", "python_domino(seats=4,pairs=true,target=30)"]


@pytest.mark.parametrize("spec", VARIANTS)
def test_random_sim_test(spec: str) -> None:
    """OpenSpiel's own API consistency check, for every variant."""
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_parameters_and_bad_values() -> None:
    game = pyspiel.load_game("python_domino(seats=3,fives=true)")
    assert (game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()) == (
        3,
        58,
        28,
    )
    with pytest.raises(Exception, match=r"[Pp]airs"):
        pyspiel.load_game("python_domino(seats=3,pairs=true)")


def _random_states(spec: str, seed: int, count: int) -> list[object]:
    """Decision states along random plays of ``spec``."""
    rng = random.Random(seed)
    game = pyspiel.load_game(spec)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                tiles, _ = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choice(tiles))
            else:
                if rng.random() < 0.3:
                    out.append(state.clone())
                state.apply_action(rng.choice(state.legal_actions()))
    return out[:count]


@pytest.mark.parametrize(
    "spec",
    [
        "python_domino",
        "python_domino(seats=3)",
        "python_domino(seats=4,pairs=true)",
        "python_domino(seats=2,target=30)",
    ],
)
def test_resample_is_consistent_with_the_seat_information(spec: str) -> None:
    """A resample has the seat's information state, its own hand, the same table and
    hand sizes; another seat never holds a number it drew or passed on since."""
    for state in _random_states(spec, 7, 25):
        p = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        got = state.resample_from_infostate(p, sampler)
        assert got.information_state_string(p) == state.information_state_string(p)
        assert got.observation_string(p) == state.observation_string(p)
        k, g = state.k, got.k
        assert g.hands[p] == k.hands[p] and g.es == k.es and len(g.lager) == len(k.lager)
        assert [m.bit_count() for m in g.hands] == [m.bit_count() for m in k.hands]
        assert set(got.legal_actions()) == set(state.legal_actions())
        if state.rules.draws:  # the tiles out of sight are the same set, differently spread
            assert g.held | sum(1 << t for t in g.lager) == k.held | sum(1 << t for t in k.lager)
        _check_voids(got, p)


def _check_voids(state: object, p: int) -> None:
    """Replaying the resample, every draw and every pass without a drawn tile happened
    with no fitting tile in that seat's hand (RULES.md §6)."""
    game = state.get_game()
    replay = game.new_initial_state()
    for action in state.history():
        if not replay.is_chance_node() and action in (DRAW_I, PASS_I):
            k = replay.k
            seat = k.turn
            if action == DRAW_I or not k.drew:
                assert not k.hands[seat] & FIT[k.es], (seat, LEFT[k.es], RIGHT[k.es])
        replay.apply_action(action)
    assert replay.information_state_string(p) == state.information_state_string(p)


def test_resample_changes_hidden_tiles() -> None:
    """Resampling does draw the hidden tiles anew (not a copy of the true state)."""
    (state,) = _random_states("python_domino", 3, 1)
    p = state.current_player()
    other = 1 - p
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen = {state.resample_from_infostate(p, sampler).k.hands[other] for _ in range(20)}
    assert len(seen) > 1
    assert all(not m & state.k.hands[p] for m in seen)


def test_information_state_hides_other_hands() -> None:
    (state,) = _random_states("python_domino(seats=3)", 5, 1)
    p = state.current_player()
    text = state.information_state_string(p)
    hand = text.split("hand[")[1].split("]")[0].split()
    assert hand == [str(TILES[i]) for i in range(28) if state.k.hands[p] >> i & 1]
    for s in range(3):
        for i in range(28):
            if s != p and state.k.hands[s] >> i & 1:  # held, so never played: never named
                assert str(TILES[i]) not in text
    size = state.get_game().information_state_tensor_size()
    assert len(state.information_state_tensor(p)) == size


@pytest.mark.parametrize(
    "spec",
    ["python_domino", "python_domino(seats=3,fives=true)", "python_domino(seats=4,pairs=true)"],
)
def test_ismcts_plays_whole_rounds(spec: str) -> None:
    """OpenSpiel's IS-MCTS bot (resampling through the game) plays a whole round at every
    seat; the returns are zero-sum."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(spec)
    rs = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=8, random_state=rs
    )
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            tiles, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(tiles, p=probs)))
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            moves += 1
    assert moves > 0
    assert abs(sum(state.returns())) < 1e-9


def _pips(mask: int) -> int:
    return sum(TILES[i].pips for i in range(28) if mask >> i & 1)


@pytest.mark.parametrize(
    "spec",
    ["python_domino", "python_domino(seats=3,lager=false)", "python_domino(seats=4,pairs=true)"],
)
def test_returns_follow_rules_section_7(spec: str) -> None:
    """Round points as RULES.md §7 states them, from the final hands; each seat's return is
    its side's points minus the mean of the other sides' (zero-sum)."""
    rng = random.Random(11)
    game = pyspiel.load_game(spec)
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([t for t, _ in state.chance_outcomes()]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        pips = [_pips(m) for m in state.k.hands]
        n = len(pips)
        if state.rules.pairs:
            team = [pips[0] + pips[2], pips[1] + pips[3]]
            pts = [0, 0]
            if team[0] != team[1]:
                w = 0 if team[0] < team[1] else 1
                pts[w] = team[1 - w]
            want = [pts[s % 2] - pts[1 - s % 2] for s in range(4)]
        else:
            pts = [0] * n
            empty = [s for s in range(n) if not state.k.hands[s]]
            if empty:  # Domino!
                pts[empty[0]] = sum(pips)
            else:
                low = min(pips)
                if pips.count(low) == 1:
                    pts[pips.index(low)] = sum(p - low for p in pips)
            want = [pts[s] - (sum(pts) - pts[s]) / (n - 1) for s in range(n)]
        assert state.returns() == pytest.approx(want)


@pytest.mark.parametrize(
    ("seats", "pairs", "mode"),
    [
        (2, False, "klassisch"),
        (3, False, "klassisch"),
        (4, True, "klassisch"),
        (4, False, "fuenferfieber"),
    ],
)
def test_state_of_view_matches_what_the_seat_sees(seats: int, pairs: bool, mode: str) -> None:
    """The arena player's state, built from a seat's view only, shows that seat the same
    round: its hand, the ends, hand sizes, Lager size, Fünferpunkte, its legal moves."""
    from domino.bots import make_bot
    from domino.openspiel import state_of_view
    from domino.rules import MatchState, Rules, view

    rules = Rules.preset(mode, seats, pairs)
    game = pyspiel.load_game(
        "python_domino",
        {"seats": seats, "lager": rules.lager, "fives": rules.fives, "pairs": pairs},
    )
    rng = random.Random(4)
    bots = [make_bot("profi", seed=s) for s in range(seats)]
    match = MatchState(rules, seed=9)
    checked = 0
    while not match.round.over:
        rnd = match.round
        v = view(match, rnd.turn)
        st = state_of_view(game, v, rng)
        k = st.k
        assert st.current_player() == v.seat
        assert k.hands[v.seat] == sum(t.mask for t in v.hand)
        assert (k.left, k.right, k.left_double, k.right_double) == (
            v.left,
            v.right,
            v.left_double,
            v.right_double,
        )
        assert [m.bit_count() for m in k.hands] == list(v.hand_counts)
        assert len(k.lager) == v.lager_count and k.side_fives == list(rnd.side_fives)
        assert st.legal_actions() == sorted(m.index for m in v.legal)
        checked += 1
        match.apply(bots[rnd.turn].choose(v), rnd.turn)
    assert checked > 5


def test_arena_seats_openspiel_ismcts(capsys: pytest.CaptureFixture[str]) -> None:
    """`domino arena` seats OpenSpiel's IS-MCTS (a tiny budget) against a level."""
    from domino.cli import main

    args = ["arena", "profi", "openspiel-ismcts", "--matches", "2", "--simulations", "4"]
    assert main([*args, "--quiet", "--seats", "3"]) == 0
    out = capsys.readouterr().out
    assert "openspiel-ismcts" in out and "profi" in out


def test_module_doctest() -> None:
    import doctest

    result = doctest.testmod(domino.openspiel)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("spec", VARIANTS[:16])
def test_the_game_is_the_servers_round(spec: str) -> None:
    """A round of ``python_domino`` is the round the server plays (``RoundState``) with the
    same deal and draws: the same seat to move, legal moves, ends and result (§5-§8)."""
    from domino.rules import MOVES, Deal, RoundState, Tile

    game = pyspiel.load_game(spec)
    rng = random.Random(spec)
    for _ in range(6):
        state = game.new_initial_state()
        deal: list[int] = []
        drawn: list[int] = []
        moves: list[tuple[int, list[int], int, int]] = []  # seat, legal, action, es after
        while not state.is_terminal():
            if state.is_chance_node():
                t = rng.choice([a for a, _ in state.chance_outcomes()])
                (deal if state.k is None else drawn).append(t)
                state.apply_action(t)
            else:
                legal = state.legal_actions()
                action = rng.choice(legal)
                seat = state.current_player()
                state.apply_action(action)
                moves.append((seat, legal, action, state.k.es))
        rules, h = state.rules, state.hand_size
        tiles = [TILES[t] for t in deal]
        hands = tuple(tuple(tiles[s * h : (s + 1) * h]) for s in range(rules.seats))
        rest = [TILES[t] for t in range(28) if t not in deal and t not in drawn]
        lager: tuple[Tile, ...] = ()
        out: tuple[Tile, ...] = tuple(rest)
        if rules.draws:
            lager, out = (*(TILES[t] for t in drawn), *rest), ()
        rnd = RoundState.start(rules, Deal(hands, lager, out))
        for seat, legal, action, es in moves:
            assert rnd.turn == seat
            assert sorted(m.index for m in rnd.legal_moves()) == legal
            rnd.apply(MOVES[action], seat)
            assert rnd.es == es
        res = rnd.result
        assert res is not None
        assert state.scores == [p + f for p, f in zip(res.points, res.fives, strict=True)]


def test_arena_refuses_a_budget_below_one() -> None:
    from domino.cli import main

    assert main(["arena", "profi", "openspiel-ismcts", "--simulations", "0", "--quiet"]) == 2
