"""``python -m domino_bench.benchgroupcommit``: a line per size, at least 20 commits each."""

from __future__ import annotations

import asyncio

from domino_bench import benchgroupcommit


def test_every_size_is_measured_over_its_commits(capsys) -> None:  # type: ignore[no-untyped-def]
    assert benchgroupcommit.main(["40", "1,8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["1", "8"]
    assert "40 commits" in lines[0] and "20 commits" in lines[1]  # at least 20 per size
    rows = asyncio.run(benchgroupcommit.run(16, [4]))
    assert rows[0][0] == 4 and rows[0][1] == 20 and rows[0][2] > 0
