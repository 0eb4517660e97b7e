# The oracle of test_kernel_differential.py: a FROZEN copy of src/domino/rules/round.py as it was
# before the one rules kernel (issue 14). Never edit it to make a test pass.
"""One round: opening, turns, round end (RULES.md §5-§8).

The state keeps hands as bitmasks over :data:`TILES` so legal moves and the
blocked test are a few integer operations; the public API speaks in
:class:`Tile` and :class:`Move`. Every accepted action is appended to
:attr:`RoundState.log`; records, replays and views are built from that log.

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
from typing import Final, NamedTuple

from domino.rules.config import Rules
from domino.rules.deal import Deal
from domino.rules.errors import IllegalMoveError, NotYourTurnError, RoundOverError
from domino.rules.moves import DRAW, DRAW_MOVE, MOVES, PASS, PASS_MOVE, PLAY, Move
from domino.rules.tiles import TILES, WITH, Tile, mask_of, pips_of, tiles_of

OPEN: Final = "open"
DOMINO: Final = "domino"
BLOCKED: Final = "blocked"


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


_new_event = tuple.__new__


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


def round_to_fives(points: int) -> int:
    """Nearest multiple of 5; remainder 1-2 rounds down, 3-4 up (§7).

    >>> [round_to_fives(p) for p in (11, 12, 13, 14, 15)]
    [10, 10, 15, 15, 15]
    """
    return (points + 2) // 5 * 5


def fives_count(
    single: Tile | None, left: int, right: int, left_double: bool, right_double: bool
) -> int:
    """The count of §8: all pips of a lone tile, else ends with doubles counted twice."""
    if single is not None:
        return single.pips
    return left * (2 if left_double else 1) + right * (2 if right_double else 1)


_LEGAL_CACHE: dict[int, tuple[Move, ...]] = {}


def _plays(m: int, left: int, right: int) -> tuple[Move, ...]:
    key = (m * 7 + left) * 7 + right
    moves = _LEGAL_CACHE.get(key)
    if moves is None:
        out = []
        for t in tiles_of(m):
            if t.low == left or t.high == left:
                out.append(MOVES[t.index * 2])
            if t.low == right or t.high == right:
                out.append(MOVES[t.index * 2 + 1])
        moves = tuple(out)
        if len(_LEGAL_CACHE) > 500_000:
            _LEGAL_CACHE.clear()
        _LEGAL_CACHE[key] = moves
    return moves


class RoundState:
    """The full state of one round; build it with :meth:`start`."""

    __slots__ = (
        "drawn_fit",
        "drew",
        "hands",
        "held",
        "lager",
        "left",
        "left_double",
        "line",
        "log",
        "n",
        "opener",
        "out",
        "result",
        "right",
        "right_double",
        "rules",
        "side_fives",
        "turn",
    )

    rules: Rules
    n: int
    hands: list[int]
    held: int
    lager: list[int]
    out: int
    left: int
    right: int
    left_double: bool
    right_double: bool
    line: deque[tuple[Tile, int, int]]
    turn: int
    drew: int
    drawn_fit: bool
    log: list[Event]
    side_fives: list[int]
    result: RoundResult | None
    opener: int

    @classmethod
    def start(cls, rules: Rules, deal: Deal, *, validate: bool = True) -> RoundState:
        """Deal ``deal`` and play the automatic opening (§5)."""
        if validate:
            deal.validate(rules)
        self = cls.__new__(cls)
        self.rules = rules
        self.n = rules.seats
        self.hands = [mask_of(h) for h in deal.hands]
        self.held = 0
        for h in self.hands:
            self.held |= h
        self.lager = [t.index for t in reversed(deal.lager)]  # pop() draws the top
        self.out = mask_of(deal.out)
        self.line = deque()
        self.turn = 0
        self.drew = 0
        self.drawn_fit = False
        self.log = []
        self.side_fives = [0] * rules.sides
        self.result = None
        self.left = self.right = -1
        self.left_double = self.right_double = False
        self._open()
        return self

    # -- opening -------------------------------------------------------------
    def _open(self) -> None:
        held = self.held
        best = next(t for t in _OPENING_ORDER if held & t.mask)
        seat = next(i for i, h in enumerate(self.hands) if h & best.mask)
        self.opener = seat
        self.turn = seat
        self.hands[seat] &= ~best.mask
        self.held &= ~best.mask
        self.left, self.right = best.low, best.high
        self.left_double = self.right_double = best.is_double
        self.line.append((best, best.low, best.high))
        fives = 0
        if self.rules.fives:
            c = best.pips
            if c and c % 5 == 0:
                fives = c
                self.side_fives[self.rules.side_of(seat)] += c
        self.log.append(Event(seat, OPEN, best, None, None, fives))
        self._after_place(seat)

    # -- queries -------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def can_draw(self) -> bool:
        """Whether the Lager can be drawn from at all (Lager An, not Paare, not empty)."""
        return bool(self.lager) and self.rules.draws

    def legal_moves(self) -> tuple[Move, ...]:
        """The moves the seat to move may make now (empty once the round is over)."""
        if self.result is not None:
            return ()
        left, right = self.left, self.right
        m = self.hands[self.turn] & (WITH[left] | WITH[right])
        if m:
            plays = _LEGAL_CACHE.get((m * 7 + left) * 7 + right) or _plays(m, left, right)
            return (*plays, PASS_MOVE) if self.drawn_fit else plays
        if self.lager and self.rules.draws:
            return (DRAW_MOVE,)
        return (PASS_MOVE,)

    def hand(self, seat: int) -> tuple[Tile, ...]:
        return tiles_of(self.hands[seat])

    def pips(self, seat: int) -> int:
        return pips_of(self.hands[seat])

    def line_text(self) -> str:
        """The line of play left to right, halves as they lie (``3|6 6|6 6|2``)."""
        return " ".join(f"{a}|{b}" for _, a, b in self.line)

    # -- actions -------------------------------------------------------------
    def verify(self, move: Move, seat: int | None = None) -> None:
        """Raise the specific error that makes ``move`` illegal now, or return."""
        if self.result is not None:
            raise RoundOverError("The round is over; no more moves.", "round_over")
        if seat is not None and seat != self.turn:
            raise NotYourTurnError(
                f"It is seat {self.turn}'s turn, not seat {seat}'s.",
                "not_your_turn",
                turn=self.turn,
            )
        hand = self.hands[self.turn]
        left, right = self.left, self.right
        fits = hand & (WITH[left] | WITH[right])
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

        The checks are inlined for the common legal case (this is the engine's
        hot path); any doubt falls back to :meth:`verify`, which raises the
        specific error.
        """
        s = self.turn
        if self.result is not None or (seat is not None and seat != s):
            self.verify(move, seat)
        kind = move.kind
        left = self.left
        right = self.right
        hand = self.hands[s]
        if kind == PLAY:
            t = move.tile
            assert t is not None
            if move.end == "R":
                if not (hand & t.mask and (t.low == right or t.high == right)):
                    self.verify(move, seat)
                b = t.high if t.low == right else t.low
                self.right = b
                self.right_double = t.is_double
                self.line.append((t, right, b))
                end = "R"
            else:
                if not (hand & t.mask and (t.low == left or t.high == left)):
                    self.verify(move, seat)
                b = t.high if t.low == left else t.low
                self.left = b
                self.left_double = t.is_double
                self.line.appendleft((t, b, left))
                end = "L"
            hand &= ~t.mask
            self.hands[s] = hand
            self.held &= ~t.mask
            fives = 0
            if self.rules.fives:
                c = self.left * (2 if self.left_double else 1) + self.right * (
                    2 if self.right_double else 1
                )
                if c and c % 5 == 0:
                    fives = c
                    self.side_fives[self.rules.side_of(s)] += c
            ev = _new_event(Event, (s, PLAY, t, end, (left, right), fives))
            self.log.append(ev)
            if not hand:
                self._finish_domino(s)
            elif not (self.held & (WITH[self.left] | WITH[self.right])) and not (
                self.lager and self.rules.draws
            ):
                self._finish_blocked()
            else:
                self.turn = (s + 1) % self.n
                self.drew = 0
                self.drawn_fit = False
            return ev
        fit = WITH[left] | WITH[right]
        if kind == PASS:
            if hand & fit:
                if not self.drawn_fit:
                    self.verify(move, seat)
            elif self.lager and self.rules.draws:
                self.verify(move, seat)
            ev = _new_event(Event, (s, PASS, None, None, (left, right), 0))
            self.log.append(ev)
            self._next_turn()
            return ev
        if hand & fit or not self.lager or not self.rules.draws:
            self.verify(move, seat)
        t = TILES[self.lager.pop()]
        self.hands[s] = hand | t.mask
        self.held |= t.mask
        self.drew += 1
        ev = _new_event(Event, (s, DRAW, t, None, (left, right), 0))
        self.log.append(ev)
        if t.mask & fit:
            self.drawn_fit = True
        elif not (self.lager or self.held & fit):
            self._finish_blocked()
        return ev

    def _after_place(self, s: int) -> None:
        if not self.hands[s]:
            self._finish_domino(s)
        elif not (self.lager and self.rules.draws) and not (
            self.held & (WITH[self.left] | WITH[self.right])
        ):
            self._finish_blocked()
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.n
        self.drew = 0
        self.drawn_fit = False

    # -- round end (§7) ------------------------------------------------------
    def _finish_domino(self, s: int) -> None:
        rules = self.rules
        pips = tuple(self.pips(i) for i in range(self.n))
        points = [0] * rules.sides
        winner: int | None
        if rules.pairs:
            team = [pips[0] + pips[2], pips[1] + pips[3]]  # team A, team B
            winner = _team_winner(team)
            if winner is not None:
                points[winner] = team[1 - winner]
        else:
            winner = s
            points[s] = sum(pips)
        self._finish(DOMINO, s, winner, points, pips)

    def _finish_blocked(self) -> None:
        rules = self.rules
        pips = tuple(self.pips(i) for i in range(self.n))
        points = [0] * rules.sides
        winner: int | None
        if rules.pairs:
            team = [pips[0] + pips[2], pips[1] + pips[3]]
            winner = _team_winner(team)
            if winner is not None:
                points[winner] = team[1 - winner]
        else:
            low = min(pips)
            winner = pips.index(low) if pips.count(low) == 1 else None
            if winner is not None:
                points[winner] = sum(p - low for p in pips)
        self._finish(BLOCKED, None, winner, points, pips)

    def _finish(
        self,
        reason: str,
        out_seat: int | None,
        winner: int | None,
        points: list[int],
        pips: tuple[int, ...],
    ) -> None:
        if self.rules.fives:
            points = [round_to_fives(p) for p in points]
        self.result = RoundResult(
            reason=reason,
            out_seat=out_seat,
            winner=winner,
            points=tuple(points),
            fives=tuple(self.side_fives),
            pips=pips,
            hands=tuple(self.hand(i) for i in range(self.n)),
        )


def _team_winner(team: list[int]) -> int | None:
    if team[0] == team[1]:
        return None
    return 0 if team[0] < team[1] else 1


def _opening_key(t: Tile) -> tuple[int, int, int]:
    # Doubles first (highest), then most pips, then the higher half (§5).
    return (1 if t.is_double else 0, t.pips, t.high)


#: Every tile, the one that opens first (§5) first.
_OPENING_ORDER: Final = tuple(sorted(TILES, key=_opening_key, reverse=True))
