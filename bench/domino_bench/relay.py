"""A TCP relay that can be cut and restored: a dependency (PostgreSQL) going away.

The tests put it between a node and the machine's PostgreSQL
(tests/server/storage/test_database_away.py, tests/cluster/test_haproxy.py): :meth:`Relay.cut`
resets every open connection and closes new ones at once, as when the database host
goes away; :meth:`Relay.restore` lets connections through again.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading


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
                # A close alone does not end the pipe thread's recv() on this socket (the
                # socket lives on until it returns, and no reset goes out): shut it first.
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            with contextlib.suppress(OSError):
                s.close()

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.listener.close()
