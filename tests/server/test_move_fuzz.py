"""Arbitrary move texts through a real socket: a played move or a clear error, never
``internal_error``, and the match goes on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domino.i18n import CATALOGUES

from .harness import Harness, harness, lobby_with_bots

UNICODE_DIGITS = "²³¹٠٦٢۶६০੬๖០６𝟞𝟼🯶"
KNOWN_CODES = set(CATALOGUES["de"]) - {"internal_error"}

half = st.sampled_from(UNICODE_DIGITS + "0123456789") | st.sampled_from(["+1", " 1", "1_0", "06"])
# At most 16 characters: longer texts are refused by the protocol before the table sees them.
move_texts = st.one_of(
    st.text(max_size=16),
    st.text(alphabet=UNICODE_DIGITS + "0123456789|LRDPlrX +-_\t\u00a0ｌ", max_size=16),
    st.builds(lambda a, b, e: f"{a}|{b} {e}", half, half, st.sampled_from(["L", "R", "r", "ｌ"])),
    st.sampled_from(["", "D", "P", "²|4 L", "٦|٢ L", "6|2\u00a0L", "6|6 L"]),
)


@pytest.fixture
def roomy(tmp_path: Path) -> Iterator[Harness]:
    """A server whose sign-in budget lets every example sign in a new guest."""
    with harness(tmp_path, signin_burst=10_000.0) as hh:
        yield hh


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(texts=st.lists(move_texts, min_size=1, max_size=6))
def test_any_move_text_gets_a_state_or_a_known_error_never_internal_error(
    roomy: Harness, texts: list[str]
) -> None:
    h = roomy
    anna = h.person("Anna")  # a new guest and match per example, same server
    lobby_with_bots(anna, 2, ["anfaenger"])
    mid = anna.request({"type": "start"}, "match_started")["match"]
    anna.recv_until(lambda m: m["type"] == "state" and m["match_id"] == mid)
    for text in texts:
        v = h.service.runners[mid].table.version
        anna.send({"type": "move", "match": mid, "move": text, "v": v})
        reply = anna.recv_until(
            lambda m, v=v: (
                m.get("match_id", m.get("match")) == mid
                and (m["type"] == "error" or (m["type"] == "state" and m["v"] > v))
            )
        )
        if reply["type"] == "state":
            continue  # the text was a legal move
        assert reply["code"] in KNOWN_CODES, reply
        assert reply["message"] and reply["message"] != reply["code"]
        assert h.service.runners[mid].table.version == v
    runner = h.service.runners[mid]
    assert not runner.broken and not runner.table.finished
    assert anna.request({"type": "ping"}, "pong")  # the socket is still open
    anna.close()
