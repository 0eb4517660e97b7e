"""Storage on SQLite and, when DOMINO_TEST_POSTGRES is set, on PostgreSQL as well.

Each PostgreSQL test uses its own table prefix and drops its tables, so parallel
runs against one database never collide.
"""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from domino.server import Settings
from domino.server.desks.doors import StaleFence
from domino.server.desks.queries import Queries, QueryError
from domino.server.storage.db import Database
from domino.server.storage.lobbies import InOtherLobby, LobbyConflict
from domino.server.storage.profiles import NameTaken
from domino.server.storage.queue import AlreadyQueued
from domino_bench.benchdb import bench

from ..harness import harness, latest_state, lobby_with_bots, play_out, start

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
NO_PG = "PostgreSQL storage tests skipped: set DOMINO_TEST_POSTGRES (.ci/run does) to run them"
BACKENDS = [
    "sqlite",
    pytest.param(
        "postgres", marks=[pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason=NO_PG)]
    ),
]


def _url(backend: str, tmp_path: Path) -> tuple[str, str]:
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite'}", ""
    assert PG_URL is not None
    return PG_URL, f"t{uuid.uuid4().hex[:12]}_"


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


async def test_profiles_tokens_and_unique_account_names(db: Database) -> None:
    await db.create_profile("p1", "Anna", "guest", 1.0, token_hash="h1")
    assert await db.profile_by_token("h1") == "p1"
    assert await db.profile_by_token("h2") is None
    await db.make_account("p1", "Anna", "anna", "argon")
    row = await db.profile("p1")
    assert row is not None and row["kind"] == "account" and row["password_hash"] == "argon"
    with pytest.raises(NameTaken):
        await db.create_profile("p2", "ANNA", "account", 2.0, name_key="anna")
    assert await db.profile("p2") is None  # nothing half-written
    await db.add_token("h3", "p1", 3.0)
    await db.delete_token("h1")
    assert await db.profile_by_token("h1") is None and await db.profile_by_token("h3") == "p1"
    assert (await db.account("anna") or {}).get("id") == "p1"


async def test_lobbies_are_versioned_and_closed_ones_not_loaded(db: Database) -> None:
    v = await db.save_lobby("AAAA2222", "open", {"code": "AAAA2222", "n": 1}, 1.0)
    v = await db.save_lobby("AAAA2222", "open", {"code": "AAAA2222", "n": 2}, 2.0, v)
    assert v == 2
    await db.save_lobby("BBBB3333", "closed", {"code": "BBBB3333"}, 2.0)
    assert await db.live_lobbies() == [{"code": "AAAA2222", "n": 2}]
    row = await db.lobby_row("AAAA2222")
    assert row is not None and row.version == 2 and row.doc["n"] == 2
    assert await db.lobby_exists("BBBB3333") and not await db.lobby_exists("CCCC4444")
    assert await db.lobby_row("BBBB3333") is None


async def test_a_lobby_change_from_an_old_version_is_refused(db: Database) -> None:
    v = await db.save_lobby("AAAA2222", "open", {"n": 1}, 1.0)
    await db.save_lobby("AAAA2222", "open", {"n": 2}, 2.0, v)
    with pytest.raises(LobbyConflict):  # another node changed it since version 1
        await db.save_lobby("AAAA2222", "open", {"n": 3}, 3.0, v)
    with pytest.raises(LobbyConflict):  # the code exists already
        await db.save_lobby("AAAA2222", "open", {"n": 4}, 3.0)
    assert await db.lobby_doc("AAAA2222") == {"n": 2}


async def test_nobody_is_in_two_lobbies(db: Database) -> None:
    v = await db.save_lobby("AAAA2222", "open", {"n": 1}, 1.0, joined=["p1"])
    w = await db.save_lobby("BBBB3333", "open", {"n": 1}, 1.0, joined=["p2"])
    with pytest.raises(InOtherLobby) as err:
        await db.save_lobby("BBBB3333", "open", {"n": 2}, 2.0, w, joined=["p1"])
    assert err.value.pid == "p1"
    assert (await db.lobby_row("BBBB3333")).version == w  # type: ignore[union-attr]
    assert await db.lobby_of("p1") == "AAAA2222"
    v = await db.save_lobby("AAAA2222", "open", {"n": 2}, 2.0, v, left=["p1"])
    assert await db.lobby_of("p1") is None
    await db.save_lobby("BBBB3333", "open", {"n": 2}, 2.0, w, joined=["p1"])
    assert await db.lobby_of("p1") == "BBBB3333"
    # The lobby with its version by a member, in one statement (presence asks it).
    row = await db.lobby_row_of("p1")
    assert row is not None and (row.doc, row.version) == ({"n": 2}, w + 1)
    assert await db.lobby_row_of("p3") is None
    # A closed lobby keeps no members.
    await db.save_lobby("BBBB3333", "closed", {"n": 3}, 3.0, w + 1)
    assert await db.lobby_of("p1") is None and await db.lobby_of("p2") is None
    assert await db.lobby_row_of("p1") is None and await db.lobby_row_of("p2") is None


