"""Hidden information stays hidden: every frame to every client, over whole matches.

Each scenario plays a whole match over the socket (humans, bots, a spectator,
reconnects, a player whose clock runs out) and records every frame each
client received. Afterwards the stored log is replayed with the engine
(independently of the table) to know, at every version, every hand, the
line and what the round's end revealed. Then every state frame must show:
its audience's own hand exactly and no other tile except the line and the
reveal; no frame may hold a tile of another hand, of the Lager (nor its
order), of the Lager-Aus leftovers, or the seed.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from domino.rules import MatchState, Move, Rules

from .harness import (
    Client,
    Harness,
    harness,
    latest_state,
    lobby_with_bots,
    play_out,
    tiles_in,
)


def _canon(tile: str) -> str:
    a, b = tile.split("|")
    return f"{max(a, b)}|{min(a, b)}"


@dataclass
class Truth:
    """What was true at one version: every hand, the line, the reveal (if the round is over)."""

    round_no: int
    hands: list[set[str]]
    line: set[str]
    reveal: set[str]
    prev_public: set[str]


def replay(rules: Rules, seed: str, log: list[dict[str, Any]]) -> list[Truth]:
    """Truth after each entry (index v-1), by replaying the log on the engine."""
    m: MatchState | None = None
    out: list[Truth] = []
    prev_public: set[str] = set()
    for e in log:
        kind, seat, payload = e["kind"], e["seat"], e["payload"]
        if kind == "start":
            m = MatchState(rules, seed=seed)
        assert m is not None
        if kind in ("move", "bot"):
            m.apply(Move.parse(payload["move"]), seat)
        elif kind == "timeout":
            for text in payload["moves"]:
                m.apply(Move.parse(text), seat)
        elif kind == "round":
            r = m.round
            prev_public = {_canon(str(t)) for t, _, _ in r.line}
            if r.result is not None:
                prev_public |= {_canon(str(t)) for h in r.result.hands for t in h}
            m.start_round()
        elif kind == "end" and payload["reason"] == "abandoned":
            m.end_now()
        r = m.round
        reveal: set[str] = set()
        if r.result is not None:
            reveal = {_canon(str(t)) for h in r.result.hands for t in h}
        out.append(
            Truth(
                round_no=m.round_no,
                hands=[{_canon(str(t)) for t in r.hand(s)} for s in range(rules.seats)],
                line={_canon(str(t)) for t, _, _ in r.line},
                reveal=reveal,
                prev_public=set(prev_public),
            )
        )
    return out


def check_frames(
    frames: list[str], audience: int | None, truth: list[Truth], seed: str, mid: str
) -> int:
    """Assert that nothing in ``frames`` was hidden from ``audience``; return states checked."""
    checked = 0
    for raw in frames:
        assert seed not in raw and '"seed"' not in raw, raw[:200]
        msg = json.loads(raw)
        kind = msg["type"]
        if kind == "earlier_rounds":
            checked += check_history(msg, truth, mid)
            continue
        if kind == "hint_answer":
            # A hint goes to its seat alone and names only that seat's own tiles.
            assert audience is not None, ("a spectator got a hint", raw)
            assert msg["match"] == mid
            assert tiles_in(msg) <= truth[msg["v"] - 1].hands[audience], raw
            continue
        if kind == "reaction":  # table talk: a key of the fixed set, nothing of the table
            assert set(msg) == {"type", "match", "seat", "sender", "name", "key"}, msg
        if kind not in ("state", "error"):
            assert not tiles_in(msg), (kind, raw[:300])
            continue
        if kind == "error":
            v = msg.get("v")
            if v is None:
                assert not tiles_in(msg)
                continue
            tr = truth[v - 1]
            own = tr.hands[audience] if audience is not None else set()
            assert tiles_in(msg) <= own | tr.line | tr.reveal, raw
            continue
        assert msg["match_id"] == mid
        assert msg["you"] == audience, (msg["you"], audience)
        tr = truth[msg["v"] - 1]
        view = msg["view"]
        assert view["round"] == tr.round_no
        own: set[str] = set()
        if audience is None:
            assert view["hand"] is None and view["legal"] == []
        else:
            own = tr.hands[audience]
            assert {_canon(t) for t in view["hand"]} == own
            assert tiles_in(view["legal"]) <= own
        assert {_canon(t) for t, _, _ in view["line"]} == tr.line
        if view["result"] is not None:
            assert {_canon(t) for h in view["result"]["hands"] for t in h} == tr.reveal
        assert isinstance(view["lager"], int)
        body = {k: v for k, v in msg.items() if k != "events"}
        leaked = tiles_in(body) - (own | tr.line | tr.reveal)
        assert not leaked, (audience, msg["v"], leaked)
        ev_tiles = tiles_in(msg["events"])
        assert ev_tiles <= tr.line | tr.prev_public, (audience, msg["v"], msg["events"])
        for e in msg["events"]:
            if e["kind"] == "draw":
                assert "tile" not in e
        checked += 1
    return checked


def round_public(truth: list[Truth]) -> dict[int, set[str]]:
    """Per round, every tile it made public: its line at the end and its reveal."""
    out: dict[int, set[str]] = {}
    for tr in truth:
        out[tr.round_no] = tr.line | tr.reveal
    return out


def check_history(msg: dict[str, Any], truth: list[Truth], mid: str) -> int:
    """An ``earlier_rounds`` answer (to ``history``): earlier rounds only, each naming
    no tile its round did not make public (a drawn tile, the Lager, the Lager-Aus
    leftovers), no draw a tile."""
    assert msg["match"] == mid
    tr = truth[msg["v"] - 1]
    public = round_public(truth[: msg["v"]])
    for rnd in msg["rounds"]:
        assert rnd["round"] < tr.round_no, (rnd["round"], tr.round_no)
        assert set(rnd) == {"round", "events"}
        leaked = tiles_in(rnd["events"]) - public[rnd["round"]]
        assert not leaked, (rnd["round"], leaked)
        for e in rnd["events"]:
            if e["kind"] == "draw":
                assert "tile" not in e
            assert not {"hand", "hands", "lager", "deal", "order", "out"} & set(e), e
    assert [r["round"] for r in msg["rounds"]] == list(range(1, tr.round_no))
    return 1


def ask_history(h: Harness, clients: list[Client], mid: str) -> None:
    """Every client asks for the earlier rounds, as a reloaded page does."""
    for c in clients:
        c.send({"type": "history", "match": mid})
    h.settle()


def _stored(h: Harness, mid: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    async def load() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        row = await h.service.db.match(mid)
        assert row is not None
        return row, await h.service.db.match_log(mid)

    return h.tc.portal.call(load)


SCENARIOS = {
    # name: (seats, rules, bot levels, humans, idle human seats)
    "klassisch-3": (3, {"mode": "klassisch", "target": 50}, ["profi"], 2, set()),
    "blitz-2": (2, {"mode": "blitz"}, ["anfaenger"], 1, set()),
    "zugemauert-2": (2, {"mode": "zugemauert"}, [], 2, set()),
    "zugemauert-3": (3, {"mode": "zugemauert", "target": 30}, ["fortgeschritten"], 2, {1}),
    "fuenferfieber-4": (4, {"mode": "fuenferfieber"}, ["profi", "anfaenger"], 2, {1}),
    "paare-4": (
        4,
        {"mode": "klassisch", "pairs": True, "target": 50},
        ["fortgeschritten"] * 2,
        2,
        set(),
    ),
}


#: Scenarios played by accounts in a rated lobby: the ``rating`` frames are audited too.
RATED = {"klassisch-3", "paare-4"}


def account(h: Harness, name: str) -> Client:
    r = h.tc.post("/api/account", json={"name": name, "password": "geheim123"})
    assert r.status_code == 201, r.text
    return h.connect(r.json()["token"], name)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_nobody_ever_sees_a_tile_they_may_not_see(tmp_path: Path, name: str) -> None:
    seats, rules, levels, humans, idle = SCENARIOS[name]
    rng = random.Random(name)
    seeds = random.Random(f"{name}/seeds")
    with harness(tmp_path, seeds=lambda: f"{seeds.getrandbits(128):032x}") as h:
        rated = name in RATED
        players = [(account if rated else Harness.person)(h, f"P{i}") for i in range(humans)]
        spectator = h.person("Zoe")
        lobby = lobby_with_bots(players[0], seats, levels, rules, joiners=tuple(players[1:]))
        if rated:
            players[0].request({"type": "set_rated", "rated": True}, "lobby")
        spectator.request({"type": "join_lobby", "code": lobby["code"], "watch": True}, "lobby")
        players[0].request({"type": "start"}, "match_started")
        first = players[0].recv_type("state")
        mid = first["match_id"]
        audience: dict[int, int | None] = {id(c): i for i, c in enumerate(players)}
        audience[id(spectator)] = None
        # Table talk rides along: every reaction and message frame is audited below.
        for c in players:
            c.send({"type": "react", "match": mid, "key": "viel_glueck"})
            c.send({"type": "say", "room": "match", "match": mid, "text": "Viel Glück!"})
        spectator.send({"type": "say", "room": "match", "match": mid, "text": "Spannend!"})
        spectator.send({"type": "react", "match": mid, "key": "daumen"})
        for c in [*players, spectator]:
            c.send({"type": "ping"})
            c.recv_type("pong")
        # First half, then everybody reconnects (new sockets, same tokens), then the rest.
        play_out(
            h, players, rng, idle=idle, stop=lambda: (latest_state(spectator) or first)["v"] >= 12
        )
        again: list[Client] = []
        for i, c in enumerate(players):
            c.close()
            h.settle()
            n = h.connect(c.token, c.name)
            audience[id(n)] = i
            again.append(n)
        spectator.close()
        watcher = h.connect(spectator.token, "Zoe")
        audience[id(watcher)] = None
        watcher.request({"type": "watch", "match": mid}, "state")
        ask_history(h, [*again, watcher], mid)

        def round_no() -> int:
            return int((latest_state(watcher) or first)["view"]["round"])

        # The earlier rounds (history) in round 2 and 3, when the match gets there, and at
        # the end (then rebuilt from the stored log).
        for wanted in (2, 3):
            play_out(h, again, rng, idle=idle, stop=lambda w=wanted: round_no() >= w)  # type: ignore[misc]
            ask_history(h, [*again, watcher], mid)
        play_out(h, again, rng, idle=idle)
        assert (latest_state(watcher) or {}).get("phase") == "match_over"
        ask_history(h, [*again, watcher], mid)
        # The Revanche's frames (issue 23) go through the same audit: proposed by one seat,
        # heard by the others, the lobby's watchers and a spectator who follows it.
        # (Alone with bots one tap would start the next match: only with two humans.)
        if humans > 1:
            watcher.send({"type": "rematch_follow", "match": mid})
            h.settle()
            again[0].send({"type": "rematch", "match": mid})
            h.settle()
            # The second player leaves the table (the proposal is cancelled) and is
            # invited back from Zuletzt gespielt mit.
            again[1].send({"type": "leave_lobby"})
            h.settle()
            again[0].send({"type": "invite", "profile": again[1].profile["id"]})
            h.settle()
            for c in h.clients:
                c.drain()
            assert any('"rematch_state"' in f for f in watcher.frames)
            assert any('"invited"' in f for f in again[1].frames)
            assert any('"invite_sent"' in f for f in again[0].frames)
        talk = [json.loads(f) for c in h.clients for f in c.frames if '"reaction"' in f]
        assert len([m for m in talk if m["type"] == "reaction"]) >= humans + 1
        answers = [json.loads(f) for c in h.clients for f in c.frames if '"earlier_rounds"' in f]
        assert sum(1 for a in answers if a["type"] == "earlier_rounds" and a["rounds"]) >= 4
        row, log = _stored(h, mid)
        truth = replay(Rules.from_dict(row["rules"]), row["seed"], log)
        assert len(truth) == len(log) and log[-1]["kind"] == "end"
        total = 0
        for c in h.clients:
            total += check_frames(c.frames, audience[id(c)], truth, row["seed"], mid)
        # Every human and the spectator saw a whole match's worth of states.
        assert total > 2 * len(log) // 3
        # A rating change reaches each rated player's sockets and nobody else.
        ratings = {id(c): sum('"type":"rating"' in f for f in c.frames) for c in h.clients}
        for c in again:
            assert ratings[id(c)] == (1 if rated else 0)
        assert ratings[id(watcher)] == ratings[id(spectator)] == 0
        if rules.get("mode") == "zugemauert":
            assert seats * 7 < 28  # leftovers existed and were checked above


def test_hints_reach_their_seat_alone(tmp_path: Path) -> None:
    """A match in which the human asks for every hint it may: every frame of every socket
    (its second window, an opponent's, the spectator's) is audited as above, hint answers
    included; only the asking seat's sockets hear what a hint said."""
    rng = random.Random("hints")
    with harness(tmp_path) as h:
        anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
        lobby = lobby_with_bots(anna, 3, ["profi"], {"target": 30}, joiners=(ben,))
        zoe.request({"type": "join_lobby", "code": lobby["code"], "watch": True}, "lobby")
        anna.request({"type": "start"}, "match_started")
        first = anna.recv_type("state")
        mid = first["match_id"]
        asked: set[tuple[int, int]] = set()
        hints = [0, 0]
        for _ in range(3000):
            h.settle()
            for c in h.clients:
                c.drain()
            if (latest_state(zoe) or first)["phase"] == "match_over":
                break
            acted = False
            for seat, c in enumerate((anna, ben)):
                st = latest_state(c)
                if st is None or st["phase"] != "playing" or st["view"]["turn"] != st["you"]:
                    continue
                acted = True
                if (seat, st["v"]) not in asked and len(st["view"]["legal"]) > 1:
                    asked.add((seat, st["v"]))
                    c.send({"type": "hint", "match": mid, "v": st["v"]})
                    m = c.recv_until(lambda m: m["type"] in ("hint_answer", "error"))
                    hints[seat] += m["type"] == "hint_answer"
                    assert m["type"] == "hint_answer" or m["code"] == "hint_limit", m
                    break
                move = rng.choice(st["view"]["legal"])
                c.send({"type": "move", "match": mid, "move": move, "v": st["v"]})
                c.recv_until(lambda m, v=st["v"]: m["type"] == "error" or m.get("v", 0) > v)
                break
            if not acted:
                assert h.step()
        assert (latest_state(zoe) or {}).get("phase") == "match_over"
        assert min(hints) >= 2
        row, log = _stored(h, mid)
        assert sum(1 for e in log if e["kind"] == "hint") == sum(hints)
        truth = replay(Rules.from_dict(row["rules"]), row["seed"], log)
        audience = {id(anna): 0, id(ben): 1, id(zoe): None}
        for c in h.clients:
            check_frames(c.frames, audience[id(c)], truth, row["seed"], mid)
        assert not [f for f in zoe.frames if '"hint_answer"' in f]
        # Each player heard only their own hints; everyone's log told every hint.
        for seat, c in enumerate((anna, ben)):
            assert sum('"hint_answer"' in f for f in c.frames) == hints[seat]
        told = [e for f in map(json.loads, zoe.frames) if f["type"] == "state" for e in f["events"]]
        assert sum(1 for e in told if e["kind"] == "hint") == sum(hints)


