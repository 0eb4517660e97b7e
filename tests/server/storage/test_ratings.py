"""Ratings as rows (issue 23): a rated match's end updates its accounts' ratings in the
end's own transaction, once; guests and bots are never stored; the leaderboard is read
in rating order with its filters, paged, with one's own place. SQLite and, with
DOMINO_TEST_POSTGRES, PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from domino.ratings import START, display, start_skill
from domino.server.storage.db import Database
from domino.server.storage.ratings import ACTIVE_DAYS, DAY

from .test_storage import BACKENDS, _url


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    url, prefix = _url(request.param, tmp_path)
    database = Database(url, prefix)
    await database.create()
    try:
        yield database
    finally:
        await database.drop()
        await database.close()


def human(pid: str) -> dict[str, Any]:
    return {"kind": "human", "name": pid, "level": None, "player_id": pid}


def bot(level: str) -> dict[str, Any]:
    return {"kind": "bot", "name": level, "level": level, "player_id": None}


def standings(places: list[int], pairs: bool = False) -> dict[str, Any]:
    """A result whose seat ``i`` (or team ``i % 2`` in Paare) has ``places[i]``."""
    if pairs:
        return {
            "standings": [
                {"side": s, "seats": [s, s + 2], "points": 0, "place": places[s]} for s in (0, 1)
            ]
        }
    return {
        "standings": [
            {"side": i, "seats": [i], "points": 0, "place": pl} for i, pl in enumerate(places)
        ]
    }


def row(seat: int, pid: str, place: int, finished: bool = True) -> dict[str, Any]:
    return {
        "seat": seat,
        "profile_id": pid,
        "place": place,
        "xp": 10,
        "won": finished and place == 1,
        "finished": finished,
    }


async def end(
    db: Database,
    mid: str,
    seats: list[dict[str, Any]],
    places: list[int],
    now: float = 100.0,
    rated: bool = True,
    left: tuple[str, ...] = (),
    pairs: bool = False,
) -> bool:
    rules = {"seats": len(seats), "pairs": pairs, "mode": "klassisch"}
    await db.create_match(mid, None, rules, seats, "seed", now - 10, [], rated=rated)
    res = standings(places, pairs)
    place_of = {seat: s["place"] for s in res["standings"] for seat in s["seats"]}
    players = [
        row(i, s["player_id"], place_of[i], s["player_id"] not in left)
        for i, s in enumerate(seats)
        if s["kind"] == "human"
    ]
    return await db.end_match(mid, now, res, {"log": []}, players)


async def accounts(db: Database, *pids: str, kind: str = "account") -> None:
    for pid in pids:
        await db.create_profile(
            pid, pid.title(), kind, 1.0, name_key=pid if kind == "account" else None
        )


async def test_a_rated_end_updates_the_accounts_once_and_never_a_guest(db: Database) -> None:
    await accounts(db, "anna", "ben")
    await accounts(db, "gast", kind="guest")
    seats = [human("anna"), human("ben"), human("gast")]
    assert await end(db, "m1", seats, [1, 2, 3]) is True
    # The owner died after storing the end; the node that takes over stores it again.
    res = standings([1, 2, 3])
    assert await db.end_match("m1", 120.0, res, {"log": []}, []) is False
    changes = await db.rating_changes("m1")
    assert set(changes) == {"anna", "ben"}  # the guest took part, unrated
    assert changes["anna"]["change"] > changes["ben"]["change"]  # (second of three gains too)
    assert changes["anna"]["before"] == display(start_skill()) == START
    assert changes["anna"]["pool"] == "3" and changes["anna"]["provisional"] is True
    anna = await db.profile_ratings("anna")
    assert list(anna["pools"]) == ["3"]
    three = anna["pools"]["3"]
    assert (three["matches"], three["wins"], three["rating"]) == (1, 1, changes["anna"]["after"])
    assert [h["match"] for h in three["history"]] == ["m1"]
    assert anna["modes"] == {"klassisch": {"matches": 1, "wins": 1, "average_place": 1.0}}
    assert (await db.profile_ratings("gast"))["pools"] == {}


async def test_an_unrated_match_changes_no_rating(db: Database) -> None:
    await accounts(db, "anna", "ben")
    assert await end(db, "m1", [human("anna"), human("ben")], [1, 2], rated=False)
    assert await db.rating_changes("m1") == {}
    assert (await db.profile_ratings("anna"))["pools"] == {}


async def test_a_human_is_rated_against_the_bots_fixed_ratings(db: Database) -> None:
    await accounts(db, "anna", "ben")
    await end(db, "m1", [human("anna"), bot("meister")], [1, 2])
    await end(db, "m2", [human("ben"), bot("anfaenger")], [1, 2])
    a, b = await db.rating_changes("m1"), await db.rating_changes("m2")
    assert a["anna"]["change"] > b["ben"]["change"] > 0  # beating Meister is worth more


async def test_a_leaver_ranks_last_even_when_ahead(db: Database) -> None:
    await accounts(db, "anna", "ben")
    await end(db, "m1", [human("anna"), human("ben")], [1, 2], left=("anna",))
    changes = await db.rating_changes("m1")
    assert changes["anna"]["change"] < 0 < changes["ben"]["change"]
    anna = (await db.profile_ratings("anna"))["pools"]["2"]
    assert anna["wins"] == 0


async def test_paare_rates_the_teams(db: Database) -> None:
    await accounts(db, "anna", "ben", "cem", "dua")
    seats = [human("anna"), human("ben"), human("cem"), human("dua")]  # teams 0+2, 1+3
    await end(db, "m1", seats, [2, 1], pairs=True)
    changes = await db.rating_changes("m1")
    assert {k: v["pool"] for k, v in changes.items()} == dict.fromkeys(changes, "paare")
    assert changes["ben"]["change"] == changes["dua"]["change"] > 0
    assert changes["anna"]["change"] == changes["cem"]["change"] < 0


async def test_pairing_ratings_default_to_the_start(db: Database) -> None:
    await accounts(db, "anna", "ben")
    await end(db, "m1", [human("anna"), human("ben")], [1, 2])
    got = await db.pairing_ratings(["anna", "ben", "nobody"], "2")
    after = await db.rating_changes("m1")
    assert got == {"anna": after["anna"]["after"], "ben": after["ben"]["after"], "nobody": START}
    assert await db.pairing_ratings(["anna"], "3") == {"anna": START}
    assert await db.pairing_ratings([], "2") == {}


async def test_the_board_lists_the_active_with_ten_matches_in_order(db: Database) -> None:
    # 12 accounts with ratings written directly: a few not listed (too few matches,
    # inactive, another pool); equal ratings ordered by id.
    now = 1_000_000.0
    r = db.t.ratings
    rows = []
    for i in range(12):
        rows.append(
            {
                "profile_id": f"p{i:02d}",
                "pool": "2",
                "mu": 25.0,
                "sigma": 2.0,
                "rating": 1500 + 10 * (i // 2),
                "matches": 9 if i == 11 else 10,
                "wins": 1,
                "last_at": now - (ACTIVE_DAYS + 1) * DAY if i == 10 else now - DAY,
            }
        )
    rows.append({**rows[0], "pool": "3", "rating": 3000})
    for x in rows:
        if x["pool"] == "2":
            await accounts(db, x["profile_id"])
    async with db.engine.begin() as conn:
        await conn.execute(r.insert(), rows)
    assert await db.board_page("2", 1, 100) == []  # never built
    assert await db.build_board("2", now, every=60.0) is True
    # Built a moment ago: another node asking now finds it done.
    assert await db.build_board("2", now + 30.0, every=60.0) is False
    assert await db.board_built("2") == now
    top = await db.board_page("2", 1, 100)
    ids = [e["profile"] for e in top]
    assert ids == ["p08", "p09", "p06", "p07", "p04", "p05", "p02", "p03", "p00", "p01"]
    assert [e["place"] for e in top] == list(range(1, 11))
    assert top[0]["name"] == "P08" and top[0]["provisional"] is False
    page2 = await db.board_page("2", 5, 4)
    assert [e["profile"] for e in page2] == ids[4:8]
    assert await db.board_around("2", "p10", 2) == []  # inactive
    assert await db.board_around("2", "p11", 2) == []  # nine matches
    around = await db.board_around("2", "p04", 2)
    assert [(e["place"], e["profile"]) for e in around] == [
        (3, "p06"),
        (4, "p07"),
        (5, "p04"),
        (6, "p05"),
        (7, "p02"),
    ]
    around = await db.board_around("2", "p08", 2)
    assert [e["profile"] for e in around] == ["p08", "p09", "p06"]
    # A change shows once the board is built again.
    async with db.engine.begin() as conn:
        await conn.execute(r.update().where(r.c.profile_id == "p00").values(rating=3000))
    assert (await db.board_page("2", 1, 1))[0]["profile"] == "p08"
    assert await db.build_board("2", now + 61.0, every=60.0) is True
    assert (await db.board_page("2", 1, 1))[0]["profile"] == "p00"