async def test_the_match_log_is_append_only_and_replayable(db: Database) -> None:
    seats = [{"kind": "human", "name": "Anna", "level": None, "player_id": "p1"}]
    await db.create_profile("p1", "Anna", "guest", 1.0)
    await db.create_match("m1", None, {"seats": 2}, seats, "seed", 1.0, [{"v": 1}])
    await db.append("m1", 1, [{"v": 2}, {"v": 3}])
    with pytest.raises(IntegrityError):
        await db.append("m1", 2, [{"v": 99}])
    (stored,) = await db.unfinished()
    assert stored.log == [{"v": 1}, {"v": 2}, {"v": 3}] and stored.seed == "seed"
    players = [{"seat": 0, "profile_id": "p1", "place": 1, "xp": 50, "won": True, "finished": True}]
    await db.finish_match("m1", 9.0, {"standings": []}, {"log": []}, players)
    assert await db.unfinished() == []
    row = await db.profile("p1")
    assert row is not None and (row["xp"], row["played"], row["won"]) == (50, 1, 1)
    (recent,) = await db.recent("p1", 10)
    assert recent["match_id"] == "m1" and recent["xp"] == 50
    match = await db.match("m1")
    assert match is not None and match["status"] == "finished" and match["record"] == {"log": []}


async def test_a_matchs_end_is_stored_once_and_it_runs_until_announced(db: Database) -> None:
    # An owner that stored the end and died before announcing it leaves the match
    # running; the node that takes it over stores the end again, which changes nothing.
    seats = [{"kind": "human", "name": "Anna", "level": None, "player_id": "p1"}]
    await db.create_profile("p1", "Anna", "guest", 1.0)
    await db.create_match("m1", None, {"seats": 2}, seats, "seed", 1.0, [{"v": 1}])
    players = [{"seat": 0, "profile_id": "p1", "place": 1, "xp": 50, "won": True, "finished": True}]
    assert await db.end_match("m1", 9.0, {"standings": []}, {"log": []}, players) is True
    assert await db.running_ids() == ["m1"]
    assert await db.end_match("m1", 12.0, {"standings": []}, {"log": []}, players) is False
    row = await db.profile("p1")
    assert row is not None and (row["xp"], row["played"], row["won"]) == (50, 1, 1)
    assert len(await db.recent("p1", 10)) == 1
    await db.close_match("m1")
    assert await db.running_ids() == []
    match = await db.match("m1")
    assert match is not None and (match["status"], match["finished_at"]) == ("finished", 9.0)


async def test_a_record_is_served_once_the_end_is_stored_before_it_is_announced(
    db: Database,
) -> None:
    # The end is stored before anyone hears of it; the status turns ``finished`` only
    # after the announcement. A player who asks for the replay as soon as the final
    # frame arrives must get the record, not "Diese Partie läuft noch".
    seats = [{"kind": "human", "name": "Anna", "level": None, "player_id": "p1"}]
    await db.create_profile("p1", "Anna", "guest", 1.0)
    await db.create_match("m1", None, {"seats": 2}, seats, "seed", 1.0, [{"v": 1}])
    queries = Queries(Settings(), db)
    with pytest.raises(QueryError) as running:
        await queries.finished_record("m1")
    assert running.value.code == "replay_match_running"
    players = [{"seat": 0, "profile_id": "p1", "place": 1, "xp": 50, "won": True, "finished": True}]
    await db.end_match("m1", 9.0, {"standings": []}, {"log": []}, players)
    with pytest.raises(QueryError) as stored:
        await queries.finished_record("m1")
    assert stored.value.code == "replay_no_record"  # this row's record is no game record