def test_the_oracle_catches_a_leak() -> None:
    """The checker is not vacuous: a frame with another seat's tile fails it."""
    rules = Rules(seats=2)
    m = MatchState(rules, seed="sekret-seed-42")
    log = [{"kind": "start", "seat": None, "payload": {}, "v": 1, "t": 0.0}]
    truth = replay(rules, "sekret-seed-42", log)
    other = sorted(truth[0].hands[1])[0]
    frame = {
        "type": "state",
        "match_id": "m",
        "you": 0,
        "v": 1,
        "events": [],
        "view": {
            "round": 1,
            "hand": sorted(truth[0].hands[0]),
            "legal": [],
            "line": [[str(t), a, b] for t, a, b in m.round.line],
            "result": None,
            "lager": 0,
            "debug": other,
        },
    }
    with pytest.raises(AssertionError):
        check_frames([json.dumps(frame)], 0, truth, "sekret-seed-42", "m")
    del frame["view"]["debug"]  # type: ignore[attr-defined]
    assert check_frames([json.dumps(frame)], 0, truth, "sekret-seed-42", "m") == 1


def test_the_oracle_catches_a_hint_that_leaks() -> None:
    rules = Rules(seats=2)
    log = [{"kind": "start", "seat": None, "payload": {}, "v": 1, "t": 0.0}]
    truth = replay(rules, "sekret-seed-42", log)
    own, other = sorted(truth[0].hands[0])[0], sorted(truth[0].hands[1])[0]
    frame = {"type": "hint_answer", "match": "m", "v": 1, "move": f"{own} L", "text": own}
    assert check_frames([json.dumps(frame)], 0, truth, "sekret-seed-42", "m") == 0
    with pytest.raises(AssertionError):  # to a spectator
        check_frames([json.dumps(frame)], None, truth, "sekret-seed-42", "m")
    frame["text"] = f"{own}, und {other}"
    with pytest.raises(AssertionError):  # another seat's tile
        check_frames([json.dumps(frame)], 0, truth, "sekret-seed-42", "m")


