"""``domino serve`` as a process: SIGTERM drains for --drain-grace, a second one ends it;
a database or Redis it cannot use stops it at once with one clear line.

On SQLite, so it runs everywhere; tests/cluster runs the same behind HAProxy.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import make_url

from domino.cli.serve import duty, signin_budget
from domino.server.run import free_port

#: Bound of every wait (seconds); the waits poll, nothing sleeps a fixed while.
LIMIT = 60.0


def health(port: int) -> httpx.Response | None:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
    except httpx.HTTPError:
        return None


def until(
    ready: Callable[[], httpx.Response | None], proc: subprocess.Popen[bytes]
) -> httpx.Response:
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        r = ready()
        if r is not None:
            return r
        time.sleep(0.05)
    raise AssertionError("gave up waiting")


def test_sigterm_drains_for_the_grace_and_a_second_sigterm_stops_at_once(
    tmp_path: Path,
) -> None:
    port = free_port()
    cmd = [sys.executable, "-m", "domino.cli", "serve", "--port", str(port)]
    cmd += ["--data", str(tmp_path), "--node", "solo", "--drain-grace", "120"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        up = until(lambda: health(port), proc)
        assert up.status_code == 200 and up.json()["node"] == "solo"
        proc.send_signal(signal.SIGTERM)

        def draining() -> httpx.Response | None:
            r = health(port)
            return r if r is not None and r.status_code == 503 else None

        r = until(draining, proc)
        assert r.json() == {
            "ok": True,
            "protocol": 1,
            "node": "solo",
            "accepting": False,
            "down": [],
        }
        proc.send_signal(signal.SIGTERM)
        proc.wait(LIMIT)  # long before the 120 s grace
        out = proc.stdout.read().decode() if proc.stdout else ""
        assert '"event": "draining"' in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def refused(tmp_path: Path, *args: str) -> str:
    """Run ``domino serve`` with ``args``; it must stop at once with code 2 and one line on
    stderr (no traceback), which is returned."""
    port = free_port()
    cmd = [sys.executable, "-m", "domino.cli", "serve", "--port", str(port)]
    cmd += ["--data", str(tmp_path), "--node", "solo", *args]
    done = subprocess.run(cmd, capture_output=True, timeout=LIMIT, check=False)
    err = done.stderr.decode()
    assert done.returncode == 2, (done.returncode, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert health(port) is None  # it never served
    return err.strip()


def test_a_database_that_does_not_exist_is_named_in_one_line(tmp_path: Path) -> None:
    pg = os.environ.get("DOMINO_TEST_POSTGRES")
    if not pg:
        pytest.skip("needs PostgreSQL: set DOMINO_TEST_POSTGRES (.ci/run does)")
    name = f"nonexistent_{secrets.token_hex(4)}"
    url = make_url(pg).set(database=name).render_as_string(hide_password=False)
    line = refused(tmp_path, "--db", url)
    assert line.startswith(f"Die Datenbank „{name}“ gibt es auf ") and f"createdb {name}" in line


def test_a_database_nobody_listens_for_is_unreachable(tmp_path: Path) -> None:
    url = f"postgresql+asyncpg://postgres:geheim@127.0.0.1:{free_port()}/test"
    line = refused(tmp_path, "--db", url)
    shown = url.replace(":geheim@", ":***@")
    assert line == (
        f"Die Datenbank {shown} ist nicht erreichbar "
        "(Verbindung abgelehnt: dort lauscht niemand). Prüfe --db."
    )


def test_a_database_host_that_does_not_exist_is_unreachable(tmp_path: Path) -> None:
    # .invalid never resolves (RFC 2606).
    url = "postgresql+asyncpg://postgres@domino-test.invalid:5432/test"
    line = refused(tmp_path, "--db", url)
    assert line == f"Die Datenbank {url} ist nicht erreichbar (Rechnername unbekannt). Prüfe --db."


def test_a_redis_nobody_listens_for_is_unreachable(tmp_path: Path) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    line = refused(tmp_path, "--redis", url)
    assert line == (
        f"Redis unter {url} ist nicht erreichbar "
        "(Verbindung abgelehnt: dort lauscht niemand). Prüfe --redis."
    )


def test_a_redis_url_that_is_not_one_is_named(tmp_path: Path) -> None:
    line = refused(tmp_path, "--redis", "http://127.0.0.1:6379")
    assert line.startswith("Redis unter http://127.0.0.1:6379 ist nicht erreichbar (")


def test_the_signin_budget_option_is_burst_and_rate() -> None:
    assert signin_budget("50,2") == (50.0, 2.0)
    for bad in ("50", "a,b", "0,1", "10,-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            signin_budget(bad)


def test_the_analysis_duty_is_a_share_of_a_core() -> None:
    assert duty("0.3") == 0.3 and duty("1") == 1.0
    for bad in ("0", "-0.5", "1.5", "viel", "nan"):
        with pytest.raises(argparse.ArgumentTypeError):
            duty(bad)


@pytest.mark.parametrize("action", ["upgrade", "current"])
def test_db_commands_name_an_unusable_database_in_one_line(tmp_path: Path, action: str) -> None:
    # `domino db upgrade` used to print a traceback where `domino serve` says one sentence.
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/test"
    done = subprocess.run(
        [sys.executable, "-m", "domino.cli", "db", action, "--db", url, "--data", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"Die Datenbank {url} ist nicht erreichbar "
        "(Verbindung abgelehnt: dort lauscht niemand). Prüfe --db."
    )
    assert "Traceback" not in done.stderr
