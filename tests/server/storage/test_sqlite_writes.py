"""Writes on SQLite in a file (storage/engine.py ``Core._write``): each transaction runs on
the event loop's thread from start to commit, takes no turn of the loop, rolls back as a
whole when it fails, and what it committed is what the readers (aiosqlite) see."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domino.server.storage.db import Database
from domino.server.storage.lobbies import InOtherLobby


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    d = Database(f"sqlite+aiosqlite:///{tmp_path / 'writes.sqlite'}")
    await d.create()
    try:
        yield d
    finally:
        await d.close()


async def _turns_during(work: object) -> int:
    """How many turns the event loop made while ``work`` (a coroutine) ran."""
    turns = 0
    running = True

    async def count() -> None:
        nonlocal turns
        while running:
            await asyncio.sleep(0)
            turns += 1

    counter = asyncio.create_task(count())
    await asyncio.sleep(0)
    before = turns
    await work  # type: ignore[misc]
    after = turns
    running = False
    await counter
    return after - before


async def test_a_write_takes_no_turn_of_the_loop_and_the_readers_see_it(db: Database) -> None:
    assert await _turns_during(db.create_profile("p1", "Anna", "guest", 1.0)) == 0
    assert await _turns_during(db.save_lobby("ABCD", "open", {"n": 1}, 1.0, None, ["p1"])) == 0
    profile = await db.profile("p1")
    assert profile is not None and profile["name"] == "Anna"
    row = await db.lobby_row("ABCD")
    assert row is not None and row.doc == {"n": 1} and row.version == 1
    assert await db.lobby_of("p1") == "ABCD"
    # A read, by contrast, goes to aiosqlite's thread and back.
    assert await _turns_during(db.lobby_row("ABCD")) > 0


async def test_a_failed_write_leaves_nothing_of_itself(db: Database) -> None:
    for pid in ("p1", "p2"):
        await db.create_profile(pid, pid, "guest", 1.0)
    await db.save_lobby("AAAA", "open", {"n": 1}, 1.0, None, ["p1"])
    # The new lobby's row is inserted before p1 turns out to be in another lobby.
    with pytest.raises(InOtherLobby):
        await db.save_lobby("BBBB", "open", {"n": 2}, 2.0, None, ["p2", "p1"])
    assert await db.lobby_row("BBBB") is None
    assert await db.lobby_of("p2") is None
    # The lock is free again and the next write goes through.
    assert await db.save_lobby("BBBB", "open", {"n": 3}, 3.0, None, ["p2"]) == 1
    assert await db.lobby_of("p2") == "BBBB"


async def test_appends_arriving_one_after_another_share_a_paced_commit(db: Database) -> None:
    await db.create_match("m1", None, {}, [], "s", 1.0, [{"v": 0}])
    commits: list[int] = []
    store = db._store_entries

    def counted(con: object, batch: list[object]) -> None:
        commits.append(len(batch))
        store(con, batch)  # type: ignore[arg-type]

    db._store_entries = counted  # type: ignore[method-assign,assignment]
    await db.append("m1", 1, [{"v": 1}])  # alone: committed at once
    assert commits == [1]

    async def one(i: int) -> None:
        for _ in range(i):
            await asyncio.sleep(0)  # one arrives per turn of the loop
        await db.append("m1", 2 + i, [{"v": 2 + i}])

    await asyncio.gather(*(one(i) for i in range(20)))
    # Unpaced, each would have had a commit of its own (21 in all).
    assert sum(commits) == 21 and len(commits) <= 4, commits
    assert [e["v"] for e in await db.match_log("m1")] == list(range(22))
