"""``domino bench server`` end to end at a tiny size: it runs, reports, and plots.

Figures are printed, never asserted (speed is for the benchmark, not for tests).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from domino.cli import main
from domino_bench.bench import Row, knee, percentile
from domino_bench.benchanalysis import paired_ratios


def test_bench_server_runs_a_small_ramp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json = tmp_path / "rows.json"
    args = ["bench", "server", "--steps", "8", "--warmup", "0.5", "--window", "3"]
    args += ["--delay", "0.05", "--json", str(out_json), "--plot", str(tmp_path / "p.png")]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "clients" in text and "p99 ms" in text and "knee" in text
    rows = json.loads(out_json.read_text())["rows"]
    assert rows[0]["clients"] == 8 and rows[0]["seated"] == 2
    # At 0.05 s a move, a table may be between two matches when measured: seated, not live.
    assert rows[0]["matches"] <= 2 and "not all connected" not in text
    assert rows[0]["cmds_per_s"] > 0 and rows[0]["p99"] is not None
    assert (tmp_path / "p.png").stat().st_size > 1000


def row(clients: int, p99: float | None, errors: int = 0) -> Row:
    return Row(clients, clients // 4, 1.0, 1.0, 1.0, p99, 1.0, 1.0, errors, 1.0, 1.0)


def test_the_knee_is_the_largest_clean_step_under_100_ms() -> None:
    rows = [row(100, 20.0), row(400, 60.0), row(1000, 90.0, errors=1), row(2000, 150.0)]
    k = knee(rows)
    assert k is not None and k.clients == 400
    assert knee([row(100, 120.0)]) is None


def test_percentile_by_nearest_rank() -> None:
    values = [float(x) for x in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([], 0.5) is None


def test_bench_analysis_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    # 12 matches: one starts the workers, two measure the server's share, nine are left;
    # a viewer polls every 0.5 s, so a 2 s window analyses at most four of them.
    args = ["bench", "analysis", "--matches", "12", "--samples", "4", "--clients", "8"]
    args += ["--warmup", "0.5", "--window", "2", "--pairs", "2", "--delay", "0.05"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "analysis CPU per 4-seat match to 100 (12 matches, 4 samples" in text
    rows = [ln.split()[0] for ln in text.splitlines() if ln.split()[:1] in (["off"], ["on"])]
    assert rows == ["off", "on", "on", "off"]  # the second pair in reverse order


def test_bench_analysis_compares_the_windows_of_each_pair() -> None:
    def w(p99: float | None) -> SimpleNamespace:
        return SimpleNamespace(p99=p99)

    rows = [("off", w(10.0), 0), ("on", w(11.0), 3), ("on", w(9.0), 2), ("off", w(12.0), 0)]
    rows += [("off", w(None), 0), ("on", w(5.0), 1)]  # a window without commands
    assert paired_ratios(rows, "p99") == [1.1, 0.75]


def test_bench_router_compares_both_clients(capsys: pytest.CaptureFixture[str]) -> None:
    """``domino bench router`` at a tiny size against the test Redis (database 13, an ACL
    user): both clients carry every frame through the router, and the ratio is printed."""
    import os

    from domino_bench.infra import shared_test_redis

    admin = os.environ.get("DOMINO_TEST_REDIS")
    if not admin:
        pytest.skip("needs Redis: set DOMINO_TEST_REDIS (.ci/run does)")
    args = ["bench", "router", "--messages", "300", "--rounds", "1"]
    assert main([*args, "--redis", shared_test_redis(admin)]) == 0
    text = capsys.readouterr().out
    lines = {line.split()[0]: line for line in text.splitlines() if line.strip()}
    assert "resp" in lines and "redis-py" in lines
    assert "redis-py / resp CPU per message:" in text


def test_bench_hint_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    # Windows longer than the pause after a round (6 s), so each asker has turns in
    # the "on" window wherever its game stands.
    args = ["bench", "hint", "--positions", "4", "--clients", "8", "--askers", "3"]
    args += ["--warmup", "2", "--window", "8", "--pairs", "1", "--delay", "0.05"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "hint CPU (4 views" in text and "p99" in text
    assert "hints with 3 askers:" in text
    asked = text.split("hints with 3 askers:")[1].splitlines()[0]
    assert "'asked'" in asked and "'answered'" in asked
