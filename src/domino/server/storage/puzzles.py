"""Puzzles (docs/puzzles.md): the puzzles built from finished matches, the matches they
were built from, the puzzle of each day, the accounts' ratings and streaks and their
first answers. Only puzzles of matches whose row says ``finished`` are ever read."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from domino.analysis.puzzles import START_RATING, elo
from domino.server.storage.engine import Core, dumps

__all__ = ["PuzzleStore"]

#: The status of a match row whose puzzles may be shown.
FINISHED = "finished"


def _day_before(day: str) -> str:
    import datetime as dt

    return (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()


class PuzzleStore(Core):
    """The ``puzzles``, ``puzzle_sources``, ``puzzle_days``, ``puzzle_players`` and
    ``puzzle_tries`` tables."""

    def _shown(self) -> Any:
        """``puzzles`` joined to their match, for reading only finished matches' puzzles."""
        pz, m = self.t.puzzles, self.t.matches
        return pz.join(m, m.c.id == pz.c.match_id)

    async def puzzle_source(self, mid: str) -> dict[str, Any] | None:
        """The row saying a match's puzzles were built (with the counts), or ``None``."""
        s = self.t.puzzle_sources
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(s).where(s.c.match_id == mid))).first()
        return None if row is None else dict(row._mapping)

    async def puzzle_sources(self) -> list[dict[str, Any]]:
        """Every match's build counts, oldest first."""
        s = self.t.puzzle_sources
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(s).order_by(s.c.built_at, s.c.match_id))).all()
        return [dict(r._mapping) for r in rows]

    async def seat_profiles(self, mid: str) -> dict[int, str]:
        """The profile that played each human seat of a finished match."""
        pl = self.t.players
        q = sa.select(pl.c.seat, pl.c.profile_id).where(pl.c.match_id == mid)
        async with self.engine.connect() as conn:
            return {int(r[0]): str(r[1]) for r in (await conn.execute(q)).all()}

    async def unbuilt_analyses(self) -> list[str]:
        """Finished matches with a stored analysis and no puzzles built yet."""
        a, m, s = self.t.analyses, self.t.matches, self.t.puzzle_sources
        q = (
            sa.select(a.c.match_id)
            .join(m, m.c.id == a.c.match_id)
            .outerjoin(s, s.c.match_id == a.c.match_id)
            .where(a.c.status == "done", m.c.status == FINISHED, s.c.match_id.is_(None))
            .order_by(a.c.match_id)
        )
        async with self.engine.connect() as conn:
            return [r[0] for r in (await conn.execute(q)).all()]

    async def store_puzzles(
        self, mid: str, candidates: int, docs: Sequence[dict[str, Any]], now: float
    ) -> bool:
        """Store a match's puzzles with its build row, in one transaction; ``False`` when
        they were built already (by another node: the key lets one insert win)."""
        s, pz = self.t.puzzle_sources, self.t.puzzles
        try:
            async with self._write() as conn:
                await conn.execute(
                    s.insert().values(
                        match_id=mid, candidates=candidates, passed=len(docs), built_at=now
                    )
                )
                for d in docs:
                    await conn.execute(
                        pz.insert().values(
                            id=d["id"],
                            match_id=mid,
                            round_no=d["round"],
                            move_no=d["move"],
                            seat=d["seat"],
                            profile_id=d.get("profile"),
                            rating=START_RATING,
                            created_at=now,
                            doc=dumps(d),
                        )
                    )
        except IntegrityError:
            return False
        return True

    @staticmethod
    def _row(row: Any) -> dict[str, Any]:
        d = dict(row._mapping)
        d["doc"] = json.loads(d["doc"])
        return d

    def _columns(self) -> list[Any]:
        pz = self.t.puzzles
        return [pz.c.id, pz.c.rating, pz.c.tries, pz.c.solved, pz.c.profile_id, pz.c.doc]

    async def puzzle(self, pid: str) -> dict[str, Any] | None:
        """A puzzle of a finished match (its row, ``doc`` decoded), or ``None``."""
        pz, m = self.t.puzzles, self.t.matches
        q = (
            sa.select(*self._columns())
            .select_from(self._shown())
            .where(pz.c.id == pid, m.c.status == FINISHED)
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else self._row(row)

    async def puzzles_of(self, profile: str, limit: int) -> list[dict[str, Any]]:
        """The puzzles made from ``profile``'s own Patzer ("Deine Fehler"), newest first."""
        pz, m = self.t.puzzles, self.t.matches
        q = (
            sa.select(*self._columns())
            .select_from(self._shown())
            .where(pz.c.profile_id == profile, m.c.status == FINISHED)
            .order_by(pz.c.created_at.desc(), pz.c.id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            return [self._row(r) for r in (await conn.execute(q)).all()]

    async def daily_puzzle(self, day: str) -> str | None:
        """The id of the puzzle of ``day`` (``YYYY-MM-DD``, UTC): chosen on the first ask
        from the finished matches' puzzles by the day's hash, then fixed for everyone."""
        d, pz, m = self.t.puzzle_days, self.t.puzzles, self.t.matches
        async with self.engine.connect() as conn:
            got = (await conn.execute(sa.select(d.c.puzzle_id).where(d.c.day == day))).first()
            if got is not None:
                return str(got[0])
            ids = [
                r[0]
                for r in (
                    await conn.execute(
                        sa.select(pz.c.id)
                        .select_from(self._shown())
                        .where(m.c.status == FINISHED)
                        .order_by(pz.c.id)
                    )
                ).all()
            ]
        if not ids:
            return None
        digest = int.from_bytes(hashlib.sha256(day.encode()).digest()[:8], "big")
        choice = ids[digest % len(ids)]
        try:
            async with self._write() as conn:
                await conn.execute(d.insert().values(day=day, puzzle_id=choice))
        except IntegrityError:  # another node chose first: theirs holds
            async with self.engine.connect() as conn:
                got = (await conn.execute(sa.select(d.c.puzzle_id).where(d.c.day == day))).first()
            assert got is not None
            return str(got[0])
        return str(choice)

    async def next_puzzle(self, profile: str | None, rating: float) -> str | None:
        """A finished match's puzzle ``profile`` has not answered yet, the closest in
        rating to ``rating`` (anyone: the closest of all)."""
        pz, m, tr = self.t.puzzles, self.t.matches, self.t.puzzle_tries
        q = sa.select(pz.c.id).select_from(self._shown()).where(m.c.status == FINISHED)
        if profile is not None:
            done = sa.select(tr.c.puzzle_id).where(tr.c.profile_id == profile)
            q = q.where(pz.c.id.not_in(done))
        q = q.order_by(sa.func.abs(pz.c.rating - rating), pz.c.id).limit(1)
        async with self.engine.connect() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else str(row[0])

    async def solver(self, profile: str) -> dict[str, Any] | None:
        """An account's puzzle rating and streak row, or ``None`` before its first answer."""
        sv = self.t.puzzle_players
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(sv).where(sv.c.profile_id == profile))).first()
        return None if row is None else dict(row._mapping)

    async def record_answer(
        self,
        profile: str,
        pid: str,
        answer: str,
        correct: bool,
        now: float,
        day: str | None,
    ) -> dict[str, Any] | None:
        """An account's first answer to puzzle ``pid``: its Elo and the puzzle's move
        (docs/puzzles.md), and when ``day`` names the day whose puzzle this is, the
        streak. ``None`` when the account answered this puzzle before (nothing changes).
        Returns the player's row after the answer with ``before`` (its rating before)
        and ``puzzle_rating`` (the puzzle's after)."""
        sv, pz, tr = self.t.puzzle_players, self.t.puzzles, self.t.puzzle_tries
        try:
            async with self._write() as conn:
                await conn.execute(
                    tr.insert().values(
                        profile_id=profile, puzzle_id=pid, answer=answer, correct=correct, at=now
                    )
                )
                row = (
                    await conn.execute(
                        sa.select(sv).where(sv.c.profile_id == profile).with_for_update()
                    )
                ).first()
                if row is None:
                    await conn.execute(sv.insert().values(profile_id=profile, rating=START_RATING))
                    me: dict[str, Any] = {
                        "profile_id": profile,
                        "rating": START_RATING,
                        "streak": 0,
                        "best_streak": 0,
                        "last_day": None,
                        "tries": 0,
                        "solved": 0,
                    }
                else:
                    me = dict(row._mapping)
                prow = (
                    await conn.execute(
                        sa.select(pz.c.rating).where(pz.c.id == pid).with_for_update()
                    )
                ).first()
                assert prow is not None
                before = float(me["rating"])
                mine, theirs = elo(before, float(prow[0]), correct)
                me.update(rating=mine, tries=me["tries"] + 1, solved=me["solved"] + int(correct))
                if day is not None and me["last_day"] != day:
                    if not correct:
                        me["streak"] = 0
                    elif me["last_day"] == _day_before(day):
                        me["streak"] += 1
                    else:
                        me["streak"] = 1
                    me["best_streak"] = max(me["best_streak"], me["streak"])
                    me["last_day"] = day
                await conn.execute(
                    sv.update()
                    .where(sv.c.profile_id == profile)
                    .values({k: v for k, v in me.items() if k != "profile_id"})
                )
                await conn.execute(
                    pz.update()
                    .where(pz.c.id == pid)
                    .values(rating=theirs, tries=pz.c.tries + 1, solved=pz.c.solved + int(correct))
                )
        except IntegrityError:
            return None
        me["before"] = before
        me["puzzle_rating"] = theirs
        return me

    async def answered(self, profile: str, pid: str) -> dict[str, Any] | None:
        """An account's stored first answer to a puzzle, or ``None``."""
        tr = self.t.puzzle_tries
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(tr).where(tr.c.profile_id == profile, tr.c.puzzle_id == pid)
                )
            ).first()
        return None if row is None else dict(row._mapping)

    async def all_puzzles(self) -> list[dict[str, Any]]:
        """Every stored puzzle with its match's status and record (``domino puzzles check``)."""
        pz, m = self.t.puzzles, self.t.matches
        q = (
            sa.select(pz.c.id, pz.c.doc, m.c.status, m.c.record)
            .select_from(self._shown())
            .order_by(pz.c.id)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q)).all()
        return [
            {
                "id": r[0],
                "doc": json.loads(r[1]),
                "status": r[2],
                "record": json.loads(r[3]) if r[3] is not None else None,
            }
            for r in rows
        ]
