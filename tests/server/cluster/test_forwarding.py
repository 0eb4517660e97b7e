"""Forwarded commands without an answer (forwarding.py): what a sweep does with them."""

from __future__ import annotations

from typing import cast

from domino.server.cluster.forwarding import FORWARD_TIMEOUT, MIN_AGE, InFlight
from domino.server.transport.conn import Conn


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


CONN = cast(Conn, object())
MOVE = {"type": "move", "tile": [6, 6]}


def test_a_command_unanswered_by_a_live_owner_times_out() -> None:
    clock = Clock()
    flying = InFlight(clock)
    flying.add(CONN, "m1", MOVE, "r1", "node-b", 0)
    clock.t += FORWARD_TIMEOUT - MIN_AGE
    assert flying.due({"m1": "node-b"}) == ([], [])
    clock.t += MIN_AGE
    again, moved = flying.due({"m1": "node-b"})
    assert (again, [p.ref for p in moved]) == ([], ["r1"])
    assert not flying.open


def test_a_command_whose_owner_lost_the_match_is_sent_again() -> None:
    clock = Clock()
    flying = InFlight(clock)
    flying.add(CONN, "m1", MOVE, "r1", "node-b", 0)
    clock.t += MIN_AGE
    again, moved = flying.due({"m1": None})
    assert ([p.ref for p in again], moved) == (["r1"], [])
    # A draining node waits for the node that takes the match over.
    flying.add(CONN, "m1", MOVE, "r2", "node-b", 0)
    clock.t += MIN_AGE
    assert flying.due({"m1": None}, wait_for_holder=True) == ([], [])


def test_while_redis_is_away_commands_wait_and_their_timeout_counts_from_its_return() -> None:
    clock = Clock()
    flying = InFlight(clock)
    flying.add(CONN, "m1", MOVE, "r1", "node-b", 0)
    clock.t += 1.0
    # Redis away for far longer than the timeout: nothing is answered meanwhile (the
    # owner cannot act without its lease, the answer could not travel).
    for _ in range(30):
        clock.t += 1.0
        assert flying.due(None) == ([], [])
    assert [p.ref for p in flying.open.values()] == ["r1"]
    # Back: the owner (still holding the lease) gets the whole timeout to answer.
    clock.t += FORWARD_TIMEOUT - 1.0
    assert flying.due({"m1": "node-b"}) == ([], [])
    clock.t += 1.0
    assert [p.ref for p in flying.due({"m1": "node-b"})[1]] == ["r1"]
    # Back with the lease gone (Redis restarted empty): sent again at once.
    flying.add(CONN, "m1", MOVE, "r2", "node-b", 0)
    clock.t += 20.0
    assert flying.due(None) == ([], [])
    clock.t += MIN_AGE
    assert [p.ref for p in flying.due({"m1": None})[0]] == ["r2"]
