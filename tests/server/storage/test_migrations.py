"""The schema's migrations (Alembic) agree with ``make_tables``, on SQLite and, when
DOMINO_TEST_POSTGRES is set, on PostgreSQL with a table prefix; a database the old
``create_all`` made is stamped and upgraded; a node refuses a database that is behind.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import create_async_engine

from domino.cli import main
from domino.server import Settings, create_app
from domino.server.storage.db import Database, make_tables
from domino.server.storage.schema import (
    BASELINE,
    BASELINE_TABLES,
    NotMigrated,
    PartialSchema,
    config,
    head,
    version_table,
)

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
NO_PG = "PostgreSQL migration tests skipped: set DOMINO_TEST_POSTGRES (.ci/run does) to run them"
needs_pg = [pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason=NO_PG)]
BACKENDS = ["sqlite", "sqlite-prefixed", pytest.param("postgres", marks=needs_pg)]


@pytest.fixture(params=BACKENDS)
async def empty(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A database without any table of its prefix."""
    if request.param == "postgres":
        assert PG_URL is not None
        url, prefix = PG_URL, f"m{uuid.uuid4().hex[:12]}_"
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite'}"
        prefix = "p_" if request.param == "sqlite-prefixed" else ""
    database = Database(url, prefix)
    try:
        yield database
    finally:
        await database.drop()
        await database.close()


def differences(conn: Connection, prefix: str) -> list[Any]:
    """What autogenerate would change to turn the database into ``make_tables(prefix)``:
    only this prefix's tables count (others share a PostgreSQL database), never the
    version table."""

    def ours(name: str | None, kind: str, _parent: Any) -> bool:
        if kind != "table" or name is None:
            return True
        return name.startswith(prefix) and name != version_table(prefix)

    ctx = MigrationContext.configure(
        conn,
        opts={
            "compare_type": True,
            "compare_server_default": True,
            "include_name": ours,
            "version_table": version_table(prefix),
        },
    )
    return list(compare_metadata(ctx, make_tables(prefix).meta))


def table_names(conn: Connection) -> set[str]:
    return set(sa.inspect(conn).get_table_names())


async def test_the_migrations_build_exactly_what_make_tables_describes(empty: Database) -> None:
    assert await empty.revision() is None
    assert await empty.migrate() == head()
    assert await empty.revision() == head()
    async with empty.engine.connect() as conn:
        assert await conn.run_sync(differences, empty.prefix) == []
        names = await conn.run_sync(table_names)
    assert version_table(empty.prefix) in names
    assert {f"{empty.prefix}{t}" for t in BASELINE_TABLES} <= names
    # a second upgrade has nothing to do, and the schema still agrees
    assert await empty.migrate() == head()
    async with empty.engine.connect() as conn:
        assert await conn.run_sync(differences, empty.prefix) == []


async def test_a_differing_make_tables_is_noticed(empty: Database) -> None:
    """The comparison above can fail: a column the migrations lack is a difference."""
    await empty.migrate()
    tables = make_tables(empty.prefix)
    sa.Table(tables.matches.name, tables.meta, sa.Column("extra", sa.Integer), extend_existing=True)

    def diff(conn: Connection) -> list[Any]:
        ctx = MigrationContext.configure(conn)
        return [d for d in compare_metadata(ctx, tables.meta) if d[0] == "add_column"]

    async with empty.engine.connect() as conn:
        (change,) = await conn.run_sync(diff)
    assert change[3].name == "extra"


#: A lobby document as the server stored it before revision 0003: Anna seated, Ben watching.
OLD_LOBBY = (
    '{"code": "OPEN2222", "host": "p1", "rules": {}, "seats": [{"kind": "human",'
    ' "name": "Anna", "player": "p1", "level": null}, null], "watchers": [["p2", "Ben"]],'
    ' "status": "open", "match": null, "created_at": 1.0}'
)


