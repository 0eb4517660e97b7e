"""Coming back to a seat, and having left it: what the socket hears first.

A reconnecting player's first snapshot already shows the own seat connected (no
second snapshot of the same version just to correct it); a player who left the
match and still sends commands for it is told ``left_match``, not ``not_seated``.
"""

from __future__ import annotations

import json
from typing import Any

from domino.i18n import t

from .harness import Client, Harness, lobby_with_bots, start


def _states(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in frames if m["type"] == "state"]


def _two_humans(h: Harness) -> tuple[Client, Client, dict[str, Any]]:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 2, [], joiners=(ben,))
    st = start(anna)
    ben.recv_type("state")
    h.settle()
    anna.drain()
    ben.drain()
    return anna, ben, st


def test_the_first_snapshot_after_a_reconnect_shows_the_seat_connected(h: Harness) -> None:
    anna, ben, st = _two_humans(h)
    mid = st["match_id"]
    anna.close()
    h.settle()
    assert not h.service.runners[mid].table.seats[0].connected
    gone = _states(ben.drain())
    assert gone and not gone[-1]["seats"][0]["connected"]

    again = h.connect(anna.token, "Anna")
    h.settle()
    assert json.loads(again.frames[0])["type"] == "welcome"  # nothing before the welcome
    states = _states(again.drain())
    assert states, "no snapshot after the reconnect"
    first = states[0]
    assert first["you"] == 0 and first["view"]["hand"]
    assert first["seats"][0]["connected"] is True
    # No second snapshot of the same version follows just to correct the first.
    assert [s["v"] for s in states].count(first["v"]) == 1, [s["v"] for s in states]
    # The others see the seat come back.
    back = _states(ben.drain())
    assert back and back[-1]["seats"][0]["connected"] is True
    assert {"kind": "connected", "seat": 0} in back[-1]["events"]


def test_a_second_window_gets_one_snapshot_and_the_first_window_none(h: Harness) -> None:
    anna, ben, _st = _two_humans(h)
    window = h.connect(anna.token, "Anna")
    h.settle()
    states = _states(window.drain())
    assert len(states) == 1
    assert states[0]["seats"][0]["connected"] is True and states[0]["events"] == []
    assert _states(anna.drain()) == [] and _states(ben.drain()) == []


def test_a_player_who_left_the_match_is_told_left_match(h: Harness) -> None:
    anna, _ben, st = _two_humans(h)
    mid = st["match_id"]
    window = h.connect(anna.token, "Anna")  # a second window of Anna's
    h.settle()
    window.drain()
    anna.send({"type": "leave_match", "match": mid})
    h.settle()
    left = _states(anna.drain())
    assert left and left[-1]["seats"][0]["left"] is True
    window.drain()
    runner = h.service.runners[mid]
    v = runner.table.version
    for c, msg in (
        (window, {"type": "move", "match": mid, "move": "D", "v": v, "ref": "w1"}),
        (window, {"type": "back", "match": mid}),
        (anna, {"type": "leave_match", "match": mid, "ref": "a1"}),
    ):
        err = c.expect_error(msg, "left_match")
        assert err["message"] == t("left_match")
        assert (err["match"], err["v"], err["ref"]) == (mid, v, msg.get("ref"))
    assert runner.table.version == v  # nothing changed
    # Watching it is still open to them, as to anyone.
    assert window.request({"type": "watch", "match": mid}, "state")["you"] is None
