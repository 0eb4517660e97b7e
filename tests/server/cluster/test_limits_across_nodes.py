"""Talk's and invitations' budgets across two nodes (PostgreSQL and Redis, as
test_talk_across_nodes.py): a sender with one socket on node a and one on node b has one
budget, not one per node (cluster/ratelimit.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from domino.i18n import t
from domino.server.desks import invites
from domino.server.desks.talktext import CHAT_LIMITS

from ..harness import Client, Harness
from .nodes import match_on, recv_within

if TYPE_CHECKING:
    from .conftest import StartNode


def _say(mid: str, text: str) -> dict[str, Any]:
    return {"type": "say", "room": "match", "match": mid, "text": text}


def _refused(
    c: Client, msg: dict[str, Any], code: str, taken: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Send ``msg``: its answer (within a bound) must be the error ``code``, not the frame
    that shows it was taken (``taken``)."""
    c.send(msg)
    m = recv_within(c, lambda m: m["type"] == "error" or taken(m))
    assert m["type"] == "error" and m["code"] == code, m
    assert m["message"] and m["message"] != code
    return m


def _chat(text: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "chat" and m["message"]["text"] == text


def _twice(a: Harness, b: Harness, name: str) -> tuple[Client, Client]:
    """One person with a socket on node a and another on node b."""
    on_a = a.person(name)
    return on_a, b.connect(on_a.token, name)


def test_a_senders_talk_has_one_budget_on_every_node(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    _anna, first = match_on(a)
    mid = first["match_id"]
    dora_a, dora_b = _twice(a, b, "Dora")
    for c in (dora_a, dora_b):
        c.send({"type": "watch", "match": mid})
        recv_within(c, lambda m: m["type"] == "state")

    # Five messages in 10 s, spent on both nodes (three on a, two on b) ...
    seconds, count = CHAT_LIMITS[0]
    for i in range(count):
        c = (dora_a, dora_b)[i % 2]
        text = f"Nachricht {i}"
        c.send(_say(mid, text))
        recv_within(c, _chat(text))
    # ... and the sixth is refused on either (with per-node budgets b had three left).
    err = _refused(dora_b, _say(mid, "zu viel"), "talk_too_fast", _chat("zu viel"))
    assert err["message"] == t("talk_too_fast", n=round(seconds))
    _refused(dora_a, _say(mid, "zu viel auf a"), "talk_too_fast", _chat("zu viel auf a"))

    # A reaction on a spends the one every 2 s on b too.
    dora_a.send({"type": "react", "match": mid, "key": "danke"})
    recv_within(dora_a, lambda m: m["type"] == "reaction" and m["key"] == "danke")
    err = _refused(
        dora_b,
        {"type": "react", "match": mid, "key": "hallo"},
        "reaction_too_fast",
        lambda m: m["type"] == "reaction" and m["key"] == "hallo",
    )
    assert err["message"] == t("reaction_too_fast", n=2)

    # Time passes on both nodes' clocks: the budget is back.
    for h in (a, b):
        h.clock.advance(seconds)
    dora_b.send(_say(mid, "wieder da"))
    recv_within(dora_b, _chat("wieder da"))


def _sent(pid: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "invite_sent" and m["profile"] == pid


def _invite_anyone(monkeypatch: pytest.MonkeyPatch, *nodes: Harness) -> None:
    """Every two profiles played together (the nodes' database says so)."""

    async def played_with(me: str, them: str) -> bool:
        return True

    for h in nodes:
        monkeypatch.setattr(h.service.db, "played_with", played_with)


def test_a_senders_invitations_have_one_budget_on_every_node(
    start_node: StartNode, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = start_node("a")
    b = start_node("b")
    _invite_anyone(monkeypatch, a, b)
    anna_a, anna_b = _twice(a, b, "Anna")
    anna_a.request({"type": "create_lobby", "seats": 4}, "lobby")

    # Ben (a socket on each node) invited from a may not be invited again from b at once.
    ben_a, _ben_b = _twice(a, b, "Ben")
    ben = ben_a.profile["id"]
    anna_a.request({"type": "invite", "profile": ben}, "invite_sent")
    err = _refused(anna_b, {"type": "invite", "profile": ben}, "invite_again", _sent(ben))
    assert err["message"] == t("invite_again", player="Ben")

    # Four more on both nodes (each invitee online on the node asked) fill the burst ...
    assert invites.BURST == 5
    guests = [h.person(f"Gast {i}") for i, h in enumerate((a, b, a, b, b))]
    for g, anna in zip(guests[:4], (anna_a, anna_b, anna_a, anna_b), strict=True):
        anna.request({"type": "invite", "profile": g.profile["id"]}, "invite_sent")
    # ... and the sixth is refused (with per-node budgets b had sent two of five).
    last = guests[4].profile["id"]
    err = _refused(anna_b, {"type": "invite", "profile": last}, "invite_too_many", _sent(last))
    assert err["message"] == t("invite_too_many")
