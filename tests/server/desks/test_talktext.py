"""What table talk accepts: cleaning a text, the reactions, the per-sender limits."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from domino.i18n import CATALOGUES
from domino.server.desks.talktext import CHAT_LIMITS, REACTION_LIMITS, REACTIONS, RateLimit, clean

#: Bidi embeddings, overrides and isolates; zero-width characters; BOM; soft hyphen.
INVISIBLE = (
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u00ad"
)


def test_clean_removes_controls_and_invisible_formatting() -> None:
    assert clean("a\u202eb\u200bc\x00d\x1be") == "abcde"
    assert clean(" zwei\n\nZeilen\t\r\n ") == "zwei Zeilen"
    assert clean("Cafe\u0301") == "Café"  # NFC
    assert clean(INVISIBLE) == ""
    assert clean("<b>fett</b> https://example.org") == "<b>fett</b> https://example.org"
    assert clean("\ue000privat\U000e0001") == "privat"


@given(st.text())
def test_clean_leaves_no_invisible_or_control_character(raw: str) -> None:
    out = clean(raw)
    assert out == out.strip()
    assert "  " not in out
    for ch in out:
        assert unicodedata.category(ch)[0] != "C", repr(ch)
        assert not ch.isspace() or ch == " "
    assert clean(out) == out  # cleaning twice changes nothing


def test_every_reaction_has_text_in_both_languages() -> None:
    for key in REACTIONS:
        assert CATALOGUES["de"][f"reaction.{key}"] and CATALOGUES["en"][f"reaction.{key}"]


def test_reactions_one_per_two_seconds_and_ten_a_minute() -> None:
    limit = RateLimit(REACTION_LIMITS)
    assert limit.take("a", 0.0) == 0
    assert limit.take("a", 1.0) == 1.0  # one second to go; nothing recorded
    assert limit.take("b", 1.0) == 0  # another sender's budget
    times = [2.0 * i for i in range(1, 10)]
    assert all(limit.take("a", now) == 0 for now in times)  # ten in 18 s
    wait = limit.take("a", 20.0)
    assert wait == 40.0  # the first of the ten leaves the minute at 60 s
    assert limit.take("a", 60.0) == 0


def test_chat_five_in_ten_seconds_and_twenty_a_minute() -> None:
    limit = RateLimit(CHAT_LIMITS)
    assert [limit.take("a", 0.0) for _ in range(6)] == [0, 0, 0, 0, 0, 10.0]
    sent = 5
    now = 0.0
    while sent < 20:
        now += 2.0
        if limit.take("a", now) == 0:
            sent += 1
    assert limit.take("a", now + 2.0) > 0  # the minute's twenty are spent
    assert limit.take("a", 60.0 + 1e-6) == 0


def test_silent_senders_are_forgotten() -> None:
    limit = RateLimit(REACTION_LIMITS)
    for i in range(1000):
        limit.take(f"p{i}", 0.0)
    limit.take("late", 61.0)
    assert set(limit._seen) == {"late"}
