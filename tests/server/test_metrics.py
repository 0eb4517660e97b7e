"""``/metrics`` in Prometheus' format, and the structured log lines."""

from __future__ import annotations

import json
import logging
import random
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.parser import text_string_to_metric_families

from domino.server.metrics import LATENCY_BUCKETS, JsonLines, LoopHistogram, Metrics, Text
from domino.server.run import free_port

from .harness import Harness, answered, harness, lobby_with_bots, start

if TYPE_CHECKING:
    from live import LiveServers


def scrape(h: Harness) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = h.tc.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_metrics_count_sockets_matches_commands_and_latency(h: Harness) -> None:
    before = scrape(h)
    assert before[("domino_sockets", ())] == 0
    assert before[("domino_matches_owned", ())] == 0
    assert ("domino_commands_total", (("kind", "move"), ("result", "ok"))) not in before

    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 2, [], joiners=(ben,))
    st = start(anna)
    h.settle()
    m = scrape(h)
    assert m[("domino_sockets", ())] == 2
    assert m[("domino_matches_owned", ())] == 1
    assert m[("domino_lobbies", ())] == 1

    # One accepted move and one refused (a stale version) from whoever is to play.
    mid = st["match_id"]
    table = h.service.runners[mid].table
    assert table.match is not None
    turn = table.match.round.turn
    player = {0: anna, 1: ben}[turn]
    player.drain()
    v = table.version
    legal = table.snapshot(turn, h.service.clock.now())["view"]["legal"]
    player.send({"type": "move", "match": mid, "move": legal[0], "v": v})
    assert player.recv_until(answered(v))["type"] == "state"
    player.expect_error({"type": "move", "match": mid, "move": legal[0], "v": v}, "stale_version")
    h.settle()

    m = scrape(h)
    ok = ("domino_commands_total", (("kind", "move"), ("result", "ok")))
    refused = ("domino_commands_total", (("kind", "move"), ("result", "refused")))
    assert m[ok] == 1 and m[refused] == 1
    assert m[("domino_command_seconds_count", ())] == 2
    assert m[("domino_command_seconds_sum", ())] > 0
    # The move was appended and timed (the start is stored with the match itself).
    assert m[("domino_append_seconds_count", ())] >= 1
    seat_msgs = m[("domino_router_messages_total", (("audience", "seat"),))]
    assert seat_msgs >= 2 * m[("domino_append_seconds_count", ())]  # both humans hear each
    assert m[("domino_lease_takeovers_total", ())] == 0

    anna.close()
    h.settle()
    assert scrape(h)[("domino_sockets", ())] == 1


def test_the_loops_histogram_exports_what_the_librarys_would() -> None:
    """The command and append histograms are plain numbers (no lock per update); their
    exposition is the library's histogram's, every bound hit exactly included."""
    rng = random.Random(7)
    values = [*LATENCY_BUCKETS, 0.0, 9.0, *(rng.uniform(0, 6) ** 3 / 20 for _ in range(500))]
    ours = LoopHistogram(LATENCY_BUCKETS)
    registry = CollectorRegistry()
    theirs = Histogram("x", "x", buckets=LATENCY_BUCKETS, registry=registry)
    for v in values:
        ours.observe(v)
        theirs.observe(v)
    want = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in registry.collect()
        for s in f.samples
        if not s.name.endswith("_created")
    }
    got = {
        (s.name, tuple(sorted(s.labels.items()))): s.value for s in ours.family("x", "x").samples
    }
    assert got.keys() == want.keys() and len(got) == len(LATENCY_BUCKETS) + 3
    for k, v in want.items():
        assert got[k] == pytest.approx(v), k


def test_metrics_are_not_in_the_api_schema(h: Harness) -> None:
    assert "/metrics" not in h.tc.get("/api/openapi.json").json()["paths"]


def _record(**extra: object) -> logging.LogRecord:
    rec = logging.getLogger("domino.server").makeRecord(
        "domino.server", logging.INFO, __file__, 1, "match %s started", ("m-1",), None
    )
    for k, v in extra.items():
        setattr(rec, k, v)
    return rec


def test_a_json_log_line_is_one_object_with_the_event_and_its_fields() -> None:
    line = JsonLines(node="n1").format(_record(event="match_started", match="m-1", seats=4))
    assert "\n" not in line
    obj = json.loads(line)
    assert obj["event"] == "match_started" and obj["msg"] == "match m-1 started"
    assert (obj["node"], obj["match"], obj["seats"], obj["level"]) == ("n1", "m-1", 4, "info")
    assert obj["logger"] == "domino.server" and isinstance(obj["ts"], float)


