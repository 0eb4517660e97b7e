"""One round: opening, turns, round end (RULES.md §5-§8).

:class:`RoundState` is the verified and logged layer over the rules kernel
(:class:`~domino.rules.kernel.Kernel`, which alone knows how the round is
played): it speaks in :class:`Tile` and :class:`Move`, refuses an illegal move
with the specific error of the clause it breaks, and appends every accepted
action to :attr:`RoundState.log`; records, replays and views are built from
that log.

>>> from domino.rules import Rules, Deal, Tile, Move
>>> T = Tile.parse
>>> deal = Deal(
...     hands=((T("6|6"), T("6|2"), T("2|2"), T("5|3"), T("0|0"), T("1|0"), T("4|0")),
...            (T("4|1"), T("3|3"), T("4|4"), T("5|1"), T("1|1"), T("5|5"), T("3|1"))),
...     lager=tuple(T(t) for t in ("3|0", "6|5", "6|4", "6|3", "6|1", "6|0", "5|4",
...                                "5|2", "5|0", "4|3", "4|2", "3|2", "2|1", "2|0")))
>>> r = RoundState.start(Rules(seats=2), deal)
>>> r.line_text(), r.turn
('6|6', 1)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from operator import attrgetter
from typing import Final, NamedTuple

from .config import Rules
from .deal import Deal
from .errors import IllegalMoveError, NotYourTurnError, RoundOverError
from .kernel import (
    BLOCKED,
    DOMINO,
    DRAW_I,
    ENDS,
    ES_COUNT,
    FIT,
    LEFT,
    MOVE_COUNT,
    OPEN_FIVES,
    RIGHT,
    Kernel,
    fives_count,
    round_to_fives,
    score,
)
from .moves import DRAW, DRAW_MOVE, MOVES, PASS, PASS_MOVE, PLAY, Move
from .tiles import TILES, Tile, pips_of, tiles_of

OPEN: Final = "open"

__all__ = [
    "BLOCKED",
    "DOMINO",
    "OPEN",
    "Event",
    "RoundResult",
    "RoundState",
    "fives_count",
    "result_of",
    "round_to_fives",
]


class Event(NamedTuple):
    """One entry of the round's log (private: a draw names the tile drawn).

    ``ends`` are the open ends before the action (``None`` before the opening);
    ``fives`` the points scored at once under Fünferpunkte (§8). A named tuple
    because the hot path builds one per move with the C-level tuple
    constructor (:data:`_new_event`).
    """

    seat: int
    kind: str
    tile: Tile | None
    end: str | None
    ends: tuple[int, int] | None
    fives: int = 0

    @property
    def move(self) -> Move | None:
        """The move this event records (``None`` for the automatic opening)."""
        if self.kind == PLAY:
            assert self.tile is not None and self.end is not None
            return MOVES[self.tile.index * 2 + (self.end == "R")]
        if self.kind == DRAW:
            return DRAW_MOVE
        if self.kind == PASS:
            return PASS_MOVE
        return None


_new_event: Final = tuple.__new__
#: Every play or pass event, made on first use: by move, ends before, seat, scored or not.
_EVENTS: Final[list[Event | None]] = [None] * (MOVE_COUNT * ES_COUNT * 8)
#: Every draw event, made on first use: by seat, tile drawn, ends before.
_DRAW_EVENTS: Final[list[Event | None]] = [None] * (4 * 28 * 49)
_mask: Final = attrgetter("mask")
_index: Final = attrgetter("index")


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended (§7).

    ``winner`` is the winning side (seat, or team 0/1 with Paare), ``None``
    when nobody scores. ``points[side]`` are the round-end points (rounded to
    fives under Fünferpunkte); ``fives[side]`` the points scored during play.
    """

    reason: str
    out_seat: int | None
    winner: int | None
    points: tuple[int, ...]
    fives: tuple[int, ...]
    pips: tuple[int, ...]
    hands: tuple[tuple[Tile, ...], ...]

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(p + f for p, f in zip(self.points, self.fives, strict=True))

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickle and copy by the constructor: compiled with mypyc, the default way of a
        # frozen dataclass (setting each field) is refused.
        fields = (self.reason, self.out_seat, self.winner, self.points, self.fives, self.pips)
        return (RoundResult, (*fields, self.hands))


def result_of(k: Kernel) -> RoundResult:
    """The :class:`RoundResult` of a finished kernel round (the kernel scores it, §7)."""
    pips = tuple(map(pips_of, k.hands))
    winner, points = score(k.pairs, k.fives_on, k.out_seat, pips)
    return RoundResult(
        k.reason,
        k.out_seat,
        winner,
        points,
        tuple(k.side_fives),
        pips,
        tuple(map(tiles_of, k.hands)),
    )


