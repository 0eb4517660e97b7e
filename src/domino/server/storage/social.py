"""Who played with whom: a profile's recent human opponents (from the stored match
players). The blocks between profiles are the table talk's (:mod:`.talk`)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from domino.server.storage.engine import Core

__all__ = ["SocialStore"]

#: How many of a profile's latest matches "Zuletzt gespielt mit" looks at.
RECENT_MATCHES = 100


class SocialStore(Core):
    """Reads over ``match_players`` and ``profiles``."""

    async def recent_opponents(self, pid: str, limit: int = 20) -> list[dict[str, Any]]:
        """The humans ``pid`` played with in their latest :data:`RECENT_MATCHES` matches,
        the latest first: ``{"id", "name", "last_played"}`` (the name the site shows now;
        bots have no rows)."""
        pl, pr = self.t.players, self.t.profiles
        mine = (
            sa.select(pl.c.match_id)
            .where(pl.c.profile_id == pid)
            .order_by(pl.c.finished_at.desc())
            .limit(RECENT_MATCHES)
            .subquery()
        )
        other = pl.alias("other")
        last = sa.func.max(other.c.finished_at).label("last_played")
        q = (
            sa.select(other.c.profile_id, pr.c.name, last)
            .join(mine, mine.c.match_id == other.c.match_id)
            .join(pr, pr.c.id == other.c.profile_id)
            .where(other.c.profile_id != pid)
            .group_by(other.c.profile_id, pr.c.name)
            .order_by(last.desc(), other.c.profile_id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = await conn.execute(q)
            return [
                {"id": r.profile_id, "name": r.name, "last_played": float(r.last_played)}
                for r in rows
            ]

    async def played_with(self, pid: str, other: str) -> bool:
        """Whether ``pid`` and ``other`` sat at one finished match (among ``pid``'s latest)."""
        return any(o["id"] == other for o in await self.recent_opponents(pid, limit=1000))
