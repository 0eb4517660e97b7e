"""PostgreSQL away while a match runs: what players see, and that service resumes.

The node reaches the machine's PostgreSQL (DOMINO_TEST_POSTGRES) through a TCP relay
on 127.0.0.1 that the test cuts (every open connection reset, new ones closed at
once) and restores. While it is cut a move cannot be stored: it is refused with
``not_stored`` (German, in the catalogue) and nothing is acknowledged; once the
database is back the same move is accepted, stored once, with no restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from domino.i18n import t
from domino.server.db import Database

from .harness import Harness, latest_state, lobby_with_bots, start

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")


class Relay:
    """A TCP relay to PostgreSQL that can be cut and restored."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.open = False
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                # SO_LINGER 0: the peer gets a reset, as when the database host goes away.
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.close()
            except OSError:
                pass

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture
def relayed() -> Iterator[tuple[Relay, str, str]]:
    """A relay to the machine's PostgreSQL, the URL through it, a table prefix."""
    if not PG_URL:
        pytest.skip("needs PostgreSQL: set DOMINO_TEST_POSTGRES (.ci/run does)")
    from sqlalchemy.engine import make_url

    url = make_url(PG_URL)
    relay = Relay(url.host or "127.0.0.1", url.port or 5432)
    prefix = f"away{secrets.token_hex(3)}_"
    via = url.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False)
    yield relay, via, prefix
    relay.close()

    async def drop() -> None:
        db = Database(str(PG_URL), prefix)
        try:
            await db.drop()
        finally:
            await db.close()

    asyncio.run(drop())


def test_a_move_while_the_database_is_away_is_refused_and_play_resumes_after(
    tmp_path: Path, relayed: tuple[Relay, str, str]
) -> None:
    relay, url, prefix = relayed
    h = Harness(tmp_path, db_url=url, table_prefix=prefix, migrate=True)
    try:
        anna = h.person("Anna")
        lobby_with_bots(anna, 2, ["anfaenger"])
        st = start(anna)
        while not st["view"]["legal"]:
            assert h.step()
            anna.drain()
            st = latest_state(anna) or st
        mid, move, v = st["match_id"], st["view"]["legal"][0], st["v"]
        stored = len(h.tc.portal.call(h.service.db.load, mid))

        relay.cut()
        err = anna.expect_error({"type": "move", "match": mid, "move": move, "v": v}, "not_stored")
        assert err["message"] == t("not_stored") and err["v"] == v
        assert all(s["v"] <= v for s in anna.states())  # nothing acknowledged

        relay.restore()  # the database is back: the same move, no restart
        again = anna.request({"type": "move", "match": mid, "move": move, "v": v}, "state")
        assert again["v"] == v + 1
        log = h.tc.portal.call(h.service.db.load, mid)
        assert len(log) == stored + 1
    finally:
        h.close()
