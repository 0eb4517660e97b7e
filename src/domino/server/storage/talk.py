"""Table talk as rows: messages kept with their room, blocks, reports, mutes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from domino.server.storage.engine import Core, dumps

__all__ = ["TalkStore"]

#: How many messages before a reported one are kept with the report.
REPORT_CONTEXT = 10


def _message(row: Any) -> dict[str, Any]:
    return {
        "id": int(row.id),
        "room": str(row.room),
        "sender": str(row.profile_id),
        "name": str(row.name),
        "seat": row.seat,
        "text": str(row.text),
        "at": float(row.at),
    }


class TalkStore(Core):
    """The ``talk_messages``, ``talk_blocks``, ``talk_reports`` and ``talk_mutes`` tables."""

    # -- messages ------------------------------------------------------------------------
    async def add_message(
        self, room: str, pid: str, name: str, seat: int | None, text: str, now: float
    ) -> int:
        """Store one message of ``room`` (``lobby:{code}`` or ``match:{id}``); its id."""
        t = self.t.talk
        async with self._write() as conn:
            done = await conn.execute(
                t.insert().values(
                    room=room, profile_id=pid, name=name, seat=seat, text=text, at=now
                )
            )
            key = done.inserted_primary_key
        assert key is not None
        return int(key[0])

    async def messages(
        self, room: str, limit: int = 100, before: int | None = None
    ) -> list[dict[str, Any]]:
        """The last ``limit`` messages of ``room`` (before message ``before``), oldest
        first."""
        t = self.t.talk
        query = sa.select(t).where(t.c.room == room)
        if before is not None:
            query = query.where(t.c.id < before)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query.order_by(t.c.id.desc()).limit(limit))).all()
        return [_message(r) for r in reversed(rows)]

    async def message(self, mid: int) -> dict[str, Any] | None:
        """One stored message."""
        t = self.t.talk
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(t).where(t.c.id == mid))).first()
        return None if row is None else _message(row)

    # -- blocks --------------------------------------------------------------------------
    async def block(self, blocker: str, blocked: str, now: float) -> None:
        """``blocker`` blocks ``blocked`` (again: nothing changes)."""
        b = self.t.blocks
        try:
            async with self._write() as conn:
                await conn.execute(b.insert().values(blocker=blocker, blocked=blocked, at=now))
        except IntegrityError:
            pass  # blocked already

    async def unblock(self, blocker: str, blocked: str) -> None:
        """``blocker`` no longer blocks ``blocked``."""
        b = self.t.blocks
        async with self._write() as conn:
            await conn.execute(b.delete().where(b.c.blocker == blocker, b.c.blocked == blocked))

    async def blocked_by(self, pid: str) -> list[dict[str, str]]:
        """Whom ``pid`` blocked (id and name), newest first."""
        b, pr = self.t.blocks, self.t.profiles
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(b.c.blocked, pr.c.name)
                .select_from(b.outerjoin(pr, pr.c.id == b.c.blocked))
                .where(b.c.blocker == pid)
                .order_by(b.c.at.desc())
            )
            return [{"id": str(r.blocked), "name": str(r.name or "?")} for r in rows]

    async def blocked_with(self, pid: str) -> set[str]:
        """Everyone in a block with ``pid``, either way: they never hear each other."""
        b = self.t.blocks
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.union(
                    sa.select(b.c.blocked.label("other")).where(b.c.blocker == pid),
                    sa.select(b.c.blocker.label("other")).where(b.c.blocked == pid),
                )
            )
            return {str(r.other) for r in rows}

    async def blocks_among(self, profile_ids: list[str]) -> set[frozenset[str]]:
        """The pairs of ``profile_ids`` where either blocked the other (matchmaking never
        seats them together)."""
        ids = sorted(set(profile_ids))
        if len(ids) < 2:
            return set()
        b = self.t.blocks
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(b.c.blocker, b.c.blocked).where(
                    b.c.blocker.in_(ids), b.c.blocked.in_(ids)
                )
            )
            return {frozenset((str(r.blocker), str(r.blocked))) for r in rows}

    # -- reports -------------------------------------------------------------------------
    async def report(self, message: dict[str, Any], reporter: str, now: float) -> int:
        """Store a report of ``message`` by ``reporter`` with the talk before it; its id
        (the same report again: the first one's id)."""
        context = await self.messages(message["room"], REPORT_CONTEXT, before=message["id"])
        r = self.t.reports
        try:
            async with self._write() as conn:
                done = await conn.execute(
                    r.insert().values(
                        message_id=message["id"],
                        reporter=reporter,
                        reported=message["sender"],
                        room=message["room"],
                        text=message["text"],
                        context=dumps([*context, message]),
                        at=now,
                    )
                )
                key = done.inserted_primary_key
            assert key is not None
            return int(key[0])
        except IntegrityError:
            async with self.engine.connect() as conn:
                row = (
                    await conn.execute(
                        sa.select(r.c.id).where(
                            r.c.message_id == message["id"], r.c.reporter == reporter
                        )
                    )
                ).first()
            if row is None:  # pragma: no cover - the constraint named that row
                raise
            return int(row.id)

    async def reports(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest reports with their context."""
        r = self.t.reports
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(r).order_by(r.c.id.desc()).limit(limit))
            return [
                {
                    "id": int(x.id),
                    "message": int(x.message_id),
                    "reporter": str(x.reporter),
                    "reported": str(x.reported),
                    "room": str(x.room),
                    "text": str(x.text),
                    "context": json.loads(x.context),
                    "at": float(x.at),
                }
                for x in rows
            ]

    # -- mutes ---------------------------------------------------------------------------
    async def mute(self, pid: str, until: float, now: float) -> None:
        """Silence ``pid`` until ``until`` (a time in the past lifts it)."""
        m = self.t.mutes
        async with self._write() as conn:
            await conn.execute(m.delete().where(m.c.profile_id == pid))
            await conn.execute(m.insert().values(profile_id=pid, until=until, at=now))

    async def muted_until(self, pid: str, now: float) -> float | None:
        """Until when ``pid`` is silenced (``None``: it is not)."""
        m = self.t.mutes
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(m.c.until).where(m.c.profile_id == pid, m.c.until > now)
                )
            ).first()
        return None if row is None else float(row.until)

    async def names(self, ids: Sequence[str]) -> dict[str, str]:
        """Display names of profiles (for the moderators' list)."""
        p = self.t.profiles
        if not ids:
            return {}
        async with self.engine.connect() as conn:
            rows = await conn.execute(sa.select(p.c.id, p.c.name).where(p.c.id.in_(list(ids))))
            return {str(r.id): str(r.name) for r in rows}
