"""A rated match's rating is stored exactly once over a takeover (issue 23).

Two nodes in one process on PostgreSQL and Redis, as in test_end_across_nodes.py.
Node a drives a rated match and dies at its end: once right after the end (result,
XP and ratings, one transaction) was stored, once just before. Node b takes the match
over: the rating is stored once, the player hears the same change on node b.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from ..harness import Client, Harness, lobby_with_bots, start
from .nodes import crash, recv_within, sweep
from .test_end_across_nodes import dies_at_the_end, play_idle_to_end

if TYPE_CHECKING:
    from .conftest import StartNode


def account(h: Harness, name: str) -> Client:
    r = h.tc.post("/api/account", json={"name": name, "password": "geheim123"})
    assert r.status_code == 201, r.text
    return h.connect(r.json()["token"], name)


def ratings_of(c: Client) -> list[dict[str, Any]]:
    c.drain()
    return [m for m in map(json.loads, c.frames) if m["type"] == "rating"]


@pytest.mark.parametrize("after_storing", [True, False], ids=["end-stored", "log-only"])
def test_a_rating_is_stored_exactly_once_over_a_takeover(
    after_storing: bool, start_node: StartNode
) -> None:
    a = start_node("a")
    b = start_node("b")
    anna = account(a, "Anna")
    pid = anna.profile["id"]
    lobby_with_bots(anna, 2, ["profi"], {"target": 30})
    anna.request({"type": "set_rated", "rated": True}, "lobby")
    mid = start(anna)["match_id"]
    far = b.connect(anna.token, "Anna")
    recv_within(far, lambda m: m["type"] == "state")
    died = dies_at_the_end(a, after_storing)

    play_idle_to_end(a, [far], stop=lambda: bool(died))
    assert died == [mid] and ratings_of(far) == []
    db = b.service.db
    stored = b.tc.portal.call(db.rating_changes, mid)
    assert bool(stored) is after_storing  # in the end's own transaction, or not at all
    anna.close()
    crash(a, mid)

    assert sweep(b) == [mid]
    heard = recv_within(far, lambda m: m["type"] == "rating")
    recv_within(far, lambda m: m["type"] == "lobby" and m["lobby"]["status"] == "open")
    b.settle()
    assert ratings_of(far) == [heard]  # once
    changes = b.tc.portal.call(db.rating_changes, mid)
    assert list(changes) == [pid]
    if after_storing:
        assert changes == stored  # what node a stored, not a second update
    assert heard["change"] == changes[pid]["change"] != 0 and heard["before"] == 1500
    mine = b.tc.portal.call(db.profile_ratings, pid)["pools"]["2"]
    assert mine["matches"] == 1 and len(mine["history"]) == 1
    assert mine["rating"] == heard["after"]
