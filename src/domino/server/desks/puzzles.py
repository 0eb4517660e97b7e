"""Puzzles on the server (docs/puzzles.md): built from stored analyses of finished
matches in the analysis workers, stored once per match, served as the puzzle of the day,
the next puzzle and a player's own "Deine Fehler"; answers move an account's Elo and
its daily streak.

The selection itself is :mod:`domino.analysis.puzzles` (pure). Never from a running
match: a build reads only a match whose row says ``finished``, and every read of a
puzzle joins its match's row and asks the same.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domino.analysis.puzzles import START_RATING, choice_of, select
from domino.rules.errors import InvalidMoveError
from domino.server.desks.analysis import AnalysisDesk, Pacer
from domino.server.settings import Settings
from domino.server.storage.db import Database

log = logging.getLogger("domino.server.desks.puzzles")

#: At most this many puzzles in one "Deine Fehler" answer.
MINE_LIMIT = 50
#: Analysed matches without puzzles a node builds when first asked for a puzzle (a build
#: lost with a node that stopped or died after storing the analysis).
CATCH_UP = 20


class PuzzleError(Exception):
    """A refused request: ``code`` is a catalogue key, ``status`` the HTTP status."""

    def __init__(self, code: str, status: int, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.params = params


def build_in_worker(
    mid: str,
    record: dict[str, Any],
    analysis: str,
    profiles: dict[int, str],
    duty: float = 1.0,
) -> str:  # pragma: no cover - runs in the worker process
    """In an analysis worker: the puzzles of one match as JSON text
    (``{"candidates", "puzzles", "rejected"}``)."""
    out = select(mid, record, json.loads(analysis), profiles=profiles, pace=Pacer(duty))
    return json.dumps(
        {"candidates": out.candidates, "puzzles": out.puzzles, "rejected": out.rejected},
        separators=(",", ":"),
        ensure_ascii=False,
    )


@dataclass(frozen=True)
class Built:
    """One match's build: its candidates, the puzzles kept and why the others failed."""

    candidates: int
    passed: int
    rejected: dict[str, int]


async def build_match(
    db: Database,
    mid: str,
    now: Callable[[], float],
    run: Callable[[str, dict[str, Any], str, dict[int, str]], Awaitable[str]],
) -> Built | None:
    """Build and store the puzzles of a finished, analysed match; ``run(mid, record,
    analysis, profiles)`` does the work (:func:`build_in_worker`, in a worker on the
    server). ``None`` when the match is not finished (never from a running match), has
    no stored analysis, or its puzzles were built already (here or by another node)."""
    if await db.puzzle_source(mid) is not None:
        return None
    row = await db.match(mid)
    if row is None or row["status"] != "finished" or not isinstance(row["record"], dict):
        return None
    stored = await db.analysis(mid, decode=False)
    if stored is None or stored["status"] != "done":
        return None
    built = json.loads(await run(mid, row["record"], stored["result"], await db.seat_profiles(mid)))
    # Asked again: a puzzle is stored only for a match that is still finished.
    again = await db.match(mid)
    if again is None or again["status"] != "finished":
        return None
    if not await db.store_puzzles(mid, built["candidates"], built["puzzles"], now()):
        return None
    return Built(built["candidates"], len(built["puzzles"]), built["rejected"])


def today(now: float) -> str:
    """The UTC day of ``now`` (seconds since the epoch) as ``YYYY-MM-DD``.

    >>> today(0.0), today(86_399.0), today(86_400.0)
    ('1970-01-01', '1970-01-01', '1970-01-02')
    """
    return dt.datetime.fromtimestamp(now, dt.UTC).date().isoformat()


def puzzle_out(row: Mapping[str, Any], day: str | None = None) -> dict[str, Any]:
    """A puzzle as shown before it is answered: the position, never the options."""
    d = row["doc"]
    return {
        "id": d["id"],
        "match": d["match"],
        "round": d["round"],
        "move": d["move"],
        "seat": d["seat"],
        "names": d.get("names"),
        "rules": d["rules"],
        "position": d["position"],
        "rating": round(float(row["rating"])),
        "tries": row["tries"],
        "solved": row["solved"],
        # the moment before the move in the replay (MOVE k is the board after move k)
        "replay": f"#/replay/{d['match']}/{d['round']}/{d['move'] - 1}",
        "daily": day,
    }


