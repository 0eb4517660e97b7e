"""*Revanche* (one tap proposes the same table again) and *Zuletzt gespielt mit*
(recent opponents, invitations): on one node with a fake clock; the cluster's side is in
tests/server/cluster/test_rematch_across_nodes.py."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domino.server.desks import invites, rematch
from domino.server.desks.lobby import LobbyError

from ..cluster.nodes import recv_within
from ..harness import Client, Harness, latest_state, lobby_with_bots, play_out


def finished_match(h: Harness, players: list[Client], watcher: Client | None = None) -> str:
    """Anna, Ben (and a bot) play a short match to its end; returns its id."""
    host = players[0]
    lobby_with_bots(host, 3, ["anfaenger"], {"mode": "blitz"}, joiners=tuple(players[1:]))
    host.request({"type": "start"}, "match_started")
    mid: str = host.recv_type("state")["match_id"]
    if watcher is not None:
        watcher.request({"type": "watch", "match": mid}, "state")
    play_out(h, players, random.Random(mid))
    assert (latest_state(host) or {}).get("phase") == "match_over"
    h.settle()
    for c in h.clients:
        c.drain()
    return mid


def rematch_frame(c: Client, state: str) -> dict[str, Any]:
    # (bounded: a frame that never comes fails the test instead of hanging it)
    return recv_within(c, lambda m: m["type"] == "rematch_state" and m["state"] == state)


def test_every_human_accepts_and_the_same_table_starts_again(h: Harness) -> None:
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    mid = finished_match(h, [anna, ben], watcher=zoe)
    code = h.tc.get(f"/api/matches/{mid}").json()["lobby"]
    # A spectator of the match follows its Revanche.
    zoe.send({"type": "rematch_follow", "match": mid})
    h.settle()
    assert zoe.drain() == []  # nothing proposed yet

    anna.send({"type": "rematch", "match": mid})
    for c in (anna, ben, zoe):
        m = rematch_frame(c, "open")
        assert m["match"] == mid and m["lobby"] == code and m["by"] == "Anna"
        assert [(s["name"], s["accepted"]) for s in m["seats"]] == [
            ("Anna", True),
            ("Ben", False),
            (m["seats"][2]["name"], True),  # the bot always accepts
        ]
        assert m["seats"][2]["kind"] == "bot" and m["expires_in"] == rematch.REMATCH_SECONDS
    # A second tap by Anna changes nothing; the spectator cannot answer.
    zoe.expect_error({"type": "rematch", "match": mid}, "rematch_gone")

    ben.send({"type": "rematch", "match": mid})
    started = ben.recv_type("match_started")
    new = started["match"]
    assert new != mid and started["lobby"] == code and started["seat"] == 1
    assert anna.recv_type("match_started")["match"] == new
    for c in (anna, ben, zoe):
        m = rematch_frame(c, "started")
        assert m["next"] == new and all(s["accepted"] for s in m["seats"])
    h.settle()
    anna.drain()
    st = anna.last_of("state")
    assert st["match_id"] == new and [s["name"] for s in st["seats"]][:2] == ["Anna", "Ben"]
    # Same seats, same rules, the bot stays; stored as a lobby's start is.
    row = h.tc.get(f"/api/matches/{new}").json()
    old = h.tc.get(f"/api/matches/{mid}").json()
    assert row["rules"] == old["rules"] and row["lobby"] == code
    assert [(p["kind"], p["name"]) for p in row["players"]] == [
        (p["kind"], p["name"]) for p in old["players"]
    ]
    lob = h.tc.get(f"/api/lobbies/{code}").json()
    assert lob["status"] == "playing" and lob["match"] == new
    # The old match's Revanche is gone now.
    anna.expect_error({"type": "rematch", "match": mid}, "rematch_gone")


def test_a_proposal_lapses_after_60_seconds_on_the_clock(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    mid = finished_match(h, [anna, ben])
    anna.send({"type": "rematch", "match": mid})
    rematch_frame(ben, "open")
    h.clock.advance(rematch.REMATCH_SECONDS - 1)
    h.settle()
    assert not [m for m in ben.drain() if m["type"] == "rematch_state"]
    h.clock.advance(1)
    for c in (anna, ben):  # (told by a timer of its own: waited for with a bound)
        m = recv_within(c, lambda m: m["type"] == "rematch_state" and m["state"] == "lapsed")
        assert m["match"] == mid and m["expires_in"] is None
    # Declining what lapsed: refused; a new tap proposes again (and counts anew).
    ben.expect_error({"type": "rematch", "match": mid, "accept": False}, "rematch_expired")
    ben.send({"type": "rematch", "match": mid})
    m = rematch_frame(anna, "open")
    assert m["by"] == "Ben" and [s["accepted"] for s in m["seats"]][:2] == [False, True]


def test_a_lapsed_proposal_is_ignored_even_when_no_timer_told_it(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    mid = finished_match(h, [anna, ben])
    anna.send({"type": "rematch", "match": mid})
    rematch_frame(ben, "open")

    # The node that armed the timer died: here its timer is simply gone.
    async def stop_timers() -> None:
        for task in list(h.service.lobby_desk._tasks):
            task.cancel()

    h.tc.portal.call(stop_timers)
    h.clock.advance(rematch.REMATCH_SECONDS + 5)
    h.settle()
    anna.drain()
    # Ben's late acceptance does not start anything: it proposes anew.
    ben.send({"type": "rematch", "match": mid})
    m = rematch_frame(anna, "open")
    assert m["by"] == "Ben" and m["seats"][0]["accepted"] is False
    assert not [f for f in anna.drain() if f["type"] == "match_started"]


def test_decline_and_a_changed_table_end_the_proposal(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    mid = finished_match(h, [anna, ben])
    anna.send({"type": "rematch", "match": mid})
    rematch_frame(ben, "open")
    ben.send({"type": "rematch", "match": mid, "accept": False})
    for c in (anna, ben):
        assert rematch_frame(c, "declined")["by"] == "Ben"
    # Proposed again, then Ben leaves the lobby: off for everyone, and refused after.
    anna.send({"type": "rematch", "match": mid})
    rematch_frame(ben, "open")
    ben.request({"type": "leave_lobby"}, "lobby_left")
    assert rematch_frame(anna, "cancelled")["match"] == mid
    anna.expect_error({"type": "rematch", "match": mid}, "rematch_missing")
    err = anna.expect_error({"type": "rematch", "match": mid}, "rematch_missing")
    assert "Ben" in err["message"]
    ben.expect_error({"type": "rematch", "match": mid}, "rematch_gone")


def test_a_player_who_left_the_match_or_joined_another_is_named(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 3, ["anfaenger"], {"mode": "blitz"}, joiners=(ben,))
    anna.request({"type": "start"}, "match_started")
    mid = anna.recv_type("state")["match_id"]
    ben.send({"type": "leave_match", "match": mid})
    h.settle()
    play_out(h, [anna], random.Random(1))
    assert (latest_state(anna) or {}).get("phase") == "match_over"
    err = anna.expect_error({"type": "rematch", "match": mid}, "rematch_missing")
    assert "Ben" in err["message"]
    # A seated player of a new lobby cannot answer for a match of another table.
    ben.expect_error({"type": "rematch", "match": mid}, "rematch_not_player")


def test_alone_with_bots_one_tap_starts_the_rematch(h: Harness) -> None:
    anna = h.person("Anna")
    anna.send({"type": "quick_game", "seats": 2, "level": "anfaenger"})
    mid = anna.recv_type("state")["match_id"]
    play_out(h, [anna], random.Random(2))
    anna.drain()
    anna.expect_error({"type": "rematch", "match": "m-nicht-da"}, "rematch_gone")
    anna.send({"type": "rematch", "match": mid})
    new = anna.recv_type("match_started")["match"]
    assert new != mid
    assert rematch_frame(anna, "started")["next"] == new


def test_a_running_match_cannot_be_rematched_yet(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 3, ["anfaenger"], {"mode": "blitz"}, joiners=(ben,))
    anna.request({"type": "start"}, "match_started")
    mid = anna.recv_type("state")["match_id"]
    anna.expect_error({"type": "rematch", "match": mid}, "rematch_not_ready")
    anna.expect_error({"type": "rematch_follow", "match": mid}, "rematch_gone")
    anna.expect_error({"type": "rematch", "match": ""}, "bad_message")


def test_a_spectator_follows_a_match_whose_end_is_announced_but_not_marked_finished(
    h: Harness,
) -> None:
    """The end reaches the spectator's page (which then asks to follow) before the match
    is marked finished: a follow in between is taken, and the proposal reaches it."""
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    mid = finished_match(h, [anna, ben], watcher=zoe)

    async def unmark() -> None:  # the moment between the announced end and close_match
        m = h.service.db.t.matches
        async with h.service.db.engine.begin() as conn:
            await conn.execute(m.update().where(m.c.id == mid).values(status="running"))

    h.tc.portal.call(unmark)
    zoe.send({"type": "rematch_follow", "match": mid})
    h.settle()
    assert zoe.drain() == []  # taken: no error, nothing proposed yet
    anna.send({"type": "rematch", "match": mid})
    assert rematch_frame(zoe, "open")["by"] == "Anna"


def test_a_reconnecting_member_hears_the_open_proposal(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    mid = finished_match(h, [anna, ben])
    anna.send({"type": "rematch", "match": mid})
    rematch_frame(ben, "open")
    h.clock.advance(20)
    ben.close()
    h.settle()
    again = h.connect(ben.token, "Ben")
    m = rematch_frame(again, "open")
    assert m["expires_in"] == rematch.REMATCH_SECONDS - 20
    again.send({"type": "rematch", "match": mid})
    assert again.recv_type("match_started")["match"] != mid


# -- Zuletzt gespielt mit ------------------------------------------------------------------
def _auth(c: Client) -> dict[str, str]:
    return {"authorization": f"Bearer {c.token}"}


def test_recent_players_lists_the_humans_and_who_is_online(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    mid = finished_match(h, [anna, ben])
    assert mid
    got = h.tc.get("/api/me/players", headers=_auth(anna)).json()["players"]
    assert [(p["id"], p["name"], p["online"]) for p in got] == [(ben.profile["id"], "Ben", True)]
    assert set(got[0]) == {"id", "name", "online", "last_played"}  # nothing private
    ben.close()
    h.settle()
    got = h.tc.get("/api/me/players", headers=_auth(anna)).json()["players"]
    assert got[0]["online"] is False
    assert h.tc.get("/api/me/players").status_code == 401
    carl = h.person("Carl")
    assert h.tc.get("/api/me/players", headers=_auth(carl)).json() == {"players": []}


def test_invite_reaches_a_recent_opponent_and_is_refused_clearly(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    anna, ben, carl = h.person("Anna"), h.person("Ben"), h.person("Carl")
    mid = finished_match(h, [anna, ben])
    assert mid
    ben_id = ben.profile["id"]
    # Both are still in the reopened lobby.
    anna.expect_error({"type": "invite", "profile": ben_id}, "invite_here")
    ben.request({"type": "leave_lobby"}, "lobby_left")
    anna.send({"type": "invite", "profile": ben_id})
    got = ben.recv_type("invited")
    code = h.tc.get(f"/api/matches/{mid}").json()["lobby"]
    assert got == {
        "type": "invited",
        "lobby": code,
        "link": got["link"],
        "by": "Anna",
    } and got["link"].endswith(f"/#/lobby/{code}")
    sent = anna.recv_type("invite_sent")
    assert sent == {"type": "invite_sent", "profile": ben_id, "name": "Ben"}
    anna.expect_error({"type": "invite", "profile": ben_id}, "invite_again")
    anna.expect_error({"type": "invite", "profile": carl.profile["id"]}, "invite_unknown")
    anna.expect_error({"type": "invite", "profile": anna.profile["id"]}, "invite_self")
    carl.expect_error({"type": "invite", "profile": ben_id}, "invite_no_lobby")
    anna.expect_error({"type": "invite", "profile": "x" * 41}, "bad_message")
    # Ben blocked Anna (the chat's block list): refused without saying why.
    h.clock.advance(invites.AGAIN)

    async def blocked(ids: list[str]) -> set[frozenset[str]]:
        return {frozenset(ids)}

    monkeypatch.setattr(h.service.db, "blocks_among", blocked)
    anna.expect_error({"type": "invite", "profile": ben_id}, "invite_refused")
    monkeypatch.undo()
    ben.close()
    h.settle()
    anna.expect_error({"type": "invite", "profile": ben_id}, "invite_offline")


def test_invitations_have_a_budget(h: Harness) -> None:
    desk = h.service.invites

    def spend(me: str, them: str) -> None:
        h.tc.portal.call(desk._spend, me, them, "P")

    for i in range(invites.BURST):
        spend("anna", f"p{i}")
    with pytest.raises(LobbyError) as exc:
        spend("anna", "p-next")
    assert exc.value.code == "invite_too_many"
    spend("ben", "p0")  # another sender has a budget of their own
    h.clock.advance(invites.WINDOW)
    spend("anna", "p-next")
    # p-next, invited just now, may not be invited again at once.
    with pytest.raises(LobbyError) as exc:
        spend("anna", "p-next")
    assert exc.value.code == "invite_again"
