"""``domino serve``: run the game server (FastAPI on uvicorn) and print its address."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domino.server import Settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` subcommand."""
    p = sub.add_parser("serve", help="run the game server (lobbies, matches, the web client)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--data", default="data", help="data folder for the SQLite file (./data)")
    p.add_argument(
        "--db", default=None, help="database URL (postgresql+asyncpg://...); default SQLite"
    )
    p.add_argument(
        "--redis",
        default=None,
        help="Redis URL (redis://127.0.0.1:6379/0): run as one node of a cluster (docs/deploy.md)",
    )
    p.add_argument(
        "--redis-prefix",
        default="domino:",
        metavar="PREFIX",
        help="prefix of this cluster's Redis keys and channels (default domino:; clusters "
        "sharing one Redis, such as test runs, need one each)",
    )
    p.add_argument(
        "--origins",
        default=None,
        help="comma-separated WebSocket Origin allowlist (default: the server's own address)",
    )
    p.add_argument("--public-url", default=None, help="address people open (for share links)")
    p.add_argument("--bot-delay", default=None, help="MIN,MAX seconds a bot waits before its move")
    p.add_argument("--round-pause", type=float, default=None, help="seconds between rounds")
    p.add_argument(
        "--bot-budget",
        type=bot_budget,
        default=argparse.SUPPRESS,  # absent: the server's default (Settings.bot_budget)
        metavar="SECONDS",
        help="time a bot's decision may take, then Meister plays its best so far "
        "(default 0.15; 'off': no limit)",
    )
    p.add_argument("--log-level", default="info", help="log level (debug, info, warning, error)")
    p.add_argument(
        "--log-format",
        choices=("json", "text"),
        default=None,
        help="json: one JSON object per line; text: for reading (default: text when stderr "
        "is a terminal, json otherwise)",
    )
    p.add_argument(
        "--node",
        default=None,
        help="this node's name in logs and as the owner of its matches (default: HOST:PORT)",
    )
    p.add_argument(
        "--table-prefix",
        default="",
        help="prefix of the table names (test runs sharing one PostgreSQL database)",
    )
    p.add_argument(
        "--drain-grace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="on SIGTERM: answer /api/health with 503 and take no new lobbies or matches "
        "for this long (counted from the SIGTERM, while the matches are handed over, which "
        "may take up to 12 s) before shutting down, so the balancer takes the node out "
        "first (default 0)",
    )
    p.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="ADDRESSES",
        help="comma-separated addresses of the balancer (HAProxy): requests from them give "
        "the player's address in X-Forwarded-For, which the sign-in budget counts "
        "(default: none, the peer's address counts)",
    )
    p.add_argument(
        "--signin-budget",
        type=signin_budget,
        default=None,
        metavar="BURST,RATE",
        help="guest sign-ups, account creations and logins per client address: a burst, then "
        "so many per second (default 30,0.2; a load test from one address needs more)",
    )
    p.add_argument(
        "--analysis-workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for post-match analyses (default 1; 0: analyses off, "
        "docs/analysis.md)",
    )
    p.add_argument(
        "--hint-workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for hints (Tipp; default 1; 0: hints off, docs/protocol.md)",
    )
    p.add_argument(
        "--analysis-duty",
        type=duty,
        default=None,
        metavar="SHARE",
        help="the share of a core each analysis worker may use, above 0 up to 1 (default "
        "0.3: it rests the other 70 %% of the time, which keeps live matches fast)",
    )
    p.add_argument(
        "--metrics-listen",
        type=address,
        default=None,
        metavar="HOST:PORT",
        help="serve /metrics on an address of its own (say 127.0.0.1:9100), not on the "
        "game's port (default: the game's port)",
    )
    p.add_argument(
        "--metrics-token",
        default=None,
        metavar="TOKEN",
        help="/metrics answers only with 'Authorization: Bearer TOKEN' (better given as "
        "DOMINO_METRICS_TOKEN; default: no token)",
    )
    p.add_argument(
        "--max-connections",
        type=positive_int,
        default=MAX_CONNECTIONS,
        metavar="N",
        help=f"open connections (sockets and requests) this node serves at once; beyond them "
        f"it answers 503 (default {MAX_CONNECTIONS:,}); the open-file limit must allow them",
    )
    p.set_defaults(func=run)
    from_environment(p)


#: ``--max-connections``' default: above what one node serves on one core (docs/deploy.md).
MAX_CONNECTIONS = 10_000
#: File descriptors a node needs beside its connections: the database pool, Redis, the
#: analysis workers' pipes, log files, the listening socket.
RESERVED_FILES = 256
#: Every flag ``--some-flag`` can also be given as the environment variable
#: ``DOMINO_SOME_FLAG`` (so passwords in URLs need not show in ``ps``); a flag wins.
ENV_PREFIX = "DOMINO_"


def env_name(option: str) -> str:
    """The environment variable of a long option: ``--redis-prefix`` -> DOMINO_REDIS_PREFIX."""
    return ENV_PREFIX + option.removeprefix("--").replace("-", "_").upper()