def old_create_all(conn: Connection, prefix: str) -> None:
    """The schema as the server's start-up ``create_all`` made it before migrations:
    today's tables without what revisions after the baseline added."""
    tables = make_tables(prefix)
    tables.meta.create_all(conn)
    for column in ("fence", "owner", "rated"):
        conn.execute(sa.text(f'ALTER TABLE "{tables.matches.name}" DROP COLUMN {column}'))
    conn.execute(sa.text(f'ALTER TABLE "{tables.lobbies.name}" DROP COLUMN version'))
    tables.members.drop(conn)
    tables.analyses.drop(conn)
    for table in (
        tables.puzzles,
        tables.puzzle_sources,
        tables.puzzle_days,
        tables.puzzle_players,
        tables.puzzle_tries,
    ):  # 0009
        table.drop(conn)
    tables.ratings.drop(conn)
    tables.rating_history.drop(conn)
    tables.board.drop(conn)
    tables.board_built.drop(conn)
    for table in (tables.talk, tables.blocks, tables.reports, tables.mutes):  # 0007
        table.drop(conn)
    tables.queue.drop(conn)


async def test_a_database_made_by_create_all_is_stamped_as_the_baseline(empty: Database) -> None:
    async with empty.engine.begin() as conn:
        await conn.run_sync(old_create_all, empty.prefix)
        await conn.execute(
            sa.text(
                f'INSERT INTO "{empty.prefix}matches" (id, status, rules, seats, seed, started_at)'
                " VALUES ('m1', 'running', '{}', '[]', 's', 1.0)"
            )
        )
        # Two lobbies as the old server stored them: one open, one closed.
        for code, status, doc in (
            ("OPEN2222", "open", OLD_LOBBY),
            ("GONE3333", "closed", OLD_LOBBY.replace("p2", "p3")),
        ):
            await conn.execute(
                sa.text(
                    f'INSERT INTO "{empty.prefix}lobbies" (code, status, data, updated_at)'
                    " VALUES (:code, :status, :data, 1.0)"
                ),
                {"code": code, "status": status, "data": doc},
            )
    assert await empty.revision() is None
    assert await empty.migrate() == head()
    async with empty.engine.connect() as conn:
        assert await conn.run_sync(differences, empty.prefix) == []
        row = (await conn.execute(sa.select(empty.t.matches))).one()
    assert (row.id, row.fence, row.owner) == ("m1", 0, None)  # kept, with the new defaults
    # The open lobby's members were copied into lobby_members; the closed one's were not.
    assert await empty.lobby_of("p1") == "OPEN2222" and await empty.lobby_of("p2") == "OPEN2222"
    assert await empty.lobby_of("p3") is None
    assert (await empty.lobby_row("OPEN2222")).version == 0  # type: ignore[union-attr]


async def test_a_database_with_only_some_tables_is_left_alone(empty: Database) -> None:
    tables = make_tables(empty.prefix)
    async with empty.engine.begin() as conn:
        await conn.run_sync(tables.profiles.create)
    with pytest.raises(PartialSchema) as caught:
        await empty.migrate()
    assert f"{empty.prefix}matches" in str(caught.value)
    assert await empty.revision() is None
    async with empty.engine.connect() as conn:
        assert f"{empty.prefix}matches" not in await conn.run_sync(table_names)


async def test_every_revision_goes_down_and_up_again(empty: Database) -> None:
    await empty.migrate()

    def go(conn: Connection, target: str, up: bool) -> None:
        cfg = config(empty.prefix, conn)
        (command.upgrade if up else command.downgrade)(cfg, target)

    async with empty.engine.begin() as conn:
        await conn.run_sync(go, BASELINE, False)
    assert await empty.revision() == BASELINE
    async with empty.engine.begin() as conn:
        await conn.run_sync(go, "base", False)
        assert not {f"{empty.prefix}{t}" for t in BASELINE_TABLES} & await conn.run_sync(
            table_names
        )
    assert await empty.revision() is None
    assert await empty.migrate() == head()
    async with empty.engine.connect() as conn:
        assert await conn.run_sync(differences, empty.prefix) == []


