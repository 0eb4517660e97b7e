"""Build the lessons' JSON from their scripts, every move through the engine.

``first_round()`` plays :mod:`domino.lessons.first` move by move on a
:class:`~domino.rules.RoundState` and records, before each move, what seat 0 sees then
(its :class:`~domino.rules.SeatView`: hand, line, ends, counts, the public history and,
on its turn, the legal moves). A scripted move the engine refuses raises: no illegal
position can reach the browser. ``tips()`` does the same for each Tipp's position and asks
Meister's judgement (:func:`domino.analysis.judge.judge`) for the answer.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Final

from domino.analysis.judge import judge
from domino.i18n import LANGS, lesson_texts
from domino.rules import Move, RoundState, view

from . import first, tips

#: Where the browser reads the lessons (served with the client's files).
OUT: Final = Path(__file__).resolve().parent.parent / "web" / "lessons.json"
PLAYER: Final = 0


def _frame(state: RoundState) -> dict[str, Any]:
    v = view(state, PLAYER)
    d = v.to_dict()
    d["history"] = [e.to_dict() for e in v.history]
    return d


def first_round() -> dict[str, Any]:
    """The guided round: one frame per scripted move (the view before it) and the end."""
    state = RoundState.start(first.RULES, first.DEAL)
    frames: list[dict[str, Any]] = []
    for seat, text, say in first.STEPS:
        if state.turn != seat:
            raise ValueError(f"The script has seat {seat} move {text}; seat {state.turn} is due.")
        frame = {"view": _frame(state), "seat": seat, "move": text, "say": say}
        state.apply(Move.parse(text), seat)  # raises if the engine refuses it
        frames.append(frame)
    if state.result is None or state.result.out_seat != PLAYER:
        raise ValueError("The guided round must end with the player's Domino!.")
    return {
        "rules": first.RULES.to_dict(),
        "opening": first.OPENING_KEY,
        "end": first.END_KEY,
        "frames": frames,
        "last": _frame(state),
    }


def tip(lesson: tips.Tip, samples: int = tips.SAMPLES) -> dict[str, Any]:
    """One Tipp: the position, Meister's answer and every choice's expected points."""
    state = tips.position(lesson)
    v = view(state, state.turn)
    verdict = judge(v, Move.parse(lesson.answer), samples, random.Random(lesson.key))
    best = str(verdict.best)
    if best != lesson.answer:
        raise ValueError(f"Meister prefers {best}, not {lesson.answer}, in Tipp {lesson.key}.")
    d = v.to_dict()
    d["history"] = [e.to_dict() for e in v.history]
    return {
        "key": lesson.key,
        "view": d,
        "answer": best,
        "options": [[str(m), round(value, 1)] for m, value in verdict.options],
    }


def lessons(samples: int = tips.SAMPLES) -> dict[str, Any]:
    """Everything ``web/lessons.json`` holds: the lessons and their sentences (the catalogue's
    ``lesson.first.*`` and ``lesson.tip.*``, which the page's own catalogue leaves out)."""
    return {
        "first": first_round(),
        "tips": [tip(t, samples) for t in tips.TIPS],
        "texts": {lang: lesson_texts(lang) for lang in LANGS},
    }


def text(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def main(argv: list[str] | None = None) -> int:
    import sys

    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else OUT
    out.write_text(text(lessons()), encoding="utf-8")
    print(out)
    return 0
