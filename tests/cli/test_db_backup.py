"""``domino db backup`` and ``domino db restore`` (docs/deploy.md "Backups"), done as an
operator does them: a backup of a site's PostgreSQL tables taken while it serves a
finished and a running match, restored into a database made for it, and a node on that
database serving the finished match's record and replay as before and resuming the
running match for its player, who plays on.

Needs DOMINO_TEST_POSTGRES (the tables under a prefix of their own, dropped afterwards;
the restored database is created and dropped here) and Debian's postgresql-client
(``make deploy-tools``).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from domino.server.storage.db import Database
from domino.table import Timing
from domino_bench.site import Party, SiteClient, form

if TYPE_CHECKING:
    from live import LiveServers

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
#: Fast tables: bots move within 0.15 s, 0.3 s between rounds.
FAST = Timing(bot_delay=(0.05, 0.15), bot_step_delay=(0.05, 0.1), round_pause=0.3)
#: Bound of the waits for a whole match (a liveness bound, nothing is timed).
LONG = 120.0


def domino(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``domino ARGS`` as the operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "domino.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


@pytest.fixture
def prefix() -> Iterator[str]:
    if not PG_URL:
        pytest.skip("needs PostgreSQL: set DOMINO_TEST_POSTGRES (.ci/run does)")
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("needs pg_dump and pg_restore: make deploy-tools installs postgresql-client")
    name = f"bk{secrets.token_hex(3)}_"
    yield name
    asyncio.run(drop_tables(PG_URL, name))


async def drop_tables(url: str, prefix: str) -> None:
    db = Database(url, prefix)
    try:
        await db.drop()
    finally:
        await db.close()


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """The URL of a new, empty database on the test server (dropped at the end)."""
    assert PG_URL is not None
    url = make_url(PG_URL)
    name = f"test_restore_{secrets.token_hex(4)}"
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)

    async def sql(statement: str) -> None:
        conn = await asyncpg.connect(admin)
        try:
            await conn.execute(statement)
        finally:
            await conn.close()

    asyncio.run(sql(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def settings(db_url: str, prefix: str, tmp: Path) -> dict[str, Any]:
    """The fields of a node's settings on the database at ``db_url``."""
    return {
        "data_dir": tmp,
        "db_url": db_url,
        "table_prefix": prefix,
        "timing": FAST,
        "node": "solo",
        "analysis_workers": 0,
    }


async def player(name: str, url: str) -> SiteClient:
    client = SiteClient(name, url, delay=0.01)
    async with httpx.AsyncClient(timeout=30) as http:
        await client.signup(http)
    await client.open()
    return client


async def finished_and_running(url: str) -> tuple[SiteClient, SiteClient]:
    """Anna plays a match against a bot to its end; Ben starts one, plays three moves and
    then waits with his turn open (his match runs on)."""
    anna, ben = await player("Anna", url), await player("Ben", url)
    await form(Party(anna, []), url, seats=2, bots=1, rules={"target": 30})
    ben.allow(3)
    await form(Party(ben, []), url, seats=2, bots=1, rules={"target": 150, "turn_seconds": 30})
    await anna.until(lambda: anna.over, "Anna's match over", LONG)
    await ben.until(
        lambda: ben.acked() == 3 and ben._offer is not None and int(ben._offer["v"]) == ben.v,
        "Ben's three moves, and his turn again",
        LONG,
    )
    return anna, ben


def get(url: str) -> Any:
    r = httpx.get(url, timeout=30)
    assert r.status_code == 200, (url, r.status_code, r.text)
    return r.json()


async def test_a_backup_restored_into_a_new_database_serves_and_resumes_its_matches(
    tmp_path: Path, prefix: str, fresh_database: str, live_server: LiveServers
) -> None:
    assert PG_URL is not None
    upgraded = domino("db", "upgrade", "--db", PG_URL, "--table-prefix", prefix)
    assert upgraded.returncode == 0, upgraded.stderr
    dump = tmp_path / "site.dump"

    first = live_server.settings(**settings(PG_URL, prefix, tmp_path / "a"))
    url = live_server(first)
    anna, ben = await finished_and_running(url)
    done = str(anna.match)
    record = httpx.get(f"{url}/api/matches/{done}/record", timeout=30).text
    replay = get(f"{url}/api/matches/{done}/replay")
    stored_v = ben.v  # Ben's turn: nothing moves until he does
    # The backup is taken while the site serves (what an operator's cron job does).
    backup = domino("db", "backup", str(dump), "--db", PG_URL, "--table-prefix", prefix)
    assert backup.returncode == 0, backup.stderr
    assert str(dump) in backup.stdout
    await anna.close()
    await ben.close()
    live_server.stop(url)

    # The database is lost. A new one, the backup read into it (DOMINO_DB, as a unit's
    # environment file gives it), a node on it.
    env = {**os.environ, "DOMINO_DB": fresh_database}
    restored = domino("db", "restore", str(dump), "--table-prefix", prefix, env=env)
    assert restored.returncode == 0, restored.stderr
    # Once more into the same database: refused, nothing overwritten.
    again = domino("db", "restore", str(dump), "--table-prefix", prefix, env=env)
    assert again.returncode == 2 and "createdb" in again.stderr, again.stderr

    second = live_server.settings(**settings(fresh_database, prefix, tmp_path / "b"))
    url = live_server(second)
    assert httpx.get(f"{url}/api/matches/{done}/record", timeout=30).text == record
    assert get(f"{url}/api/matches/{done}/replay") == replay
    assert get(f"{url}/api/matches/{done}")["status"] == "finished"
    # Ben's token is in the backup: he signs in on the new node, gets his match at
    # the version the backup holds, and plays on.
    ben.site, ben.origin, ben._stopping = url, url, False
    mark = len(ben.frames)
    await ben.open(url)
    await ben.until(lambda: ben.states(ben.gen), "Ben's match on the restored node")
    assert int(ben.states(ben.gen)[0]["v"]) == stored_v
    assert ben.states(ben.gen)[0]["phase"] != "match_over"
    assert not [f for f in ben.frames[mark:] if f.msg.get("type") == "error"]
    ben.allow(2)
    await ben.until(lambda: ben.acked() == 5, "two more moves of Ben's", LONG)
    assert ben.v > stored_v
    await ben.close()


def test_a_backup_of_sqlite_says_how_to_make_one_instead(tmp_path: Path) -> None:
    done = domino("db", "backup", str(tmp_path / "x.dump"), "--data", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "sqlite3 " in done.stderr and ".backup" in done.stderr, done.stderr
    assert not (tmp_path / "x.dump").exists()


def test_the_password_goes_to_pg_dump_in_the_environment_not_its_arguments() -> None:
    from domino.cli.db import libpq_environment

    env = libpq_environment("postgresql+asyncpg://domino:s3cret@db.internal:5433/site?ssl=require")
    assert (env["PGHOST"], env["PGPORT"], env["PGUSER"]) == ("db.internal", "5433", "domino")
    assert (env["PGPASSWORD"], env["PGDATABASE"], env["PGSSLMODE"]) == ("s3cret", "site", "require")