_ = asyncio  # the portal runs the coroutines above


def test_a_match_from_the_queue_hides_every_tile_and_nobody_is_named_before_the_table(
    tmp_path: Path,
) -> None:
    """The matchmaking queue's frames (``queue``, ``queue_left``) go through the same audit
    as a lobby's match; and until the table is formed, nothing a waiting player hears
    names another waiting player (their id or name)."""
    rng = random.Random("queue")
    seeds = random.Random("queue/seeds")
    with harness(tmp_path, seeds=lambda: f"{seeds.getrandbits(128):032x}") as h:
        players = [h.person(f"Wartend{i}") for i in range(3)]
        join = {"type": "queue_join", "seats": "3", "mode": "blitz", "wait": 60}
        players[0].request(join, "queue")
        players[1].request(join, "queue")
        players[2].send(join)
        starts = [c.recv_type("match_started") for c in players]
        mid = starts[0]["match"]
        audience: dict[int, int | None] = {
            id(c): s["seat"] for c, s in zip(players, starts, strict=True)
        }
        for c in players:
            before = c.frames[: next(i for i, f in enumerate(c.frames) if '"queue_left"' in f)]
            for raw in before:
                for other in players:
                    if other is not c:
                        assert other.profile["id"] not in raw and other.name not in raw, raw
        play_out(h, players, rng)
        row, log = _stored(h, mid)
        truth = replay(Rules.from_dict(row["rules"]), row["seed"], log)
        assert log[-1]["kind"] == "end"
        total = 0
        for c in h.clients:
            assert any('"queue"' in f for f in c.frames)
            total += check_frames(c.frames, audience[id(c)], truth, row["seed"], mid)
        assert total > len(log) // 2
