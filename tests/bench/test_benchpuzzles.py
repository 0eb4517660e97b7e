"""``domino bench puzzles`` at a tiny size: it runs and reports its counts (figures are
printed, never asserted)."""

from __future__ import annotations

import re

import pytest

from domino.cli import main


def test_bench_puzzles_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "puzzles", "--matches", "3", "--samples", "16"]) == 0
    text = capsys.readouterr().out
    assert "puzzles from 3 analysed matches to 100 (16 samples" in text
    found = re.search(r"candidates \(Patzer\) (\d+), puzzles (\d+)", text)
    assert found is not None and int(found[1]) >= int(found[2])
    assert [ln.split()[0] for ln in text.splitlines() if "seats:" in ln] == ["2", "3", "4"]
