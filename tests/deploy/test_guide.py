"""docs/deploy.md's walk-through and ``deploy/site.py``, which runs it: the doc's numbered
steps are the script's steps, in order; and the script, run end to end on this machine
(three nodes, HAProxy with a self-signed certificate, a role and database, a Redis ACL
user, all of the run's own), serves a match over https and wss that goes on through a
rolling restart, takes a backup, and stops leaving no process and nothing it made.

The end-to-end test needs DOMINO_TEST_POSTGRES and DOMINO_TEST_REDIS (a superuser and a
user that may make ACL users, as ``.ci/run`` gives them), haproxy, openssl, psql,
redis-cli and promtool; it skips with a message without them."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from domino_bench.cluster import haproxy_binary
from domino_bench.infra import TEST_DB
from domino_bench.site import Party, SiteClient, form, until_any

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "site.py"
DOC = ROOT / "docs" / "deploy.md"
WALK = "## From a fresh Debian machine to a site of three nodes"
PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
REDIS_URL = os.environ.get("DOMINO_TEST_REDIS")


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("deploy_site", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def doc_steps() -> list[tuple[str, str, str]]:
    """(number, title, the function named under it) of each step of the walk-through."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(WALK)
    end = text.index("\n## ", start + len(WALK))
    section = text[start:end]
    steps = []
    for m in re.finditer(r"^### (\d+)\. (.+)\n\n`(\w+)`$", section, re.M):
        steps.append((m.group(1), m.group(2), m.group(3)))
    assert len(steps) == len(re.findall(r"^### ", section, re.M)), "a step without its function"
    return steps


def test_the_walk_through_and_the_script_have_the_same_steps_in_the_same_order() -> None:
    site = load_script()
    in_doc = doc_steps()
    in_script = [
        (str(i), (f.__doc__ or "").strip().removeprefix(f"{i}. ").rstrip("."), f.__name__)
        for i, f in enumerate(site.STEPS, 1)
    ]
    assert in_doc == in_script
    # `up` is the steps up to the firewall; the others are subcommands of their own.
    assert [f.__name__ for f in site.UP] == [name for _, _, name in in_doc[:10]]


def test_the_env_files_are_what_the_unit_reads(tmp_path: Path) -> None:
    """What step 5 writes, read back through the unit as step 7 starts a node."""
    from domino.cli import build_parser
    from domino.cli.serve import environment_table
    from domino_bench.guide import as_env, node_settings, unit_command, write_env_file

    site = load_script()
    shared = {"DOMINO_DB": "postgresql+asyncpg://u:p@h/d", "DOMINO_HOST": "0.0.0.0"}
    write_env_file(tmp_path / "node.env", shared)
    write_env_file(tmp_path / "node2.env", {"DOMINO_HOST": "127.0.0.1", "DOMINO_PORT": "8002"})
    assert (tmp_path / "node.env").stat().st_mode & 0o777 == 0o600
    argv, env = unit_command("node2", etc=tmp_path, domino="/v/bin/domino", base={})
    assert argv == ["/v/bin/domino", "serve", "--node", "node2"]
    # Later files win over earlier ones, and both over the unit's Environment=.
    assert env["DOMINO_HOST"] == "127.0.0.1" and env["DOMINO_PORT"] == "8002"
    assert env["DOMINO_DB"] == shared["DOMINO_DB"]
    assert env["DOMINO_DATA"] == "/var/lib/domino/node2"
    assert env["DOMINO_DRAIN_GRACE"] == str(int(site.UNIT_GRACE))
    # Every variable the guide writes is the one `domino serve` reads for that flag.
    every = node_settings(
        db="d", node="n", port=1, public_url="u", host="h", table_prefix="t_", redis="r",
        redis_prefix="p:", forwarded_allow_ips="f", drain_grace=1.0, data="a",
        metrics_listen="m", metrics_token="k",
    )  # fmt: skip
    sub = build_parser()._subparsers
    assert sub is not None
    serve = sub._group_actions[0].choices["serve"]  # type: ignore[index]
    table = dict(environment_table(serve))
    assert as_env(every) == {table[flag]: value for flag, value in every.items()}
    assert node_settings(db="x", node="n", port=1, public_url="u", redis_prefix="p:") == {
        "--port": "1",
        "--db": "x",
        "--node": "n",
        "--public-url": "u",
        "--log-format": "json",
    }


