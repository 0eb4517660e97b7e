"""The match runner's narrow doors: the fenced entry store, the router, the callbacks.

A runner that lost its match (another owner claimed it) is refused by the store,
acknowledges nothing and stops acting; the router hands each audience only its
own messages; and the runner works without the service at all.
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

from domino.rules import Rules
from domino.server import FakeClock
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.doors import StaleFence
from domino.server.desks.matches import MatchEnv, MatchHooks, MatchRunner
from domino.server.transport.conn import Conn
from domino.table import SeatSpec, Table

from ..harness import Client, Harness, harness, latest_state, lobby_with_bots, start, tiles_in


def _my_turn(h: Harness, anna: Client) -> dict[str, Any]:
    """Let the bot play until Anna has a legal move; her latest state."""
    for _ in range(50):
        h.settle()
        anna.drain()
        st = latest_state(anna)
        if st is not None and st["you"] == st["view"]["turn"] and st["view"]["legal"]:
            return st
        assert h.step()
    raise AssertionError("never Anna's turn")


def test_a_second_claim_fences_out_the_runner(h: Harness) -> None:
    anna, zoe = h.person("Anna"), h.person("Zoe")
    lobby = lobby_with_bots(anna, 2, ["anfaenger"])
    zoe.request({"type": "join_lobby", "code": lobby["code"], "watch": True}, "lobby")
    mid = start(anna)["match_id"]
    st = _my_turn(h, anna)
    runner = h.service.runners[mid]
    # Another process takes the match over (its claim increments the fence).
    fence = h.tc.portal.call(h.service.db.claim, mid, "another-node")
    assert fence == runner.fence + 1
    zoe.drain()
    move = st["view"]["legal"][0]
    err = anna.expect_error(
        {"type": "move", "match": mid, "move": move, "v": st["v"]}, "match_moved"
    )
    assert err["match"] == mid and "anderen Server" in err["message"]
    h.settle()
    # Nothing acknowledged: no state for the move, nothing stored, for nobody.
    assert [m for m in anna.drain() if m["type"] == "state"] == []
    assert [m for m in zoe.drain() if m["type"] == "state"] == []
    log = h.tc.portal.call(h.service.db.load, mid)
    assert len(log) == st["v"]
    # The runner stops acting: no clock of it fires any more, every command is refused.
    assert runner.moved and runner.broken and h.service.next_wakeup() is None
    h.clock.advance(3600.0)
    h.settle()
    assert anna.drain() == [] and zoe.drain() == []
    assert h.tc.portal.call(h.service.db.load, mid) == log
    anna.expect_error({"type": "move", "match": mid, "move": move, "v": st["v"]}, "match_moved")
    anna.expect_error({"type": "sync", "match": mid}, "match_moved")


def test_a_second_process_on_the_same_database_fences_out_the_first(tmp_path: Path) -> None:
    clock = FakeClock()
    with harness(tmp_path, clock=clock) as h1:
        anna = h1.person("Anna")
        lobby_with_bots(anna, 2, ["anfaenger"])
        mid = start(anna)["match_id"]
        st = _my_turn(h1, anna)
        with harness(tmp_path, clock=clock) as h2:  # resumes (and claims) every match
            assert h2.service.runners[mid].fence == h1.service.runners[mid].fence + 1
            anna.expect_error(
                {"type": "move", "match": mid, "move": st["view"]["legal"][0], "v": st["v"]},
                "match_moved",
            )
            # The new owner serves the same seat at the same version.
            again = h2.connect(anna.token, "Anna")
            snap = again.recv_type("state")
            assert snap["v"] == st["v"] and snap["view"]["hand"] == st["view"]["hand"]
            again.request(
                {"type": "move", "match": mid, "move": st["view"]["legal"][0], "v": st["v"]},
                "state",
            )


# -- the router ------------------------------------------------------------------------


def test_the_router_delivers_to_one_audience_only() -> None:
    router = InProcessRouter()
    a1, a2, b, watcher = Conn("pa", "A"), Conn("pa", "A"), Conn("pb", "B"), Conn("pz", "Z")
    assert router.add_socket(a1) and not router.add_socket(a2) and router.add_socket(b)
    router.add_socket(watcher)
    router.watch("m1", watcher)
    watcher.watching.add("m1")
    router.to_player("pa", {"type": "state", "you": 0, "hand": ["6|6"]})
    router.to_spectators("m1", {"type": "state", "you": None})
    router.to_spectators("m2", {"type": "state", "you": None})  # nobody watches m2
    router.to_player("nobody", {"type": "state"})

    def queued(c: Conn) -> list[str | None]:
        return [c.outbox.get_nowait() for _ in range(c.outbox.qsize())]

    sa1, sa2 = queued(a1), queued(a2)
    assert sa1 == sa2 == ['{"type":"state","you":0,"hand":["6|6"]}']
    assert sa1[0] is sa2[0]  # encoded once for the audience
    assert queued(b) == []
    assert queued(watcher) == ['{"type":"state","you":null}']
    # A closed socket stops hearing its audiences; the last one of a profile says so.
    assert not router.remove_socket(a1) and router.remove_socket(a2)
    assert router.remove_socket(watcher) and router.watchers("m1") == set()
    router.to_player("pa", {"type": "state"})
    assert queued(a1) == [] and queued(a2) == []


class _Store:
    """An entry store in memory (the runner needs no database)."""

    def __init__(self) -> None:
        self.log: dict[str, list[dict[str, Any]]] = {}
        self.fence: dict[str, int] = {}

    async def claim(self, match_id: str, owner: str) -> int:
        self.fence[match_id] = self.fence.get(match_id, 0) + 1
        return self.fence[match_id]

    async def append(
        self, match_id: str, start: int, entries: list[dict[str, Any]], fence: int
    ) -> None:
        if fence != self.fence.get(match_id):
            raise StaleFence(match_id, fence, self.fence.get(match_id))
        log = self.log.setdefault(match_id, [])
        assert len(log) == start
        log.extend(entries)

    async def load(self, match_id: str) -> list[dict[str, Any]]:
        return list(self.log.get(match_id, []))


class _Recorder:
    """A router that records who each message was published to."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    def to_player(self, profile: str, msg: dict[str, Any], match: str = "") -> None:
        self.sent.append(("player", profile, msg))

    def to_spectators(self, match_id: str, msg: dict[str, Any], *, frame: bool = False) -> None:
        self.sent.append(("spectators", match_id, msg))


