"""Random sessions: commands, garbage, connections and time jumps keep the table sane."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_support import CONFIGS, bot, config_id, human, make_table

from domino.i18n import CATALOGUES
from domino.rules import Mode
from domino.table import Refusal, SeatSpec, Table
from domino.table.commands import BACK_COMMAND, LEAVE_COMMAND, Command, MoveCommand


def random_command(rng: random.Random, table: Table, seat: int, now: float) -> Command:
    roll = rng.random()
    if roll < 0.55:
        legal = table.snapshot(seat, now)["view"]["legal"]
        text = rng.choice(legal) if legal else "P"
        v = table.version if rng.random() < 0.9 else table.version - rng.randint(1, 3)
        return MoveCommand(text, v)
    if roll < 0.7:
        tile = f"{rng.randint(0, 7)}|{rng.randint(0, 6)} {rng.choice('LRX')}"
        return MoveCommand(rng.choice([tile, "D", "P", ""]), table.version)
    if roll < 0.8:
        return BACK_COMMAND
    if roll < 0.83:
        return LEAVE_COMMAND
    # Malformed messages never reach the table (the server's schema refuses them); a
    # well-typed command can still be nonsense: a garbage text on a version far off.
    return MoveCommand(rng.choice(["", "x", "6|6 L" * 3, "|"]), rng.choice([-1, 10**9]))


def comparable(table: Table, audience: int | None, now: float) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(json.dumps(table.snapshot(audience, now)))
    del msg["clock"]
    for s in msg["seats"]:
        del s["connected"]
    return msg


@pytest.mark.parametrize("cfg", CONFIGS[::3], ids=config_id)
def test_random_sessions_keep_the_table_consistent(cfg: tuple[Mode, int, bool]) -> None:
    mode, n, pairs = cfg
    rng = random.Random(config_id(cfg))
    seats: list[SeatSpec] = [human(f"H{i}") if i % 3 != 2 else bot("anfaenger") for i in range(n)]
    table = make_table(seats, mode=mode, pairs=pairs, seed=f"fuzz-{config_id(cfg)}")
    now = 0.0
    for _ in range(400):
        if table.finished:
            break
        before = table.version
        roll = rng.random()
        if roll < 0.5:
            now += rng.choice([0.1, 0.5, 2.0, 7.0, 25.0])
            out = table.advance(now)
        elif roll < 0.6:
            seat = rng.randrange(n)
            out = table.set_connected(seat, rng.random() < 0.5, now)
        else:
            seat = rng.randrange(n)
            out = table.command(seat, random_command(rng, table, seat, now), now)
        # Versions count up with the entries, and every message carries the new version.
        assert [e["v"] for e in out.entries] == list(range(before + 1, table.version + 1))
        # Each message carries the version it shows: in order, the last one the newest.
        versions = [msg["v"] for _, msg in out.messages]
        assert versions == sorted(versions) and all(before <= v <= table.version for v in versions)
        assert not versions or versions[-1] == table.version
        if out.error is not None:
            assert out.error.message and out.error.v == table.version
        times = [e["t"] for e in table.log]
        assert times == sorted(times) and times[-1] <= now
        wake = table.next_wakeup()
        assert (wake is None) == table.finished
        assert wake is None or wake > now  # nothing due is left unfired
    # The log alone rebuilds the same table.
    rest = Table.restore(
        table.match_id,
        table.rules,
        seats,
        table.seed,
        json.loads(json.dumps(table.log)),
        now + 100.0,
        timing=table.timing,
    )
    for a in [*range(n), None]:
        assert comparable(rest, a, now + 100.0) == comparable(table, a, now)


# -- arbitrary move texts --------------------------------------------------------
UNICODE_DIGITS = "²³¹٠٦٢۶६০੬๖០６𝟞𝟼🯶"
MOVE_ALPHABET = UNICODE_DIGITS + "0123456789|LRDPlrdpX +-_\t\n\u00a0\u3000ｌ"


def _move_texts() -> st.SearchStrategy[str]:
    half = st.sampled_from(UNICODE_DIGITS + "0123456789") | st.sampled_from(
        ["+1", " 1", "1_0", "06", "-0", "²", "٦"]
    )
    return st.one_of(
        st.text(),
        st.text(alphabet=MOVE_ALPHABET, max_size=10),
        st.builds(
            lambda a, b, e: f"{a}|{b} {e}", half, half, st.sampled_from(["L", "R", "l", "X", "ｌ"])
        ),
        st.sampled_from(["", "D", "P", "d ", "²|4 L", "٦|٢ L", "6|2\u00a0L", "6|6 L" * 2000]),
    )


KNOWN_CODES = set(CATALOGUES["de"]) - {"internal_error"}


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(_move_texts(), min_size=1, max_size=12))
def test_any_move_text_is_played_or_refused_with_a_known_code(texts: list[str]) -> None:
    # "²|4 L" used to raise a bare ValueError out of Table.command.
    table = make_table([human("A"), human("B")], seed="move-texts")
    now = 0.0
    for text in texts:
        assert table.match is not None
        seat = table.match.round.turn
        before = table.version
        now += 0.1
        out = table.command(seat, MoveCommand(text, table.version), now)
        if out.error is None:
            assert table.version > before  # a legal move was played
            continue
        err = out.error
        assert isinstance(err, Refusal) and err.code in KNOWN_CODES, err
        assert err.message and err.message != err.code and len(err.message) < 200
        assert table.version == before and not table.finished  # refused: nothing changed
    # The match goes on: a legal move is still accepted.
    assert table.match is not None
    seat = table.match.round.turn
    legal = table.snapshot(seat, now)["view"]["legal"]
    if not table.finished and legal:
        out = table.command(seat, MoveCommand(legal[0], table.version), now)
        assert out.error is None


@pytest.mark.parametrize("text", ["²|4 L", "٦|٢ L", "６|2 R", "+1|2 L", "1_0|2 L", "6|2\u00a0L"])
def test_a_move_with_a_non_ascii_digit_or_space_is_refused_as_bad_move_text(text: str) -> None:
    table = make_table([human("A"), human("B")], seed="move-texts")
    assert table.match is not None
    out = table.command(table.match.round.turn, MoveCommand(text, table.version), 0.0)
    assert out.error is not None and out.error.code == "bad_move_text"
