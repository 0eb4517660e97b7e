"""``domino db``: the database's schema (Alembic migrations, docs/architecture.md) and
its backups (docs/deploy.md "Backups").

``domino db upgrade`` brings a database to the newest revision (a database made
before migrations is stamped with the baseline first); ``domino db current``
prints its revision. Both take the same ``--db`` / ``--data`` as ``domino serve``.

``domino db backup FILE`` writes a PostgreSQL database (its tables of
``--table-prefix``) to FILE with ``pg_dump --format=custom``; ``domino db restore
FILE`` reads one into a database that has no Domino tables yet with ``pg_restore``.
Both need Debian's ``postgresql-client``; the password goes to them in the
environment (``PGPASSWORD``), not on their command line. Every option can also be
given as ``DOMINO_<OPTION>`` (``DOMINO_DB``), as for ``domino serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Table prefixes a backup can select with a pg_dump pattern as they are.
_PLAIN_PREFIX = re.compile(r"[a-z0-9_]*")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``db`` subcommand with ``upgrade``, ``current``, ``backup`` and ``restore``."""
    from .serve import from_environment

    p = sub.add_parser(
        "db", help="the database's schema and backups: apply migrations, show the revision"
    )
    actions = p.add_subparsers(dest="action", required=True)
    for action, text in (
        ("upgrade", "apply every migration the database lacks (newest revision)"),
        ("current", "print the database's revision"),
        ("backup", "write the PostgreSQL database to FILE (pg_dump --format=custom)"),
        ("restore", "read FILE (a backup) into a new, empty PostgreSQL database (pg_restore)"),
    ):
        a = actions.add_parser(action, help=text)
        if action in ("backup", "restore"):
            a.add_argument("file", type=Path, metavar="FILE", help="the backup file")
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
        from_environment(a)


class Refused(Exception):
    """A backup or restore that cannot be done; ``str()`` is the operator's one line."""


def run(args: argparse.Namespace) -> int:
    """Run the action; print one line; 0 on success."""
    from domino.i18n import t
    from domino.server import Settings
    from domino.server.storage.db import Database
    from domino.server.storage.schema import PartialSchema, head

    settings = Settings(data_dir=Path(args.data), db_url=args.db, table_prefix=args.table_prefix)

    async def go() -> str:
        if args.action in ("backup", "restore"):
            return await backup_or_restore(args, settings.database_url)
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
    except (PartialSchema, Refused) as exc:
        print(exc, file=sys.stderr)
        return 2
    except (OSError, TimeoutError, DBAPIError) as exc:
        # The same one sentence as `domino serve`: missing, unreachable or refused.
        print(database_problem(settings.database_url, exc), file=sys.stderr)
        return 2
    return 0


async def backup_or_restore(args: argparse.Namespace, url: str) -> str:
    """``domino db backup`` or ``restore``: the line to print, or :class:`Refused`."""
    from sqlalchemy.engine import make_url

    from domino.i18n import t
    from domino.server.storage.db import Database
    from domino.server.storage.schema import head

    parsed = make_url(url)
    if not parsed.drivername.startswith("postgresql"):
        raise Refused(t("db_backup_sqlite", path=str(Path(args.data) / "domino.sqlite")))
    prefix = args.table_prefix
    if not _PLAIN_PREFIX.fullmatch(prefix):
        raise Refused(t("db_backup_prefix", prefix=prefix))
    tool = "pg_dump" if args.action == "backup" else "pg_restore"
    program = shutil.which(tool)
    if program is None:
        raise Refused(t("db_tool_missing", tool=tool))
    db = Database(url, prefix)
    try:
        before = await db.revision()
        file = str(args.file)
        if args.action == "backup":
            if before is None:
                raise Refused(t("db_backup_empty", database=parsed.database or ""))
            cmd = [program, "--format=custom", "--no-owner", "--no-privileges", "--file", file]
            if prefix:  # only this prefix's tables (and their sequences)
                cmd += ["--table", f"{prefix}*"]
        else:
            if before is not None:
                raise Refused(t("db_restore_not_empty", database=parsed.database or ""))
            if not args.file.is_file():
                raise Refused(t("db_backup_missing", file=file))
            cmd = [program, "--no-owner", "--no-privileges", "--exit-on-error"]
            cmd += ["--single-transaction", "--dbname", parsed.database or "", file]
        done = await asyncio.to_thread(
            subprocess.run, cmd, env=libpq_environment(url), capture_output=True, text=True
        )
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            reason = lines[0] if lines else f"exit status {done.returncode}"
            raise Refused(t("db_tool_failed", tool=tool, reason=reason))
        if args.action == "backup":
            return t("db_backup_done", file=file, revision=before)
        return t("db_restored", revision=await db.revision() or "-", head=head())
    finally:
        await db.close()


def libpq_environment(url: str) -> dict[str, str]:
    """This environment plus libpq's variables (``PGHOST``, ``PGPASSWORD`` ...) for a
    ``postgresql+asyncpg://`` URL: pg_dump and pg_restore read the password there, where
    ``ps`` does not show it."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    env = dict(os.environ)
    for name, value in (
        ("PGHOST", parsed.host),
        ("PGPORT", parsed.port),
        ("PGUSER", parsed.username),
        ("PGPASSWORD", parsed.password),
        ("PGDATABASE", parsed.database),
    ):
        if value is not None:
            env[name] = str(value)
    ssl = parsed.query.get("sslmode") or parsed.query.get("ssl")
    if isinstance(ssl, str):  # asyncpg's ssl=require is libpq's sslmode=require
        env["PGSSLMODE"] = {"true": "require", "false": "disable"}.get(ssl, ssl)
    return env