def solver_out(row: Mapping[str, Any] | None, day: str) -> dict[str, Any]:
    """An account's puzzle rating and streak (a streak not continued yesterday or today
    is over)."""
    if row is None:
        return {"rating": round(START_RATING), "streak": 0, "best_streak": 0, "solved": 0}
    last = row["last_day"]
    alive = (
        last is not None and last >= (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()
    )
    return {
        "rating": round(float(row["rating"])),
        "streak": int(row["streak"]) if alive else 0,
        "best_streak": int(row["best_streak"]),
        "solved": int(row["solved"]),
    }


class PuzzleDesk:
    """Building, serving and answering puzzles on this node."""

    def __init__(self, settings: Settings, db: Database, analyses: AnalysisDesk) -> None:
        self.settings = settings
        self.db = db
        self.analyses = analyses
        self.clock = settings.clock
        self.building: set[asyncio.Task[Any]] = set()
        self.caught_up = False
        analyses.stored = self.analysed

    # -- building ----------------------------------------------------------------------
    async def analysed(self, mid: str, record: dict[str, Any], analysis: str) -> None:
        """An analysis was stored: build the match's puzzles in the background."""
        self._spawn(self._build_logged(mid))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.building.add(task)
        task.add_done_callback(self.building.discard)

    def catch_up(self) -> None:
        """Once per process, on the first ask for a puzzle: build (in the background) the
        puzzles of analysed matches that have none, lost with a node that stopped or died
        between storing an analysis and storing its puzzles."""
        if self.caught_up or self.settings.analysis_workers < 1:
            return
        self.caught_up = True

        async def work() -> None:
            for mid in (await self.db.unbuilt_analyses())[:CATCH_UP]:
                await self._build_logged(mid)

        self._spawn(work())

    async def _build_logged(self, mid: str) -> None:
        try:
            await self.build(mid)
        except Exception:
            log.warning("puzzles of %s were not built", mid, exc_info=True)

    async def build(self, mid: str) -> Built | None:
        """Build and store the puzzles of a finished, analysed match in an analysis
        worker (:func:`build_match`)."""
        duty = self.settings.analysis_duty

        async def run(*args: Any) -> str:
            text: str = await self.analyses.in_worker(build_in_worker, *args, duty)
            return text

        return await build_match(self.db, mid, self.clock.now, run)

    async def stop(self) -> None:
        for task in list(self.building):
            task.cancel()
        await asyncio.gather(*self.building, return_exceptions=True)

    async def idle(self) -> None:
        """Wait until every build this node started is done (tests)."""
        while self.building:
            await asyncio.gather(*list(self.building), return_exceptions=True)

    # -- serving -----------------------------------------------------------------------
    async def _account(self, profile: str | None) -> bool:
        if profile is None:
            return False
        row = await self.db.profile(profile)
        return row is not None and row["kind"] == "account"

    async def daily(self, profile: str | None) -> dict[str, Any]:
        """The puzzle of today (``None`` while there is none) and the account's figures."""
        self.catch_up()
        day = today(self.clock.now())
        pid = await self.db.daily_puzzle(day)
        row = await self.db.puzzle(pid) if pid is not None else None
        return {
            "day": day,
            "puzzle": puzzle_out(row, day) if row is not None else None,
            "me": await self.me(profile, day),
        }

    async def me(self, profile: str | None, day: str | None = None) -> dict[str, Any] | None:
        """An account's rating and streak; ``None`` for guests and the signed-out."""
        if not await self._account(profile):
            return None
        assert profile is not None
        return solver_out(await self.db.solver(profile), day or today(self.clock.now()))

    async def get(self, pid: str) -> dict[str, Any]:
        row = await self.db.puzzle(pid)
        if row is None:
            raise PuzzleError("puzzle_not_found", 404)
        day = today(self.clock.now())
        daily = await self.db.daily_puzzle(day) == pid
        return puzzle_out(row, day if daily else None)

    async def next(self, profile: str | None) -> dict[str, Any]:
        """A puzzle the account has not answered, near its rating."""
        self.catch_up()
        account = await self._account(profile)
        mine = await self.db.solver(profile) if account and profile is not None else None
        rating = float(mine["rating"]) if mine is not None else START_RATING
        pid = await self.db.next_puzzle(profile if account else None, rating)
        if pid is None:
            raise PuzzleError("puzzles_none", 404)
        return await self.get(pid)

    async def mine(self, profile: str) -> list[dict[str, Any]]:
        """ "Deine Fehler": the puzzles made from the profile's own Patzer."""
        return [puzzle_out(r) for r in await self.db.puzzles_of(profile, MINE_LIMIT)]

    async def answer(self, pid: str, text: str, profile: str | None) -> dict[str, Any]:
        """Judge an answer: Meister's expected points of every option, the best move, the
        reason; an account's first answer moves its rating (and the streak on the daily)."""
        row = await self.db.puzzle(pid)
        if row is None:
            raise PuzzleError("puzzle_not_found", 404)
        doc = row["doc"]
        try:
            choice = choice_of(doc, text)
        except InvalidMoveError as exc:
            raise PuzzleError("puzzle_bad_move", 400, text=text[:40]) from exc
        except ValueError as exc:
            raise PuzzleError("puzzle_illegal_move", 400, move=text[:40]) from exc
        correct = choice == doc["best"]
        out: dict[str, Any] = {
            "id": pid,
            "answer": choice,
            "correct": correct,
            "best": doc["best"],
            "played": doc["played"],
            "options": doc["options"],
            "samples": doc["samples"],
            # the sentence of reason, stored at build time (analysis/puzzles.py)
            "reason": doc.get("reason"),
            "replay": puzzle_out(row)["replay"],
            "rated": False,
            "me": None,
        }
        if not await self._account(profile):
            return out
        assert profile is not None
        now = self.clock.now()
        day = today(now)
        daily = await self.db.daily_puzzle(day) == pid
        got = await self.db.record_answer(
            profile, pid, choice, correct, now, day if daily else None
        )
        if got is not None:
            out["rated"] = True
            out["rating_before"] = round(float(got["before"]))
            out["puzzle_rating"] = round(float(got["puzzle_rating"]))
            out["me"] = solver_out(got, day)
        else:
            out["me"] = solver_out(await self.db.solver(profile), day)
        return out
