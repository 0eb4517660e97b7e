"""Whole matches on a fake clock: humans with scripted legal choices, bots, spectators."""

from __future__ import annotations

import pytest
from table_support import CONFIGS, Driver, bot, config_id, human, make_table

import domino.table.table as table_module
from domino.bots import LEVELS
from domino.rules import MAX_ROUNDS, Mode, Move
from domino.table import Outcome, Table, match_xp


def check_messages(table: Table, out: Outcome) -> None:
    """Every change reaches every audience once, at the table's version."""
    if out.entries:
        audiences = [a for a, _ in out.messages]
        assert audiences == [*range(table.rules.seats), None]
    for audience, msg in out.messages:
        assert msg["type"] == "state"
        assert msg["v"] == table.version
        assert msg["you"] == audience
        assert (msg["view"]["hand"] is None) == (audience is None)


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_whole_match_of_humans_and_bots(cfg: tuple[Mode, int, bool]) -> None:
    mode, n, pairs = cfg
    # Seat 0 is human, the others mix humans and bots (Meister has its own test: it thinks).
    seats = [human("Anna")]
    for i in range(1, n):
        seats.append(human(f"H{i}") if i % 2 == 0 else bot(("anfaenger", "profi")[i // 2]))
    table = make_table(seats, mode=mode, pairs=pairs, seed=f"whole-{config_id(cfg)}")
    driver = Driver(table, on_outcome=check_messages)
    driver.run()

    m = table.match
    assert m is not None
    assert table.finished and table.phase == "match_over"
    assert table.finished_reason in ("target", "rounds")
    assert max(m.scores) >= table.rules.target_points or m.round_no == MAX_ROUNDS
    # The log is the event-sourced truth: versions count up from 1.
    assert [e["v"] for e in table.log] == list(range(1, len(table.log) + 1))
    assert table.log[0]["kind"] == "start" and table.log[-1]["kind"] == "end"
    # XP (RULES.md §12): humans by their place, bots nothing.
    places = [s.place for s in m.standings()]
    assert table.xp == [
        match_xp(m.place_of_seat(i), places) if s.kind == "human" else None
        for i, s in enumerate(seats)
    ]
    last = driver.outcomes[-1]
    assert last.finished and last.xp == table.xp
    final = dict(last.messages)
    assert set(final) == {*range(n), None}
    for msg in final.values():
        assert msg["phase"] == "match_over"
        assert msg["xp"] == table.xp
        assert msg["events"][-1] == {"kind": "match_end", "reason": table.finished_reason}
        assert [s["place"] for s in msg["standings"]] == sorted(places)
    if pairs:
        # Both partners get the team's place and so the same XP: 40 win, 10 loss, 30 tie.
        assert table.xp[0] == table.xp[2]
        assert table.xp[0] == {1: 40, 2: 10}[m.place_of_seat(0)] or m.scores[0] == m.scores[1]
        for msg in final.values():
            by_side = sorted(msg["standings"], key=lambda s: s["side"])
            assert [sorted(s["seats"]) for s in by_side] == [[0, 2], [1, 3]]


@pytest.mark.parametrize("level", LEVELS)
def test_every_bot_level_plays_a_seat(level: str) -> None:
    table = make_table([human("Anna"), bot(level)], seed=f"level-{level}", mode=Mode.BLITZ)
    Driver(table).run()
    assert any(e["kind"] == "bot" and e["seat"] == 1 for e in table.log)
    assert table.xp is not None and table.xp[1] is None and table.xp[0] is not None


def test_bots_never_move_instantly_and_rounds_pause() -> None:
    table = make_table([bot("anfaenger"), bot("profi"), bot("fortgeschritten")], seed="pace")
    Driver(table).run()
    prev = table.log[0]
    for e in table.log[1:]:
        gap = e["t"] - prev["t"]
        if e["kind"] == "bot":
            first_of_turn = prev["kind"] != "bot" or prev["seat"] != e["seat"]
            low = table.timing.bot_delay[0] if first_of_turn else table.timing.bot_step_delay[0]
            assert gap >= low
            assert gap <= table.timing.bot_delay[1]
        elif e["kind"] == "round":
            assert gap == pytest.approx(table.timing.round_pause)
        prev = e


def test_bot_delays_vary_and_are_seeded() -> None:
    def gaps(seed: str) -> list[float]:
        t = make_table([bot(), bot()], seed=seed)
        Driver(t).run()
        pairs = zip(t.log, t.log[1:], strict=False)
        return [b["t"] - a["t"] for a, b in pairs if b["kind"] == "bot"]

    first = gaps("delay-a")
    assert len(set(first)) > 3  # a natural rhythm, not a fixed beat
    assert gaps("delay-a") == first


def test_round_over_shows_the_reveal_then_the_next_round_starts_by_itself() -> None:
    table = make_table([human("Anna"), bot()], seed="reveal")
    driver = Driver(table)
    driver.run_until(lambda t: t.phase == "round_over")
    out = driver.outcomes[-1]
    msgs = dict(out.messages)
    m = table.match
    assert m is not None and m.round.result is not None
    hands = [[str(t) for t in h] for h in m.round.result.hands]
    for msg in msgs.values():
        assert msg["phase"] == "round_over"
        assert msg["view"]["result"]["hands"] == hands
        assert msg["clock"]["seat"] is None and msg["clock"]["remaining_ms"] is None
        assert msg["clock"]["next_round_ms"] == 6000
        assert any(e["kind"] == "round_end" for e in msg["events"])
    ended_at = table.log[-1]["t"]
    assert table.next_wakeup() == pytest.approx(ended_at + 6.0)
    # Nothing happens before the pause is over.
    assert table.advance(ended_at + 5.9).entries == []
    out = table.advance(ended_at + 6.0)
    assert [e["kind"] for e in out.entries] == ["round"]
    msg = dict(out.messages)[0]
    assert msg["phase"] == "playing" and msg["view"]["round"] == 2
    assert [e["kind"] for e in msg["events"]][:2] == ["round_start", "open"]


def test_spectators_see_no_hand_and_no_legal_moves() -> None:
    table = make_table([human("Anna"), human("Ben")], seed="spect")
    seen: list[dict[str, object]] = []

    def grab(t: Table, out: Outcome) -> None:
        seen.extend(msg for a, msg in out.messages if a is None)

    Driver(table, on_outcome=grab).run()
    assert seen
    for msg in seen:
        view = msg["view"]
        assert isinstance(view, dict)
        assert view["hand"] is None and view["legal"] == [] and view["seat"] is None


class _BrokenBot:
    level = "profi"

    def __init__(self, fail: bool) -> None:
        self.fail = fail

    def choose(self, view: object) -> object:
        if self.fail:
            raise RuntimeError("policy crashed")
        return Move.parse("6|6 L")  # never legal after the opening


@pytest.mark.parametrize("fail", [True, False])
def test_a_failing_bot_policy_falls_back_to_fortgeschritten(
    monkeypatch: pytest.MonkeyPatch, fail: bool
) -> None:
    monkeypatch.setattr(table_module, "make_bot", lambda level, seed: _BrokenBot(fail))
    table = make_table([human("Anna"), bot("profi")], seed="broken-bot")
    Driver(table).run()
    assert table.finished and any(e["kind"] == "bot" for e in table.log)


def test_a_late_wakeup_still_sends_every_reveal_before_the_next_round() -> None:
    table = make_table([human("Anna"), bot()], seed="late")
    out = table.advance(100_000.0)  # the caller slept through the whole match
    assert table.finished
    rounds = [e for e in out.entries if e["kind"] == "round"]
    assert rounds
    for audience in (0, 1, None):
        msgs = [msg for a, msg in out.messages if a == audience]
        reveals = [msg for msg in msgs if msg["phase"] == "round_over"]
        assert len(reveals) == len(rounds)
        assert all(msg["view"]["result"] is not None for msg in reveals)
        assert [msg["view"]["round"] for msg in reveals] == list(range(1, len(rounds) + 1))
        assert msgs[-1]["phase"] == "match_over"
