"""The client's files themselves: small enough, self-contained, every text from the catalogue."""

from __future__ import annotations

import re
from pathlib import Path

from domino.i18n import CATALOGUES

WEB = Path(__file__).resolve().parents[2] / "src" / "domino" / "web"


def client_files() -> list[Path]:
    return [WEB / "index.html", *sorted(WEB.glob("css/*.css")), *sorted(WEB.glob("js/*.js"))]


def test_page_weight_is_at_most_200_kb() -> None:
    total = sum(p.stat().st_size for p in client_files())
    assert total <= 200 * 1024, f"HTML+JS+CSS weigh {total} bytes"


def test_nothing_is_loaded_from_elsewhere() -> None:
    # No CDN, no web font, no remote script: the game works offline on a LAN.
    for path in client_files():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)=["']https?://""", text), path
        assert "@import url(http" not in text, path
        assert not re.search(r"""import[^;]*from\s+["']https?://""", text), path


def test_every_literal_text_key_is_known() -> None:
    fallback = (WEB / "js" / "i18n.js").read_text(encoding="utf-8")
    known = set(re.findall(r'^\s*"([\w.]+)":', fallback, re.MULTILINE)) | set(CATALOGUES["de"])
    used: set[str] = set()
    for path in sorted(WEB.glob("js/*.js")):
        used |= set(re.findall(r"""\btn?\(\s*"([\w.]+)\"""", path.read_text(encoding="utf-8")))
    assert used, "no t() calls found"
    assert used <= known, sorted(used - known)
