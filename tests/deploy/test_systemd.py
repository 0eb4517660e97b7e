"""deploy/systemd: the units an operator copies, checked with ``systemd-analyze verify``
(Debian's systemd; ``make test`` installs what is missing) and against the node's own
figures (the stop's bound, the open files it needs)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from domino.cli import build_parser
from domino.cli.serve import MAX_CONNECTIONS, RESERVED_FILES, environment_table
from domino.server.run import stop_bound

SYSTEMD = Path(__file__).resolve().parents[2] / "deploy" / "systemd"
NODE = SYSTEMD / "domino@.service"
#: Where the unit expects the installed program (a virtual environment in /opt/domino).
INSTALLED = "/opt/domino/bin/domino"


def settings(path: Path) -> dict[str, list[str]]:
    """Every ``Key=value`` of a unit file (keys may repeat), comments left out."""
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        out.setdefault(key.strip(), []).append(value.strip())
    return out


def environment(unit: dict[str, list[str]]) -> dict[str, str]:
    """The unit's ``Environment=`` assignments."""
    env = {}
    for line in unit.get("Environment", []):
        for pair in line.split():
            name, _, value = pair.partition("=")
            env[name] = value
    return env


def seconds(value: str) -> float:
    """A systemd time span as these units write it (``30`` or ``30s``)."""
    return float(value.removesuffix("s"))


def test_systemd_analyze_verifies_the_node_unit_and_the_site_target(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("needs systemd-analyze: make deploy-tools installs Debian's systemd")
    domino = str(Path(sys.executable).with_name("domino"))  # this environment's script
    for name in ("domino@.service", "domino.target"):
        text = (SYSTEMD / name).read_text(encoding="utf-8")
        # The only change: the program where this checkout has it (verify checks it).
        (tmp_path / name).write_text(text.replace(INSTALLED, domino), encoding="utf-8")
    assert INSTALLED in NODE.read_text(encoding="utf-8")
    done = subprocess.run(
        [
            analyze,
            "verify",
            str(tmp_path / "domino@node1.service"),
            str(tmp_path / "domino.target"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    # verify exits 0 on unknown keys and bad values too; it says so on stderr.
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr


def test_the_node_unit_stops_within_its_timeout_and_has_the_files_it_needs() -> None:
    unit = settings(NODE)
    env = environment(unit)
    assert unit["KillSignal"] == ["SIGTERM"] and unit["Restart"] == ["always"]
    # The whole stop (drain, hand-over, shutdown) ends before systemd's SIGKILL.
    grace = float(env["DOMINO_DRAIN_GRACE"])
    assert seconds(unit["TimeoutStopSec"][0]) > stop_bound(grace)
    assert int(unit["LimitNOFILE"][0]) >= MAX_CONNECTIONS + RESERVED_FILES
    # The URLs with passwords come from a file (mode 0600), not the unit or `ps`.
    assert unit["EnvironmentFile"] == ["/etc/domino/node.env", "-/etc/domino/%i.env"]
    assert unit["ExecStart"] == [f"{INSTALLED} serve --node %i"]
    assert "DOMINO_DB" not in env and "DOMINO_REDIS" not in env
    # Every variable the unit and the example file set is one `domino serve` reads.
    example = (SYSTEMD / "node.env").read_text(encoding="utf-8")
    given = set(env) | {
        line.partition("=")[0]
        for line in example.splitlines()
        if line.strip() and not line.startswith("#")
    }
    sub = build_parser()._subparsers
    assert sub is not None
    serve = sub._group_actions[0].choices["serve"]  # type: ignore[index]
    known = {variable for _flag, variable in environment_table(serve)}
    assert given <= known, given - known
    assert {"DOMINO_DB", "DOMINO_REDIS", "DOMINO_METRICS_TOKEN"} <= given
