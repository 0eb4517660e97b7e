"""Draining (SIGTERM, docs/deploy.md): health says 503, no new lobbies or matches."""

from __future__ import annotations

from .harness import Harness


def test_health_names_the_node_and_says_it_takes_matches(h: Harness) -> None:
    r = h.tc.get("/api/health")
    assert r.status_code == 200
    assert r.json() == {
        "ok": True,
        "protocol": 1,
        "node": h.service.node,
        "accepting": True,
        "down": [],
    }


def test_a_draining_node_answers_503_and_refuses_new_lobbies_and_matches(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]
    ben.request({"type": "join_lobby", "code": lobby["code"]}, "lobby")
    h.tc.portal.call(h.service.drain)
    r = h.tc.get("/api/health")
    assert r.status_code == 503
    assert r.json()["accepting"] is False and r.json()["ok"] is True
    # What is here goes on (the lobby, its members' sockets), nothing new starts.
    anna.expect_error({"type": "start"}, "node_draining")
    ben.request({"type": "leave_lobby"}, "lobby_left")
    ben.expect_error({"type": "create_lobby", "seats": 2}, "node_draining")
    assert ben.request({"type": "list_lobbies"}, "lobby_list")
    assert h.service.runners == {}
