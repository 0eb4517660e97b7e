"""Everything a server instance is configured with, in one frozen object."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domino.server.clock import Clock, SystemClock
from domino.server.gcpolicy import GcPolicy

if TYPE_CHECKING:
    from domino.server.storage.db import Database

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: Seconds a bot's decision may take on a serving table (Meister then plays its best so far).
DEFAULT_BOT_BUDGET = 0.15


@dataclass(frozen=True)
class Settings:
    """Configuration of :func:`domino.server.create_app`.

    ``db_url`` defaults to SQLite in ``data_dir``; a ``postgresql+asyncpg://``
    URL selects PostgreSQL. ``origins`` is the WebSocket Origin allowlist
    (``None``: the server's own address). ``timing`` is passed to every
    :class:`domino.table.Table` (``None``: the table's defaults). ``bot_budget`` is
    the time a bot's decision may take (``None``: no limit), measured by the table
    on ``time.perf_counter``.
    ``table_prefix`` lets parallel test runs share one PostgreSQL database.
    ``migrate``: whether starting brings the schema to the newest revision by itself
    (``None``: on SQLite only); otherwise a database that is not migrated is refused
    (:class:`.schema.NotMigrated`, naming :attr:`upgrade_command`).
    ``database`` makes the store from ``(database_url, table_prefix)`` (``None``:
    :class:`~domino.server.storage.db.Database`); the seam a benchmark measures a
    different store through (the load bench's ``--skip-log-writes``).
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    data_dir: Path = Path("data")
    db_url: str | None = None
    origins: tuple[str, ...] | None = None
    public_url: str | None = None
    clock: Clock = field(default_factory=SystemClock)
    timing: Any = None
    bot_budget: float | None = DEFAULT_BOT_BUDGET
    table_prefix: str = ""
    # This node's name: the owner it claims matches as, and in its logs (None: host:pid).
    node: str | None = None
    # A cluster (docs/deploy.md): Redis for the match leases; None: one process owns every
    # match of its database. Lease time and how often a node looks for orphaned matches.
    redis_url: str | None = None
    redis_prefix: str = "domino:"
    lease_ttl: float = 3.0
    sweep_every: float = 0.5
    migrate: bool | None = None
    # Where match seeds come from; None = ``secrets`` (tests pass a seeded source so a
    # failing deal can be replayed).
    seeds: Callable[[], str] | None = None
    web_dir: Path | None = None
    # limits a client meets (docs/protocol.md)
    max_frame: int = 8192
    bucket_burst: float = 30.0
    bucket_rate: float = 10.0
    max_bad_messages: int = 5
    # Guest sign-ups, account creations and logins per client address (a token bucket):
    # a burst, then so many per second.
    signin_burst: float = 30.0
    signin_rate: float = 0.2
    hello_timeout: float = 20.0  # real seconds a new socket has to say hello
    name_max: int = 24
    password_min: int = 8
    password_max: int = 128
    recent_matches: int = 20
    # Post-match analyses (docs/analysis.md): worker processes, matches that may wait
    # beyond them, sampled deals per decision, the priority the workers lower themselves
    # to, seconds after which a claim nobody reports on is taken over, and whether the
    # hindsight judgement (knowing every hand) is stored beside it. ``analysis_duty`` is
    # the share of a core a worker may use: it rests after each slice of work so that
    # live matches keep the machine's caches and cores to themselves most of the time.
    analysis_workers: int = 1
    analysis_queue: int = 8
    analysis_samples: int = 200
    analysis_nice: int = 10
    analysis_stale: float = 60.0
    analysis_hindsight: bool = True
    analysis_duty: float = 0.3
    # Hints (*Tipp*, server/desks/hints.py): worker processes (0 switches hints off), hints
    # that may wait beyond them, the priority the workers lower themselves to (low:
    # live matches first; the idle class would starve hints on a busy machine), and the CPU
    # seconds one hint's search may take at most (Meister's playouts usually end it first).
    hint_workers: int = 1
    hint_queue: int = 8
    hint_nice: int = 10
    hint_budget: float = 0.5
    # /metrics: a token scrapers must send (``Authorization: Bearer ...``; None: open), or
    # an address of its own ("127.0.0.1:9100"; then the main port does not serve it).
    metrics_token: str | None = None
    metrics_listen: str | None = None
    # The garbage collector's policy for a serving process (server/gcpolicy.py); None
    # leaves the interpreter's defaults (tests run many servers in one process).
    gc_policy: GcPolicy | None = None
    database: Callable[[str, str], Database] | None = None

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL to connect to."""
        if self.db_url:
            return self.db_url
        return f"sqlite+aiosqlite:///{self.data_dir / 'domino.sqlite'}"

    @property
    def metrics_address(self) -> tuple[str, int]:
        """``metrics_listen`` as ``(host, port)`` (``:9100`` listens on every address)."""
        text = self.metrics_listen or ""
        host, sep, port = text.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError(f"not HOST:PORT: {text!r}")
        return (host.strip("[]") or "0.0.0.0", int(port))

    @property
    def migrates(self) -> bool:
        """Whether starting applies the migrations (see ``migrate``)."""
        if self.migrate is not None:
            return self.migrate
        return self.database_url.startswith("sqlite")

    @property
    def upgrade_command(self) -> str:
        """The ``domino db upgrade`` command line for this database (password hidden)."""
        if self.db_url:
            from sqlalchemy.engine import make_url

            shown = make_url(self.db_url).render_as_string(hide_password=True)
            where = f"--db {shown}"
        else:
            where = f"--data {self.data_dir}"
        extra = f" --table-prefix {self.table_prefix}" if self.table_prefix else ""
        return f"domino db upgrade {where}{extra}"

    @property
    def base_url(self) -> str:
        """The address people open (share links are built on it)."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}"

    @property
    def allowed_origins(self) -> frozenset[str]:
        """The WebSocket Origin allowlist."""
        if self.origins is not None:
            return frozenset(o.rstrip("/") for o in self.origins)
        own = {self.base_url, f"http://localhost:{self.port}", f"http://127.0.0.1:{self.port}"}
        return frozenset(own)
