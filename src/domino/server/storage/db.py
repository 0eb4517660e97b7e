"""Persistence: SQLAlchemy 2 Core (async) on SQLite (WAL) or PostgreSQL.

What is stored: profiles and token hashes; lobbies (one JSON document each);
matches (rules, seats, secret seed, status, result, record); the append-only
match log (one row per accepted entry, the event-sourced truth); and one row
per seated player of a finished match for the profile history.

:class:`Database` is the one object the server opens: the parts of the storage, one
module each, on one engine (:mod:`.engine`), and the schema's life (migrations,
opening, closing). A component that needs one part is typed with that part:

- :class:`~.profiles.ProfileStore`: profiles and tokens;
- :class:`~.lobbies.LobbyStore`: lobbies and their members;
- :class:`~.matches.MatchStore`: matches, their ends and the profile history;
- :class:`~.matchlog.MatchLog`: the fenced match log with its group commit;
- :class:`~.analyses.AnalysisStore`: analyses of finished matches;
- :class:`~.puzzles.PuzzleStore`: puzzles from them, puzzle ratings and streaks;
- :class:`~.ratings.RatingStore`: ratings, their history and the leaderboard;
- :class:`~.social.SocialStore`: recent opponents;
- :class:`~.talk.TalkStore`: table talk (messages, blocks, reports, mutes);
- :class:`~.queue.QueueStore`: the matchmaking queue.

The schema is :func:`~.tables.make_tables`; Alembic migrations (:mod:`.schema`) build
the same tables in a database, and a test holds the two against each other.
"""

from __future__ import annotations

import sqlalchemy as sa

from domino.server.storage import schema
from domino.server.storage.analyses import AnalysisStore
from domino.server.storage.lobbies import LobbyStore
from domino.server.storage.matches import MatchStore
from domino.server.storage.matchlog import MatchLog
from domino.server.storage.profiles import ProfileStore
from domino.server.storage.puzzles import PuzzleStore
from domino.server.storage.queue import QueueStore
from domino.server.storage.ratings import RatingStore
from domino.server.storage.social import SocialStore
from domino.server.storage.tables import make_tables
from domino.server.storage.talk import TalkStore

__all__ = ["Database", "make_tables"]


class Database(
    ProfileStore,
    LobbyStore,
    MatchStore,
    MatchLog,
    AnalysisStore,
    PuzzleStore,
    RatingStore,
    SocialStore,
    TalkStore,
    QueueStore,
):
    """The server's storage; all methods are coroutines on one async engine."""

    async def create(self) -> None:
        """Bring the schema to the newest revision (:func:`.schema.upgrade`), then open."""
        await self.migrate()
        await self.open()

    async def migrate(self) -> str:
        """Apply the migrations this database lacks; return its revision (the newest)."""
        async with self.engine.begin() as conn:
            return await conn.run_sync(schema.upgrade, self.prefix)

    async def revision(self) -> str | None:
        """The stored revision (``None``: no version table)."""
        async with self.engine.connect() as conn:
            return await conn.run_sync(schema.current, self.prefix)

    async def check(self, command: str = "domino db upgrade") -> str:
        """The revision if it is the newest, :class:`.schema.NotMigrated` otherwise
        (``command``: what the message tells the operator to run)."""
        async with self.engine.connect() as conn:
            return await conn.run_sync(schema.check, self.prefix, command)

    async def prepare(self, migrate: bool, command: str = "domino db upgrade") -> str:
        """Make sure the schema is the newest before serving: apply the migrations
        (``migrate``) or refuse one that is behind (:class:`.schema.NotMigrated`)."""
        if migrate:
            return await self.migrate()
        return await self.check(command)

    async def open(self) -> None:
        """Get ready to serve on a migrated schema (nothing is checked here)."""
        self._start_appending()

    async def drop(self) -> None:
        """Drop every table of this prefix, the version table too (tests)."""
        version = sa.Table(schema.version_table(self.prefix), sa.MetaData())
        async with self.engine.begin() as conn:
            await conn.run_sync(self.t.meta.drop_all)
            await conn.run_sync(version.drop, checkfirst=True)

    async def close(self) -> None:
        """Finish pending appends, then release the connections."""
        await self._stop_appending()
        await self.engine.dispose()
