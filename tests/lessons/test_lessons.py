"""Every lesson replays through the engine, and the browser's copy is what the engine makes."""

from __future__ import annotations

import json
import random
import re

import pytest

from domino.analysis.judge import judge
from domino.i18n import CATALOGUES, LESSON_PREFIXES, client_catalogue, tr
from domino.lessons import build, first, tips
from domino.rules import Move, RoundState, view


def test_the_first_round_is_a_real_deal_played_move_by_move() -> None:
    first.DEAL.validate(first.RULES)
    state = RoundState.start(first.RULES, first.DEAL)
    # The product page's example: 6|6 lies, both ends a 6, and you hold 6|2, 2|2 and 3|5.
    assert str(state.log[0].tile) == "6|6" and (state.left, state.right) == (6, 6)
    assert {"6|2", "2|2", "5|3"} <= {str(t) for t in state.hand(0)}
    kinds: set[str] = set()
    for seat, text, _ in first.STEPS:
        move = Move.parse(text)
        assert state.turn == seat and move in state.legal_moves(), (seat, text)
        if seat == 0:
            kinds.add("both_ends" if _fits_both(state, move) else move.kind)
            if move.tile is not None and move.tile.is_double:
                kinds.add("double")
            if move.kind == "pass":
                assert not state.lager  # passing only with the Lager empty
        state.apply(move, seat)
    assert state.result is not None and state.result.reason == "domino"
    assert state.result.out_seat == 0 and state.result.points[0] == sum(state.result.pips)
    # It teaches a tile, the choice of an end, the double, drawing and passing.
    assert {"play", "both_ends", "double", "draw", "pass"} <= kinds


def _fits_both(state: RoundState, move: Move) -> bool:
    if move.tile is None:
        return False
    other = Move.play(move.tile, "L" if move.end == "R" else "R")
    return other in state.legal_moves()


def test_the_browser_copy_is_current() -> None:
    # web/lessons.json is what `python -m domino.lessons` writes now: rerun it after a change.
    assert build.OUT.read_text(encoding="utf-8") == build.text(build.lessons())


def test_every_frame_is_the_engine_s_view_and_every_sentence_exists() -> None:
    data = json.loads(build.OUT.read_text(encoding="utf-8"))
    frames = data["first"]["frames"]
    state = RoundState.start(first.RULES, first.DEAL)
    for frame in frames:
        # Seat 0's view only: its own hand, the others' as counts; hands shown at the end only.
        assert frame["view"]["seat"] == 0 and frame["view"]["result"] is None
        v = view(state, 0).to_dict()
        assert {k: frame["view"][k] for k in v} == v
        state.apply(Move.parse(frame["move"]), frame["seat"])
    keys = {f["say"] for f in frames if f["say"]} | {data["first"]["opening"], data["first"]["end"]}
    keys |= {
        f"lesson.tip.{t['key']}.{part}"
        for t in data["tips"]
        for part in ("title", "question", "reason")
    }
    for lang in CATALOGUES:
        assert not keys - CATALOGUES[lang].keys(), lang


@pytest.mark.parametrize("tip", tips.TIPS, ids=[t.key for t in tips.TIPS])
def test_every_tip_is_a_position_where_meister_agrees_with_the_tip(tip: tips.Tip) -> None:
    state = tips.position(tip)  # every move of the way through the engine
    v = view(state, state.turn)
    assert Move.parse(tip.answer) in v.legal
    # Meister's judgement with other samples than the build's, three times: the answer is its
    # own by a clear margin, not an accident of one sample set.
    for k in range(3):
        verdict = judge(
            v, Move.parse(tip.answer), tips.SAMPLES, random.Random(f"again-{k}-{tip.key}")
        )
        assert str(verdict.best) == tip.answer, k
        assert verdict.options[0][1] - verdict.options[1][1] >= 1.0, (k, verdict.options)


def test_the_sentences_come_with_the_lessons_not_with_every_page() -> None:
    # A first visit loads the catalogue; the lessons' sentences load with the lessons.
    data = json.loads(build.OUT.read_text(encoding="utf-8"))
    for lang in CATALOGUES:
        served = client_catalogue(lang)
        assert served is not None
        assert not [k for k in served["messages"] if k.startswith(LESSON_PREFIXES)]
        lazy = {k for k in CATALOGUES[lang] if k.startswith(LESSON_PREFIXES)}
        assert set(data["texts"][lang]) == lazy
    said = {f["say"] for f in data["first"]["frames"] if f["say"]}
    assert said | {data["first"]["opening"], data["first"]["end"]} <= set(data["texts"]["de"])


@pytest.mark.parametrize("tip", tips.TIPS, ids=[t.key for t in tips.TIPS])
def test_every_tip_asks_about_the_moves_the_position_offers(tip: tips.Tip) -> None:
    # The question names tiles: each one the player can play there, the answer's among them.
    state = tips.position(tip)
    playable = {str(m.tile) for m in state.legal_moves() if m.tile is not None}
    for lang in CATALOGUES:
        named = set(re.findall(r"\d\|\d", tr(lang, f"lesson.tip.{tip.key}.question")))
        assert named and named <= playable, (lang, named, playable)
        assert tip.answer.split()[0] in named
