"""Guests, accounts, tokens and names (docs/protocol.md, "Identity and the token")."""

from __future__ import annotations

import base64
import sqlite3

import pytest

from ..harness import Harness, lobby_with_bots, start


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def test_a_guest_gets_a_long_random_token_stored_only_as_a_hash(h: Harness) -> None:
    r = h.tc.post("/api/guest", json={"name": "  Anna \t Maria  "})
    assert r.status_code == 201
    token, profile = r.json()["token"], r.json()["profile"]
    assert profile["name"] == "Anna Maria" and profile["kind"] == "guest"
    assert (profile["xp"], profile["level"], profile["played"], profile["won"]) == (0, 1, 0, 0)
    assert len(base64.urlsafe_b64decode(token + "==")) * 8 >= 128
    assert h.tc.post("/api/guest", json={"name": "Ben"}).json()["token"] != token
    h.settle()
    db = sqlite3.connect(h.settings.data_dir / "domino.sqlite")
    dump = "\n".join(db.iterdump())
    db.close()
    assert token not in dump
    assert h.tc.get("/api/me", headers=_auth(token)).json()["profile"]["id"] == profile["id"]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "name_empty"),
        ("   ", "name_empty"),
        ("x" * 25, "name_too_long"),
        ("Anna\x00", "name_bad_chars"),
        ("A\u202eB", "name_bad_chars"),
    ],
)
def test_names_are_trimmed_limited_and_plain(h: Harness, name: str, code: str) -> None:
    r = h.tc.post("/api/guest", json={"name": name})
    assert r.status_code == 400 and r.json()["error"]["code"] == code
    assert r.json()["error"]["message"]


def test_markup_in_a_name_is_kept_as_plain_text(h: Harness) -> None:
    r = h.tc.post("/api/guest", json={"name": "<b>Anna</b>"})
    assert r.json()["profile"]["name"] == "<b>Anna</b>"  # the client renders it as text


def test_a_guest_becomes_an_account_and_keeps_its_profile(h: Harness) -> None:
    g = h.tc.post("/api/guest", json={"name": "Anna"}).json()
    h.tc.portal.call(_give_xp, h, g["profile"]["id"], 120)
    r = h.tc.post(
        "/api/account", json={"name": "Anna", "password": "geheim123"}, headers=_auth(g["token"])
    )
    assert r.status_code == 201
    acc = r.json()
    assert acc["profile"]["id"] == g["profile"]["id"] and acc["profile"]["kind"] == "account"
    assert acc["profile"]["xp"] == 120 and acc["profile"]["level"] == 2
    assert acc["token"] == g["token"]  # the guest's token keeps working
    again = h.tc.post(
        "/api/account", json={"name": "Anna2", "password": "geheim123"}, headers=_auth(g["token"])
    )
    assert again.json()["error"]["code"] == "already_account"
    # Log in elsewhere: a new token for the same profile; log out voids it.
    login = h.tc.post("/api/login", json={"name": "  anna ", "password": "geheim123"})
    assert login.status_code == 200 and login.json()["profile"]["id"] == g["profile"]["id"]
    t2 = login.json()["token"]
    assert h.tc.post("/api/logout", headers=_auth(t2)).status_code == 204
    assert h.tc.get("/api/me", headers=_auth(t2)).json()["error"]["code"] == "bad_token"
    assert h.tc.get("/api/me", headers=_auth(g["token"])).status_code == 200


async def _give_xp(h: Harness, pid: str, xp: int) -> None:
    t = h.service.db.t.profiles
    async with h.service.db.engine.begin() as conn:
        await conn.execute(t.update().where(t.c.id == pid).values(xp=xp))


def test_accounts_have_unique_names_and_real_passwords(h: Harness) -> None:
    ok = h.tc.post("/api/account", json={"name": "Ben", "password": "geheim123"})
    assert ok.status_code == 201
    taken = h.tc.post("/api/account", json={"name": "BEN", "password": "geheim123"})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "name_taken"
    short = h.tc.post("/api/account", json={"name": "Cem", "password": "kurz"})
    assert short.json()["error"]["code"] == "password_too_short"
    wrong = h.tc.post("/api/login", json={"name": "Ben", "password": "falsch123"})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "login_failed"
    nobody = h.tc.post("/api/login", json={"name": "Niemand", "password": "geheim123"})
    assert nobody.json()["error"]["code"] == "login_failed"
    extra = h.tc.post("/api/guest", json={"name": "Ben", "admin": True})
    assert extra.status_code == 422 and extra.json()["error"]["code"] == "bad_message"
    assert h.tc.get("/api/me").json()["error"]["code"] == "auth_required"


