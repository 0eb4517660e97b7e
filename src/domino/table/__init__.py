"""The match runtime: one running match with seats, clocks, commands and messages.

No sockets, no asyncio, no clock reads: every method takes ``now`` from the
caller's clock. The server builds on :class:`Table`; clients read the
snapshot format described in docs/match-state.md.
"""

from .model import BOT, HUMAN, STANDIN_LEVEL, Outcome, SeatSpec, SeatState, Timing
from .table import CommandError, RestoreError, Table
from .xp import level_for, level_progress, match_xp, xp_for_level

__all__ = [
    "BOT",
    "HUMAN",
    "STANDIN_LEVEL",
    "CommandError",
    "Outcome",
    "RestoreError",
    "SeatSpec",
    "SeatState",
    "Table",
    "Timing",
    "level_for",
    "level_progress",
    "match_xp",
    "xp_for_level",
]
