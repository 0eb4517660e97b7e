"""Nothing lost: matches resume from the database after a restart, also after kill -9."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from domino.server import FakeClock
from domino.server.run import free_port

from .harness import FAST, answered, harness, latest_state, lobby_with_bots, play_out, start


def test_a_restarted_server_resumes_the_match_where_it_was(tmp_path: Path) -> None:
    clock = FakeClock()
    rng = random.Random(7)
    with harness(tmp_path, clock=clock) as h1:
        anna, ben = h1.person("Anna"), h1.person("Ben")
        lobby_with_bots(anna, 3, ["profi"], {"target": 30}, joiners=(ben,))
        start(anna)
        # Play until it is Anna's turn in round 1 with some history.
        for _ in range(200):
            h1.settle()
            anna.drain()
            ben.drain()
            st = latest_state(anna)
            assert st is not None
            if st["view"]["turn"] == 0 and st["v"] > 4:
                break
            b = latest_state(ben)
            if b is not None and b["view"]["legal"]:
                ben.send(
                    {
                        "type": "move",
                        "match": b["match_id"],
                        "move": rng.choice(b["view"]["legal"]),
                        "v": b["v"],
                    }
                )
                ben.recv_until(answered(b["v"]))
                continue
            if st["view"]["legal"]:
                anna.send(
                    {
                        "type": "move",
                        "match": st["match_id"],
                        "move": rng.choice(st["view"]["legal"]),
                        "v": st["v"],
                    }
                )
                anna.recv_until(answered(st["v"]))
                continue
            assert h1.step()
        before = latest_state(anna)
        assert before is not None and before["view"]["turn"] == 0
        clock.advance(5.0)  # 5 of Anna's seconds pass before the server stops
        tokens = (anna.token, ben.token)
    clock.advance(100.0)  # the server is down for a while
    with harness(tmp_path, clock=clock) as h2:
        anna = h2.connect(tokens[0], "Anna")
        welcome = json.loads(anna.frames[-1])
        assert welcome["match"] == {"match": before["match_id"], "seat": 0}
        snap = anna.recv_type("state")
        assert snap["v"] == before["v"]
        assert snap["view"]["hand"] == before["view"]["hand"]
        assert snap["view"]["line"] == before["view"]["line"]
        assert snap["view"]["scores"] == before["view"]["scores"]
        # The clock: what was left at the last stored entry, plus the grace period.
        left_before = before["clock"]["remaining_ms"]
        assert snap["clock"]["remaining_ms"] == left_before + int(FAST.grace * 1000)
        # Ben is away until he reconnects; then both play the match to its end.
        assert not snap["seats"][1]["connected"]
        ben = h2.connect(tokens[1], "Ben")
        assert ben.recv_type("state")["you"] == 1
        play_out(h2, [anna, ben], rng)
        assert latest_state(anna)["phase"] == "match_over"  # type: ignore[index]


def test_an_unstored_entry_is_never_announced(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        lobby_with_bots(anna, 2, ["anfaenger"])
        st = start(anna)
        while not st["view"]["legal"]:
            assert h.step()
            anna.drain()
            st = latest_state(anna) or st
        db = h.service.db
        real = db.append

        async def broken(*args: Any, **kw: Any) -> None:
            raise OSError("disk full")

        db.append = broken  # type: ignore[method-assign]
        move = st["view"]["legal"][0]
        err = anna.expect_error(
            {"type": "move", "match": st["match_id"], "move": move, "v": st["v"]},
            "not_stored",
        )
        assert err["v"] == st["v"]
        assert all(s["v"] <= st["v"] for s in anna.states())
        db.append = real  # type: ignore[method-assign]
        again = anna.request(
            {"type": "move", "match": st["match_id"], "move": move, "v": st["v"]}, "state"
        )
        assert again["v"] == st["v"] + 1


# -- a real process, killed with SIGKILL --------------------------------------------------
def _serve(data: Path, port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from domino.cli import main; sys.exit(main())",
            "serve",
            "--port",
            str(port),
            "--data",
            str(data),
            "--bot-delay",
            "0.01,0.02",
            "--round-pause",
            "0.05",
            "--log-level",
            "info",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    url_shown = False
    for line in proc.stdout:  # blocks until the server says it is up
        url_shown = url_shown or f"läuft auf http://127.0.0.1:{port}/" in line
        if "Uvicorn running on" in line:
            assert url_shown, "domino serve prints the address to open"
            return proc
    raise AssertionError("the server did not start")


def _recv_state(ws: Any, pred: Any) -> dict[str, Any]:
    while True:
        m = json.loads(ws.recv(timeout=30))
        if m["type"] == "state" and pred(m):
            return m


def test_kill_9_loses_nothing(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _serve(tmp_path, port)
    try:
        token = httpx.post(f"{base}/api/guest", json={"name": "Anna"}).json()["token"]
        with connect(f"ws://127.0.0.1:{port}/ws", origin=base) as ws:  # type: ignore[arg-type]
            ws.send(json.dumps({"type": "hello", "token": token}))
            ws.send(json.dumps({"type": "create_lobby", "seats": 4}))
            for seat in (1, 2, 3):
                ws.send(json.dumps({"type": "add_bot", "seat": seat, "level": "profi"}))
            ws.send(json.dumps({"type": "start"}))
            st = _recv_state(ws, lambda m: True)
            rng = random.Random(3)
            moves = 0
            while moves < 4:
                st = _recv_state(
                    ws, lambda m: bool(m["view"]["legal"]) or m["phase"] == "match_over"
                )
                if st["phase"] == "match_over":
                    break
                moves += 1
                ws.send(
                    json.dumps(
                        {
                            "type": "move",
                            "match": st["match_id"],
                            "move": rng.choice(st["view"]["legal"]),
                            "v": st["v"],
                        }
                    )
                )
            seen = _recv_state(ws, lambda m: bool(m["view"]["legal"]))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc = _serve(tmp_path, port)
        with connect(f"ws://127.0.0.1:{port}/ws", origin=base) as ws:  # type: ignore[arg-type]
            ws.send(json.dumps({"type": "hello", "token": token}))
            welcome = json.loads(ws.recv(timeout=30))
            assert welcome["match"]["match"] == seen["match_id"]
            snap = _recv_state(ws, lambda m: True)
            # It was Anna's turn: nothing could happen after what she saw.
            assert snap["v"] == seen["v"]
            assert snap["view"]["hand"] == seen["view"]["hand"]
            assert snap["view"]["line"] == seen["view"]["line"]
            assert snap["view"]["legal"] == seen["view"]["legal"]
    finally:
        proc.kill()
        proc.wait()
