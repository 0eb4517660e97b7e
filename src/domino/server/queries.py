"""Read-only questions: a profile page and a match's summary and record."""

from __future__ import annotations

from typing import Any

from domino.rules.record import public as rules_public_record

from . import protocol as p
from .db import Database
from .people import profile_out
from .settings import Settings


class Queries:
    """What the REST endpoints read (nothing here changes state)."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db

    async def profile_page(self, pid: str) -> p.ProfilePageOut | None:
        """A profile with its recent matches."""
        row = await self.db.profile(pid)
        if row is None:
            return None
        recent = []
        for r in await self.db.recent(pid, self.settings.recent_matches):
            result = r["result"] or {}
            standings = result.get("standings") or []
            scores = [s["points"] for s in sorted(standings, key=lambda s: s["side"])]
            recent.append(
                p.RecentOut(
                    match=r["match_id"],
                    finished_at=r["finished_at"],
                    rules=r["rules"],
                    seat=r["seat"],
                    place=r["place"],
                    xp=r["xp"],
                    won=r["won"],
                    players=[s["name"] for s in r["seats"]],
                    scores=scores,
                )
            )
        return p.ProfilePageOut(profile=profile_out(row), recent=recent)

    async def match_out(self, mid: str) -> p.MatchOut | None:
        """A match summary; the record only once it is over."""
        row = await self.db.match(mid)
        if row is None:
            return None
        players = [
            {
                "seat": i,
                "name": s["name"],
                "kind": s["kind"],
                "level": s.get("level"),
                "player": s.get("player_id"),
            }
            for i, s in enumerate(row["seats"])
        ]
        return p.MatchOut(
            match=row["id"],
            status=row["status"],
            lobby=row["lobby"],
            rules=row["rules"],
            players=players,
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            result=row["result"],
            record=public_record(row["record"]) if row["status"] == "finished" else None,
        )


def public_record(record: Any) -> dict[str, Any] | None:
    """What ``GET /api/matches/{id}`` shows of a stored record: never a secret.

    A game record loses its tiles out of play (RULES.md §4; records stored before
    they were left out still hold them). The fallback table log
    (``matchdesk.record_of``) holds the secret seed, which recomputes every deal:
    it stays on the server.
    """
    if not isinstance(record, dict) or record.get("format") != "domino-record":
        return None
    return rules_public_record(record)
