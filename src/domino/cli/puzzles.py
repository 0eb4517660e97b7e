"""``domino puzzles``: puzzles from the stored analyses of finished matches (docs/puzzles.md).

``domino puzzles build`` builds the puzzles of every finished match whose analysis is
stored and whose puzzles were not built yet (the server does the same as each analysis
is stored), one line per match and a total: how many candidates (Patzer) the batch
gave and how many passed the selection. ``domino puzzles check`` replays every stored
puzzle's match through the engine and holds the puzzle against it. Both take the same
``--db`` / ``--data`` / ``--table-prefix`` as ``domino serve``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``puzzles`` subcommand with ``build`` and ``check``."""
    from .serve import from_environment

    p = sub.add_parser("puzzles", help="puzzles from the stored analyses of finished matches")
    actions = p.add_subparsers(dest="action", required=True)
    for action, text in (
        ("build", "build the puzzles of every analysed match that has none yet"),
        ("check", "replay every stored puzzle's match through the engine and check the puzzle"),
    ):
        a = actions.add_parser(action, help=text)
        a.add_argument("--data", default="data", help="data folder for the SQLite file (./data)")
        a.add_argument(
            "--db", default=None, help="database URL (postgresql+asyncpg://...); default SQLite"
        )
        a.add_argument("--table-prefix", default="", help="prefix of the table names")
        a.set_defaults(func=run)
        from_environment(a)


def run(args: argparse.Namespace) -> int:
    """Run the action, printing its lines; 0 on success, 1 when a puzzle fails its check."""
    from domino.server import Settings
    from domino.server.storage.db import Database

    settings = Settings(data_dir=Path(args.data), db_url=args.db, table_prefix=args.table_prefix)
    if args.db is None:
        Path(args.data).mkdir(parents=True, exist_ok=True)

    async def go() -> int:
        db = Database(settings.database_url, settings.table_prefix)
        try:
            await db.check()
            if args.action == "build":
                return await build(db)
            return await check(db)
        finally:
            await db.close()

    from sqlalchemy.exc import DBAPIError

    from domino.server.storage.schema import NotMigrated, PartialSchema

    from .serve import database_problem

    try:
        return asyncio.run(go())
    except (NotMigrated, PartialSchema) as exc:
        print(exc, file=sys.stderr)
        return 2
    except (OSError, TimeoutError, DBAPIError) as exc:
        print(database_problem(settings.database_url, exc), file=sys.stderr)
        return 2


async def build(db: Any) -> int:
    """Build every missing match's puzzles in this process; print the counts."""
    from domino.i18n import t
    from domino.server.desks.puzzles import build_in_worker, build_match

    async def here(*args: Any) -> str:
        return build_in_worker(*args)

    matches = candidates = passed = 0
    rejected: dict[str, int] = {}
    started = time.process_time()
    for mid in await db.unbuilt_analyses():
        built = await build_match(db, mid, time.time, here)
        if built is None:
            continue
        matches += 1
        candidates += built.candidates
        passed += built.passed
        for why, n in built.rejected.items():
            rejected[why] = rejected.get(why, 0) + n
        print(t("puzzles_match", match=mid, candidates=built.candidates, passed=built.passed))
    print(
        t(
            "puzzles_built",
            matches=matches,
            candidates=candidates,
            passed=passed,
            close=rejected.get("close", 0),
            luck=rejected.get("luck", 0),
            unstable=rejected.get("unstable", 0),
            seconds=f"{time.process_time() - started:.1f}",
        ),
        flush=True,
    )
    return 0


async def check(db: Any) -> int:
    """Replay every stored puzzle's match and check the puzzle; print the count."""
    from domino.analysis.puzzles import PuzzleMismatch
    from domino.analysis.puzzles import check as check_one
    from domino.i18n import t

    bad = 0
    rows = await db.all_puzzles()
    for row in rows:
        try:
            if row["status"] != "finished" or not isinstance(row["record"], dict):
                raise PuzzleMismatch("its match is not finished")
            check_one(row["record"], row["doc"])
        except (PuzzleMismatch, ValueError) as exc:
            bad += 1
            print(t("puzzles_check_failed", puzzle=row["id"], why=str(exc)), file=sys.stderr)
    print(t("puzzles_checked", count=len(rows), bad=bad), flush=True)
    return 1 if bad else 0
