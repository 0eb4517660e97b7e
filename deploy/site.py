#!/usr/bin/env python3
"""docs/deploy.md's walk-through, "From a fresh Debian machine to a site of three nodes",
as a script: each numbered step of the guide is one ``step_*`` function here (STEPS), and
tests/deploy/test_guide.py checks that the two name the same steps in the same order.

    deploy/site.py up --work DIR [--pg-admin URL] [--redis-admin URL] [--set NAME=VALUE]
    deploy/site.py rolling-restart --work DIR
    deploy/site.py backup --work DIR
    deploy/site.py alerts
    deploy/site.py down --work DIR [--purge]

It runs the guide on one machine, every address on ``--host`` (default 127.0.0.1) and
every port a free one, with a site name of its own (``--name``, default ``domino_`` and
a random suffix): the PostgreSQL role and database, the Redis ACL user and key prefix
are that name, so that several runs can share one PostgreSQL and one Redis; ``down
--purge`` drops exactly what ``up`` made and nothing else. DIR stands for the machine's
``/``: ``DIR/etc/domino/node.env``, ``DIR/etc/default/haproxy``, ``DIR/etc/haproxy/``,
``DIR/var/lib/domino``, ``DIR/var/backups/domino``; ``DIR/site.json`` is what later
subcommands read. Where no systemd runs (a container, the tests) the nodes are started
with exactly the command line and environment ``deploy/systemd/domino@.service`` gives
them (:func:`domino_bench.guide.unit_command`, the same files), and HAProxy as
``haproxy -db -f`` with ``/etc/default/haproxy``'s variables, as background processes
whose ids are in ``DIR/run``. Every command a step stands for is printed with ``$``.

It needs the ``domino`` package importable (run it with the virtual environment's
python: ``/opt/domino/bin/python deploy/site.py ...``) and the checkout it lies in: what
it shares with the cluster tests (:mod:`domino_bench.guide`, :mod:`domino_bench.cluster`)
is in the checkout's ``bench/``, not in the installed package.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import secrets
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

# The checkout's bench/ (domino_bench), beside this deploy/ folder.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from domino.server.run import free_port, stop_bound
from domino_bench.cluster import haproxy_binary, render_config
from domino_bench.guide import (
    as_env,
    haproxy_environment,
    haproxy_status,
    node_settings,
    read_env_file,
    unit_command,
    write_env_file,
)

#: The repository's deploy/ folder (this file's).
DEPLOY = Path(__file__).resolve().parent
#: The Debian packages of step 1 (and the tool each stands for here).
PACKAGES = {
    "python3-venv": "python3",
    "postgresql": None,  # the server: on a machine of its own on a real site
    "postgresql-client": "psql",
    "redis-server": "redis-cli",
    "haproxy": "haproxy",
    "openssl": "openssl",
    "socat": None,  # HAProxy's runtime API by hand (show stat)
    "nftables": None,  # step 9's rules; not applied on a test machine
    "prometheus": "promtool",  # only its promtool is used (step 12)
}
#: The unit's grace (DOMINO_DRAIN_GRACE in domino@.service).
UNIT_GRACE = 6.0
#: How long a start (or HAProxy's view of a change) may take, in seconds.
START_TIMEOUT = 90.0


class SiteError(RuntimeError):
    """A step failed; the message says which and why."""


def say(*cmd: str) -> None:
    """Print the command a step runs (or stands for)."""
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)


def sh(line: str) -> None:
    """Print a shell line a step stands for, as the guide writes it."""
    print("$ " + line, flush=True)


def run(*cmd: str, env: dict[str, str] | None = None, show: bool = True) -> str:
    """Run a command, print it; its stdout, or :class:`SiteError` with its stderr."""
    if show:
        say(*cmd)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SiteError(f"{cmd[0]} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def wait(ready: Callable[[], Any], what: str, timeout: float = START_TIMEOUT) -> None:
    """Poll ``ready`` until true; :class:`SiteError` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ready():
                return
        except (OSError, ValueError, httpx.HTTPError):
            pass
        if time.monotonic() > deadline:
            raise SiteError(f"gave up waiting for {what} after {timeout:.0f} s")
        time.sleep(0.1)


