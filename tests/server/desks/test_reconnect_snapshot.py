"""Coming back to a seat, and having left it: what the socket hears first.

A reconnecting player's first snapshot already shows the own seat connected (no
second snapshot of the same version just to correct it); a player who left the
match and still sends commands for it is told ``left_match``, not ``not_seated``.
"""

from __future__ import annotations

import json
from typing import Any

from domino.i18n import t

from ..harness import Client, Harness, lobby_with_bots, start


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


def test_a_socket_that_asks_after_the_end_gets_the_last_state(h: Harness) -> None:
    # A player whose connection dropped just before the end comes back to a match that
    # is over: the welcome names no seat any more, so the page asks for the match and
    # gets its last state (the standings), as everyone saw it at the end. A stranger
    # watching gets the spectators' last state.
    import random

    from ..harness import latest_state, play_out

    anna = h.person("Anna")
    lobby_with_bots(anna, 2, ["profi"], {"target": 30})
    mid = start(anna)["match_id"]
    play_out(h, [anna], random.Random(3))
    final = latest_state(anna)
    assert final is not None and final["phase"] == "match_over"
    anna.close()
    again = h.connect(anna.token, "Anna")
    welcome = [m for m in map(json.loads, again.frames) if m["type"] == "welcome"]
    assert welcome and welcome[0].get("match") is None
    last = again.request({"type": "sync", "match": mid}, "state")
    assert last["phase"] == "match_over" and last["match_id"] == mid
    assert last["v"] == final["v"] and last["you"] == 0
    assert last["standings"] == final["standings"]
    assert last["view"]["hand"] == final["view"]["hand"]
    eva = h.person("Eva")
    seen = eva.request({"type": "watch", "match": mid}, "state")
    assert seen["phase"] == "match_over" and seen["you"] is None and seen["v"] == final["v"]
    assert seen["view"].get("hand") is None
    # Its earlier rounds too, from the stored log (the match's table is gone), to anyone.
    assert mid not in h.service.runners
    rounds = eva.request({"type": "history", "match": mid}, "earlier_rounds")["rounds"]
    assert final["view"]["round"] > 1
    assert [r["round"] for r in rounds] == list(range(1, final["view"]["round"]))
    assert rounds == again.request({"type": "history", "match": mid}, "earlier_rounds")["rounds"]
    # Nothing to stop watching (the match is gone), and an unknown match is unknown.
    eva.expect_error({"type": "unwatch", "match": mid}, "match_not_found")
    eva.expect_error({"type": "watch", "match": "m_0000000000000000"}, "match_not_found")


def _merged(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as one stream: connection news dropped, a seat's consecutive draws summed
    (the server folds draws of entries it handles in one go, which timing decides)."""
    out: list[dict[str, Any]] = []
    for e in events:
        if e["kind"] in ("connected", "disconnected"):
            continue
        last = out[-1] if out else None
        if (
            e["kind"] == "draw"
            and last is not None
            and last["kind"] == "draw"
            and (last["seat"], last.get("auto")) == (e["seat"], e.get("auto"))
        ):
            out[-1] = {**last, "count": last["count"] + e["count"]}
        else:
            out.append(dict(e))
    return out


def test_a_reload_in_round_three_gets_the_earlier_rounds_public_events(h: Harness) -> None:
    # The page of a player who reloads in round 3 rebuilds the current round from the
    # snapshot and asks for rounds 1 and 2 (`history`): it gets their public events,
    # the same the page had heard live, and nothing else.
    import random

    from ..harness import latest_state, play_out

    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 3, ["fortgeschritten"], {"target": 150}, joiners=(ben,))
    st = start(anna)
    mid = st["match_id"]
    ben.recv_type("state")
    zoe = h.person("Zoe")
    # Before round 2 there is nothing earlier.
    assert anna.request({"type": "history", "match": mid}, "earlier_rounds")["rounds"] == []

    def in_round_three() -> bool:
        s = latest_state(anna)
        return s is not None and s["view"]["round"] == 3 and s["phase"] == "playing"

    play_out(h, [anna, ben], random.Random(7), idle={1}, stop=in_round_three)
    heard = [e for s in anna.states() for e in s["events"]]
    assert heard, "Anna heard nothing"
    cut = heard.index({"kind": "round_start", "round": 3})
    anna.close()
    h.settle()
    again = h.connect(anna.token, "Anna")
    h.settle()
    snap = next(m for m in again.drain() if m["type"] == "state")
    assert snap["view"]["round"] == 3 and snap["you"] == 0
    assert {"kind": "connected", "seat": 0} in snap["events"]
    # The snapshot carries the current round only (it stays small) ...
    assert snap["view"]["history"][0]["kind"] == "open"
    assert "round_end" not in json.dumps(snap["view"]["history"])
    # ... the earlier rounds come on request.
    reply = again.request({"type": "history", "match": mid}, "earlier_rounds")
    assert reply["match"] == mid and reply["v"] >= snap["v"]
    assert [r["round"] for r in reply["rounds"]] == [1, 2]
    one, two = (r["events"] for r in reply["rounds"])
    # Round 1 starts with its opening (the live page had it from the first snapshot's
    # history), round 2 with its start; each ends with its end (and the pause after it).
    assert one[0]["kind"] == "open" and one[0] == st["view"]["history"][0]
    assert two[0] == {"kind": "round_start", "round": 2}
    assert [e["round"] for e in one if e["kind"] == "round_end"] == [1]
    assert [e["round"] for e in two if e["kind"] == "round_end"] == [2]
    # Ben's clock ran out in every turn: his turns are the server's, marked as such.
    assert any(e["kind"] == "timeout" and e["seat"] == 1 for e in one + two)
    assert any(e.get("auto") and e["seat"] == 1 for e in one + two)
    # Exactly what Anna's page heard live in those rounds (connection news aside).
    assert _merged(one[1:] + two) == _merged(heard[:cut])
    # Public only: no drawn tile, no hand, no Lager, no seed.
    for e in one + two:
        assert "tile" not in e or e["kind"] in ("open", "play"), e
        assert not {"hands", "hand", "lager", "deal", "seed", "out"} & set(e), e
    # Ben (seated) may ask; Zoe only once she watches; an unknown match is unknown.
    ask = {"type": "history", "match": mid}
    assert ben.request(ask, "earlier_rounds")["rounds"] == reply["rounds"]
    zoe.expect_error(ask, "not_watching")
    zoe.request({"type": "watch", "match": mid}, "state")
    assert zoe.request(ask, "earlier_rounds")["rounds"] == reply["rounds"]
    zoe.expect_error({"type": "history", "match": "m_0000000000000000"}, "match_not_found")
