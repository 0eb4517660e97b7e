"""What docs/deploy.md's walk-through (run by ``deploy/site.py``) and the cluster tests
(:class:`~domino_bench.cluster.Cluster`) share, so the two cannot drift apart:

- :func:`node_settings`: a node's settings, by ``domino serve`` flag. The guide writes
  them as environment files (:func:`as_env`, :func:`write_env_file`) that the systemd
  unit reads; the cluster tests pass them as flags (:func:`as_flags`).
- :func:`unit_command`: the command line and environment ``deploy/systemd/domino@.service``
  runs for one instance, read from the unit itself (``Environment=``,
  ``EnvironmentFile=`` with the later file winning, ``ExecStart=`` with ``%i``): where
  no systemd runs (a container, this machine's tests) the guide starts exactly that.
- :func:`haproxy_environment`: the variables ``deploy/haproxy.cfg`` reads
  (``/etc/default/haproxy`` on a site).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from . import CHECKOUT

#: The repository's node unit.
UNIT = CHECKOUT / "deploy" / "systemd" / "domino@.service"
#: Where the unit expects the program and its files on a site.
INSTALLED = "/opt/domino/bin/domino"
ETC = "/etc/domino"


def env_name(flag: str) -> str:
    """``--public-url`` -> ``DOMINO_PUBLIC_URL`` (as ``domino serve`` reads it)."""
    return "DOMINO_" + flag.removeprefix("--").replace("-", "_").upper()


def node_settings(
    *,
    db: str,
    node: str,
    port: int,
    public_url: str,
    host: str | None = None,
    table_prefix: str | None = None,
    redis: str | None = None,
    redis_prefix: str | None = None,
    forwarded_allow_ips: str | None = None,
    drain_grace: float | None = None,
    data: str | None = None,
    log_format: str | None = "json",
    metrics_listen: str | None = None,
    metrics_token: str | None = None,
) -> dict[str, str]:
    """One node's settings, ``{flag: value}`` in a stable order (``None`` left out)."""
    values: list[tuple[str, object]] = [
        ("--host", host),
        ("--port", port),
        ("--db", db),
        ("--table-prefix", table_prefix),
        ("--node", node),
        ("--public-url", public_url),
        ("--log-format", log_format),
        ("--forwarded-allow-ips", forwarded_allow_ips),
        ("--drain-grace", drain_grace),
        ("--data", data),
        ("--redis", redis),
        ("--redis-prefix", redis_prefix if redis else None),
        ("--metrics-listen", metrics_listen),
        ("--metrics-token", metrics_token),
    ]
    return {flag: str(value) for flag, value in values if value is not None}


def as_flags(settings: Mapping[str, str]) -> list[str]:
    """``["--port", "8000", ...]``."""
    return [part for flag, value in settings.items() for part in (flag, value)]


def as_env(settings: Mapping[str, str]) -> dict[str, str]:
    """``{"DOMINO_PORT": "8000", ...}``."""
    return {env_name(flag): value for flag, value in settings.items()}


def write_env_file(path: Path, env: Mapping[str, str], comment: str = "") -> None:
    """A systemd ``EnvironmentFile`` (mode 0600: it holds passwords)."""
    lines = [f"# {line}" for line in comment.splitlines()]
    for name, value in env.items():
        if "\n" in value:
            raise ValueError(f"{name}: a value of one line only")
        lines.append(f"{name}={value}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def read_env_file(path: Path) -> dict[str, str]:
    """The ``NAME=value`` lines of an ``EnvironmentFile`` (comments and blanks left out;
    the simple form this guide writes: no quotes, no continuation lines)."""
    env = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"{path}: not NAME=value: {line!r}")
        env[name.strip()] = value.strip()
    return env


def _unit_settings(unit: Path) -> list[tuple[str, str]]:
    out = []
    for line in unit.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        out.append((key.strip(), value.strip()))
    return out


def unit_command(
    instance: str,
    *,
    etc: Path,
    domino: str,
    unit: Path = UNIT,
    base: Mapping[str, str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """What systemd runs for ``domino@INSTANCE``: (argv, environment).

    ``Environment=`` lines first, then each ``EnvironmentFile=`` in order (``-`` for
    one that may be missing), later values winning, as systemd does; ``%i`` is the
    instance. ``etc`` stands for ``/etc/domino`` and ``domino`` for
    ``/opt/domino/bin/domino``. ``base`` is the environment the process starts from
    (systemd's own is nearly empty; default: this process's ``PATH`` only).
    """
    env = dict(base) if base is not None else {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    argv: list[str] | None = None
    for key, value in _unit_settings(unit):
        value = value.replace("%i", instance)
        if key == "Environment":
            for pair in value.split():
                name, _, val = pair.partition("=")
                env[name] = val
        elif key == "EnvironmentFile":
            optional = value.startswith("-")
            path = Path(value.removeprefix("-").replace(ETC, str(etc), 1))
            if path.exists():
                env.update(read_env_file(path))
            elif not optional:
                raise FileNotFoundError(f"{unit.name}: EnvironmentFile {path} is missing")
        elif key == "ExecStart":
            argv = value.replace(INSTALLED, domino, 1).split()
    if argv is None:
        raise ValueError(f"{unit}: no ExecStart")
    return argv, env


def haproxy_environment(
    *,
    nodes: Iterable[tuple[str, str]],
    bind: str,
    socket: Path,
    cert: Path | None = None,
    http_bind: str | None = None,
    check_inter: str | None = None,
    check_timeout: str | None = None,
    maxconn: int | None = None,
) -> dict[str, str]:
    """The variables ``deploy/haproxy.cfg`` expands (``nodes``: ``(name, host:port)``);
    without ``cert``, ``DOMINO_PLAIN_HTTP`` (no TLS)."""
    env = {"DOMINO_BIND": bind, "DOMINO_HAPROXY_SOCKET": str(socket)}
    if check_inter is not None:
        env["DOMINO_CHECK_INTER"] = check_inter
    if check_timeout is not None:
        env["DOMINO_CHECK_TIMEOUT"] = check_timeout
    if maxconn is not None:
        env["DOMINO_MAXCONN"] = str(maxconn)
    if cert is None:
        env["DOMINO_PLAIN_HTTP"] = "1"
    else:
        env["DOMINO_CERT"] = str(cert)
        if http_bind is not None:
            env["DOMINO_HTTP_BIND"] = http_bind
    for name, address in nodes:
        env[f"DOMINO_{name.upper()}"] = address
    return env


__all__ = [
    "INSTALLED",
    "UNIT",
    "as_env",
    "as_flags",
    "env_name",
    "haproxy_environment",
    "haproxy_status",
    "node_settings",
    "read_env_file",
    "unit_command",
    "write_env_file",
]


def haproxy_status(socket_path: Path, backend: str = "nodes") -> dict[str, str]:
    """Each server of ``backend`` and its state (``UP``, ``DOWN``, ``UP 1/2``, ``MAINT``
    ...), from ``show stat`` on HAProxy's runtime API (``socat`` does the same by hand)."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5.0)
        s.connect(str(socket_path))
        s.sendall(b"show stat\n")
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    lines = b"".join(chunks).decode().splitlines()
    if not lines or not lines[0].startswith("# "):
        raise ValueError(f"unexpected answer to show stat: {lines[:1]}")
    header = lines[0][2:].split(",")
    rows = (dict(zip(header, line.split(","), strict=False)) for line in lines[1:] if line)
    return {
        r["svname"]: r.get("status", "")
        for r in rows
        if r.get("pxname") == backend and r.get("svname") not in ("BACKEND", "FRONTEND")
    }
