"""Puzzles (*Rätsel*) from the Patzer of finished matches (issue 24, item 3; docs/puzzles.md).

A puzzle is one moment of a finished match as the seat to move saw it (its own hand,
the line, every seat's hand size, the Lager's size, the public history: the seat's
:class:`~domino.rules.SeatView` from :func:`domino.rules.audience.view`) and the move
Meister prefers there by a clear margin.

Selection (:func:`select`), from a stored analysis (docs/analysis.md):

1. **Candidates**: the judged moves graded *Patzer* (:data:`SOURCE_GRADE`): the
   player lost at least 10 points of expected margin against Meister's choice;
2. **Re-scored**: each candidate is judged again :data:`RESCORES` times with
   :data:`RESCORE_SAMPLES` fresh samples each (seeds of their own, so these are
   independent of the analysis' samples and of each other);
3. **Kept** only when, in the analysis and in every re-score, the same move is best,
   it leads the runner-up by at least :data:`MIN_LEAD` points, and over all the
   re-scores' samples it does at least as well as the runner-up in at least
   :data:`MIN_SHARE` of them (robust across the samples, not carried by a few lucky
   deals).

Pure and deterministic for a seed (``Random(f"{seed}|puzzle|{r}|{k}|{i}")``).
:func:`check` replays a stored puzzle's match through the engine and holds the puzzle
against it (the whole stored set is walked by ``domino puzzles check`` and the tests).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from domino.bots.knowledge import infer
from domino.bots.meister import candidates, guess
from domino.rules import Move, SeatView

from .judge import as_candidate, margins
from .reasons import reason
from .review import positions

FORMAT: Final = "domino-puzzle"
VERSION: Final = 1
#: The analysis grade a move must have to become a candidate.
SOURCE_GRADE: Final = "patzer"
#: Independent re-scores of a candidate, and the sampled deals of each.
RESCORES: Final = 2
RESCORE_SAMPLES: Final = 300
#: The best move's lead over the runner-up in every re-score (points of margin).
MIN_LEAD: Final = 3.0
#: The share of all re-scored samples in which the best move does at least as well as
#: the runner-up.
MIN_SHARE: Final = 0.8
#: A new puzzle's and a new solver's rating (Elo, docs/puzzles.md), and how far one
#: answer moves the solver's and the puzzle's rating at most.
START_RATING: Final = 1500.0
K_SOLVER: Final = 32.0
K_PUZZLE: Final = 16.0


@dataclass(frozen=True, slots=True)
class Outcome:
    """What :func:`select` did with one batch: every candidate and why it failed."""

    candidates: int = 0
    puzzles: list[dict[str, Any]] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)


def puzzle_id(mid: str, round_no: int, move_no: int) -> str:
    """The stable id of the puzzle at that move of that match.

    >>> puzzle_id("m_8c1d", 2, 14)
    'm_8c1d-2-14'
    """
    return f"{mid}-{round_no}-{move_no}"


def seat_position(view: SeatView) -> dict[str, Any]:
    """The position as the seat saw it, JSON-ready: the seat's view (:meth:`SeatView.
    to_dict`: own hand, line, ends, hand sizes, Lager size, scores, legal moves) and the
    round's public history (draws without their tile)."""
    d = view.to_dict()
    d["history"] = [e.to_dict() for e in view.history]
    return d


def _rescore(
    view: SeatView, cands: list[Move], samples: int, rng: random.Random
) -> list[list[float]]:
    """Per sampled deal, every candidate's margin (the analysis' quantity)."""
    know = infer(view)
    return [margins(view, guess(know, view, rng), cands) for _ in range(samples)]


def judge_candidate(
    view: SeatView,
    analysed_best: Move,
    seed: str,
    *,
    rescores: int = RESCORES,
    samples: int = RESCORE_SAMPLES,
    pace: Callable[[], None] | None = None,
) -> tuple[str | None, list[tuple[Move, float]], float, float]:
    """Re-score one position: ``(reason it fails or None, options best first with their
    mean value over every re-score, lead, share)``."""
    cands = candidates(view)
    if len(cands) < 2:
        return "forced", [], 0.0, 0.0
    best_k = cands.index(as_candidate(view, cands, analysed_best))
    totals = [0.0] * len(cands)
    leads: list[float] = []
    kept = 0
    n = 0
    failure: str | None = None
    for i in range(rescores):
        rows = _rescore(view, cands, samples, random.Random(f"{seed}|{i}"))
        means = [sum(r[k] for r in rows) / samples for k in range(len(cands))]
        for k, v in enumerate(means):
            totals[k] += v
        order = sorted(range(len(cands)), key=lambda k: (-means[k], cands[k].index))
        if order[0] != best_k and failure is None:
            failure = "unstable"
        runner = max((k for k in range(len(cands)) if k != best_k), key=lambda k: means[k])
        leads.append(means[best_k] - means[runner])
        kept += sum(1 for r in rows if r[best_k] >= r[runner])
        n += samples
        if pace is not None:
            pace()
    values = [t / rescores for t in totals]
    order = sorted(range(len(cands)), key=lambda k: (-values[k], cands[k].index))
    options = [(cands[k], values[k]) for k in order]
    lead = min(leads)
    share = kept / n
    if failure is None and lead < MIN_LEAD:
        failure = "close"
    if failure is None and share < MIN_SHARE:
        failure = "luck"
    return failure, options, lead, share


def reason_of(
    view: SeatView, options: list[tuple[Move, float]], names: list[str] | None = None
) -> dict[str, Any]:
    """The reason sentence for the best move (``options`` best first), as ``{"key",
    "params"}`` of the catalogue: the same sentence a hint gives (:mod:`.reasons`)."""
    key, params = reason(view, options[0][0], options, names)
    return {"key": key, "params": params}


def select(
    mid: str,
    record: Mapping[str, Any],
    analysis: Mapping[str, Any],
    *,
    profiles: Mapping[int, str] | None = None,
    rescores: int = RESCORES,
    samples: int = RESCORE_SAMPLES,
    pace: Callable[[], None] | None = None,
) -> Outcome:
    """The puzzles of one finished, analysed match (``mid``: its id, also the seed).

    ``profiles``: the player id of each human seat (their "Deine Fehler" set).
    """
    wanted = {
        (m["round"], m["move"]): m
        for m in analysis.get("moves", [])
        if not m.get("forced") and m.get("grade") == SOURCE_GRADE
    }
    out = Outcome(candidates=len(wanted))
    if not wanted:
        return out
    seats = record.get("seats")
    names = [s.get("name", "") for s in seats] if isinstance(seats, list) else None
    rounds = {r for r, _ in wanted}
    for pos in positions(record, rounds=rounds):
        judged = wanted.get((pos.round_no, pos.move_no))
        if judged is None:
            continue
        best = Move.parse(judged["best"])
        failure, options, lead, share = judge_candidate(
            pos.view,
            best,
            f"{mid}|puzzle|{pos.round_no}|{pos.move_no}",
            rescores=rescores,
            samples=samples,
            pace=pace,
        )
        if failure is None and options[0][0] != as_candidate(pos.view, candidates(pos.view), best):
            failure = "unstable"
        if failure is not None:
            out.rejected[failure] = out.rejected.get(failure, 0) + 1
            continue
        out.puzzles.append(
            {
                "format": FORMAT,
                "version": VERSION,
                "id": puzzle_id(mid, pos.round_no, pos.move_no),
                "match": mid,
                "round": pos.round_no,
                "move": pos.move_no,
                "seat": pos.seat,
                "profile": (profiles or {}).get(pos.seat),
                "rules": record["rules"],
                "names": names,
                "position": seat_position(pos.view),
                "played": str(pos.played),
                "best": str(options[0][0]),
                "options": [{"move": str(m), "value": round(v, 2)} for m, v in options],
                "lead": round(lead, 2),
                "share": round(share, 3),
                "samples": rescores * samples,
                "reason": reason_of(pos.view, options, names),
            }
        )
    return out


def elo(solver: float, puzzle: float, solved: bool) -> tuple[float, float]:
    """The solver's and the puzzle's ratings after one answer: Elo, the puzzle being the
    opponent. ``E = 1 / (1 + 10^((puzzle - solver) / 400))``; the solver moves by
    ``K_SOLVER * (S - E)``, the puzzle by ``K_PUZZLE * (E - S)`` (``S``: 1 solved, 0 not).

    >>> elo(1500.0, 1500.0, True)
    (1516.0, 1492.0)
    >>> elo(1500.0, 1500.0, False)
    (1484.0, 1508.0)
    >>> [round(r, 1) for r in elo(1300.0, 1700.0, True)]
    [1329.1, 1685.5]
    """
    expected = 1.0 / (1.0 + 10.0 ** ((puzzle - solver) / 400.0))
    score = 1.0 if solved else 0.0
    return solver + K_SOLVER * (score - expected), puzzle + K_PUZZLE * (expected - score)


class PuzzleMismatch(ValueError):
    """A stored puzzle that its match does not reproduce."""


def position_of(record: Mapping[str, Any], round_no: int, move_no: int) -> SeatView:
    """The seat's view before move ``move_no`` of round ``round_no``, replayed through
    the engine; :class:`PuzzleMismatch` when the record has no such move."""
    for pos in positions(record, rounds=(round_no,)):
        if (pos.round_no, pos.move_no) == (round_no, move_no):
            return pos.view
    raise PuzzleMismatch(f"the match has no move {move_no} in round {round_no}")


def check(record: Mapping[str, Any], puzzle: Mapping[str, Any]) -> SeatView:
    """Replay ``puzzle``'s match up to its move through the engine and hold the puzzle
    against it: the same seat and position, every option a distinct legal choice there,
    the best one first. Returns the view; raises :class:`PuzzleMismatch`."""
    view = position_of(record, puzzle["round"], puzzle["move"])
    if view.seat != puzzle["seat"]:
        raise PuzzleMismatch(f"seat {view.seat} moves there, not {puzzle['seat']}")
    if seat_position(view) != puzzle["position"]:
        raise PuzzleMismatch("the stored position is not the replayed one")
    cands = candidates(view)
    opts = [Move.parse(o["move"]) for o in puzzle["options"]]
    if sorted(m.index for m in opts) != sorted(m.index for m in cands):
        raise PuzzleMismatch("the options are not the seat's choices there")
    if (
        str(opts[0]) != puzzle["best"]
        or as_candidate(view, cands, Move.parse(puzzle["best"])) not in cands
    ):
        raise PuzzleMismatch("the best move is not the first legal option")
    values = [o["value"] for o in puzzle["options"]]
    if values != sorted(values, reverse=True):
        raise PuzzleMismatch("the options are not ordered best first")
    return view


def choice_of(puzzle: Mapping[str, Any], text: str) -> str:
    """The option of ``puzzle`` that the answer ``text`` names, as the option's text.

    A legal move that is not an option places the same tile with the same result as
    one (a tile that fits both ends the same way is one choice). :class:`ValueError`
    when ``text`` is no move, or not a legal one there.
    """
    move = Move.parse(text)
    if str(move) not in puzzle["position"]["legal"]:
        raise ValueError("illegal")
    options = [Move.parse(o["move"]) for o in puzzle["options"]]
    if move in options:
        return str(move)
    same = [m for m in options if m.is_play and m.tile == move.tile]
    if len(same) != 1:
        raise ValueError("illegal")
    return str(same[0])
