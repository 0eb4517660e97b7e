"""Start, watch, kill and restart the server process (:mod:`.serve`) from a driver."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from domino.server.run import free_port

from . import child_env
from .procstat import Sample, sample

#: How long a start may take before the driver gives up (seconds). Generous: on a
#: machine shared with busy neighbours a start has taken over 30 s.
START_TIMEOUT = 120.0


class ServerProcess:
    """The server as a child process on ``127.0.0.1:port`` with its database in ``data``."""

    def __init__(
        self,
        data: Path,
        *,
        port: int | None = None,
        pace: str = "human",
        burst: float | None = None,
        rate: float | None = None,
        profile: Path | None = None,
        log: Path | None = None,
        lag: Path | None = None,
        extra: list[str] | None = None,
    ) -> None:
        self.data = data
        self.port = port or free_port()
        self.pace = pace
        self.burst = burst
        self.rate = rate
        self.profile = profile
        self.log = log
        self.lag = lag
        self.extra = list(extra or [])
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        """The HTTP base address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """The WebSocket address."""
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int:
        """The running server's process id."""
        assert self.proc is not None
        return self.proc.pid

    def command(self) -> list[str]:
        """The command line that starts the server."""
        cmd = [sys.executable, "-m", "domino_bench.serve", "--port", str(self.port)]
        cmd += ["--data", str(self.data), "--pace", self.pace]
        if self.burst is not None:
            cmd += ["--burst", str(self.burst)]
        if self.rate is not None:
            cmd += ["--rate", str(self.rate)]
        if self.profile is not None:
            cmd += ["--profile", str(self.profile)]
        if self.lag is not None:
            cmd += ["--lag", str(self.lag)]
        cmd += self.extra
        return cmd

    def start(self) -> None:
        """Start the process and wait until ``/api/health`` answers."""
        self.data.mkdir(parents=True, exist_ok=True)
        if self.log is None:
            self.proc = subprocess.Popen(
                self.command(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                env=child_env(),
            )
        else:
            with open(self.log, "ab") as out:  # the child keeps its own copy
                self.proc = subprocess.Popen(
                    self.command(), stdout=out, stderr=subprocess.STDOUT, env=child_env()
                )
        self.starts += 1
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode} on start")
            try:
                if httpx.get(self.url + "/api/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.kill()  # never leave a half-started server behind
        raise RuntimeError("the server did not answer /api/health in time")

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc is not None and self.proc.poll() is None

    def sample(self) -> Sample | None:
        """CPU time and RSS of the server now."""
        return sample(self.pid) if self.alive() else None

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs (the crash test)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM and wait (uvicorn shuts down cleanly); SIGKILL if it hangs."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        return self.proc.returncode

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
