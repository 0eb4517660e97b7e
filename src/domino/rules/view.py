"""What an audience may see (RULES.md §4, §6, §11, §13).

:func:`view` is the one function that decides it: ``view(state, seat)`` for a
seat, ``view(state, None)`` for a spectator. A view holds the own hand only,
the line, the ends, the Lager's size (never its order), every seat's hand
size, the points, the public history (plays, draws as events without the
tile, passes) and, on the seat's turn, its legal moves. After the round's end
it shows every hand still held; the Lager-Aus leftovers never appear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .config import Rules
from .match import MatchState
from .moves import DRAW, Move
from .round import Event, RoundResult, RoundState
from .tiles import Tile, tiles_of


@dataclass(frozen=True, slots=True)
class PublicEvent:
    """An event as every seat learns it: a draw never names its tile."""

    seat: int
    kind: str  # open | play | draw | pass
    tile: Tile | None
    end: str | None
    ends: tuple[int, int] | None
    fives: int

    @staticmethod
    def of(ev: Event) -> PublicEvent:
        return PublicEvent(
            ev.seat, ev.kind, None if ev.kind == DRAW else ev.tile, ev.end, ev.ends, ev.fives
        )

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seat": self.seat, "kind": self.kind}
        if self.tile is not None:
            d["tile"] = str(self.tile)
        if self.end is not None:
            d["end"] = self.end
        if self.fives:
            d["fives"] = self.fives
        return d


@dataclass(frozen=True, slots=True)
class SeatView:
    """One audience's knowledge of a round (``seat`` is ``None`` for spectators)."""

    seat: int | None
    rules: Rules
    round_no: int
    opener: int
    hand: tuple[Tile, ...] | None
    line: tuple[tuple[Tile, int, int], ...]  # (tile, left half, right half) as laid
    left: int
    right: int
    left_double: bool
    right_double: bool
    lager_count: int
    hand_counts: tuple[int, ...]
    scores: tuple[int, ...]
    turn: int | None
    drew: int
    history: tuple[PublicEvent, ...]
    legal: tuple[Move, ...]
    result: RoundResult | None

    @property
    def seats(self) -> int:
        return self.rules.seats

    @property
    def played(self) -> tuple[Tile, ...]:
        return tuple(t for t, _, _ in self.line)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for clients (tiles as ``"6|2"``, moves as ``"6|2 L"``)."""
        d: dict[str, Any] = {
            "seat": self.seat,
            "round": self.round_no,
            "opener": self.opener,
            "hand": None if self.hand is None else [str(t) for t in self.hand],
            "line": [[str(t), a, b] for t, a, b in self.line],
            "ends": [self.left, self.right],
            "end_doubles": [self.left_double, self.right_double],
            "lager": self.lager_count,
            "hand_counts": list(self.hand_counts),
            "scores": list(self.scores),
            "turn": self.turn,
            "drew": self.drew,
            "legal": [str(m) for m in self.legal],
            "result": None if self.result is None else result_to_dict(self.result),
        }
        return d


def result_to_dict(r: RoundResult) -> dict[str, Any]:
    return {
        "reason": r.reason,
        "out_seat": r.out_seat,
        "winner": r.winner,
        "points": list(r.points),
        "fives": list(r.fives),
        "pips": list(r.pips),
        "hands": [[str(t) for t in h] for h in r.hands],
    }


def private_part(rnd: RoundState, seat: int) -> tuple[tuple[Tile, ...], tuple[Move, ...]]:
    """What only ``seat`` sees of a round beyond the spectators' view: its own hand,
    and its legal moves while it is the seat to move (none once the round is over)."""
    own_turn = rnd.result is None and rnd.turn == seat
    return tiles_of(rnd.hands[seat]), rnd.legal_moves() if own_turn else ()


def view(
    state: RoundState | MatchState, seat: int | None, *, with_history: bool = True
) -> SeatView:
    """The view of ``seat`` (``None``: a spectator) of a round or a match's current round.

    ``with_history=False`` leaves ``history`` empty, for a caller that keeps the
    round's public history itself, event by event (:meth:`PublicEvent.of`).
    """
    scores: tuple[int, ...]
    if isinstance(state, MatchState):
        rnd = state.round
        scores = state.scores
        round_no = state.round_no
    else:
        rnd = state
        scores = tuple(rnd.side_fives)
        round_no = 1
    over = rnd.result is not None
    hand, legal = private_part(rnd, seat) if seat is not None else (None, ())
    return SeatView(
        seat=seat,
        rules=rnd.rules,
        round_no=round_no,
        opener=rnd.opener,
        hand=hand,
        line=tuple(rnd.line),
        left=rnd.left,
        right=rnd.right,
        left_double=rnd.left_double,
        right_double=rnd.right_double,
        lager_count=len(rnd.lager),
        hand_counts=tuple(h.bit_count() for h in rnd.hands),
        scores=scores,
        turn=None if over else rnd.turn,
        drew=rnd.drew,
        history=tuple(PublicEvent.of(e) for e in rnd.log) if with_history else (),
        legal=legal,
        result=rnd.result,
    )
