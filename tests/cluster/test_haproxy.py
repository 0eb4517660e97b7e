"""Three nodes behind HAProxy (deploy/haproxy.cfg): health, a shared database, draining
(SIGTERM), a killed node (SIGKILL), a paused one (SIGSTOP), restarts.

Lobbies and matches are not shared across nodes yet (issue 11), so nothing here
plays across nodes. Every wait polls with a bound (Cluster.wait); nothing sleeps.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from domino_bench.cluster import Cluster

#: Requests through HAProxy that must reach every node (leastconn rotates among equals).
SPREAD = 30


def fresh(url: str, **kw: Any) -> httpx.Response:
    """One request on a new connection (HAProxy balances connections)."""
    return httpx.get(url, headers={"connection": "close", **kw.pop("headers", {})}, timeout=10)


def guest(c: Cluster, name: str) -> dict[str, Any]:
    r = httpx.post(c.url + "/api/guest", json={"name": name}, timeout=10)
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def hello(c: Cluster, ws: ClientConnection, token: str) -> str:
    """Sign in on a socket through HAProxy; the node it landed on."""
    ws.send(json.dumps({"type": "hello", "token": token}))
    assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    held: list[str] = []

    def one_node_holds_it() -> bool:
        held[:] = [name for name, n in c.sessions().items() if n]
        return len(held) == 1

    c.wait(one_node_holds_it, "the socket's node in HAProxy's sessions")
    return held[0]


def test_every_node_is_up_and_answers_through_haproxy(cluster: Cluster) -> None:
    assert cluster.status() == {"node1": "UP", "node2": "UP", "node3": "UP"}
    for k in (1, 2, 3):
        assert cluster.health(k).json() == {
            "ok": True,
            "protocol": 1,
            "node": f"node{k}",
            "accepting": True,
            "down": [],
        }
    seen = {fresh(cluster.url + "/api/health").json()["node"] for _ in range(SPREAD)}
    assert seen == {"node1", "node2", "node3"}
    # The page and the REST API come through the same frontend; /metrics does not.
    assert fresh(cluster.url + "/").status_code == 200
    assert fresh(cluster.url + "/metrics").status_code == 404
    assert "domino_sockets" in fresh(cluster.node_url(1) + "/metrics").text


def test_a_guest_signed_in_through_haproxy_is_known_to_every_node(cluster: Cluster) -> None:
    signed = guest(cluster, "Anna")
    auth = {"authorization": f"Bearer {signed['token']}"}
    for k in (1, 2, 3):
        me = fresh(cluster.node_url(k) + "/api/me", headers=auth)
        assert me.status_code == 200, (k, me.text)
        assert me.json()["profile"]["id"] == signed["profile"]["id"]
        assert me.json()["profile"]["name"] == "Anna"


def test_a_node_counts_sign_ins_per_player_address_that_haproxy_forwards(
    cluster: Cluster,
) -> None:
    # Behind HAProxy every request comes from its address: without X-Forwarded-For the
    # whole site would share one sign-in budget (burst 30, Settings.signin_burst).
    url = cluster.node_url(1) + "/api/guest"

    def sign_in(address: str) -> int:
        headers = {"x-forwarded-for": address}
        return httpx.post(url, json={"name": "Gast"}, headers=headers, timeout=10).status_code

    # The budget refills one sign-in per 5 s (Settings.signin_rate): on a slow machine the
    # burst may take longer than that, so the refusal may come a little later, never sooner.
    start = time.monotonic()
    codes = [sign_in("203.0.113.7") for _ in range(30)]
    assert codes == [201] * 30
    while (code := sign_in("203.0.113.7")) == 201:
        codes.append(code)
        refilled = int((time.monotonic() - start) * 0.2) + 1
        assert len(codes) <= 30 + refilled, "more sign-ins than the budget allows"
    assert code == 429
    assert sign_in("203.0.113.8") == 201


def test_a_draining_node_says_503_is_taken_out_and_closes_its_sockets_with_1012(
    cluster: Cluster,
) -> None:
    with connect(cluster.ws_url, origin=Origin(cluster.url), open_timeout=10) as ws:
        name = hello(cluster, ws, guest(cluster, "Ben")["token"])
        k = int(name.removeprefix("node"))
        cluster.drain(k)
        cluster.wait(lambda: cluster.health(k).status_code == 503, f"{name} answering 503")
        assert cluster.health(k).json() == {
            "ok": True,
            "protocol": 1,
            "node": name,
            "accepting": False,
            "down": [],
        }
        cluster.wait_status(k, "DOWN")
        assert cluster.node(k).alive()  # taken out by its health check, not by its exit
        # Its socket is still served, but nothing new starts there ...
        ws.send(json.dumps({"type": "create_lobby", "seats": 2}))
        answer = json.loads(ws.recv(timeout=10))
        assert answer["type"] == "error" and answer["code"] == "node_draining", answer
        assert "neu gestartet" in answer["message"]
        # ... and new connections go to the others.
        others = {fresh(cluster.url + "/api/health").json()["node"] for _ in range(SPREAD // 3)}
        assert name not in others and others
        cluster.terminate(k)
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        cluster.restart(k)
        assert cluster.health(k).json()["accepting"] is True


def test_a_killed_node_is_taken_out_and_the_site_still_answers(cluster: Cluster) -> None:
    cluster.kill(2)
    # At once, before a health check noticed: a refused connection goes to another node.
    for _ in range(SPREAD // 3):
        r = fresh(cluster.url + "/api/health")
        assert r.status_code == 200 and r.json()["node"] != "node2"
    cluster.wait_status(2, "DOWN")
    assert guest(cluster, "Cem")["profile"]["name"] == "Cem"
    cluster.restart(2)
    cluster.wait(
        lambda: fresh(cluster.url + "/api/health").json()["node"] == "node2",
        "node2 back in the rotation",
    )


def test_a_paused_node_is_taken_out_and_comes_back_when_resumed(cluster: Cluster) -> None:
    cluster.stop(3)
    try:
        cluster.wait_status(3, "DOWN")  # its checks time out (Cluster.check_timeout)
        assert fresh(cluster.url + "/api/health").json()["node"] != "node3"
    finally:
        cluster.cont(3)
    cluster.wait_status(3, "UP")


def test_a_node_that_cannot_reach_the_database_leaves_the_rotation_until_it_can(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    from sqlalchemy.engine import make_url

    from domino_bench.relay import Relay

    from .conftest import PG_URL, new_cluster

    if not PG_URL:
        pytest.skip("needs PostgreSQL: set DOMINO_TEST_POSTGRES (.ci/run does)")
    url = make_url(PG_URL)
    relay = Relay(url.host or "127.0.0.1", url.port or 5432)
    via = url.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False)
    # node2 reaches PostgreSQL through the relay, node1 directly.
    try:
        with new_cluster(
            tmp_path_factory, n=2, node_extra=lambda k: ["--db", via] if k == 2 else []
        ) as c:
            c.wait_status(2, "UP")
            relay.cut()
            c.wait(lambda: c.health(2).status_code == 503, "node2 answering 503")
            body = c.health(2).json()
            assert body["down"] == ["database"] and body["ok"] is False
            assert body["error"]["code"] == "database_unavailable"
            c.wait_status(2, "DOWN")
            assert c.status()["node1"] == "UP"
            # Everything new goes to node1, which serves.
            seen = {fresh(c.url + "/api/health").json()["node"] for _ in range(SPREAD // 3)}
            assert seen == {"node1"}
            assert guest(c, "Ida")["profile"]["name"] == "Ida"

            relay.restore()
            c.wait_status(2, "UP")
            assert c.health(2).json()["down"] == []
    finally:
        relay.close()
