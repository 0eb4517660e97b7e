"""Helpers of ``domino.server.run`` that tests and the deploy guide start servers with."""

from __future__ import annotations

import socket

from domino.server.run import _ephemeral_ports, free_port


def test_a_free_port_lies_outside_the_ephemeral_range_and_can_be_bound() -> None:
    # An outgoing connection (a node's to PostgreSQL or Redis) takes its port from the
    # ephemeral range; a listener's port from there could be gone before it binds it.
    lo, hi = _ephemeral_ports()
    ports = {free_port() for _ in range(50)}
    assert len(ports) > 40  # spread, not one port handed out again and again
    for port in ports:
        assert not lo <= port <= hi, port
    with socket.socket() as s:
        s.bind(("127.0.0.1", ports.pop()))
