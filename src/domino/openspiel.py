"""Domino for OpenSpiel: the game of RULES.md as the Python game ``python_domino``.

Importing this module registers the game with ``pyspiel`` (the optional extra
``.[openspiel]``); nothing else in ``domino`` imports it, and the game itself plays
without it. It runs on the rules kernel (:class:`domino.rules.kernel.Kernel`), so it is
the same game the server runs, move for move.

>>> import pyspiel, domino.openspiel
>>> game = pyspiel.load_game("python_domino(seats=3,fives=true)")
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(3, 58, 28)

Parameters (all optional):

- ``seats`` 2..4 (default 2);
- ``lager`` drawing from the Lager on/off (default on, §4);
- ``fives`` Fünferpunkte (default off, §8);
- ``pairs`` Paare, only with 4 seats (default off; deals 7 each and no Lager);
- ``target`` 0 (default) plays one round; a positive number plays a match: rounds until a
  side has at least ``target`` points or after round 8 (§9).

Actions: a player's action is ``Move.index`` (``2*tile`` left, ``2*tile + 1`` right,
56 draw, 57 pass; tiles are numbered as :data:`domino.rules.TILES`). Chance nodes deal the
hands one tile at a time (seat 0's tiles first) and pick the tile of every draw uniformly
from the Lager; a chance action is a tile number 0..27. The opening (§5) is automatic.

Returns (terminal only, zero-sum): each seat gets its side's points (round points of §7
plus Fünferpunkte of §8, summed over the match) minus the mean of the other sides' points;
with 2 seats that is the difference, with Paare the teams' difference.

:meth:`DominoState.resample_from_infostate` draws a state the seat cannot tell apart from
the real one (same information state string), so OpenSpiel's IS-MCTS
(``open_spiel.python.algorithms.ismcts``) plays it.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from domino.rules import (
    EVERYONE,
    MAX_ROUNDS,
    MOVES,
    SPECTATORS,
    TILES,
    Audience,
    Move,
    Rules,
    SeatView,
    sees_hand,
)
from domino.rules.audience import seen_hands
from domino.rules.kernel import (
    DRAW_I,
    LEFT,
    LEFT_DOUBLE,
    MOVE_COUNT,
    OPEN_ES,
    OPENING_ORDER,
    PASS_I,
    PLACE,
    RIGHT,
    RIGHT_DOUBLE,
    Kernel,
)
from domino.rules.tiles import COUNT, mask_of

NAME = "python_domino"
_DEFAULTS: dict[str, Any] = {"seats": 2, "lager": True, "fives": False, "pairs": False, "target": 0}

_GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Domino (double-six, draw, Fünferpunkte, Paare)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)

#: Trace markers: who acted (a seat, or these).
_DEAL = -1
_DRAWN = -2
_OPEN = -3


def rules_of(params: dict[str, Any]) -> tuple[Rules, int]:
    """The :class:`Rules` and the target (0: one round) of a parameter dict."""
    p = {**_DEFAULTS, **params}
    rules = Rules(
        seats=int(p["seats"]),
        lager=bool(p["lager"]),
        fives=bool(p["fives"]),
        pairs=bool(p["pairs"]),
    )
    target = int(p["target"])
    if target < 0:
        raise ValueError(f"target must be 0 (one round) or positive, not {target}")
    return rules, target


class DominoGame(pyspiel.Game):  # type: ignore[misc]
    """The game ``python_domino``; see the module doc for its parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        rules, target = rules_of(params or {})
        n, h = rules.seats, rules.hand_size
        lager = COUNT - n * h if rules.draws else 0
        rounds = MAX_ROUNDS if target else 1
        # A side's points in one round: at most every pip (rounded up to 170) plus a
        # Fünferpunkte count of at most 20 per placement (and 10 for the opening).
        per_round = (170 + 28 * 20) if rules.fives else 168
        bound = float(per_round * rounds)
        # Between two placements each seat passes at most twice.
        length = n * h + 2 * lager + 28 + 2 * n * 28
        info = pyspiel.GameInfo(
            num_distinct_actions=MOVE_COUNT,
            max_chance_outcomes=COUNT,
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=length * rounds,
        )
        super().__init__(_GAME_TYPE, info, params or {})
        self.rules = rules
        self.target = target

    def new_initial_state(self) -> DominoState:
        return DominoState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> DominoObserver:
        return DominoObserver(
            self.rules, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class DominoState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_domino``: the match so far and the round's :class:`Kernel`."""

    def __init__(self, game: DominoGame) -> None:
        super().__init__(game)
        self.rules: Rules = game.rules
        self.target: int = game.target
        self.n: int = game.rules.seats
        self.hand_size: int = game.rules.hand_size
        self.scores: list[int] = [0] * game.rules.sides  # finished rounds
        self.dealt: list[int] = []  # this round's deal so far, seat 0's tiles first
        self.k: Kernel | None = None
        self.pending_draw = False  # a draw was chosen; the chance node picks the tile
        self.traces: list[list[tuple[int, int, int]]] = [[]]  # per round: (who, action, es)
        self.ends: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # per round: hands, points
        self.over = False

    # -- the OpenSpiel API ------------------------------------------------------------------
    def current_player(self) -> int:
        if self.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.k is None or self.pending_draw:
            return int(pyspiel.PlayerId.CHANCE)
        return self.k.turn

    def _legal_actions(self, player: int) -> list[int]:
        assert self.k is not None and player == self.k.turn
        return sorted(self.k.legal())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.k is None:
            left = [t for t in range(COUNT) if t not in self.dealt]
        else:
            left = sorted(self.k.lager)
        p = 1.0 / len(left)
        return [(t, p) for t in left]

    def _apply_action(self, action: int) -> None:
        trace = self.traces[-1]
        k = self.k
        if k is None:  # dealing
            trace.append((_DEAL, action, len(self.dealt) // self.hand_size))
            self.dealt.append(action)
            if len(self.dealt) == self.n * self.hand_size:
                self._start_round()
            return
        if self.pending_draw:
            lager = k.lager
            lager.remove(action)
            lager.append(action)  # the kernel draws the last one
            trace.append((_DRAWN, action, k.turn))
            self.pending_draw = False
            assert k.step(DRAW_I) == 0
        else:
            trace.append((k.turn, action, k.es))
            if action == DRAW_I:
                self.pending_draw = True
                return
            if k.step(action) < 0:
                raise pyspiel.SpielError(f"illegal action {action} for seat {k.turn}")
        if k.reason:
            self._end_round(k)

    def hand_masks(self) -> list[int]:
        """Every seat's hand as a tile mask (during the deal: the tiles dealt so far)."""
        k = self.k
        if k is not None:
            return list(k.hands)
        h = self.hand_size
        return [sum(1 << t for t in self.dealt[s * h : (s + 1) * h]) for s in range(self.n)]

    def lager_size(self) -> int:
        """How many tiles lie in the Lager (0 while dealing): all anyone learns of it."""
        return 0 if self.k is None else len(self.k.lager)

    def table_mask(self) -> int:
        """The tiles on the line of play as a mask (public: every seat saw them laid)."""
        k = self.k
        assert k is not None
        held = 0
        for m in k.hands:
            held |= m
        lager = sum(1 << t for t in k.lager)
        dealt_all = (1 << COUNT) - 1 if self.rules.draws else sum(1 << t for t in self.dealt)
        return dealt_all & ~held & ~lager

    def _start_round(self) -> None:
        h, n = self.hand_size, self.n
        hands = [sum(1 << t for t in self.dealt[s * h : (s + 1) * h]) for s in range(n)]
        rest = [t for t in range(COUNT) if t not in self.dealt]
        dealt = sum(hands)
        self.k = k = Kernel.from_masks(self.rules, hands, rest)  # takes the list over
        opened = (dealt ^ k.held).bit_length() - 1
        self.traces[-1].append((_OPEN, opened, k.opener))
        if k.reason:
            self._end_round(k)

    def _end_round(self, k: Kernel) -> None:
        totals = k.totals()
        self.scores = [a + b for a, b in zip(self.scores, totals, strict=True)]
        self.ends.append((tuple(k.hands), totals))
        rounds = len(self.ends)
        if not self.target or max(self.scores) >= self.target or rounds >= MAX_ROUNDS:
            self.over = True
            return
        self.k = None
        self.dealt = []
        self.traces.append([])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"{'deal' if self.k is None else 'draw'} {TILES[action]}"
        return str(MOVES[action])

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0] * self.n
        s, sides = self.scores, len(self.scores)
        total = sum(s)
        side = [self.rules.side_of(p) for p in range(self.n)]
        return [s[side[p]] - (total - s[side[p]]) / (sides - 1) for p in range(self.n)]

    def __str__(self) -> str:
        k = self.k
        if k is None:
            dealt = " ".join(str(TILES[t]) for t in self.dealt)
            return f"round {len(self.ends) + 1} dealing {dealt}"
        hands = " / ".join(_tiles(m) for m in k.hands)
        return (
            f"round {len(self.ends) + 1} ends {_ends(k.es)} turn {k.turn} hands {hands} "
            f"lager {len(k.lager)} scores {self.scores} fives {k.side_fives}"
        )

    # -- resampling ---------------------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> Any:
        """A state ``player_id`` cannot tell from this one: the same history of what it saw,
        with the hidden tiles (the other hands, the tiles they drew, the Lager) drawn anew,
        consistent with every draw and pass it saw (§6: a seat that draws or passes holds
        nothing that fits; one that passes after drawing drew a tile that fits).

        ``probability_sampler`` is OpenSpiel's sampler (a callable giving a float in
        [0, 1)); it seeds the generator. The earlier rounds of a match stay as they were
        (their hands were shown at the round's end, §7; what stayed hidden has no effect).
        """
        seed = probability_sampler() if callable(probability_sampler) else None
        rng = random.Random(seed)
        for _ in range(200):
            got = sample_round(self, self.traces[-1], player_id, rng)
            if got is not None and (
                got.information_state_string(player_id) == self.information_state_string(player_id)
            ):
                return got
        raise pyspiel.SpielError("no consistent resample found")  # not seen in practice

    def _replay_earlier(self, other: DominoState) -> None:
        """Play the finished rounds of ``other`` into this fresh state, as they were."""
        for trace in other.traces[:-1]:
            for who, action, _ in trace:
                if who != _OPEN:
                    self.apply_action(action)


def sample_round(
    base: DominoState,
    trace: list[tuple[int, int, int]],
    p: int,
    rng: random.Random,
    own_hand: int | None = None,
) -> DominoState | None:
    """A state whose finished rounds are ``base``'s and whose current round has the public
    events of ``trace``, the hidden tiles drawn at random consistent with them; ``None``
    when this attempt found none (call again).

    Seat ``p``'s tiles are those in ``trace`` (its deal and its draws); with ``own_hand``
    (a mask: the hand ``p`` holds now) they are unknown in ``trace`` too and are placed
    from ``own_hand`` and ``p``'s plays, consistent with its own draws and passes.
    """
    n = base.n
    # Slots: one per tile a seat got (dealt or drawn) in this round; each collects the
    # numbers it must not show, the numbers it must show one of (a drawn tile kept on a
    # pass; 0: none) and the tiles it cannot be (a deal holds nothing that opens first).
    forbid: list[int] = []
    must: list[int] = []
    ban: list[int] = []
    tile: list[int] = []  # per slot: -1 while unknown
    held: list[list[int]] = [[] for _ in range(n)]  # per seat: its slots in hand
    deal_slots: list[int] = []
    draw_slot: dict[int, int] = {}  # trace index of a draw chance -> slot
    known = 0  # tiles whose place the player knows (its own, the table)
    last_drawn = [-1] * n
    lager = COUNT - n * base.hand_size if base.rules.draws else 0
    for i, (who, action, arg) in enumerate(trace):
        if who in (_DEAL, _DRAWN):
            slot = len(tile)
            forbid.append(0)
            must.append(0)
            ban.append(0)
            mine = arg == p and own_hand is None
            tile.append(action if mine else -1)
            held[arg].append(slot)
            if mine:
                known |= 1 << action
            if who == _DEAL:
                deal_slots.append(slot)
            else:
                draw_slot[i] = slot
                last_drawn[arg] = slot
                lager -= 1
            continue
        if who == _OPEN:
            higher = 0
            for t in OPENING_ORDER:
                if t == action:
                    break
                higher |= 1 << t
            for s in deal_slots:
                ban[s] = higher
            if not _match_play(arg, action, held, forbid, must, ban, tile):
                return None
            known |= 1 << action
            continue
        seat, es = who, arg
        nums = (1 << LEFT[es]) | (1 << RIGHT[es])
        if action == DRAW_I or (action == PASS_I and last_drawn[seat] < 0):
            for s in held[seat]:
                forbid[s] |= nums
        elif action == PASS_I and lager:
            must[last_drawn[seat]] = nums  # it could draw on: what it drew fits
        if action == PASS_I:
            last_drawn[seat] = -1
        if action >= DRAW_I:
            continue
        last_drawn[seat] = -1
        if not _match_play(seat, action >> 1, held, forbid, must, ban, tile):
            return None
        known |= 1 << (action >> 1)
    # Fill the unknown slots from the tiles the player cannot place.
    taken = known
    for t in tile:
        if t >= 0:
            taken |= 1 << t
    if own_hand is not None:
        taken |= own_hand
        if not _fill(
            held[p], [t for t in range(COUNT) if own_hand >> t & 1], forbid, must, ban, tile, rng
        ):
            return None
    pool = [t for t in range(COUNT) if not taken >> t & 1]
    open_slots = [s for s in range(len(tile)) if tile[s] < 0]
    if not _fill(open_slots, pool, forbid, must, ban, tile, rng):
        return None
    # Rebuild the round: the deal, then every action with the drawn tiles swapped in;
    # any rule the slots do not express (e.g. a round not yet blocked) is checked here.
    state: DominoState = base.get_game().new_initial_state()
    state._replay_earlier(base)
    dealt = 0
    for i, (who, action, _) in enumerate(trace):
        if who == _DEAL:
            state.apply_action(tile[deal_slots[dealt]])
            dealt += 1
        elif who == _DRAWN:
            state.apply_action(tile[draw_slot[i]])
        elif who >= 0:
            if state.current_player() != who or action not in state.legal_actions():
                return None
            state.apply_action(action)
    return state


def _match_play(
    seat: int,
    t: int,
    held: list[list[int]],
    forbid: list[int],
    must: list[int],
    ban: list[int],
    tile: list[int],
) -> bool:
    # The seat played t: it came from one of its slots. A slot already known to be t,
    # else the most constrained slot that allows t (leaving the freer ones for later).
    slots = held[seat]
    for s in slots:
        if tile[s] == t:
            slots.remove(s)
            return True
    nums = TILES[t].low, TILES[t].high
    best, best_key = -1, -1
    for s in slots:
        if tile[s] >= 0 or ban[s] >> t & 1 or any(forbid[s] >> x & 1 for x in nums):
            continue
        if must[s] and not any(must[s] >> x & 1 for x in nums):
            continue
        key = bin(forbid[s]).count("1") + (8 if must[s] else 0)
        if key > best_key:
            best, best_key = s, key
    if best < 0:
        return False
    tile[best] = t
    slots.remove(best)
    return True


def _fill(
    slots: list[int],
    pool: list[int],
    forbid: list[int],
    must: list[int],
    ban: list[int],
    tile: list[int],
    rng: random.Random,
) -> bool:
    free = set(pool)

    def allowed(s: int) -> list[int]:
        out = []
        for t in free:
            lo, hi = TILES[t].low, TILES[t].high
            if forbid[s] >> lo & 1 or forbid[s] >> hi & 1 or ban[s] >> t & 1:
                continue
            if must[s] and not (must[s] >> lo & 1 or must[s] >> hi & 1):
                continue
            out.append(t)
        return out

    todo = list(slots)
    while todo:
        options = [(len(allowed(s)), s) for s in todo]
        _, s = min(options)
        cand = allowed(s)
        if not cand:
            return False
        t = rng.choice(sorted(cand))
        tile[s] = t
        free.discard(t)
        todo.remove(s)
    return True


def _tiles(mask: int) -> str:
    return " ".join(str(TILES[t]) for t in range(COUNT) if mask >> t & 1) or "-"


def _ends(es: int) -> str:
    return (
        f"{LEFT[es]}{'d' if LEFT_DOUBLE[es] else ''}:{RIGHT[es]}{'d' if RIGHT_DOUBLE[es] else ''}"
    )


class DominoObserver:
    """Observation and information state of a seat, as strings and tensors (the PyObserver
    interface of ``open_spiel.python.observation``).

    ``iig_obs_type.private_info`` names the audience (:mod:`domino.rules.audience`
    decides what it sees): ``SINGLE_PLAYER`` the seat (its own hand and draws),
    ``ALL_PLAYERS`` everyone (every hand), ``NONE`` the spectators (no hand).
    ``public_info`` adds the line of play, hand sizes, Lager size, turn and points.
    ``perfect_recall`` adds the history: the string lists every event the seat saw, in
    order; the tensor sums it up (who played each tile, which end numbers each seat drew
    or passed on, the tiles the seat drew).
    """

    def __init__(self, rules: Rules, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"Observation parameters not supported; passed {params}")
        self.rules = rules
        n, sides = rules.seats, rules.sides
        self.private = iig_obs_type.private_info
        self.public = bool(iig_obs_type.public_info)
        self.recall = bool(iig_obs_type.perfect_recall)
        pieces: list[tuple[str, int, tuple[int, ...]]] = [("player", n, (n,))]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            pieces.append(("hand", COUNT, (COUNT,)))
        elif self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            pieces.append(("hands", n * COUNT, (n, COUNT)))
        if self.public:
            pieces += [
                ("turn", n, (n,)),
                ("left", 7, (7,)),
                ("right", 7, (7,)),
                ("doubles", 2, (2,)),
                ("table", COUNT, (COUNT,)),
                ("hand_sizes", n, (n,)),
                ("lager", 1, (1,)),
                ("points", sides, (sides,)),
            ]
            if self.recall:
                pieces += [("played_by", n * COUNT, (n, COUNT)), ("stuck_on", n * 7, (n, 7))]
        if self.recall and self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            pieces.append(("drew", COUNT, (COUNT,)))
        size = sum(s for _, s, _ in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {}
        at = 0
        for name, s, shape in pieces:
            self.dict[name] = self.tensor[at : at + s].reshape(shape)
            at += s

    def _audience(self, player: int) -> Audience:
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            return player
        if self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            return EVERYONE
        return SPECTATORS

    def set_from(self, state: DominoState, player: int) -> None:
        self.tensor.fill(0)
        d = self.dict
        d["player"][player] = 1
        hands = state.hand_masks()
        audience = self._audience(player)
        seen = seen_hands(hands, audience)
        own = seen[player]
        if "hand" in d and own is not None:
            _bits(d["hand"], own)
        if "hands" in d:
            for s, m in enumerate(seen):
                if m is not None:
                    _bits(d["hands"][s], m)
        k = state.k
        if self.public:
            cur = state.current_player()
            if 0 <= cur < state.n:
                d["turn"][cur] = 1
            for s, m in enumerate(hands):
                d["hand_sizes"][s] = m.bit_count()
            d["points"][:] = _points(state)
            if k is not None:
                d["left"][LEFT[k.es]] = 1
                d["right"][RIGHT[k.es]] = 1
                d["doubles"][:] = (LEFT_DOUBLE[k.es], RIGHT_DOUBLE[k.es])
                d["lager"][0] = state.lager_size()
                _bits(d["table"], state.table_mask())
        if self.recall:
            for who, action, arg in state.traces[-1]:
                if who >= 0 and action < DRAW_I and "played_by" in d:
                    d["played_by"][who][action >> 1] = 1
                elif who >= 0 and "stuck_on" in d:
                    d["stuck_on"][who][LEFT[arg]] = 1
                    d["stuck_on"][who][RIGHT[arg]] = 1
                elif who == _DRAWN and "drew" in d and sees_hand(audience, arg):
                    d["drew"][action] = 1
                elif who == _OPEN and "played_by" in d:
                    d["played_by"][arg][action] = 1

    def string_from(self, state: DominoState, player: int) -> str:
        parts = [f"p{player}"]
        hands = state.hand_masks()
        audience = self._audience(player)
        seen = [m for m in seen_hands(hands, audience) if m is not None]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            parts.append(f"hand[{_tiles(seen[0])}]")
        elif self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            parts.append("hands[" + " / ".join(_tiles(m) for m in seen) + "]")
        k = state.k
        if self.public:
            parts.append(f"round{len(state.ends) + 1} scores{state.scores}")
            if k is not None:
                parts.append(
                    f"ends {_ends(k.es)} sizes{[m.bit_count() for m in hands]} "
                    f"lager{state.lager_size()} fives{k.side_fives}"
                )
            cur = state.current_player()
            parts.append(f"turn{cur}" if cur >= 0 else "chance" if cur == -1 else "over")
        if self.recall:
            for r, trace in enumerate(state.traces):
                parts.append(f"|r{r + 1}:")
                parts.extend(
                    _event(who, action, arg, audience, self.public) for who, action, arg in trace
                )
                if r < len(state.ends) and self.public:
                    hs, pts = state.ends[r]
                    parts.append(f"end[{' / '.join(_tiles(m) for m in hs)}] pts{list(pts)}")
        return " ".join(p for p in parts if p)


def _event(who: int, action: int, arg: int, audience: Audience, public: bool) -> str:
    # A dealt or drawn tile (``arg`` its seat) is seen with the hand it goes into.
    if who == _DEAL:
        if sees_hand(audience, arg):
            return f"d{arg}:{TILES[action]}"
        return f"d{arg}" if public else ""
    if who == _DRAWN:
        if sees_hand(audience, arg):
            return f"+{TILES[action]}"
        return "+" if public else ""
    if not public:
        return ""
    if who == _OPEN:
        return f"o{arg}:{TILES[action]}"
    return f"{who}:{MOVES[action]}"


def _bits(row: Any, mask: int) -> None:
    for t in range(COUNT):
        if mask >> t & 1:
            row[t] = 1


def _points(state: DominoState) -> list[int]:
    k = state.k
    if k is None:
        return list(state.scores)
    return [a + b for a, b in zip(state.scores, k.side_fives, strict=True)]


# -- a bot for `domino arena` -----------------------------------------------------------------
def state_of_view(game: DominoGame, view: SeatView, rng: random.Random) -> DominoState:
    """A state of a one-round ``game`` that seat ``view.seat`` cannot tell from the round it
    sees: the view's public history replayed, every hidden tile (its own provenance too: the
    view does not say which of its tiles it drew) drawn consistent with it."""
    seat = view.seat
    assert seat is not None and view.hand is not None
    rules = view.rules
    trace: list[tuple[int, int, int]] = [
        (_DEAL, -1, s) for s in range(rules.seats) for _ in range(rules.hand_size)
    ]
    es = 0
    for ev in view.history:
        if ev.kind == "open":
            assert ev.tile is not None
            trace.append((_OPEN, ev.tile.index, ev.seat))
            es = OPEN_ES[ev.tile.index]
        elif ev.kind == "play":
            assert ev.tile is not None and ev.end is not None
            mv = Move.play(ev.tile, ev.end).index
            trace.append((ev.seat, mv, es))
            es = PLACE[mv * 196 + es]
        elif ev.kind == "draw":
            trace += [(ev.seat, DRAW_I, es), (_DRAWN, -1, ev.seat)]
        else:
            trace.append((ev.seat, PASS_I, es))
    legal = sorted(m.index for m in view.legal)
    base = game.new_initial_state()
    hand = mask_of(view.hand)
    for _ in range(500):
        got = sample_round(base, trace, seat, rng, own_hand=hand)
        if got is not None and got.current_player() == seat and got.legal_actions() == legal:
            return got
    raise pyspiel.SpielError("no state consistent with the view found")


class OpenSpielISMCTS:
    """OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``, random rollouts) as a
    player of ``domino arena``: ``simulations`` searches per decision on one round of
    ``python_domino`` (it maximises its side's round points against the others')."""

    level = "openspiel-ismcts"

    def __init__(self, rules: Rules, seed: object = None, simulations: int = 100) -> None:
        from open_spiel.python.algorithms import ismcts, mcts

        params = {
            "seats": rules.seats,
            "lager": rules.lager,
            "fives": rules.fives,
            "pairs": rules.pairs,
        }
        self.game = pyspiel.load_game(NAME, params)
        self.rng = random.Random(str(seed))
        rs = np.random.RandomState(self.rng.randrange(2**31))
        self.bot = ismcts.ISMCTSBot(
            self.game, mcts.RandomRolloutEvaluator(1, rs), 2.0, simulations, random_state=rs
        )
        # Resample from this bot's own generator (OpenSpiel's default sampler is seeded
        # from the system), so an arena run is reproducible from its seed.
        self.bot.set_resampler(
            lambda state, player: state.resample_from_infostate(player, self.rng.random)
        )

    def choose(self, view: SeatView) -> Move:
        if len(view.legal) == 1:
            return view.legal[0]
        state = state_of_view(self.game, view, self.rng)
        return MOVES[int(self.bot.step(state))]


pyspiel.register_game(_GAME_TYPE, DominoGame)