def test_the_socket_knows_the_token_only_from_hello(h: Harness) -> None:
    anna = h.person("Anna")
    assert anna.profile["name"] == "Anna"
    ws = h.tc.websocket_connect("/ws")
    ws.__enter__()
    try:
        ws.send_json({"type": "hello", "token": "x" * 43})
        assert ws.receive_json()["code"] == "bad_token"
        with pytest.raises(Exception) as info:
            ws.receive_json()
        assert getattr(info.value, "code", None) == 1008
    finally:
        ws.__exit__(None, None, None)


def test_the_socket_wants_hello_first(h: Harness) -> None:
    c = h.person("Anna")
    c.expect_error({"type": "hello", "token": c.token}, "hello_twice")
    ws = h.tc.websocket_connect("/ws")
    ws.__enter__()
    try:
        ws.send_json({"type": "list_lobbies"})
        assert ws.receive_json()["code"] == "hello_first"
        with pytest.raises(Exception) as info:
            ws.receive_json()
        assert getattr(info.value, "code", None) == 1008
    finally:
        ws.__exit__(None, None, None)


def test_a_profile_is_renamed_with_the_rules_of_names(h: Harness) -> None:
    g = h.tc.post("/api/guest", json={"name": "Flinker Fuchs"}).json()
    r = h.tc.post("/api/me/name", json={"name": "  Lena   M "}, headers=_auth(g["token"]))
    assert r.status_code == 200 and r.json()["name"] == "Lena M"
    assert r.json()["id"] == g["profile"]["id"]
    assert h.tc.get("/api/me", headers=_auth(g["token"])).json()["profile"]["name"] == "Lena M"
    for name, code in (
        ("   ", "name_empty"),
        ("x" * 25, "name_too_long"),
        ("x" * 300, "name_too_long"),
        ("a\x07b", "name_bad_chars"),
    ):
        bad = h.tc.post("/api/me/name", json={"name": name}, headers=_auth(g["token"]))
        assert bad.status_code == 400 and bad.json()["error"]["code"] == code, name
        assert bad.json()["error"]["message"]
    assert h.tc.post("/api/me/name", json={"name": "X"}).json()["error"]["code"] == "auth_required"
    # Account names stay unique, whatever the case.
    h.tc.post("/api/account", json={"name": "Ben", "password": "geheim123"})
    acc = h.tc.post("/api/account", json={"name": "Cem", "password": "geheim123"}).json()
    taken = h.tc.post("/api/me/name", json={"name": "BEN"}, headers=_auth(acc["token"]))
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "name_taken"
    ok = h.tc.post("/api/me/name", json={"name": "Cemal"}, headers=_auth(acc["token"]))
    assert ok.json()["name"] == "Cemal"
    login = h.tc.post("/api/login", json={"name": "cemal", "password": "geheim123"})
    assert login.status_code == 200
    # The socket of a renamed profile takes the new name into the next lobby.
    c = h.connect(g["token"])
    lob = c.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]
    assert lob["seats"][0]["name"] == "Lena M"


def test_a_new_name_shows_in_the_lobby_and_the_running_match(h: Harness) -> None:
    anna = h.person("Anna")
    lobby_with_bots(anna, 2, ["anfaenger"])
    mid = start(anna)["match_id"]
    h.settle()
    carl = h.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")
    v = h.service.runners[mid].table.version
    r = h.tc.post("/api/me/name", json={"name": "Lena"}, headers=_auth(anna.token))
    assert r.status_code == 200
    h.settle()
    anna.drain()
    carl.drain()
    assert anna.last_of("profile")["profile"]["name"] == "Lena"
    mine, watched = anna.last_of("state"), carl.last_of("state")
    assert mine["seats"][0]["name"] == watched["seats"][0]["name"] == "Lena"
    assert mine["v"] == watched["v"] == v
    assert anna.last_of("lobby")["lobby"]["seats"][0]["name"] == "Lena"
    stored = h.tc.get(f"/api/matches/{mid}").json()
    assert stored["players"][0]["name"] == "Lena"
