"""Analyses, replays, record downloads and profile paging on the server (issue 13).

Storage runs on SQLite and, with DOMINO_TEST_POSTGRES, PostgreSQL; the REST tests drive
the app through the harness (a real server for the download's round trip).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from domino.analysis import review
from domino.analysis.review import plan
from domino.cli import main
from domino.rules.record import replay
from domino.server.desks import analysis as desk_module
from domino.server.desks.analysis import Job, Pacer, analyse_match, judged_moves
from domino.server.storage.db import Database

from ..harness import Client, Harness, harness, latest_state, lobby_with_bots, play_out, start

if TYPE_CHECKING:
    from live import LiveServers

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
NO_PG = "PostgreSQL tests skipped: set DOMINO_TEST_POSTGRES (.ci/run does) to run them"
BACKENDS = [
    "sqlite",
    pytest.param(
        "postgres", marks=[pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason=NO_PG)]
    ),
]
SAMPLES = 12
TIMEOUT = 10.0  # a bound on a dead server, never a timing assertion


def _url(backend: str, tmp_path: Path) -> tuple[str, str]:
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite'}", ""
    assert PG_URL is not None
    return PG_URL, f"a{uuid.uuid4().hex[:12]}_"


@pytest.fixture(params=BACKENDS)
async def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[list[Database]]:
    """Two nodes' connections to one database."""
    url, prefix = _url(request.param, tmp_path)
    one = Database(url, prefix)
    await one.create()
    two = Database(url, prefix)
    await two.open()
    try:
        yield [one, two]
    finally:
        await two.close()
        await one.drop()
        await one.close()


# -- the claim --------------------------------------------------------------------------
async def test_one_node_claims_an_analysis_and_a_stale_claim_is_taken_over_once(
    dbs: list[Database],
) -> None:
    a, b = dbs
    # Both nodes ask at once: the row's key lets exactly one insert win.
    got = await asyncio.gather(
        a.claim_analysis("m1", "node-a", 100.0, 7, 50, stale_before=40.0),
        b.claim_analysis("m1", "node-b", 100.0, 7, 50, stale_before=40.0),
    )
    assert sorted(got) == [False, True]
    owner, loser = ("node-a", "node-b") if got[0] else ("node-b", "node-a")
    assert not await a.analysis_progress("m1", loser, 3, 101.0)
    assert await a.analysis_progress("m1", owner, 3, 101.0)
    row = await b.analysis("m1")
    assert row is not None and (row["status"], row["done"], row["total"]) == ("running", 3, 7)
    # Still fresh: nobody takes it over.
    assert not await b.claim_analysis("m1", loser, 120.0, 7, 50, stale_before=60.0)
    # The owner went silent: one of two nodes takes it over, the old owner is out.
    got = await asyncio.gather(
        a.claim_analysis("m1", "node-c", 200.0, 7, 50, stale_before=150.0),
        b.claim_analysis("m1", "node-d", 200.0, 7, 50, stale_before=150.0),
    )
    assert sorted(got) == [False, True]
    new = "node-c" if got[0] else "node-d"
    assert not await a.analysis_progress("m1", owner, 5, 201.0)
    assert not await a.finish_analysis("m1", owner, 201.0, {"stale": True})
    assert await b.finish_analysis("m1", new, 202.0, {"moves": []})
    row = await a.analysis("m1")
    assert row is not None and row["status"] == "done" and row["result"] == {"moves": []}
    # A finished analysis is never claimed again.
    assert not await a.claim_analysis("m1", "node-e", 900.0, 7, 50, stale_before=800.0)


