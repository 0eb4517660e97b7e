"""What the cluster benchmarks need around the nodes: a private Redis, and the CPU and
work of HAProxy, Redis and PostgreSQL read from ``/proc`` and Redis itself (Linux).

- :class:`PrivateRedis`: a ``redis-server`` of the benchmark's own on an ephemeral
  port, nothing saved. Its CPU and its command counters are then the cluster's
  alone (the machine's shared Redis also serves other test runs), and nothing is
  left behind when it stops.
- :class:`RedisUser`: an ACL user of the tests' own on a shared Redis, and the URL
  that names it, its password and a database other than 0 (:data:`TEST_DB`), so
  the cluster tests prove that every connection honours the whole URL;
  :func:`shared_test_redis` is the one every test of a process uses.
- :func:`redis_counts`: commands Redis processed so far, all of them and the
  ``PUBLISH`` among them (``INFO commandstats``; the ``INFO`` calls that read them
  are left out).
- :func:`pg_backends`: the PostgreSQL server processes serving the given client
  processes' connections. A backend's command line names its client's address and
  port (``postgres: user db 127.0.0.1(43210) idle``); the clients' sockets are found
  through ``/proc/PID/fd`` and ``/proc/PID/net/tcp``.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from domino.server.run import free_port

from .procstat import sample

#: How long a private Redis may take to answer (seconds).
REDIS_START_TIMEOUT = 20.0


def redis_server_binary() -> str | None:
    """The ``redis-server`` executable, or ``None``."""
    return shutil.which("redis-server") or next(
        (p for p in ("/usr/bin/redis-server", "/usr/local/bin/redis-server") if os.access(p, 1)),
        None,
    )


#: The database the cluster tests use: not 0, so a connection that ignores the URL's
#: database (and writes to 0) fails them.
TEST_DB = 13


def url_as(url: str, user: str, password: str, db: int) -> str:
    """``url`` (``redis://`` or ``rediss://``, host and port kept) with ``user``,
    ``password`` and database ``db`` instead of its own."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{host}"
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, f"/{db}", "", ""))


class PrivateRedis:
    """A ``redis-server`` child on 127.0.0.1, no persistence, stopped by :meth:`stop`.

    The nodes reach it as a site's would: an ACL user of its own with a password, on
    database :data:`TEST_DB` (:attr:`url`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.user = "domino"
        self.password = secrets.token_hex(16)

    @property
    def url(self) -> str:
        """Its address for the nodes: the ACL user, database :data:`TEST_DB`."""
        return url_as(f"redis://127.0.0.1:{self.port}", self.user, self.password, TEST_DB)

    def user_args(self) -> list[str]:
        """``redis-server`` arguments that make :attr:`url`'s user."""
        return ["--user", self.user, "on", f">{self.password}", "~*", "&*", "+@all"]

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def start(self) -> None:
        """Start it and wait (polling, bounded) until it answers ``PING``."""
        import redis

        binary = redis_server_binary()
        if binary is None:
            raise RuntimeError("redis-server is not installed (Debian: apt-get install redis)")
        self.folder.mkdir(parents=True, exist_ok=True)
        cmd = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        cmd += ["--appendonly", "no", "--dir", str(self.folder), "--maxclients", "10000"]
        cmd += self.user_args()
        with open(self.folder / "redis.log", "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + REDIS_START_TIMEOUT
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1.0)
        try:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
                try:
                    if client.ping():
                        return
                except redis.RedisError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the private redis-server did not answer in time")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        """Stop the server (its data goes with it)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class RedisUser:
    """An ACL user made for a test run on the Redis at ``url`` (whose own credentials
    may create users): a unique name, a random password, every key, channel and
    command (``ACL SETUSER name on >password ~* &* +@all``). :attr:`url` names it
    and database ``db``; :meth:`delete` removes it (``ACL DELUSER``)."""

    def __init__(self, url: str, db: int = TEST_DB) -> None:
        import redis

        self.admin_url = url
        self.name = f"domino_test_{os.getpid()}_{secrets.token_hex(4)}"
        self.password = secrets.token_hex(16)
        self.db = db
        client: Any = redis.Redis.from_url(url, socket_timeout=5.0)
        try:
            client.execute_command(
                "ACL", "SETUSER", self.name, "on", f">{self.password}", "~*", "&*", "+@all"
            )
        finally:
            client.close()
        self.url = url_as(url, self.name, self.password, db)

    def delete(self) -> None:
        """Remove the user (its connections are closed by Redis)."""
        import redis

        client: Any = redis.Redis.from_url(self.admin_url, socket_timeout=5.0)
        try:
            client.execute_command("ACL", "DELUSER", self.name)
        except redis.RedisError:
            pass  # Redis away at the end: the user goes with a restart
        finally:
            client.close()


_shared: dict[str, RedisUser] = {}


def shared_test_redis(url: str) -> str:
    """The URL the tests of this process use for the Redis at ``url``
    (``DOMINO_TEST_REDIS``): database :data:`TEST_DB` as an ACL user made on first use
    and deleted when the process exits."""
    user = _shared.get(url)
    if user is None:
        user = _shared[url] = RedisUser(url)
        atexit.register(user.delete)
    return user.url


def redis_counts(url: str) -> tuple[int, int]:
    """(commands processed, ``PUBLISH`` commands) by the Redis at ``url`` so far,
    without the ``INFO`` commands (this function's own)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5.0)
    try:
        stats: dict[str, Any] = client.info("commandstats")
    finally:
        client.close()
    total = publish = 0
    for name, row in stats.items():
        calls = int(row.get("calls", 0)) if isinstance(row, dict) else 0
        if name in ("cmdstat_info",):
            continue
        total += calls
        if name == "cmdstat_publish":
            publish = calls
    return total, publish


def pids_named(name: str) -> list[int]:
    """Processes whose command name (``/proc/PID/comm``) is ``name``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm", encoding="utf-8") as f:
                    if f.read().strip() == name:
                        out.append(int(entry))
            except OSError:
                continue
    return out


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        pass
    return inodes


def client_ports(pid: int, server_port: int) -> set[int]:
    """Local ports of ``pid``'s TCP connections to ``server_port`` (any address)."""
    inodes = _socket_inodes(pid)
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{table}", encoding="ascii") as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) < 10 or parts[9] not in inodes:
                continue
            local, remote = parts[1], parts[2]
            if int(remote.rsplit(":", 1)[1], 16) == server_port:
                ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


def pg_backends(client_pids: list[int], pg_port: int = 5432) -> list[int]:
    """The PostgreSQL backends serving the connections of ``client_pids``."""
    ports: set[int] = set()
    for pid in client_pids:
        ports |= client_ports(pid, pg_port)
    if not ports:
        return []
    marks = {f"({p})".encode() for p in ports}
    out = []
    for pid in pids_named("postgres"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if any(m in cmdline for m in marks):
            out.append(pid)
    return out


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """CPU seconds used so far by each of ``pids`` that still runs."""
    out = {}
    for pid in pids:
        s = sample(pid)
        if s is not None:
            out[pid] = s.cpu
    return out


def cpu_between(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two :func:`cpu_seconds` readings; a process that
    appeared in between counts from zero (it started then), one that ended is lost."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


__all__ = [
    "TEST_DB",
    "PrivateRedis",
    "RedisUser",
    "client_ports",
    "cpu_between",
    "cpu_seconds",
    "pg_backends",
    "pids_named",
    "redis_counts",
    "redis_server_binary",
    "shared_test_redis",
    "url_as",
]
