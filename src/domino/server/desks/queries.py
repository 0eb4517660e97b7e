"""Read-only questions: a profile page and a match's summary and record."""

from __future__ import annotations

from typing import Any

from domino.analysis.frames import replay_data
from domino.rules.audience import public_record
from domino.server import protocol as p
from domino.server.desks.analysis import server_moves
from domino.server.desks.people import profile_out
from domino.server.settings import Settings
from domino.server.storage.db import Database

#: Most matches one profile page lists (``?limit=``).
MAX_PAGE = 50


class QueryError(Exception):
    """A refused question: ``code`` is a catalogue key, ``status`` the HTTP status."""

    def __init__(self, code: str, status: int) -> None:
        super().__init__(code)
        self.code = code
        self.status = status


def cursor_of(finished_at: float, mid: str) -> str:
    """The ``before`` cursor that continues a profile's list after this match.

    >>> cursor_of(1767350000.5, "m_ab")
    '1767350000.5_m_ab'
    >>> read_cursor(cursor_of(1767350000.5, "m_ab"))
    (1767350000.5, 'm_ab')
    """
    return f"{finished_at!r}_{mid}"


def read_cursor(text: str) -> tuple[float, str]:
    """The ``(finished_at, match id)`` of a cursor; :class:`QueryError` if unreadable."""
    at, _, mid = text.partition("_")
    try:
        value = float(at)
    except ValueError:
        raise QueryError("bad_cursor", 400) from None
    if not mid or len(mid) > 40 or value != value:
        raise QueryError("bad_cursor", 400)
    return value, mid


class Queries:
    """What the REST endpoints read (nothing here changes state)."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db

    async def profile_page(
        self, pid: str, before: str | None = None, limit: int | None = None
    ) -> p.ProfilePageOut | None:
        """A profile with its matches, newest first, one page of ``limit`` (default
        ``Settings.recent_matches``) older than the cursor ``before``; ``next`` is the
        cursor of the following page (``None``: this is the last)."""
        if limit is None:
            limit = self.settings.recent_matches
        if not 1 <= limit <= MAX_PAGE:
            raise QueryError("bad_limit", 400)
        after = read_cursor(before) if before is not None else None
        row = await self.db.profile(pid)
        if row is None:
            return None
        rows = await self.db.recent(pid, limit + 1, after)
        more = len(rows) > limit
        rows = rows[:limit]
        recent = []
        for r in rows:
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
        last = rows[-1] if rows else None
        following = cursor_of(last["finished_at"], last["match_id"]) if more and last else None
        return p.ProfilePageOut(profile=profile_out(row), recent=recent, next=following)

    async def finished_record(self, mid: str) -> dict[str, Any]:
        """The public record of a finished match; :class:`QueryError` for an unknown
        match (404), a running one (409: the deal is secret until the end) or one the
        server holds no game record of (409)."""
        return (await self._finished(mid))[1]

    async def _finished(self, mid: str) -> tuple[dict[str, Any], dict[str, Any]]:
        row = await self.db.match(mid)
        if row is None:
            raise QueryError("match_not_found", 404)
        if row["status"] != "finished" and row["finished_at"] is None:
            # (Its end is stored before it is announced, and ``finished`` after: the
            # record is public from the moment the end is stored.)
            raise QueryError("replay_match_running", 409)
        record = public_record(row["record"], finished=True)
        if record is None:
            raise QueryError("replay_no_record", 409)
        return row, record

    async def replay(self, mid: str, viewer: str | None = None) -> dict[str, Any]:
        """The replay viewer's data of a finished match (``domino.analysis.frames``), with
        each seat's profile id (``players``, public as in :meth:`match_out`; ``null`` for
        a bot), so a viewer who played there reads its own seat as "du". A move the server
        made for a human seat carries ``"auto": true`` (from the table log), as live.
        ``chat``: the match's talk (its spectators', and its players' outside Paare), kept
        with the match, oldest first; for a signed-in ``viewer`` without the messages of
        the profiles in a block with it, either side (as live talk and its log)."""
        row, record = await self._finished(mid)
        players = [s.get("player_id") for s in row["seats"]]
        auto = server_moves(record, await self.db.match_log(mid))
        chat = await self.db.messages(f"match:{mid}", 500)
        if viewer is not None:
            blocked = await self.db.blocked_with(viewer)
            chat = [m for m in chat if m["sender"] not in blocked]
        for m in chat:
            del m["room"]
        return {"match": mid, **replay_data(record, auto), "players": players, "chat": chat}

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
            record=public_record(row["record"], finished=row["status"] == "finished"),
        )
