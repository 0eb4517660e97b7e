"""``domino mod``: the moderators' list of reports and the mute (on a SQLite data folder)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from domino.cli import main
from domino.server.storage.db import Database


async def _prepare(data: Path) -> int:
    data.mkdir(parents=True, exist_ok=True)
    db = Database(f"sqlite+aiosqlite:///{data / 'domino.sqlite'}")
    try:
        await db.create()
        await db.create_profile("p_anna", "Anna", "guest", 1.0)
        await db.create_profile("p_ben", "Ben", "guest", 1.0)
        await db.add_message("lobby:K7Q2MX9P", "p_anna", "Anna", 0, "hallo", 10.0)
        bad = await db.add_message("lobby:K7Q2MX9P", "p_anna", "Anna", 0, "du Depp", 11.0)
        found = await db.message(bad)
        assert found is not None
        await db.report(found, "p_ben", 12.0)
        return bad
    finally:
        await db.close()


async def _muted(data: Path, pid: str) -> float | None:
    db = Database(f"sqlite+aiosqlite:///{data / 'domino.sqlite'}")
    try:
        return await db.muted_until(pid, time.time())
    finally:
        await db.close()


def test_reports_are_listed_with_their_context_and_a_profile_is_muted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["mod", "reports", "--data", str(data)]) == 0
    assert capsys.readouterr().out.strip() == "Keine Meldungen."
    bad = asyncio.run(_prepare(data))
    assert main(["mod", "reports", "--data", str(data)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("#1 ") and "Anna (p_anna), gemeldet von Ben: du Depp" in out[0]
    assert [line.split(": ", 1)[1] for line in out[1:]] == ["hallo", "du Depp"]
    assert bad == 2
    assert main(["mod", "mute", "p_anna", "--hours", "2", "--data", str(data)]) == 0
    assert "Anna (p_anna) ist stummgeschaltet bis" in capsys.readouterr().out
    until = asyncio.run(_muted(data, "p_anna"))
    assert until is not None and 7100 < until - time.time() <= 7200
    assert main(["mod", "mute", "p_anna", "--hours", "0", "--data", str(data)]) == 0
    assert "darf wieder schreiben" in capsys.readouterr().out
    assert asyncio.run(_muted(data, "p_anna")) is None
    assert main(["mod", "mute", "p_nobody", "--hours", "1", "--data", str(data)]) == 2
    assert "Dieses Profil gibt es nicht." in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["mod", "mute", "p_anna", "--hours", "-3", "--data", str(data)])
