"""The rules kernel: the one place that knows how a round is played (RULES.md §5-§8).

Everything that plays a round runs on :class:`Kernel`: the verified and
logged :class:`~domino.rules.round.RoundState` (a subclass that adds checks
with specific errors, the event log and the result record), the random
playouts of the benchmark (:func:`domino.rules.playout.random_round`) and the
search bots' playouts (:func:`domino.bots.sample.playout`). It knows how a
tile is placed (:func:`place`), what is legal (:meth:`Kernel.legal`,
:meth:`Kernel.step`), when a round ends and how it scores (:func:`score`,
:func:`fives_count`, :func:`round_to_fives`).

It is built for speed in plain Python:

- tiles are the small ints 0..27 (their index in :data:`~domino.rules.tiles.TILES`),
  moves the ints 0..57 (``Move.index``: ``2*tile`` left, ``2*tile + 1`` right,
  :data:`DRAW_I`, :data:`PASS_I`);
- hands, the tiles held and "what fits" are bitmasks over the tiles;
- the two open ends and whether each is formed by a double are one small int,
  the *ends state* ``es`` (:func:`ends_state`, 196 values). Placing a tile is
  one look-up in :data:`PLACE` (which also says whether it fits at all); what
  fits the ends is :data:`FIT`, the Fünferpunkte a placement scores
  :data:`FIVES`. The tables are built at import from the plain rule functions
  below, so the rules are written once, in words a reader can check.

>>> k = Kernel.from_masks(Rules(seats=2), [0b111_1111, 0b111_1111 << 7], list(range(14, 28)))
>>> k.opener, k.left, k.right, k.turn  # 2|2 opens; seat 0 holds 0|0 .. 0|6
(1, 2, 2, 0)
>>> k.legal(), k.step(PASS_I)  # 2|0 fits both ends: two plays; a pass is refused
((4, 5), -1)
>>> k.step(5), k.right, k.turn
(0, 0, 1)
"""

from __future__ import annotations

from typing import Final, Self

from .config import Rules
from .moves import DRAW_MOVE, MOVES, PASS_MOVE, Move
from .tiles import COUNT, TILES, WITH, pips_of

#: The integer moves besides the plays ``2*tile + (end is right)``; equal to ``Move.index``.
DRAW_I: Final = 56
PASS_I: Final = 57
MOVE_COUNT: Final = 58

#: Why a round ended (§7); "" while it runs.
DOMINO: Final = "domino"
BLOCKED: Final = "blocked"

_VALUES: Final = range(7)


# -- the rules, written once ---------------------------------------------------------------
def ends_state(left: int, right: int, left_double: bool, right_double: bool) -> int:
    """The ends state ``es``: both open ends and whether a double forms each (0..195)."""
    return (left * 7 + right) * 4 + left_double * 2 + right_double


def place(tile: int, right_end: bool, es: int) -> int:
    """The ends state after placing ``tile`` at an end (§6), or -1 if it does not fit.

    A tile fits an end when one half equals the end's number; the other half becomes
    the end's new number. A double (laid crosswise) leaves the number as it was and
    marks the end as formed by a double (§8 counts it twice).
    """
    t = TILES[tile]
    left, right = LEFT[es], RIGHT[es]
    at = right if right_end else left
    if t.low != at and t.high != at:
        return -1
    new = t.high if t.low == at else t.low
    if right_end:
        return ends_state(left, new, LEFT_DOUBLE[es], t.is_double)
    return ends_state(new, right, t.is_double, RIGHT_DOUBLE[es])


def fives_count(
    single: object | None, left: int, right: int, left_double: bool, right_double: bool
) -> int:
    """The count of §8 after a placement.

    ``single`` is the lone tile on the table (a :class:`~domino.rules.tiles.Tile`) right
    after the opening, else ``None``: a lone tile counts all its pips; otherwise the
    ends count, an end formed by a double counting both halves.

    >>> from domino.rules.tiles import Tile
    >>> fives_count(Tile.parse("5|5"), 5, 5, True, True), fives_count(None, 5, 0, True, False)
    (10, 10)
    """
    if single is not None:
        pips: int = getattr(single, "pips")  # noqa: B009 (a Tile; no import cycle)
        return pips
    return left * (2 if left_double else 1) + right * (2 if right_double else 1)


