"""``domino serve`` as a process: SIGTERM drains for --drain-grace, a second one ends it;
a database or Redis it cannot use stops it at once with one clear line.

On SQLite, so it runs everywhere; tests/cluster runs the same behind HAProxy.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import resource
import secrets
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

from domino.cli import build_parser
from domino.cli.serve import duty, environment_table, signin_budget
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


def serve_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_every_flag_can_come_from_the_environment_and_a_flag_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DOMINO_PORT", "8123")
    monkeypatch.setenv("DOMINO_DB", "postgresql+asyncpg://domino:geheim@db/domino")
    monkeypatch.setenv("DOMINO_BOT_BUDGET", "off")
    monkeypatch.setenv("DOMINO_SIGNIN_BUDGET", "50,2")
    monkeypatch.setenv("DOMINO_LOG_FORMAT", "text")
    args = serve_args()
    assert args.port == 8123 and args.db == "postgresql+asyncpg://domino:geheim@db/domino"
    assert args.bot_budget is None and args.signin_budget == (50.0, 2.0)
    assert args.log_format == "text"
    assert serve_args("--port", "9000", "--log-format", "json").port == 9000
    assert serve_args("--log-format", "json").log_format == "json"
    monkeypatch.delenv("DOMINO_BOT_BUDGET")
    assert not hasattr(serve_args(), "bot_budget")  # absent: the server's default


@pytest.mark.parametrize(
    ("name", "value"),
    [("DOMINO_PORT", "achttausend"), ("DOMINO_LOG_FORMAT", "xml"), ("DOMINO_ANALYSIS_DUTY", "2")],
)
def test_a_bad_environment_value_is_named_like_a_bad_flag(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as stop:
        serve_args()
    assert stop.value.code == 2
    assert f"{name}: " in capsys.readouterr().err


def test_the_deploy_guide_lists_every_flag_with_its_variable() -> None:
    sub = build_parser()._subparsers
    assert sub is not None
    serve = sub._group_actions[0].choices["serve"]  # type: ignore[index]
    rows = environment_table(serve)
    assert ("--redis", "DOMINO_REDIS") in rows and ("--db", "DOMINO_DB") in rows
    guide = (Path(__file__).parents[2] / "docs" / "deploy.md").read_text()
    for flag, variable in rows:
        assert f"| `{flag}` | `{variable}` |" in guide, flag


def start_serve(tmp_path: Path, *extra: str, **popen: Any) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    cmd = [sys.executable, "-m", "domino.cli", "serve", "--port", str(port)]
    cmd += ["--data", str(tmp_path), "--analysis-workers", "0", *extra]
    popen.setdefault("stdout", subprocess.DEVNULL)
    return subprocess.Popen(cmd, **popen), port


def stop_serve(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=LIMIT)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_logs_are_text_at_a_terminal_and_json_otherwise(tmp_path: Path) -> None:
    main, side = pty.openpty()
    proc, port = start_serve(tmp_path, stderr=side)
    os.close(side)
    try:
        until(lambda: health(port), proc)
    finally:
        stop_serve(proc)
    at_terminal = read_all(main)
    assert "Uvicorn running" in at_terminal or "Application startup" in at_terminal
    assert not any(line.startswith("{") for line in at_terminal.splitlines() if line.strip())

    proc, port = start_serve(tmp_path, stderr=subprocess.PIPE)
    try:
        until(lambda: health(port), proc)
    finally:
        stop_serve(proc)
    assert proc.stderr is not None
    lines = [line for line in proc.stderr.read().decode().splitlines() if line.strip()]
    assert lines and all(json.loads(line)["level"] for line in lines)


def read_all(fd: int) -> str:
    chunks = []
    while select.select([fd], [], [], 0.5)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode(errors="replace")


def open_files_limit(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-files line")


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("hard", [600, 3000])
def test_serve_raises_its_open_file_limit_and_warns_when_the_hard_one_is_too_low(
    tmp_path: Path, hard: int
) -> None:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, hard))

    proc, port = start_serve(
        tmp_path, "--max-connections", "1000", stderr=subprocess.PIPE, preexec_fn=limit
    )
    try:
        until(lambda: health(port), proc)
        assert open_files_limit(proc.pid) == (hard, hard)
    finally:
        stop_serve(proc)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    warning = "Dieser Prozess darf höchstens 600 Dateien öffnen, braucht für 1000 Verbindungen"
    assert (warning in err) == (hard == 600), err