def environment_table(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """``(flag, variable)`` for every option of ``parser`` that takes a value."""
    rows = []
    for action in parser._actions:
        longs = [o for o in action.option_strings if o.startswith("--")]
        if longs and action.nargs != 0:
            rows.append((longs[0], env_name(longs[0])))
    return rows


def from_environment(parser: argparse.ArgumentParser) -> None:
    """Let the environment give the defaults of ``parser``'s options (see
    :data:`ENV_PREFIX`). A value that its option would refuse stops the parse with the
    variable's name in the message, as a bad flag does."""
    original = parser.parse_known_args

    def parse_known_args(args: Any = None, namespace: Any = None) -> Any:
        for action in parser._actions:
            longs = [o for o in action.option_strings if o.startswith("--")]
            if not longs or action.nargs == 0:
                continue
            name = env_name(longs[0])
            text = os.environ.get(name)
            if text is None or text == "":
                continue
            try:
                value = action.type(text) if callable(action.type) else text
            except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
                parser.error(f"{name}: {exc or text!r}")
            if action.choices is not None and value not in action.choices:
                choices = ", ".join(map(str, action.choices))
                parser.error(f"{name}: {text!r} is not one of {choices}")
            action.default = value
        return original(args, namespace)

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def address(text: str) -> str:
    """``HOST:PORT`` with a port number (an empty host listens on every address)."""
    _host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}")
    return text


def positive_int(text: str) -> int:
    """A whole number above 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be above 0")
    return value


def raise_open_files(need: int) -> tuple[int, int] | None:
    """Raise this process's soft limit of open files to its hard limit (systemd's usual
    soft limit of 1,024 would fail a node at about 1,000 sockets). Returns ``(hard,
    need)`` when even the hard limit is below ``need``, else ``None``."""
    try:
        import resource
    except ImportError:  # not on POSIX: nothing to raise
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            hard = soft
    if hard == resource.RLIM_INFINITY and soft != hard:
        target = max(soft, need)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return None
        return None
    return (hard, need) if hard < need else None


def signin_budget(text: str) -> tuple[float, float]:
    """``--signin-budget``: ``BURST,RATE``, both positive numbers."""
    burst, _, rate = text.partition(",")
    try:
        pair = (float(burst), float(rate))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not BURST,RATE: {text!r}") from None
    if not all(x > 0 for x in pair):
        raise argparse.ArgumentTypeError("the burst and the rate must be positive")
    return pair


def duty(text: str) -> float:
    """``--analysis-duty``: a share of a core, above 0 and at most 1."""
    try:
        share = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < share <= 1:
        raise argparse.ArgumentTypeError("the share must be above 0 and at most 1")
    return share


def bot_budget(text: str) -> float | None:
    """``--bot-budget``: seconds (at least 0), or ``off`` for no limit (``None``)."""
    if text.strip().lower() in ("off", "none"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError("a budget cannot be negative")
    return value


def run(args: argparse.Namespace) -> int:
    """Build the app from the arguments and serve it until interrupted."""
    from domino.i18n import t
    from domino.server import GcPolicy, Settings, create_app
    from domino.server.metrics import configure_logging
    from domino.server.run import SHUTDOWN_WAIT, NodeServer, uvicorn_config
    from domino.server.storage.schema import NotMigrated, PartialSchema
    from domino.table import Timing

    timing = None
    if args.bot_delay is not None or args.round_pause is not None:
        base = Timing()
        delay = base.bot_delay
        if args.bot_delay is not None:
            lo, _, hi = args.bot_delay.partition(",")
            delay = (float(lo), float(hi or lo))
        timing = Timing(
            bot_delay=delay,
            bot_step_delay=(
                min(delay[0], base.bot_step_delay[0]),
                min(delay[1], base.bot_step_delay[1]),
            ),
            round_pause=base.round_pause if args.round_pause is None else args.round_pause,
            grace=base.grace,
        )
    origins = None
    if args.origins:
        origins = tuple(o.strip() for o in args.origins.split(",") if o.strip())
    settings = Settings(
        host=args.host,
        port=args.port,
        data_dir=Path(args.data),
        db_url=args.db,
        redis_url=args.redis,
        redis_prefix=args.redis_prefix,
        table_prefix=args.table_prefix,
        origins=origins,
        public_url=args.public_url,
        timing=timing,
        gc_policy=GcPolicy(),
    )
    settings = dataclasses.replace(
        settings, metrics_listen=args.metrics_listen, metrics_token=args.metrics_token or None
    )
    if args.signin_budget is not None:
        burst, rate = args.signin_budget
        settings = dataclasses.replace(settings, signin_burst=burst, signin_rate=rate)
    if args.analysis_workers is not None:
        settings = dataclasses.replace(settings, analysis_workers=max(0, args.analysis_workers))
    if args.analysis_duty is not None:
        settings = dataclasses.replace(settings, analysis_duty=args.analysis_duty)
    if args.hint_workers is not None:
        settings = dataclasses.replace(settings, hint_workers=max(0, args.hint_workers))
    if hasattr(args, "bot_budget"):
        settings = dataclasses.replace(settings, bot_budget=args.bot_budget)
    node = args.node or f"{socket.gethostname()}:{settings.port}"
    settings = dataclasses.replace(settings, node=node)
    fmt = args.log_format or ("text" if sys.stderr.isatty() else "json")
    configure_logging(fmt, args.log_level, node)
    short = raise_open_files(args.max_connections + RESERVED_FILES)
    if short is not None:
        hard, need = short
        print(
            t("serve_few_files", hard=hard, need=need, connections=args.max_connections),
            file=sys.stderr,
            flush=True,
        )
    try:
        asyncio.run(prepare_database(settings))
        if settings.redis_url:
            asyncio.run(check_redis(settings.redis_url))
    except (NotMigrated, PartialSchema, Unreachable) as exc:
        print(exc, file=sys.stderr, flush=True)
        return 2
    app = create_app(settings)
    print(t("serve_running", url=f"{settings.base_url}/"), flush=True)
    proxy = {}
    if args.forwarded_allow_ips:
        proxy = {"proxy_headers": True, "forwarded_allow_ips": args.forwarded_allow_ips}
    config = uvicorn_config(
        app,
        settings,
        log_level=args.log_level,
        log_config=None,
        limit_concurrency=args.max_connections,
        timeout_graceful_shutdown=SHUTDOWN_WAIT,
        **proxy,
    )
    NodeServer(config, app.state.service, args.drain_grace).run()
    return 0


class Unreachable(Exception):
    """The database or Redis a node was given cannot be used; ``str()`` is the one German
    line the operator reads (the traceback would say nothing more that helps)."""


#: Seconds a start-up check of Redis waits for an answer.
REDIS_TIMEOUT = 5.0


async def prepare_database(settings: Settings) -> str:
    """Before serving: migrate the database (SQLite, see ``Settings.migrates``) or check
    that it is migrated (:class:`domino.server.storage.schema.NotMigrated` if not); the revision.
    A database that cannot be reached, or does not exist, is :class:`Unreachable`."""
    from sqlalchemy.exc import DBAPIError

    from domino.server.storage.db import Database

    if settings.db_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.database_url, settings.table_prefix)
    try:
        return await db.prepare(settings.migrates, settings.upgrade_command)
    except (OSError, TimeoutError, DBAPIError) as exc:
        raise Unreachable(database_problem(settings.database_url, exc)) from exc
    finally:
        await db.close()


def database_problem(url: str, exc: BaseException) -> str:
    """The operator's sentence for a database that ``url`` names but that cannot be used."""
    from sqlalchemy.engine import make_url

    from domino.i18n import t

    parsed = make_url(url)
    shown = parsed.render_as_string(hide_password=True)
    if any(type(e).__name__ == "InvalidCatalogNameError" for e in causes(exc)):
        server = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
        return t("db_missing", name=parsed.database or "", server=server)
    reason = os_reason(exc)
    if reason is not None:
        return t("db_unreachable", url=shown, reason=reason)
    driver = [e for e in causes(exc) if type(e).__module__.startswith("asyncpg")]
    return t("db_refused", url=shown, reason=one_line(driver[-1] if driver else exc))