def test_an_exception_stays_on_one_line() -> None:
    try:
        raise ValueError("boom\nsecond line")
    except ValueError:
        rec = _record(event="match_stopped")
        rec.exc_info = sys.exc_info()
    line = JsonLines().format(rec)
    assert "\n" not in line
    obj = json.loads(line)
    assert "ValueError: boom" in obj["exc"] and "node" not in obj
    text = Text().format(rec)
    assert "match m-1 started" in text and "ValueError" in text


def test_an_access_log_line_has_its_request_as_fields() -> None:
    rec = logging.getLogger("uvicorn.access").makeRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/api/health", "1.1", 200),
        None,
    )
    obj = json.loads(JsonLines().format(rec))
    assert obj["event"] == "http" and (obj["method"], obj["path"], obj["status"]) == (
        "GET",
        "/api/health",
        200,
    )


def test_metrics_carry_the_process_python_and_drain_figures(h: Harness) -> None:
    m = scrape(h)
    assert m[("domino_draining", ())] == 0 and m[("domino_leases_held", ())] == 0
    assert m[("process_open_fds", ())] > 0 and m[("process_resident_memory_bytes", ())] > 0
    assert any(name == "python_info" for name, _ in m)
    assert any(name.startswith("python_gc_") for name, _ in m)
    assert not any(name.startswith("domino_redis") for name, _ in m)  # no Redis here
    h.service.draining = True
    assert scrape(h)[("domino_draining", ())] == 1


def test_a_clusters_node_reports_redis_and_its_router_queue() -> None:
    class Router:  # what the metrics read of RedisRouter
        healthy = True
        backlog = 3
        dropped = 0

    router = Router()
    metrics = Metrics(
        sockets=lambda: 0, matches=lambda: 0, lobbies=lambda: 0, leases=lambda: 2, router=router
    )

    def read() -> dict[str, float]:
        families = text_string_to_metric_families(metrics.render().decode())
        return {s.name: s.value for f in families for s in f.samples if not s.labels}

    m = read()
    assert m["domino_redis_up"] == 1 and m["domino_router_backlog"] == 3
    assert m["domino_router_dropped_total"] == 0 and m["domino_leases_held"] == 2
    router.healthy, router.dropped = False, 41
    m = read()
    assert m["domino_redis_up"] == 0 and m["domino_router_dropped_total"] == 41


def test_a_metrics_token_is_required_when_set(tmp_path: Path) -> None:
    with harness(tmp_path, metrics_token="s3cret") as h:
        for headers in ({}, {"authorization": "Bearer falsch"}, {"authorization": "s3cret"}):
            r = h.tc.get("/metrics", headers=headers)
            assert r.status_code == 401, headers
            assert r.json()["error"]["code"] == "metrics_token"
            assert "Token" in r.json()["error"]["message"]
        r = h.tc.get("/metrics", headers={"authorization": "Bearer s3cret"})
        assert r.status_code == 200 and "domino_sockets" in r.text


def test_metrics_on_an_address_of_their_own(tmp_path: Path, live_server: LiveServers) -> None:
    own = f"127.0.0.1:{free_port()}"
    settings = live_server.settings(data_dir=tmp_path, metrics_listen=own)
    url = live_server(settings)
    assert httpx.get(f"{url}/metrics", timeout=10).status_code == 404
    r = httpx.get(f"http://{own}/metrics", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    names = {f.name for f in text_string_to_metric_families(r.text)}
    assert {"domino_sockets", "process_cpu_seconds"} <= names
    assert httpx.get(f"http://{own}/api/health", timeout=10).status_code == 404
    host, port = own.split(":")
    with socket.create_connection((host, int(port))) as raw:
        raw.sendall(b"\r\n\r\n")
        assert raw.recv(100).startswith(b"HTTP/1.1 400")


def test_metrics_on_an_address_of_their_own_ask_for_the_token_too(
    tmp_path: Path, live_server: LiveServers
) -> None:
    """--metrics-listen with --metrics-token: the scraper's address needs the token as well."""
    own = f"127.0.0.1:{free_port()}"
    settings = live_server.settings(data_dir=tmp_path, metrics_listen=own, metrics_token="s3cret")
    url = live_server(settings)
    assert httpx.get(f"{url}/metrics", timeout=10).status_code == 404
    for headers in ({}, {"authorization": "Bearer falsch"}, {"authorization": "s3cret"}):
        r = httpx.get(f"http://{own}/metrics", headers=headers, timeout=10)
        assert r.status_code == 401, headers
    bearer = {"authorization": "Bearer s3cret"}
    r = httpx.get(f"http://{own}/metrics", headers=bearer, timeout=10)
    assert r.status_code == 200 and "domino_sockets" in r.text
