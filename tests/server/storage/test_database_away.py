"""PostgreSQL away: what players see, what the balancer sees, and that service resumes.

The node reaches the machine's PostgreSQL (DOMINO_TEST_POSTGRES) through a TCP relay
on 127.0.0.1 that the test cuts (every open connection reset, new ones closed at
once) and restores. While it is cut a move cannot be stored: it is refused with
``not_stored`` (German, in the catalogue) and nothing is acknowledged; REST answers
503 ``database_unavailable``, a ``hello`` gets that error and the close 1013, and
``/api/health`` answers 503 naming the database. Once the database is back the same
requests are served, with no restart.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domino.i18n import t
from domino.server.storage.db import Database
from domino.server.storage.outage import PROBE_TTL
from domino_bench.relay import Relay

from ..harness import Client, Closed, Harness, latest_state, lobby_with_bots, start

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
AWAY_REDIS = "redis://127.0.0.1:1/0"


@pytest.fixture
def relayed() -> Iterator[tuple[Relay, str, str]]:
    """A relay to the machine's PostgreSQL, the URL through it, a table prefix."""
    if not PG_URL:
        pytest.skip("needs PostgreSQL: set DOMINO_TEST_POSTGRES (.ci/run does)")
    from sqlalchemy.engine import make_url

    url = make_url(PG_URL)
    relay = Relay(url.host or "127.0.0.1", url.port or 5432)
    prefix = f"away{secrets.token_hex(3)}_"
    via = url.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False)
    yield relay, via, prefix
    relay.close()

    async def drop() -> None:
        db = Database(str(PG_URL), prefix)
        try:
            await db.drop()
        finally:
            await db.close()

    asyncio.run(drop())


def test_a_move_while_the_database_is_away_is_refused_and_play_resumes_after(
    tmp_path: Path, relayed: tuple[Relay, str, str]
) -> None:
    relay, url, prefix = relayed
    h = Harness(tmp_path, db_url=url, table_prefix=prefix, migrate=True)
    try:
        anna = h.person("Anna")
        lobby_with_bots(anna, 2, ["anfaenger"])
        st = start(anna)
        while not st["view"]["legal"]:
            assert h.step()
            anna.drain()
            st = latest_state(anna) or st
        mid, move, v = st["match_id"], st["view"]["legal"][0], st["v"]
        stored = len(h.tc.portal.call(h.service.db.load, mid))

        relay.cut()
        err = anna.expect_error({"type": "move", "match": mid, "move": move, "v": v}, "not_stored")
        assert err["message"] == t("not_stored") and err["v"] == v
        assert all(s["v"] <= v for s in anna.states())  # nothing acknowledged

        relay.restore()  # the database is back: the same move, no restart
        again = anna.request({"type": "move", "match": mid, "move": move, "v": v}, "state")
        assert again["v"] == v + 1
        log = h.tc.portal.call(h.service.db.load, mid)
        assert len(log) == stored + 1
    finally:
        h.close()


def _unavailable(r: Any) -> None:
    """A REST answer while the database is away: 503 with the German error."""
    assert r.status_code == 503, (r.request.url, r.status_code, r.text)
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {
        "error": {"code": "database_unavailable", "message": t("database_unavailable")}
    }
    assert r.headers["retry-after"]


def test_rest_answers_503_in_german_while_the_database_is_away(
    tmp_path: Path, relayed: tuple[Relay, str, str]
) -> None:
    relay, url, prefix = relayed
    h = Harness(tmp_path, db_url=url, table_prefix=prefix, migrate=True)
    try:
        token = h.guest("Anna")
        auth = {"Authorization": f"Bearer {token}"}
        relay.cut()
        _unavailable(h.tc.post("/api/guest", json={"name": "Ben"}))
        _unavailable(h.tc.get("/api/lobbies"))
        # Every other route that reads or writes answers alike (one handler, app.py).
        account = {"name": "Carla", "password": "geheim123"}
        _unavailable(h.tc.post("/api/account", json=account))
        _unavailable(h.tc.post("/api/login", json=account))
        _unavailable(h.tc.get("/api/me", headers=auth))
        _unavailable(h.tc.post("/api/me/name", json={"name": "Anne"}, headers=auth))
        _unavailable(h.tc.post("/api/logout", headers=auth))
        _unavailable(h.tc.get("/api/profiles/p_0123456789abcdef"))
        _unavailable(h.tc.get("/api/lobbies/K7Q2MX9P"))
        for tail in ("", "/replay", "/record", "/analysis"):
            _unavailable(h.tc.get(f"/api/matches/m_0123456789abcdef{tail}"))

        relay.restore()  # back: the same requests are served again, no restart
        assert h.tc.post("/api/guest", json={"name": "Ben"}).status_code == 201
        assert h.tc.get("/api/lobbies").json() == {"type": "lobby_list", "open": [], "running": []}
        assert h.tc.get("/api/me", headers=auth).status_code == 200
    finally:
        h.close()


