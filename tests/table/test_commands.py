"""Commands: versions, refusals in German, errors only to the sender, nothing changed."""

from __future__ import annotations

from table_support import Driver, bot, human, make_table

from domino.i18n import t as tr
from domino.rules import TILES, WITH, Move
from domino.table import (
    BACK_COMMAND,
    LEAVE_COMMAND,
    Command,
    MoveCommand,
    Refusal,
    SeatSpec,
    Table,
)


def two_humans(seed: str = "cmd") -> Table:
    return make_table([human("Anna"), human("Ben")], seed=seed)


def assert_refused(table: Table, seat: int, msg: Command, code: str) -> Refusal:
    """The command is refused with ``code``; the table does not change at all."""
    now = table.log[-1]["t"] + 0.1  # before any timer fires
    before_log = list(table.log)
    before = [table.snapshot(a, now) for a in (0, 1, None)]
    out = table.command(seat, msg, now)
    assert out.error is not None
    assert isinstance(out.error, Refusal) and out.error.code == code
    assert out.error.v == table.version
    assert out.error.message and out.error.message != code  # a German sentence
    # Errors go to the sender only: nobody else hears anything.
    assert out.messages == [] and out.entries == [] and not out.finished
    assert table.log == before_log
    assert [table.snapshot(a, now) for a in (0, 1, None)] == before
    return out.error


def to_move(table: Table) -> int:
    assert table.match is not None
    return table.match.round.turn


def test_a_move_on_the_current_version_is_accepted() -> None:
    table = two_humans()
    s = to_move(table)
    legal = table.snapshot(s, 0.5)["view"]["legal"]
    out = table.command(s, MoveCommand(legal[0], table.version), 0.5)
    assert out.error is None
    [entry] = out.entries
    assert entry == {
        "v": 2,
        "t": 0.5,
        "seat": s,
        "kind": "move",
        "payload": {"move": legal[0]},
    }
    assert table.version == 2
    assert {msg["v"] for _, msg in out.messages} == {2}


def test_stale_version_is_refused() -> None:
    table = two_humans()
    s = to_move(table)
    legal = table.snapshot(s, 0.5)["view"]["legal"]
    err = assert_refused(table, s, MoveCommand(legal[0], 0), "stale_version")
    assert err.message == tr("stale_version")
    assert_refused(table, s, MoveCommand(legal[0], 7), "stale_version")


def test_not_your_turn() -> None:
    table = two_humans()
    other = 1 - to_move(table)
    hand = table.snapshot(other, 0.5)["view"]["hand"]
    err = assert_refused(table, other, MoveCommand(f"{hand[0]} L", table.version), "not_your_turn")
    assert err.message == tr("not_your_turn")


def test_illegal_moves_get_the_engines_code_in_german() -> None:
    table = two_humans("illegal")
    m = table.match
    assert m is not None
    s = to_move(table)
    r = m.round
    v = table.version
    foreign = next(t for t in TILES if not r.hands[s] & t.mask and t not in r.hand(1 - s))
    err = assert_refused(table, s, MoveCommand(f"{foreign} L", v), "not_in_hand")
    assert err.message == tr("not_in_hand", tile=str(foreign))
    ends = WITH[r.left] | WITH[r.right]
    misfit = [t for t in r.hand(s) if not t.mask & ends]
    if misfit:
        err = assert_refused(table, s, MoveCommand(f"{misfit[0]} R", v), "does_not_fit")
        assert err.message == tr("does_not_fit")
    legal = [str(mv) for mv in r.legal_moves()]
    if any(mv != "D" for mv in legal):
        assert_refused(table, s, MoveCommand("D", v), "must_play")
        assert_refused(table, s, MoveCommand("P", v), "must_play")
    else:
        assert_refused(table, s, MoveCommand("P", v), "must_draw")
    err = assert_refused(table, s, MoveCommand("6|2 X", v), "bad_move_text")
    assert "6|2 X" in err.message


def test_bots_and_unknown_seats_cannot_send_commands() -> None:
    seats: list[SeatSpec] = [human("Anna"), bot()]
    table = make_table(seats, seed="cmd-bot")
    assert_refused(table, 1, LEAVE_COMMAND, "not_seated")
    assert_refused(table, 5, LEAVE_COMMAND, "bad_seat")


def test_back_without_a_standin_changes_nothing() -> None:
    table = two_humans()
    out = table.command(0, BACK_COMMAND, 1.0)
    assert out.error is None and out.entries == [] and out.messages == []


def test_moves_between_rounds_are_refused() -> None:
    table = two_humans("between")
    driver = Driver(table)
    driver.run_until(lambda t: t.phase == "round_over")
    m = table.match
    assert m is not None
    v = table.version
    err = assert_refused(table, 0, MoveCommand("P", v), "round_over")
    assert err.message == tr("round_over")


def test_a_move_after_the_deadline_loses_to_the_timeout() -> None:
    table = two_humans("late")
    s = to_move(table)
    legal = table.snapshot(s, 0.5)["view"]["legal"]
    v = table.version
    late = table.rules.turn_seconds + 0.5
    out = table.command(s, MoveCommand(legal[0], v), late)
    assert [e["kind"] for e in out.entries] == ["timeout"]
    assert out.error is not None and out.error.code == "stale_version"
    # The timeout itself is news for everybody.
    assert len(out.messages) == 3


def test_move_text_is_normalised_in_the_log() -> None:
    for i in range(100):
        table = two_humans(f"norm-{i}")
        s = to_move(table)
        legal = table.snapshot(s, 0.5)["view"]["legal"]
        mv = Move.parse(legal[0])
        if mv.tile is not None:
            break
    assert mv.tile is not None
    text = f"{mv.tile.low}|{mv.tile.high} {str(mv.end).lower()}"
    out = table.command(s, MoveCommand(text, table.version), 0.5)
    assert out.error is None and out.entries[0]["payload"]["move"] == legal[0]


def test_every_refusal_has_a_german_sentence() -> None:
    from domino.i18n import CATALOGUES

    codes = [
        "bad_seat", "bad_message", "unknown_type", "not_seated", "match_over", "left_match",
        "stale_version", "bad_move_text", "bad_end", "invalid_tile", "invalid_move",
        "not_your_turn", "round_over", "not_in_hand", "does_not_fit", "must_play",
        "must_draw", "no_lager", "lager_empty",
    ]  # fmt: skip
    assert [c for c in codes if c not in CATALOGUES["de"]] == []
