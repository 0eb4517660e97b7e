"""The client's files travel compressed and are cached by content (server/transport/assets.py).

Measured in the real browser through the DevTools protocol: the bytes on the wire of a first
visit, and what a second visit fetches again.
"""

from __future__ import annotations

from typing import Any

from webplay import new_page

#: The issue's budget for a first visit (every byte on the wire, headers included).
FIRST_VISIT_BYTES = 45 * 1024


class Wire:
    """Every HTTP response a page receives, with its bytes on the wire."""

    def __init__(self, page: Any) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Network.enable")
        self.cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
        self.requests: dict[str, dict[str, Any]] = {}
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.responseReceived", self._received)
        self.cdp.on("Network.responseReceivedExtraInfo", self._wire_status)
        self.cdp.on("Network.requestServedFromCache", self._cached)
        self.cdp.on("Network.loadingFinished", self._finished)

    def _sent(self, ev: dict[str, Any]) -> None:
        self.requests[ev["requestId"]] = {"url": ev["request"]["url"], "cached": False}

    def _received(self, ev: dict[str, Any]) -> None:
        r = self.requests.setdefault(ev["requestId"], {"url": ev["response"]["url"]})
        resp = ev["response"]
        r["status"] = resp["status"]
        r["encoding"] = {k.lower(): v for k, v in resp["headers"].items()}.get("content-encoding")
        if resp.get("fromDiskCache") or resp.get("fromPrefetchCache"):
            r["cached"] = True

    def _wire_status(self, ev: dict[str, Any]) -> None:
        # What the server really answered: a revalidated page shows as 200 in
        # responseReceived, and as its 304 only here.
        self.requests.setdefault(ev["requestId"], {})["wire"] = ev["statusCode"]

    def _cached(self, ev: dict[str, Any]) -> None:
        self.requests.setdefault(ev["requestId"], {})["cached"] = True

    def _finished(self, ev: dict[str, Any]) -> None:
        self.requests.setdefault(ev["requestId"], {})["bytes"] = ev["encodedDataLength"]

    def clear(self) -> None:
        self.requests.clear()

    def http(self) -> list[dict[str, Any]]:
        return [r for r in self.requests.values() if r.get("url", "").startswith("http")]


def _visit(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.locator("#guest-name").wait_for()
    page.wait_for_load_state("networkidle")


def test_a_first_visit_is_small_and_compressed(browser: Any, server: str) -> None:
    page = new_page(browser)
    wire = Wire(page)
    _visit(page, server)
    got = wire.http()
    total = sum(r.get("bytes", 0) for r in got)
    listing = "\n".join(f"{r.get('bytes')} {r.get('status')} {r['url']}" for r in got)
    assert total <= FIRST_VISIT_BYTES, f"{total} bytes on a first visit:\n{listing}"
    texts = [r for r in got if r["url"].split("?")[0].endswith((".js", ".css", "/", ".html"))]
    assert len(texts) >= 10, listing
    assert all(r.get("encoding") == "gzip" for r in texts), listing
    assert any("/api/i18n/de" in r["url"] for r in got), listing
    assert not page.js_errors


def test_a_second_visit_downloads_nothing_again(browser: Any, server: str) -> None:
    page = new_page(browser)
    wire = Wire(page)
    _visit(page, server)
    first = {r["url"] for r in wire.http()}
    wire.clear()
    _visit(page, server)
    again = wire.http()
    # The page itself is revalidated (304); every module, the style sheet, the icon and the
    # catalogue come from the browser's cache, named by their content.
    files = {u for u in first if "?v=" in u or u.rstrip("/") == server}
    assert len(files) >= 10, first
    fetched = [r for r in again if r["url"] in files and not r.get("cached")]
    assert all(r.get("wire") == 304 for r in fetched), fetched
    assert [r["url"].rstrip("/") for r in fetched] == [server], fetched
    assert page.locator("#guest-name").is_visible()
    assert not page.js_errors