async def test_profile_pages_go_back_in_time_without_gaps_or_repeats(dbs: list[Database]) -> None:
    db = dbs[0]
    await db.create_profile("p1", "Anna", "guest", 0.0)
    seats = [{"name": "Anna", "kind": "human", "player_id": "p1"}, {"name": "B", "kind": "bot"}]
    # Two matches end at the same moment: the match id orders them.
    ends = [10.0, 20.0, 20.0, 30.0, 40.0]
    for i, at in enumerate(ends):
        mid = f"m{i}"
        await db.create_match(mid, None, {"seats": 2}, seats, "s", 1.0, [])
        player = {"seat": 0, "profile_id": "p1", "place": 1, "xp": 10, "won": True}
        await db.finish_match(mid, at, {"standings": []}, {}, [{**player, "finished": True}])
    everything = [r["match_id"] for r in await db.recent("p1", 10)]
    assert everything == ["m4", "m3", "m2", "m1", "m0"]
    page = await db.recent("p1", 2)
    seen = [r["match_id"] for r in page]
    while page:
        last = page[-1]
        page = await db.recent("p1", 2, (last["finished_at"], last["match_id"]))
        seen += [r["match_id"] for r in page]
    assert seen == everything


def test_only_the_humans_own_moves_are_judged_not_the_servers() -> None:
    """A timed-out turn and a stand-in's moves were the server's, not the player's."""
    record = {
        "rounds": [
            {"moves": ["6|2 R", "D", "D", "6|4 L", "P"]},
            {"moves": ["1|1 L", "1|0 R"]},
        ]
    }
    log = [
        {"kind": "start", "payload": {"round": 1}},
        {"kind": "move", "seat": 1, "payload": {"move": "6|2 R"}},
        {"kind": "timeout", "seat": 0, "payload": {"moves": ["D", "D", "6|4 L"]}},
        {"kind": "bot", "seat": 1, "payload": {"move": "P"}},
        {"kind": "round", "payload": {"round": 2}},
        {"kind": "bot", "seat": 0, "payload": {"move": "1|1 L"}},
        {"kind": "back", "seat": 1, "payload": {}},
        {"kind": "move", "seat": 1, "payload": {"move": "1|0 R"}},
        {"kind": "end", "payload": {"reason": "target"}},
    ]
    assert judged_moves(record, log) == {(1, 1), (2, 2)}


# -- over HTTP --------------------------------------------------------------------------
def finished_match(h: Harness, name: str = "Anna", seed: int = 1) -> tuple[Client, str]:
    """A two-seat match to 30 of ``name`` (random moves) against Profi, played out."""
    person = h.person(name)
    lobby_with_bots(person, 2, ["profi"], {"target": 30})
    mid = start(person)["match_id"]
    play_out(h, [person], random.Random(seed))
    final = latest_state(person)
    assert final is not None and final["phase"] == "match_over"
    return person, mid


