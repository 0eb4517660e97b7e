"""``domino bench leaderboard`` at a tiny size on PostgreSQL: it runs and reports, and
refuses SQLite. Figures are printed, never asserted."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from domino.cli import main

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")


@pytest.mark.skipif(not PG_URL, reason="needs DOMINO_TEST_POSTGRES (.ci/run gives it)")
def test_bench_leaderboard_runs_small() -> None:
    # Its own process: the bench runs its own event loop (asyncio.run), as from a shell.
    args = ["bench", "leaderboard", "--profiles", "400", "--requests", "30", "--target", "1e9"]
    done = subprocess.run(
        [sys.executable, "-m", "domino.cli", *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "400 rated profiles" in out and "p99" in out and "CPU per request" in out


def test_bench_leaderboard_needs_postgresql(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "leaderboard", "--db", "sqlite+aiosqlite:///x.sqlite"]) == 2
    assert "PostgreSQL" in capsys.readouterr().out
