"""deploy/haproxy.cfg with TLS, as on a site: HAProxy ends TLS with a certificate
(a self-signed one made by ``openssl`` here), answers plain http with a redirect to
https, and a whole match is played through it (sign-in over https, the socket over
wss) against a bot. One node behind it: the balancing is tests/cluster's other
files' subject."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from domino_bench.cluster import Cluster
from domino_bench.site import Party, SiteClient, form, until_any

from .conftest import new_cluster
from .pace import FAST, LONG


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the certificate, the PEM HAProxy reads: certificate and key) for 127.0.0.1."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs openssl: make deploy-tools installs Debian's package")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    cmd = [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    cmd += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
    cmd += ["-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        cmd,
        check=True,
        capture_output=True,
    )
    pem = folder / "domino.pem"
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    return cert, pem


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, certificate: tuple[Path, Path]
) -> Iterator[Cluster]:
    with new_cluster(tmp_path_factory, n=1, extra=FAST, tls=certificate[1]) as c:
        yield c


def trust(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(certificate[0]))


def test_plain_http_is_redirected_to_https(site: Cluster) -> None:
    plain = f"http://127.0.0.1:{site.http_port}"
    r = httpx.get(plain + "/l/ABCD?x=1", timeout=10)
    assert r.status_code == 301
    # The same address on https (on a site: port 80 -> 443, the Host has no port).
    assert r.headers["location"] == f"https://127.0.0.1:{site.http_port}/l/ABCD?x=1"
    # Nothing reaches a node in plain: the game's own address refuses plain http.
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{site.port}/api/health", timeout=10)


def test_https_serves_the_site_with_hsts_and_keeps_metrics_inside(
    site: Cluster, certificate: tuple[Path, Path]
) -> None:
    assert site.url.startswith("https://")
    with httpx.Client(verify=trust(certificate), timeout=10) as http:
        r = http.get(site.url + "/api/health")
        assert r.status_code == 200 and r.json()["node"] == "node1"
        assert r.headers["strict-transport-security"].startswith("max-age=")
        assert http.get(site.url + "/").status_code == 200
        assert http.get(site.url + "/metrics").status_code == 404
    # A client that does not trust the certificate is refused by TLS itself.
    with pytest.raises(httpx.ConnectError):
        httpx.get(site.url + "/api/health", timeout=10)


async def test_a_match_is_played_to_its_end_over_https_and_wss(
    site: Cluster, certificate: tuple[Path, Path]
) -> None:
    context = trust(certificate)
    anna = SiteClient("Anna", site.url, delay=0.02, tls=context)
    async with httpx.AsyncClient(verify=context, timeout=30) as http:
        await anna.signup(http)
    try:
        await anna.open()  # wss:// through HAProxy, Origin https://127.0.0.1:PORT
        assert anna.sockets[0].url.startswith("wss://")
        party = Party(anna, [])
        await form(party, site.url, seats=2, bots=1, rules={"target": 30})
        await until_any([anna], lambda: anna.over, "the match over", LONG)
        assert anna.acked() >= 3, anna.describe()
        assert [s.close_code for s in anna.sockets[:-1]] == []  # one socket all along
        assert not [e for e in anna.errors if e.get("code") != "stale_version"], anna.errors
    finally:
        await anna.close()
