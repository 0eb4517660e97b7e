"""``domino serve`` as a process: SIGTERM drains for --drain-grace, a second one ends it.

On SQLite, so it runs everywhere; tests/cluster runs the same behind HAProxy.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from domino.cli.serve import signin_budget
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
        assert r.json() == {"ok": True, "protocol": 1, "node": "solo", "accepting": False}
        proc.send_signal(signal.SIGTERM)
        proc.wait(LIMIT)  # long before the 120 s grace
        out = proc.stdout.read().decode() if proc.stdout else ""
        assert '"event": "draining"' in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_the_signin_budget_option_is_burst_and_rate() -> None:
    assert signin_budget("50,2") == (50.0, 2.0)
    for bad in ("50", "a,b", "0,1", "10,-1"):
        with pytest.raises(argparse.ArgumentTypeError):
            signin_budget(bad)
