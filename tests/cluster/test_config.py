"""deploy/haproxy.cfg as the cluster tests render it (no nodes needed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from domino.loadtest.cluster import (
    HAPROXY_CFG,
    Cluster,
    ClusterError,
    haproxy_binary,
    render_config,
)


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
