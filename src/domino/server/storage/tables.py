"""The schema's tables: :func:`make_tables`, with an optional name prefix.

Alembic migrations (:mod:`.schema`) build the same tables in a database, and a test
holds the two against each other (tests/server/storage/test_migrations.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

__all__ = ["Tables", "make_tables"]


@dataclass(frozen=True)
class Tables:
    """The schema, with an optional name prefix (parallel test runs share a database)."""

    meta: sa.MetaData
    profiles: sa.Table
    tokens: sa.Table
    lobbies: sa.Table
    matches: sa.Table
    log: sa.Table
    players: sa.Table
    members: sa.Table
    analyses: sa.Table
    puzzles: sa.Table
    puzzle_sources: sa.Table
    puzzle_days: sa.Table
    puzzle_players: sa.Table
    puzzle_tries: sa.Table
    ratings: sa.Table
    rating_history: sa.Table
    board: sa.Table
    board_built: sa.Table
    talk: sa.Table
    blocks: sa.Table
    reports: sa.Table
    mutes: sa.Table
    queue: sa.Table


def make_tables(prefix: str = "") -> Tables:
    """Build the schema's tables named ``{prefix}profiles`` and so on."""
    meta = sa.MetaData()
    profiles = sa.Table(
        f"{prefix}profiles",
        meta,
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        # lower-cased account name; NULL for guests (guests may share names)
        sa.Column("name_key", sa.String(100), unique=True, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(300), nullable=True),
        sa.Column("xp", sa.Integer, nullable=False, default=0),
        sa.Column("played", sa.Integer, nullable=False, default=0),
        sa.Column("won", sa.Integer, nullable=False, default=0),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    tokens = sa.Table(
        f"{prefix}tokens",
        meta,
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("profile_id", sa.String(40), nullable=False, index=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    lobbies = sa.Table(
        f"{prefix}lobbies",
        meta,
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        # Every stored change increments it; a change made from an older version is
        # refused (optimistic concurrency: any node may change any lobby).
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    )
    # Who is in which lobby that is not closed: one row per profile, so no profile is
    # ever in two lobbies, whichever nodes add it.
    members = sa.Table(
        f"{prefix}lobby_members",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, index=True),
    )
    matches = sa.Table(
        f"{prefix}matches",
        meta,
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("lobby", sa.String(16), nullable=True),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("seed", sa.String(100), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("record", sa.Text, nullable=True),
        # The fencing token: every claim of the match increments it, and an append is
        # refused unless it carries the current one (see Database.append).
        sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("owner", sa.String(64), nullable=True),
        # A rated match (matchmaking, or a lobby marked *gewertet* when it started): its
        # end updates the players' ratings (storage/ratings.py).
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    log = sa.Table(
        f"{prefix}match_log",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("entry", sa.Text, nullable=False),
    )
    players = sa.Table(
        f"{prefix}match_players",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("profile_id", sa.String(40), nullable=False, index=True),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("xp", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
    )
    # One row per finished match whose analysis was asked for (docs/analysis.md): the row
    # is the claim (inserted once, whichever node asks first), the progress while it is
    # worked on, and the stored result. A claim whose owner stopped reporting (updated_at
    # too old) may be taken over.
    analyses = sa.Table(
        f"{prefix}match_analysis",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("samples", sa.Integer, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
    )
    puzzles, sources, days, solvers, tries = puzzle_tables(meta, prefix)
    # One row per account and pool it was rated in (domino.ratings): the library's mu and
    # sigma, the shown rating, and what the leaderboard filters on. The index reads a pool
    # in the board's order when the board is built.
    ratings = sa.Table(
        f"{prefix}ratings",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("pool", sa.String(8), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("last_at", sa.Float, nullable=False),
        sa.Index(f"{prefix}ix_ratings_board", "pool", "rating", "profile_id", "matches", "last_at"),
    )
    # One row per rated account and rated match: the change shown at the end, the chart
    # and the statistics per mode. The key stores a match's update at most once.
    rating_history = sa.Table(
        f"{prefix}rating_history",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("pool", sa.String(8), nullable=False),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("before", sa.Integer, nullable=False),
        sa.Column("after", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Index(f"{prefix}ix_rating_history_profile", "profile_id", "pool", "at"),
    )
    # The leaderboard as last built (storage/ratings.py, at most once a minute per pool):
    # the listed accounts with their places, so a page, a place and its neighbours are
    # each one range of the primary key or one look-up, whatever the number of profiles.
    board = sa.Table(
        f"{prefix}rating_board",
        meta,
        sa.Column("pool", sa.String(8), primary_key=True),
        sa.Column("place", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("profile_id", sa.String(40), nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("provisional", sa.Boolean, nullable=False),
        sa.Index(f"{prefix}ix_rating_board_profile", "profile_id", "pool"),
    )
    # When each pool's board was built (one row per pool; the update is the claim).
    board_built = sa.Table(
        f"{prefix}rating_board_built",
        meta,
        sa.Column("pool", sa.String(8), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    talk, blocks, reports, mutes = talk_tables(meta, prefix)
    # The matchmaking queue (issue 23): one row per waiting profile (the primary key keeps
    # anybody from waiting twice); a pairing deletes its rows in the transaction that
    # stores the new lobby and match, so nobody is lost or paired twice.
    queue = sa.Table(
        f"{prefix}queue",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("choice", sa.String(40), nullable=False, index=True),
        sa.Column("wait", sa.Integer, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
    )
    return Tables(
        meta,
        profiles,
        tokens,
        lobbies,
        matches,
        log,
        players,
        members,
        analyses,
        puzzles,
        sources,
        days,
        solvers,
        tries,
        ratings,
        rating_history,
        board,
        board_built,
        talk,
        blocks,
        reports,
        mutes,
        queue,
    )


def puzzle_tables(
    meta: sa.MetaData, prefix: str
) -> tuple[sa.Table, sa.Table, sa.Table, sa.Table, sa.Table]:
    """The puzzles' tables (docs/puzzles.md, migration 0009)."""
    # One row per puzzle: the document (position, options, best move) and its Elo.
    puzzles = sa.Table(
        f"{prefix}puzzles",
        meta,
        sa.Column("id", sa.String(80), primary_key=True),
        sa.Column("match_id", sa.String(40), nullable=False, index=True),
        sa.Column("round_no", sa.Integer, nullable=False),
        sa.Column("move_no", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        # the player who made the Patzer (their "Deine Fehler" set); NULL: unknown
        sa.Column("profile_id", sa.String(40), nullable=True, index=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("doc", sa.Text, nullable=False),
    )
    # One row per match whose puzzles were built (once: the key), with the counts.
    sources = sa.Table(
        f"{prefix}puzzle_sources",
        meta,
        sa.Column("match_id", sa.String(40), primary_key=True),
        sa.Column("candidates", sa.Integer, nullable=False),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.Column("built_at", sa.Float, nullable=False),
    )
    # The puzzle of each day (UTC), chosen once by whichever node asks first.
    days = sa.Table(
        f"{prefix}puzzle_days",
        meta,
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("puzzle_id", sa.String(80), nullable=False),
    )
    # An account's puzzle rating and daily streak.
    solvers = sa.Table(
        f"{prefix}puzzle_players",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False, server_default="0"),
        sa.Column("best_streak", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_day", sa.String(10), nullable=True),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
    )
    # An account's first answer to a puzzle: only that one counts.
    tries = sa.Table(
        f"{prefix}puzzle_tries",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("puzzle_id", sa.String(80), primary_key=True),
        sa.Column("answer", sa.String(16), nullable=False),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    return puzzles, sources, days, solvers, tries


def talk_tables(meta: sa.MetaData, prefix: str) -> tuple[sa.Table, sa.Table, sa.Table, sa.Table]:
    """Table talk (docs/protocol.md "Table talk"): messages, blocks, reports, mutes."""
    # Every free-text message, kept with its room: ``lobby:{code}`` or ``match:{id}``.
    talk = sa.Table(
        f"{prefix}talk_messages",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room", sa.String(64), nullable=False),
        sa.Column("profile_id", sa.String(40), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Index(f"{prefix}ix_talk_messages_room_id", "room", "id"),
    )
    # ``blocker`` hides ``blocked``'s messages and reactions (and the reverse: the pair
    # never hears each other).
    blocks = sa.Table(
        f"{prefix}talk_blocks",
        meta,
        sa.Column("blocker", sa.String(40), primary_key=True),
        sa.Column("blocked", sa.String(40), primary_key=True, index=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    # *Melden*: the message, who wrote it and the talk before it, for the moderators.
    reports = sa.Table(
        f"{prefix}talk_reports",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.Integer, nullable=False),
        sa.Column("reporter", sa.String(40), nullable=False),
        sa.Column("reported", sa.String(40), nullable=False, index=True),
        sa.Column("room", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("context", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.UniqueConstraint("message_id", "reporter", name=f"{prefix}uq_talk_reports_once"),
    )
    # A profile silenced by a moderator until ``until`` (``domino mod mute``).
    mutes = sa.Table(
        f"{prefix}talk_mutes",
        meta,
        sa.Column("profile_id", sa.String(40), primary_key=True),
        sa.Column("until", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    return talk, blocks, reports, mutes
