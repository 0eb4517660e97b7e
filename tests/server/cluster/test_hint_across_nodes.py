"""A hint asked on a node that does not drive the match: the owner computes it and answers
that socket alone; a spectator on the asking node hears only that a hint was used."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .nodes import match_on, recv_within, until_turn

if TYPE_CHECKING:
    from .conftest import StartNode


def test_a_hint_from_another_node_is_answered_to_that_socket_alone(
    start_node: StartNode,
) -> None:
    a = start_node("a")
    b = start_node("b")
    anna, st = match_on(a)
    mid = st["match_id"]
    runner = a.service.runners[mid]
    far = b.connect(anna.token, "Anna")
    recv_within(far, lambda m: m["type"] == "state")
    carl = b.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")
    until_turn(a, mid, 0)
    v = runner.table.version
    far.send({"type": "hint", "match": mid, "v": v, "ref": "tipp"})
    got = recv_within(far, lambda m: m["type"] in ("hint_answer", "error"))
    assert got["type"] == "hint_answer", got
    assert got["v"] == v + 1 and runner.table.version == v + 1  # logged on node a
    hand = set(runner.table.snapshot(0, a.clock.now())["view"]["hand"])
    assert got["move"] in ("D", "P") or got["move"].split()[0] in hand
    # Carl (node b) hears that a hint was used, and nothing of what it said.
    told = recv_within(carl, lambda m: m["type"] == "state" and m["v"] > v)
    assert {"kind": "hint", "seat": 0} in told["events"]
    a.settle()
    b.settle()
    assert not [f for c in (carl, anna) for f in c.frames if '"hint_answer"' in f]
    assert all(json.loads(f)["type"] != "hint_answer" for f in carl.frames)
