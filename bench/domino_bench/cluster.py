"""Several ``domino serve`` nodes behind HAProxy on 127.0.0.1 (the cluster tests).

>>> with Cluster("postgresql+asyncpg://postgres@127.0.0.1:5432/test", 3) as c:  # doctest: +SKIP
...     httpx.get(c.url + "/api/health").json()["node"]
'node2'

:class:`Cluster` runs ``domino db upgrade`` once on a fresh table prefix, starts
N node processes (``python -m domino.cli serve --db URL --table-prefix P --node
nodeK [--redis URL]``, each on its own ephemeral port, ``--log-format json`` into a file per
node), renders the repository's ``deploy/haproxy.cfg`` for them (one ``server``
line per node, the addresses in environment variables HAProxy expands) and
starts HAProxy on another ephemeral port with its runtime API on a Unix socket in
the cluster's folder. It returns once HAProxy reports every node ``UP``: every
wait polls, bounded in time, nothing sleeps a fixed while.

Nodes are numbered from 1, like their names and HAProxy's servers: ``kill(2)``
sends SIGKILL to ``node2``. Leaving the ``with`` block stops HAProxy and every
node, drops the tables of the prefix and removes the folder.

With ``tls`` (a PEM file with a certificate and its key) HAProxy ends TLS as on a
site: :attr:`Cluster.url` is ``https://``, and plain http on :attr:`Cluster.http_port`
answers with a redirect to it; without it the configuration's ``DOMINO_PLAIN_HTTP``
mode serves plain http.

Nodes get ``--drain-grace`` (default 10 s): after one SIGTERM (:meth:`drain`) a
node answers ``/api/health`` with 503 for that long before it shuts down; a
second SIGTERM (:meth:`terminate`) shuts it down at once.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from domino.server.run import free_port

from . import CHECKOUT
from .guide import as_flags, haproxy_environment, node_settings

#: The repository's HAProxy configuration (a source checkout; pass another with ``config``).
HAPROXY_CFG = CHECKOUT / "deploy" / "haproxy.cfg"
#: How long a start (or a wait for HAProxy to see a change) may take, in seconds.
#: Generous: on a shared 2-core machine a node's start has taken several seconds.
START_TIMEOUT = 60.0
#: Polling period of every wait (seconds).
POLL = 0.05
#: The HAProxy backend of the nodes (deploy/haproxy.cfg).
BACKEND = "nodes"
_SERVER_LINE = re.compile(r'^(\s*)server node1 "\$\{DOMINO_NODE1\}"(.*)$')
_ANY_SERVER_LINE = re.compile(r'^\s*server node\d+ "\$\{DOMINO_NODE\d+\}"')
_PRIVILEGED = re.compile(r"^\s*(chroot|user|group)\s")


class ClusterError(RuntimeError):
    """A node or HAProxy did not start, or a wait ran out of time."""


def haproxy_binary() -> str | None:
    """The ``haproxy`` executable, or ``None`` where it is not installed."""
    return shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(p, os.X_OK)),
        None,
    )


def render_config(template: str, nodes: int) -> str:
    """``deploy/haproxy.cfg`` for ``nodes`` nodes, run unprivileged.

    The ``server node1 "${DOMINO_NODE1}" ...`` line is the pattern: every ``server
    nodeK "${DOMINO_NODEK}"`` line is replaced by one line per node; ``chroot``,
    ``user`` and ``group`` are dropped. Everything else is left for HAProxy to
    expand from the environment (:meth:`Cluster.environment`).
    """
    out: list[str] = []
    pattern: re.Match[str] | None = None
    for line in template.splitlines():
        if _PRIVILEGED.match(line):
            continue
        if _ANY_SERVER_LINE.match(line):
            if pattern is None:
                pattern = _SERVER_LINE.match(line)
                if pattern is None:
                    raise ClusterError(
                        'the first server line must be: server node1 "${DOMINO_NODE1}"'
                    )
                indent, rest = pattern.group(1), pattern.group(2)
                out += [
                    f'{indent}server node{k} "${{DOMINO_NODE{k}}}"{rest}'
                    for k in range(1, nodes + 1)
                ]
            continue
        out.append(line)
    if pattern is None:
        raise ClusterError("the HAProxy configuration has no server lines for the nodes")
    return "\n".join(out) + "\n"


@dataclass
class Node:
    """One ``domino serve`` process of the cluster."""

    name: str
    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        """The node's own address (past HAProxy)."""
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        """Whether the process runs (a stopped one, SIGSTOP, counts as running)."""
        return self.proc is not None and self.proc.poll() is None


