"""``domino replay FILE``: prints the outcome of a record as JSON, exits 1 on a bad record."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from domino.cli import main
from domino.rules import MatchState, Rules
from domino.rules.record import dumps, outcome_of, record_of

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def test_replay_prints_the_outcome_of_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(EXAMPLES / "zugemauert-two-rounds.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["reason"] for r in out["rounds"]] == ["blocked", "domino"]
    assert [r["winner"] for r in out["rounds"]] == [None, 0]
    assert out["rounds"][1]["points"] == [46, 0] and out["rounds"][1]["fives"] == [0, 0]
    assert out["scores"] == [46, 0]
    assert out["standings"][0] == {
        "side": 0,
        "seats": [0],
        "points": 46,
        "place": 1,
        "names": ["Anna"],
    }
    assert out["finished"] is True and out["finished_reason"] == "target"


def test_replay_of_every_example_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    for f in sorted(EXAMPLES.glob("*.json")):
        assert main(["replay", str(f)]) == 0, f
        json.loads(capsys.readouterr().out)


def test_replay_of_an_exported_match_prints_its_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = MatchState(Rules.preset("fuenferfieber", 4, pairs=True), seed=2)
    while True:
        while not m.round.over:
            m.apply(m.round.legal_moves()[-1])
        if m.over:
            break
        m.start_round()
    path = tmp_path / "match.json"
    path.write_text(dumps(record_of(m)), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == outcome_of(m).to_dict()


def test_replay_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (EXAMPLES / "worked-example.json").read_text(encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["replay", "-"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["finished"] is False and out["rounds"][0]["turn"] == 0


def test_an_illegal_move_exits_1_naming_round_move_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = json.loads((EXAMPLES / "zugemauert-two-rounds.json").read_text(encoding="utf-8"))
    rec["rounds"][1]["moves"][3] = "5|5 L"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Round 2, move 4" in captured.err and "You do not hold 5|5" in captured.err
    assert captured.err.startswith("domino replay: ")


@pytest.mark.parametrize("content", ["not json", "[]", '{"format": "x"}'])
def test_unreadable_records_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err.strip()


def test_a_missing_file_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nothing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_a_record_nested_100000_deep_exits_1_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        path = tmp_path / "deep.json"
        path.write_text(text, encoding="utf-8")
        assert main(["replay", str(path)]) == 1
        err = capsys.readouterr().err
        assert "nested too deeply" in err and "Traceback" not in err


def test_a_unicode_digit_in_a_move_exits_1_naming_the_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = json.loads((EXAMPLES / "zugemauert-two-rounds.json").read_text(encoding="utf-8"))
    rec["rounds"][1]["moves"][0] = "²|4 L"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "round 2, move 1" in err.lower() and "Traceback" not in err