def fives_scored(count: int) -> int:
    """The Fünferpunkte a count scores at once (§8): the count if > 0 and divisible by 5."""
    return count if count > 0 and count % 5 == 0 else 0


def round_to_fives(points: int) -> int:
    """Nearest multiple of 5; remainder 1-2 rounds down, 3-4 up (§7).

    >>> [round_to_fives(p) for p in (11, 12, 13, 14, 15)]
    [10, 10, 15, 15, 15]
    """
    return (points + 2) // 5 * 5


def score(
    pairs: bool, fives: bool, out_seat: int | None, pips: tuple[int, ...]
) -> tuple[int | None, tuple[int, ...]]:
    """How a round scores (§7): ``(winner, points per side)``; ``winner`` is ``None`` when
    nobody scores. ``out_seat`` is the seat that went out (*Domino!*), ``None`` when the
    round is blocked; ``pips`` the pips left in each hand.

    >>> score(False, False, 1, (5, 0, 7)), score(False, True, None, (5, 3, 9))
    ((1, (0, 12, 0)), (1, (0, 10, 0)))
    >>> score(True, False, None, (5, 3, 2, 4))
    (None, (0, 0))
    """
    n = len(pips)
    winner: int | None = None
    points = [0] * (2 if pairs else n)
    if pairs:
        team = (pips[0] + pips[2], pips[1] + pips[3])
        if team[0] != team[1]:
            winner = 0 if team[0] < team[1] else 1
            points[winner] = team[1 - winner]
    elif out_seat is not None:
        winner = out_seat
        points[out_seat] = sum(pips)
    else:
        low = min(pips)
        if pips.count(low) == 1:
            winner = pips.index(low)
            points[winner] = sum(p - low for p in pips)
    if fives:
        points = [round_to_fives(p) for p in points]
    return winner, tuple(points)


def _opening_key(tile: int) -> tuple[int, int, int]:
    # §5: the highest double, else the most pips, between equal pips the higher half.
    t = TILES[tile]
    return (1 if t.is_double else 0, t.pips, t.high)


# -- the tables built from those rules -------------------------------------------------------
_ES: Final = [(a, b, ad, bd) for a in _VALUES for b in _VALUES for ad in (0, 1) for bd in (0, 1)]
#: Per ends state: the left / right number, whether a double forms it, both numbers.
LEFT: Final[tuple[int, ...]] = tuple(e[0] for e in _ES)
RIGHT: Final[tuple[int, ...]] = tuple(e[1] for e in _ES)
LEFT_DOUBLE: Final[tuple[bool, ...]] = tuple(bool(e[2]) for e in _ES)
RIGHT_DOUBLE: Final[tuple[bool, ...]] = tuple(bool(e[3]) for e in _ES)
ENDS: Final[tuple[tuple[int, int], ...]] = tuple((e[0], e[1]) for e in _ES)
#: Per ends state: the mask of the tiles that fit either end.
FIT: Final[tuple[int, ...]] = tuple(WITH[e[0]] | WITH[e[1]] for e in _ES)
#: Per ends state: the Fünferpunkte a placement that leaves these ends scores (§8).
FIVES: Final[tuple[int, ...]] = tuple(
    fives_scored(fives_count(None, e[0], e[1], bool(e[2]), bool(e[3]))) for e in _ES
)
ES_COUNT: Final = len(_ES)
#: ``PLACE[move * ES_COUNT + es]``: the ends state after play ``move`` (< 56), -1 if it
#: does not fit.
PLACE: Final[tuple[int, ...]] = tuple(
    place(mv >> 1, bool(mv & 1), es) for mv in range(2 * COUNT) for es in range(ES_COUNT)
)
#: Per move: the bit of the tile it plays (0 for draw and pass).
BIT: Final[tuple[int, ...]] = tuple(1 << (mv >> 1) if mv < 2 * COUNT else 0 for mv in range(58))
#: Every tile, the one that opens first (§5) first.
OPENING_ORDER: Final[tuple[int, ...]] = tuple(sorted(range(COUNT), key=_opening_key, reverse=True))
#: Per tile: the ends state right after it opens, and what the lone tile scores (§8).
OPEN_ES: Final[tuple[int, ...]] = tuple(
    ends_state(t.low, t.high, t.is_double, t.is_double) for t in TILES
)
OPEN_FIVES: Final[tuple[int, ...]] = tuple(
    fives_scored(fives_count(t, t.low, t.high, t.is_double, t.is_double)) for t in TILES
)


