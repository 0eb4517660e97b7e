"""*Mit Menschen spielen*: the matchmaking queue on one process (issue 23, item 1)."""

from __future__ import annotations

import json
from typing import Any

from domino.server.desks.pairing import BOT_RATINGS, bot_level_for

from ..harness import Client, Harness

JOIN = {"type": "queue_join", "seats": "2", "mode": "klassisch", "wait": 60}


def queue_tick(h: Harness) -> None:
    h.tc.portal.call(h.service.queue.tick)


def waiting(c: Client) -> dict[str, Any]:
    return c.recv_type("queue")


def test_two_players_of_the_same_choice_meet_at_one_table(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    first = anna.request(JOIN, "queue")
    assert first["others"] == 0 and first["seats"] == "2" and first["wait"] == 60
    ben.send(JOIN)
    got = [c.recv_until(lambda m: m["type"] in ("queue_left", "error")) for c in (anna, ben)]
    assert [g["reason"] for g in got] == ["matched", "matched"]
    mid = got[0]["match"]
    assert mid and got[1]["match"] == mid
    starts = [c.recv_type("match_started") for c in (anna, ben)]
    assert {s["match"] for s in starts} == {mid} and {s["seat"] for s in starts} == {0, 1}
    lob = h.tc.get(f"/api/lobbies/{starts[0]['lobby']}").json()
    assert lob["status"] == "playing" and [s["kind"] for s in lob["seats"]] == ["human"] * 2
    # The rows are gone with the pairing: nobody waits, nobody is paired again.
    assert h.tc.portal.call(h.service.db.queue_rows) == []
    queue_tick(h)
    assert h.service.queue.paired == 1


def test_only_the_same_choice_meets_and_the_count_names_nobody(h: Harness) -> None:
    anna, ben, cara = h.person("Anna"), h.person("Ben"), h.person("Cara")
    anna.request({**JOIN, "seats": "3"}, "queue")
    ben.request({**JOIN, "seats": "3", "mode": "blitz"}, "queue")
    cara.send({**JOIN, "seats": "3"})
    me = cara.recv_type("queue")
    assert me["others"] == 1
    assert anna.recv_until(lambda m: m["type"] == "queue" and m["others"] == 1)
    queue_tick(h)
    assert {r.profile_id for r in h.tc.portal.call(h.service.db.queue_rows)} == {
        c.profile["id"] for c in (anna, ben, cara)
    }
    # Nothing any of them heard while waiting names another waiting person.
    for c in (anna, ben, cara):
        for raw in c.frames:
            m = json.loads(raw)
            if m["type"] in ("queue", "queue_left"):
                for other in (anna, ben, cara):
                    if other is not c:
                        assert other.profile["id"] not in raw and other.name not in raw


def test_a_wait_that_runs_out_fills_the_seats_with_bots(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    anna.request({**JOIN, "seats": "4", "wait": 30}, "queue")
    ben.request({**JOIN, "seats": "4", "wait": 0}, "queue")  # nur Menschen: never bots
    h.clock.advance(29.0)
    queue_tick(h)
    assert not [m for m in anna.drain() if m["type"] == "queue_left"]
    h.clock.advance(1.0)
    queue_tick(h)
    left = anna.recv_type("queue_left")
    assert left["reason"] == "matched"
    lob = anna.recv_type("lobby")["lobby"]
    assert [s["kind"] for s in lob["seats"]] == ["human", "bot", "bot", "bot"]
    assert {s["level"] for s in lob["seats"][1:]} == {bot_level_for([1500.0])}
    # Ben chose people only: he waits on, however long.
    h.clock.advance(600.0)
    queue_tick(h)
    assert [r.profile_id for r in h.tc.portal.call(h.service.db.queue_rows)] == [ben.profile["id"]]
    assert not [m for m in ben.drain() if m["type"] == "queue_left"]


def test_paare_seats_four_people_as_two_pairs(h: Harness) -> None:
    people = [h.person(n) for n in ("Anna", "Ben", "Cara", "Dora")]
    for c in people:
        c.send({**JOIN, "seats": "paare", "mode": "zugemauert"})
    mids = {c.recv_type("queue_left")["match"] for c in people}
    assert len(mids) == 1
    lob = people[0].recv_type("lobby")["lobby"]
    assert lob["rules"]["pairs"] is True and lob["rules"]["mode"] == "zugemauert"
    assert [s["kind"] for s in lob["seats"]] == ["human"] * 4


def test_hostile_joins_get_clear_errors_and_nobody_waits_twice(h: Harness) -> None:
    anna = h.person("Anna")
    anna.expect_error({**JOIN, "seats": "5"}, "queue_bad_choice")
    anna.expect_error({**JOIN, "mode": "gott"}, "queue_bad_choice")
    anna.expect_error({**JOIN, "wait": 7}, "queue_bad_wait")
    anna.expect_error({**JOIN, "wait": "60"}, "bad_message")
    anna.expect_error({**JOIN, "seats": "2" * 100}, "bad_message")
    # Two tabs at once: the second join is refused, both tabs see the one wait.
    tab2 = h.connect(anna.token, "Anna")
    anna.request(JOIN, "queue")
    assert tab2.recv_type("queue")["seats"] == "2"
    tab2.expect_error({**JOIN, "seats": "3"}, "already_queued")
    assert len(h.tc.portal.call(h.service.db.queue_rows)) == 1
    # Closing one tab keeps the wait; the last one leaves the queue.
    tab2.close()
    h.settle()
    queue_tick(h)
    assert len(h.tc.portal.call(h.service.db.queue_rows)) == 1
    # Cancel: told, gone.
    assert anna.request({"type": "queue_leave"}, "queue_left")["reason"] == "left"
    assert h.tc.portal.call(h.service.db.queue_rows) == []
    anna.request(JOIN, "queue")
    anna.close()
    h.settle()
    assert h.tc.portal.call(h.service.db.queue_rows) == []


def test_a_socket_in_a_match_cannot_queue_and_a_lobby_ends_the_wait(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    anna.request({"type": "quick_game", "seats": 2, "level": "anfaenger"}, "match_started")
    anna.expect_error(JOIN, "in_match")
    anna.expect_error({**JOIN, "leave": True}, "in_match")
    assert h.tc.portal.call(h.service.db.queue_rows) == []
    # Waiting, then opening a lobby: the wait ends first (nobody waits and plays).
    ben.request(JOIN, "queue")
    ben.send({"type": "create_lobby", "seats": 2})
    assert ben.recv_type("queue_left")["reason"] == "lobby"
    code = ben.recv_type("lobby")["lobby"]["code"]
    # In a lobby: refused unless agreed to leave it; then left first, and waiting.
    ben.expect_error(JOIN, "already_in_lobby")
    ben.send({**JOIN, "leave": True})
    assert ben.recv_type("lobby_left")["code"] == code
    assert ben.recv_type("queue")["others"] == 0


def test_bot_level_follows_the_tables_ratings() -> None:
    levels = sorted(BOT_RATINGS, key=BOT_RATINGS.__getitem__)
    assert [bot_level_for([BOT_RATINGS[lv] + 10]) for lv in levels] == levels
    assert bot_level_for([]) in BOT_RATINGS
