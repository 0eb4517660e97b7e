"""``domino puzzles build`` and ``check`` (docs/puzzles.md) on a SQLite database holding
one finished, analysed match (docs/examples/double-first.json)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from domino.analysis import review
from domino.cli import main
from domino.rules.record import loads
from domino.server.storage.db import Database

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "double-first.json"


async def _seed(data: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{data / 'domino.sqlite'}")
    await db.create()
    try:
        record = loads(EXAMPLE.read_text(encoding="utf-8"))
        for mid, finished in (("m_done", True), ("m_running", False)):
            await db.create_match(mid, None, record["rules"], [{"name": "Anna"}], "s", 1.0, [])
            if finished:
                await db.finish_match(mid, 2.0, {"standings": []}, record, [])
            analysis = review(record, samples=100, seed=mid, hindsight=False)
            await db.claim_analysis(mid, "n", 3.0, 1, 100, 0.0)
            await db.finish_analysis(mid, "n", 4.0, json.dumps(analysis))
    finally:
        await db.close()


async def _tamper(data: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{data / 'domino.sqlite'}")
    try:
        [row] = [r for r in await db.all_puzzles() if r["doc"]["move"] == 12]
        doc = row["doc"]
        doc["position"]["hand"] = ["6|6", *doc["position"]["hand"][1:]]
        async with db.engine.begin() as conn:
            pz = db.t.puzzles
            await conn.execute(
                sa.update(pz).where(pz.c.id == row["id"]).values(doc=json.dumps(doc))
            )
    finally:
        await db.close()


def test_build_makes_the_finished_matches_puzzles_and_check_replays_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_seed(tmp_path))
    assert main(["puzzles", "build", "--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    # Only the finished match: never a running one.
    assert out[0].startswith("Partie m_done: ") and not any("m_running" in ln for ln in out)
    assert out[-1].startswith("Analysierte Partien: 1; ") and "abgelehnt" in out[-1]
    assert main(["puzzles", "build", "--data", str(tmp_path)]) == 0  # nothing left to do
    assert capsys.readouterr().out.startswith("Analysierte Partien: 0;")
    assert main(["puzzles", "check", "--data", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip().endswith("passen nicht zu ihrer Partie: 0.")
    asyncio.run(_tamper(tmp_path))
    assert main(["puzzles", "check", "--data", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "m_done-1-12 passt nicht zu seiner Partie" in captured.err
    assert captured.out.strip().endswith("passen nicht zu ihrer Partie: 1.")
