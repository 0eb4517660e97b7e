"""Analyses of finished matches (docs/analysis.md): one row per match whose analysis was
asked for, which is at once the claim (whichever node asks first), the progress while it
is worked on and the stored result."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from domino.server.storage.engine import Core, dumps

__all__ = ["AnalysisStore"]


class AnalysisStore(Core):
    """The ``match_analysis`` table."""

    async def analysis(self, mid: str, decode: bool = True) -> dict[str, Any] | None:
        """A match's analysis row (``result`` decoded, or its JSON text unless
        ``decode``), or ``None``."""
        a = self.t.analyses
        async with self.engine.connect() as conn:
            row = (await conn.execute(sa.select(a).where(a.c.match_id == mid))).first()
        if row is None:
            return None
        d = dict(row._mapping)
        if decode and d["result"] is not None:
            d["result"] = json.loads(d["result"])
        return d

    async def claim_analysis(
        self, mid: str, owner: str, now: float, total: int, samples: int, stale_before: float
    ) -> bool:
        """Claim the analysis of ``mid`` for ``owner``: ``True`` when this call got it.

        The first claim inserts the row (the primary key lets only one insert win,
        whichever node tries); a later claim wins only over a running claim whose owner
        last reported before ``stale_before`` (a node that died), by a conditional
        update that only one node's transaction can make.
        """
        a = self.t.analyses
        values = {
            "status": "running",
            "owner": owner[:64],
            "done": 0,
            "total": total,
            "samples": samples,
            "started_at": now,
            "updated_at": now,
            "result": None,
        }
        try:
            async with self._write() as conn:
                await conn.execute(a.insert().values(match_id=mid, **values))
            return True
        except IntegrityError:
            pass
        async with self._write() as conn:
            res = await conn.execute(
                a.update()
                .where(
                    a.c.match_id == mid,
                    a.c.status == "running",
                    a.c.updated_at < stale_before,
                )
                .values(**values)
            )
        return bool(res.rowcount == 1)

    async def analysis_progress(self, mid: str, owner: str, done: int, now: float) -> bool:
        """Store the progress of a claimed analysis; ``False`` when the claim was lost."""
        a = self.t.analyses
        async with self._write() as conn:
            res = await conn.execute(
                a.update()
                .where(a.c.match_id == mid, a.c.owner == owner[:64], a.c.status == "running")
                .values(done=done, updated_at=now)
            )
        return bool(res.rowcount == 1)

    async def finish_analysis(
        self, mid: str, owner: str, now: float, result: dict[str, Any] | str | None
    ) -> bool:
        """Store the result (``None``: it failed; a ``str``: its JSON text already) of a
        claimed analysis; ``False`` when the claim was lost (another node's result counts)."""
        a = self.t.analyses
        async with self._write() as conn:
            res = await conn.execute(
                a.update()
                .where(a.c.match_id == mid, a.c.owner == owner[:64], a.c.status == "running")
                .values(
                    status="done" if result is not None else "failed",
                    # Progress is written at most once a second: a finished one is whole.
                    done=a.c.total if result is not None else a.c.done,
                    updated_at=now,
                    result=result if result is None or isinstance(result, str) else dumps(result),
                )
            )
        return bool(res.rowcount == 1)
