"""What a node reports to Prometheus at ``/metrics``, and its structured logs.

Each :class:`~domino.server.service.Service` owns one :class:`Metrics` with its
own registry (tests run many servers in one process; the library's global
registry would mix them). Gauges are read when scraped, from the service's own
state, so nothing has to keep them current:

- ``domino_sockets``: open, signed-in sockets;
- ``domino_matches_owned``: matches this node drives now;
- ``domino_lobbies``: lobbies this node knows that are not closed;
- ``domino_draining``: 1 while the node drains (SIGTERM), else 0;
- ``domino_leases_held``: match leases this node holds (a cluster's node);
- ``domino_redis_up``: 1 while Redis answers the node's router, 0 when it is away
  (a cluster's node only);
- ``domino_router_backlog``: messages queued for Redis and not yet sent;
- ``domino_router_dropped``: messages dropped since start because that queue was
  full (Redis away too long); a counter, read from the router.

Besides the game's figures, the registry carries prometheus_client's process
(``process_cpu_seconds_total``, ``process_resident_memory_bytes``,
``process_open_fds``, ``process_max_fds``, ...) and Python (``python_info``,
``python_gc_*``) collectors.

Counters and histograms are updated where the work happens:

- ``domino_commands_total{kind, result}``: commands for a match (``move``,
  ``back``, ``leave``; ``result`` ``ok`` or ``refused`` — refused by the rules
  or the table — or ``failed``: not stored, so not acknowledged);
- ``domino_command_seconds``: from a command's arrival at its match to its
  messages queued for every audience, the lock's wait and the log append
  included (the server's share of command-to-event latency);
- ``domino_append_seconds``: one append of log entries (its commit included);
- ``domino_router_messages_total{audience}``: per-audience messages handed to
  the router (``seat`` or ``spectators``);
- ``domino_lease_takeovers_total``: matches this node took over from another.

Commands per second is ``rate(domino_commands_total[1m])`` in PromQL.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets
import sys
import time
import traceback
from bisect import bisect_left
from collections.abc import Callable
from typing import Any, Protocol

from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

#: Latency buckets in seconds, from a fast command (≈ 1 ms) to a stalled one.
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
)

CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    """One node's metrics in a registry of its own."""

    def __init__(
        self,
        *,
        sockets: Callable[[], float],
        matches: Callable[[], float],
        lobbies: Callable[[], float],
        draining: Callable[[], float] = lambda: 0.0,
        leases: Callable[[], float] = lambda: 0.0,
        router: ClusterFigures | None = None,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        # The process's and the interpreter's own figures (the library's collectors read
        # /proc and the gc module; registered here too, as this registry is the node's).
        for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            r.register(collector)
        Gauge("domino_sockets", "Open, signed-in sockets", registry=r).set_function(sockets)
        Gauge("domino_matches_owned", "Matches this node drives", registry=r).set_function(matches)
        Gauge("domino_lobbies", "Lobbies that are not closed", registry=r).set_function(lobbies)
        Gauge("domino_draining", "1 while the node drains (SIGTERM)", registry=r).set_function(
            draining
        )
        Gauge("domino_leases_held", "Match leases this node holds", registry=r).set_function(leases)
        if router is not None:  # a cluster's node
            Gauge("domino_redis_up", "1 while Redis answers the router", registry=r).set_function(
                lambda: float(router.healthy)
            )
            Gauge(
                "domino_router_backlog", "Messages queued for Redis, not yet sent", registry=r
            ).set_function(lambda: float(router.backlog))
            r.register(_Dropped(router))
        # The figures counted on every command and message are plain numbers of the event
        # loop's thread, read when scraped (:class:`_LoopFigures`): a library counter
        # takes a lock per update (3.9 % of the server's samples at 8,000 clients,
        # docs/performance.md).
        self.commands: dict[tuple[str, str], int] = {}
        self.command_seconds = LoopHistogram(LATENCY_BUCKETS)
        self.append_seconds = LoopHistogram(LATENCY_BUCKETS)
        self.routed_seat = 0
        self.routed_spectators = 0
        r.register(_LoopFigures(self))
        self.takeovers = Counter(
            "domino_lease_takeovers",
            "Matches this node took over from another node",
            registry=r,
        )

    def command(self, kind: str, result: str, seconds: float) -> None:
        """One command handled by a match."""
        key = (kind, result)
        self.commands[key] = self.commands.get(key, 0) + 1
        self.command_seconds.observe(seconds)

    def append(self, seconds: float) -> None:
        """One append of log entries stored."""
        self.append_seconds.observe(seconds)

    def routed(self, seat: int | None) -> None:
        """One message for a seat (``None``: the spectators) went to the router."""
        if seat is None:
            self.routed_spectators += 1
        else:
            self.routed_seat += 1

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)


#: Bytes of a request head the metrics listener reads at most, and seconds it waits.
_HEAD_LIMIT = 8192
_HEAD_TIMEOUT = 5.0