# -- the site's state (DIR/site.json) and its processes --------------------------------------
class Site:
    def __init__(self, work: Path) -> None:
        self.work = work.resolve()
        self.state: dict[str, Any] = {}
        if (self.work / "site.json").exists():
            self.state = json.loads((self.work / "site.json").read_text(encoding="utf-8"))

    def save(self) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        path = self.work / "site.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(self.state, out, indent=2)

    def path(self, machine_path: str) -> Path:
        """``/etc/domino`` -> ``DIR/etc/domino``."""
        return self.work / machine_path.lstrip("/")

    @property
    def etc(self) -> Path:
        return self.path("/etc/domino")

    @property
    def names(self) -> list[str]:
        return [n["name"] for n in self.state["nodes"]]

    def node(self, name: str) -> dict[str, Any]:
        return next(n for n in self.state["nodes"] if n["name"] == name)

    @property
    def socket(self) -> Path:
        return self.path("/run/haproxy/admin.sock")

    # processes
    def pidfile(self, name: str) -> Path:
        return self.path(f"/run/domino/{name}.pid")

    def pid(self, name: str) -> int | None:
        """The process's id while it runs (a zombie counts as gone)."""
        f = self.pidfile(name)
        if not f.exists():
            return None
        pid = int(f.read_text())
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        return None if stat.rsplit(")", 1)[1].split()[0] in ("Z", "X") else pid

    def spawn(self, name: str, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        log = self.path(f"/var/log/domino/{name}.log")
        log.parent.mkdir(parents=True, exist_ok=True)
        self.pidfile(name).parent.mkdir(parents=True, exist_ok=True)
        cwd.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        self.pidfile(name).write_text(str(proc.pid))

    def alive(self, name: str) -> bool:
        return self.pid(name) is not None

    def log_tail(self, name: str) -> str:
        log = self.path(f"/var/log/domino/{name}.log")
        return log.read_text(errors="replace")[-2000:] if log.exists() else ""

    def signal(self, name: str, sig: signal.Signals) -> None:
        pid = self.pid(name)
        if pid is not None:
            os.kill(pid, sig)

    def stop(self, name: str, timeout: float) -> None:
        """SIGTERM, wait until it is gone; SIGKILL (to its whole group) after ``timeout``."""
        pid = self.pid(name)
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        try:
            wait(lambda: not self.alive(name), f"{name} to stop", timeout)
        except SiteError:
            print(f"{name} did not stop within {timeout:.0f} s: SIGKILL", file=sys.stderr)
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            wait(lambda: not self.alive(name), f"{name} to die", 10)

    def status(self) -> dict[str, str]:
        return haproxy_status(self.socket)

    def health(self, name: str) -> int:
        n = self.node(name)
        return httpx.get(f"http://{n['host']}:{n['port']}/api/health", timeout=5).status_code


# -- the steps ---------------------------------------------------------------------------
def step_packages(site: Site, args: argparse.Namespace) -> None:
    """1. Debian's packages."""
    names = list(PACKAGES)
    say("apt-get", "install", "-y", "--no-install-recommends", *names)
    missing = [p for p, tool in PACKAGES.items() if tool and shutil.which(tool) is None]
    if missing and args.install_packages:
        run("apt-get", "install", "-y", "--no-install-recommends", *missing)
    elif missing:
        raise SiteError(f"missing: {' '.join(missing)} (apt-get them, or --install-packages)")


def step_install(site: Site, args: argparse.Namespace) -> None:
    """2. The program in a virtual environment."""
    venv = Path(args.venv) if args.venv else Path(sys.prefix)
    if args.venv and args.package:
        run(sys.executable, "-m", "venv", str(venv))
        run(str(venv / "bin" / "pip"), "install", "--quiet", args.package)
    else:
        say("python3", "-m", "venv", "/opt/domino")
        say("/opt/domino/bin/pip", "install", "domino-0.1.0-cp311-cp311-linux_x86_64.whl")
        print(f"(here: the environment this script runs in, {venv})")
    domino = venv / "bin" / "domino"
    if not os.access(domino, os.X_OK):
        raise SiteError(f"{domino} is not there: pip install the package into {venv}")
    site.state["domino"] = str(domino)


def _libpq(url: str) -> str:
    """An SQLAlchemy URL as psql takes it (``postgresql+asyncpg://`` -> ``postgresql://``)."""
    parts = urlsplit(url)
    return urlunsplit(("postgresql", *parts[1:]))


def _psql(args: argparse.Namespace) -> list[str]:
    if args.pg_admin:
        return ["psql", "-v", "ON_ERROR_STOP=1", "-Atq", _libpq(args.pg_admin)]
    return ["runuser", "-u", "postgres", "--", "psql", "-v", "ON_ERROR_STOP=1", "-Atq"]


def step_database(site: Site, args: argparse.Namespace) -> None:
    """3. A PostgreSQL role and a database of its own."""
    name, password = site.state["name"], site.state["db_password"]
    psql = _psql(args)
    exists = run(*psql, "-c", f"SELECT 1 FROM pg_roles WHERE rolname = '{name}'", show=False)
    exists += run(*psql, "-c", f"SELECT 1 FROM pg_database WHERE datname = '{name}'", show=False)
    if exists.strip():
        raise SiteError(f"the role or database {name} exists already: choose another --name")
    site.state["created_db"] = True  # from here on, down --purge drops them
    site.save()
    sh(f"runuser -u postgres -- psql -c \"CREATE ROLE {name} LOGIN PASSWORD 'SECRET'\"")
    run(*psql, "-c", f"CREATE ROLE {name} LOGIN PASSWORD '{password}'", show=False)
    sh(f'runuser -u postgres -- psql -c "CREATE DATABASE {name} OWNER {name}"')
    run(*psql, "-c", f"CREATE DATABASE {name} OWNER {name}", show=False)
    admin = urlsplit(args.pg_admin or "postgresql://127.0.0.1:5432/postgres")
    host = admin.hostname or "127.0.0.1"
    site.state["db"] = f"postgresql+asyncpg://{name}:{password}@{host}:{admin.port or 5432}/{name}"


def step_redis(site: Site, args: argparse.Namespace) -> None:
    """4. A Redis ACL user with a password."""
    name, password = site.state["name"], site.state["redis_password"]
    admin = args.redis_admin or "redis://127.0.0.1:6379/0"
    cli = ["redis-cli", "-u", admin]
    if run(*cli, "ACL", "GETUSER", name, show=False).strip():
        raise SiteError(f"the Redis user {name} exists already: choose another --name")
    site.state["created_redis_user"] = True
    site.save()
    rule = ["on", "~*", "&*", "+@all"]
    sh(f"redis-cli ACL SETUSER {name} on '>SECRET' '~*' '&*' '+@all'")
    run(*cli, "ACL", "SETUSER", name, rule[0], f">{password}", *rule[1:], show=False)
    parts = urlsplit(admin)
    netloc = f"{name}:{password}@{parts.hostname or '127.0.0.1'}:{parts.port or 6379}"
    site.state["redis"] = urlunsplit(("redis", netloc, f"/{args.redis_db}", "", ""))
    site.state["redis_prefix"] = f"{name}:"


def step_env(site: Site, args: argparse.Namespace) -> None:
    """5. The nodes' environment files (/etc/domino/node.env, NAME.env)."""
    st = site.state
    shared_keys = ("--db", "--redis", "--redis-prefix", "--public-url", "--forwarded-allow-ips")
    for n in st["nodes"]:
        settings = node_settings(
            db=st["db"],
            node=n["name"],
            host=n["host"],
            port=n["port"],
            public_url=st["public_url"],
            redis=st["redis"],
            redis_prefix=st["redis_prefix"],
            forwarded_allow_ips=st["haproxy_address"],
            log_format=None,  # the unit's DOMINO_LOG_FORMAT=json
            data=str(site.path(f"/var/lib/domino/{n['name']}")) if st["local"] else None,
            metrics_listen=f"{n['host']}:{n['metrics_port']}",
            metrics_token=st["metrics_token"],
        )
        settings.pop("--node")  # the unit's ExecStart gives it: --node %i
        shared = {f: v for f, v in settings.items() if f in shared_keys or f == "--metrics-token"}
        own = {f: v for f, v in settings.items() if f not in shared}
        shared_env = as_env(shared) | dict(kv.split("=", 1) for kv in args.set)
        write_env_file(site.etc / "node.env", shared_env, "what every node shares (0600)")
        write_env_file(site.etc / f"{n['name']}.env", as_env(own), f"{n['name']} alone")
    say("install", "-m", "0600", "node.env", "/etc/domino/node.env")
    for name in site.names:
        say("install", "-m", "0600", f"{name}.env", f"/etc/domino/{name}.env")


def _node_env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def step_migrate(site: Site, args: argparse.Namespace) -> None:
    """6. The tables: domino db upgrade."""
    sh("set -a; . /etc/domino/node.env; set +a")
    env = _node_env() | read_env_file(site.etc / "node.env")
    run(site.state["domino"], "db", "upgrade", env=env)


def start_node(site: Site, name: str) -> None:
    """Start one node as systemd would (``systemctl start domino@NAME``)."""
    if not site.state["local"]:
        run("systemctl", "start", f"domino@{name}")
        return
    argv, env = unit_command(name, etc=site.etc, domino=site.state["domino"], base=_node_env())
    if site.alive(name):
        raise SiteError(f"{name} runs already")
    site.spawn(name, argv, env, cwd=site.path("/var/lib/domino"))


def _healthy(site: Site, name: str) -> bool:
    if not site.alive(name):
        raise SiteError(f"{name} exited:\n{site.log_tail(name)}")
    return site.health(name) == 200


def step_units(site: Site, args: argparse.Namespace) -> None:
    """7. The systemd units: one domino@NAME per node."""
    say("adduser", "--system", "--group", "--home", "/var/lib/domino", "domino")
    units = ("deploy/systemd/domino@.service", "deploy/systemd/domino.target")
    say("cp", *units, "/etc/systemd/system/")
    say("systemctl", "daemon-reload")
    say("systemctl", "enable", "--now", "domino.target", *(f"domino@{n}" for n in site.names))
    if site.state["local"]:
        print("(no systemd here: each node runs as the unit would, in the background)")
    for name in site.names:
        start_node(site, name)
    for name in site.names:
        wait(partial(_healthy, site, name), f"{name}'s /api/health 200")


def step_tls(site: Site, args: argparse.Namespace) -> None:
    """8. The certificate HAProxy serves."""
    pem = site.path("/etc/haproxy/certs/domino.pem")
    pem.parent.mkdir(parents=True, exist_ok=True)
    if args.cert:
        shutil.copyfile(args.cert, pem)
        say("cat", "fullchain.pem", "privkey.pem", ">", "/etc/haproxy/certs/domino.pem")
    else:  # a self-signed one, for a test
        host = site.state["host"]
        cert, key = pem.with_name("cert.pem"), pem.with_name("key.pem")
        san = f"IP:{host}" if host.replace(".", "").isdigit() else f"DNS:{host}"
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
            "-keyout", str(key), "-out", str(cert), "-subj", f"/CN={host}",
            "-addext", f"subjectAltName={san}")  # fmt: skip
        pem.write_bytes(cert.read_bytes() + key.read_bytes())
        site.state["ca"] = str(cert)
    os.chmod(pem, 0o600)
    site.state["cert"] = str(pem)


