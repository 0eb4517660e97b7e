"""Limits a client meets: frame size, message budget, bad input, Origin, other seats."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from domino.server.transport.conn import OUTBOX_LIMIT, Conn

from ..harness import Closed, Harness, harness, lobby_with_bots, start


def _closed_with(c, code: int) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(Closed) as info:
        while True:
            c.recv()
    assert info.value.code == code


def test_frames_over_8_kib_are_refused_with_1009(h: Harness) -> None:
    c = h.person("Anna")
    c.send_raw('{"type": "ping", "ref": "' + "x" * 8200 + '"}')
    err = c.recv()
    assert err["code"] == "frame_too_big" and "8192" in err["message"]
    _closed_with(c, 1009)


def test_a_frame_of_exactly_8_kib_is_read(h: Harness) -> None:
    c = h.person("Anna")
    text = '{"type": "ping"' + " " * (8192 - 16) + "}"
    assert len(text.encode()) == 8192
    c.send_raw(text)
    assert c.recv()["type"] == "pong"


def test_flooding_closes_with_1008(h: Harness) -> None:
    c = h.person("Anna")  # hello used one message of the budget
    for _ in range(29):
        c.send({"type": "ping"})
    assert all(c.recv()["type"] == "pong" for _ in range(29))
    c.send({"type": "ping"})
    err = c.recv()
    assert err["code"] == "rate_limited"
    _closed_with(c, 1008)


def test_the_budget_refills_with_time(h: Harness) -> None:
    c = h.person("Anna")
    for _ in range(29):
        c.send({"type": "ping"})
    assert all(c.recv()["type"] == "pong" for _ in range(29))
    h.clock.advance(1.0)  # ten more messages
    for _ in range(10):
        assert c.request({"type": "ping"}, "pong")


def test_bad_input_gets_errors_and_repeated_abuse_closes(h: Harness) -> None:
    c = h.person("Anna")
    c.send_raw("{not json")
    assert c.recv()["code"] == "bad_json"
    c.send_raw("[1, 2]")
    assert c.recv()["code"] == "bad_message"
    c.send({"type": "explode", "ref": "r1"})
    err = c.recv()
    assert (err["code"], err["ref"]) == ("unknown_type", "r1") and "explode" in err["message"]
    c.send_raw("\x00")  # (a binary frame would close with 1003: test_rawws.py)
    assert c.recv()["code"] == "bad_json"
    # Good messages in between are still answered.
    assert c.request({"type": "ping"}, "pong")
    c.send({"type": "move"})
    assert c.recv()["code"] == "too_many_errors"
    _closed_with(c, 1008)


def test_a_foreign_origin_is_refused_before_the_upgrade(tmp_path: Path) -> None:
    with harness(tmp_path, origins=("https://domino.example",)) as h:
        token = h.guest("Anna")
        with pytest.raises(WebSocketDisconnect):
            h.connect(token, headers={"origin": "https://evil.example"})
        ok = h.connect(token, headers={"origin": "https://domino.example"})
        assert ok.profile["name"] == "Anna"


def test_the_default_allowlist_is_the_servers_own_address(h: Harness) -> None:
    token = h.guest("Anna")
    assert h.connect(token, headers={"origin": "http://127.0.0.1:8000"}).profile
    assert h.connect(token, headers={"origin": "http://localhost:8000"}).profile
    with pytest.raises(WebSocketDisconnect):
        h.connect(token, headers={"origin": "http://127.0.0.1:9999"})


def test_the_pages_own_origin_is_accepted_wherever_the_server_is_reached(h: Harness) -> None:
    # A server on 0.0.0.0 opened by a friend on the LAN: the browser's Origin names the
    # address it opened, which is the Host of the upgrade; no --origins needed.
    token = h.guest("Anna")
    lan = {"origin": "http://192.168.1.20:8000", "host": "192.168.1.20:8000"}
    assert h.connect(token, headers=lan).profile["name"] == "Anna"
    named = {"origin": "https://Domino.Example", "host": "domino.example"}  # behind TLS
    assert h.connect(token, headers=named).profile
    for foreign in (
        {"origin": "http://evil.example", "host": "192.168.1.20:8000"},
        {"origin": "http://192.168.1.20:8001", "host": "192.168.1.20:8000"},
        {"origin": "http://evil.example/192.168.1.20:8000", "host": "192.168.1.20:8000"},
        {"origin": "null", "host": "192.168.1.20:8000"},
    ):
        with pytest.raises(WebSocketDisconnect):
            h.connect(token, headers=foreign)


def test_cors_is_off_by_default(h: Harness) -> None:
    r = h.tc.options(
        "/api/guest",
        headers={"origin": "https://evil.example", "access-control-request-method": "POST"},
    )
    assert "access-control-allow-origin" not in r.headers


def test_nobody_acts_for_a_seat_that_is_not_theirs(h: Harness) -> None:
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    lobby_with_bots(anna, 2, [], joiners=(ben,))
    st = start(anna)
    mid, v = st["match_id"], st["v"]
    # A seat cannot be named: the server takes it from the token.
    anna.expect_error({"type": "move", "match": mid, "move": "D", "v": v, "seat": 1}, "bad_message")
    zoe.expect_error({"type": "move", "match": mid, "move": "D", "v": v}, "not_seated")
    zoe.request({"type": "watch", "match": mid}, "state")
    zoe.expect_error({"type": "leave_match", "match": mid}, "not_seated")
    zoe.expect_error({"type": "back", "match": mid}, "not_seated")
    turn = st["view"]["turn"]
    other = ben if turn == 0 else anna
    other.send({"type": "move", "match": mid, "move": "D", "v": v})
    assert other.recv_type("error")["code"] in ("not_your_turn", "must_play", "no_lager")
    anna.expect_error(
        {"type": "move", "match": "m_doesnotexist", "move": "D", "v": v}, "match_not_found"
    )
    assert h.service.runners[mid].table.version == v


async def test_a_client_that_cannot_keep_up_is_disconnected() -> None:
    conn = Conn("p_x", "Anna")
    for i in range(OUTBOX_LIMIT):
        conn.send({"type": "pong", "i": i})
    assert not conn.closed
    conn.send({"type": "pong"})
    assert conn.closed and conn.close_code == 1008
    assert conn.outbox.qsize() == OUTBOX_LIMIT + 1  # what was queued, then the close


def test_a_socket_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    with harness(tmp_path, hello_timeout=0.0) as h:
        ws = h.tc.websocket_connect("/ws")
        ws.__enter__()
        try:
            assert ws.receive_json()["code"] == "hello_first"
            with pytest.raises(WebSocketDisconnect) as info:
                ws.receive_json()
            assert info.value.code == 1008
        finally:
            ws.__exit__(None, None, None)


def test_sign_ins_per_address_have_a_budget(tmp_path: Path) -> None:
    with harness(tmp_path, signin_burst=3, signin_rate=0.5) as h:
        for name in ("Anna", "Ben", "Cem"):
            h.guest(name)
        r = h.tc.post("/api/guest", json={"name": "Dora"})
        assert r.status_code == 429
        err = r.json()["error"]
        assert err["code"] == "too_many_signins" and "Anmeldungen" in err["message"]
        login = h.tc.post("/api/login", json={"name": "Dora", "password": "geheim123"})
        assert login.status_code == 429  # logins spend the same budget (no password guessing)
        h.clock.advance(2.0)  # one more sign-in after 2 s at 0.5 per second
        assert h.tc.post("/api/guest", json={"name": "Dora"}).status_code == 201
        assert h.tc.post("/api/guest", json={"name": "Emil"}).status_code == 429


def test_the_sign_in_table_forgets_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    from domino.server import FakeClock, Settings
    from domino.server import app as app_module

    monkeypatch.setattr(app_module, "PRUNE_AT", 4)
    clock = FakeClock()
    limit = app_module.AddressLimit(Settings(signin_burst=2, signin_rate=1.0), clock)
    for a in ("a", "b", "c", "d"):
        assert limit.take(a)
    clock.advance(5.0)  # every bucket full again: all forgotten at the next new address
    assert limit.take("e") and set(limit.buckets) == {"e"}
    for a in ("f", "g", "h"):
        assert limit.take(a)
    assert limit.take("i")  # four still spending: the older half goes
    assert set(limit.buckets) == {"g", "h", "i"}
    assert limit.take("i") and not limit.take("i")  # its budget is its own
