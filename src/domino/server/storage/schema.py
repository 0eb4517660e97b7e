"""The schema's revisions: Alembic migrations (``domino.server.storage.migrations``).

A database is *migrated* when its version table (``{prefix}alembic_version``)
names the newest revision. ``domino db upgrade`` brings a database there;
``domino serve`` does it by itself on SQLite, and refuses any other database
that is not there (:class:`NotMigrated`), so a node never runs on a schema its
code does not expect.

A database made before migrations existed (the server's old ``create_all``)
has every table of the baseline revision and no version table: :func:`upgrade`
stamps it with the baseline, then applies what came after.

Everything here is synchronous on a SQLAlchemy ``Connection``; the server runs
it on its async engine with ``AsyncConnection.run_sync`` (:class:`.db.Database`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import sqlalchemy as sa
from alembic import command, context
from alembic.config import Config
from alembic.runtime.environment import EnvironmentContext
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from domino.i18n import t
from domino.server.storage import migrations

#: The revision that describes the schema as it was before migrations.
BASELINE = "0001"
#: The baseline's tables (unprefixed).
BASELINE_TABLES = ("profiles", "tokens", "lobbies", "matches", "match_log", "match_players")
MIGRATIONS_DIR = Path(migrations.__file__).parent


class NotMigrated(Exception):
    """The database's schema is not at the newest revision this code knows.

    ``current`` is the stored revision (``None``: no version table), ``head`` the
    newest one; ``command`` is what to run (``domino db upgrade ...``). ``str()``
    is the German sentence an operator reads.
    """

    def __init__(self, current: str | None, head: str, command: str = "domino db upgrade") -> None:
        self.current = current
        self.head = head
        self.command = command
        if current is None:
            text = t("db_unversioned", head=head, command=command)
        elif current in known_revisions():
            text = t("db_not_migrated", current=current, head=head, command=command)
        else:
            text = t("db_too_new", current=current, head=head)
        super().__init__(text)


class PartialSchema(Exception):
    """Some baseline tables exist, others not, and there is no version table: the
    database is not one this program made, so it is left alone."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = missing
        super().__init__(t("db_partial", missing=", ".join(missing)))


def version_table(prefix: str) -> str:
    """The name of the version table for ``prefix``."""
    return f"{prefix}alembic_version"


def config(prefix: str = "", connection: Connection | None = None) -> Config:
    """An Alembic ``Config`` for the packaged migrations, with the prefix (and the
    connection to run on) in its attributes."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["table_prefix"] = prefix
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())


def head() -> str:
    """The newest revision."""
    rev = _scripts().get_current_head()
    assert rev is not None
    return str(rev)


@cache
def known_revisions() -> frozenset[str]:
    """Every revision this code has a script for."""
    return frozenset(s.revision for s in _scripts().walk_revisions())


def current(conn: Connection, prefix: str = "") -> str | None:
    """The database's revision, or ``None`` when it has no version table (or no row)."""
    ctx = MigrationContext.configure(conn, opts={"version_table": version_table(prefix)})
    rev = ctx.get_current_revision()
    return None if rev is None else str(rev)


def check(conn: Connection, prefix: str = "", command: str = "domino db upgrade") -> str:
    """The database's revision if it is the newest; :class:`NotMigrated` otherwise."""
    rev = current(conn, prefix)
    if rev != head():
        raise NotMigrated(rev, head(), command)
    return rev


def upgrade(conn: Connection, prefix: str = "") -> str:
    """Bring the database to the newest revision; return it.

    No version table: an empty database gets every revision from the first; one with
    every baseline table (made by the old ``create_all``) is stamped with the
    baseline first; one with only some of them raises :class:`PartialSchema`.
    """
    if current(conn, prefix) is None:
        existing = set(sa.inspect(conn).get_table_names())
        present = [tb for tb in BASELINE_TABLES if f"{prefix}{tb}" in existing]
        if len(present) == len(BASELINE_TABLES):
            command.stamp(config(prefix, conn), BASELINE)
        elif present:
            missing = [f"{prefix}{tb}" for tb in BASELINE_TABLES if tb not in present]
            raise PartialSchema(missing)
    if current(conn, prefix) != head():
        # What ``command.upgrade(config(prefix, conn), "head")`` does, on the scripts
        # loaded once per process: the test suite migrates hundreds of databases, and
        # loading env.py and every revision each time was most of a migration's cost.
        scripts = _scripts()
        with EnvironmentContext(
            config(prefix, conn),
            scripts,
            fn=lambda rev, _ctx: scripts._upgrade_revs("head", rev),
            destination_rev="head",
        ):
            run_migrations(conn, prefix)
    return head()


def run_migrations(conn: Connection, prefix: str) -> None:
    """Run the migrations of the active Alembic environment on ``conn`` (env.py)."""
    context.configure(connection=conn, version_table=version_table(prefix), target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
