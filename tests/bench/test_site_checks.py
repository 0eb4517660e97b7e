"""The checks of the site tests (domino_bench.site) find what they are there to find.

A match is played at the table level (no server); its frames are handed to
clients as if they had received them, and the stored log is the table's log.
Clean frames pass; a hand sent to a spectator, another seat's frame, a version
going back and an acknowledged move missing from the log are each reported.
"""

from __future__ import annotations

import copy
from typing import Any

from domino.rules import Rules
from domino.table import MoveCommand, SeatSpec, Table
from domino_bench.site import Frame, Move, SiteClient, Stored, audit, check_moves


def played() -> tuple[Stored, list[tuple[int | None, dict[str, Any]]], list[Move]]:
    """A short match (Anna against a bot): its stored form, every frame, Anna's moves."""
    specs = [SeatSpec("human", "Anna", player_id="p1"), SeatSpec("bot", "Bot", level="anfaenger")]
    rules = Rules(seats=2)
    now = 1000.0
    table = Table("m1", rules, specs, "seed-1", now)
    frames = list(table.snapshots(now))
    moves: list[Move] = []
    for _ in range(60):
        now += 1.0
        snap = table.snapshot(0, now)
        legal = snap["view"]["legal"]
        if legal:
            mv = Move(f"r{len(moves)}", "m1", 0, table.version, legal[0], acked=True)
            out = table.command(0, MoveCommand(mv.move, mv.v), now)
            assert out.error is None
            moves.append(mv)
        else:
            out = table.advance(now + 5.0)
        frames += out.messages
        if table.finished or len(moves) >= 6:
            break
    stored = Stored(
        "m1",
        "running",
        rules.to_dict(),
        [s.to_dict() for s in specs],
        "seed-1",
        1,
        "n1",
        None,
        list(table.log),
    )
    return stored, frames, moves


def client(name: str, pid: str, frames: list[dict[str, Any]]) -> SiteClient:
    c = SiteClient(name, "http://127.0.0.1:1")
    c.pid = pid
    c.sockets.append(type("S", (), {"url": "ws://test/ws"})())  # type: ignore[arg-type]
    c.frames = [Frame(0, m, 0.0) for m in frames]
    return c


def test_clean_frames_pass_and_leaks_are_found() -> None:
    stored, frames, _ = played()
    anna = client("Anna", "p1", [m for a, m in frames if a == 0])
    carl = client("Carl", "p2", [m for a, m in frames if a is None])
    audience = {"p1": 0, "p2": None}
    checked, problems = audit([anna, carl], {"m1": stored}, audience)
    assert checked == len(anna.frames) + len(carl.frames) and problems == []

    # A seat's frame reaching a spectator: the seat, and the hand, are reported.
    leaky = client("Carl", "p2", [m for a, m in frames if a == 0][:1])
    _, problems = audit([leaky], {"m1": stored}, audience)
    assert any("not None" in p for p in problems)
    assert any("spectators got a hand" in p for p in problems)

    # A version going back on a socket.
    states = [m for a, m in frames if a == 0]
    back = client("Anna", "p1", [states[-1], states[0]])
    _, problems = audit([back], {"m1": stored}, audience)
    assert any("on one socket" in p for p in problems)

    # A frame showing another hand than the seat's at that version.
    wrong = copy.deepcopy(states[0])
    wrong["view"]["hand"] = wrong["view"]["hand"][1:]
    _, problems = audit([client("Anna", "p1", [wrong])], {"m1": stored}, audience)
    assert any("is not the seat's" in p for p in problems)


def test_moves_are_checked_against_the_stored_log() -> None:
    stored, _, moves = played()
    anna = client("Anna", "p1", [])
    anna.moves = moves
    report = check_moves([anna], {"m1": stored})
    assert report.acknowledged == len(moves) > 0
    assert not (report.lost or report.unexplained or report.broken_logs)

    # The log lost the last acknowledged move: reported lost (and nothing unexplained).
    short = copy.deepcopy(stored)
    short.log = short.log[: moves[-1].v]
    report = check_moves([anna], {"m1": short})
    assert len(report.lost) == 1 and not report.unexplained

    # A move in the log that nobody sent for that version: unexplained.
    anna.moves = moves[:-1]
    report = check_moves([anna], {"m1": stored})
    assert len(report.unexplained) == 1
