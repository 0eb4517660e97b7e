"""Puzzles on the server (docs/puzzles.md): built as analyses are stored, only from
finished matches, served as the day's puzzle, the next one and "Deine Fehler"; an
account's first answer moves its Elo and the daily streak.

Storage runs on SQLite and, with DOMINO_TEST_POSTGRES, PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from domino.analysis import review
from domino.analysis.puzzles import START_RATING, check, elo
from domino.analysis.reasons import KEYS as REASON_KEYS
from domino.cli import main
from domino.i18n import tr
from domino.rules.record import loads
from domino.server.desks.puzzles import build_in_worker, build_match, today
from domino.server.storage.db import Database

from ..harness import Harness, harness
from .test_analysis import finished_match

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
NO_PG = "PostgreSQL tests skipped: set DOMINO_TEST_POSTGRES (.ci/run does) to run them"
BACKENDS = [
    "sqlite",
    pytest.param(
        "postgres", marks=[pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason=NO_PG)]
    ),
]
EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "double-first.json"
DAY = 86_400.0


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        url, prefix = f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite'}", ""
    else:
        assert PG_URL is not None
        url, prefix = PG_URL, f"z{uuid.uuid4().hex[:12]}_"
    database = Database(url, prefix)
    await database.create()
    try:
        yield database
    finally:
        await database.drop()
        await database.close()


async def here(*args: Any) -> str:
    return build_in_worker(*args)


async def analysed_example(db: Database, mid: str, *, finished: bool) -> dict[str, Any]:
    """docs/examples/double-first.json stored as match ``mid`` (Anna is ``p_anna``), with
    its analysis stored; finished or still running."""
    record = loads(EXAMPLE.read_text(encoding="utf-8"))
    seats = [{"name": "Anna", "kind": "human", "player_id": "p_anna"}, {"name": "Ben"}]
    await db.create_match(mid, None, record["rules"], seats, "s", 1.0, [])
    if finished:
        player = {"seat": 0, "profile_id": "p_anna", "place": 1, "xp": 1, "won": True}
        await db.finish_match(mid, 2.0, {"standings": []}, record, [{**player, "finished": True}])
    analysis = review(record, samples=200, seed=mid, hindsight=False)
    assert await db.claim_analysis(mid, "n", 3.0, 1, 200, 0.0)
    assert await db.finish_analysis(mid, "n", 4.0, json.dumps(analysis))
    return record


# -- never from a running match ----------------------------------------------------------
async def test_a_running_match_gives_no_puzzle_and_shows_none(db: Database) -> None:
    await analysed_example(db, "m_run", finished=False)
    assert await db.unbuilt_analyses() == []
    assert await build_match(db, "m_run", lambda: 5.0, here) is None
    assert await db.puzzle_source("m_run") is None
    # Even a puzzle stored for it (a match turned back to running: a restored backup)
    # is never read: not by id, not as the day's, not as the next, not as "Deine Fehler".
    finished = await analysed_example(db, "m_fin", finished=True)
    built = await build_match(db, "m_fin", lambda: 5.0, here)
    assert built is not None and built.passed >= 1
    [doc] = [r["doc"] for r in await db.puzzles_of("p_anna", 10) if r["doc"]["move"] == 12]
    check(finished, doc)
    ghost = {**doc, "id": "m_run-1-12", "match": "m_run"}
    assert await db.store_puzzles("m_run", 1, [ghost], 6.0)
    assert await db.puzzle("m_run-1-12") is None
    assert all(r["doc"]["match"] == "m_fin" for r in await db.puzzles_of("p_anna", 10))
    for day in ("2026-12-01", "2026-12-02", "2026-12-03"):
        daily = await db.daily_puzzle(day)
        assert daily is not None and daily.startswith("m_fin-")
    assert (await db.next_puzzle(None, 9999.0) or "").startswith("m_fin-")


async def test_a_finished_analysed_match_is_built_once(db: Database) -> None:
    await analysed_example(db, "m1", finished=True)
    assert await db.unbuilt_analyses() == ["m1"]
    built = await build_match(db, "m1", lambda: 5.0, here)
    assert built is not None and built.candidates >= built.passed >= 1
    assert await db.unbuilt_analyses() == []
    assert await build_match(db, "m1", lambda: 6.0, here) is None
    row = await db.puzzle_source("m1")
    assert row is not None and (row["candidates"], row["passed"]) == (
        built.candidates,
        built.passed,
    )
    # Two nodes storing the same build: one wins, nothing doubles.
    assert not await db.store_puzzles("m1", 1, [], 7.0)
    assert len(await db.puzzles_of("p_anna", 10)) == built.passed


async def test_an_accounts_first_answer_moves_its_elo_and_the_daily_streak(db: Database) -> None:
    await analysed_example(db, "m1", finished=True)
    await build_match(db, "m1", lambda: 5.0, here)
    pid = (await db.puzzles_of("p_anna", 1))[0]["id"]
    got = await db.record_answer("p_b", pid, "5|5 R", True, 10.0, "2026-12-01")
    assert got is not None
    mine, theirs = elo(START_RATING, START_RATING, True)
    assert (got["before"], got["rating"], got["puzzle_rating"]) == (START_RATING, mine, theirs)
    assert (got["streak"], got["best_streak"], got["solved"], got["tries"]) == (1, 1, 1, 1)
    # Only the first answer counts.
    assert await db.record_answer("p_b", pid, "5|3 R", False, 11.0, "2026-12-01") is None
    puzzle = await db.puzzle(pid)
    assert puzzle is not None and (puzzle["rating"], puzzle["tries"]) == (theirs, 1)
    # The streak: the next day continues it, a wrong answer ends it, a gap restarts it.
    for i, (day, correct, streak) in enumerate(
        [("2026-12-02", True, 2), ("2026-12-03", False, 0), ("2026-12-04", True, 1)]
    ):
        await db.store_puzzles(f"x{i}", 0, [], 1.0)  # (no puzzles: just other ids)
        other = f"{pid}-{i}"
        await _copy_puzzle(db, pid, other)
        row = await db.record_answer("p_b", other, "5|5 R", correct, 20.0 + i, day)
        assert row is not None and row["streak"] == streak, (day, row)
    after = await db.solver("p_b")
    assert after is not None and after["best_streak"] == 2 and after["tries"] == 4


async def _copy_puzzle(db: Database, pid: str, new: str) -> None:
    row = await db.puzzle(pid)
    assert row is not None
    doc = {**row["doc"], "id": new}
    pz = db.t.puzzles
    async with db.engine.begin() as conn:
        await conn.execute(
            pz.insert().values(
                id=new,
                match_id=doc["match"],
                round_no=doc["round"],
                move_no=doc["move"],
                seat=doc["seat"],
                profile_id=None,
                rating=START_RATING,
                created_at=1.0,
                doc=json.dumps(doc),
            )
        )


async def test_two_nodes_choose_one_puzzle_of_the_day(db: Database) -> None:
    await analysed_example(db, "m1", finished=True)
    await build_match(db, "m1", lambda: 5.0, here)
    other = Database(db.url, db.prefix)
    await other.open()
    try:
        got = await asyncio.gather(db.daily_puzzle("2026-12-05"), other.daily_puzzle("2026-12-05"))
    finally:
        await other.close()
    assert got[0] is not None and got[0] == got[1]


# -- over HTTP -------------------------------------------------------------------------
def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _account(h: Harness, name: str) -> str:
    r = h.tc.post("/api/account", json={"name": name, "password": "geheim123"})
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


def _error(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["code"] == code and body["message"] and body["message"] != code


def test_puzzles_are_built_as_the_analysis_is_stored_and_solved_over_http(
    tmp_path: Path,
) -> None:
    with harness(tmp_path, analysis_samples=100) as h:
        h.clock.advance(20_000 * DAY - h.clock.now())  # a real calendar day
        person, mid = finished_match(h, "Anna", seed=6)
        assert h.tc.get(f"/api/puzzles/{mid}-1-1").status_code == 404
        assert h.tc.get(f"/api/matches/{mid}/analysis").status_code == 202
        h.tc.portal.call(h.service.analyses.idle)
        h.tc.portal.call(h.service.puzzles.idle)
        db = h.service.db
        source = h.tc.portal.call(db.puzzle_source, mid)
        assert source is not None, "the puzzles were built as the analysis was stored"
        analysis = h.tc.get(f"/api/matches/{mid}/analysis").json()
        patzer = [m for m in analysis["moves"] if m.get("grade") == "patzer"]
        assert source["candidates"] == len(patzer) >= source["passed"] >= 1, source
        # The whole stored set replays through the engine (domino puzzles check).
        assert main(["puzzles", "check", "--data", str(tmp_path)]) == 0

        daily = h.tc.get("/api/puzzles/daily").json()
        assert daily["day"] == today(h.clock.now()) and daily["me"] is None
        puzzle = daily["puzzle"]
        assert puzzle["match"] == mid and puzzle["daily"] == daily["day"]
        assert puzzle["replay"] == f"#/replay/{mid}/{puzzle['round']}/{puzzle['move'] - 1}"
        # Before an answer: the position, never the options or Meister's move.
        assert not {"options", "best", "played"} & set(puzzle)
        assert h.tc.get(f"/api/puzzles/{puzzle['id']}").json() == puzzle
        url = f"/api/puzzles/{puzzle['id']}/answer"
        _error(h.tc.post(url, json={"move": "hallo"}), 400, "puzzle_bad_move")
        illegal = next(
            f"{a}|{b} L"
            for a in range(7)
            for b in range(a + 1)
            if f"{a}|{b} L" not in puzzle["position"]["legal"]
        )
        _error(h.tc.post(url, json={"move": illegal}), 400, "puzzle_illegal_move")
        _error(h.tc.post(url, json={}), 422, "bad_message")
        _error(h.tc.post("/api/puzzles/nope/answer", json={"move": "D"}), 404, "puzzle_not_found")

        # Anyone may answer; a guest gets the options but no rating.
        best = h.tc.post(url, json={"move": puzzle["position"]["legal"][0]}).json()
        assert best["rated"] is False and best["me"] is None
        values = [o["value"] for o in best["options"]]
        assert values == sorted(values, reverse=True) and best["best"] == best["options"][0]["move"]
        assert best["played"] != best["best"]
        # The same sentence of reason a hint gives (domino.analysis.reasons), from the catalogue.
        assert best["reason"]["key"] in REASON_KEYS and tr(
            "de", best["reason"]["key"], **best["reason"]["params"]
        )
        wrong = next(o["move"] for o in best["options"] if o["move"] != best["best"])

        # Accounts: Elo against the puzzle's rating, once per puzzle; the streak on the daily.
        bea, cem = _account(h, "Bea"), _account(h, "Cem")
        won = h.tc.post(url, json={"move": best["best"]}, headers=_auth(bea)).json()
        assert won["correct"] and won["rated"] and won["rating_before"] == START_RATING
        assert won["me"]["rating"] > START_RATING and won["me"]["streak"] == 1
        lost = h.tc.post(url, json={"move": wrong}, headers=_auth(cem)).json()
        assert not lost["correct"] and lost["me"]["rating"] < START_RATING
        assert lost["me"]["streak"] == 0 and lost["puzzle_rating"] > won["puzzle_rating"]
        again = h.tc.post(url, json={"move": wrong}, headers=_auth(bea)).json()
        assert again["rated"] is False and again["me"]["rating"] == won["me"]["rating"]
        assert h.tc.get("/api/puzzles/daily", headers=_auth(bea)).json()["me"]["streak"] == 1
        # Two days later the streak is over.
        h.clock.advance(2 * DAY)
        assert h.tc.get("/api/puzzles/daily", headers=_auth(bea)).json()["me"]["streak"] == 0

        # "Deine Fehler": Anna's own Patzer, nobody else's.
        mine = h.tc.get("/api/puzzles/mine", headers=_auth(person.token)).json()["puzzles"]
        assert mine and all(p["match"] == mid and p["seat"] == 0 for p in mine)
        assert h.tc.get("/api/puzzles/mine", headers=_auth(cem)).json()["puzzles"] == []
        _error(h.tc.get("/api/puzzles/mine"), 401, "auth_required")
        # The next puzzle skips what the account answered.
        nxt = h.tc.get("/api/puzzles/next", headers=_auth(bea))
        if source["passed"] == 1:
            _error(nxt, 404, "puzzles_none")
        else:
            assert nxt.json()["id"] != puzzle["id"]


def test_a_build_lost_with_its_node_is_made_on_the_first_ask(tmp_path: Path) -> None:
    """A node that stored an analysis and stopped before its puzzles: the next node asked
    for a puzzle builds them (in its analysis workers)."""

    async def seed() -> None:
        db = Database(f"sqlite+aiosqlite:///{tmp_path / 'domino.sqlite'}")
        await db.create()
        try:
            await analysed_example(db, "m_lost", finished=True)
        finally:
            await db.close()

    asyncio.run(seed())
    with harness(tmp_path) as h:
        first = h.tc.get("/api/puzzles/daily")
        assert first.status_code == 200, first.text
        h.tc.portal.call(h.service.puzzles.idle)
        assert h.tc.portal.call(h.service.db.unbuilt_analyses) == []
        daily = h.tc.get("/api/puzzles/daily").json()
        assert daily["puzzle"] is not None and daily["puzzle"]["match"] == "m_lost"
