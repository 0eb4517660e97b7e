"""A node that restarts or cannot serve a message is no error for the player.

- A socket closed with 1012 (service restart: a node drained for a deploy, docs/protocol.md)
  reconnects at once, without the "Verbindung wird wiederhergestellt" bar or a message, and the
  match goes on. The server here closes its sockets exactly as uvicorn's shutdown does (each
  lean socket's ``shutdown()``) but keeps listening: the balancer's other node, in one process.
- A hello refused with ``database_unavailable`` and the close 1013 (the node cannot reach its
  database) is shown in the connection bar, in the server's words, while the socket tries again
  with its growing pause; once a hello is welcomed the bar says "Verbunden".
- ``match_moved`` (another node took the match over) and ``node_draining`` (this node takes no
  new lobbies) make the client reconnect at once and send the refused message again; only a
  second refusal reaches the player. A WebSocket route in the page plays the refusing node.

The client's connection trace (``window.__dominoNet``) says how long each reconnect waited;
nothing is timed here.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webplay import (
    MY_TURN,
    TABLE,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
    playable,
    sign_in_as_guest,
    start_match,
    version,
    wait_after,
    wait_for_turn_or_end,
)

from domino.i18n import t

# Records every time the reconnect bar or a message (toast) becomes visible.
WATCH_VISIBLE = """() => {
  window.__shown = [];
  for (const id of ["conn", "toast"]) {
    const el = document.getElementById(id);
    const look = () => { if (!el.hidden) window.__shown.push(`${id}: ${el.textContent}`); };
    look();
    new MutationObserver(look).observe(el, {attributes: true, childList: true});
  }
}"""


class Node:
    """The app on uvicorn in a thread with an event loop of the test's own, so the test can
    act inside the server (close its sockets) while it runs."""

    def __init__(self, data_dir: Path) -> None:
        import uvicorn

        from domino.server import create_app
        from domino.server.run import free_port, uvicorn_config
        from domino.server.settings import Settings
        from domino.table import Timing

        settings = Settings(
            host="127.0.0.1",
            port=free_port(),
            data_dir=data_dir,
            signin_burst=float("inf"),
            timing=Timing(
                bot_delay=(0.05, 0.12), bot_step_delay=(0.03, 0.06), round_pause=4.0, grace=1.0
            ),
        )
        self.url = f"http://127.0.0.1:{settings.port}"
        self.server = uvicorn.Server(
            uvicorn_config(create_app(settings), settings, log_level="warning")
        )
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10.0
        while not self.server.started:  # uvicorn flips `started` once it listens
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.025)

    def _run(self) -> None:
        # What uvicorn's own run() does, with the loop kept for the test (the runner cancels
        # what is left of the server's tasks when it ends).
        with asyncio.Runner() as runner:
            self.loop = runner.get_loop()
            runner.run(self.server.serve())

    def restart_sockets(self) -> int:
        """Close every WebSocket as a stopping node does (1012); returns how many."""
        from domino.server.transport.rawws import SocketProtocol

        async def close_all() -> int:
            sockets = [
                c
                for c in list(self.server.server_state.connections)
                if isinstance(c, SocketProtocol) and c.upgraded
            ]
            for s in sockets:
                s.shutdown()
            return len(sockets)

        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(10)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture()
def node(tmp_path: Path, browser: Any) -> Iterator[Node]:
    n = Node(tmp_path)
    try:
        yield n
    finally:
        # The page's sockets first (they would reconnect to a stopping server).
        for ctx in list(browser.contexts):
            ctx.close()
        n.stop()


def net_trace(page: Any) -> list[str]:
    return [str(line) for line in page.evaluate("window.__dominoNet")]


def play_one(page: Any) -> None:
    """Make one legal move (the first playable tile, or Ziehen/Passen) and wait for the
    table to move on."""
    before = version(page)
    tiles = playable(page)
    if tiles:
        i, _tile, fits = tiles[0]
        page.locator(".hand .tile-btn").nth(i).click()
        if fits == "L R":  # both ends glow: play it at one of them
            page.locator(".end.glow").first.click()
    else:
        draw = page.get_by_role("button", name="Ziehen", exact=True)
        if draw.is_enabled():
            draw.click()
        else:
            page.get_by_role("button", name="Passen", exact=True).click()
    wait_after(page, before)


def test_a_restarting_node_1012_reconnects_at_once_without_an_error(
    node: Node, browser: Any
) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    sign_in_as_guest(page, node.url, "Resa")
    open_lobby_with_bots(page, ["anfaenger"])
    start_match(page)
    assert wait_for_turn_or_end(page) == "turn"
    page.evaluate(WATCH_VISIBLE)
    before = version(page)

    assert node.restart_sockets() == 1
    # Back: a new welcome after the 1012, and the seat's snapshot on the table.
    page.wait_for_function(
        "() => (window.__dominoNet || []).some(l => l.endsWith('welcome (quiet reconnect)'))"
    )
    page.wait_for_selector(MY_TURN)
    trace = net_trace(page)
    closes = [line.split(" ", 1)[1] for line in trace if " close " in f" {line}"]
    assert closes == ["close 1012: reconnect in 0 ms (quiet)"], trace
    assert page.evaluate("window.__shown") == []
    assert page.locator("#conn").is_hidden() and page.locator("#toast").is_hidden()
    assert version(page) >= before

    # The match goes on on the new socket.
    play_one(page)
    assert page.evaluate("window.__shown") == []
    assert page.locator(TABLE).get_attribute("data-phase")
    assert_no_js_errors(page)


def refusing(code: str, kind: str, times: int) -> tuple[Any, list[dict[str, Any]]]:
    """A WebSocket route: the node refuses the first ``times`` messages of type ``kind`` with
    ``code`` (the server's own German text); everything else passes to the real server."""
    refused: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == kind and len(refused) < times:
                refused.append(msg)
                error = {"type": "error", "code": code, "message": t(code), "ref": msg.get("ref")}
                ws.send(json.dumps(error))
                return
            server.send(message)

        ws.on_message(from_page)

    return route, refused


def test_a_move_refused_with_match_moved_is_sent_again_after_a_reconnect(
    server: str, browser: Any
) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    route, refused = refusing("match_moved", "move", 1)
    page.route_web_socket("**/ws", route)
    sign_in_as_guest(page, server, "Moritz")
    open_lobby_with_bots(page, ["anfaenger"])
    start_match(page)
    assert wait_for_turn_or_end(page) == "turn"
    page.evaluate(WATCH_VISIBLE)

    play_one(page)  # refused by the old owner, sent again after the reconnect, accepted
    assert len(refused) == 1 and refused[0]["ref"]
    trace = net_trace(page)
    assert any(line.endswith("match_moved for move: reconnect in 0 ms (quiet)") for line in trace)
    assert any(line.endswith("welcome (quiet reconnect)") for line in trace)
    assert page.evaluate("window.__shown") == []
    assert_no_js_errors(page)


def test_a_new_lobby_refused_by_a_draining_node_is_made_on_another(
    server: str, browser: Any
) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    route, refused = refusing("node_draining", "create_lobby", 1)
    page.route_web_socket("**/ws", route)
    sign_in_as_guest(page, server, "Dora")
    page.evaluate(WATCH_VISIBLE)
    page.get_by_test_id("create-lobby").click()
    page.locator(".lobby-seats").wait_for()
    assert len(refused) == 1
    trace = net_trace(page)
    assert any(
        line.endswith("node_draining for create_lobby: reconnect in 0 ms (quiet)") for line in trace
    )
    assert page.evaluate("window.__shown") == []
    assert_no_js_errors(page)


def test_a_second_refusal_is_shown_to_the_player(server: str, browser: Any) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    route, refused = refusing("node_draining", "create_lobby", 2)
    page.route_web_socket("**/ws", route)
    sign_in_as_guest(page, server, "Doris")
    page.get_by_test_id("create-lobby").click()
    toast = page.locator("#toast")
    toast.wait_for()
    assert toast.text_content() == t("node_draining")
    assert len(refused) == 2 and refused[0] == refused[1]  # the same message, sent once more
    assert page.locator(".lobby-seats").count() == 0
    assert_no_js_errors(page)


def refusing_hello(code: str, times: int) -> tuple[Any, list[dict[str, Any]]]:
    """A WebSocket route: the first ``times`` hellos are refused as a node without its database
    refuses them (the error, then the close 1013); later sockets reach the real server."""
    refused: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        if len(refused) >= times:
            ws.connect_to_server()  # passes every message both ways
            return

        def from_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "hello":
                refused.append(msg)
                ws.send(json.dumps({"type": "error", "code": code, "message": t(code)}))
                ws.close(code=1013)

        ws.on_message(from_page)

    return route, refused


def test_a_hello_refused_while_the_database_is_away_is_shown_and_tried_again(
    server: str, browser: Any
) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    route, refused = refusing_hello("database_unavailable", 2)
    page.route_web_socket("**/ws", route)
    page.goto(server + "/")
    page.evaluate(WATCH_VISIBLE)
    page.locator("#guest-name").fill("Datia")
    page.get_by_role("button", name="Als Gast spielen").click()
    # Signed in over REST; the socket's hello is refused twice, then welcomed.
    page.wait_for_function(
        "() => (window.__dominoNet || []).some(l => l.endsWith('welcome'))", timeout=15000
    )
    assert len(refused) == 2
    shown = page.evaluate("window.__shown")
    assert f"conn: {t('database_unavailable')}" in shown, shown
    assert not [s for s in shown if s.startswith("toast:")], shown  # the bar, not a toast each time
    trace = net_trace(page)
    closes = [line.split(" ", 1)[1] for line in trace if " close " in f" {line}"]
    assert closes == ["close 1013: reconnect in 300 ms", "close 1013: reconnect in 600 ms"], trace
    page.locator("#conn", has_text=t("ui.connected")).wait_for()
    assert_no_js_errors(page)
