"""Meister: determinized search (beyond RULES.md §11's three levels).

For each decision Meister guesses, many times, where the hidden tiles lie —
guesses consistent with everything public (:mod:`.knowledge`: tiles played,
the own hand, hand sizes, the Lager's size, what each seat cannot hold) —
and plays every candidate move out in each guess with a fast greedy policy
(:func:`domino.bots.sample.playout`). The move with the best average
points margin for its side over the rest of the round wins. The same
guesses serve every candidate, so differences come from the moves, not from
luck of the draw.

Guesses are not all equally likely: a guess is accepted with its
:func:`plausibility`, how well it explains the plays the other seats made
this round (each seat's hand at each play rebuilt from the guess, and the
play made compared with the best play of that hand as a Profi-like player
values plays). Only the view enters it.

The budget is a number of playouts, so a decision is deterministic given
the seed. The search is anytime: with a time ``budget`` (seconds) and a
``clock`` (a monotonic-time callable the caller injects; Meister never reads
a clock itself) it stops after the guess in progress once ``budget`` seconds
have passed since ``choose`` began, and plays the best move over the guesses
done so far (at least one). An optional ``deadline`` predicate stops it the
same way. A cut search depends on timing, so its caller must log the move
(the table does) rather than ask again on a replay.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from domino.rules import MAX_ROUNDS, Move, Rules, SeatView
from domino.rules.hypothesis import Hypothesis
from domino.rules.kernel import BIT, ES_COUNT, FIT, OPEN_ES, PLACE

from .base import ends_after, hand_mask
from .knowledge import ALL_TILES, Knowledge, Slots, infer, p_can_play
from .profi import profi_score
from .sample import playout
from .values import Option, alternatives, block_value, block_weights, option, value_of

#: Playouts per decision at the default budget (CPU p99 30-45 ms here: docs/bots.md).
DEFAULT_PLAYOUTS = 600
#: At least this many guesses per decision, however many candidates there are.
MIN_GUESSES = 24
# Tries to satisfy every slot's constraints before a guess relaxes them.
TRIES = 20
#: Playouts with the blocking policy (:func:`domino.bots.values.greedy_block_es`).
BLOCK = False
#: Temperature (pips) of :func:`plausibility`; ``None`` samples guesses uniformly.
TAU: float | None = 3.0
#: Guesses tried per accepted one when weighing them by plausibility.
WEIGH_TRIES = 8
#: Points a playout's value gains (loses) when the match would end won (lost) with it.
MATCH_WEIGHT = 0.0
#: Successive halving over the candidates (:func:`schedule`) instead of a uniform search.
HALVING = False
#: With Paare, judge the partner's past plays too (else only the opponents').
PARTNER = True
#: Judge past plays with Profi's blocking term too (public facts of the time), not only
#: Fortgeschritten's value.
PROFI_MODEL = True


def guess(know: Knowledge, view: SeatView, rng: random.Random) -> Hypothesis:
    """One assignment of the unseen tiles consistent with ``know`` (random, most
    constrained slots first; after repeated dead ends the constraints are dropped, which
    the conservative model of :mod:`.knowledge` makes very rare)."""
    return guess_slots(know, view, rng)[0]


def guess_slots(
    know: Knowledge, view: SeatView, rng: random.Random
) -> tuple[Hypothesis, tuple[tuple[int, ...], ...]]:
    """:func:`guess`, and the tile (an index) it put in each slot of ``know.slots``."""
    me = know.seat
    n = view.rules.seats
    unseen = [i for i in range(28) if know.unseen >> i & 1]
    slots = [(s, j, f) for s in range(n) if s != me for j, f in enumerate(know.slots[s])]
    constrained = [x for x in slots if x[2] & know.unseen]
    free_slots = [x for x in slots if not x[2] & know.unseen]
    order = sorted(constrained, key=lambda x: (know.unseen & ~x[2]).bit_count())
    for attempt in range(TRIES + 1):
        pool = unseen[:]
        rng.shuffle(pool)
        hands = [0] * n
        hands[me] = hand_mask(view)
        where = [[0] * len(know.slots[s]) for s in range(n)]
        ok = True
        for s, j, f in order:
            pick = -1
            if attempt < TRIES:
                for k, i in enumerate(pool):
                    if not f >> i & 1:
                        pick = k
                        break
                if pick < 0:
                    ok = False
                    break
            else:
                pick = 0
            t = pool.pop(pick)
            hands[s] |= 1 << t
            where[s][j] = t
        if not ok:
            continue
        for s, j, _ in free_slots:
            t = pool.pop()
            hands[s] |= 1 << t
            where[s][j] = t
        lager = tuple(pool[: know.lager])
        out = 0
        for i in pool[know.lager :]:
            out |= 1 << i
        return Hypothesis(tuple(hands), lager, out), tuple(tuple(w) for w in where)
    raise AssertionError("unreachable: the last attempt ignores the constraints")


#: A past play by another seat: the seat, the ends state before, the move
#: (``Move.index``), the tiles that seat played from then on that it already held (this
#: one included), the slots of :class:`Knowledge` it already held (``None``: all), and
#: the play's index in the history. With a guess of those slots' tiles, that is the
#: hand it held.
PastPlay = tuple[int, int, int, int, tuple[int, ...] | None, int]


def past_plays(view: SeatView, know: Knowledge) -> list[PastPlay]:
    """The other seats' plays this round, each with what it takes to rebuild the hand its
    seat held then from a guess (:func:`held_hand`). Which tiles a seat drew when
    follows the slots' ``births`` in ``know``; which slot a later play came from, its
    ``sources`` (a model's choice where the public cannot tell)."""
    me = view.seat
    es = 0
    events: list[tuple[int, int, int, int]] = []  # (history index, seat, es before, move)
    for idx, ev in enumerate(view.history):
        if ev.kind == "open":
            assert ev.tile is not None
            es = OPEN_ES[ev.tile.index]
        elif ev.kind == "play":
            assert ev.tile is not None
            mv = ev.tile.index * 2 + (ev.end == "R")
            events.append((idx, ev.seat, es, mv))
            es = PLACE[mv * ES_COUNT + es]
    source = dict(know.sources)
    out: list[PastPlay] = []
    for k, (idx, s, es_before, mv) in enumerate(events):
        if s == me:
            continue
        after = BIT[mv]
        for idx2, s2, _, mv2 in events[k + 1 :]:
            if s2 == s and source.get(idx2, 0) < idx:
                after |= BIT[mv2]
        births = know.births[s] if know.births else ()
        held: tuple[int, ...] | None = None
        if any(b > idx for b in births):
            held = tuple(j for j, b in enumerate(births) if b < idx)
        out.append((s, es_before, mv, after, held, idx))
    return out


def held_hand(play: PastPlay, hyp: Hypothesis, where: tuple[tuple[int, ...], ...]) -> int:
    """The hand the seat of ``play`` held when it made it, if ``hyp`` (with its slot
    tiles ``where``, see :func:`guess_slots`) is the truth."""
    s, _, _, after, held, _ = play
    if held is None:
        return hyp.hands[s] | after
    hand = after
    tiles = where[s]
    for j in held:
        hand |= 1 << tiles[j]
    return hand


def plausibility(
    plays: list[PastPlay],
    hyp: Hypothesis,
    where: tuple[tuple[int, ...], ...],
    fives: bool,
    tau: float,
) -> float:
    """How well ``hyp`` explains the other seats' past plays, in (0, 1]: per play
    ``exp(-(best - chosen) / tau)``, the values Fortgeschritten's (a Profi-like player
    prefers heavy tiles it can follow up); 1 when every play was the best in its hand."""
    return math.exp(-implausibility(compile_plays(plays, fives), hyp, where) / tau)


@dataclass(frozen=True, slots=True)
class Public:
    """What every seat knew before each past play, for Profi's blocking term
    (:func:`domino.bots.profi.block_value`): the slots per seat (:func:`infer`'s
    ``before_plays``) and the tiles on the table, by history index."""

    rules: Rules
    slots: dict[int, Slots]
    table: dict[int, int]


def public_before_plays(view: SeatView) -> Public:
    """:class:`Public` for ``view``'s history."""
    slots: dict[int, Slots] = {}
    infer(view, before_plays=slots)
    table: dict[int, int] = {}
    on = 0
    for idx, ev in enumerate(view.history):
        if ev.kind == "play":
            table[idx] = on
        if ev.tile is not None and ev.kind in ("open", "play"):
            on |= ev.tile.mask
    return Public(view.rules, slots, table)


def _block(public: Public, play: PastPlay, new: int) -> float:
    """Profi's :func:`~domino.bots.profi.block_value` of leaving ends ``new`` at ``play``,
    from the public facts then (its own hand unknown but for the tiles it played since)."""
    s, _, _, after, _, idx = play
    rules = public.rules
    slots = public.slots.get(idx)
    if slots is None:
        return 0.0
    unseen = ALL_TILES & ~public.table[idx] & ~after
    fit = FIT[new]
    return block_value(
        block_weights(rules)[s],
        lambda o: 1.0 - p_can_play(slots[o], unseen, fit) if slots[o] else 0.0,
    )


#: One play and its alternatives as :func:`implausibility` reads them (see
#: :data:`domino.bots.values.Option`).
Compiled = tuple[PastPlay, Option, tuple[Option, ...]]


def _option(mv: int, es: int, fives: bool, public: Public | None, play: PastPlay) -> Option:
    extra = _block(public, play, PLACE[mv * ES_COUNT + es]) if public is not None else 0.0
    return option(mv, es, fives, extra)


def compile_plays(
    plays: list[PastPlay], fives: bool, public: Public | None = None
) -> list[Compiled]:
    """``plays`` with every legal alternative of each play worked out once (the parts of
    Fortgeschritten's value, :func:`domino.bots.simple.play_score`, no hand changes;
    with ``public`` plus Profi's blocking term as the public facts then gave it)."""
    out = []
    for play in plays:
        _, es, mv, _, _, _ = play
        alts = tuple(_option(mv2, es, fives, public, play) for mv2 in alternatives(es) if mv2 != mv)
        out.append((play, _option(mv, es, fives, public, play), alts))
    return out


def implausibility(
    plays: list[Compiled],
    hyp: Hypothesis,
    where: tuple[tuple[int, ...], ...],
    limit: float = math.inf,
) -> float:
    """The pips the past plays fell short of the best play in their hands (if ``hyp`` is
    the truth), summed; :func:`plausibility` is ``exp(-this / tau)``. Stops as soon as the
    sum exceeds ``limit`` (then it returns the partial sum, which exceeds it too)."""
    loss = 0.0
    for play, chosen, alts in plays:
        hand = held_hand(play, hyp, where)
        c = value_of(hand, chosen)
        best = c
        for opt in alts:
            if hand & opt[0]:
                v = value_of(hand, opt)
                if v > best:
                    best = v
        loss += best - c
        if loss > limit:
            break
    return loss


def schedule(count: int, playouts: int, halving: bool) -> list[int]:
    """Guesses per phase of the search over ``count`` candidates with about ``playouts``
    playouts. Without ``halving`` one phase in which every candidate meets every guess
    (at least :data:`MIN_GUESSES`). With it, successive halving: ``ceil(log2(count))``
    phases share the playouts equally, and after each phase the worse half of the
    candidates drops out (the first phase still has at least :data:`MIN_GUESSES`).

    >>> schedule(4, 600, False), schedule(4, 600, True), schedule(2, 600, True)
    ([150], [75, 150], [300])
    """
    if not halving or count <= 2:
        return [max(MIN_GUESSES, -(-playouts // count))]
    phases = (count - 1).bit_length()
    share = playouts // phases
    out = []
    alive = count
    for p in range(phases):
        g = -(-share // alive)
        out.append(max(MIN_GUESSES, g) if p == 0 else g)
        alive = max(2, (alive + 1) // 2) if alive > 2 else alive
    return out


def candidates(view: SeatView) -> list[Move]:
    """The legal moves worth searching: plays that lead to different positions, and a pass
    after drawing a fitting tile (keeping it may be right)."""
    seen: set[tuple[int, tuple[tuple[int, bool], ...]]] = set()
    out: list[Move] = []
    for m in view.legal:
        if m.is_play:
            left, right, ld, rd = ends_after(view, m)
            assert m.tile is not None
            key = (m.tile.index, tuple(sorted(((left, ld), (right, rd)))))
            if key in seen:
                continue
            seen.add(key)
        out.append(m)
    return out


class Meister:
    """Searches with ``playouts`` playouts per decision; see the module docstring."""

    level: str = "meister"

    def __init__(
        self,
        seed: object = None,
        *,
        playouts: int = DEFAULT_PLAYOUTS,
        deadline: Callable[[], bool] | None = None,
        budget: float | None = None,
        clock: Callable[[], float] | None = None,
        block: bool = BLOCK,
        tau: float | None = TAU,
        tries: int = WEIGH_TRIES,
        match_weight: float = MATCH_WEIGHT,
        halving: bool = HALVING,
        partner: bool = PARTNER,
        profi_model: bool = PROFI_MODEL,
        lead: float | None = None,
    ) -> None:
        if budget is not None and clock is None:
            raise ValueError("A time budget needs a clock to measure it with.")
        if budget is not None and budget < 0:
            raise ValueError("A time budget cannot be negative.")
        self.rng = random.Random(str(seed))
        self.playouts = playouts
        self.deadline = deadline
        self.budget = budget
        self.clock = clock
        self.block = block
        self.tau = tau
        self.tries = tries
        self.match_weight = match_weight
        self.halving = halving
        self.partner = partner
        self.profi_model = profi_model
        self.lead = lead

    def _evidence(self, view: SeatView, know: Knowledge) -> list[Compiled]:
        """The past plays a guess's plausibility is judged by (none without ``tau``)."""
        if self.tau is None:
            return []
        plays = past_plays(view, know)
        if not self.partner:
            side = view.rules.side_of(know.seat)
            plays = [p for p in plays if view.rules.side_of(p[0]) != side]
        public = public_before_plays(view) if self.profi_model else None
        return compile_plays(plays, view.rules.fives, public)

    def _guess(self, know: Knowledge, view: SeatView, plays: list[Compiled]) -> Hypothesis:
        """A guess, accepted with its :func:`plausibility` (rejection sampling; after
        ``tries`` rejections the most plausible one seen)."""
        rng = self.rng
        tau = self.tau
        hyp, where = guess_slots(know, view, rng)
        if tau is None or not plays:
            return hyp
        best, best_loss = hyp, math.inf
        for k in range(self.tries):
            if k:
                hyp, where = guess_slots(know, view, rng)
            # Accepted with probability exp(-loss / tau): when loss < -tau * ln(u).
            u = rng.random()
            accept = -tau * math.log(u) if u > 0.0 else math.inf
            loss = implausibility(plays, hyp, where, max(accept, best_loss))
            if loss < accept:
                return hyp
            if loss < best_loss:
                best, best_loss = hyp, loss
        return best

    def choose(self, view: SeatView) -> Move:
        """The candidate with the best average margin over the guesses (done in time)."""
        return self.evaluate(view)[0][0]

    def evaluate(self, view: SeatView) -> list[tuple[Move, float]]:
        """Every candidate with its average margin over the guesses it met: those still in
        the search at its end first, in the order :meth:`choose` ranks them (Meister's choice
        first), then the ones the halving dropped (by their average). A single
        candidate is not searched: it comes back alone with 0.0. The hints and the
        puzzles read these values (:func:`domino.analysis.reasons.reason`)."""
        stop = self._stop()
        cands = candidates(view)
        if len(cands) == 1:
            return [(cands[0], 0.0)]
        assert view.seat is not None
        know = infer(view)
        rules = view.rules
        side = rules.side_of(view.seat)
        others = rules.sides - 1
        totals = [0.0] * len(cands)
        seen = [0] * len(cands)
        compiled = self._evidence(view, know)
        block = self.block
        value = self._valuer(view, side, others)
        alive = list(range(len(cands)))
        for guesses in schedule(len(cands), self.playouts, self.halving):
            for _ in range(guesses):
                hyp = self._guess(know, view, compiled)
                for k in alive:
                    totals[k] += value(playout(view, hyp, cands[k], block=block))
                    seen[k] += 1
                if stop is not None and stop():
                    break
            else:
                # Every survivor saw the same guesses: keep the better half for the next phase.
                if len(alive) > 2:
                    alive.sort(key=lambda k: (-totals[k], k))
                    alive = sorted(alive[: (len(alive) + 1) // 2])
                continue
            break
        # Ties (rare with margins) go to Profi's preference, then the lower move index.
        ranked = sorted(
            alive,
            key=lambda k: (
                totals[k],
                profi_score(view, know, cands[k]) if cands[k].is_play else -1e9,
                -cands[k].index,
            ),
            reverse=True,
        )
        # The candidates dropped by the halving follow, by their average over what they saw.
        dropped = sorted(
            (k for k in range(len(cands)) if k not in alive and seen[k]),
            key=lambda k: (-totals[k] / seen[k], k),
        )
        return [(cands[k], totals[k] / max(1, seen[k])) for k in ranked + dropped]

    def _valuer(self, view: SeatView, side: int, others: int) -> Callable[[tuple[int, ...]], float]:
        """The value of a playout's points per side: the margin of ``side`` (its points
        minus the others' mean), plus ``match_weight`` if the match would end with that
        side alone in first place, minus it if it would end with another side first."""
        w = self.match_weight
        lead = self.lead
        if lead is not None and others >= 2 and not w:
            # The other side ahead in the match (the lower side on a tie) weighs ``lead``,
            # the rest share what is left.
            scores0 = view.scores
            top = max((o for o in range(len(scores0)) if o != side), key=lambda o: scores0[o])
            rest = (1.0 - lead) / (others - 1)

            def led(pts: tuple[int, ...]) -> float:
                mine = pts[side]
                return mine - lead * pts[top] - rest * (sum(pts) - mine - pts[top])

            return led
        if not w:

            def margin(pts: tuple[int, ...]) -> float:
                mine = pts[side]
                return mine - (sum(pts) - mine) / others

            return margin
        scores = view.scores
        target = view.rules.target_points
        last = view.round_no >= MAX_ROUNDS

        def match(pts: tuple[int, ...]) -> float:
            mine = pts[side]
            v = mine - (sum(pts) - mine) / others
            final = [a + b for a, b in zip(scores, pts, strict=True)]
            top = max(final)
            if last or top >= target:
                if final[side] < top:
                    v -= w
                elif final.count(top) == 1:
                    v += w
            return v

        return match

    def _stop(self) -> Callable[[], bool] | None:
        """The predicate that ends this decision's search early, or ``None`` (never)."""
        deadline, budget, clock = self.deadline, self.budget, self.clock
        if budget is None or clock is None:
            return deadline
        end = clock() + budget
        if deadline is None:
            return lambda: clock() >= end
        return lambda: deadline() or clock() >= end
