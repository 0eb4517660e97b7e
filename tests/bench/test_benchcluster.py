"""``domino bench cluster`` and ``domino bench failover``: their reports' structure and
invariants (figures are printed, never asserted: speed is for the benchmark).

The end-to-end runs need PostgreSQL (DOMINO_TEST_POSTGRES), Redis (DOMINO_TEST_REDIS;
the benchmarks start a private ``redis-server`` where one is installed, else use that
one) and ``haproxy``, and skip without them like tests/cluster. The rest runs anywhere.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from domino.cli import main
from domino_bench.benchcluster import Row, parse_configs, summarize
from domino_bench.benchfailover import FailoverReport, Kill, acknowledges, check
from domino_bench.client import ClientConfig, Journal, Player, Sent, Stats
from domino_bench.cluster import haproxy_binary
from domino_bench.infra import redis_server_binary, shared_test_redis

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
REDIS_URL = os.environ.get("DOMINO_TEST_REDIS")


def needs_cluster() -> None:
    if not PG_URL:
        pytest.skip("the cluster benchmarks need PostgreSQL: set DOMINO_TEST_POSTGRES")
    if not REDIS_URL:
        pytest.skip("the cluster benchmarks need Redis: set DOMINO_TEST_REDIS")
    if haproxy_binary() is None:
        pytest.skip("the cluster benchmarks need haproxy: make test installs Debian's")


def redis_args() -> list[str]:
    """A private redis-server where installed (exact counts, nothing left behind)."""
    if redis_server_binary():
        return []
    assert REDIS_URL is not None
    return ["--redis", shared_test_redis(REDIS_URL)]  # database 13, an ACL user


# -- bench cluster ---------------------------------------------------------------------


def test_configurations_are_single_or_node_counts() -> None:
    assert parse_configs("single, 1,3") == ["single", "1", "3"]
    for bad in ("", "two", "0", "single,10"):
        with pytest.raises(ValueError):
            parse_configs(bad)


def test_bench_cluster_refuses_bad_input_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "cluster", "--configs", "single,four"]) == 2
    assert "'four'" in capsys.readouterr().err
    assert main(["bench", "cluster", "--configs", "2", "--db", ""]) == 2
    assert "PostgreSQL" in capsys.readouterr().err


def row(config: str, rnd: int, step: int, nodes_ms: float, p99: float, errors: int = 0) -> Row:
    return Row(config, rnd, step, step, step, 1.0, 1.0, 1.0, p99, 10.0, errors, nodes_ms=nodes_ms)


def test_the_summary_takes_medians_ratios_at_the_same_step_and_knees() -> None:
    rows = [
        row("single", 0, 100, 1.0, 20.0),
        row("single", 1, 100, 3.0, 30.0),
        row("single", 0, 400, 1.0, 50.0),
        row("single", 1, 400, 1.0, 150.0),  # one round over 100 ms: not clean
        row("2 nodes", 0, 100, 2.4, 40.0),
        row("2 nodes", 1, 100, 2.4, 40.0),
        row("2 nodes", 0, 400, 1.1, 60.0, errors=0),
        row("2 nodes", 1, 400, 1.3, 70.0),
    ]
    s = summarize(rows, ["single", "2"], [100, 400])
    single, two = s["configs"]["single"], s["configs"]["2 nodes"]
    assert single["steps"][0]["nodes_ms"] == 2.0  # median of 1 and 3
    assert two["steps"][0]["nodes_ms_ratio"] == pytest.approx(1.2)
    assert two["steps"][0]["within_target"] is True
    assert two["steps"][1]["nodes_ms_ratio"] == pytest.approx(1.2)
    assert single["knee"] == 100 and two["knee"] == 400


def test_bench_cluster_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_cluster()
    out = tmp_path / "cluster.json"
    args = ["bench", "cluster", "--configs", "single,2", "--steps", "6", "--warmup", "1"]
    args += ["--window", "4", "--delay", "0.2", "--check-inter", "100ms", "--json", str(out)]
    assert main([*args, "--db", str(PG_URL), *redis_args()]) == 0
    text = capsys.readouterr().out
    assert "knee single" in text and "knee 2 nodes" in text
    doc = json.loads(out.read_text())
    rows = {r["config"]: r for r in doc["rows"]}
    assert set(rows) == {"single", "2 nodes"}
    for r in rows.values():
        assert r["clients"] == 6 and r["matches"] == 6 and r["errors"] == 0
        assert r["cmds_per_s"] > 0 and r["p99"] is not None and r["nodes_ms"] > 0
    single, two = rows["single"], rows["2 nodes"]
    # The single process has no HAProxy, Redis or PostgreSQL; the cluster all three.
    assert single["haproxy_ms"] is None and single["redis_cmds"] is None
    assert single["all_ms"] == single["nodes_ms"]
    assert two["haproxy_ms"] is not None and two["pg_ms"] is not None
    assert two["redis_ms"] is not None and two["redis_cmds"] > 0
    assert two["all_ms"] >= two["nodes_ms"]
    step = doc["summary"]["configs"]["2 nodes"]["steps"][0]
    assert step["nodes_ms_ratio"] == pytest.approx(two["nodes_ms"] / single["nodes_ms"])


# -- bench failover --------------------------------------------------------------------


def player(seat: int = 0, pending_v: int | None = None) -> Player:
    import random

    p = Player("P", ClientConfig("http://127.0.0.1:1"), Stats(), random.Random(1))
    p.seat = seat
    if pending_v is not None:
        p.pending["m1"] = Sent("m1", "m_x", seat, pending_v, "6|6 L", 0.0)
    return p


def test_a_newer_state_acknowledges_a_move_only_if_it_shows_it() -> None:
    p = player(seat=0, pending_v=7)
    play = {"kind": "play", "seat": 0, "tile": "6|6", "end": "L"}
    assert acknowledges({"events": [play]}, 0, 8, p)
    assert acknowledges({"events": []}, 0, 7, p)  # not newer: nothing to acknowledge
    assert not acknowledges({"events": [{"kind": "connected", "seat": 0}]}, 0, 8, p)
    assert not acknowledges({"events": [{"kind": "timeout", "seat": 0}, play]}, 0, 9, p)
    assert not acknowledges({"events": [{**play, "seat": 1}]}, 0, 8, p)


class FakeStore:
    def __init__(self, logs: dict[str, list[dict[str, Any]]]) -> None:
        self.logs = logs

    async def load(self, mid: str) -> list[dict[str, Any]]:
        return self.logs.get(mid, [])


def entry(v: int, kind: str, seat: int | None = None, move: str | None = None) -> dict[str, Any]:
    e: dict[str, Any] = {"v": v, "kind": kind, "seat": seat, "payload": {}}
    if move is not None:
        e["payload"] = {"move": move}
    return e


def test_the_check_finds_lost_and_unexplained_moves() -> None:
    log = [
        entry(1, "start"),
        entry(2, "move", 0, "6|6 L"),  # answered the command made on v1
        entry(3, "bot_move", 1, "6|5 R"),
        entry(4, "back", 0),  # the command made on v3 ended a stand-in first
        entry(5, "move", 0, "5|5 L"),
        entry(6, "timeout", 0),
        entry(7, "move", 0, "4|4 L"),  # nobody sent this: applied without a command
    ]
    j = Journal(matches={"m_x"})
    j.sent = [
        Sent("a", "m_x", 0, 1, "6|6 L", 0.0),
        Sent("b", "m_x", 0, 3, "5|5 L", 0.0),
        Sent("c", "m_x", 0, 5, "3|3 L", 0.0),  # acknowledged, but v6 is a timeout: lost
    ]
    j.acked = {"a", "b", "c"}
    report = FailoverReport()
    asyncio.run(check(FakeStore({"m_x": log}), j, report))
    assert report.acknowledged == 3 and report.moves_logged == 3
    assert len(report.lost) == 1 and "v5" in report.lost[0]
    assert len(report.unexplained) == 1 and "v7" in report.unexplained[0]
    assert not report.ok


def test_the_failover_summary() -> None:
    r = FailoverReport(kills=[Kill(1, 3, 2.0, [1.0, 1.5, 2.0]), Kill(2, 2, 4.0, [3.0, 4.0])])
    s = r.summary()
    assert s["kills"] == 2 and s["matches_taken_over"] == 5 and s["unserved"] == 0
    assert s["per_kill"]["max"] == 4.0 and s["per_match"]["n"] == 5
    assert s["within_target"] is True and r.ok
    r.kills.append(Kill(3, 1, None, [], unserved=1))
    assert not r.ok and r.summary()["within_target"] is False
    assert "MISSED" in "\n".join(r.lines())


def test_bench_failover_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_cluster()
    out = tmp_path / "failover.json"
    args = ["bench", "failover", "--kills", "2", "--nodes", "2", "--groups", "4"]
    args += ["--gap", "1,2", "--delay", "0.2", "--jitter", "0.2", "--check-inter", "100ms"]
    args += ["--seed", "7", "--json", str(out), "--db", str(PG_URL), *redis_args()]
    code = main(args)
    text = capsys.readouterr().out
    assert code == 0, text
    doc = json.loads(out.read_text())
    s = doc["summary"]
    assert s["kills"] == 2 and s["matches_taken_over"] >= 2
    assert s["unserved"] == 0 and s["per_kill"]["n"] == 2
    assert s["lost"] == 0 and s["unexplained"] == 0 and s["acknowledged"] > 0
    assert "commands lost:           0" in text and text.rstrip().endswith("OK")