def step_haproxy(site: Site, args: argparse.Namespace) -> None:
    """9. HAProxy in front: deploy/haproxy.cfg, the nodes in /etc/default/haproxy."""
    st = site.state
    cfg = site.path("/etc/haproxy/haproxy.cfg")
    cfg.parent.mkdir(parents=True, exist_ok=True)
    template = (DEPLOY / "haproxy.cfg").read_text(encoding="utf-8")
    # A site copies the file as it is (three server lines); here it runs unprivileged.
    cfg.write_text(render_config(template, len(st["nodes"])) if st["local"] else template)
    say("cp", "deploy/haproxy.cfg", "/etc/haproxy/haproxy.cfg")
    # HAProxy raises its open files to about 2 x maxconn (100000 by default) and refuses
    # to start where the hard limit is lower (a container): then it gets less.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    maxconn = None
    if hard != resource.RLIM_INFINITY and hard < 2 * 100_000 + 100:
        maxconn = (hard - 100) // 2
        print(f"(open files limited to {hard} here: DOMINO_MAXCONN={maxconn})")
    env = haproxy_environment(
        maxconn=maxconn,
        nodes=[(n["name"], f"{n['host']}:{n['port']}") for n in st["nodes"]],
        bind=f"{st['public_host']}:{st['https_port']}",
        http_bind=f"{st['public_host']}:{st['http_port']}",
        socket=site.socket,
        cert=Path(st["cert"]),
    )
    write_env_file(site.path("/etc/default/haproxy"), env, "read by haproxy.service")
    say("systemctl", "reload-or-restart", "haproxy")
    if st["local"]:
        binary = haproxy_binary()
        if binary is None:
            raise SiteError("haproxy is not installed (step 1)")
        site.socket.parent.mkdir(parents=True, exist_ok=True)
        environ = _node_env() | read_env_file(site.path("/etc/default/haproxy"))
        site.spawn("haproxy", [binary, "-db", "-f", str(cfg)], environ, site.work)

        def every_node_up() -> bool:
            if not site.alive("haproxy"):
                raise SiteError(f"haproxy exited:\n{site.log_tail('haproxy')}")
            status = site.status()
            return sorted(status) == sorted(site.names) and set(status.values()) == {"UP"}

        wait(every_node_up, "HAProxy to see every node UP")


