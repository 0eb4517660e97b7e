"""Rated lobbies over the socket (issue 23): the host marks a lobby *gewertet*, the
match keeps its rules and its rating once started whatever the host sends, and each
account hears its rating change at the end; the REST answers about ratings."""

from __future__ import annotations

import json
import random
from typing import Any

from ..harness import Client, Harness, lobby_with_bots, play_out, start


def account(h: Harness, name: str) -> Client:
    r = h.tc.post("/api/account", json={"name": name, "password": "geheim123"})
    assert r.status_code == 201, r.text
    return h.connect(r.json()["token"], name)


def of_type(c: Client, kind: str) -> list[dict[str, Any]]:
    c.drain()
    return [m for m in map(json.loads, c.frames) if m["type"] == kind]


def test_a_rated_lobby_keeps_its_rules_and_rates_at_the_end(h: Harness) -> None:
    anna = account(h, "Anna")
    lobby_with_bots(anna, 2, ["profi"], {"target": 30})
    lobby = anna.request({"type": "set_rated", "rated": True}, "lobby")["lobby"]
    assert lobby["rated"] is True
    mid = start(anna)["match_id"]
    # The host changes the rules, and the rating, while the match runs: refused, in German.
    anna.expect_error({"type": "set_rules", "rules": {"target": 100}}, "lobby_not_open")
    anna.expect_error({"type": "set_rules", "rules": {"seats": 3}}, "lobby_not_open")
    anna.expect_error({"type": "set_rated", "rated": False}, "lobby_not_open")
    anna.expect_error({"type": "set_rules", "rules": {"mode": "fuenfer"}}, "lobby_not_open")
    play_out(h, [anna], random.Random(3))
    row = h.tc.portal.call(h.service.db.match, mid)
    assert row["rated"] is True and row["rules"]["target"] == 30 and row["rules"]["seats"] == 2
    (rating,) = of_type(anna, "rating")
    assert rating["match"] == mid and rating["pool"] == "2" and rating["provisional"] is True
    assert rating["before"] == 1500 and rating["change"] == rating["after"] - 1500 != 0
    won = row["result"]["standings"][0]["seats"] == [0]
    assert (rating["change"] > 0) == won
    # The rating frame comes before the new profile, and only once.
    kinds = [m["type"] for m in map(json.loads, anna.frames)]
    assert kinds.index("rating") < len(kinds) - 1 - kinds[::-1].index("profile")
    mine = h.tc.get(f"/api/profiles/{anna.profile['id']}/ratings").json()
    assert mine["pools"]["2"]["rating"] == rating["after"]
    assert mine["pools"]["2"]["history"][0]["match"] == mid
    assert mine["modes"]["klassisch"]["matches"] == 1
    # The lobby is open again, still rated; now the host may change it.
    lobby = anna.request({"type": "set_rated", "rated": False}, "lobby")["lobby"]
    assert lobby["rated"] is False and lobby["status"] == "open"


def test_an_unrated_lobby_and_a_guest_get_no_rating(h: Harness) -> None:
    anna = account(h, "Anna")
    lobby_with_bots(anna, 2, ["anfaenger"], {"target": 30})
    start(anna)
    play_out(h, [anna], random.Random(1))
    assert of_type(anna, "rating") == []
    gast = h.person("Gast")
    lobby_with_bots(gast, 2, ["anfaenger"], {"target": 30})
    gast.request({"type": "set_rated", "rated": True}, "lobby")
    start(gast)
    play_out(h, [gast], random.Random(2))
    assert of_type(gast, "rating") == []
    assert h.tc.get(f"/api/profiles/{gast.profile['id']}/ratings").json()["pools"] == {}


def test_only_the_host_marks_a_lobby_rated(h: Harness) -> None:
    anna = account(h, "Anna")
    ben = account(h, "Ben")
    lobby = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]
    ben.request({"type": "join_lobby", "code": lobby["code"]}, "lobby")
    ben.expect_error({"type": "set_rated", "rated": True}, "not_host")
    ben.expect_error({"type": "set_rated", "rated": "ja"}, "bad_message")


def test_the_leaderboard_answers_in_german_when_asked_wrong(h: Harness) -> None:
    bad = h.tc.get("/api/leaderboard/5")
    assert bad.status_code == 404 and bad.json()["error"]["code"] == "bad_pool"
    assert bad.json()["error"]["message"] != "bad_pool"
    for cursor in ("x", "0", "-5", "100", "5_1500_p", "1e3", "٣"):
        r = h.tc.get("/api/leaderboard/2", params={"after": cursor})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_cursor", cursor
    empty = h.tc.get("/api/leaderboard/paare").json()
    assert empty["entries"] == [] and empty["next"] is None and empty["me"] is None
    assert (empty["min_matches"], empty["active_days"]) == (10, 30)
    assert h.tc.get("/api/profiles/nobody/ratings").status_code == 404


def test_the_leaderboard_pages_and_shows_ones_own_place(h: Harness) -> None:
    anna = account(h, "Anna")
    db = h.service.db
    now = h.clock.now()
    rows = [
        {
            "profile_id": f"p{i:03d}",
            "pool": "3",
            "mu": 25.0,
            "sigma": 2.0,
            "rating": 2000 - i,
            "matches": 12,
            "wins": 3,
            "last_at": now,
        }
        for i in range(120)
    ]
    rows.append({**rows[0], "profile_id": anna.profile["id"], "rating": 1890})

    async def fill() -> None:
        for x in rows[:-1]:
            await db.create_profile(x["profile_id"], x["profile_id"].upper(), "account", 1.0)
        async with db.engine.begin() as conn:
            await conn.execute(db.t.ratings.insert(), rows)

    h.tc.portal.call(fill)
    first = h.tc.get("/api/leaderboard/3").json()
    assert [e["place"] for e in first["entries"]] == list(range(1, 51))
    assert first["entries"][0] == {
        "place": 1,
        "profile": "p000",
        "name": "P000",
        "rating": 2000,
        "matches": 12,
        "provisional": False,
    }
    second = h.tc.get("/api/leaderboard/3", params={"after": first["next"]}).json()
    assert [e["place"] for e in second["entries"]] == list(range(51, 101))
    assert second["next"] is None  # the top 100
    assert first["me"] is None  # asked without signing in
    auth = {"authorization": f"Bearer {anna.token}"}
    mine = h.tc.get("/api/leaderboard/3", headers=auth).json()["me"]
    # 2000..1891 are p000..p109 (places 1..110); Anna's 1890 ties with p110 and her id
    # sorts after it.
    names = [e["name"] for e in mine]
    assert [e["place"] for e in mine] == [110, 111, 112, 113, 114]
    assert names[2] == "Anna" and names[:2] == ["P109", "P110"]
