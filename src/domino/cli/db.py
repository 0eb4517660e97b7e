"""``domino db``: the database's schema (Alembic migrations, docs/architecture.md).

``domino db upgrade`` brings a database to the newest revision (a database made
before migrations is stamped with the baseline first); ``domino db current``
prints its revision. Both take the same ``--db`` / ``--data`` as ``domino serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``db`` subcommand with ``upgrade`` and ``current``."""
    p = sub.add_parser("db", help="the database's schema: apply migrations, show the revision")
    actions = p.add_subparsers(dest="action", required=True)
    for action, text in (
        ("upgrade", "apply every migration the database lacks (newest revision)"),
        ("current", "print the database's revision"),
    ):
        a = actions.add_parser(action, help=text)
        a.add_argument("--data", default="data", help="data folder for the SQLite file (./data)")
        a.add_argument(
            "--db", default=None, help="database URL (postgresql+asyncpg://...); default SQLite"
        )
        a.add_argument(
            "--table-prefix",
            default="",
            help="prefix of the table names (test runs sharing one PostgreSQL database)",
        )
        a.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``upgrade`` or ``current``; print one line; 0 on success."""
    from domino.i18n import t
    from domino.server import Settings
    from domino.server.db import Database
    from domino.server.schema import PartialSchema, head

    settings = Settings(data_dir=Path(args.data), db_url=args.db, table_prefix=args.table_prefix)

    async def go() -> str:
        if args.db is None:
            if args.action == "current" and not (Path(args.data) / "domino.sqlite").exists():
                return t("db_current_none", head=head())  # do not create the file to say so
            Path(args.data).mkdir(parents=True, exist_ok=True)
        db = Database(settings.database_url, settings.table_prefix)
        try:
            if args.action == "upgrade":
                return t("db_upgraded", revision=await db.migrate(), head=head())
            rev = await db.revision()
            if rev is None:
                return t("db_current_none", head=head())
            return t("db_current", revision=rev, head=head())
        finally:
            await db.close()

    from sqlalchemy.exc import DBAPIError

    from .serve import database_problem

    try:
        print(asyncio.run(go()), flush=True)
    except PartialSchema as exc:
        print(exc, file=sys.stderr)
        return 2
    except (OSError, TimeoutError, DBAPIError) as exc:
        # The same one sentence as `domino serve`: missing, unreachable or refused.
        print(database_problem(settings.database_url, exc), file=sys.stderr)
        return 2
    return 0
