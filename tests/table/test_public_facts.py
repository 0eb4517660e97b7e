"""What a spectator's snapshot tells: the Lager's size (never its tiles), who is connected, and
the score sheet (points per side of every finished round) that every audience shares."""

from __future__ import annotations

from table_support import Driver, assert_no_leak, bot, human, make_table

from domino.rules import Mode


def test_a_spectator_sees_the_lager_count_but_never_its_tiles() -> None:
    table = make_table([human("Anna"), bot(), bot(), bot()], seed="spectator-lager")
    driver = Driver(table, think=2.0)
    seen: set[int] = set()
    while table.version < 12 and not table.finished:
        driver.step()
        spectator = table.snapshot(None, driver.now)
        m = table.match
        assert m is not None
        assert spectator["you"] is None
        assert spectator["view"]["hand"] is None
        # The count is the real one, the same a seat is told.
        assert spectator["view"]["lager"] == len(m.round.lager)
        assert spectator["view"]["lager"] == table.snapshot(0, driver.now)["view"]["lager"]
        assert_no_leak(table, None, spectator)
        seen.add(spectator["view"]["lager"])
    # 4 seats with Lager An: 28 - 4 * 5 = 8 at the start, fewer once someone drew.
    assert 8 in seen


def test_every_audience_gets_the_points_of_every_finished_round() -> None:
    table = make_table([human("Anna"), bot(), bot()], mode=Mode.FUENFERFIEBER, seed="score-sheet")
    driver = Driver(table, think=2.0)
    assert table.snapshot(None, 0.0)["round_points"] == []
    rounds_seen = 0
    while not table.finished:
        driver.step()
        m = table.match
        assert m is not None
        snap = table.snapshot(None, driver.now)
        assert snap["round_points"] == [list(r.totals) for r in m.results]
        assert table.snapshot(0, driver.now)["round_points"] == snap["round_points"]
        rounds_seen = max(rounds_seen, len(snap["round_points"]))
        if m.round.over:
            # Between rounds the sheet adds up to the standings.
            sums = [sum(col) for col in zip(*snap["round_points"], strict=True)]
            for st in snap["standings"]:
                assert st["points"] == sums[st["side"]]
    assert rounds_seen >= 1
    assert len(table.snapshot(None, driver.now)["round_points"]) == len(table.match.results)  # type: ignore[union-attr]