@dataclass
class Cluster:
    """N nodes on one PostgreSQL database (a table prefix of their own) behind HAProxy.

    With ``redis_url`` the nodes run as a cluster (``--redis``: match leases, takeover);
    without it each is a single process on the shared database. ``extra`` is added to
    every node's command line, ``node_extra(k)`` to node ``k``'s.
    """

    db_url: str
    n: int = 3
    redis_url: str | None = None
    extra: list[str] = field(default_factory=list)
    node_extra: Callable[[int], list[str]] | None = None
    prefix: str = field(default_factory=lambda: f"c{os.urandom(5).hex()}_")
    drain_grace: float = 10.0
    check_inter: str = "100ms"
    check_timeout: str = "1s"
    config: Path = HAPROXY_CFG
    python: str = sys.executable
    folder: Path | None = None
    tls: Path | None = None

    def __post_init__(self) -> None:
        self._own_folder = self.folder is None
        self.dir = (
            Path(tempfile.mkdtemp(prefix="domino-cluster-")) if self.folder is None else self.folder
        )
        self.port = free_port()
        self.http_port = free_port()  # with TLS: the plain http that redirects to https
        self.socket = self.dir / "haproxy.sock"
        self.nodes = [
            Node(f"node{k}", free_port(), self.dir / f"node{k}.log") for k in range(1, self.n + 1)
        ]
        self.haproxy: subprocess.Popen[bytes] | None = None
        self.migrated = False

    @property
    def redis_prefix(self) -> str:
        """The cluster's Redis keys and channels (its own: runs may share one Redis)."""
        return f"{self.prefix}:"

    # -- addresses ---------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The site's address, through HAProxy (``https://`` with :attr:`tls`)."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """The WebSocket address, through HAProxy (``wss://`` with :attr:`tls`)."""
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}/ws"

    def node(self, k: int) -> Node:
        """Node ``k`` (1 .. n)."""
        if not 1 <= k <= self.n:
            raise IndexError(f"no node {k} in a cluster of {self.n}")
        return self.nodes[k - 1]

    def node_url(self, k: int) -> str:
        """Node ``k``'s own address, past HAProxy."""
        return self.node(k).url

    # -- start and stop ------------------------------------------------------------------------
    def start(self) -> None:
        """Migrate, start every node and HAProxy, wait until HAProxy sees every node up."""
        binary = haproxy_binary()
        if binary is None:
            raise ClusterError("haproxy is not installed (make test installs Debian's haproxy)")
        try:
            self.upgrade()
            for k in range(1, self.n + 1):
                self._spawn(k)
            self._start_haproxy(binary)
            self.wait(lambda: self._running() and self._all_up(), "every node UP")
        except BaseException:
            self.close()
            raise

    def _running(self, *ks: int) -> bool:
        """True, or :class:`ClusterError` naming a node (of ``ks``, or any) that exited."""
        for k in ks or range(1, self.n + 1):
            node = self.node(k)
            if node.proc is not None and node.proc.poll() is not None:
                tail = node.log.read_text(errors="replace")[-2000:] if node.log.exists() else ""
                raise ClusterError(f"{node.name} exited with {node.proc.returncode}:\n{tail}")
        return True

    def _all_up(self) -> bool:
        status = self.status()
        return len(status) == self.n and all(s == "UP" for s in status.values())

    def upgrade(self) -> None:
        """``domino db upgrade`` on the cluster's prefix (once, before any node starts)."""
        cmd = [self.python, "-m", "domino.cli", "db", "upgrade", "--db", self.db_url]
        cmd += ["--table-prefix", self.prefix]
        done = subprocess.run(cmd, capture_output=True, timeout=START_TIMEOUT, check=False)
        if done.returncode != 0:
            raise ClusterError(f"domino db upgrade failed: {done.stderr.decode(errors='replace')}")
        self.migrated = True

    def settings(self, k: int) -> dict[str, str]:
        """Node ``k``'s settings by flag: the same :func:`~domino_bench.guide.node_settings`
        docs/deploy.md's walk-through (``deploy/site.py``) writes into the nodes' files."""
        node = self.node(k)
        return node_settings(
            port=node.port,
            db=self.db_url,
            table_prefix=self.prefix,
            node=node.name,
            # The page is opened through HAProxy: its address is the Origin the sockets carry.
            public_url=self.url,
            # HAProxy's X-Forwarded-For names the player (the sign-in budget counts it).
            forwarded_allow_ips="127.0.0.1",
            drain_grace=self.drain_grace,
            data=str(self.dir / node.name),
            redis=self.redis_url,
            redis_prefix=self.redis_prefix,
        )

    def command(self, k: int) -> list[str]:
        """The command line of node ``k``."""
        cmd = [self.python, "-m", "domino.cli", "serve", *as_flags(self.settings(k))]
        cmd += self.extra
        if self.node_extra is not None:
            cmd += self.node_extra(k)
        return cmd

    def _spawn(self, k: int) -> None:
        node = self.node(k)
        with open(node.log, "ab") as out:  # the child keeps its own copy
            node.proc = subprocess.Popen(
                self.command(k), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        node.starts += 1

    def environment(self) -> dict[str, str]:
        """The variables the rendered configuration reads."""
        env = {k: v for k, v in os.environ.items() if k != "DOMINO_PLAIN_HTTP"}
        env.update(
            haproxy_environment(
                nodes=[(node.name, f"127.0.0.1:{node.port}") for node in self.nodes],
                bind=f"127.0.0.1:{self.port}",
                socket=self.socket,
                cert=self.tls,
                http_bind=f"127.0.0.1:{self.http_port}",
                check_inter=self.check_inter,
                check_timeout=self.check_timeout,
                maxconn=2000,
            )
        )
        return env

    def _start_haproxy(self, binary: str) -> None:
        cfg = self.dir / "haproxy.cfg"
        cfg.write_text(render_config(self.config.read_text(encoding="utf-8"), self.n))
        with open(self.dir / "haproxy.log", "ab") as out:
            self.haproxy = subprocess.Popen(
                [binary, "-db", "-f", str(cfg)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.environment(),
                start_new_session=True,
            )
        try:
            self.wait(self.socket.exists, "HAProxy's runtime socket", proc=self.haproxy)
        except ClusterError as exc:
            log = (self.dir / "haproxy.log").read_text(errors="replace")[-2000:]
            raise ClusterError(f"HAProxy did not start: {exc}\n{log}") from None

    def close(self) -> None:
        """Stop HAProxy and every node, drop the prefix's tables, remove the folder."""
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            _reap(self.haproxy)
        for node in self.nodes:
            if node.alive():
                assert node.proc is not None
                node.proc.send_signal(signal.SIGCONT)  # a stopped node cannot act on SIGTERM
                node.proc.send_signal(signal.SIGKILL)
                _reap(node.proc)
        if self.migrated:
            asyncio.run(self._drop())
            self.migrated = False
        if self.redis_url:
            self._forget_keys()
        if self._own_folder:
            shutil.rmtree(self.dir, ignore_errors=True)

    def _forget_keys(self) -> None:
        """Delete the cluster's Redis keys (seats, leases, the node list)."""
        import redis

        client = redis.Redis.from_url(self.redis_url or "")
        try:
            keys = list(client.scan_iter(match=f"{self.redis_prefix}*", count=500))
            if keys:
                client.delete(*keys)
        except redis.RedisError as exc:  # Redis away at the end: say so, go on closing
            print(f"cluster {self.prefix}: Redis keys left behind: {exc}", file=sys.stderr)
        finally:
            client.close()

    async def _drop(self) -> None:
        from domino.server.storage.db import Database

        db = Database(self.db_url, self.prefix)
        try:
            await db.drop()
        finally:
            await db.close()

    def __enter__(self) -> Cluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what tests do to nodes ------------------------------------------------------------
    def _proc(self, k: int) -> subprocess.Popen[bytes]:
        proc = self.node(k).proc
        if proc is None or proc.poll() is not None:
            raise ClusterError(f"node{k} is not running")
        return proc

    def kill(self, k: int) -> None:
        """SIGKILL node ``k``: no shutdown code runs."""
        proc = self._proc(k)
        proc.send_signal(signal.SIGKILL)
        _reap(proc)

    def stop(self, k: int) -> None:
        """SIGSTOP node ``k``: it holds its sockets and answers nothing until :meth:`cont`."""
        self._proc(k).send_signal(signal.SIGSTOP)

    def cont(self, k: int) -> None:
        """SIGCONT node ``k``."""
        self._proc(k).send_signal(signal.SIGCONT)

    def drain(self, k: int) -> None:
        """One SIGTERM to node ``k``: it drains (health 503) for ``drain_grace``, then stops."""
        self._proc(k).send_signal(signal.SIGTERM)

    def terminate(self, k: int, timeout: float | None = None) -> int:
        """SIGTERM node ``k`` and wait for it to exit; its exit status.

        On a node that drains already (:meth:`drain`) this SIGTERM shuts it down at
        once; on another one it drains for ``drain_grace`` first.
        """
        proc = self._proc(k)
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(self.drain_grace + START_TIMEOUT if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            _reap(proc)
            raise ClusterError(f"node{k} did not stop after SIGTERM") from None

    def restart(self, k: int) -> None:
        """Start node ``k`` again on its port (terminating it first if it runs); wait
        until HAProxy sees it ``UP``."""
        if self.node(k).alive():
            self.terminate(k)
        self._spawn(k)
        name = self.node(k).name
        self.wait(
            lambda: self._running(k) and self.status().get(name) == "UP", f"{name} UP in HAProxy"
        )

    # -- what tests read ----------------------------------------------------------------------
    def health(self, k: int) -> httpx.Response:
        """``GET /api/health`` of node ``k`` itself."""
        return httpx.get(self.node_url(k) + "/api/health", timeout=5.0)

    def runtime(self, command: str) -> str:
        """One command on HAProxy's runtime API (the stats socket); its answer."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5.0)
            s.connect(str(self.socket))
            s.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def stats(self) -> dict[str, dict[str, str]]:
        """HAProxy's ``show stat`` rows of the nodes, by node name."""
        lines = self.runtime("show stat").splitlines()
        if not lines or not lines[0].startswith("# "):
            raise ClusterError(f"unexpected answer to show stat: {lines[:1]}")
        header = lines[0][2:].split(",")
        rows = (dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line)
        return {
            r["svname"]: r
            for r in rows
            if r.get("pxname") == BACKEND and r.get("svname", "").startswith("node")
        }

    def status(self) -> dict[str, str]:
        """Each node's state as HAProxy sees it: ``UP``, ``DOWN``, ``UP 1/2`` (going
        down), ``DOWN 1/2`` (coming up), ``MAINT``, ..."""
        return {name: row.get("status", "") for name, row in self.stats().items()}

    def sessions(self) -> dict[str, int]:
        """Open connections HAProxy holds to each node now (``scur``)."""
        return {name: int(row.get("scur") or 0) for name, row in self.stats().items()}

    def wait_status(self, k: int, state: str, timeout: float = START_TIMEOUT) -> None:
        """Wait until HAProxy reports node ``k`` in ``state`` (``UP`` or ``DOWN``)."""
        name = self.node(k).name
        self.wait(lambda: self.status().get(name) == state, f"{name} {state} in HAProxy", timeout)

    def wait(
        self,
        ready: Callable[[], Any],
        what: str,
        timeout: float = START_TIMEOUT,
        proc: subprocess.Popen[bytes] | None = None,
    ) -> None:
        """Poll ``ready`` until it is true; :class:`ClusterError` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            if proc is not None and proc.poll() is not None:
                raise ClusterError(f"exited with {proc.returncode} while waiting for {what}")
            dead = [n.name for n in self.nodes if n.proc is not None and n.proc.poll() is not None]
            try:
                if ready():
                    return
            except (OSError, httpx.HTTPError):
                pass
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"gave up waiting for {what} after {timeout} s (exited: {dead or 'none'}; "
                    f"logs in {self.dir})"
                )
            time.sleep(POLL)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


__all__ = ["HAPROXY_CFG", "Cluster", "ClusterError", "Node", "haproxy_binary", "render_config"]
