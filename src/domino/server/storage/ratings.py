"""Ratings as rows: the update a rated match's end makes (inside the transaction that
stores the end, :meth:`.matches.MatchStore.end_match`), and what is read back: pairing
ratings, a profile's ratings, history and statistics, the leaderboard (read from the
board as last built: a page, a place and its neighbours are each one range of an index,
whatever the number of profiles; building it sorts a pool's listed accounts once, at
most once a minute).

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
    PROVISIONAL_MATCHES,
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

    async def board_built(self, pool: str) -> float:
        """When ``pool``'s board was last built (0: never)."""
        b = self.t.board_built
        async with self.engine.connect() as conn:
            return float(await conn.scalar(sa.select(b.c.at).where(b.c.pool == pool)) or 0.0)

    async def build_board(self, pool: str, now: float, every: float = 0.0) -> bool:
        """Build ``pool``'s board anew from the ratings: the accounts with at least
        :data:`BOARD_MIN_MATCHES` rated matches there, active within :data:`ACTIVE_DAYS`,
        best first (equal ratings by profile id), each with its place. Only when the last
        build is older than ``every`` seconds; the stamp's update is the claim, so of
        several nodes asking at once one builds and the others find it done. ``True``:
        built here."""
        r, b, built = self.t.ratings, self.t.board, self.t.board_built
        async with self._write() as conn:
            claimed = await conn.execute(
                built.update()
                .where(built.c.pool == pool, sa.or_(built.c.at == 0, built.c.at <= now - every))
                .values(at=now)
            )
            if claimed.rowcount == 0:
                return False
            await conn.execute(b.delete().where(b.c.pool == pool))
            place = sa.func.row_number().over(order_by=(r.c.rating.desc(), r.c.profile_id.asc()))
            listed = sa.select(
                r.c.pool,
                place,
                r.c.profile_id,
                r.c.rating,
                r.c.matches,
                r.c.matches < PROVISIONAL_MATCHES,
            ).where(
                r.c.pool == pool,
                r.c.matches >= BOARD_MIN_MATCHES,
                r.c.last_at >= now - ACTIVE_DAYS * DAY,
            )
            await conn.execute(
                b.insert().from_select(
                    ["pool", "place", "profile_id", "rating", "matches", "provisional"], listed
                )
            )
        return True

    def _lines(self) -> Any:
        b, p = self.t.board, self.t.profiles
        return sa.select(
            b.c.place, b.c.profile_id, b.c.rating, b.c.matches, b.c.provisional, p.c.name
        ).join(p, p.c.id == b.c.profile_id)

    async def board_page(self, pool: str, first: int, limit: int) -> list[dict[str, Any]]:
        """The board's lines from place ``first`` on, at most ``limit`` (one range of its
        primary key)."""
        b = self.t.board
        q = (
            self._lines()
            .where(b.c.pool == pool, b.c.place >= first, b.c.place < first + limit)
            .order_by(b.c.place)
        )
        async with self.engine.connect() as conn:
            return [_line(row) for row in await conn.execute(q)]

    async def board_around(self, pool: str, pid: str, neighbours: int) -> list[dict[str, Any]]:
        """``pid``'s line with ``neighbours`` lines above and below (empty: not listed), in
        one statement: its place by the profile's index, then one range of places."""
        b = self.t.board
        mine = sa.select(b.c.place).where(b.c.profile_id == pid, b.c.pool == pool).scalar_subquery()
        q = (
            self._lines()
            .where(
                b.c.pool == pool,
                b.c.place >= mine - neighbours,
                b.c.place <= mine + neighbours,
            )
            .order_by(b.c.place)
        )
        async with self.engine.connect() as conn:
            return [_line(row) for row in await conn.execute(q)]


def _line(row: Any) -> dict[str, Any]:
    return {
        "place": row.place,
        "profile": row.profile_id,
        "name": row.name,
        "rating": row.rating,
        "matches": row.matches,
        "provisional": bool(row.provisional),
    }
