"""Moves: play a tile at an end, draw, pass (RULES.md §6).

Moves are interned value objects with a text form that round-trips.

>>> Move.parse("2|6 r"), str(Move.parse("6|2 R")), Move.parse("D"), Move.parse("P")
(Move.parse('6|2 R'), '6|2 R', Move.parse('D'), Move.parse('P'))
>>> Move.play(Tile.parse("6|2"), "L") is Move.parse("6|2 L")
True
"""

from __future__ import annotations

import re
from typing import Final, Literal

from .errors import InvalidMoveError, InvalidTileError
from .tiles import TILES, Tile

End = Literal["L", "R"]
LEFT: Final = "L"
RIGHT: Final = "R"

PLAY: Final = "play"
DRAW: Final = "draw"
PASS: Final = "pass"

_SPACE: Final = " \t\r\n"
_SPLIT: Final = re.compile("[ \t\r\n]+")


class Move:
    """``kind`` is play/draw/pass; ``tile`` and ``end`` are set for plays only."""

    __slots__ = ("end", "index", "kind", "tile")

    kind: str
    tile: Tile | None
    end: End | None
    index: int

    def __init__(self, kind: str, tile: Tile | None, end: End | None, index: int) -> None:
        self.kind = kind
        self.tile = tile
        self.end = end
        self.index = index

    @staticmethod
    def play(tile: Tile, end: object) -> Move:
        if end not in ("L", "R"):
            raise InvalidMoveError(f"The end must be L or R, not {end!r}.", "bad_end")
        return MOVES[tile.index * 2 + (end == "R")]

    @staticmethod
    def parse(text: object) -> Move:
        """Parse ``"6|2 L"``, ``"6|2 R"``, ``"D"`` (draw) or ``"P"`` (pass)."""
        if not isinstance(text, str):
            raise InvalidMoveError(
                f"{str(text)[:40]!r} is not a move.", "bad_move_text", text=str(text)[:40]
            )
        # ASCII only: spaces, tabs and line ends separate, the letters are ASCII
        # (no-break or ideographic spaces, fullwidth letters are refused).
        t = text.strip(_SPACE).upper()
        if t == "D":
            return DRAW_MOVE
        if t == "P":
            return PASS_MOVE
        parts = [p for p in re.split(_SPLIT, t) if p]
        if len(parts) != 2 or parts[1] not in ("L", "R"):
            raise InvalidMoveError(
                f"{text[:40]!r} is not a move; write 6|2 L, 6|2 R, D or P.",
                "bad_move_text",
                text=text[:40],
            )
        try:
            tile = Tile.parse(parts[0])
        except InvalidTileError as exc:
            raise InvalidMoveError(str(exc), "bad_move_text", text=text[:40]) from exc
        return Move.play(tile, parts[1])

    @property
    def is_play(self) -> bool:
        return self.kind == PLAY

    def __str__(self) -> str:
        if self.kind == PLAY:
            return f"{self.tile} {self.end}"
        return "D" if self.kind == DRAW else "P"

    def __repr__(self) -> str:
        return f"Move.parse('{self}')"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Move.parse, (str(self),))


def _build() -> tuple[Move, ...]:
    moves = []
    for t in TILES:
        moves.append(Move(PLAY, t, "L", t.index * 2))
        moves.append(Move(PLAY, t, "R", t.index * 2 + 1))
    moves.append(Move(DRAW, None, None, 56))
    moves.append(Move(PASS, None, None, 57))
    return tuple(moves)


#: All 58 moves: ``MOVES[2*i]`` plays tile i left, ``MOVES[2*i+1]`` right, then D, P.
MOVES: Final = _build()
DRAW_MOVE: Final = MOVES[56]
PASS_MOVE: Final = MOVES[57]
