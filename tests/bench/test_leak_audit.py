"""The leak audit in ``make test``: a smaller count than ``make leak-audit`` (1,000 matches)."""

from __future__ import annotations

from domino.rules import Rules
from domino.table import SeatSpec, Table
from domino_bench.audit import Truth, check_frame, run_audit

MATCHES = 120


def test_whole_matches_leak_nothing_to_any_audience() -> None:
    report = run_audit(MATCHES, seed=7)
    assert report.leaks == [], "\n".join(report.lines())
    assert report.matches == MATCHES
    # Every audience was checked, in many mode/seat configurations.
    assert {"seat 0", "seat 1", "seat 2", "seat 3", "spectators"} <= report.audiences
    assert len(report.configs) >= 10
    assert report.frames > MATCHES * 100


def test_the_audit_sees_a_planted_leak() -> None:
    """The checker itself: another seat's tile, a Lager tile or the seed are caught."""
    table = Table(
        "m",
        Rules(seats=2),
        [SeatSpec("human", "A", player_id="a"), SeatSpec("human", "B", player_id="b")],
        "planted-seed",
        0.0,
    )
    assert table.match is not None
    rnd = table.match.round
    clean = table.snapshot(0, 0.0)
    assert check_frame(table, 0, clean, Truth.of(table)) == []
    other = next(iter(Truth.of(table).held[1]))
    leaky = {**clean, "view": {**clean["view"], "line": [*clean["view"]["line"], [other, 0, 0]]}}
    assert any("another seat" in p for p in check_frame(table, 0, leaky))
    lager = next(iter(Truth.of(table).never))
    assert rnd.lager and any("Lager" in p for p in check_frame(table, 1, {**clean, "x": lager}))
    assert any("seed" in p for p in check_frame(table, 0, {**clean, "note": "planted-seed"}))
