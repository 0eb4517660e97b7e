"""Meister: determinized search (beyond RULES.md §11's three levels).

For each decision Meister guesses, many times, where the hidden tiles lie —
guesses consistent with everything public (:mod:`.knowledge`: tiles played,
the own hand, hand sizes, the Lager's size, what each seat cannot hold) —
and plays every candidate move out in each guess with a fast greedy policy
(:func:`domino.rules.sample.playout`). The move with the best average
points margin for its side over the rest of the round wins. The same
guesses serve every candidate, so differences come from the moves, not from
luck of the draw.

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

import random
from collections.abc import Callable

from domino.rules import Move, SeatView
from domino.rules.sample import Hypothesis, playout

from .base import ends_after, hand_mask
from .knowledge import Knowledge, infer
from .profi import profi_score

#: Playouts per decision at the default budget (measured: p99 well under 300 ms here).
DEFAULT_PLAYOUTS = 600
#: At least this many guesses per decision, however many candidates there are.
MIN_GUESSES = 24
# Tries to satisfy every slot's constraints before a guess relaxes them.
TRIES = 20


def guess(know: Knowledge, view: SeatView, rng: random.Random) -> Hypothesis:
    """One assignment of the unseen tiles consistent with ``know`` (random, most
    constrained slots first; after repeated dead ends the constraints are dropped, which
    the conservative model of :mod:`.knowledge` makes very rare)."""
    me = know.seat
    n = view.rules.seats
    unseen = [i for i in range(28) if know.unseen >> i & 1]
    slots = [(s, f) for s in range(n) if s != me for f in know.slots[s]]
    constrained = [(s, f) for s, f in slots if f & know.unseen]
    free_slots = [s for s, f in slots if not f & know.unseen]
    for attempt in range(TRIES + 1):
        pool = unseen[:]
        rng.shuffle(pool)
        hands = [0] * n
        hands[me] = hand_mask(view)
        ok = True
        order = sorted(constrained, key=lambda sf: (know.unseen & ~sf[1]).bit_count())
        for s, f in order:
            pick = -1
            if attempt < TRIES:
                for j, i in enumerate(pool):
                    if not f >> i & 1:
                        pick = j
                        break
                if pick < 0:
                    ok = False
                    break
            else:
                pick = 0
            hands[s] |= 1 << pool.pop(pick)
        if not ok:
            continue
        for s in free_slots:
            hands[s] |= 1 << pool.pop()
        lager = tuple(pool[: know.lager])
        out = 0
        for i in pool[know.lager :]:
            out |= 1 << i
        return Hypothesis(tuple(hands), lager, out)
    raise AssertionError("unreachable: the last attempt ignores the constraints")


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

    def choose(self, view: SeatView) -> Move:
        """The candidate with the best average margin over the guesses (done in time)."""
        stop = self._stop()
        cands = candidates(view)
        if len(cands) == 1:
            return cands[0]
        assert view.seat is not None
        know = infer(view)
        rules = view.rules
        side = rules.side_of(view.seat)
        others = rules.sides - 1
        guesses = max(MIN_GUESSES, -(-self.playouts // len(cands)))
        totals = [0.0] * len(cands)
        for _ in range(guesses):
            hyp = guess(know, view, self.rng)
            for k, m in enumerate(cands):
                pts = playout(view, hyp, m)
                mine = pts[side]
                totals[k] += mine - (sum(pts) - mine) / others
            if stop is not None and stop():
                break
        # Ties (rare with margins) go to Profi's preference, then the lower move index.
        best = max(
            range(len(cands)),
            key=lambda k: (
                totals[k],
                profi_score(view, know, cands[k]) if cands[k].is_play else -1e9,
                -cands[k].index,
            ),
        )
        return cands[best]

    def _stop(self) -> Callable[[], bool] | None:
        """The predicate that ends this decision's search early, or ``None`` (never)."""
        deadline, budget, clock = self.deadline, self.budget, self.clock
        if budget is None or clock is None:
            return deadline
        end = clock() + budget
        if deadline is None:
            return lambda: clock() >= end
        return lambda: deadline() or clock() >= end