class RoundState(Kernel):
    """The full state of one round; build it with :meth:`start`.

    The kernel's fields (hands as masks, ``lager``, ``turn``, ``drew``, ``drawn_fit``,
    ``side_fives``, the ends as ``left``/``right``/``left_double``/``right_double``) plus
    the rules, the tiles out of play (``out``), the event ``log``, the ``line`` of play
    (built from the log) and the ``result``.
    """

    __slots__ = ("_line", "_line_n", "log", "out", "result", "rules")

    rules: Rules
    out: int
    log: list[Event]
    result: RoundResult | None
    _line: deque[tuple[Tile, int, int]]
    _line_n: int

    @classmethod
    def start(cls, rules: Rules, deal: Deal, *, validate: bool = True) -> RoundState:
        """Deal ``deal`` and play the automatic opening (§5)."""
        if validate:
            deal.validate(rules)
        self = cls()
        self.rules = rules
        # sum == OR: a valid deal names every tile once.
        self._setup(
            rules,
            [sum([t.mask for t in h]) for h in deal.hands],
            list(map(_index, reversed(deal.lager))),  # pop() draws the top
        )
        self.out = sum(map(_mask, deal.out))
        self._line = deque()
        self._line_n = 0
        self.result = None
        best = self._open()
        fives = OPEN_FIVES[best] if self.fives_on else 0
        self.log = [_new_event(Event, (self.opener, OPEN, TILES[best], None, None, fives))]
        if self.reason:
            self.result = result_of(self)
        return self

    # -- queries -------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def can_draw(self) -> bool:
        """Whether the Lager can be drawn from at all (Lager An, not Paare, not empty)."""
        return bool(self.lager) and self.rules.draws

    def hand(self, seat: int) -> tuple[Tile, ...]:
        return tiles_of(self.hands[seat])

    def pips(self, seat: int) -> int:
        return pips_of(self.hands[seat])

    @property
    def line(self) -> deque[tuple[Tile, int, int]]:
        """The line of play left to right: ``(tile, left half, right half)`` as laid.

        Built from the log on demand (the hot path does not pay for it)."""
        log = self.log
        k = self._line_n
        if k < len(log):
            line = self._line
            for ev in log[k:]:
                t = ev.tile
                if ev.kind == PLAY:
                    assert t is not None and ev.ends is not None
                    if ev.end == "R":
                        at = ev.ends[1]
                        line.append((t, at, t.other(at)))
                    else:
                        at = ev.ends[0]
                        line.appendleft((t, t.other(at), at))
                elif ev.kind == OPEN:
                    assert t is not None
                    line.append((t, t.low, t.high))
            self._line_n = len(log)
        return self._line

    def line_text(self) -> str:
        """The line of play left to right, halves as they lie (``3|6 6|6 6|2``)."""
        return " ".join(f"{a}|{b}" for _, a, b in self.line)

    # -- actions -------------------------------------------------------------
    def verify(self, move: Move, seat: int | None = None) -> None:
        """Raise the specific error that makes ``move`` illegal now, or return.

        Whether a move is legal is the kernel's to say (its move generator,
        :meth:`~Kernel.legal`, which :meth:`~Kernel.step` agrees with); this only
        names the clause an illegal move breaks (:meth:`_refuse`).
        """
        if self.result is not None:
            raise RoundOverError("The round is over; no more moves.", "round_over")
        if seat is not None and seat != self.turn:
            raise NotYourTurnError(
                f"It is seat {self.turn}'s turn, not seat {seat}'s.",
                "not_your_turn",
                turn=self.turn,
            )
        if move.index not in self.legal():
            self._refuse(move)
            raise AssertionError(f"the kernel refuses {move}, no clause says why")

    def _refuse(self, move: Move) -> None:
        """Raise the error of the clause (§6) that the illegal ``move`` breaks."""
        hand = self.hands[self.turn]
        left, right = LEFT[self.es], RIGHT[self.es]
        fits = hand & FIT[self.es]
        if move.kind == PLAY:
            t = move.tile
            assert t is not None
            if not hand & t.mask:
                raise IllegalMoveError(f"You do not hold {t}.", "not_in_hand", tile=str(t))
            end_value = left if move.end == "L" else right
            if not (t.low == end_value or t.high == end_value):
                raise IllegalMoveError(
                    f"{t} does not fit the {'left' if move.end == 'L' else 'right'} end "
                    f"({end_value}).",
                    "does_not_fit",
                    tile=str(t),
                    end=move.end,
                    value=end_value,
                )
        elif move.kind == DRAW:
            if fits:
                raise IllegalMoveError(
                    "You hold a tile that fits; you must play, not draw.", "must_play"
                )
            if not self.rules.draws:
                raise IllegalMoveError("There is no Lager to draw from.", "no_lager")
            if not self.lager:
                raise IllegalMoveError("The Lager is empty; you must pass.", "lager_empty")
        elif move.kind == PASS:
            if fits and not self.drawn_fit:
                raise IllegalMoveError(
                    "You hold a tile that fits; you must play, not pass.", "must_play"
                )
            if not fits and self.lager and self.rules.draws:
                raise IllegalMoveError(
                    "Nothing fits and the Lager is not empty: you must draw.", "must_draw"
                )

    def can(self, move: Move, seat: int | None = None) -> bool:
        try:
            self.verify(move, seat)
        except IllegalMoveError:
            return False
        return True

    def apply(self, move: Move, seat: int | None = None) -> Event:
        """Verify and make ``move`` for the seat to move; return the logged event.

        The kernel's :meth:`~Kernel.step` makes the move or refuses it; a refusal (or
        a wrong seat, or a finished round) goes to :meth:`verify`, which raises the
        specific error.
        """
        s = self.turn
        if self.reason or (seat is not None and seat != s):
            self.verify(move, seat)
        es = self.es
        mv = move.index
        fives = self.step(mv)
        if fives < 0:
            self._refuse(move)
            raise AssertionError(f"the kernel refused {move}, no clause says why")
        # Events are values: each distinct one is made once and shared (no garbage).
        if mv != DRAW_I:
            key = (mv * ES_COUNT + es) * 8 + s * 2 + (fives > 0)
            ev = _EVENTS[key]
            if ev is None:
                ev = _EVENTS[key] = _new_event(
                    Event, (s, move.kind, move.tile, move.end, ENDS[es], fives)
                )
        else:
            key = (s * 28 + self.drawn) * 49 + (es >> 2)
            ev = _DRAW_EVENTS[key]
            if ev is None:
                ev = _DRAW_EVENTS[key] = _new_event(
                    Event, (s, DRAW, TILES[self.drawn], None, ENDS[es], 0)
                )
        self.log.append(ev)
        if self.reason:
            self.result = result_of(self)
        return ev
