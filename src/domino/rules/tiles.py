"""Tiles of the double-six set (RULES.md §1).

Tiles are interned: there are exactly 28 :class:`Tile` objects, indexed
0..27, and every way of naming one returns the same object.

>>> t = Tile.parse("2|6")
>>> t, str(t), t.pips, t.is_double
(Tile.parse('6|2'), '6|2', 8, False)
>>> Tile.parse("6|2") is t
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .errors import InvalidTileError

HIGHEST: Final = 6
COUNT: Final = 28
_DIGITS: Final = "0123456789"  # a half is one ASCII digit (7-9 are refused as out of range)


class Tile:
    """One tile ``a|b`` with ``low <= high``; ``index`` is its place in :data:`TILES`."""

    __slots__ = ("high", "index", "is_double", "low", "mask", "pips", "text")

    low: int
    high: int
    index: int
    pips: int
    is_double: bool
    mask: int
    text: str

    def __init__(self, low: int, high: int, index: int) -> None:
        self.low = low
        self.high = high
        self.index = index
        self.pips = low + high
        self.is_double = low == high
        self.mask = 1 << index
        self.text = f"{high}|{low}"  # what __str__ returns, made once (messages use it a lot)

    @staticmethod
    def of(a: int, b: int) -> Tile:
        """The tile with halves ``a`` and ``b`` in either order."""
        if not (0 <= a <= HIGHEST and 0 <= b <= HIGHEST):
            raise InvalidTileError(
                f"{a}|{b} is not a tile: halves go from 0 to {HIGHEST}.", text=f"{a}|{b}"
            )
        return _BY_HALVES[a * 7 + b]

    @staticmethod
    def parse(text: object) -> Tile:
        """Parse ``"6|2"`` (order of halves free, spaces allowed).

        Only the ASCII digits count: ``"٦|٢"`` or ``"²|4"`` are no tiles.

        >>> Tile.parse(" 2 | 6 ")
        Tile.parse('6|2')
        >>> Tile.parse("٦|٢")
        Traceback (most recent call last):
        ...
        domino.rules.errors.InvalidTileError: '٦|٢' is not a tile; write it like 6|2.
        """
        parts = [p.strip(" \t\r\n") for p in text.split("|")] if isinstance(text, str) else []
        if len(parts) != 2 or not all(len(p) == 1 and p in _DIGITS for p in parts):
            raise InvalidTileError(
                f"{text!r} is not a tile; write it like 6|2.", text=str(text)[:40]
            )
        return Tile.of(_DIGITS.index(parts[0]), _DIGITS.index(parts[1]))

    def has(self, number: int) -> bool:
        """Whether one half shows ``number``."""
        return self.low == number or self.high == number

    def other(self, number: int) -> int:
        """The half opposite to ``number`` (which this tile must show)."""
        return self.high if self.low == number else self.low

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Tile.parse('{self.high}|{self.low}')"

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        return (Tile.of, (self.low, self.high))

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        # Equal is identical (interned). Spelled out: compiled with mypyc, a class that
        # defines a comparison inherits no hash.
        return self.index


def _build() -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    tiles: list[Tile] = []
    for low in range(HIGHEST + 1):
        for high in range(low, HIGHEST + 1):
            tiles.append(Tile(low, high, len(tiles)))
    by_halves = {}
    for t in tiles:
        by_halves[t.low * 7 + t.high] = t
        by_halves[t.high * 7 + t.low] = t
    return tuple(tiles), tuple(by_halves[i] for i in range(49))


_BUILT = _build()
TILES: Final[tuple[Tile, ...]] = _BUILT[0]
_BY_HALVES: Final[tuple[Tile, ...]] = _BUILT[1]

#: ``WITH[n]``: bitmask of the tiles that show ``n`` on a half.
WITH: Final[tuple[int, ...]] = tuple(
    sum(t.mask for t in TILES if t.has(n)) for n in range(HIGHEST + 1)
)
ALL_MASK: Final = (1 << COUNT) - 1


def _chunk_tiles(base: int, chunk: int) -> tuple[Tile, ...]:
    return tuple(TILES[base + i] for i in range(7) if chunk >> i & 1)


#: ``_TILES7[k][c]``: the tiles of 7-bit chunk ``c`` of a mask's ``k``-th seven bits.
_TILES7: Final = tuple(
    tuple(_chunk_tiles(base, chunk) for chunk in range(128)) for base in (0, 7, 14, 21)
)


def tiles_of(mask: int) -> tuple[Tile, ...]:
    """The tiles of a bitmask, in index order (four table look-ups).

    >>> tiles_of(0b101 | 1 << 27)
    (Tile.parse('0|0'), Tile.parse('2|0'), Tile.parse('6|6'))
    """
    t = _TILES7
    return t[0][mask & 127] + t[1][mask >> 7 & 127] + t[2][mask >> 14 & 127] + t[3][mask >> 21]


def mask_of(tiles: Iterable[Tile]) -> int:
    """The bitmask of an iterable of tiles."""
    m = 0
    for t in tiles:
        m |= t.mask
    return m


_PIPS7: Final = tuple(
    tuple(sum(TILES[base + i].pips for i in range(7) if chunk >> i & 1) for chunk in range(128))
    for base in (0, 7, 14, 21)
)


def pips_of(mask: int) -> int:
    """Sum of pips of the tiles in a bitmask (four table look-ups)."""
    p = _PIPS7
    return p[0][mask & 127] + p[1][mask >> 7 & 127] + p[2][mask >> 14 & 127] + p[3][mask >> 21]