async def test_the_runner_publishes_each_seat_to_its_player_only() -> None:
    clock, store, router = FakeClock(), _Store(), _Recorder()
    finished: list[MatchRunner] = []

    async def nothing(*_: Any) -> None:
        return None

    async def done(r: MatchRunner) -> None:
        finished.append(r)

    hooks = MatchHooks(
        finishing=nothing, finished=done, left=nothing, activity=nothing, online=lambda _: False
    )
    env = MatchEnv(store=store, router=router, hooks=hooks, clock=clock)
    specs = [SeatSpec("human", "Anna", player_id="pa"), SeatSpec("human", "Ben", player_id="pb")]
    table = Table("m1", Rules(seats=2), specs, "seed", clock.now())
    store.log["m1"] = list(table.log)
    runner = MatchRunner(env, table, None, clock.now(), await store.claim("m1", "me"))
    await runner.sync_connected(0)  # Anna is away: every audience hears of it
    by_audience = {(kind, key): msg for kind, key, msg in router.sent}
    assert set(by_audience) == {("player", "pa"), ("player", "pb"), ("spectators", "m1")}
    assert len(router.sent) == 3
    anna, ben = by_audience[("player", "pa")], by_audience[("player", "pb")]
    spectators = by_audience[("spectators", "m1")]
    assert (anna["you"], ben["you"], spectators["you"]) == (0, 1, None)
    # Each seat's message shows its own tiles and the line's, nothing else.
    hand_a, hand_b = tiles_in(anna["view"]["hand"]), tiles_in(ben["view"]["hand"])
    line = tiles_in(spectators["view"]["line"])
    assert hand_a and hand_b and not hand_a & hand_b
    assert tiles_in(anna) == hand_a | line and tiles_in(ben) == hand_b | line
    assert tiles_in(spectators) == line and spectators["view"]["hand"] is None
    # A player who left hears nothing more; a stale fence stops the runner.
    router.sent.clear()
    runner.left.add(1)
    await store.claim("m1", "other")
    runner.start()
    clock.advance(3600.0)
    await asyncio.sleep(0)
    await runner.stop()
    assert runner.moved and router.sent == [] and finished == []


def test_the_runner_never_imports_the_service() -> None:
    # Everything domino.server.desks.matches imports from its own package, transitively: no
    # service, no desk (the runner sees the server only through its doors).
    package = Path(__file__).parents[3] / "src" / "domino" / "server"

    def imports(module: str) -> set[str]:
        tree = ast.parse((package / f"{module.replace('.', '/')}.py").read_text())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                found.add(f"{module.rpartition('.')[0]}.{node.module}".lstrip("."))
            elif isinstance(node, ast.ImportFrom) and node.module == "domino.server":
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "domino.server."
            ):
                found.add((node.module or "").removeprefix("domino.server."))
        return found

    seen, todo = set(), ["desks.matches"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(imports(module))
    # The protocol's models (the runner builds its error frames with them) are no desk.
    desks = {"desks.matches", "clock", "transport.conn", "desks.doors"}
    protocol = {"protocol.server", "protocol.client", "protocol.out", "protocol.talk"}
    assert seen == desks | protocol, seen
