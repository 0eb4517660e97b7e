"""Table talk across two nodes (PostgreSQL and Redis, as test_cross_node.py): lobby
chat on the players' channels, the spectators' chat on the spectators' channel, and a
block filtered on the node that delivers, wherever the sender is."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .nodes import match_on, recv_within

if TYPE_CHECKING:
    from .conftest import StartNode


def test_talk_and_blocks_cross_nodes(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    anna, first = match_on(a)
    mid = first["match_id"]
    # Spectators: Dora on node a, Carl and Eve on node b.
    dora, carl, eve = a.person("Dora"), b.person("Carl"), b.person("Eve")
    for c in (dora, carl, eve):
        c.send({"type": "watch", "match": mid})
        recv_within(c, lambda m: m["type"] == "state")
    eve.request({"type": "block", "profile": dora.profile["id"]}, "blocks")

    # Dora's message (node a) reaches Carl on node b and Anna (a player, no Paare)...
    dora.send({"type": "say", "room": "match", "match": mid, "text": "Hallo von a"})
    got = recv_within(carl, lambda m: m["type"] == "chat")["message"]
    assert (got["text"], got["name"], got["seat"]) == ("Hallo von a", "Dora", None)
    recv_within(anna, lambda m: m["type"] == "chat")
    # ... but not Eve, who blocked her: node b left her out of the same frame.
    b.settle()
    eve.drain()
    assert not [f for f in eve.frames if '"chat"' in f]

    # A reaction of Anna's (node a) reaches the spectators on node b at her seat.
    anna.send({"type": "react", "match": mid, "key": "danke"})
    r = recv_within(eve, lambda m: m["type"] == "reaction")
    assert (r["seat"], r["key"], r["sender"]) == (0, "danke", anna.profile["id"])

    # Carl's message (node b) reaches Dora on node a; Eve on b hears Carl.
    carl.send({"type": "say", "room": "match", "match": mid, "text": "Hallo von b"})

    def said(text: str) -> object:
        return lambda m: m["type"] == "chat" and m["message"]["text"] == text

    recv_within(dora, said("Hallo von b"))  # type: ignore[arg-type]
    # Eve hears Carl (the first message that reaches her at all).
    assert recv_within(eve, lambda m: m["type"] == "chat")["message"]["text"] == "Hallo von b"
    log = carl.request({"type": "talk_log", "room": "match", "match": mid}, "chat_log")
    assert [m["text"] for m in log["messages"]] == ["Hallo von a", "Hallo von b"]
    log = eve.request({"type": "talk_log", "room": "match", "match": mid}, "chat_log")
    assert [m["text"] for m in log["messages"]] == ["Hallo von b"]
    assert all(json.loads(f).get("code") != "internal_error" for f in dora.frames + carl.frames)
