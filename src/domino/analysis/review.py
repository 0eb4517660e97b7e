"""A finished match, move by move: which decisions to judge, and the whole analysis.

Works on a game record (docs/records.md): :func:`positions` replays it and yields,
for every move, the seat's own :class:`~domino.rules.SeatView` at that moment and
(for the labelled hindsight view only) where the hidden tiles really lay.
:func:`review_round` judges one round's moves of the chosen seats (the unit of work
the server hands to its worker processes); :func:`review` does a whole match.
Pure and deterministic: the samples of the move in round ``r`` at move ``k`` come
from ``Random(f"{seed}|{r}|{k}")``, whatever order the rounds are judged in.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from domino.rules import DRAW, Deal, MatchState, Move, SeatView, view
from domino.rules.hypothesis import Hypothesis
from domino.rules.record import rules_of
from domino.rules.tiles import mask_of

from .judge import BEST_WITHIN, GRADES, choices, judge, judge_hindsight

FORMAT: Final = "domino-analysis"
VERSION: Final = 1
#: Sampled deals per decision unless the caller says otherwise (docs/analysis.md).
DEFAULT_SAMPLES: Final = 48
#: A move is named by its round and its number in the round (both from 1, the opening
#: not counted), as in the record and in ``domino replay``'s messages.
MoveRef = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Position:
    """One move of the record: who made it, what that seat saw, what it played."""

    round_no: int
    move_no: int
    seat: int
    view: SeatView
    played: Move
    truth: Hypothesis  # every hidden tile where it really lay: for hindsight only


def positions(
    record: Mapping[str, Any], rounds: Collection[int] | None = None
) -> Iterator[Position]:
    """Every move of ``record`` (of the rounds in ``rounds``; all when ``None``), in order.

    The record is trusted to replay (the server stores only records it made; a
    record from elsewhere goes through :func:`domino.rules.record.replay` first).
    """
    match = MatchState(rules_of(record["rules"]), auto=False)
    for round_no, rnd in enumerate(record["rounds"], start=1):
        deal = Deal.from_dict(rnd["deal"])
        match.start_round(deal)
        wanted = rounds is None or round_no in rounds
        drawn = 0
        for move_no, text in enumerate(rnd.get("moves", []), start=1):
            move = Move.parse(text)
            seat = match.round.turn
            if wanted:
                hands = tuple(mask_of(match.round.hand(s)) for s in range(match.rules.seats))
                lager = tuple(t.index for t in reversed(deal.lager[drawn:]))
                truth = Hypothesis(hands, lager, mask_of(deal.out))
                yield Position(round_no, move_no, seat, view(match, seat), move, truth)
            if move.kind == DRAW:
                drawn += 1
            match.apply(move, seat)
        if not wanted and rounds is not None and round_no >= max(rounds, default=0):
            return


def human_moves(record: Mapping[str, Any]) -> frozenset[MoveRef]:
    """The moves of the seats the record names as humans (every seat if it names none).

    The server knows better (a human seat's timed-out or stood-in moves were the
    server's): it passes its own set, see ``domino.server.desks.analysis``.
    """
    seats = record.get("seats")
    humans = (
        {i for i, s in enumerate(seats) if s.get("kind", "human") == "human"}
        if isinstance(seats, list)
        else None
    )
    out = set()
    for p in _turns(record):
        if humans is None or p[2] in humans:
            out.add((p[0], p[1]))
    return frozenset(out)


def _turns(record: Mapping[str, Any]) -> Iterator[tuple[int, int, int]]:
    """(round, move, seat) of every move, without building views."""
    match = MatchState(rules_of(record["rules"]), auto=False)
    for round_no, rnd in enumerate(record["rounds"], start=1):
        match.start_round(Deal.from_dict(rnd["deal"]))
        for move_no, text in enumerate(rnd.get("moves", []), start=1):
            seat = match.round.turn
            yield round_no, move_no, seat
            match.apply(Move.parse(text), seat)


def plan(judged: Collection[MoveRef]) -> dict[int, int]:
    """How many judged moves each round holds (the analysis' progress is counted in these)."""
    out: dict[int, int] = {}
    for r, _ in judged:
        out[r] = out.get(r, 0) + 1
    return dict(sorted(out.items()))


def review_round(
    record: Mapping[str, Any],
    round_no: int,
    judged: Collection[MoveRef],
    samples: int = DEFAULT_SAMPLES,
    seed: str = "",
    hindsight: bool = True,
    pace: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """The judgements of round ``round_no``'s moves named in ``judged``.

    A move with a single choice (a forced draw, a forced pass, one fitting tile) is
    listed as ``"forced"`` without values. ``hindsight`` adds the judgement that knows
    every hand, under the key ``"hindsight"``. ``pace`` is called after each judged
    move (the server's workers rest there to leave the CPU to live matches).
    """
    wanted = {k for r, k in judged if r == round_no}
    out: list[dict[str, Any]] = []
    for pos in positions(record, rounds=(round_no,)):
        if pos.round_no != round_no or pos.move_no not in wanted:
            continue
        entry: dict[str, Any] = {
            "round": pos.round_no,
            "move": pos.move_no,
            "seat": pos.seat,
            "played": str(pos.played),
        }
        if len(choices(pos.view)) < 2:
            entry["forced"] = True
            out.append(entry)
            continue
        rng = random.Random(f"{seed}|{pos.round_no}|{pos.move_no}")
        verdict = judge(pos.view, pos.played, samples, rng)
        entry.update(forced=False, **verdict.to_dict())
        entry["best_move"] = verdict.is_best
        if hindsight:
            h = judge_hindsight(pos.view, pos.played, pos.truth)
            d = h.to_dict()
            del d["samples"]
            d["best_move"] = h.is_best
            entry["hindsight"] = d
        out.append(entry)
        if pace is not None:
            pace()
    return out


def summary(record: Mapping[str, Any], moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per seat that has judged moves: share of best moves, average points lost, grades."""
    seats = record.get("seats")
    by_seat: dict[int, list[dict[str, Any]]] = {}
    for m in moves:
        by_seat.setdefault(m["seat"], []).append(m)
    out = []
    for seat in sorted(by_seat):
        ms = by_seat[seat]
        real = [m for m in ms if not m["forced"]]
        n = len(real)
        row: dict[str, Any] = {
            "seat": seat,
            "name": seats[seat]["name"] if isinstance(seats, list) else None,
            "moves": n,
            "forced": len(ms) - n,
            "best": sum(1 for m in real if m["best_move"]),
            "best_share": round(sum(1 for m in real if m["best_move"]) / n, 3) if n else None,
            "avg_loss": round(sum(m["loss"] for m in real) / n, 2) if n else None,
            "grades": {g: sum(1 for m in real if m["grade"] == g) for g, _ in reversed(GRADES)},
        }
        hind = [m["hindsight"] for m in real if "hindsight" in m]
        if hind:
            row["hindsight"] = {
                "best_share": round(sum(1 for h in hind if h["best_move"]) / len(hind), 3),
                "avg_loss": round(sum(h["loss"] for h in hind) / len(hind), 2),
            }
        out.append(row)
    return out


def assemble(
    record: Mapping[str, Any],
    moves: list[dict[str, Any]],
    samples: int,
    seed: str,
    hindsight: bool,
) -> dict[str, Any]:
    """The stored analysis document (docs/analysis.md) from the rounds' judgements."""
    moves = sorted(moves, key=lambda m: (m["round"], m["move"]))
    return {
        "format": FORMAT,
        "version": VERSION,
        "samples": samples,
        "seed": seed,
        "value": "margin",
        "grades": {name: threshold for name, threshold in reversed(GRADES)},
        "best_within": BEST_WITHIN,
        "hindsight": hindsight,
        "moves": moves,
        "summary": summary(record, moves),
    }


def assemble_text(
    record: Mapping[str, Any],
    moves: list[dict[str, Any]],
    samples: int,
    seed: str,
    hindsight: bool,
) -> str:
    """:func:`assemble` as compact JSON text: the server has its worker process build and
    serialize the document, so that neither runs on the event loop of live matches."""
    return json.dumps(
        assemble(record, moves, samples, seed, hindsight),
        separators=(",", ":"),
        ensure_ascii=False,
    )


def review(
    record: Mapping[str, Any],
    judged: Collection[MoveRef] | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: str = "",
    hindsight: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The analysis of a whole match (``judged``: the moves to judge; default: the
    record's human seats' moves). ``progress(done, total)`` after every round."""
    if judged is None:
        judged = human_moves(record)
    counts = plan(judged)
    total = sum(counts.values())
    done = 0
    moves: list[dict[str, Any]] = []
    for round_no, n in counts.items():
        moves += review_round(record, round_no, judged, samples, seed, hindsight)
        done += n
        if progress is not None:
            progress(done, total)
    return assemble(record, moves, samples, seed, hindsight)
