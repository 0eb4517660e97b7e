"""domino.table.entries: the one reader of a table log's moves."""

from domino.table.entries import LoggedMove, entry_moves, log_moves
from domino.table.model import BACK, BOT_MOVE, END, MOVE, ROUND, START, TIMEOUT


def _e(kind: str, payload: dict[str, object] | None = None) -> dict[str, object]:
    return {"v": 1, "t": 0.0, "seat": 0, "kind": kind, "payload": payload or {}}


def test_entry_moves_by_kind() -> None:
    assert entry_moves(_e(MOVE, {"move": "6|2R"})) == ("6|2R",)
    assert entry_moves(_e(BOT_MOVE, {"move": "D"})) == ("D",)
    assert entry_moves(_e(TIMEOUT, {"moves": ["D", "P"]})) == ("D", "P")
    assert entry_moves(_e(TIMEOUT)) == ()
    assert entry_moves(_e(BACK)) == entry_moves(_e(START)) == entry_moves(_e(END)) == ()


def test_log_moves_numbers_each_round_from_one() -> None:
    log = [
        _e(START),
        _e(MOVE, {"move": "a"}),
        _e(TIMEOUT, {"moves": ["b", "c"]}),
        _e(BACK),
        _e(BOT_MOVE, {"move": "d"}),
        _e(ROUND, {"round": 2}),
        _e(MOVE, {"move": "e"}),
        _e(END),
    ]
    assert list(log_moves(log)) == [
        LoggedMove(1, 1, MOVE, "a"),
        LoggedMove(1, 2, TIMEOUT, "b"),
        LoggedMove(1, 3, TIMEOUT, "c"),
        LoggedMove(1, 4, BOT_MOVE, "d"),
        LoggedMove(2, 1, MOVE, "e"),
    ]
