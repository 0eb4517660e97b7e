"""The rules engine: pure, deterministic given the deal (RULES.md §1-§9).

No I/O, no clock, no logging, no global random state. Build a
:class:`MatchState` (or a single :class:`RoundState`), ask it for
``legal_moves()``, ``apply()`` moves, and show each audience only what
:mod:`~domino.rules.audience` decides.
"""

# First: whether the compiled modules (mypyc, built by `make`) or their sources are imported.
from . import native  # noqa: F401
from .audience import (
    EVERYONE,
    SPECTATORS,
    Audience,
    PublicEvent,
    SeatView,
    hand_text,
    private_part,
    seen_tile,
    sees_hand,
    view,
)
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

__all__ = [
    "BLOCKED",
    "DOMINO",
    "DRAW",
    "DRAW_MOVE",
    "EVERYONE",
    "MAX_ROUNDS",
    "MOVES",
    "OPEN",
    "PASS",
    "PASS_MOVE",
    "PLAY",
    "SPECTATORS",
    "TILES",
    "WITH",
    "Audience",
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
    "hand_text",
    "private_part",
    "rank",
    "round_to_fives",
    "seen_tile",
    "sees_hand",
    "shuffled_deal",
    "tiles_of",
    "view",
]