def error_of(r: httpx.Response | Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["code"] == code and body["message"] and body["message"] != code


def test_an_analysis_is_claimed_computed_once_and_stored(tmp_path: Path) -> None:
    with harness(tmp_path, analysis_samples=SAMPLES) as h:
        _, mid = finished_match(h)
        desk = h.service.analyses
        desk.gate.clear()  # hold the worker so the progress can be read
        first = h.tc.get(f"/api/matches/{mid}/analysis")
        assert first.status_code == 202, first.text
        record = h.tc.get(f"/api/matches/{mid}").json()["record"]
        log = h.tc.portal.call(h.service.db.match_log, mid)
        judged = judged_moves(record, log)
        # Anna's own moves, none of the bot's.
        assert judged and len(judged) < sum(len(r["moves"]) for r in record["rounds"])
        assert first.json() == {"status": "running", "done": 0, "total": len(judged)}
        again = h.tc.get(f"/api/matches/{mid}/analysis")
        assert again.status_code == 202 and again.json()["done"] == 0
        assert list(desk.jobs) == [mid]  # asked twice, queued once
        desk.gate.set()
        h.tc.portal.call(desk.idle)
        done = h.tc.get(f"/api/matches/{mid}/analysis")
        assert done.status_code == 200, done.text
        body = done.json()
        row = h.tc.portal.call(h.service.db.analysis, mid)
        assert row["owner"] == h.service.node and row["done"] == row["total"] == len(judged)
        # Stored: a second request reads the same document and starts nothing.
        assert h.tc.get(f"/api/matches/{mid}/analysis").json() == body
        assert not desk.jobs
    assert body["samples"] == SAMPLES and body["seed"] == mid
    assert {(m["round"], m["move"]) for m in body["moves"]} == judged
    assert {m["seat"] for m in body["moves"]} == {0}
    assert [s["seat"] for s in body["summary"]] == [0]
    # The workers computed what the pure function computes.
    assert body == json.loads(json.dumps(review(record, judged, samples=SAMPLES, seed=mid)))


def test_a_worker_rests_so_that_it_uses_its_share_of_a_core() -> None:
    cpu = [0.0]
    rests: list[float] = []

    def work(seconds: float) -> None:
        cpu[0] += seconds
        pace()

    pace = Pacer(0.25, burst=0.02, cpu=lambda: cpu[0], sleep=rests.append)
    work(0.01)  # less than a burst: no rest yet
    assert rests == []
    work(0.02)  # 30 ms of CPU: 90 ms of rest keeps it at a quarter
    assert rests == [pytest.approx(0.09)]
    work(0.04)
    assert rests[-1] == pytest.approx(0.12)
    assert sum(rests) == pytest.approx(3 * cpu[0])
    whole = Pacer(1.0, cpu=lambda: cpu[0], sleep=rests.append)
    cpu[0] += 5.0
    whole()
    assert len(rests) == 2  # a whole core: never rests


class Board(list[int]):
    """A worker's progress board in this process, remembering what was written where;
    ``stop_after`` writes of progress, it raises the stop flag of ``slot`` as the desk
    does when the claim is lost."""

    def __init__(self, workers: int, stop_after: int | None = None) -> None:
        super().__init__([0] * (2 * workers))
        self.workers = workers
        self.stop_after = stop_after
        self.written: list[tuple[int, int]] = []

    def __setitem__(self, i: Any, v: Any) -> None:
        super().__setitem__(i, v)
        self.written.append((i, v))
        if self.stop_after is not None and len(self.written) == self.stop_after:
            super().__setitem__(self.workers + i, 1)


def test_the_worker_publishes_its_progress_after_each_round_and_stops_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with harness(tmp_path, analysis_samples=SAMPLES) as h:
        _, mid = finished_match(h)
        record = h.tc.get(f"/api/matches/{mid}").json()["record"]
        judged = judged_moves(record, h.tc.portal.call(h.service.db.match_log, mid))
    per_round = plan(judged)
    assert len(per_round) > 1  # several rounds, so several reports
    board = Board(workers=2)
    monkeypatch.setattr(desk_module, "_BOARD", board)
    text = analyse_match(record, judged, SAMPLES, mid, True, 1, 2)
    # Slot 1 only, the moves done after each round; the same document as the pure review.
    totals = [sum(list(per_round.values())[: i + 1]) for i in range(len(per_round))]
    assert board.written == [(1, n) for n in totals] and totals[-1] == len(judged)
    assert text is not None
    pure = review(record, judged, samples=SAMPLES, seed=mid)
    assert json.loads(text) == json.loads(json.dumps(pure))
    # Asked to stop (its claim went to another node): no further round, no document.
    stopping = Board(workers=2, stop_after=1)
    monkeypatch.setattr(desk_module, "_BOARD", stopping)
    assert analyse_match(record, judged, SAMPLES, mid, True, 0, 2) is None
    assert stopping.written == [(0, totals[0])]


def test_the_desk_writes_the_progress_it_reads_and_a_lost_claim_stops_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(desk_module, "PROGRESS_EVERY", 0.01)
    with harness(tmp_path, analysis_samples=SAMPLES, analysis_stale=60.0) as h:
        _, mid = finished_match(h)
        db, desk, node = h.service.db, h.service.analyses, h.service.node
        record = h.tc.get(f"/api/matches/{mid}").json()["record"]
        judged = judged_moves(record, h.tc.portal.call(db.match_log, mid))
        now = h.clock.now()
        assert h.tc.portal.call(db.claim_analysis, mid, node, now, len(judged), SAMPLES, now - 60)
        job = Job(mid, record, judged)
        board = Board(workers=1)

        async def watched_until(done: int) -> None:
            watch = asyncio.create_task(desk._watch(job, board, 0, 1))
            try:
                async with asyncio.timeout(TIMEOUT):
                    while (await db.analysis(mid))["done"] != done:
                        await asyncio.sleep(0.01)
            finally:
                watch.cancel()

        board[0] = 3  # as the worker would after a round
        h.tc.portal.call(watched_until, 3)
        assert job.progress == 3
        # Polls of the node that works on it are answered from what it read last.
        desk.jobs[mid] = job
        r = h.tc.get(f"/api/matches/{mid}/analysis")
        assert r.json() == {"status": "running", "done": 3, "total": len(judged)}
        del desk.jobs[mid]
        # Another node took the claim over: the next write fails and stops the worker.
        assert h.tc.portal.call(db.claim_analysis, mid, "other", now + 61, 9, SAMPLES, now + 1)
        board[0] = 5

        async def stopped() -> None:
            async with asyncio.timeout(TIMEOUT):
                await desk._watch(job, board, 0, 1)

        h.tc.portal.call(stopped)
        assert board[1] == 1
        row = h.tc.portal.call(db.analysis, mid)
        assert row["owner"] == "other" and row["done"] == 0


def test_progress_comes_from_another_nodes_claim_until_it_goes_stale(tmp_path: Path) -> None:
    with harness(tmp_path, analysis_samples=SAMPLES, analysis_stale=60.0) as h:
        _, mid = finished_match(h)
        db, desk = h.service.db, h.service.analyses
        now = h.clock.now()
        assert h.tc.portal.call(db.claim_analysis, mid, "other-node", now, 9, SAMPLES, now - 60)
        assert h.tc.portal.call(db.analysis_progress, mid, "other-node", 4, now)
        r = h.tc.get(f"/api/matches/{mid}/analysis")
        assert r.status_code == 202 and r.json() == {"status": "running", "done": 4, "total": 9}
        assert not desk.jobs  # the other node works on it; this one does not
        h.clock.advance(61.0)  # the other node stopped reporting
        r = h.tc.get(f"/api/matches/{mid}/analysis")
        assert r.status_code == 202 and r.json()["done"] == 0
        assert list(desk.jobs) == [mid]
        h.tc.portal.call(desk.idle)
        assert h.tc.get(f"/api/matches/{mid}/analysis").status_code == 200
        # The old owner's late writes are refused.
        assert not h.tc.portal.call(db.finish_analysis, mid, "other-node", now, {"x": 1})
        assert h.tc.portal.call(db.analysis, mid)["owner"] == h.service.node


def test_a_dead_worker_process_is_replaced_and_the_match_analysed_later(tmp_path: Path) -> None:
    with harness(tmp_path, analysis_samples=SAMPLES, analysis_stale=60.0) as h:
        _, mid = finished_match(h)
        desk = h.service.analyses

        async def kill_the_worker() -> None:
            desk._ensure_started()
            assert desk._pool is not None
            pid = await asyncio.get_running_loop().run_in_executor(desk._pool, os.getpid)
            os.kill(pid, signal.SIGKILL)

        h.tc.portal.call(kill_the_worker)
        assert h.tc.get(f"/api/matches/{mid}/analysis").status_code == 202
        h.tc.portal.call(desk.idle)
        # Not the match's fault: no failure stored, the claim waits to go stale.
        row = h.tc.portal.call(h.service.db.analysis, mid)
        assert row["status"] == "running"
        assert h.tc.get(f"/api/matches/{mid}/analysis").status_code == 202
        h.clock.advance(61.0)
        assert h.tc.get(f"/api/matches/{mid}/analysis").status_code == 202
        h.tc.portal.call(desk.idle)
        assert h.tc.get(f"/api/matches/{mid}/analysis").status_code == 200


KILLED_SERVER = """
import asyncio, os, sys
from domino.server import Settings
from domino.server.desks.analysis import AnalysisDesk
from domino.server.storage.db import Database

async def main() -> None:
    settings = Settings(data_dir=sys.argv[1], analysis_workers=2)
    desk = AnalysisDesk(settings, Database(f"sqlite+aiosqlite:///{sys.argv[1]}/s.db"), "n")
    desk._ensure_started()
    await desk._starting
    print(" ".join(str(pid) for pid in desk._pool._processes), flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _gone(pids: list[int]) -> bool:
    out = True
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                out = out and f.read().split()[2] == "Z"  # a zombie has ended
        except OSError:
            pass
    return out


def _until_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 60  # a bound on a stuck process, not a timing assertion
    while not _gone(pids):
        assert time.monotonic() < deadline, f"still running: {pids}"
        time.sleep(0.05)


def test_the_analysis_processes_end_with_their_server(tmp_path: Path) -> None:
    # A stopped server kills its workers (in the idle class they might not run for long on
    # a busy machine, and the exit would wait for them); a killed one (kill -9) leaves
    # neither its workers nor their forkserver behind, though a pool's workers would
    # otherwise wait for work forever.
    with harness(tmp_path / "stopped", analysis_workers=2) as h:
        desk = h.service.analyses

        async def start() -> list[int]:
            desk._ensure_started()
            assert desk._starting is not None
            await desk._starting
            assert desk._pool is not None
            return list(desk._pool._processes)

        pids = h.tc.portal.call(start)
        assert len(pids) == 2
        h.tc.portal.call(desk.stop)
        _until_gone(pids)

    data = tmp_path / "killed"
    data.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_SERVER, str(data)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        workers = [int(x) for x in proc.stdout.readline().split()]
        assert len(workers) == 2
        with open(f"/proc/{workers[0]}/stat") as f:
            forkserver = int(f.read().split()[3])  # the workers' parent
        assert forkserver != proc.pid
    finally:
        proc.kill()
        proc.wait(10)
    _until_gone([*workers, forkserver])


def test_the_queue_is_bounded(tmp_path: Path) -> None:
    with harness(tmp_path, analysis_samples=SAMPLES, analysis_queue=0) as h:
        _, one = finished_match(h, "Anna", 1)
        _, two = finished_match(h, "Ben", 2)
        desk = h.service.analyses
        desk.gate.clear()
        assert h.tc.get(f"/api/matches/{one}/analysis").status_code == 202
        error_of(h.tc.get(f"/api/matches/{two}/analysis"), 503, "analysis_busy")
        # Refused before claiming: no row stands in another request's way.
        assert h.tc.portal.call(h.service.db.analysis, two) is None
        desk.gate.set()
        h.tc.portal.call(desk.idle)
        assert h.tc.get(f"/api/matches/{two}/analysis").status_code == 202
        h.tc.portal.call(desk.idle)
        assert h.tc.get(f"/api/matches/{two}/analysis").status_code == 200


def test_a_server_without_analysis_workers_says_so(tmp_path: Path) -> None:
    with harness(tmp_path, analysis_workers=0) as h:
        _, mid = finished_match(h)
        error_of(h.tc.get(f"/api/matches/{mid}/analysis"), 503, "analysis_off")
        assert h.tc.portal.call(h.service.db.analysis, mid) is None
        assert h.tc.get(f"/api/matches/{mid}/replay").status_code == 200


def test_running_and_unknown_matches_have_no_replay_record_or_analysis(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        lobby_with_bots(anna, 2, ["profi"])
        mid = start(anna)["match_id"]
        for what in ("analysis", "replay", "record"):
            r = h.tc.get(f"/api/matches/{mid}/{what}")
            code = "analysis_match_running" if what == "analysis" else "replay_match_running"
            error_of(r, 409, code)
            error_of(h.tc.get(f"/api/matches/m_nope/{what}"), 404, "match_not_found")


def test_the_replay_shows_every_hand_and_the_score_sheet(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        _, mid = finished_match(h)
        data = h.tc.get(f"/api/matches/{mid}/replay")
        summary = h.tc.get(f"/api/matches/{mid}").json()
        record = summary["record"]
    assert data.status_code == 200, data.text
    body = data.json()
    assert body["match"] == mid and body["sheet"] == replay(record).to_dict()
    # Each seat's profile (a bot has none), as the match summary names them.
    assert body["players"] == [pl["player"] for pl in summary["players"]]
    assert body["players"][0] and body["players"][1] is None
    assert [len(r["frames"]) for r in body["rounds"]] == [
        len(r["moves"]) + 1 for r in record["rounds"]
    ]
    for rnd, frames in zip(record["rounds"], body["rounds"], strict=True):
        assert [f["event"]["move"] for f in frames["frames"][1:]] == rnd["moves"]
        assert all(len(f["hands"]) == 2 for f in frames["frames"])


def test_profile_pages_over_http(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        pid = anna.profile["id"]
        mids = []
        for i in range(3):
            lobby_with_bots(anna, 2, ["anfaenger"], {"target": 30})
            mids.append(start(anna)["match_id"])
            play_out(h, [anna], random.Random(i))
            anna.request({"type": "leave_lobby"}, "lobby_left")
        auth = {"authorization": f"Bearer {anna.token}"}
        first = h.tc.get(f"/api/profiles/{pid}?limit=2").json()
        assert [m["match"] for m in first["recent"]] == mids[::-1][:2] and first["next"]
        second = h.tc.get(f"/api/me?limit=2&before={first['next']}", headers=auth).json()
        assert [m["match"] for m in second["recent"]] == mids[:1] and second["next"] is None
        assert h.tc.get(f"/api/profiles/{pid}").json()["next"] is None
        error_of(h.tc.get(f"/api/profiles/{pid}?before=yesterday"), 400, "bad_cursor")
        error_of(h.tc.get(f"/api/profiles/{pid}?limit=0"), 400, "bad_limit")
        error_of(h.tc.get(f"/api/profiles/{pid}?limit=51"), 400, "bad_limit")


def test_the_downloaded_record_replays_with_domino_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], live_server: LiveServers
) -> None:
    with harness(tmp_path / "data") as h:
        _, mid = finished_match(h)
    settings = live_server.settings(data_dir=tmp_path / "data")
    url = live_server(settings)
    web = httpx.Client(base_url=url, timeout=TIMEOUT)
    got = web.get(f"/api/matches/{mid}/record")
    sheet = web.get(f"/api/matches/{mid}/replay").json()["sheet"]
    web.close()
    assert got.status_code == 200, got.text
    assert got.headers["content-disposition"] == f'attachment; filename="domino-{mid}.json"'
    assert got.headers["content-type"].startswith("application/json")
    file = tmp_path / f"domino-{mid}.json"
    file.write_bytes(got.content)
    capsys.readouterr()
    assert main(["replay", str(file)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == sheet and out["finished"]


def test_the_replay_marks_the_moves_the_server_made_for_a_player(tmp_path: Path) -> None:
    """An expired clock's moves are the server's: the replay's events say so (``auto``),
    as the live table's did; the player's own moves and the bot seat's do not."""
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        lobby_with_bots(anna, 2, ["profi"], {"target": 30})
        mid = start(anna)["match_id"]

        def timed_out() -> bool:
            return any(e["kind"] == "timeout" for s in anna.states() for e in s["events"])

        play_out(h, [anna], random.Random(5), idle={0}, stop=timed_out)
        play_out(h, [anna], random.Random(5))
        data = h.tc.get(f"/api/matches/{mid}/replay").json()
        record = h.tc.get(f"/api/matches/{mid}").json()["record"]
        log = h.tc.portal.call(h.service.db.match_log, mid)
    timeouts = [e for e in log if e["kind"] == "timeout"]
    assert len(timeouts) == 1 and timeouts[0]["seat"] == 0
    events = [
        (rnd["round"], k, f["event"])
        for rnd in data["rounds"]
        for k, f in enumerate(rnd["frames"])
        if k > 0
    ]
    auto = [(r, k) for r, k, ev in events if ev.get("auto")]
    assert len(auto) == len(timeouts[0]["payload"]["moves"])
    assert all(ev["seat"] == 0 for _, _, ev in events if ev.get("auto"))
    # Anna's own moves are hers, and the analysis judges exactly those.
    own = {(r, k) for r, k, ev in events if ev["seat"] == 0 and not ev.get("auto")}
    assert own and own == judged_moves(record, log)
    assert all(ev.get("auto") is None for _, _, ev in events if ev["seat"] == 1)