def _context(site: Site) -> ssl.SSLContext | bool:
    ca = site.state.get("ca")
    return ssl.create_default_context(cafile=ca) if ca else True


def _listening(port: int) -> set[str]:
    """The addresses something listens on with TCP ``port`` (``ss -ltnH``)."""
    out = run("ss", "-ltnH", f"sport = :{port}", show=False)
    return {line.split()[3].rsplit(":", 1)[0].strip("[]") for line in out.splitlines() if line}


def step_firewall(site: Site, args: argparse.Namespace) -> None:
    """10. The firewall: only 80 and 443 public."""
    st = site.state
    print((DEPLOY / "nftables.conf").read_text(encoding="utf-8"))
    say("nft", "-f", "/etc/nftables.conf")
    print("(not applied here; checked instead: the nodes listen only where the rules allow)")
    for n in st["nodes"]:
        for port in (n["port"], n["metrics_port"]):
            where = _listening(port)
            if where != {n["host"]}:
                raise SiteError(f"{n['name']}: port {port} listens on {where}, not {n['host']}")
        base, metrics = f"http://{n['host']}:{n['port']}", f"http://{n['host']}:{n['metrics_port']}"
        if httpx.get(base + "/metrics", timeout=5).status_code != 404:
            raise SiteError(f"{n['name']}: /metrics answers on the game's port")
        if httpx.get(metrics + "/metrics", timeout=5).status_code != 401:
            raise SiteError(f"{n['name']}: /metrics answers without the token")
        bearer = {"Authorization": f"Bearer {st['metrics_token']}"}
        if httpx.get(metrics + "/metrics", headers=bearer, timeout=5).status_code != 200:
            raise SiteError(f"{n['name']}: /metrics does not answer the scraper's token")
    r = httpx.get(st["url"] + "/metrics", verify=_context(site), timeout=5)
    if r.status_code != 404:
        raise SiteError(f"HAProxy lets /metrics through ({r.status_code})")
    print("ok: the nodes and their /metrics listen on the internal address only")


