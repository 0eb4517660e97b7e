"""The client's files themselves: small enough, self-contained, every text from the catalogue."""

from __future__ import annotations

import re
from pathlib import Path

from domino.i18n import CATALOGUES

WEB = Path(__file__).resolve().parents[2] / "src" / "domino" / "web"


def client_files() -> list[Path]:
    return [WEB / "index.html", *sorted(WEB.glob("css/*.css")), *sorted(WEB.glob("js/*.js"))]


def test_page_weight_is_at_most_320_kb() -> None:
    # Every file, the screens loaded only when shown included (the replay, the lessons, the
    # puzzles, the leaderboard, the rematch, the table talk, matchmaking: issues 23 and 24 took
    # it past the 200 KB of the first client); what a first visit loads has its own, much
    # smaller budget (test_caching.py).
    total = sum(p.stat().st_size for p in client_files())
    assert total <= 320 * 1024, f"HTML+JS+CSS weigh {total} bytes"


def test_nothing_is_loaded_from_elsewhere() -> None:
    # No CDN, no web font, no remote script: the game works offline on a LAN.
    for path in client_files():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)=["']https?://""", text), path
        assert "@import url(http" not in text, path
        assert not re.search(r"""import[^;]*from\s+["']https?://""", text), path


def test_every_text_key_the_client_uses_is_in_both_served_catalogues() -> None:
    # One catalogue only (the .po files via domino.i18n): the client has no texts of its own.
    known = set(CATALOGUES["de"]) & set(CATALOGUES["en"])
    used: set[str] = set()
    counted: set[str] = set()
    for path in sorted(WEB.glob("js/*.js")):
        text = path.read_text(encoding="utf-8")
        assert "FALLBACK" not in text, f"{path.name} keeps texts of its own"
        used |= set(re.findall(r"""\bt\(\s*"([\w.]+)\"""", text))
        counted |= set(re.findall(r"""\btn\(\s*"([\w.]+)\"""", text))
    assert used and counted, "no t()/tn() calls found"
    # Keys built at run time (the log's sentences with their "du" forms, modes, levels) and
    # the plural entries are checked in test_i18n_catalogue.py.
    needed = used | counted
    assert needed <= known, sorted(needed - known)
