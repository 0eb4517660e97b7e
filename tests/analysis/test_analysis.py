"""The post-match analysis (docs/analysis.md): judged from the seat's knowledge only,
deterministic for a seed, and a scripted blunder is marked as one."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from domino.analysis import GRADES, grade_of, human_moves, positions, review, review_round
from domino.analysis.frames import replay_data
from domino.analysis.judge import choices
from domino.bots import make_bot
from domino.rules import MatchState, Rules, Tile, view
from domino.rules.record import loads, record_of, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SAMPLES = 64


def bot_match(rules: Rules, seed: str) -> dict[str, Any]:
    """A whole match of Profi bots as a record whose seats are all human."""
    m = MatchState(rules, seed=seed)
    bots = [make_bot("profi", f"{seed}/{i}") for i in range(rules.seats)]
    while not m.over:
        if m.round.over:
            m.start_round()
            continue
        s = m.round.turn
        m.apply(bots[s].choose(view(m, s)), s)
    return record_of(m, seats=[{"name": f"P{i}", "kind": "human"} for i in range(rules.seats)])


def without_hindsight(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != "hindsight"} for m in moves]


# -- the seat's knowledge only ----------------------------------------------------------
def _hidden_swaps(record: dict[str, Any], round_no: int, move_no: int, seat: int) -> list[Any]:
    """Records that differ from ``record`` only in hidden tiles at that move: a tile of
    another hand that was not played yet swapped with one that is still hidden from
    ``seat`` (in another hand or in the Lager, not drawn yet), the round cut at the move."""
    rnd = record["rounds"][round_no - 1]
    moves = rnd["moves"][:move_no]
    hands = [list(h) for h in rnd["deal"]["hands"]]
    lager = list(rnd["deal"].get("lager", []))
    drawn = sum(1 for mv in moves[: move_no - 1] if mv == "D")
    played = {mv.split()[0] for mv in moves[: move_no - 1] if mv not in ("D", "P")}
    norm = {str(Tile.parse(t)) for t in played}
    # A seat's own draws are its hand: the first ``drawn`` Lager tiles might be anyone's,
    # so only the Lager's undrawn tail counts as hidden here.
    places: list[tuple[str, int, int]] = []
    for s, h in enumerate(hands):
        if s == seat:
            continue
        places += [("hand", s, i) for i, t in enumerate(h) if str(Tile.parse(t)) not in norm]
    places += [("lager", -1, i) for i in range(drawn, len(lager))]
    out = []
    rng = random.Random(f"{round_no}/{move_no}")
    pairs = [(a, b) for a in places for b in places if a < b and (a[0], a[1]) != (b[0], b[1])]
    rng.shuffle(pairs)
    for a, b in pairs[:12]:
        rec = copy.deepcopy(record)
        r = rec["rounds"][round_no - 1]
        r["moves"] = list(moves)
        rec["rounds"] = rec["rounds"][:round_no]

        def ref(p: tuple[str, int, int], r: dict[str, Any] = r) -> tuple[list[str], int]:
            return (r["deal"]["hands"][p[1]] if p[0] == "hand" else r["deal"]["lager"]), p[2]

        (la, ia), (lb, ib) = ref(a), ref(b)
        la[ia], lb[ib] = lb[ib], la[ia]
        try:
            replay(rec)
        except Exception:
            continue  # the swap changed the opening: not the same game
        out.append(rec)
    return out


@pytest.mark.parametrize(
    ("rules", "seed"),
    [(Rules(seats=2), "k2"), (Rules(seats=3), "k3"), (Rules(seats=4, pairs=True), "p4")],
    ids=["2-lager", "3-lager", "4-paare"],
)
def test_the_judgement_reads_only_what_the_seat_knew(rules: Rules, seed: str) -> None:
    record = bot_match(rules, seed)
    cases = [p for p in positions(record, rounds=(1,)) if len(choices(p.view)) >= 2][:4]
    assert cases
    hindsight_moved = False
    for p in cases:
        judged = {(1, p.move_no)}
        base = review_round(record, 1, judged, SAMPLES, seed="s")
        variants = _hidden_swaps(record, 1, p.move_no, p.seat)
        assert variants
        for rec in variants:
            # What the seat knew is unchanged ...
            (q,) = [x for x in positions(rec, rounds=(1,)) if x.move_no == p.move_no]
            assert q.view == p.view and q.truth != p.truth
            other = review_round(rec, 1, judged, SAMPLES, seed="s")
            # ... so the judgement is too; hindsight (which sees every hand) may differ.
            assert without_hindsight(other) == without_hindsight(base)
            hindsight_moved |= other[0]["hindsight"] != base[0]["hindsight"]
    assert hindsight_moved, "the swaps never changed anything the hindsight view reads"


def test_the_same_seed_gives_the_same_analysis_and_another_seed_may_not() -> None:
    record = bot_match(Rules(seats=2, target=30), "det")
    a = review(record, samples=SAMPLES, seed="one")
    assert review(record, samples=SAMPLES, seed="one") == a
    b = review(record, samples=SAMPLES, seed="two")
    assert without_hindsight(b["moves"]) != without_hindsight(a["moves"])
    # Rounds judged alone (as the server's workers do) give the same moves.
    judged = human_moves(record)
    rounds = sorted({r for r, _ in judged})
    alone = [m for r in rounds for m in review_round(record, r, judged, SAMPLES, "one")]
    assert sorted(alone, key=lambda m: (m["round"], m["move"])) == a["moves"]


# -- a known blunder --------------------------------------------------------------------
def test_the_scripted_blunder_is_marked_as_one() -> None:
    """docs/examples/double-first.json: Anna holds 5|3 and 5|5, the ends show 6 and 5, and
    Ben has just passed on 6 and 5. 5|5 first keeps 5|3 for a sure Domino; Anna played 5|3."""
    record = loads((EXAMPLES / "double-first.json").read_text(encoding="utf-8"))
    out = review(record, samples=200, seed="blunder")
    last = out["moves"][-1]
    assert (last["round"], last["move"], last["seat"], last["played"]) == (1, 12, 0, "5|3 R")
    assert last["best"] == "5|5 R"
    assert last["grade"] == "patzer" and last["loss"] >= GRADES[0][1]
    assert last["hindsight"]["best"] == "5|5 R" and last["hindsight"]["grade"] == "patzer"
    # Ben's knowledge-free hindsight value for 5|5: Anna goes out with 5|3 and scores his 20.
    assert {o["move"]: o["value"] for o in last["hindsight"]["options"]}["5|5 R"] == 20.0
    anna = out["summary"][0]
    assert anna["seat"] == 0 and anna["grades"]["patzer"] >= 1 and anna["best_share"] < 1


def test_the_grades_follow_the_documented_thresholds() -> None:
    assert [grade_of(x) for x in (0.0, 1.99, 2.0, 4.99, 5.0, 9.99, 10.0, 30.0)] == [
        None,
        None,
        "ungenau",
        "ungenau",
        "fehler",
        "fehler",
        "patzer",
        "patzer",
    ]
    doc = (Path(__file__).resolve().parents[2] / "docs" / "analysis.md").read_text()
    for name, threshold in GRADES:
        assert f"| {name.capitalize()} | {threshold:g} |" in doc.replace("*", "")


def test_only_the_human_seats_moves_are_judged() -> None:
    record = bot_match(Rules(seats=3, target=30), "hum")
    record["seats"][1] = {"name": "Bot", "kind": "bot", "level": "profi"}
    out = review(record, samples=8, seed="h")
    assert out["moves"] and {m["seat"] for m in out["moves"]} == {0, 2}
    assert len(out["moves"]) == len(human_moves(record))


# -- replay frames ----------------------------------------------------------------------
def test_replay_frames_show_every_hand_but_never_the_lager() -> None:
    record = bot_match(Rules(seats=3, target=30), "frames")
    data = replay_data(record)
    out = replay(record).to_dict()
    assert data["sheet"] == out
    for rnd, frames in zip(record["rounds"], data["rounds"], strict=True):
        assert len(frames["frames"]) == len(rnd["moves"]) + 1
        first = frames["frames"][0]
        opened = first["event"]["tile"]
        dealt = [sorted(h) for h in rnd["deal"]["hands"]]
        shown = [sorted(h) for h in first["hands"]]
        shown[first["event"]["seat"]].append(opened)
        assert [sorted(str(Tile.parse(t)) for t in h) for h in dealt] == [sorted(h) for h in shown]
        drawn = [f["event"]["tile"] for f in frames["frames"] if f["event"]["kind"] == "draw"]
        hidden = {str(Tile.parse(t)) for t in rnd["deal"].get("lager", [])} - set(drawn)
        text = repr(frames)
        assert not any(f"'{t}'" in text for t in hidden)
        assert [f["event"]["move"] for f in frames["frames"][1:]] == rnd["moves"]


def test_the_analysis_package_imports_only_rules_and_bots() -> None:
    import ast

    import domino.analysis

    root = Path(domino.analysis.__file__).parent
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name.startswith("domino"):
                    assert name.split(".")[1] in ("rules", "bots", "analysis"), (path, name)


@pytest.mark.parametrize("name", ["domino.analysis.judge", "domino.server.desks.queries"])
def test_doctests(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
