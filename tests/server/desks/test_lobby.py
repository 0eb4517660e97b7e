"""Lobbies: codes and links, seats, watchers, host rights, rules, live updates, survival."""

from __future__ import annotations

from pathlib import Path

from ..harness import Client, Harness, harness


def _create(c: Client, seats: int = 2) -> dict:
    return c.request({"type": "create_lobby", "seats": seats}, "lobby")["lobby"]


def test_create_join_by_code_and_link_with_live_updates(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby = _create(anna, 3)
    code = lobby["code"]
    assert len(code) == 8 and lobby["host"] == anna.profile["id"]
    assert lobby["link"].endswith(f"/#/lobby/{code}")
    assert lobby["seats"][0]["name"] == "Anna" and lobby["seats"][0]["host"]
    r = h.tc.get(f"/l/{code.lower()}", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == f"/#/lobby/{code}"
    assert h.tc.get(f"/api/lobbies/{code}").json()["code"] == code
    # Typed codes are forgiving about case and separators.
    typed = f"{code[:4].lower()}-{code[4:]}"
    joined = ben.request({"type": "join_lobby", "code": typed}, "lobby")
    assert joined["you"] == {"player": ben.profile["id"], "seat": 1, "host": False}
    live = anna.recv_type("lobby")["lobby"]
    assert [s["name"] for s in live["seats"]] == ["Anna", "Ben", None]
    assert live["seats"][1]["online"]
    listing = h.tc.get("/api/lobbies").json()
    assert listing["open"][0]["code"] == code and listing["open"][0]["taken"] == 2
    # A lobby whose members are all offline is not listed, but still reachable by code.
    anna.close()
    ben.close()
    h.settle()
    assert h.tc.get("/api/lobbies").json()["open"] == []
    assert h.tc.get(f"/api/lobbies/{code}").json()["seats"][0]["online"] is False


def test_unknown_and_malformed_codes(h: Harness) -> None:
    ben = h.person("Ben")
    ben.expect_error({"type": "join_lobby", "code": "ZZZZZZZZ"}, "lobby_not_found")
    ben.expect_error({"type": "join_lobby", "code": "nope"}, "lobby_bad_code")
    assert h.tc.get("/api/lobbies/ZZZZZZZZ").status_code == 404
    assert h.tc.get("/l/<script>").status_code == 404


def test_watch_take_seat_and_leave_seat(h: Harness) -> None:
    anna, zoe = h.person("Anna"), h.person("Zoe")
    code = _create(anna)["code"]
    m = zoe.request({"type": "join_lobby", "code": code, "watch": True}, "lobby")
    assert m["you"]["seat"] is None and m["lobby"]["watchers"][0]["name"] == "Zoe"
    zoe.expect_error({"type": "take_seat", "seat": 0}, "seat_taken")
    zoe.expect_error({"type": "take_seat", "seat": 5}, "bad_seat")
    m = zoe.request({"type": "take_seat", "seat": 1}, "lobby")
    assert m["you"]["seat"] == 1 and m["lobby"]["watchers"] == []
    m = zoe.request({"type": "leave_seat"}, "lobby")
    assert m["you"]["seat"] is None and m["lobby"]["seats"][1]["kind"] is None
    zoe.expect_error({"type": "join_lobby", "code": _other_code(h)}, "already_in_lobby")


def _other_code(h: Harness) -> str:
    return _create(h.person("Otto"))["code"]


def test_only_the_host_adds_bots_sets_rules_and_starts(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    code = _create(anna, 3)["code"]
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    for msg in (
        {"type": "add_bot", "seat": 2, "level": "profi"},
        {"type": "remove_bot", "seat": 2},
        {"type": "set_rules", "rules": {"mode": "blitz"}},
        {"type": "start"},
    ):
        ben.expect_error(msg, "not_host")
    anna.expect_error({"type": "start"}, "seats_not_full")
    anna.expect_error({"type": "add_bot", "seat": 2, "level": "gott"}, "bad_level")
    anna.expect_error({"type": "add_bot", "seat": 1, "level": "profi"}, "seat_taken")
    anna.expect_error({"type": "remove_bot", "seat": 1}, "seat_not_bot")
    lob = anna.request({"type": "add_bot", "seat": 2, "level": "meister"}, "lobby")["lobby"]
    assert lob["seats"][2]["kind"] == "bot" and lob["seats"][2]["level"] == "meister"
    assert lob["seats"][2]["name"] == "Bot 3 (Meister)" and lob["can_start"]
    # Ben sees every change live.
    assert ben.recv_until(lambda m: m["type"] == "lobby" and m["lobby"]["can_start"])
    lob = anna.request({"type": "remove_bot", "seat": 2}, "lobby")["lobby"]
    assert lob["seats"][2]["kind"] is None and not lob["can_start"]


def test_rules_mode_sets_presets_then_single_rules_change(h: Harness) -> None:
    anna = h.person("Anna")
    _create(anna, 3)

    def rules(patch: dict) -> dict:
        return anna.request({"type": "set_rules", "rules": patch}, "lobby")["lobby"]

    lob = rules({"mode": "blitz"})
    assert lob["rules"] | {} == {
        "seats": 3,
        "mode": "blitz",
        "target": 30,
        "turn_seconds": 12,
        "lager": True,
        "fives": False,
        "pairs": False,
        "hints": 3,  # the lobby's hints per round (not a game rule), kept beside them
    }
    lob = rules({"turn_seconds": 30, "fives": True})
    assert lob["rules"]["mode"] == "blitz" and lob["rules"]["turn_seconds"] == 30
    assert lob["rules"]["fives"] and lob["rules"]["target"] == 30
    # Modus first, then the single rules of the same message.
    lob = rules({"mode": "fuenferfieber", "target": None, "lager": False})
    assert (lob["rules"]["target"], lob["rules"]["lager"], lob["rules"]["fives"]) == (
        None,
        False,
        True,
    )
    assert lob["target_points"] == 75
    anna.expect_error({"type": "set_rules", "rules": {"pairs": True}}, "pairs_need_four")
    anna.expect_error({"type": "set_rules", "rules": {"target": 40}}, "bad_target")
    anna.expect_error({"type": "set_rules", "rules": {"turn_seconds": 5}}, "bad_turn_seconds")
    anna.expect_error({"type": "set_rules", "rules": {"mode": "schach"}}, "bad_mode")
    anna.expect_error({"type": "set_rules", "rules": {"seats": 5}}, "bad_seats")
    anna.expect_error({"type": "set_rules", "rules": {"lager": None}}, "bad_rules")
    anna.expect_error({"type": "set_rules", "rules": {"colour": "red"}}, "bad_message")
    lob = rules({"seats": 4, "pairs": True})
    assert lob["rules"]["pairs"] and lob["target_points"] == 100 and len(lob["seats"]) == 4
    lob = rules({"seats": 2})
    assert not lob["rules"]["pairs"] and len(lob["seats"]) == 2


def test_fewer_seats_move_people_down_or_refuse(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    code = _create(anna, 4)["code"]
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    ben.request({"type": "take_seat", "seat": 3}, "lobby")
    anna.request({"type": "add_bot", "seat": 2, "level": "profi"}, "lobby")
    anna.expect_error({"type": "set_rules", "rules": {"seats": 2}}, "seats_occupied")
    lob = anna.request({"type": "set_rules", "rules": {"seats": 3}}, "lobby")["lobby"]
    assert [s["name"] for s in lob["seats"]] == ["Anna", "Ben", "Bot 3 (Profi)"]


def test_host_passes_on_and_the_last_one_out_closes_the_lobby(h: Harness) -> None:
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    code = _create(anna, 3)["code"]
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    zoe.request({"type": "join_lobby", "code": code, "watch": True}, "lobby")
    assert anna.request({"type": "leave_lobby"}, "lobby_left")["reason"] == "left"
    m = ben.recv_until(lambda m: m["type"] == "lobby" and m["lobby"]["host"] != anna.profile["id"])
    assert m["lobby"]["host"] == ben.profile["id"] and m["you"]["host"]
    ben.request({"type": "leave_lobby"}, "lobby_left")
    m = zoe.recv_until(lambda m: m["type"] == "lobby" and m["lobby"]["host"] == zoe.profile["id"])
    zoe.request({"type": "leave_lobby"}, "lobby_left")
    ben.expect_error({"type": "join_lobby", "code": code}, "lobby_not_found")
    anna.expect_error({"type": "leave_lobby"}, "not_in_lobby")


def test_lobbies_survive_a_restart(tmp_path: Path) -> None:
    with harness(tmp_path) as h1:
        anna = h1.person("Anna")
        code = _create(anna, 3)["code"]
        anna.request({"type": "add_bot", "seat": 2, "level": "profi"}, "lobby")
        token = anna.token
    with harness(tmp_path) as h2:
        again = h2.connect(token, "Anna")
        assert again.profile["name"] == "Anna"
        lob = again.recv_type("lobby")
        assert lob["lobby"]["code"] == code and lob["you"]["host"]
        assert lob["lobby"]["seats"][2]["level"] == "profi"


def test_fill_bots_seats_a_bot_of_the_level_on_every_free_seat(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    code = _create(anna, 4)["code"]
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    ben.expect_error({"type": "fill_bots", "level": "profi"}, "not_host")
    anna.expect_error({"type": "fill_bots", "level": "gott"}, "bad_level")
    lob = anna.request({"type": "fill_bots", "level": "profi"}, "lobby")["lobby"]
    assert [s["kind"] for s in lob["seats"]] == ["human", "human", "bot", "bot"]
    assert [s["name"] for s in lob["seats"][2:]] == ["Bot 3 (Profi)", "Bot 4 (Profi)"]
    assert lob["can_start"]
    assert ben.recv_until(lambda m: m["type"] == "lobby" and m["lobby"]["can_start"])
    # A full lobby: nothing to fill, nothing changes, no error.
    anna.send({"type": "fill_bots", "level": "anfaenger"})
    anna.send({"type": "ping"})
    assert anna.recv_type("pong")
    assert h.tc.get(f"/api/lobbies/{code}").json()["seats"][3]["level"] == "profi"


def test_quick_game_makes_lobby_bots_and_match_in_one_step(h: Harness) -> None:
    anna = h.person("Anna")
    anna.send({"type": "quick_game", "seats": 3, "level": "anfaenger"})
    lob = anna.recv_type("lobby")["lobby"]
    assert lob["status"] == "playing" and lob["rules"]["mode"] == "klassisch"
    assert [s["kind"] for s in lob["seats"]] == ["human", "bot", "bot"]
    assert {s["level"] for s in lob["seats"][1:]} == {"anfaenger"}
    started = anna.recv_type("match_started")
    assert started["seat"] == 0 and started["lobby"] == lob["code"]
    state = anna.recv_type("state")
    assert state["you"] == 0 and len(state["seats"]) == 3
    # Already in a lobby (the quick game's): refused, nothing made.
    anna.expect_error({"type": "quick_game", "seats": 2}, "already_in_lobby")
    ben = h.person("Ben")
    ben.expect_error({"type": "quick_game", "seats": 5}, "bad_seats")
    ben.expect_error({"type": "quick_game", "seats": 2, "level": "gott"}, "bad_level")
    assert h.tc.get("/api/lobbies").json()["open"] == []


def test_a_quick_game_leaves_a_held_lobby_only_when_asked_and_says_so(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    code = anna.request({"type": "create_lobby", "seats": 3}, "lobby")["lobby"]["code"]
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    anna.drain()
    # Not asked to leave: refused, the lobby stays as it was.
    anna.expect_error({"type": "quick_game", "seats": 2}, "already_in_lobby")
    # Asked to leave, but the quick game could not start: refused, nothing left either.
    anna.expect_error({"type": "quick_game", "seats": 5, "leave": True}, "bad_seats")
    anna.expect_error({"type": "quick_game", "level": "gott", "leave": True}, "bad_level")
    held = h.tc.get(f"/api/lobbies/{code}").json()
    assert [s["name"] for s in held["seats"]] == ["Anna", "Ben", None]
    assert held["host"] == anna.profile["id"]
    ben.drain()

    # Asked to leave: first the lobby is left (and she is told which), then the new game.
    anna.send({"type": "quick_game", "seats": 2, "level": "anfaenger", "leave": True})
    left = anna.recv_until(lambda m: m["type"] in ("lobby_left", "lobby", "error"))
    assert left == {"type": "lobby_left", "code": code, "reason": "left"}
    new = anna.recv_type("lobby")["lobby"]
    assert new["code"] != code and new["status"] == "playing"
    assert anna.recv_type("match_started")["lobby"] == new["code"]
    # Ben keeps the lobby, now his.
    mine = ben.recv_type("lobby")
    assert [s["name"] for s in mine["lobby"]["seats"]] == [None, "Ben", None]
    assert mine["you"]["host"] is True

    # Seated in a running match: refused before anything is left.
    ben.request({"type": "add_bot", "seat": 0, "level": "anfaenger"}, "lobby")
    ben.request({"type": "add_bot", "seat": 2, "level": "anfaenger"}, "lobby")
    ben.request({"type": "start"}, "match_started")
    ben.expect_error({"type": "quick_game", "leave": True}, "in_match")
    playing = h.tc.get(f"/api/lobbies/{code}").json()
    assert playing["status"] == "playing" and playing["host"] == ben.profile["id"]
    assert not [m for m in ben.drain() if m["type"] == "lobby_left"]