async def serve_metrics(
    host: str, port: int, render: Callable[[], bytes], token: str | None = None
) -> asyncio.Server:
    """Answer ``GET /metrics`` on an address of its own (``domino serve
    --metrics-listen``), on the node's event loop, so that the scrape reads the node's
    state where it lives; everything else gets 404, a malformed request 400. One
    request per connection (Prometheus opens one per scrape). With ``token``
    (``--metrics-token``) only a request with ``Authorization: Bearer TOKEN`` gets
    them; any other 401."""

    def allowed(head: bytes) -> bool:
        if token is None:
            return True
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"authorization":
                scheme, _, given = value.strip().partition(b" ")
                if scheme.lower() == b"bearer":
                    return secrets.compare_digest(given.strip(), token.encode())
        return False

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT)
            method, path, *_ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            path = path.partition("?")[0]
            if method in ("GET", "HEAD") and path == "/metrics" and not allowed(head):
                status, body, kind = "401 Unauthorized", b"token needed\n", "text/plain"
            elif method in ("GET", "HEAD") and path == "/metrics":
                status, body, kind = "200 OK", render(), CONTENT_TYPE
            else:
                status, body, kind = "404 Not Found", b"not found\n", "text/plain"
            body_out = b"" if method == "HEAD" else body
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            writer.close()
            return
        except ValueError:  # no request line
            status, kind, body = "400 Bad Request", "text/plain", b"bad request\n"
            body_out = body
        head_out = (
            f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        try:
            writer.write(head_out.encode("latin-1") + body_out)
            await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    return await asyncio.start_server(answer, host, port, limit=_HEAD_LIMIT)


class ClusterFigures(Protocol):
    """What a cluster's router tells the metrics (:class:`~.cluster.redisrouter.RedisRouter`)."""

    @property
    def healthy(self) -> bool:
        """Whether Redis answers."""
        ...

    @property
    def backlog(self) -> int:
        """Messages queued for Redis, not yet sent."""
        ...

    @property
    def dropped(self) -> int:
        """Messages dropped because that queue was full."""
        ...


class LoopHistogram:
    """A histogram kept as plain numbers, updated on the event loop's thread only (no
    lock); exported by :class:`_LoopFigures` as the library's histogram would be."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound
        self.sum = 0.0

    def observe(self, value: float) -> None:
        """Count ``value`` in the first bucket whose bound it does not exceed."""
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value

    def family(self, name: str, documentation: str) -> HistogramMetricFamily:
        """The histogram as the library exports one: cumulative buckets, count, sum."""
        counts, total = list(self.counts), self.sum  # one reading, consistent
        buckets: list[tuple[str, float]] = []
        seen = 0
        for bound, n in zip((*self.bounds, math.inf), counts, strict=True):
            seen += n
            buckets.append(("+Inf" if bound == math.inf else repr(float(bound)), seen))
        out = HistogramMetricFamily(name, documentation)
        out.add_metric([], buckets, total)
        return out


class _LoopFigures:
    """The counters and histograms :class:`Metrics` keeps as plain numbers, read when
    scraped: ``domino_commands_total``, ``domino_command_seconds``,
    ``domino_append_seconds`` and ``domino_router_messages_total``."""

    def __init__(self, m: Metrics) -> None:
        self.m = m

    def describe(self) -> list[Metric]:
        return self.collect()

    def collect(self) -> list[Metric]:
        m = self.m
        commands = CounterMetricFamily(
            "domino_commands", "Commands for a match, by kind and result", labels=["kind", "result"]
        )
        for (kind, result), n in sorted(m.commands.items()):
            commands.add_metric([kind, result], n)
        routed = CounterMetricFamily(
            "domino_router_messages",
            "Per-audience messages handed to the router",
            labels=["audience"],
        )
        routed.add_metric(["seat"], m.routed_seat)
        routed.add_metric(["spectators"], m.routed_spectators)
        return [
            commands,
            m.command_seconds.family(
                "domino_command_seconds",
                "From a command's arrival at its match to its messages queued",
            ),
            m.append_seconds.family(
                "domino_append_seconds", "One append of match log entries, commit included"
            ),
            routed,
        ]


class _Dropped:
    """``domino_router_dropped_total``: the router's own count, read when scraped."""

    def __init__(self, router: ClusterFigures) -> None:
        self.router = router

    def describe(self) -> list[CounterMetricFamily]:
        return [self._family(0)]

    def collect(self) -> list[CounterMetricFamily]:
        return [self._family(self.router.dropped)]

    @staticmethod
    def _family(value: float) -> CounterMetricFamily:
        return CounterMetricFamily(
            "domino_router_dropped",
            "Messages dropped because the queue for Redis was full",
            value=value,
        )


# -- structured logs ---------------------------------------------------------------------
#: LogRecord attributes that are not extra fields of an event.
_STANDARD = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__.keys()
    | {"message", "asctime", "color_message", "taskName"}
)


class JsonLines(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``event``, ``msg``,
    the node's name, every ``extra`` field, and a traceback as one string."""

    def __init__(self, node: str | None = None) -> None:
        super().__init__()
        self.node = node

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": getattr(record, "event", None) or "log",
            "msg": record.getMessage(),
        }
        if self.node is not None:
            out["node"] = self.node
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            # (client, method, path, HTTP version, status): fields, not only text
            client, method, path, _version, status = args
            out.update(event="http", client=client, method=method, path=path, status=status)
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key != "event" and key not in out:
                out[key] = value
        if record.exc_info:
            out["exc"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        return json.dumps(out, ensure_ascii=False, default=str)


class Text(logging.Formatter):
    """``time level logger: message key=value ...`` for a person at a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        fields = " ".join(
            f"{k}={v}" for k, v in record.__dict__.items() if k not in _STANDARD and k != "event"
        )
        line = f"{stamp} {record.levelname.lower():7} {record.name}: {record.getMessage()}"
        if fields:
            line += " " + fields
        if record.exc_info:
            line += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        return line


def configure_logging(fmt: str = "json", level: str = "info", node: str | None = None) -> None:
    """Send the server's and uvicorn's logs to stderr, one line per event."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines(node) if fmt == "json" else Text())
    for name in ("domino", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.propagate = False
        logger.setLevel(level.upper())


__all__ = ["CONTENT_TYPE", "JsonLines", "Metrics", "Text", "configure_logging"]