def step_rolling_restart(site: Site, args: argparse.Namespace) -> None:
    """11. A rolling restart: one node after the other."""
    for name in site.names:
        restart_node(site, name)
        print(f"{name}: UP again")


def restart_node(site: Site, name: str) -> None:
    """``systemctl restart domino@NAME``, and wait until HAProxy has it ``UP`` again."""
    say("systemctl", "restart", f"domino@{name}")
    if not site.state["local"]:
        run("systemctl", "restart", f"domino@{name}")
    else:
        site.signal(name, signal.SIGTERM)  # the unit's KillSignal: drain, hand over, stop
        wait(lambda: site.status()[name].startswith("DOWN"), f"HAProxy to take {name} out")
        bound = stop_bound(UNIT_GRACE) + 10
        wait(lambda: not site.alive(name), f"{name} to stop", bound)
        start_node(site, name)
    sh('echo "show stat" | socat stdio /run/haproxy/admin.sock')
    wait(
        lambda: _healthy(site, name) and site.status()[name] == "UP",
        f"{name} UP in HAProxy again",
    )


def step_backup(site: Site, args: argparse.Namespace) -> None:
    """12. A backup: domino db backup."""
    folder = site.path("/var/backups/domino")
    folder.mkdir(parents=True, exist_ok=True)
    sh("set -a; . /etc/domino/node.env; set +a")
    env = _node_env() | read_env_file(site.etc / "node.env")
    file = folder / (time.strftime("%Y-%m-%d-%H%M%S") + ".dump")
    print(run(site.state["domino"], "db", "backup", str(file), env=env).strip())
    site.state["last_backup"] = str(file)


