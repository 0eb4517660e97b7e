"""What a stranger reads of a finished match: never a tile that was out of play (RULES.md §4).

With *Lager Aus* (Zugemauert, or any mode with the Lager off) the tiles not dealt stay hidden
for good, "not even at the round's end". Bots play a whole match on the test harness; then a
real server (uvicorn on a TCP port) serves the same database and the stranger reads it over
HTTP: the match summary with its record (no token), the players' profile pages and ``/api/me``.
None of them may name a round's tiles out of play; the record still replays the match exactly.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from domino.rules.record import replay
from domino.server.service import public_record

from ..harness import harness, latest_state, lobby_with_bots, play_out, start, tiles_in

if TYPE_CHECKING:
    from live import LiveServers

TIMEOUT = 10.0  # a bound on a dead server, never a timing assertion


def keys_in(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj).union(*(keys_in(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(keys_in(v) for v in obj))
    return set()


@pytest.mark.parametrize(
    ("seats", "rules"),
    [(2, {"mode": "zugemauert", "target": 30}), (3, {"lager": False, "target": 30})],
    ids=["zugemauert-2", "lager-aus-3"],
)
def test_a_stranger_never_reads_the_tiles_out_of_play(
    tmp_path: Path, live_server: LiveServers, seats: int, rules: dict[str, object]
) -> None:
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        lobby_with_bots(anna, seats, ["profi", "anfaenger"][: seats - 1], rules)
        mid = start(anna)["match_id"]
        runner = h.service.runners[mid]  # the server's private side: the real deals
        play_out(h, [anna], random.Random(seats))
        final = latest_state(anna)
        assert final is not None and final["phase"] == "match_over"
        match = runner.table.match
        assert match is not None and not match.rules.draws
        token, pid = anna.token, anna.profile["id"]
    out_of_play = [frozenset(str(t) for t in d.out) for d in match.deals]
    assert all(len(o) == 28 - seats * 7 for o in out_of_play)
    everyone = frozenset().union(*out_of_play)

    # A real server on the same database; the stranger reads it over HTTP.
    settings = live_server.settings(data_dir=tmp_path)
    url = live_server(settings)
    web = httpx.Client(base_url=url, timeout=TIMEOUT)
    summary = web.get(f"/api/matches/{mid}")
    players = {s["player"] for s in summary.json()["players"]} - {None}
    pages = [web.get(f"/api/profiles/{p}") for p in sorted(players)]
    me = web.get("/api/me", headers={"authorization": f"Bearer {token}"})
    web.close()

    assert summary.status_code == 200, summary.text
    body = summary.json()
    record = body["record"]
    assert record["format"] == "domino-record"
    assert len(record["rounds"]) == len(out_of_play)
    assert "out" not in keys_in(body)
    # A round's leftovers are in no hand, no Lager and no move of that round: any
    # mention is a leak. (The next round deals afresh, so its hands may hold them.)
    for n, (rnd, hidden) in enumerate(zip(record["rounds"], out_of_play, strict=True), 1):
        leaked = tiles_in(rnd) & hidden
        assert not leaked, f"round {n}: tiles out of play in the record: {sorted(leaked)}"
    rest = {k: v for k, v in body.items() if k != "record"}
    rest["record"] = {k: v for k, v in record.items() if k != "rounds"}
    assert not tiles_in(rest) & everyone
    # The record still replays the match exactly, without the leftovers.
    outcome = replay(record)
    assert list(outcome.scores) == list(match.scores)
    assert len(outcome.rounds) == len(match.rounds)
    for shown, played in zip(outcome.rounds, match.rounds, strict=True):
        assert played.result is not None and shown.reason == played.result.reason
        assert list(shown.pips) == list(played.result.pips)
    for a, b in zip(outcome.match.deals, match.deals, strict=True):
        assert (a.hands, a.lager, sorted(a.out)) == (b.hands, b.lager, sorted(b.out))

    # The players' profile pages and Anna's own page name none of them either.
    assert pid in players and pages and me.status_code == 200, me.text
    for page in [*pages, me]:
        assert page.status_code == 200, page.text
        assert "out" not in keys_in(page.json())
        assert not tiles_in(page.text) & everyone
    assert mid in me.text


def test_records_stored_before_hold_no_leftovers_when_shown() -> None:
    stored = {
        "format": "domino-record",
        "version": 1,
        "rules": {"seats": 2, "mode": "zugemauert"},
        "rounds": [{"deal": {"hands": [["6|6"], ["5|5"]], "lager": [], "out": ["0|0"]}}],
    }
    shown = public_record(stored)
    assert shown is not None and "out" not in shown["rounds"][0]["deal"]
    assert stored["rounds"][0]["deal"]["out"] == ["0|0"]  # the stored one is left as it is
    # The fallback table log holds the secret seed: it is never shown.
    assert public_record({"format": "domino-table-log", "seed": "secret", "log": []}) is None
