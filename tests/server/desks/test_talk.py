"""Table talk over the socket: lobby chat, the spectators' chat, reactions, blocks,
reports, a moderator's mute, hostile text (docs/protocol.md "Table talk")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from domino.server.desks.talktext import MAX_CHARS

from ..harness import Client, Harness, harness, lobby_with_bots


def _lobby(h: Harness) -> tuple[Client, Client, Client, str]:
    """Anna (host, seat 0), Ben (seat 1) and Zoe (watching) in one lobby."""
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    code = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]["code"]
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    zoe.request({"type": "join_lobby", "code": code, "watch": True}, "lobby")
    h.settle()
    for c in (anna, ben, zoe):
        c.drain()
    return anna, ben, zoe, code


def _sync(*senders: Client) -> None:
    """Every message the senders sent is handled (the answer to a ping comes after),
    and every frame it made has reached its socket."""
    for c in senders:
        c.send({"type": "ping"})
        c.recv_type("pong")
    senders[0].h.settle()


def _said(c: Client) -> list[dict[str, Any]]:
    """The chat messages ``c`` has received so far (after a settle)."""
    c.drain()
    return [m["message"] for m in map(json.loads, c.frames) if m["type"] == "chat"]


def _stored(h: Harness, room: str) -> list[dict[str, Any]]:
    async def read() -> list[dict[str, Any]]:
        return await h.service.db.messages(room)

    return h.tc.portal.call(read)


def test_lobby_chat_reaches_every_member_cleaned_and_is_kept(h: Harness) -> None:
    anna, ben, zoe, code = _lobby(h)
    otto = h.person("Otto")
    raw = "  Hallo <b>Ben</b>\u202e\u200b \u2066<script>alert(1)</script>\u2069\n https://x.y  "
    anna.send({"type": "say", "room": "lobby", "text": raw})
    _sync(anna)
    want = "Hallo <b>Ben</b> <script>alert(1)</script> https://x.y"
    for c in (anna, ben, zoe):
        (msg,) = _said(c)
        assert msg["text"] == want  # cleaned; markup stays text for the client to show
        assert (msg["room"], msg["key"], msg["sender"], msg["name"]) == (
            "lobby",
            code,
            anna.profile["id"],
            "Anna",
        )
        assert msg["seat"] == 0
    assert not _said(otto)
    otto.expect_error({"type": "say", "room": "lobby", "text": "hi"}, "talk_no_lobby")
    # Kept with the lobby: a member who asks gets it; so does a newcomer.
    log = ben.request({"type": "talk_log", "room": "lobby"}, "chat_log")
    assert [m["text"] for m in log["messages"]] == [want] and log["key"] == code
    assert [m["text"] for m in _stored(h, f"lobby:{code}")] == [want]


def test_hostile_text_gets_a_clear_error_or_is_cleaned(h: Harness) -> None:
    anna, ben, _, code = _lobby(h)
    too_long = anna.expect_error(
        {"type": "say", "room": "lobby", "text": "x" * 5000}, "talk_too_long"
    )
    assert str(MAX_CHARS) in too_long["message"]
    # 200 visible characters with invisible ones between them are within the limit.
    ok = "\u200b".join("y" * MAX_CHARS)
    anna.send({"type": "say", "room": "lobby", "text": ok})
    anna.expect_error(
        {"type": "say", "room": "lobby", "text": "\u202e\u200d\u2060\x00\x07 "}, "talk_empty"
    )
    # A lone surrogate is not UTF-8 text: refused as bad JSON, the socket stays open.
    anna.send_raw('{"type":"say","room":"lobby","text":"\\ud800 hi"}')
    assert anna.recv_type("error")["code"] == "bad_json"
    anna.expect_error({"type": "say", "room": "hall", "text": "hi"}, "bad_message")
    # 10,000 characters do not fit a frame: the transport says so (and closes, 1009).
    _sync(anna)
    assert [m["text"] for m in _said(ben)] == ["y" * MAX_CHARS]
    huge = h.person("Huge")
    huge.send({"type": "say", "room": "lobby", "text": "z" * 10_000})
    err = huge.recv_type("error")
    assert err["code"] == "frame_too_big" and err["message"]
    everything = [json.loads(f) for c in h.clients for f in c.frames]
    assert not [m for m in everything if m.get("code") == "internal_error"]
    assert len(_stored(h, f"lobby:{code}")) == 1


def test_a_message_flood_is_limited_per_sender(h: Harness) -> None:
    anna, ben, _, code = _lobby(h)
    for i in range(20):
        anna.send({"type": "say", "room": "lobby", "text": f"flood {i}"})
    _sync(anna)
    got = [json.loads(f) for f in anna.frames]
    errors = [m for m in got if m["type"] == "error"]
    assert len(errors) == 15 and {e["code"] for e in errors} == {"talk_too_fast"}
    assert all("Sekunde" in e["message"] for e in errors)
    assert len(_stored(h, f"lobby:{code}")) == 5
    # Ben has his own budget; Anna's comes back with time.
    ben.request({"type": "say", "room": "lobby", "text": "ruhig"}, "chat")
    h.clock.advance(10.5)
    anna.request({"type": "say", "room": "lobby", "text": "wieder da"}, "chat")
    assert anna.closed is None


def test_a_blocked_players_messages_and_reactions_never_reach_the_blocker(h: Harness) -> None:
    anna, ben, zoe, _ = _lobby(h)
    ben.expect_error({"type": "block", "profile": ben.profile["id"]}, "block_self")
    ben.expect_error({"type": "block", "profile": "p_nobody"}, "profile_not_found")
    blocks = ben.request({"type": "block", "profile": anna.profile["id"]}, "blocks")
    assert blocks["profiles"] == [{"id": anna.profile["id"], "name": "Anna"}]
    anna.send({"type": "say", "room": "lobby", "text": "Hallo alle"})
    _sync(anna)
    assert [m["text"] for m in _said(zoe)] == ["Hallo alle"]
    assert _said(ben) == []
    # Both ways: Ben's messages do not reach Anna either.
    ben.send({"type": "say", "room": "lobby", "text": "Hallo Zoe"})
    _sync(ben)
    assert [m["text"] for m in _said(anna)] == ["Hallo alle"]
    # Nor in the kept log.
    log = ben.request({"type": "talk_log", "room": "lobby"}, "chat_log")
    assert [m["text"] for m in log["messages"]] == ["Hallo Zoe"]
    # Reactions in the match too.
    anna.request({"type": "start"}, "match_started")
    mid = anna.recv_type("state")["match_id"]
    zoe.recv_type("state")
    anna.send({"type": "react", "match": mid, "key": "hallo"})
    _sync(anna)
    zoe.drain()
    assert [m["key"] for m in map(json.loads, zoe.frames) if m["type"] == "reaction"] == ["hallo"]
    ben.drain()
    assert not [f for f in ben.frames if '"reaction"' in f]
    # Unblocked, Anna is heard again.
    assert (
        ben.request({"type": "block", "profile": anna.profile["id"], "on": False}, "blocks")[
            "profiles"
        ]
        == []
    )
    h.clock.advance(2.5)
    anna.send({"type": "react", "match": mid, "key": "danke"})
    _sync(anna)
    assert ben.recv_type("reaction")["key"] == "danke"

    async def pairs() -> set[frozenset[str]]:
        db = h.service.db
        await db.block(zoe.profile["id"], anna.profile["id"], 1.0)
        return await db.blocks_among([anna.profile["id"], ben.profile["id"], zoe.profile["id"]])

    assert h.tc.portal.call(pairs) == {frozenset((zoe.profile["id"], anna.profile["id"]))}


def test_reactions_at_the_seat_limited_and_without_anything_else(h: Harness) -> None:
    anna, ben, zoe, _ = _lobby(h)
    anna.request({"type": "start"}, "match_started")
    mid = anna.recv_type("state")["match_id"]
    zoe.recv_type("state")
    anna.expect_error({"type": "react", "match": mid, "key": "<b>"}, "reaction_unknown")
    anna.send({"type": "react", "match": mid, "key": "gut_gespielt"})
    _sync(anna)
    for c in (ben, zoe, anna):
        m = c.last_of("reaction")
        assert m == {
            "type": "reaction",
            "match": mid,
            "seat": 0,
            "sender": anna.profile["id"],
            "name": "Anna",
            "key": "gut_gespielt",
        }
    anna.expect_error({"type": "react", "match": mid, "key": "danke"}, "reaction_too_fast")
    # A spectator's reaction has no seat.
    zoe.send({"type": "react", "match": mid, "key": "feiern"})
    assert ben.recv_type("reaction")["seat"] is None
    # Ten a minute: one every 2 s allows the tenth, not the eleventh.
    sent = 1
    while sent < 10:
        h.clock.advance(2.0)
        anna.request({"type": "react", "match": mid, "key": "hallo"}, "reaction")
        sent += 1
    h.clock.advance(2.0)
    err = anna.expect_error({"type": "react", "match": mid, "key": "hallo"}, "reaction_too_fast")
    assert "Sekunde" in err["message"]
    outsider = h.person("Otto")
    outsider.expect_error({"type": "react", "match": mid, "key": "hallo"}, "talk_not_watching")
    outsider.expect_error({"type": "react", "match": "m_nope", "key": "hallo"}, "match_not_found")


def test_paare_players_get_reactions_only_spectators_talk_among_themselves(h: Harness) -> None:
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    lobby = lobby_with_bots(
        anna, 4, ["anfaenger", "anfaenger"], {"seats": 4, "pairs": True}, joiners=(ben,)
    )
    zoe.request({"type": "join_lobby", "code": lobby["code"], "watch": True}, "lobby")
    anna.request({"type": "start"}, "match_started")
    mid = anna.recv_type("state")["match_id"]
    zoe.recv_type("state")
    anna.expect_error({"type": "say", "room": "lobby", "text": "Ich habe 6|6"}, "talk_pairs")
    anna.expect_error({"type": "say", "room": "match", "match": mid, "text": "6|6"}, "talk_pairs")
    # The spectators' chat reaches no player, not even a second socket that watches.
    second = h.connect(ben.token, "Ben")
    second.send({"type": "watch", "match": mid})
    _sync(second)
    zoe.send({"type": "say", "room": "match", "match": mid, "text": "Spannend!"})
    _sync(zoe)
    assert [m["text"] for m in _said(zoe)] == ["Spannend!"]
    for c in (anna, ben, second):
        assert _said(c) == []
    assert (
        anna.request({"type": "talk_log", "room": "match", "match": mid}, "chat_log")["messages"]
        == []
    )
    # Reactions work for the players.
    ben.send({"type": "react", "match": mid, "key": "viel_glueck"})
    assert anna.recv_type("reaction")["seat"] == 1


def test_outside_paare_players_and_spectators_share_the_match_chat(h: Harness) -> None:
    anna, ben, zoe, _ = _lobby(h)
    anna.request({"type": "start"}, "match_started")
    mid = anna.recv_type("state")["match_id"]
    zoe.recv_type("state")
    zoe.send({"type": "say", "room": "match", "match": mid, "text": "Viel Glück euch"})
    _sync(zoe)  # two sockets' messages are handled concurrently: Ben answers after
    ben.send({"type": "say", "room": "match", "match": mid, "text": "Danke"})
    _sync(ben)
    for c in (anna, ben, zoe):
        assert sorted(m["text"] for m in _said(c)) == ["Danke", "Viel Glück euch"]
    stranger = h.person("Otto")
    stranger.expect_error(
        {"type": "say", "room": "match", "match": mid, "text": "hi"}, "talk_not_watching"
    )
    assert [m["seat"] for m in _stored(h, f"match:{mid}")] == [None, 1]


def test_reports_keep_the_context_and_a_muted_profile_is_refused(h: Harness) -> None:
    anna, ben, _, code = _lobby(h)
    for text in ("eins", "zwei", "du bist doof"):
        anna.send({"type": "say", "room": "lobby", "text": text})
    _sync(anna)
    bad = _said(ben)[-1]
    ben.expect_error({"type": "report", "message": 99999}, "report_unknown")
    ben.expect_error({"type": "report", "message": 2**40}, "bad_message")  # not a row id
    anna.expect_error({"type": "report", "message": bad["id"]}, "report_self")
    assert ben.request({"type": "report", "message": bad["id"]}, "reported")["message"] == bad["id"]
    ben.request({"type": "report", "message": bad["id"]}, "reported")  # once is enough

    async def moderate() -> list[dict[str, Any]]:
        db = h.service.db
        await db.mute(anna.profile["id"], h.clock.now() + 3600, h.clock.now())
        return await db.reports()

    (report,) = h.tc.portal.call(moderate)
    assert (report["reported"], report["reporter"], report["text"]) == (
        anna.profile["id"],
        ben.profile["id"],
        "du bist doof",
    )
    assert [m["text"] for m in report["context"]] == ["eins", "zwei", "du bist doof"]
    assert report["room"] == f"lobby:{code}"
    err = anna.expect_error({"type": "say", "room": "lobby", "text": "hallo?"}, "talk_muted")
    assert "60 Minuten" in err["message"]
    h.clock.advance(3601)
    anna.request({"type": "say", "room": "lobby", "text": "hallo?"}, "chat")


def test_the_match_chat_is_in_the_replay(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna, ben, zoe, _ = _lobby(h)
        anna.request({"type": "start"}, "match_started")
        mid = anna.recv_type("state")["match_id"]
        zoe.recv_type("state")
        zoe.request({"type": "say", "room": "match", "match": mid, "text": "Los geht's"}, "chat")
        anna.request({"type": "leave_match", "match": mid}, "state")
        ben.send({"type": "leave_match", "match": mid})
        for _ in range(200):
            if h.tc.get(f"/api/matches/{mid}/replay").status_code == 200:
                break
            h.step()
        replay = h.tc.get(f"/api/matches/{mid}/replay").json()
        assert [(m["name"], m["text"]) for m in replay["chat"]] == [("Zoe", "Los geht's")]
        # After the end the match chat is closed; the lobby's goes on.
        zoe.expect_error(
            {"type": "say", "room": "match", "match": mid, "text": "gg"}, "talk_match_over"
        )
        # Its log stays readable (as public as the replay).
        log = anna.request({"type": "talk_log", "room": "match", "match": mid}, "chat_log")
        assert [m["text"] for m in log["messages"]] == ["Los geht's"]