async def check_redis(url: str) -> None:
    """Before serving as a node of a cluster: Redis at ``url`` answers a PING, else
    :class:`Unreachable`. (Redis going away later is the node's to live with.)"""
    import redis.asyncio as aioredis
    from redis.exceptions import RedisError

    from domino.i18n import t

    try:
        client = aioredis.from_url(
            url, socket_connect_timeout=REDIS_TIMEOUT, socket_timeout=REDIS_TIMEOUT
        )
    except ValueError as exc:  # not a Redis URL
        raise Unreachable(t("redis_unreachable", url=url, reason=one_line(exc))) from exc
    try:
        await client.ping()
    except (OSError, TimeoutError, RedisError) as exc:
        shown = hide_password(url)
        reason = os_reason(exc) or one_line(exc)
        raise Unreachable(t("redis_unreachable", url=shown, reason=reason)) from exc
    finally:
        await client.aclose()


def causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what caused it, outermost first."""
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in chain:
        chain.append(e)
        e = e.__cause__ or e.__context__
    return chain


def os_reason(exc: BaseException) -> str | None:
    """Why a connection failed, in words, when the operating system said it."""
    from domino.i18n import t

    for e in causes(exc):
        if isinstance(e, ConnectionRefusedError):
            return t("reason_refused")
        if isinstance(e, socket.gaierror):
            return t("reason_unknown_host")
        if isinstance(e, TimeoutError):
            return t("reason_timeout")
    for e in causes(exc):
        if isinstance(e, OSError):
            return one_line(e)
    return None


def one_line(exc: BaseException) -> str:
    """An exception's own text on one line (SQLAlchemy adds a second one with a link)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def hide_password(url: str) -> str:
    """``url`` with a password in it replaced by ``***``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))
