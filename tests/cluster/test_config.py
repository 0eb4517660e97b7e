"""deploy/haproxy.cfg as the cluster tests render it (no nodes needed)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from domino_bench.cluster import (
    HAPROXY_CFG,
    Cluster,
    ClusterError,
    haproxy_binary,
    render_config,
)

from .conftest import cluster_redis_url


def test_rendering_writes_one_server_line_per_node_and_drops_privileges() -> None:
    text = render_config(HAPROXY_CFG.read_text(encoding="utf-8"), 5)
    servers = [line.split()[1] for line in text.splitlines() if line.strip().startswith("server ")]
    assert servers == ["node1", "node2", "node3", "node4", "node5"]
    assert 'server node5 "${DOMINO_NODE5}"' in text
    kept = {line.split()[0] for line in text.splitlines() if line.strip()}
    assert not kept & {"chroot", "user", "group"}
    # The site's own settings stay as the repository has them.
    for setting in ("balance leastconn", "option httpchk GET /api/health", "timeout tunnel"):
        assert setting in text
    with pytest.raises(ClusterError):
        render_config("global\n    maxconn 10\n", 3)


@pytest.mark.skipif(haproxy_binary() is None, reason="haproxy is not installed (make test does)")
def test_haproxy_accepts_the_repository_config_and_the_rendered_one(tmp_path: Path) -> None:
    binary = haproxy_binary()
    assert binary is not None
    # The environment a cluster of 4 gives HAProxy (nothing is started).
    cluster = Cluster("postgresql+asyncpg://unused/db", 4, folder=tmp_path)
    env = cluster.environment()
    rendered = cluster.dir / "rendered.cfg"
    rendered.write_text(render_config(HAPROXY_CFG.read_text(encoding="utf-8"), 4))
    for cfg in (HAPROXY_CFG, rendered):
        done = subprocess.run(
            [binary, "-c", "-f", str(cfg)], env=env, capture_output=True, check=False
        )
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_a_cluster_keeps_its_redis_keys_under_its_own_prefix_and_deletes_them(
    tmp_path: Path,
) -> None:
    """Runs share the machine's Redis: each cluster's nodes get a key prefix of its own, and
    closing the cluster deletes those keys and no others (nothing is started here)."""
    if not os.environ.get("DOMINO_TEST_REDIS"):
        pytest.skip("needs Redis: set DOMINO_TEST_REDIS (.ci/run does)")
    import redis

    url = cluster_redis_url()
    cluster = Cluster("postgresql+asyncpg://unused/db", 2, redis_url=url, folder=tmp_path)
    cmd = cluster.command(1)
    assert cmd[cmd.index("--redis-prefix") + 1] == cluster.redis_prefix
    assert cluster.redis_prefix.startswith(cluster.prefix)
    other = Cluster("postgresql+asyncpg://unused/db", 2, redis_url=url, folder=tmp_path)
    assert other.redis_prefix != cluster.redis_prefix
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        for c in (cluster, other):
            client.set(f"{c.redis_prefix}lease:m1", "node1", px=60_000)
            client.hset(f"{c.redis_prefix}seats", "p1", "m1 0")
        cluster.close()
        assert list(client.scan_iter(match=f"{cluster.redis_prefix}*")) == []
        assert client.hget(f"{other.redis_prefix}seats", "p1") == "m1 0"
        other.close()
        assert list(client.scan_iter(match=f"{other.redis_prefix}*")) == []
    finally:
        client.close()