def plays(fitting: int, es: int) -> tuple[int, ...]:
    """The legal plays (move ints) of a hand whose tiles fitting the ends are ``fitting``:
    in tile order, each tile left before right when it fits both (§6: two distinct moves
    even when both ends show the same number)."""
    out = []
    m = fitting
    while m:
        low = m & -m
        m ^= low
        t = low.bit_length() - 1
        for end in (0, 1):
            if PLACE[(2 * t + end) * ES_COUNT + es] >= 0:
                out.append(2 * t + end)
    return tuple(out)


def _chunk_tables() -> tuple[
    tuple[tuple[tuple[tuple[int, ...], ...], ...], ...],
    tuple[tuple[tuple[tuple[Move, ...], ...], ...], ...],
]:
    # Per pair of end numbers (es >> 2) and per seven tiles of the mask: the plays of every
    # 7-bit chunk. Tiles do not interact, so a hand's plays are the four chunks' in a row.
    ints, moves = [], []
    for lr in range(49):
        es = lr * 4
        per_i, per_m = [], []
        for k in range(4):
            one = [plays(1 << (7 * k + i) & FIT[es], es) for i in range(7)]
            one_m = [tuple(MOVES[i] for i in p) for p in one]
            row: list[tuple[int, ...]] = [()]
            row_m: list[tuple[Move, ...]] = [()]
            for c in range(1, 128):  # the chunk without its highest tile, then that tile
                top = c.bit_length() - 1
                row.append(row[c ^ 1 << top] + one[top])
                row_m.append(row_m[c ^ 1 << top] + one_m[top])
            per_i.append(tuple(row))
            per_m.append(tuple(row_m))
        ints.append(tuple(per_i))
        moves.append(tuple(per_m))
    return tuple(ints), tuple(moves)


#: ``PLAYS[es >> 2][k][c]``: the plays of the tiles ``c << 7*k`` (those that fit), as move
#: ints; ``PLAY_MOVES`` the same as :class:`Move` objects.
PLAYS, PLAY_MOVES = _chunk_tables()


def plays_of(hand: int, es: int) -> tuple[int, ...]:
    """The move generator: the legal plays (move ints) of ``hand`` on ends state ``es``, in
    the order of :func:`plays` (tile order, left before right), by look-up in :data:`PLAYS`.
    :meth:`Kernel.legal` and every bot that enumerates plays ask it."""
    m = hand & FIT[es]
    a, b, c, d = PLAYS[es >> 2]
    return a[m & 127] + b[m >> 7 & 127] + c[m >> 14 & 127] + d[m >> 21]


_DRAW_ONLY: Final = (DRAW_I,)
_PASS_ONLY: Final = (PASS_I,)
_DRAW_MOVE_ONLY: Final = (DRAW_MOVE,)
_PASS_MOVE_ONLY: Final = (PASS_MOVE,)


