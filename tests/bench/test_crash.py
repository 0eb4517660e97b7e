"""The short crash test of ``make test``: one SIGKILL under load, nothing lost.

The full version (five kills and more) is ``make crash`` / ``domino bench crash``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from domino_bench.crash import run_crash
from domino_bench.launcher import ServerProcess


async def test_one_kill_loses_no_acknowledged_command(tmp_path: Path) -> None:
    report = await run_crash(
        kills=1,
        groups=6,
        delay=0.02,
        data=tmp_path / "data",
        seed=20261202,
        gap=(1.5, 2.5),
        log=tmp_path / "server.log",
        say=lambda *_: None,
    )
    summary = "\n".join(report.lines())
    assert report.kills == 1, summary
    # The check had something to check: moves acknowledged, matches finished.
    assert report.acknowledged > 20 and report.matches >= 6, summary
    assert report.moves_logged >= report.acknowledged, summary
    assert report.lost == [], summary
    assert report.unexplained == [], summary
    assert report.unfinished == [], summary
    assert report.replay_mismatch == [] and report.xp_mismatch == [], summary


def _until(ws: ClientConnection, *kinds: str) -> dict[str, Any]:
    for _ in range(100):
        msg: dict[str, Any] = json.loads(ws.recv(timeout=20))
        if msg["type"] in kinds:
            return msg
    raise AssertionError(f"none of {kinds} among 100 messages")


def test_a_kill_between_match_and_lobby_commits_never_gives_a_second_match(
    tmp_path: Path,
) -> None:
    """The state a SIGKILL leaves between storing a match and storing its lobby as
    playing: after the restart a repeated ``start`` must not seat the same people
    in a second running match (found by ``domino bench crash`` as extra XP)."""
    server = ServerProcess(tmp_path / "data", log=tmp_path / "server.log")
    server.start()
    try:
        tokens = []
        for name in ("A", "B"):
            r = httpx.post(server.url + "/api/guest", json={"name": name}, timeout=20)
            tokens.append(r.json()["token"])
        with connect(server.ws_url) as a, connect(server.ws_url) as b:
            for ws, token in ((a, tokens[0]), (b, tokens[1])):
                ws.send(json.dumps({"type": "hello", "token": token}))
                _until(ws, "welcome")
            a.send(json.dumps({"type": "create_lobby", "seats": 2}))
            code = _until(a, "lobby")["lobby"]["code"]
            b.send(json.dumps({"type": "join_lobby", "code": code}))
            _until(b, "lobby")
            a.send(json.dumps({"type": "start"}))
            _until(a, "match_started")
        server.kill()
        db = server.data / "domino.sqlite"
        with sqlite3.connect(db) as con:
            (raw,) = con.execute("SELECT data FROM lobbies WHERE code = ?", (code,)).fetchone()
            lobby = {**json.loads(raw), "status": "open", "match": None}
            con.execute(
                "UPDATE lobbies SET status = 'open', data = ? WHERE code = ?",
                (json.dumps(lobby), code),
            )
        server.start()
        with connect(server.ws_url) as a:
            a.send(json.dumps({"type": "hello", "token": tokens[0]}))
            assert _until(a, "welcome")["match"] is not None  # the first match resumed
            a.send(json.dumps({"type": "start"}))
            a.send(json.dumps({"type": "ping"}))
            answer = _until(a, "match_started", "error", "pong")
    finally:
        server.stop()
    with sqlite3.connect(db) as con:
        running = con.execute("SELECT id FROM matches WHERE status = 'running'").fetchall()
    assert answer["type"] != "match_started" and len(running) == 1, (answer, running)
