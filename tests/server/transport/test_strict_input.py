"""What clients send is taken as the schema says, or refused with one clear German answer.

Client messages and REST bodies are validated in pydantic's strict mode: a string
is no number, ``"yes"`` is no ``true``. Every refusal is ``bad_message`` (or
``bad_json``) with a German text naming the field, never ``internal_error``; a
name too long is ``name_too_long`` however long it is.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from domino.i18n import t
from domino.server import protocol as p

from ..harness import Harness, latest_state, start


def _refused(detail: str) -> None:
    # German from the catalogue, naming the field; none of pydantic's English.
    assert "Input should" not in detail and "„" in detail, detail


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"type": "move", "match": "m_1", "move": "D", "v": "1"}, "„v“"),
        ({"type": "move", "match": "m_1", "move": "D", "v": 1.0}, "„v“"),
        ({"type": "move", "match": "m_1", "move": "D", "v": True}, "„v“"),
        ({"type": "set_rules", "rules": {"lager": "yes"}}, "„rules.lager“"),
        ({"type": "set_rules", "rules": {"lager": 1}}, "„rules.lager“"),
        ({"type": "set_rules", "rules": {"target": "50"}}, "„rules.target“"),
        ({"type": "set_rules", "rules": ["lager"]}, "„rules“"),
        ({"type": "create_lobby", "seats": "3"}, "„seats“"),
        ({"type": "join_lobby", "code": "K7Q2MX9P", "watch": "true"}, "„watch“"),
        ({"type": "join_lobby", "code": 12345678}, "„code“"),
        ({"type": "add_bot", "seat": 1, "level": 3}, "„level“"),
        ({"type": "hello", "token": "x", "protocol": "1"}, "„protocol“"),
        ({"type": "ping", "ref": 7}, "„ref“"),
        ({"type": "ping", "seat": 1}, "„seat“"),
        ({"type": "sync"}, "„match“"),
    ],
)
def test_a_wrongly_typed_field_is_refused_not_coerced(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(p.ProtocolError) as info:
        p.parse_client(json.dumps(raw))
    assert info.value.code == "bad_message"
    detail = info.value.params["detail"]
    _refused(detail)
    assert field in detail
    assert t("bad_message", detail=detail).startswith("Die Nachricht ist")


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ({"type": "move", "match": "m_1", "move": "D"}, "bad_message"),
        ({"type": "move", "match": "m_1", "v": 1}, "bad_message"),
        ({"type": "move", "match": "m_1", "move": "D", "v": "1"}, "bad_message"),
        ({"type": "move", "match": "m_1", "move": "D", "v": True}, "bad_message"),
        ({"match": "m_1", "move": "D", "v": 1}, "unknown_type"),
        ({"type": "dance", "match": "m_1"}, "unknown_type"),
    ],
)
def test_a_malformed_match_command_is_refused_by_the_schema(raw: dict[str, Any], code: str) -> None:
    # The table takes typed commands only (domino.table.commands): the schema is the
    # one place that checks a command's shape (it moved here from tests/table).
    with pytest.raises(p.ProtocolError) as info:
        p.parse_client(json.dumps(raw))
    assert info.value.code == code


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "move", "match": "m_1", "move": "6|2 L", "v": 3, "ref": "r1"}',
        '{"type": "back", "match": "m_1"}',
        '{"type": "leave_match", "match": "m_1"}',
    ],
)
def test_a_forwarded_command_is_the_same_typed_command(raw: str) -> None:
    # A node forwards a command as its model_dump(); the owner reads it back with the
    # same schema and gives the table the same command.
    msg = p.parse_client(raw)
    assert isinstance(msg, (p.MoveCmd, p.Back, p.LeaveMatch))
    again = p.command_of(json.loads(json.dumps(msg.model_dump())))
    assert again == msg and again.command() == msg.command()
    with pytest.raises(p.ProtocolError) as info:
        p.command_of({**msg.model_dump(), "match": 7})
    assert info.value.code == "bad_message"


def test_json_numbers_and_flags_are_taken() -> None:
    move = p.parse_client('{"type": "move", "match": "m_1", "move": "6|2 L", "v": 17}')
    assert isinstance(move, p.MoveCmd) and move.v == 17
    rules = p.parse_client(
        '{"type": "set_rules", "rules": {"target": null, "turn_seconds": 12, "lager": false}}'
    )
    assert isinstance(rules, p.SetRules)
    assert rules.rules.target is None and rules.rules.turn_seconds == 12
    assert rules.rules.lager is False and rules.rules.model_fields_set == {
        "target",
        "turn_seconds",
        "lager",
    }
    hello = p.parse_client('{"type": "hello", "token": "abc", "protocol": 1, "ref": "r"}')
    assert isinstance(hello, p.Hello) and hello.protocol == 1 and hello.ref == "r"


def test_what_is_not_json_text_is_bad_json() -> None:
    # A lone surrogate is no text (it could not be sent back); deep nesting is refused too.
    for raw in ('{"type": "ping", "ref": "\\ud800"}', "[" * 300 + "]" * 300, "{not json"):
        with pytest.raises(p.ProtocolError) as info:
            p.parse_client(raw)
        assert info.value.code == "bad_json"


def test_the_socket_refuses_wrong_types_with_bad_message_and_changes_nothing(h: Harness) -> None:
    anna = h.person("Anna")
    lobby = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]
    assert lobby["rules"]["lager"] is True
    # The very next frame is the answer (no waiting for an error that never comes).
    anna.send({"type": "set_rules", "rules": {"lager": "no"}, "ref": "r1"})
    err = anna.recv()
    assert (err["type"], err.get("code"), err.get("ref")) == ("error", "bad_message", "r1")
    assert "„rules.lager“ muss true oder false sein." in err["message"]
    assert h.tc.get(f"/api/lobbies/{lobby['code']}").json()["rules"]["lager"] is True
    anna.request({"type": "add_bot", "seat": 1, "level": "anfaenger"}, "lobby")
    st = start(anna)
    while not (latest_state(anna) or st)["view"]["legal"]:
        assert h.step()
        anna.drain()
    st = latest_state(anna) or st
    mid, v = st["match_id"], st["v"]
    move = st["view"]["legal"][0]
    for bad in (str(v), float(v)):  # (the fifth bad message would close the socket)
        anna.send({"type": "move", "match": mid, "move": move, "v": bad, "ref": "m"})
        err = anna.recv()
        assert (err["type"], err.get("code")) == ("error", "bad_message"), err
        assert "„v“ muss eine ganze Zahl sein." in err["message"] and err["ref"] == "m"
    assert h.service.runners[mid].table.version == v
    # A text that is no text (a lone surrogate) is bad JSON, and the socket lives on.
    anna.send_raw('{"type": "take_seat", "seat": 9, "ref": "\\ud800"}')
    assert anna.recv()["code"] == "bad_json"
    assert anna.request({"type": "ping"}, "pong")
    # The same move with a JSON number is taken.
    anna.send({"type": "move", "match": mid, "move": move, "v": v})
    assert anna.recv_until(lambda m: m["type"] in ("state", "error"))["type"] == "state"
    assert h.service.runners[mid].table.version > v


def test_a_hello_with_a_wrongly_typed_field_is_bad_message_then_closed(h: Harness) -> None:
    token = h.guest("Anna")
    ws = h.tc.websocket_connect("/ws")
    ws.__enter__()
    try:
        ws.send_text(json.dumps({"type": "hello", "token": token, "protocol": "1"}))
        err = ws.receive_json()
        assert err["code"] == "bad_message" and "„protocol“" in err["message"]
    finally:
        ws.__exit__(None, None, None)


@pytest.mark.parametrize("length", [25, 200, 201, 5000])
def test_a_name_too_long_is_name_too_long_however_long(h: Harness, length: int) -> None:
    want = {"code": "name_too_long", "message": t("name_too_long", limit=24)}
    r = h.tc.post("/api/guest", json={"name": "x" * length})
    assert (r.status_code, r.json()) == (400, {"error": want})
    r = h.tc.post("/api/account", json={"name": "x" * length, "password": "geheim123"})
    assert (r.status_code, r.json()) == (400, {"error": want})
    r = h.tc.post("/api/login", json={"name": "x" * length, "password": "geheim123"})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "login_failed")


@pytest.mark.parametrize("length", [129, 1001])
def test_a_password_too_long_is_password_too_long_however_long(h: Harness, length: int) -> None:
    r = h.tc.post("/api/account", json={"name": "Anna", "password": "p" * length})
    assert r.status_code == 400
    assert r.json()["error"] == {
        "code": "password_too_long",
        "message": t("password_too_long", limit=128),
    }
    r = h.tc.post("/api/login", json={"name": "Anna", "password": "p" * length})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "login_failed")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 5}, "„name“"),
        ({"name": ["Anna"]}, "„name“"),
        ({"name": "Anna", "admin": True}, "„admin“"),
        ({}, "„name“"),
    ],
)
def test_a_wrongly_typed_rest_body_is_bad_message_in_german(
    h: Harness, body: dict[str, Any], field: str
) -> None:
    r = h.tc.post("/api/guest", json=body)
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "bad_message" and field in err["message"]
    _refused(err["message"])


def test_a_rest_body_that_is_no_object_is_bad_message(h: Harness) -> None:
    for content in ("[1, 2]", "{not json"):
        r = h.tc.post("/api/guest", content=content, headers={"content-type": "application/json"})
        assert r.status_code == 422
        err = r.json()["error"]
        assert err["code"] == "bad_message" and "JSON" in err["message"]
        assert "Input should" not in err["message"]


def test_an_unknown_language_has_the_documented_error_shape(h: Harness) -> None:
    r = h.tc.get("/api/i18n/xx")
    assert r.status_code == 404
    assert r.json() == {"error": {"code": "lang_not_found", "message": t("lang_not_found")}}
    assert r.json()["error"]["message"] != "lang_not_found"
    assert h.tc.get("/api/i18n/de").json()["messages"]["not_host"] == t("not_host")