def test_socket_while_the_database_is_away_hello_gets_the_error_and_close_1013(
    tmp_path: Path, relayed: tuple[Relay, str, str]
) -> None:
    relay, url, prefix = relayed
    h = Harness(tmp_path, db_url=url, table_prefix=prefix, migrate=True)
    try:
        token = h.guest("Anna")
        ben = h.person("Ben")
        relay.cut()
        # A signed-in socket's message that needs the database: the same error, not
        # internal_error, and the socket stays open.
        ben.expect_error({"type": "list_lobbies"}, "database_unavailable")
        assert ben.request({"type": "ping"}, "pong")
        ws = h.tc.websocket_connect("/ws")
        ws.__enter__()
        anna = Client(h, ws, token, "Anna")
        h.clients.append(anna)
        anna.send({"type": "hello", "token": token, "protocol": 1})
        err = anna.recv()
        assert err["type"] == "error" and err["code"] == "database_unavailable"
        assert err["message"] == t("database_unavailable")
        with pytest.raises(Closed) as closed:
            anna.recv()
        assert closed.value.code == 1013  # try again later: not a normal close

        relay.restore()
        again = h.connect(token, "Anna")
        assert again.profile["name"] == "Anna"
    finally:
        h.close()


def test_health_says_503_naming_the_database_while_it_is_away(
    tmp_path: Path, relayed: tuple[Relay, str, str]
) -> None:
    relay, url, prefix = relayed
    h = Harness(tmp_path, db_url=url, table_prefix=prefix, migrate=True)
    try:
        ok = h.tc.get("/api/health")
        assert ok.status_code == 200
        assert ok.json() == {
            "ok": True,
            "protocol": 1,
            "node": h.service.node,
            "accepting": True,
            "down": [],
        }
        relay.cut()
        # The answer is reused for a second (the balancer's checks do not hammer the
        # database); after it the node says it cannot serve, and why.
        assert h.tc.get("/api/health").status_code == 200
        h.clock.advance(PROBE_TTL)
        away = h.tc.get("/api/health")
        assert away.status_code == 503
        body = away.json()
        assert body["ok"] is False and body["accepting"] is False
        assert body["down"] == ["database"]
        assert body["error"] == {
            "code": "database_unavailable",
            "message": t("database_unavailable"),
        }

        relay.restore()
        h.clock.advance(PROBE_TTL)
        back = h.tc.get("/api/health")
        assert back.status_code == 200 and back.json()["down"] == []
    finally:
        h.close()


def test_health_of_a_cluster_node_names_redis_when_it_cannot_reach_it(
    tmp_path: Path, relayed: tuple[Relay, str, str]
) -> None:
    _relay, url, prefix = relayed
    # Nothing listens on port 1: the node's router never reaches Redis.
    h = Harness(tmp_path, db_url=url, table_prefix=prefix, migrate=True, redis_url=AWAY_REDIS)
    try:
        r = h.tc.get("/api/health")
        assert r.status_code == 503
        assert r.json()["down"] == ["redis"] and r.json()["accepting"] is False
        assert r.json()["error"]["code"] == "cluster_unavailable"
    finally:
        h.close()


def test_a_welcome_that_meets_the_database_away_says_so_and_closes_1013(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The token was read, then the database went before the welcome (its lobby and seat
    # are read next): the same error and close as a refused hello.
    token = h.guest("Anna")

    async def away(_profile: str) -> None:
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(h.service.match_desk, "seat_anywhere", away)
    ws = h.tc.websocket_connect("/ws")
    ws.__enter__()
    anna = Client(h, ws, token, "Anna")
    h.clients.append(anna)
    anna.send({"type": "hello", "token": token, "protocol": 1})
    err = anna.recv()
    assert err["type"] == "error" and err["code"] == "database_unavailable"
    with pytest.raises(Closed) as closed:
        anna.recv()
    assert closed.value.code == 1013
    monkeypatch.undo()
    assert h.connect(token, "Anna").profile["name"] == "Anna"
