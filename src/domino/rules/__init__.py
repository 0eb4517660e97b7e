"""The rules engine: pure, deterministic given the deal (RULES.md §1-§9).

No I/O, no clock, no logging, no global random state. Build a
:class:`MatchState` (or a single :class:`RoundState`), ask it for
``legal_moves()``, ``apply()`` moves, and show audiences only :func:`view`.
"""

# First: whether the compiled modules (mypyc, built by `make`) or their sources are imported.
from . import native  # noqa: F401
from .config import MAX_ROUNDS, Mode, Rules
from .deal import Deal, shuffled_deal
from .errors import (
    IllegalMoveError,
    InvalidDealError,
    InvalidMoveError,
    InvalidRulesError,
    InvalidTileError,
    NotYourTurnError,
    RecordError,
    RoundOverError,
    RulesError,
)
from .match import MatchState, Standing, rank
from .moves import DRAW, DRAW_MOVE, MOVES, PASS, PASS_MOVE, PLAY, Move
from .round import BLOCKED, DOMINO, OPEN, Event, RoundResult, RoundState, round_to_fives
from .tiles import TILES, WITH, Tile, tiles_of
from .view import PublicEvent, SeatView, private_part, view

__all__ = [
    "BLOCKED",
    "DOMINO",
    "DRAW",
    "DRAW_MOVE",
    "MAX_ROUNDS",
    "MOVES",
    "OPEN",
    "PASS",
    "PASS_MOVE",
    "PLAY",
    "TILES",
    "WITH",
    "Deal",
    "Event",
    "IllegalMoveError",
    "InvalidDealError",
    "InvalidMoveError",
    "InvalidRulesError",
    "InvalidTileError",
    "MatchState",
    "Mode",
    "Move",
    "NotYourTurnError",
    "PublicEvent",
    "RecordError",
    "RoundOverError",
    "RoundResult",
    "RoundState",
    "Rules",
    "RulesError",
    "SeatView",
    "Standing",
    "Tile",
    "private_part",
    "rank",
    "round_to_fives",
    "shuffled_deal",
    "tiles_of",
    "view",
]
