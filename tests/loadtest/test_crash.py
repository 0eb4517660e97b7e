"""The short crash test of ``make test``: one SIGKILL under load, nothing lost.

The full version (five kills and more) is ``make crash`` / ``domino bench crash``.
"""

from __future__ import annotations

from pathlib import Path

from domino.loadtest.crash import run_crash


async def test_one_kill_loses_no_acknowledged_command(tmp_path: Path) -> None:
    report = await run_crash(
        kills=1,
        groups=6,
        delay=0.02,
        data=tmp_path / "data",
        seed=20261202,
        gap=(1.5, 2.5),
        log=tmp_path / "server.log",
        say=lambda *_: None,
    )
    summary = "\n".join(report.lines())
    assert report.kills == 1, summary
    # The check had something to check: moves acknowledged, matches finished.
    assert report.acknowledged > 20 and report.matches >= 6, summary
    assert report.moves_logged >= report.acknowledged, summary
    assert report.lost == [], summary
    assert report.unexplained == [], summary
    assert report.unfinished == [], summary
    assert report.replay_mismatch == [] and report.xp_mismatch == [], summary