async def test_a_database_behind_is_refused_with_the_command_to_run(empty: Database) -> None:
    with pytest.raises(NotMigrated) as caught:
        await empty.check("domino db upgrade --db URL")
    assert caught.value.current is None and caught.value.head == head()
    assert "domino db upgrade --db URL" in str(caught.value)
    assert "Versionstabelle" in str(caught.value)  # German, from the catalogue

    def to_baseline(conn: Connection) -> None:
        command.upgrade(config(empty.prefix, conn), BASELINE)

    async with empty.engine.begin() as conn:
        await conn.run_sync(to_baseline)
    with pytest.raises(NotMigrated) as caught:
        await empty.check("domino db upgrade --db URL")
    assert caught.value.current == BASELINE
    assert f"Revision {BASELINE}" in str(caught.value) and "--db URL" in str(caught.value)
    await empty.migrate()
    assert await empty.check() == head()


def test_a_server_refuses_to_start_on_a_database_that_is_not_migrated(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    settings = Settings(data_dir=tmp_path, migrate=False)
    assert settings.upgrade_command == f"domino db upgrade --data {tmp_path}"
    with pytest.raises(NotMigrated) as caught, TestClient(create_app(settings)):
        pass
    assert settings.upgrade_command in str(caught.value)
    assert asyncio.run(_revision(settings)) is None  # refused, nothing changed


async def _revision(settings: Settings) -> str | None:
    db = Database(settings.database_url)
    try:
        return await db.revision()
    finally:
        await db.close()


def test_sqlite_migrates_by_itself_and_the_db_commands_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["db", "current", "--data", str(data)]) == 0
    assert "keine Versionstabelle" in capsys.readouterr().out
    assert not data.exists()  # asking created nothing
    from domino.cli.serve import prepare_database

    settings = Settings(data_dir=data)
    assert settings.migrates  # SQLite: `domino serve` migrates by itself
    assert asyncio.run(prepare_database(settings)) == head()
    assert main(["db", "current", "--data", str(data)]) == 0
    assert f"Revision {head()}" in capsys.readouterr().out
    assert main(["db", "upgrade", "--data", str(data)]) == 0  # nothing to do, still fine
    assert f"Revision {head()}" in capsys.readouterr().out


def test_db_upgrade_stamps_and_upgrades_an_old_sqlite_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def old() -> None:
        db = Database(f"sqlite+aiosqlite:///{tmp_path / 'domino.sqlite'}")
        async with db.engine.begin() as conn:
            await conn.run_sync(old_create_all, "")
        await db.close()

    asyncio.run(old())
    assert main(["db", "upgrade", "--data", str(tmp_path)]) == 0
    assert f"Revision {head()}" in capsys.readouterr().out
    assert asyncio.run(_revision(Settings(data_dir=tmp_path))) == head()


async def _admin(sql: str) -> None:
    assert PG_URL is not None
    engine = create_async_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(sa.text(sql))
    finally:
        await engine.dispose()


@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason=NO_PG)
def test_serve_on_postgresql_refuses_until_db_upgrade_ran(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A database of its own (``domino serve`` has no table prefix), dropped at the end."""
    assert PG_URL is not None
    name = f"domino_mig_{uuid.uuid4().hex[:12]}"
    url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    try:
        # `domino serve --db URL` says what to run and exits non-zero before serving
        assert main(["serve", "--db", url]) == 2
        err = capsys.readouterr().err
        assert "Versionstabelle" in err and f"domino db upgrade --db {url}" in err
        assert main(["db", "current", "--db", url]) == 0
        assert "keine Versionstabelle" in capsys.readouterr().out
        assert main(["db", "upgrade", "--db", url]) == 0
        assert f"Revision {head()}" in capsys.readouterr().out
        assert main(["db", "current", "--db", url]) == 0
        assert f"Revision {head()}" in capsys.readouterr().out
        from domino.cli.serve import prepare_database

        assert asyncio.run(prepare_database(Settings(db_url=url))) == head()
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
