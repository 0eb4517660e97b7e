"""Ratings as rows: the update a rated match's end makes (inside the transaction that
stores the end, :meth:`.matches.MatchStore.end_match`), and what is read back: pairing
ratings, a profile's ratings, history and statistics, the leaderboard.

The maths and the rules of what counts are :mod:`domino.ratings`; here only which seat
is whom. A seat's profile is rated when it is an account; guests and bots take part
with fixed ratings and are never stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from domino.ratings import (
    Entrant,
    Skill,
    bot_skill,
    display,
    pool_of,
    provisional,
    rate,
    start_skill,
)
from domino.server.storage.engine import Core
from domino.server.storage.tables import Tables

__all__ = ["ACTIVE_DAYS", "BOARD_MIN_MATCHES", "RatingStore", "rate_match"]

#: The leaderboard lists accounts with at least this many rated matches in the pool ...
BOARD_MIN_MATCHES: Final = 10
#: ... that played a rated match in it within this many days.
ACTIVE_DAYS: Final = 30
DAY: Final = 86400.0


async def rate_match(
    conn: AsyncConnection,
    t: Tables,
    mid: str,
    now: float,
    result: dict[str, Any],
    players: Sequence[dict[str, Any]],
    for_update: bool,
) -> None:
    """Update the ratings of a rated match's accounts (nothing for an unrated match).

    Runs inside the end's transaction, after the end was stored for the first time, so
    it happens exactly once with it. ``players``: the end's rows per human seat
    (``seat``, ``profile_id``, ``finished``); ``result["standings"]`` gives the places.
    """
    m = t.matches
    row = (
        await conn.execute(sa.select(m.c.rated, m.c.rules, m.c.seats).where(m.c.id == mid))
    ).first()
    if row is None or not row.rated:
        return
    rules, seats = json.loads(row.rules), json.loads(row.seats)
    pool = pool_of(int(rules["seats"]), bool(rules.get("pairs")))
    place_of: dict[int, int] = {}
    side_of: dict[int, int] = {}
    for s in result.get("standings") or []:
        for seat in s["seats"]:
            place_of[seat], side_of[seat] = int(s["place"]), int(s["side"])
    human = {int(pl["seat"]): pl for pl in players}
    ids = [str(pl["profile_id"]) for pl in players]
    p, r = t.profiles, t.ratings
    kinds = {
        x.id: x.kind for x in await conn.execute(sa.select(p.c.id, p.c.kind).where(p.c.id.in_(ids)))
    }
    accounts = [pid for pid in ids if kinds.get(pid) == "account"]
    q = sa.select(r).where(r.c.pool == pool, r.c.profile_id.in_(accounts))
    if for_update:
        q = q.with_for_update()
    stored = {x.profile_id: x for x in await conn.execute(q)} if accounts else {}
    entrants = []
    for seat, spec in enumerate(seats):
        if seat not in place_of:
            continue
        pl = human.get(seat)
        pid = str(pl["profile_id"]) if pl is not None else None
        if pl is None:
            skill, fixed = bot_skill(str(spec.get("level"))), True
        elif pid in stored:
            skill, fixed = Skill(stored[pid].mu, stored[pid].sigma), False
        else:
            skill, fixed = start_skill(), pid not in accounts
        entrants.append(
            Entrant(
                key=pid if pid is not None else f"seat{seat}",
                skill=skill,
                side=side_of[seat],
                place=place_of[seat],
                left=pl is not None and not pl["finished"],
                fixed=fixed,
            )
        )
    new = rate(entrants)
    by_key = {e.key: e for e in entrants}
    for pid in accounts:
        if pid not in new:
            continue
        skill = new[pid]
        e = by_key[pid]
        old = stored.get(pid)
        before = old.rating if old is not None else display(start_skill())
        played = (old.matches if old is not None else 0) + 1
        won = e.place == 1 and not e.left
        values = {
            "mu": skill.mu,
            "sigma": skill.sigma,
            "rating": display(skill),
            "matches": played,
            "wins": (old.wins if old is not None else 0) + (1 if won else 0),
            "last_at": now,
        }
        if old is None:
            await conn.execute(r.insert().values(profile_id=pid, pool=pool, **values))
        else:
            await conn.execute(
                r.update().where(r.c.profile_id == pid, r.c.pool == pool).values(**values)
            )
        await conn.execute(
            t.rating_history.insert().values(
                match_id=mid,
                profile_id=pid,
                pool=pool,
                mode=str(rules.get("mode", "")),
                at=now,
                place=e.place,
                won=won,
                before=before,
                after=display(skill),
                matches=played,
            )
        )


def _entry(row: Any) -> dict[str, Any]:
    return {
        "profile": row.profile_id,
        "name": row.name,
        "rating": row.rating,
        "matches": row.matches,
        "provisional": provisional(row.matches),
    }


class RatingStore(Core):
    """The ``ratings`` and ``rating_history`` tables (written by a match's end)."""

    async def pairing_ratings(self, profile_ids: Sequence[str], pool: str) -> dict[str, float]:
        """Each profile's shown rating in ``pool`` for pairing (the start rating for one
        that has none: a guest or an account not yet rated there)."""
        start = float(display(start_skill()))
        out = {pid: start for pid in profile_ids}
        if not out:
            return out
        r = self.t.ratings
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(r.c.profile_id, r.c.rating).where(
                    r.c.pool == pool, r.c.profile_id.in_(list(out))
                )
            )
            for row in rows:
                out[row.profile_id] = float(row.rating)
        return out

    async def rating_changes(self, mid: str) -> dict[str, dict[str, Any]]:
        """Per rated account of a match: pool, rating before and after, matches so far."""
        h = self.t.rating_history
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(h).where(h.c.match_id == mid))
            return {
                row.profile_id: {
                    "pool": row.pool,
                    "before": row.before,
                    "after": row.after,
                    "change": row.after - row.before,
                    "provisional": provisional(row.matches),
                }
                for row in rows
            }

    async def profile_ratings(self, pid: str) -> dict[str, Any]:
        """A profile's rating per pool, its history per pool (oldest first) and its
        statistics per mode (rated matches)."""
        r, h = self.t.ratings, self.t.rating_history
        async with self.engine.connect() as conn:
            pools = {
                row.pool: {
                    "rating": row.rating,
                    "matches": row.matches,
                    "wins": row.wins,
                    "provisional": provisional(row.matches),
                    "history": [],
                }
                for row in await conn.execute(sa.select(r).where(r.c.profile_id == pid))
            }
            rows = await conn.execute(
                sa.select(h.c.pool, h.c.at, h.c.after, h.c.match_id)
                .where(h.c.profile_id == pid)
                .order_by(h.c.pool, h.c.at)
            )
            for row in rows:
                if row.pool in pools:
                    pools[row.pool]["history"].append(
                        {"at": row.at, "rating": row.after, "match": row.match_id}
                    )
            stats = await conn.execute(
                sa.select(
                    h.c.mode,
                    sa.func.count().label("matches"),
                    sa.func.sum(sa.case((h.c.won, 1), else_=0)).label("wins"),
                    sa.func.avg(h.c.place).label("place"),
                )
                .where(h.c.profile_id == pid)
                .group_by(h.c.mode)
                .order_by(h.c.mode)
            )
            modes = {
                row.mode: {
                    "matches": int(row.matches),
                    "wins": int(row.wins or 0),
                    "average_place": round(float(row.place), 2),
                }
                for row in stats
            }
        return {"pools": pools, "modes": modes}

    def _listed(self, pool: str, now: float) -> Any:
        r = self.t.ratings
        return sa.and_(
            r.c.pool == pool,
            r.c.matches >= BOARD_MIN_MATCHES,
            r.c.last_at >= now - ACTIVE_DAYS * DAY,
        )

    def _board_query(self) -> Any:
        r, p = self.t.ratings, self.t.profiles
        return sa.select(r.c.profile_id, r.c.rating, r.c.matches, p.c.name).join(
            p, p.c.id == r.c.profile_id
        )

    async def leaderboard(
        self, pool: str, now: float, limit: int, after: tuple[int, str] | None = None
    ) -> list[dict[str, Any]]:
        """The listed accounts of ``pool`` best first (equal ratings by profile id), at
        most ``limit``; ``after``: only those below this ``(rating, profile id)`` (the
        last of a page: the next page). Read in the order of the board's index."""
        r = self.t.ratings
        q = (
            self._board_query()
            .where(self._listed(pool, now))
            .order_by(r.c.rating.desc(), r.c.profile_id.asc())
            .limit(limit)
        )
        if after is not None:
            q = q.where(_below(r, *after))
        async with self.engine.connect() as conn:
            return [_entry(row) for row in await conn.execute(q)]

    async def board_place(self, pool: str, now: float, pid: str) -> int | None:
        """The place of ``pid`` on the board of ``pool`` (``None``: not listed)."""
        r = self.t.ratings
        async with self.engine.connect() as conn:
            me = (
                await conn.execute(
                    sa.select(r.c.rating).where(self._listed(pool, now), r.c.profile_id == pid)
                )
            ).first()
            if me is None:
                return None
            above = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(r)
                .where(self._listed(pool, now), _above(r, me.rating, pid))
            )
        return int(above or 0) + 1

    async def board_around(
        self, pool: str, now: float, pid: str, neighbours: int
    ) -> tuple[int, list[dict[str, Any]]] | None:
        """``pid``'s place on the board and the entries around it (``neighbours`` above
        and below, itself included); ``None`` when it is not listed."""
        place = await self.board_place(pool, now, pid)
        if place is None:
            return None
        r = self.t.ratings
        async with self.engine.connect() as conn:
            rating = int(
                await conn.scalar(
                    sa.select(r.c.rating).where(r.c.profile_id == pid, r.c.pool == pool)
                )
                or 0
            )
            up = await conn.execute(
                self._board_query()
                .where(self._listed(pool, now), _above(r, rating, pid))
                .order_by(r.c.rating.asc(), r.c.profile_id.desc())
                .limit(neighbours)
            )
            upper = [_entry(row) for row in up][::-1]
            down = await conn.execute(
                self._board_query()
                .where(
                    self._listed(pool, now), sa.or_(_below(r, rating, pid), r.c.profile_id == pid)
                )
                .order_by(r.c.rating.desc(), r.c.profile_id.asc())
                .limit(neighbours + 1)
            )
            lower = [_entry(row) for row in down]
        return place - len(upper), upper + lower


def _above(r: sa.Table, rating: int, pid: str) -> Any:
    """Board rows before ``(rating, pid)`` in the board's order."""
    return sa.or_(r.c.rating > rating, sa.and_(r.c.rating == rating, r.c.profile_id < pid))


def _below(r: sa.Table, rating: int, pid: str) -> Any:
    """Board rows after ``(rating, pid)`` in the board's order."""
    return sa.or_(r.c.rating < rating, sa.and_(r.c.rating == rating, r.c.profile_id > pid))