@pytest.fixture(params=BACKENDS)
def server_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str | None, str]]:
    if request.param == "sqlite":
        yield None, ""
        return
    url, prefix = _url("postgres", tmp_path)

    async def upgrade() -> None:  # what `domino db upgrade` does; a node does not on PostgreSQL
        database = Database(url, prefix)
        await database.migrate()
        await database.close()

    async def drop() -> None:
        database = Database(url, prefix)
        await database.drop()
        await database.close()

    asyncio.run(upgrade())
    yield url, prefix
    asyncio.run(drop())


def test_a_match_resumes_after_a_restart_on_each_database(
    tmp_path: Path, server_db: tuple[str | None, str]
) -> None:
    url, prefix = server_db
    rng = random.Random(5)
    with harness(tmp_path, db_url=url, table_prefix=prefix) as h1:
        anna = h1.person("Anna")
        lobby_with_bots(anna, 2, ["anfaenger"], {"mode": "blitz"})
        start(anna)
        for _ in range(6):
            h1.step()
        anna.drain()
        before = latest_state(anna)
        token, clock = anna.token, h1.clock
    with harness(tmp_path, db_url=url, table_prefix=prefix, clock=clock) as h2:
        anna = h2.connect(token, "Anna")
        snap = anna.recv_type("state")
        assert before is not None and snap["v"] == before["v"]
        assert snap["view"]["hand"] == before["view"]["hand"]
        play_out(h2, [anna], rng)
        assert (latest_state(anna) or {})["phase"] == "match_over"
        page = h2.tc.get(f"/api/profiles/{anna.profile['id']}").json()
        assert page["profile"]["played"] == 1


async def test_concurrent_appends_share_commits_and_fail_alone(db: Database) -> None:
    seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
    for m in range(20):
        await db.create_match(f"m{m}", None, {}, seats, "s", 1.0, [{"v": 1}])

    async def play(m: int) -> None:
        for v in range(2, 12):
            await db.append(f"m{m}", v - 1, [{"v": v}])

    async def clash() -> None:
        await db.append("m0", 0, [{"v": 1}])  # position 0 of m0 exists: refused

    results = await asyncio.gather(*(play(m) for m in range(20)), clash(), return_exceptions=True)
    assert all(r is None for r in results[:20]), results
    assert isinstance(results[20], IntegrityError)
    for m in range(20):
        assert await db.match_log(f"m{m}") == [{"v": v} for v in range(1, 12)]


async def test_the_append_benchmark_runs(tmp_path: Path) -> None:
    line = await bench(f"sqlite+aiosqlite:///{tmp_path / 'b.sqlite'}", 3, 4)
    assert line.startswith("3 matches x 4 appends: ") and "appends/s" in line


async def test_a_claim_increments_the_fence_and_a_stale_append_is_refused(db: Database) -> None:
    seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
    await db.create_match("m1", None, {}, seats, "s", 1.0, [{"v": 1}])
    first = await db.claim("m1", "node-a")
    await db.append("m1", 1, [{"v": 2}], first)
    second = await db.claim("m1", "node-b")
    assert second == first + 1
    with pytest.raises(StaleFence) as refused:
        await db.append("m1", 2, [{"v": 3}], first)  # node-a lost the match
    assert (refused.value.fence, refused.value.current) == (first, second)
    with pytest.raises(StaleFence):
        await db.append("m1", 2, [{"v": 3}])  # the unclaimed token (0) is stale too
    await db.append("m1", 2, [{"v": 3, "by": "b"}], second)
    assert await db.load("m1") == [{"v": 1}, {"v": 2}, {"v": 3, "by": "b"}]
    assert (await db.match("m1") or {})["owner"] == "node-b"
    with pytest.raises(StaleFence):
        await db.append("nope", 0, [{"v": 1}], 1)  # no such match: nothing to fence with
    with pytest.raises(KeyError):
        await db.claim("nope", "node-a")


async def test_a_stale_append_fails_alone_in_its_group_commit(db: Database) -> None:
    seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
    fences = {}
    for m in range(10):
        await db.create_match(f"m{m}", None, {}, seats, "s", 1.0, [{"v": 1}])
        fences[f"m{m}"] = await db.claim(f"m{m}", "node-a")
    stale = fences["m0"]
    fences["m0"] = await db.claim("m0", "node-b")

    # Queued together before the flusher runs: all of them go into one transaction.
    appends = [db.append(f"m{m}", 1, [{"v": 2}], fences[f"m{m}"]) for m in range(10)]
    appends.append(db.append("m0", 1, [{"v": 2, "by": "a"}], stale))
    appends.append(db.append("m3", 2, [{"v": 3}], fences["m3"] - 1))
    results = await asyncio.gather(*appends, return_exceptions=True)
    assert results[:10] == [None] * 10, results
    assert isinstance(results[10], StaleFence) and isinstance(results[11], StaleFence)
    for m in range(10):
        assert await db.load(f"m{m}") == [{"v": 1}, {"v": 2}]


