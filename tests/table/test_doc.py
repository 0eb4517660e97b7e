"""docs/match-state.md stays true: its example has the real shape, every kind is documented."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from table_support import Driver, bot, human, make_table

from domino.table import BACK_COMMAND, LEAVE_COMMAND, Table
from domino.table.model import ENTRY_KINDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "match-state.md"


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def first_json_block(after: str) -> Any:
    text = doc_text()
    start = text.index(after)
    block = re.search(r"```json\n(.*?)```", text[start:], re.S)
    assert block is not None
    return json.loads(block.group(1))


def shape(obj: object) -> object:
    """Keys of dicts (recursively), the first element of lists, the type of the rest."""
    if isinstance(obj, dict):
        return {k: shape(v) for k, v in sorted(obj.items())}
    if isinstance(obj, list):
        return [shape(obj[0])] if obj and isinstance(obj[0], dict) else "list"
    return "value"


def documented_kinds(section: str) -> set[str]:
    text = doc_text()
    part = text[text.index(section) :]
    part = part[: part.index("\n\n", part.index("| kind"))]
    rows = re.findall(r"^\| `(\w+)`(?: / `(\w+)`)?", part, re.M)
    return {k for row in rows for k in row if k}


def test_the_state_example_has_the_shape_of_a_real_snapshot() -> None:
    example = first_json_block("## The `state` message")
    table = make_table([human("Anna"), bot("profi")], seed="doc-6")
    driver = Driver(table, think=2.0)
    while table.version < example["v"]:
        driver.step()
    real = dict(driver.outcomes[-1].messages)[0]
    assert shape(example) == shape(real)
    assert {k: v for k, v in example.items() if k != "match_id" and k != "seats"} == {
        k: v for k, v in real.items() if k != "match_id" and k != "seats"
    }


def test_every_event_and_log_kind_is_documented() -> None:
    events = documented_kinds("### `events[]`")
    entries = documented_kinds("## The log")
    assert set(ENTRY_KINDS) == entries
    emitted: set[str] = set()

    def grab(table: Table, out: Any) -> None:
        for _, msg in out.messages:
            emitted.update(e["kind"] for e in msg["events"])

    table = make_table([human("Anna"), human("Ben"), bot()], seed="doc-kinds")
    driver = Driver(table, act=lambda s, t, now: None, on_outcome=grab)
    driver.run_until(lambda t: t.seats[0].standin and t.seats[1].standin)
    grab(table, table.command(0, BACK_COMMAND, driver.now))
    grab(table, table.set_connected(0, False, driver.now))
    grab(table, table.set_connected(0, True, driver.now))
    grab(table, table.command(0, LEAVE_COMMAND, driver.now))
    driver.run()
    assert emitted <= events
    assert {"timeout", "standin", "back", "leave", "round_end", "match_end"} <= emitted