def step_alerts(site: Site | None, args: argparse.Namespace) -> None:
    """13. The alert rules: promtool check rules."""
    rules = DEPLOY / "prometheus" / "domino-alerts.yml"
    say("cp", "deploy/prometheus/domino-alerts.yml", "/etc/prometheus/")
    print(run("promtool", "check", "rules", str(rules)).strip())


#: The guide's numbered steps, in its order; ``up`` runs those up to the firewall.
STEPS: list[Callable[..., None]] = [
    step_packages,
    step_install,
    step_database,
    step_redis,
    step_env,
    step_migrate,
    step_units,
    step_tls,
    step_haproxy,
    step_firewall,
    step_rolling_restart,
    step_backup,
    step_alerts,
]
UP = STEPS[: STEPS.index(step_firewall) + 1]


# -- the subcommands -----------------------------------------------------------------------
def up(args: argparse.Namespace) -> None:
    site = Site(Path(args.work))
    if site.state.get("nodes"):
        raise SiteError(f"{site.work} holds a site already (down --purge it first)")
    host = args.host
    https_port = args.https_port or free_port()
    site.state = {
        "name": args.name or f"domino_{secrets.token_hex(4)}",
        "local": not Path("/run/systemd/system").is_dir() or args.no_systemd,
        "host": host,
        "public_host": host,
        "haproxy_address": host,
        "https_port": https_port,
        "http_port": args.http_port or free_port(),
        "public_url": args.public_url or f"https://{host}:{https_port}",
        "url": f"https://{host}:{https_port}",
        "db_password": secrets.token_hex(16),
        "redis_password": secrets.token_hex(16),
        "metrics_token": secrets.token_hex(16),
        "nodes": [
            {"name": f"node{k}", "host": host, "port": free_port(), "metrics_port": free_port()}
            for k in range(1, args.nodes + 1)
        ],
    }
    site.save()
    try:
        for step in UP:
            print(f"\n== {step.__doc__}", flush=True)
            step(site, args)
            site.save()
    except BaseException:
        site.save()
        raise
    print(f"\nthe site: {site.state['url']}")


