"""How the bots value a play: the one play value and the one block value.

Every policy that weighs plays asks here: Fortgeschritten (:func:`.simple.play_score`),
Profi (:func:`.profi.block_value` on top of it), Meister's judgement of past plays
(:mod:`.meister`), the greedy policy of Meister's and the analysis's playouts
(:func:`greedy_es`, :func:`greedy_block_es`, used by :func:`.sample.playout`), and through
them the analysis. The rules (``domino.rules``) only say what is legal; the weights below are
policy, in "pips" units:

- shedding heavy tiles is the base (a tile's pips);
- keeping a follow-up play matters more than a few pips, because a seat that cannot play
  draws or passes (:data:`KEEP_ANY_FIT`, plus :data:`KEEP_EACH_FIT` per follow-up tile);
- doubles only fit one number, so they are shed early (:data:`DOUBLE_BONUS`);
- Fünferpunkte are real points (:data:`FIVES_WEIGHT`);
- going out beats everything (:data:`GO_OUT`);
- leaving ends the next seat cannot answer is worth :data:`BLOCK_WEIGHT` if it is an
  opponent (against us if it is the partner); each seat further on counts :data:`DECAY`
  times as much, since it sees the ends only if the ones before could not change them.

The greedy playout policy is the play value without :data:`KEEP_EACH_FIT` and without
:data:`GO_OUT` (:data:`GREEDY`), a light Fortgeschritten; its hot loop reads the static part
of the value from a table built by :func:`option` (``tests/bots/test_values.py`` checks it
against :func:`value_of`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Final

from domino.rules import TILES, Rules
from domino.rules.kernel import BIT, ES_COUNT, FIT, FIVES, PLACE, ends_state, plays_of

KEEP_ANY_FIT: Final = 6.0
KEEP_EACH_FIT: Final = 1.5
DOUBLE_BONUS: Final = 3.0
FIVES_WEIGHT: Final = 2.0
GO_OUT: Final = 1000.0
BLOCK_WEIGHT: Final = 8.0
DECAY: Final = 0.5


@dataclass(frozen=True, slots=True)
class Weights:
    """Which terms of the play value a policy counts besides the base ones."""

    each_fit: float = KEEP_EACH_FIT
    go_out: bool = True


#: Fortgeschritten's (and Profi's, and Meister's model of the other seats').
FULL: Final = Weights()
#: The greedy playout policy's: no per-tile follow-up term, no going-out bonus.
GREEDY: Final = Weights(each_fit=0.0, go_out=False)

#: A play as :func:`value_of` reads it: ``(tile bit, value without follow-ups, pips, tiles
#: fitting the ends after)``.
Option = tuple[int, float, int, int]


def option(mv: int, es: int, fives: bool, extra: float = 0.0) -> Option:
    """Play ``mv`` (a fitting ``Move.index``) on ends state ``es``, the parts of its value
    that do not depend on the hand: pips, the double bonus, the Fünferpunkte it scores
    (if ``fives``), and ``extra`` (a blocking term, say)."""
    t = TILES[mv >> 1]
    new = PLACE[mv * ES_COUNT + es]
    assert new >= 0, f"move {mv} does not fit"
    v = float(t.pips) + (DOUBLE_BONUS if t.is_double else 0.0)
    if fives:
        v += FIVES_WEIGHT * FIVES[new]
    return BIT[mv], v + extra, t.pips, FIT[new]


def value_of(hand: int, opt: Option, weights: Weights = FULL) -> float:
    """The play value of ``opt`` played from ``hand`` (which holds its tile)."""
    bit, v, pips, fit = opt
    rest = hand & ~bit
    if not rest and weights.go_out:
        return GO_OUT + pips
    follow = (rest & fit).bit_count()
    return v + KEEP_ANY_FIT + weights.each_fit * follow if follow else v


def play_value(hand: int, mv: int, es: int, fives: bool, weights: Weights = FULL) -> float:
    """The value of playing ``mv`` from ``hand`` on ends state ``es`` (the one play value)."""
    return value_of(hand, option(mv, es, fives), weights)


def alternatives(es: int) -> tuple[int, ...]:
    """Every play that fits ends state ``es``, whoever holds the tile (the kernel's
    generator over all tiles)."""
    return plays_of(FIT[es], es)


#: Per seat, the seats after it with their signed block weight (see :func:`block_weights`).
BlockRow = tuple[tuple[int, float], ...]


@cache
def block_weights(rules: Rules) -> tuple[BlockRow, ...]:
    """Per seat: ``(other seat, weight)`` for every seat after it in playing order, the next
    one :data:`BLOCK_WEIGHT`, each further one :data:`DECAY` times the one before; negative
    for a partner (Paare)."""
    n = rules.seats
    out = []
    for s in range(n):
        row = []
        w = BLOCK_WEIGHT
        for k in range(1, n):
            o = (s + k) % n
            sign = -1.0 if rules.pairs and rules.side_of(o) == rules.side_of(s) else 1.0
            row.append((o, sign * w))
            w *= DECAY
        out.append(tuple(row))
    return tuple(out)


def block_value(row: BlockRow, stuck: Callable[[int], float]) -> float:
    """The one block value: each seat of ``row`` weighted by ``stuck(seat)``, how likely it
    cannot answer the ends a play leaves (0 for a seat that holds no tile)."""
    value = 0.0
    for o, w in row:
        value += w * stuck(o)
    return value


#: ``_GREEDY_BASE[fives][mv * ES_COUNT + es]``: :func:`option`'s value without follow-ups
#: for every fitting play (0.0 where it does not fit), the greedy loop's table.
_GREEDY_BASE: Final = tuple(
    tuple(
        option(mv, es, f)[1] if PLACE[mv * ES_COUNT + es] >= 0 else 0.0
        for mv in range(2 * len(TILES))
        for es in range(ES_COUNT)
    )
    for f in (False, True)
)


def greedy_es(hand: int, es: int, fives: bool) -> int:
    """The greedy playout policy's play (a ``Move.index``) for a hand holding a fitting tile
    on ends state ``es``: the best :func:`value_of` with :data:`GREEDY`, the first of the
    kernel's order on a tie (inlined: it is the playouts' hot loop)."""
    base = _GREEDY_BASE[fives]
    best = -1
    best_score = -1.0
    for mv in plays_of(hand, es):
        i = mv * ES_COUNT + es
        score = base[i]
        if hand & ~BIT[mv] & FIT[PLACE[i]]:
            score += KEEP_ANY_FIT
        if score > best_score:
            best, best_score = mv, score
    return best


def greedy(hand: int, left: int, right: int, ld: bool, rd: bool, fives: bool) -> int:
    """:func:`greedy_es` given the open ends and whether a double forms each."""
    return greedy_es(hand, ends_state(left, right, ld, rd), fives)


def _stuck_in(hands: list[int], fit: int) -> Callable[[int], float]:
    # A seat of known hand is stuck (1) when it holds tiles and none of ``fit``.
    return lambda o: 1.0 if hands[o] and not hands[o] & fit else 0.0


def greedy_block_es(hands: list[int], seat: int, es: int, fives: bool, row: BlockRow) -> int:
    """:func:`greedy_es` for ``hands[seat]`` plus :func:`block_value` of the guessed hands:
    a seat of ``row`` is stuck (1) when it holds tiles and none fits the ends left."""
    hand = hands[seat]
    best = -1
    best_score = -float(1 << 30)
    for mv in plays_of(hand, es):
        opt = option(mv, es, fives)
        score = value_of(hand, opt, GREEDY) + block_value(row, _stuck_in(hands, opt[3]))
        if score > best_score:
            best, best_score = mv, score
    return best


__all__ = [
    "BLOCK_WEIGHT",
    "DECAY",
    "DOUBLE_BONUS",
    "FIVES_WEIGHT",
    "FULL",
    "GO_OUT",
    "GREEDY",
    "KEEP_ANY_FIT",
    "KEEP_EACH_FIT",
    "BlockRow",
    "Option",
    "Weights",
    "alternatives",
    "block_value",
    "block_weights",
    "greedy",
    "greedy_block_es",
    "greedy_es",
    "option",
    "play_value",
    "value_of",
]
