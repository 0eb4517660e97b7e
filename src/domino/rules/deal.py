"""Dealing (RULES.md §4): from a seed or from an explicitly given deal.

A :class:`Deal` names every tile's place: each seat's hand, the Lager in
drawing order (``lager[0]`` is drawn first) and, with *Lager Aus*, the tiles
out of play. Tests and records write deals by hand; :func:`shuffled_deal`
makes one from a seeded generator.

>>> d = shuffled_deal(Rules(seats=3), seed=7)
>>> [len(h) for h in d.hands], len(d.lager), len(d.out)
([5, 5, 5], 13, 0)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

from .config import Rules
from .errors import InvalidDealError, InvalidTileError
from .kernel import plan_of
from .tiles import COUNT, TILES, Tile


@dataclass(frozen=True, slots=True)
class Deal:
    hands: tuple[tuple[Tile, ...], ...]
    lager: tuple[Tile, ...] = ()
    out: tuple[Tile, ...] = ()

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickle and copy by the constructor: compiled with mypyc, the default way of a
        # frozen dataclass (setting each field) is refused.
        return (Deal, (self.hands, self.lager, self.out))

    def validate(self, rules: Rules) -> None:
        """Raise :class:`InvalidDealError` unless this deal fits ``rules`` exactly."""
        if len(self.hands) != rules.seats:
            raise InvalidDealError(
                f"The deal has {len(self.hands)} hands for {rules.seats} seats.", "deal_seats"
            )
        size = rules.hand_size
        for seat, hand in enumerate(self.hands):
            if len(hand) != size:
                raise InvalidDealError(
                    f"Seat {seat} holds {len(hand)} tiles; these rules deal {size}.",
                    "deal_hand_size",
                )
        rest = COUNT - size * rules.seats
        if rules.draws:
            if self.out or len(self.lager) != rest:
                raise InvalidDealError(
                    f"With Lager on, the other {rest} tiles form the Lager "
                    f"(got {len(self.lager)} in the Lager, {len(self.out)} out of play).",
                    "deal_lager",
                )
        elif self.lager or len(self.out) != rest:
            raise InvalidDealError(
                f"Without a Lager, the other {rest} tiles are out of play "
                f"(got {len(self.out)} out of play, {len(self.lager)} in the Lager).",
                "deal_lager",
            )
        seen: set[int] = set()
        for t in (*[t for h in self.hands for t in h], *self.lager, *self.out):
            if t.index in seen:
                raise InvalidDealError(f"Tile {t} appears twice in the deal.", "deal_twice")
            seen.add(t.index)
        if len(seen) != COUNT:
            raise InvalidDealError("The deal does not hold all 28 tiles.", "deal_missing")

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [[str(t) for t in h] for h in self.hands],
            "lager": [str(t) for t in self.lager],
            "out": [str(t) for t in self.out],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Deal:
        """Read :meth:`to_dict`, or a record's deal
        (:func:`domino.rules.audience.public_deal`).

        Without ``"out"`` the tiles out of play are those in no hand and not in
        the Lager (in set order).
        """
        try:
            hands = tuple(tuple(Tile.parse(t) for t in h) for h in data["hands"])
            lager = tuple(Tile.parse(t) for t in data.get("lager", ()))
            if "out" in data:
                out = tuple(Tile.parse(t) for t in data["out"])
            else:
                placed = [t.index for t in (*[t for h in hands for t in h], *lager)]
                if len(set(placed)) != len(placed):  # else it would read as one too many out
                    twice = next(TILES[i] for i in placed if placed.count(i) > 1)
                    raise InvalidDealError(f"Tile {twice} appears twice in the deal.", "deal_twice")
                out = tuple(t for t in TILES if t.index not in placed)
            return cls(hands=hands, lager=lager, out=out)
        except InvalidTileError as exc:
            raise InvalidDealError(f"Unreadable deal: {exc}", "deal_unreadable") from exc
        except (KeyError, TypeError, AttributeError) as exc:
            raise InvalidDealError(
                "A deal needs 'hands' (a list of lists of tiles like \"6|2\").", "deal_unreadable"
            ) from exc


def shuffled_deal(rules: Rules, seed: object = None, rng: random.Random | None = None) -> Deal:
    """Shuffle all 28 tiles uniformly and deal them as ``rules`` say.

    Either ``rng`` (used and advanced) or ``seed`` (a fresh ``random.Random``).
    """
    if rng is None:
        rng = random.Random(seed)  # type: ignore[arg-type]
    order = tuple([TILES[i] for i in random_permutation(rng)])
    n, _, _, draws, _, _, _, size = plan_of(rules)
    hands = tuple([order[i * size : (i + 1) * size] for i in range(n)])
    rest = order[n * size :]
    if draws:
        return Deal(hands, rest, ())
    return Deal(hands, (), rest)


_PERMUTATIONS: Final = math.factorial(COUNT)
_TAIL: Final = 7  # the last digits are decoded by one table look-up


def _lehmer(code: int, size: int) -> tuple[int, ...]:
    pool = list(range(size))
    out = []
    for k in range(size, 0, -1):
        code, i = divmod(code, k)
        out.append(pool.pop(i))
    return tuple(out)


#: ``_TAIL_ORDER[c]`` picks, in order, the last seven tiles of the pool for code ``c``.
_TAIL_ORDER: Final = tuple(itemgetter(*_lehmer(c, _TAIL)) for c in range(math.factorial(_TAIL)))
#: The 21 mixed-radix digits above the tail, in groups whose radices multiply to a small
#: int: one big-int division per group, then the group's digits by small-int arithmetic
#: (the same digits as dividing by one radix after the other).
_GROUPS: Final[tuple[tuple[tuple[int, ...], int], ...]] = tuple(
    (radices, math.prod(radices))
    for radices in ((28, 27, 26, 25, 24, 23), (22, 21, 20, 19, 18), tuple(range(17, _TAIL, -1)))
)


def random_permutation(rng: random.Random) -> list[int]:
    """A uniformly random order of the 28 tile indices from one draw of ``rng``.

    One integer below 28! is drawn and read as a mixed-radix (Lehmer) code:
    a bijection between those integers and the permutations, so uniform in,
    uniform out, with one call into the generator instead of 27. The last seven
    digits (below 7!) are decoded by a table.

    >>> _lehmer(5, 3), list(_TAIL_ORDER[5](["a", "b", "c", "d", "e", "f", "g"]))[:3]
    ((2, 1, 0), ['f', 'a', 'b'])
    """
    n = rng.randrange(_PERMUTATIONS)
    pool = list(range(COUNT))
    out: list[int] = []
    for radices, size in _GROUPS:
        r = n % size
        n //= size
        for k in radices:
            out.append(pool.pop(r % k))
            r //= k
    out.extend(_TAIL_ORDER[n](pool))
    return out
