"""Draining (SIGTERM, docs/deploy.md): health says 503, no new lobbies or matches."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import uvicorn
from fastapi import FastAPI

from domino.server.clock import FakeClock
from domino.server.run import HAND_OVER_BOUND, SHUTDOWN_WAIT, NodeServer, stop_bound
from domino.server.service import STOP_WAIT

from .harness import Harness


def test_health_names_the_node_and_says_it_takes_matches(h: Harness) -> None:
    r = h.tc.get("/api/health")
    assert r.status_code == 200
    assert r.json() == {
        "ok": True,
        "protocol": 1,
        "node": h.service.node,
        "accepting": True,
        "down": [],
    }


def test_a_draining_node_answers_503_and_refuses_new_lobbies_and_matches(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]
    ben.request({"type": "join_lobby", "code": lobby["code"]}, "lobby")
    h.tc.portal.call(h.service.drain)
    r = h.tc.get("/api/health")
    assert r.status_code == 503
    assert r.json()["accepting"] is False and r.json()["ok"] is True
    # What is here goes on (the lobby, its members' sockets), nothing new starts.
    anna.expect_error({"type": "start"}, "node_draining")
    ben.request({"type": "leave_lobby"}, "lobby_left")
    ben.expect_error({"type": "create_lobby", "seats": 2}, "node_draining")
    assert ben.request({"type": "list_lobbies"}, "lobby_list")
    assert h.service.runners == {}


# -- the timing of a stop (NodeServer, docs/deploy.md "SIGTERM") ---------------------------
class SlowHandOver:
    """A service whose drain (the hand-over) ends when the test says so, on a fake clock."""

    def __init__(self) -> None:
        self.clock = FakeClock(0.0)
        self.handed = asyncio.Event()
        self.started = asyncio.Event()
        self.cancelled = False

    async def drain(self) -> None:
        self.started.set()
        try:
            await self.handed.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise


async def until_exit(server: NodeServer, also: Callable[[], bool] = lambda: True) -> None:
    """Let the loop run what is ready (no time passes: the clock is fake) until the
    server is told to exit (and ``also`` holds), or nothing more happens."""
    for _ in range(50):
        if server.should_exit and also():
            return
        await asyncio.sleep(0)


def node_server(service: SlowHandOver, grace: float) -> NodeServer:
    app = FastAPI()
    return NodeServer(uvicorn.Config(app), service, grace)  # type: ignore[arg-type]


async def test_the_grace_runs_from_the_sigterm_alongside_the_hand_over() -> None:
    service = SlowHandOver()
    server = node_server(service, grace=6.0)
    stop = asyncio.ensure_future(server._drain_then_exit())
    await service.started.wait()  # the SIGTERM came at 0.0
    service.clock.advance(4.0)
    service.handed.set()  # the hand-over took 4 s
    await until_exit(server)
    assert not server.should_exit  # the grace is not over: 4 of 6 s
    service.clock.advance(2.0)
    await until_exit(server)
    assert server.should_exit  # 6 s after the SIGTERM, not 4 + 6
    await stop


async def test_a_hand_over_longer_than_the_grace_is_waited_for_up_to_its_bound() -> None:
    service = SlowHandOver()
    server = node_server(service, grace=3.0)
    stop = asyncio.ensure_future(server._drain_then_exit())
    await service.started.wait()  # the SIGTERM came at 0.0
    service.clock.advance(5.0)
    await until_exit(server)
    assert not server.should_exit  # the matches are still moving
    service.clock.advance(2.0)
    service.handed.set()
    await until_exit(server)
    assert server.should_exit  # at 7 s, when the hand-over ended
    await stop


async def test_a_hand_over_that_hangs_is_cut_at_its_bound() -> None:
    service = SlowHandOver()
    server = node_server(service, grace=6.0)
    stop = asyncio.ensure_future(server._drain_then_exit())
    await service.started.wait()  # the SIGTERM came at 0.0
    service.clock.advance(HAND_OVER_BOUND - 0.5)
    await until_exit(server)
    assert not server.should_exit
    service.clock.advance(0.5)
    await until_exit(server, lambda: service.cancelled)
    assert server.should_exit and service.cancelled
    await stop
    # The whole stop fits the unit's TimeoutStopSec (deploy/domino@.service, grace 6).
    assert stop_bound(6.0) == HAND_OVER_BOUND + SHUTDOWN_WAIT + STOP_WAIT
    assert stop_bound(30.0) == 30.0 + SHUTDOWN_WAIT + STOP_WAIT