class Kernel:
    """The state of one round over small ints, and the one implementation of its moves.

    ``hands[s]`` is seat s's hand (a mask), ``held`` the union of the hands, ``lager``
    the Lager with the next draw at the end (``lager.pop()``; always empty when the
    rules draw nothing), ``es`` the ends state, ``turn`` the seat to move, ``drew`` how
    many tiles it drew this turn, ``drawn_fit`` whether one it drew fits (so it may
    pass), ``side_fives`` the Fünferpunkte per side so far. ``reason`` is ``""`` while
    the round runs, then :data:`DOMINO` (``out_seat`` went out) or :data:`BLOCKED`.
    """

    __slots__ = (
        "drawn",
        "drawn_fit",
        "drew",
        "es",
        "fives_on",
        "hands",
        "held",
        "lager",
        "n",
        "nxt",
        "opener",
        "out_seat",
        "pairs",
        "reason",
        "side",
        "side_fives",
        "turn",
    )

    n: int
    fives_on: bool
    pairs: bool
    nxt: tuple[int, ...]
    side: tuple[int, ...]
    hands: list[int]
    held: int
    lager: list[int]
    es: int
    turn: int
    drew: int
    drawn_fit: bool
    drawn: int
    side_fives: list[int]
    reason: str
    out_seat: int | None
    opener: int

    # -- building ----------------------------------------------------------------------------
    def _setup(self, rules: Rules, hands: list[int], lager: list[int]) -> None:
        n, self.fives_on, self.pairs, draws, sides, self.nxt, self.side, _ = plan_of(rules)
        self.n = n
        self.hands = hands
        self.held = sum(hands)  # the hands are disjoint: sum == union
        self.lager = lager if draws else []
        self.drew = 0
        self.drawn_fit = False
        self.drawn = -1
        self.side_fives = [0] * sides
        self.reason = ""
        self.out_seat = None

    @classmethod
    def from_masks(cls, rules: Rules, hands: list[int], lager: list[int]) -> Self:
        """A round dealt as ``hands`` (masks, taken over) and ``lager`` (tile ints, next
        draw last), opened (§5). The deal is trusted (see ``Deal.validate``)."""
        k = cls()
        k._setup(rules, hands, lager)
        k._open()
        return k

    @classmethod
    def resume(
        cls,
        rules: Rules,
        hands: list[int],
        lager: list[int],
        es: int,
        turn: int,
        *,
        opener: int = 0,
        drew: int = 0,
        drawn_fit: bool = False,
        side_fives: list[int] | None = None,
    ) -> Self:
        """A round in the middle: the search bots' guessed states. Trusted as given."""
        k = cls()
        k._setup(rules, hands, lager)
        k.es = es
        k.turn = turn
        k.opener = opener
        k.drew = drew
        k.drawn_fit = drawn_fit
        if side_fives is not None:
            k.side_fives = side_fives
        return k

    def _open(self) -> int:
        """The automatic opening (§5); returns the tile placed."""
        held = self.held
        best = 0
        for best in OPENING_ORDER:  # the first one held opens
            if held >> best & 1:
                break
        bit = 1 << best
        hands = self.hands
        seat = 0
        while not hands[seat] & bit:
            seat += 1
        self.opener = seat
        hands[seat] ^= bit
        self.held = held ^ bit
        es = OPEN_ES[best]
        self.es = es
        if self.fives_on and OPEN_FIVES[best]:
            self.side_fives[self.side[seat]] += OPEN_FIVES[best]
        if not hands[seat]:  # cannot happen with the dealt sizes; the rule all the same
            self.reason = DOMINO
            self.out_seat = seat
            self.turn = seat
        elif not self.held & FIT[es] and not self.lager:
            self.reason = BLOCKED
            self.turn = seat
        else:
            self.turn = self.nxt[seat]
        return best

    # -- queries -----------------------------------------------------------------------------
    @property
    def left(self) -> int:
        return LEFT[self.es]

    @property
    def right(self) -> int:
        return RIGHT[self.es]

    @property
    def left_double(self) -> bool:
        return LEFT_DOUBLE[self.es]

    @property
    def right_double(self) -> bool:
        return RIGHT_DOUBLE[self.es]

    def legal(self) -> tuple[int, ...]:
        """The legal moves (ints) of the seat to move; empty once the round is over (§6)."""
        if self.reason:
            return ()
        es = self.es
        hand = self.hands[self.turn]
        if hand & FIT[es]:
            got = plays_of(hand, es)
            return (*got, PASS_I) if self.drawn_fit else got
        return _DRAW_ONLY if self.lager else _PASS_ONLY

    def legal_moves(self) -> tuple[Move, ...]:
        """:meth:`legal` as :class:`~domino.rules.moves.Move` objects (the same order)."""
        if self.reason:
            return ()
        es = self.es
        m = self.hands[self.turn] & FIT[es]
        if m:
            a, b, c, d = PLAY_MOVES[es >> 2]
            got = a[m & 127] + b[m >> 7 & 127] + c[m >> 14 & 127] + d[m >> 21]
            return (*got, PASS_MOVE) if self.drawn_fit else got
        return _DRAW_MOVE_ONLY if self.lager else _PASS_MOVE_ONLY

    def all_pips(self) -> tuple[int, ...]:
        """The pips in each hand."""
        return tuple(map(pips_of, self.hands))

    def outcome(self) -> tuple[int | None, tuple[int, ...]]:
        """``(winner, round-end points per side)`` of the finished round (§7)."""
        assert self.reason
        return score(self.pairs, self.fives_on, self.out_seat, self.all_pips())

    def totals(self) -> tuple[int, ...]:
        """Per side: round-end points plus Fünferpunkte, of the finished round."""
        _, points = self.outcome()
        return tuple(p + f for p, f in zip(points, self.side_fives, strict=True))

    # -- the one move function ------------------------------------------------------------------
    def step(self, mv: int) -> int:
        """Make move ``mv`` for the seat to move if it is legal (§6-§8).

        Returns the Fünferpunkte it scored (0 without), or -1, changing nothing, when
        the move is illegal. A draw leaves the tile drawn in :attr:`drawn`. The caller
        checks that the round is not over (:attr:`reason`).
        """
        s = self.turn
        hand = self.hands[s]
        es = self.es
        if mv < 56:
            bit = BIT[mv]
            new = PLACE[mv * 196 + es]
            if new < 0 or not hand & bit:
                return -1
            self.es = new
            hand ^= bit
            self.hands[s] = hand
            held = self.held ^ bit
            self.held = held
            f = 0
            if self.fives_on:
                f = FIVES[new]
                if f:
                    self.side_fives[self.side[s]] += f
            if not hand:
                self.reason = DOMINO
                self.out_seat = s
            elif not held & FIT[new] and not self.lager:
                self.reason = BLOCKED  # §7: at once, nobody has to pass first
            else:
                self.turn = self.nxt[s]
                self.drew = 0
                self.drawn_fit = False
            return f
        fit = FIT[es]
        if mv == PASS_I:
            if hand & fit:
                if not self.drawn_fit:
                    return -1
            elif self.lager:
                return -1
            self.turn = self.nxt[s]
            self.drew = 0
            self.drawn_fit = False
            return 0
        lager = self.lager
        if mv != DRAW_I or hand & fit or not lager:
            return -1
        t = lager.pop()
        bit = 1 << t
        self.drawn = t
        self.hands[s] = hand | bit
        self.held |= bit
        self.drew += 1
        if bit & fit:
            self.drawn_fit = True
        elif not lager and not self.held & fit:
            self.reason = BLOCKED
        return 0


Plan = tuple[int, bool, bool, bool, int, tuple[int, ...], tuple[int, ...], int]
_PLANS: Final[dict[int, tuple[Rules, Plan]]] = {}


def plan_of(rules: Rules) -> Plan:
    """What the kernel needs of ``rules``, computed once per rules object: seats, fives,
    pairs, draws, sides, the next seat and the scoring side of each seat, hand size."""
    got = _PLANS.get(id(rules))
    if got is not None and got[0] is rules:
        return got[1]
    n = rules.seats
    plan: Plan = (
        n,
        rules.fives,
        rules.pairs,
        rules.draws,
        rules.sides,
        tuple((s + 1) % n for s in range(n)),
        tuple(rules.side_of(s) for s in range(n)),
        rules.hand_size,
    )
    if len(_PLANS) > 1000:
        _PLANS.clear()
    _PLANS[id(rules)] = (rules, plan)  # holds ``rules``: its id stays its own
    return plan


assert ES_COUNT == 196
