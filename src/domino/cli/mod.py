"""``domino mod``: the moderators' commands for table talk.

``domino mod reports`` lists the newest reports (*Melden*) with the talk before each
message; ``domino mod mute PROFILE --hours N`` silences a profile for N hours (its
messages and reactions are refused with a German error; ``--hours 0`` lifts it).
Both take the same ``--db`` / ``--data`` / ``--table-prefix`` as ``domino db``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

#: The longest mute, in hours (a year).
MAX_HOURS = 24 * 366


def _hours(text: str) -> float:
    value = float(text)
    if not 0 <= value <= MAX_HOURS:
        raise argparse.ArgumentTypeError(f"0..{MAX_HOURS}")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``mod`` subcommand with ``reports`` and ``mute``."""
    from .serve import from_environment

    p = sub.add_parser("mod", help="moderation of table talk: list reports, mute a profile")
    actions = p.add_subparsers(dest="action", required=True)
    reports = actions.add_parser("reports", help="list the newest reports with their context")
    reports.add_argument("--limit", type=int, default=50, help="how many (50)")
    mute = actions.add_parser("mute", help="silence PROFILE for --hours N (0 lifts it)")
    mute.add_argument("profile", metavar="PROFILE", help="the profile's id (p_...)")
    mute.add_argument("--hours", type=_hours, required=True, help="hours (0..8784)")
    for a in (reports, mute):
        a.add_argument("--data", default="data", help="data folder for the SQLite file (./data)")
        a.add_argument(
            "--db", default=None, help="database URL (postgresql+asyncpg://...); default SQLite"
        )
        a.add_argument("--table-prefix", default="", help="prefix of the table names")
        a.set_defaults(func=run)
        from_environment(a)


def run(args: argparse.Namespace) -> int:
    """Run the action; print its lines; 0 on success, 2 for an unknown profile."""
    from domino.server import Settings
    from domino.server.storage.db import Database

    settings = Settings(data_dir=Path(args.data), db_url=args.db, table_prefix=args.table_prefix)

    async def go() -> tuple[int, list[str]]:
        if args.db is None:
            Path(args.data).mkdir(parents=True, exist_ok=True)
        db = Database(settings.database_url, settings.table_prefix)
        try:
            await db.prepare(settings.migrates, settings.upgrade_command)
            if args.action == "reports":
                return 0, await report_lines(db, args.limit)
            return await mute(db, args.profile, args.hours)
        finally:
            await db.close()

    from sqlalchemy.exc import DBAPIError

    from domino.server.storage.schema import NotMigrated, PartialSchema

    from .serve import database_problem

    try:
        code, lines = asyncio.run(go())
    except (NotMigrated, PartialSchema) as exc:
        print(exc, file=sys.stderr)
        return 2
    except (OSError, TimeoutError, DBAPIError) as exc:
        print(database_problem(settings.database_url, exc), file=sys.stderr)
        return 2
    for line in lines:
        print(line, file=sys.stdout if code == 0 else sys.stderr, flush=True)
    return code


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


async def report_lines(db: Any, limit: int) -> list[str]:
    """The reports, newest first: one line each, then its context indented."""
    from domino.i18n import t

    reports = await db.reports(limit)
    if not reports:
        return [t("mod_reports_none")]
    names = await db.names(sorted({r["reporter"] for r in reports}))
    lines = []
    for r in reports:
        reported = r["context"][-1]["name"] if r["context"] else "?"
        lines.append(
            t(
                "mod_report",
                id=r["id"],
                when=_when(r["at"]),
                room=r["room"],
                who=reported,
                profile=r["reported"],
                reporter=names.get(r["reporter"], r["reporter"]),
                text=r["text"],
            )
        )
        for m in r["context"]:
            lines.append(f"    {_when(m['at'])} {m['name']}: {m['text']}")
    return lines


async def mute(db: Any, pid: str, hours: float) -> tuple[int, list[str]]:
    """Silence ``pid`` for ``hours`` (0: lift it)."""
    from domino.i18n import t

    row = await db.profile(pid)
    if row is None:
        return 2, [t("profile_not_found")]
    now = time.time()
    until = now + hours * 3600
    await db.mute(pid, until, now)
    if hours == 0:
        return 0, [t("mod_unmuted", who=row["name"], profile=pid)]
    return 0, [t("mod_muted", who=row["name"], profile=pid, until=_when(until))]