async def test_a_stale_append_beside_a_clash_fails_alone(db: Database) -> None:
    # A position written twice sends the batch down the one-by-one path; the fence
    # is checked there as well.
    seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
    for m in ("a", "b", "c"):
        await db.create_match(m, None, {}, seats, "s", 1.0, [{"v": 1}])
    fa, fb, fc = [await db.claim(m, "node") for m in ("a", "b", "c")]
    await db.claim("b", "other")
    results = await asyncio.gather(
        db.append("a", 1, [{"v": 2}], fa),
        db.append("b", 1, [{"v": 2}], fb),
        db.append("c", 0, [{"v": 1}], fc),
        return_exceptions=True,
    )
    assert results[0] is None
    assert isinstance(results[1], StaleFence) and isinstance(results[2], IntegrityError)
    assert await db.load("a") == [{"v": 1}, {"v": 2}] and await db.load("b") == [{"v": 1}]


async def test_a_queue_join_checks_and_inserts_in_one_transaction(db: Database) -> None:
    joined = await db.queue_join("p1", "Anna", "2:klassisch", 60, 1.0, "2")
    assert (joined.lobby, joined.count) == (None, 1)
    (row,) = await db.queue_rows()
    assert (row.profile_id, row.choice, row.wait, row.joined_at) == ("p1", "2:klassisch", 60, 1.0)
    assert row.rating == (await db.pairing_ratings(["p1"], "2"))["p1"]  # the start rating
    assert (await db.queue_join("p2", "Ben", "2:klassisch", 30, 2.0, "2")).count == 2
    assert (await db.queue_join("p3", "Cara", "3:blitz", 30, 2.0, "3")).count == 1
    with pytest.raises(AlreadyQueued):
        await db.queue_join("p1", "Anna", "3:blitz", 60, 3.0, "3")
    # In a lobby: nothing stored, the lobby named.
    await db.save_lobby("LOBB2222", "open", {"code": "LOBB2222"}, 1.0, joined=["p4"])
    joined = await db.queue_join("p4", "Dora", "2:klassisch", 60, 3.0, "2")
    assert (joined.lobby, joined.count) == ("LOBB2222", 0)
    assert {r.profile_id for r in await db.queue_rows()} == {"p1", "p2", "p3"}
    assert await db.lobbies_of(["p4", "p1", "p4", "nobody"]) == {"p4": "LOBB2222"}
    assert await db.lobbies_of([]) == {}


async def test_a_match_stored_claimed_has_the_first_token(db: Database) -> None:
    seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
    assert await db.create_match("m1", None, {}, seats, "s", 1.0, [{"v": 1}], owner="a") == 1
    assert (await db.match("m1") or {})["owner"] == "a"
    await db.append("m1", 1, [{"v": 2}], 1)
    assert await db.claim("m1", "b") == 2  # a later claim outdates it as ever
    with pytest.raises(StaleFence):
        await db.append("m1", 2, [{"v": 3}], 1)
    assert await db.create_match("m2", None, {}, seats, "s", 1.0, []) == 0  # unclaimed


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason=NO_PG)
async def test_the_appends_keep_one_connection_and_replace_it_when_it_breaks() -> None:
    """On PostgreSQL the appends keep one pooled connection (no checkout per append);
    when its backend goes away, the append is done on a new one, and nothing is lost."""
    assert PG_URL is not None
    db = Database(PG_URL, f"t{uuid.uuid4().hex[:12]}_")
    await db.create()
    try:
        seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
        await db.create_match("m1", None, {}, seats, "s", 1.0, [{"v": 1}])
        await db.append("m1", 1, [{"v": 2}])
        held = db._pg
        await db.append("m1", 2, [{"v": 3}])
        assert db._pg is held  # the same connection, kept
        pid = await held.fetchval("SELECT pg_backend_pid()")
        async with db.engine.connect() as conn:
            await conn.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        await db.append("m1", 3, [{"v": 4}])  # its statement fails; again on a new one
        assert db._pg is not held and not db._pg.is_closed()
        assert await db.load("m1") == [{"v": v} for v in range(1, 5)]
    finally:
        await db.drop()
        await db.close()
    assert db._pg is None  # given back when the database closes
