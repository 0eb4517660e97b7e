"""The wire encoding: the same text as the standard library's, shared parts included.

State messages hold parts that many messages share (:mod:`domino.table.snapshot`);
the encoder keeps each part's text on it. These tests play whole matches and check
every message of every move against ``json.dumps``, and every audience's snapshot
against one built without the kept parts: a part reused after it changed (a seat that
went away, a round's new points) would show as a difference.
"""

from __future__ import annotations

import enum
import json
import random
from collections import OrderedDict
from typing import Any

import pytest

from domino.rules import Mode, Rules
from domino.server.transport.conn import encode
from domino.table import MoveCommand, SeatSpec, Table
from domino.table.snapshot import Shared, SharedDict


def plain(msg: dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def check(messages: list[tuple[int | None, dict[str, Any]]], lobby: dict[str, Any]) -> int:
    for _, msg in messages:
        for m in (msg, {**msg, "lobby": lobby}):
            assert encode(m) == plain(m)
    return len(messages)


def check_fresh(t: Table, now: float) -> None:
    """Every audience's snapshot, from the table's kept parts, as built from nothing."""
    for a in [*range(t.rules.seats), None]:
        kept = encode(t.snapshot(a, now))
        parts = t.parts_cache
        t.parts_cache = {}
        assert kept == plain(t.snapshot(a, now))
        t.parts_cache = parts


@pytest.mark.parametrize(
    ("mode", "seats", "pairs"),
    [(Mode.KLASSISCH, 4, False), (Mode.FUENFERFIEBER, 4, True), (Mode.ZUGEMAUERT, 2, False)],
)
def test_every_message_of_whole_matches_encodes_as_the_standard_library_does(
    mode: Mode, seats: int, pairs: bool
) -> None:
    rng = random.Random(f"{mode}{seats}")
    lobby = {"code": "ABCD", "name": "Tisch"}
    for game in range(3):
        specs = [SeatSpec("human", f"Spieler {i}", player_id=f"p{i}") for i in range(seats)]
        t = Table(f"m{game}", Rules.preset(mode, seats=seats, pairs=pairs), specs, f"s{game}", 0.0)
        now, sent = 0.0, 0
        while not t.finished and now < 20_000:
            now += 2.0
            sent += check(t.advance(now).messages, lobby)
            m = t.match
            assert m is not None
            if m.round.over:
                continue
            seat = m.round.turn
            if rng.random() < 0.05:  # seats come and go: the seats part must follow
                sent += check(t.set_connected(seat, False, now).messages, lobby)
                sent += check(t.set_connected(seat, True, now).messages, lobby)
            if rng.random() < 0.02:
                t.rename(seat, f"Neu {rng.randrange(100)}")
            snap = t.snapshot(seat, now)
            assert encode(snap) == plain(snap)
            legal = snap["view"]["legal"]
            if legal:
                out = t.command(seat, MoveCommand(rng.choice(legal), t.version), now)
                assert out.error is None
                sent += check(out.messages, lobby)
            check_fresh(t, now)
        assert t.finished
        assert sent > 50


def test_a_shared_part_is_encoded_once_and_other_subclasses_as_their_base_type() -> None:
    class Colour(enum.StrEnum):
        RED = "rot"

    class Number(enum.IntEnum):
        THREE = 3

    part = Shared([{"a": 1}, [2, 3]])
    table = SharedDict({"x": part})
    msg = {
        "part": part,
        "again": part,
        "table": table,
        "colour": Colour.RED,
        "number": Number.THREE,
        "ordered": OrderedDict(b=1, a=2),
        "flag": True,
    }
    assert encode(msg) == plain(msg)
    assert part.wire is not None and table.wire is not None
    # The text is kept: encoding again gives the same, from the kept text.
    kept = part.wire
    assert encode(msg) == plain(msg)
    assert part.wire is kept
