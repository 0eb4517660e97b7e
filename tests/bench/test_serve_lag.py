"""The bench server's lag log (``python -m domino_bench.serve --lag FILE``): per second, the
loop's lateness and the commands handled, in all and the most in one tick."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from domino_bench.serve import watch_lag


def test_each_line_counts_the_seconds_commands_and_the_busiest_tick(tmp_path: Path) -> None:
    counts: list[int] = []

    def commands() -> int:
        # 1 more at every call, 7 more at every fifth: the busiest tick has 7.
        n = len(counts) + 1
        counts.append(n + 6 * (n // 5))
        return counts[-1]

    path = tmp_path / "lag.jsonl"

    async def main() -> None:
        task = asyncio.create_task(watch_lag(path, commands, period=0.01))
        for _ in range(500):  # the first line comes after one second
            await asyncio.sleep(0.01)
            if path.exists() and path.read_text():
                break
        task.cancel()

    asyncio.run(main())
    line = json.loads(path.read_text().splitlines()[0])
    assert line["commands_max_tick"] == 7
    # The second's commands: from the count at its start to one read at one of its ticks.
    assert line["commands"] > 7 and counts[0] + line["commands"] in counts
    assert {"max_ms", "mean_ms", "cpu_s"} <= set(line)
