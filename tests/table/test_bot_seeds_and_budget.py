"""What the table gives its bots: a one-way seed (never the secret), a time budget."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from table_support import Driver, bot, human, make_table

import domino.table.table as table_module
from domino.bots import Bot, make_bot
from domino.rules import Rules
from domino.table import SeatSpec, Table

SECRET = "s3cret-match-seed"
HEX64 = re.compile(r"[0-9a-f]{64}")


class StepClock:
    """A fake monotonic clock: every reading is ``step`` seconds after the previous one."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.t = 0.0

    def __call__(self) -> float:
        self.t += self.step
        return self.t


class Spy:
    """Stands in for ``make_bot`` in the table module: records what each bot is given."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, level: str, seed: object = None, **kwargs: Any) -> Bot:
        self.calls.append({"level": level, "seed": seed, **kwargs})
        return make_bot(level, seed, **kwargs)


def away(seat: int, t: Table, now: float) -> str | None:
    """Seat 0 never moves (timeouts, then a stand-in); other humans play the first legal move."""
    if seat == 0:
        return None
    return str(t.snapshot(seat, now)["view"]["legal"][0])


def rebuild(table: Table, now: float, **kwargs: Any) -> Table:
    log = json.loads(json.dumps(table.log))  # through JSON, as the server stores it
    specs = [s.spec for s in table.seats]
    return Table.restore(
        table.match_id, table.rules, specs, table.seed, log, now, timing=table.timing, **kwargs
    )


SEATS: list[SeatSpec] = [human("Anna"), bot("profi"), human("Cleo"), bot("anfaenger")]


def test_bots_never_get_the_secret_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy()
    monkeypatch.setattr(table_module, "make_bot", spy)
    table = make_table(SEATS, seed=SECRET)
    Driver(table, act=away).run()
    assert table.seats[0].standin  # the stand-in's decisions are covered too
    seeds = [c["seed"] for c in spy.calls]
    assert len(seeds) > 20 and {c["level"] for c in spy.calls} >= {
        "profi",
        "anfaenger",
        "fortgeschritten",
    }
    for seed in seeds:
        assert isinstance(seed, str) and SECRET not in seed, seed
        assert HEX64.fullmatch(seed) and SECRET.encode().hex() not in seed, seed
    assert len(set(seeds)) == len(seeds)  # a fresh seed for every decision
    # The seed is the HMAC of the secret (one way), and not of anything else public.
    bot_entries = [e for e in table.log if e["kind"] == "bot"]
    assert seeds == [table_module.bot_seed(SECRET, e["seat"], e["v"] - 1) for e in bot_entries]
    assert table_module.bot_seed("another-secret", 1, 5) != table_module.bot_seed(SECRET, 1, 5)


@pytest.mark.parametrize("part", [0.1, 0.5, 0.9])
def test_bot_seeds_and_moves_are_the_same_after_a_restore(
    monkeypatch: pytest.MonkeyPatch, part: float
) -> None:
    seats = [human("Anna"), bot("profi"), bot("meister")]

    def new() -> Table:
        # Each reading of the fake clock is a second later: every Meister decision is cut
        # after two guesses (fast, and fixed by the seed whatever the clock's start).
        return Table(
            "m", Rules(seats=3), seats, SECRET, 0.0, bot_budget=2.0, bot_clock=StepClock(1.0)
        )

    def spied(run: Any) -> list[tuple[str, str]]:
        spy = Spy()
        monkeypatch.setattr(table_module, "make_bot", spy)
        run()
        return [(c["level"], c["seed"]) for c in spy.calls]

    total = Driver(new(), act=away)
    spied(total.run)
    cut = int(len(total.outcomes) * part)
    orig = new()
    a = Driver(orig, act=away)
    spied(lambda: [a.step() for _ in range(cut)])
    assert not orig.finished
    later = a.now + 500.0
    rest = rebuild(orig, later, bot_budget=2.0, bot_clock=StepClock(1.0))
    b = Driver(rest, now=later, act=away)
    after_orig = spied(a.run)
    after_rest = spied(b.run)
    assert after_orig and after_orig == after_rest
    assert any(level == "meister" for level, _ in after_orig)
    strip = [{k: e[k] for k in ("v", "seat", "kind", "payload")} for e in orig.log]
    assert strip == [{k: e[k] for k in ("v", "seat", "kind", "payload")} for e in rest.log]


def test_the_budget_and_clock_reach_every_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy()
    monkeypatch.setattr(table_module, "make_bot", spy)
    clock = StepClock(1.0)
    rules = Rules(seats=2)
    table = Table(
        "m", rules, [bot("meister"), bot("profi")], SECRET, 0.0, bot_budget=0.15, bot_clock=clock
    )
    Driver(table).run_until(lambda t: len(spy.calls) >= 4)
    assert all(c["budget"] == 0.15 and c["clock"] is clock for c in spy.calls)
    rest = rebuild(table, 100.0, bot_budget=0.3, bot_clock=clock)
    assert (rest.bot_budget, rest.bot_clock) == (0.3, clock)
    # No budget unless the caller gives one (the server does: Settings.bot_budget).
    plain = make_table([bot("meister"), bot("profi")])
    assert plain.bot_budget is None
    with pytest.raises(ValueError):
        Table("m", rules, [bot(), bot()], SECRET, 0.0, bot_budget=-1.0)


def test_a_budget_cut_search_gives_a_legal_and_reproducible_match() -> None:
    # The fake clock passes one second per reading: every Meister decision is cut after
    # one guess. The moves depend on the clock, so the same clock gives the same match.
    def play() -> Table:
        table = Table(
            "m",
            Rules(seats=2),
            [bot("meister"), bot("meister")],
            SECRET,
            0.0,
            bot_budget=0.5,
            bot_clock=StepClock(1.0),
        )
        return Driver(table).run()

    one, two = play(), play()
    assert one.finished and one.log == two.log
    assert any(e["kind"] == "bot" for e in one.log)
