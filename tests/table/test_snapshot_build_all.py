"""build_all (one shared build for every audience) equals building each audience alone."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from table_support import bot, human, make_table

from domino.rules import Mode
from domino.table import MoveCommand
from domino.table import snapshot as snap


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    seats=st.integers(2, 4),
    mode=st.sampled_from(list(Mode)),
    with_bot=st.booleans(),
    steps=st.integers(0, 80),
)
def test_build_all_equals_each_audience_built_alone(
    seed: int, seats: int, mode: Mode, with_bot: bool, steps: int
) -> None:
    specs = [human(f"h{i}") for i in range(seats)]
    if with_bot:
        specs[-1] = bot()
    t = make_table(specs, mode=mode, seed=f"s{seed}")
    rng = random.Random(seed)
    now = 0.0
    for _ in range(steps):
        if t.finished:
            break
        now += 2.0
        t.advance(now)
        m = t.match
        assert m is not None
        if m.round.over:
            continue
        seat = m.round.turn
        legal = t.snapshot(seat, now)["view"]["legal"]
        if legal and t.seats[seat].spec.kind == "human":
            t.command(seat, MoveCommand(rng.choice(legal), t.version), now)
    events = [{"kind": "play", "seat": 0}]
    audiences = [*range(seats), None]
    together = snap.build_all(t, audiences, now, events)
    alone = [(a, snap.build(t, a, now, events)) for a in audiences]
    assert [a for a, _ in together] == audiences
    for (_, x), (_, y) in zip(together, alone, strict=True):
        assert json.dumps(x) == json.dumps(y)  # same content and the same key order
