"""The py-spy summary the performance notes quote (``python -m domino_bench.spy``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from domino_bench import spy


def test_the_summary_counts_self_and_inclusive_shares_and_top_widens_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "spy.txt"
    raw.write_text(
        "main (a.py:1);loop (a.py:5);handle (b.py:9);write (c.py:3) 6\n"
        "main (a.py:1);loop (a.py:6);handle (b.py:10);handle (b.py:12) 3\n"
        "main (a.py:2);loop (a.py:5);tick (d.py:1) 1\n"
    )
    lines = spy.summarise(raw, top=1)
    assert lines[0] == "10 samples"
    own = lines[lines.index("self (on top of the stack):") + 1 :]
    assert own[0].split() == ["60.0%", "write", "(c.py)"]  # lines of one function merged
    incl = lines[lines.index("inclusive (anywhere on the stack):") + 1 :]
    assert len(incl) == 2 and all("100.0%" in x for x in incl)  # main and loop
    # A function twice on one stack counts once: handle is on 9 of the 10 samples.
    assert spy.main(["--top", "5", str(raw)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "   90.0%  handle (b.py)" in out and "   10.0%  tick (d.py)" in out
