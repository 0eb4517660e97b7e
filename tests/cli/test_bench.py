"""``domino bench engine`` runs and reports rates (figures are not asserted)."""

import pytest

from domino.cli import main


def test_bench_engine_reports_each_workload(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0.02", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "domino api" in out and "domino kernel" in out
    assert "fuenferfieber 4 Paare" in out