def skip_reason() -> str | None:
    if not PG_URL or not REDIS_URL:
        return "the guide's test needs DOMINO_TEST_POSTGRES and DOMINO_TEST_REDIS (.ci/run)"
    if haproxy_binary() is None:
        return "the guide's test needs haproxy: make test installs Debian's package"
    for tool in ("openssl", "psql", "pg_dump", "redis-cli", "promtool", "ss"):
        if shutil.which(tool) is None:
            return f"the guide's test needs {tool}: make deploy-tools installs it"
    return None


def script(*args: str, timeout: float = 400) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"{done.args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def psql(query: str) -> str:
    assert PG_URL is not None
    url = PG_URL.replace("postgresql+asyncpg://", "postgresql://")
    return subprocess.run(
        ["psql", "-Atq", url, "-c", query], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_guide_runs_end_to_end_on_this_machine(tmp_path: Path) -> None:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    assert PG_URL is not None and REDIS_URL is not None
    work = tmp_path / "root"
    admin = ["--pg-admin", PG_URL, "--redis-admin", REDIS_URL]
    fast = ["--set", "DOMINO_BOT_DELAY=0.05,0.15", "--set", "DOMINO_ROUND_PAUSE=0.3"]
    up = script("up", "--work", str(work), "--redis-db", str(TEST_DB), *admin, *fast)
    state: dict[str, Any] = {}
    try:
        out = ok(up)
        state = json.loads((work / "site.json").read_text())
        # Every step ran, in order, and said what it stands for.
        assert "$ systemctl enable --now domino.target" in out
        assert "ok: the nodes and their /metrics listen on the internal address only" in out
        assert psql(f"SELECT rolname FROM pg_roles WHERE rolname = '{state['name']}'")
        node_env = (work / "etc/domino/node.env").read_text()
        assert "DOMINO_REDIS=redis://" + state["name"] in node_env
        asyncio.run(play_through_a_rolling_restart(work, state))

        done = ok(script("backup", "--work", str(work)))
        dump = Path(json.loads((work / "site.json").read_text())["last_backup"])
        listing = subprocess.run(
            ["pg_restore", "--list", str(dump)], capture_output=True, text=True, check=True
        ).stdout
        assert " TABLE public matches " in listing, (done, listing[:2000])
        assert "SUCCESS: 8 rules found" in ok(script("alerts"))
    finally:
        down = script("down", "--work", str(work), "--purge", *admin)
    ok(down)
    pids = [int(f.read_text()) for f in (work / "run" / "domino").glob("*.pid")]
    assert len(pids) == 4  # three nodes and HAProxy
    assert not [pid for pid in pids if alive(pid)]
    assert psql(f"SELECT count(*) FROM pg_roles WHERE rolname = '{state['name']}'") == "0"
    assert psql(f"SELECT count(*) FROM pg_database WHERE datname = '{state['name']}'") == "0"


async def play_through_a_rolling_restart(work: Path, state: dict[str, Any]) -> None:
    """A guest signs in over https and plays against a bot over wss through HAProxy while
    ``rolling-restart`` restarts every node; the match goes on after it."""
    context = ssl.create_default_context(cafile=state["ca"])
    url = state["url"]
    anna = SiteClient("Anna", url, delay=0.3, tls=context)  # the match outlasts the restart
    async with httpx.AsyncClient(verify=context, timeout=30) as http:
        await anna.signup(http)
        assert (await http.get(url + "/metrics")).status_code == 404
    try:
        await anna.open()
        assert anna.sockets[0].url.startswith("wss://")
        await form(Party(anna, []), url, seats=2, bots=1, rules={"target": 150})
        await until_any([anna], lambda: anna.acked() >= 3, "moves before the restart", 120)
        restart = await asyncio.create_subprocess_exec(
            sys.executable,
            str(SCRIPT),
            "rolling-restart",
            "--work",
            str(work),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(restart.communicate(), 400)
        assert restart.returncode == 0, (out.decode()[-3000:], err.decode()[-3000:])
        for k in (1, 2, 3):
            assert f"node{k}: UP again" in out.decode()
        # Anna's node was restarted: its socket closed with 1012, she reconnected through
        # HAProxy to another node and plays on.
        assert 1012 in [s.close_code for s in anna.sockets], anna.describe()
        after = anna.acked()
        await until_any(
            [anna], lambda: anna.acked() >= after + 3 or anna.over, "moves after the restart", 120
        )
        assert not anna.reconnect_failed
        assert {str(e.get("code")) for e in anna.errors} <= {"stale_version", "match_moved"}
    finally:
        await anna.close()
