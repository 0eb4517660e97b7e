"""The table's side of hints: who may have one now (``Table.hint_view``), the ``hint``
entry (``Table.use_hint``) counted per round and seat, told to every audience, restored
from the log."""

from __future__ import annotations

import pytest
from table_support import Driver, bot, human, make_table

from domino.rules import view
from domino.table import CommandError, Table


def _my_turn(table: Table, seat: int) -> Driver:
    driver = Driver(table, act=lambda s, t, now: None)
    driver.run_until(lambda t: not t._m.round.over and t._m.round.turn == seat)
    return driver


def test_the_view_is_the_seat_s_own_and_the_limit_counts_per_round() -> None:
    table = make_table([human("Anna"), bot(), bot()], seed="hints-1")
    driver = _my_turn(table, 0)
    v = table.version
    seen = table.hint_view(0, v, 2)
    assert seen == view(table._m, 0)  # exactly what the seat sees, nothing more
    out = table.use_hint(0, driver.now)
    assert [e["kind"] for e in out.entries] == ["hint"]
    assert out.entries[0]["payload"] == {"round": 1} and table.version == v + 1
    # Every audience hears that a hint was used, nobody what it said.
    told = {aud: [e for e in m["events"] if e["kind"] == "hint"] for aud, m in out.messages}
    assert told == {a: [{"kind": "hint", "seat": 0}] for a in (0, 1, 2, None)}
    table.use_hint(0, driver.now)
    assert table.hints_left(0, 2) == 0
    with pytest.raises(CommandError) as exc:
        table.hint_view(0, table.version, 2)
    assert exc.value.code == "hint_limit" and exc.value.params == {"n": 2}
    assert table.hint_view(0, table.version, 3) == seen  # a higher limit allows one more
    # Restored from its log, the table counts the same hints.
    again = Table.restore(
        table.match_id,
        table.rules,
        [s.spec for s in table.seats],
        table.seed,
        table.log,
        driver.now,
    )
    assert again.hints_left(0, 2) == 0 and again.version == table.version


def test_refusals_name_the_reason() -> None:
    table = make_table([human("Anna"), human("Ben"), bot()], seed="hints-2")
    _my_turn(table, 0)
    v = table.version

    def code(seat: int, ver: int, limit: int) -> str:
        with pytest.raises(CommandError) as exc:
            table.hint_view(seat, ver, limit)
        return exc.value.code

    assert code(0, v, 0) == "hint_off"
    assert code(0, v - 1, 3) == "stale_version"
    assert code(1, v, 3) == "hint_not_your_turn"
    assert code(2, v, 3) == "not_seated"  # the bot's seat
