"""Read-only questions (desks/queries.py): the replay's chat as a signed-in viewer's
blocks leave it (docs/protocol.md, "Table talk")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..harness import Client, Harness, harness


def _finished_match_with_talk(h: Harness) -> tuple[str, dict[str, Client]]:
    """Anna and Ben play, Zoe watches; Ben blocked Zoe; Zoe and Anna talk; the match ends."""
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    code = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]["code"]
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    zoe.request({"type": "join_lobby", "code": code, "watch": True}, "lobby")
    ben.request({"type": "block", "profile": zoe.profile["id"]}, "blocks")
    anna.request({"type": "start"}, "match_started")
    mid = anna.recv_type("state")["match_id"]
    zoe.recv_type("state")
    zoe.request({"type": "say", "room": "match", "match": mid, "text": "Los geht's"}, "chat")
    anna.request({"type": "say", "room": "match", "match": mid, "text": "Danke!"}, "chat")
    anna.request({"type": "leave_match", "match": mid}, "state")
    ben.send({"type": "leave_match", "match": mid})
    for _ in range(200):
        if h.tc.get(f"/api/matches/{mid}/replay").status_code == 200:
            break
        h.step()
    return mid, {"anna": anna, "ben": ben, "zoe": zoe}


def _chat(h: Harness, mid: str, viewer: Client | None = None) -> list[tuple[str, str]]:
    headers = {"Authorization": f"Bearer {viewer.token}"} if viewer is not None else {}
    r = h.tc.get(f"/api/matches/{mid}/replay", headers=headers)
    assert r.status_code == 200, r.text
    replay: dict[str, Any] = r.json()
    return [(m["name"], m["text"]) for m in replay["chat"]]


def test_the_replays_chat_leaves_out_whom_the_viewer_blocked(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        mid, who = _finished_match_with_talk(h)
        both = [("Zoe", "Los geht's"), ("Anna", "Danke!")]
        assert _chat(h, mid) == both  # anonymous: the whole talk, as before
        assert _chat(h, mid, who["anna"]) == both
        # Ben blocked Zoe: her messages are not in his replay, Anna's are.
        assert _chat(h, mid, who["ben"]) == [("Anna", "Danke!")]
        # (Zoe is in a block with Ben, who said nothing: she reads the whole talk.)
        assert _chat(h, mid, who["zoe"]) == both
        # A token that is no one's is refused, as for the other optional sign-ins.
        r = h.tc.get(f"/api/matches/{mid}/replay", headers={"Authorization": "Bearer nix"})
        assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_token")
