"""Records without the tiles out of play (RULES.md §4, docs/records.md "rounds[i]").

Nobody ever sees the *Lager Aus* leftovers, so records leave them out; a deal without
``out`` means "the tiles in no hand and not in the Lager". Such a record still validates
and replays exactly, and a record that lists ``out`` keeps working.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from domino.cli import main
from domino.rules import Deal, MatchState, Mode, RecordError, Rules
from domino.rules.audience import public_deal
from domino.rules.record import dumps, outcome_of, record_of, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

LAGER_AUS = (
    Rules.preset(Mode.ZUGEMAUERT, 2),
    Rules.preset(Mode.ZUGEMAUERT, 3),
    Rules(seats=2, lager=False, fives=True),
    Rules(seats=3, lager=False, fives=True, target=30),
)


def _play(rules: Rules, seed: int) -> MatchState:
    rng = random.Random(seed)
    m = MatchState(rules, seed=seed)
    while True:
        while not m.round.over:
            legal = m.round.legal_moves()
            m.apply(legal[rng.randrange(len(legal))], m.round.turn)
        if m.over:
            return m
        m.start_round()


def _same_deals(a: MatchState, b: MatchState) -> bool:
    return len(a.deals) == len(b.deals) and all(
        (x.hands, x.lager, sorted(x.out)) == (y.hands, y.lager, sorted(y.out))
        for x, y in zip(a.deals, b.deals, strict=True)
    )


@pytest.mark.parametrize("rules", LAGER_AUS, ids=lambda r: f"{r.mode.value}-{r.seats}")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_lager_aus_record_names_no_leftover_and_replays_exactly(rules: Rules, seed: int) -> None:
    m = _play(rules, seed)
    rec = record_of(m, seats=[f"P{i}" for i in range(rules.seats)])
    for rnd, d in zip(rec["rounds"], m.deals, strict=True):
        assert set(rnd["deal"]) == {"hands", "lager"} and rnd["deal"]["lager"] == []
        assert len(d.out) == 28 - 7 * rules.seats
        assert not {str(t) for t in d.out} & set(json.dumps(rnd["deal"]).split('"'))
    out = replay(dumps(rec))
    assert out == outcome_of(m, seats=[f"P{i}" for i in range(rules.seats)])
    assert out.scores == m.scores and out.finished_reason == m.finished_reason
    assert [r.pips for r in out.rounds] == [r.pips for r in m.results]
    assert _same_deals(out.match, m)  # the leftovers are inferred, only their order differs


@pytest.mark.parametrize("rules", LAGER_AUS[:2], ids=lambda r: f"{r.mode.value}-{r.seats}")
def test_a_record_that_lists_out_keeps_working(rules: Rules) -> None:
    m = _play(rules, 7)
    rec = record_of(m)
    for rnd, d in zip(rec["rounds"], m.deals, strict=True):
        rnd["deal"] = d.to_dict()  # as records were written before
        assert len(rnd["deal"]["out"]) == 28 - 7 * rules.seats
    assert replay(rec) == replay(record_of(m)) == outcome_of(m)


def test_a_lager_an_record_without_out_replays_too() -> None:
    m = _play(Rules.preset(Mode.KLASSISCH, 2), 4)
    rec = record_of(m)
    assert all("out" not in r["deal"] for r in rec["rounds"])
    assert replay(rec) == outcome_of(m)


def test_a_deal_without_out_infers_exactly_the_missing_tiles() -> None:
    m = MatchState(Rules.preset(Mode.ZUGEMAUERT, 3), seed="x")
    d = m.deals[0]
    back = Deal.from_dict(public_deal(d))
    assert back.hands == d.hands and back.lager == () and set(back.out) == set(d.out)
    assert Deal.from_dict(d.to_dict()) == d  # listed, out keeps its order


def _zugemauert_without_out() -> dict[str, Any]:
    rec = json.loads((EXAMPLES / "zugemauert-two-rounds.json").read_text(encoding="utf-8"))
    for rnd in rec["rounds"]:
        assert "out" in rnd["deal"]  # the example lists them: it must keep replaying
        del rnd["deal"]["out"]
    return rec


def test_the_example_replays_the_same_with_and_without_out() -> None:
    text = (EXAMPLES / "zugemauert-two-rounds.json").read_text(encoding="utf-8")
    assert replay(_zugemauert_without_out()) == replay(text)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d["hands"][0].__setitem__(0, d["hands"][1][0]), ["Round 1", "twice"]),
        (lambda d: d["hands"][0].pop(), ["Round 1", "Seat 0 holds 6"]),
        (lambda d: d.__setitem__("lager", [d["hands"][0].pop()]), ["Round 1"]),
        (lambda d: d["hands"][0].__setitem__(0, "7|1"), ["Round 1", "7|1"]),
    ],
    ids=["a-tile-twice", "a-short-hand", "a-lager-without-lager", "no-tile"],
)
def test_a_deal_without_out_is_still_checked(change: Any, words: list[str]) -> None:
    rec = copy.deepcopy(_zugemauert_without_out())
    change(rec["rounds"][0]["deal"])
    with pytest.raises(RecordError) as info:
        replay(rec)
    assert info.value.code == "record_deal"
    for w in words:
        assert w in str(info.value), str(info.value)


def test_domino_replay_reads_a_record_without_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = EXAMPLES / "zugemauert-two-rounds.json"
    bare = tmp_path / "bare.json"
    bare.write_text(dumps(_zugemauert_without_out()), encoding="utf-8")
    assert main(["replay", str(listed)]) == 0
    with_out = json.loads(capsys.readouterr().out)
    assert main(["replay", str(bare)]) == 0
    without = json.loads(capsys.readouterr().out)
    assert without == with_out and without["finished_reason"] == "target"