def down(args: argparse.Namespace) -> None:
    """Stop HAProxy and the nodes; with ``--purge`` drop what ``up`` made."""
    site = Site(Path(args.work))
    if not site.state:
        return
    if site.state.get("local", True):
        site.stop("haproxy", 10)
        names = site.names if site.state.get("nodes") else []
        for name in names:
            site.signal(name, signal.SIGTERM)
        for name in names:
            site.stop(name, stop_bound(UNIT_GRACE) + 10)
    else:
        run("systemctl", "stop", "domino.target", "haproxy")
    if args.purge:
        purge(site, args)


def purge(site: Site, args: argparse.Namespace) -> None:
    st, name = site.state, site.state["name"]
    if st.get("created_db"):
        psql = _psql(args)
        for sql in (f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"DROP ROLE IF EXISTS {name}"):
            sh(f'runuser -u postgres -- psql -c "{sql}"')
            run(*psql, "-c", sql, show=False)
        st["created_db"] = False
    if st.get("created_redis_user"):
        import redis

        admin = args.redis_admin or "redis://127.0.0.1:6379/0"
        if st.get("redis"):  # the site's keys (its prefix, its database), then its user
            client = redis.Redis.from_url(admin, db=int(urlsplit(st["redis"]).path.strip("/")))
            try:
                keys = list(client.scan_iter(match=f"{st['redis_prefix']}*", count=500))
                if keys:
                    client.delete(*keys)
            finally:
                client.close()
        say("redis-cli", "-u", admin, "ACL", "DELUSER", name)
        client = redis.Redis.from_url(admin)
        try:
            client.acl_deluser(name)
        finally:
            client.close()
        st["created_redis_user"] = False
    site.save()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/site.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_up = sub.add_parser("up", help="steps 1-10: from packages to a site behind HAProxy")
    p_up.add_argument("--nodes", type=int, default=3)
    p_up.add_argument("--name", help="the role, database, Redis user and prefix (default random)")
    p_up.add_argument("--host", default="127.0.0.1", help="the nodes' internal address")
    p_up.add_argument("--https-port", type=int, default=0, help="default: a free port")
    p_up.add_argument("--http-port", type=int, default=0, help="default: a free port")
    p_up.add_argument("--public-url", help="default: https://HOST:HTTPS_PORT")
    p_up.add_argument("--cert", help="a PEM with certificate, chain and key (default: self-signed)")
    p_up.add_argument("--redis-db", type=int, default=0)
    p_up.add_argument("--venv", help="make this virtual environment (default: this python's)")
    p_up.add_argument("--package", help="what --venv's pip installs (a wheel, or .)")
    p_up.add_argument("--install-packages", action="store_true", help="apt-get what is missing")
    p_up.add_argument("--no-systemd", action="store_true", help="background processes")
    p_up.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="more in node.env"
    )
    for name in ("up", "rolling-restart", "backup", "down"):
        p = p_up if name == "up" else sub.add_parser(name)
        p.add_argument("--work", required=True, help="the folder that stands for /")
        if name in ("up", "down"):
            p.add_argument("--pg-admin", help="a superuser's URL (default: runuser -u postgres)")
            p.add_argument("--redis-admin", help="Redis as a user that may make users")
    sub.choices["down"].add_argument("--purge", action="store_true", help="drop what up made")
    sub.add_parser("alerts")
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            up(args)
        elif args.command == "down":
            down(args)
        elif args.command == "alerts":
            step_alerts(None, args)
        else:
            site = Site(Path(args.work))
            step = step_rolling_restart if args.command == "rolling-restart" else step_backup
            step(site, args)
            site.save()
    except SiteError as exc:
        print(f"deploy/site.py {args.command}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
