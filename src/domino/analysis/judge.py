"""Judging one decision: what each candidate move was worth to the seat that had it.

The judgement sees only the seat's :class:`~domino.rules.SeatView` (own hand, line,
hand sizes, Lager size, public history). It samples ``samples`` deals of the tiles
the seat could not see with Meister's :func:`~domino.bots.meister.guess` (consistent
with everything public, :mod:`domino.bots.knowledge`), plays every candidate out in
each sample with :func:`~domino.bots.sample.playout`, and averages the *margin*:
the points the seat's side scores for the rest of the round minus the average of
the other sides' (the quantity Meister maximises). The same samples serve every
candidate (common random numbers), so differences come from the moves.

The hindsight judgement (:func:`judge_hindsight`) is the same with the one true deal
instead of samples: it knows every hand and the Lager's order, which the player
did not. It is offered beside the real judgement, labelled as such, never instead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Final

from domino.bots.base import ends_after
from domino.bots.knowledge import infer
from domino.bots.meister import candidates, guess
from domino.bots.sample import playout
from domino.rules import Move, SeatView
from domino.rules.hypothesis import Hypothesis, check

#: Grades by points lost against the best candidate (expected margin, see docs/analysis.md):
#: a loss of at least the threshold earns the grade. Checked from the worst down.
GRADES: Final = (("patzer", 10.0), ("fehler", 5.0), ("ungenau", 2.0))
#: A move within this many points of the best counts as a best move (sampling noise).
BEST_WITHIN: Final = 0.5


def grade_of(loss: float) -> str | None:
    """The grade of a move that lost ``loss`` points against the best, or ``None``.

    >>> grade_of(0.0), grade_of(2.0), grade_of(7.5), grade_of(12.0)
    (None, 'ungenau', 'fehler', 'patzer')
    """
    for name, threshold in GRADES:
        if loss >= threshold:
            return name
    return None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The candidates' values, the move played (as its candidate) and what it lost."""

    options: tuple[tuple[Move, float], ...]  # best first
    played: Move
    value: float
    samples: int

    @property
    def best(self) -> Move:
        return self.options[0][0]

    @property
    def best_value(self) -> float:
        return self.options[0][1]

    @property
    def loss(self) -> float:
        return max(0.0, self.best_value - self.value)

    @property
    def grade(self) -> str | None:
        return grade_of(self.loss)

    @property
    def is_best(self) -> bool:
        return self.loss <= BEST_WITHIN

    def to_dict(self) -> dict[str, Any]:
        return {
            "options": [{"move": str(m), "value": round(v, 2)} for m, v in self.options],
            "best": str(self.best),
            "best_value": round(self.best_value, 2),
            "value": round(self.value, 2),
            "loss": round(self.loss, 2),
            "grade": self.grade,
            "samples": self.samples,
        }


def _as_candidate(view: SeatView, cands: list[Move], move: Move) -> Move:
    """``move`` itself, or the candidate leading to the same position (a tile that fits
    both ends the same way is one candidate, :func:`candidates`)."""
    if move in cands or not move.is_play:
        return move
    after = _key(view, move)
    for c in cands:
        if c.is_play and c.tile == move.tile and _key(view, c) == after:
            return c
    raise ValueError(f"{move} is not a legal move here.")


def _key(view: SeatView, move: Move) -> tuple[tuple[int, bool], ...]:
    left, right, ld, rd = ends_after(view, move)
    return tuple(sorted(((left, ld), (right, rd))))


def _margins(view: SeatView, hyp: Hypothesis, cands: list[Move]) -> list[float]:
    rules = view.rules
    assert view.seat is not None
    side = rules.side_of(view.seat)
    others = rules.sides - 1
    out = []
    for m in cands:
        pts = playout(view, hyp, m)
        mine = pts[side]
        out.append(mine - (sum(pts) - mine) / others)
    return out


def _verdict(
    view: SeatView, cands: list[Move], played: Move, totals: list[float], samples: int
) -> Verdict:
    values = [t / samples for t in totals]
    order = sorted(range(len(cands)), key=lambda k: (-values[k], cands[k].index))
    options = tuple((cands[k], values[k]) for k in order)
    value = values[cands.index(played)]
    return Verdict(options, played, value, samples)


#: Public names for the puzzles (:mod:`.puzzles`), which re-score a position the same way.
as_candidate = _as_candidate
margins = _margins


def choices(view: SeatView) -> list[Move]:
    """The distinct choices the seat had (Meister's :func:`candidates`)."""
    return candidates(view)


def judge(view: SeatView, played: Move, samples: int, rng: random.Random) -> Verdict:
    """Judge ``played`` among the seat's candidates over ``samples`` sampled deals.

    Reads only ``view``; ``rng`` fixes the samples (same seed, same judgement).
    """
    cands = candidates(view)
    played = _as_candidate(view, cands, played)
    know = infer(view)
    totals = [0.0] * len(cands)
    for _ in range(samples):
        hyp = guess(know, view, rng)
        for k, v in enumerate(_margins(view, hyp, cands)):
            totals[k] += v
    return _verdict(view, cands, played, totals, samples)


def judge_hindsight(view: SeatView, played: Move, truth: Hypothesis) -> Verdict:
    """The same judgement knowing where every tile really lay (``truth``): hindsight."""
    check(view, truth)
    cands = candidates(view)
    played = _as_candidate(view, cands, played)
    return _verdict(view, cands, played, _margins(view, truth, cands), 1)
