"""The match runtime: one running match with seats, clocks, commands and messages.

No sockets, no asyncio, no clock reads: every method takes ``now`` from the
caller's clock. The server builds on :class:`Table`; clients read the
snapshot format described in docs/match-state.md.
"""

from .commands import BACK_COMMAND, LEAVE_COMMAND, BackCommand, Command, LeaveCommand, MoveCommand
from .model import BOT, HUMAN, STANDIN_LEVEL, Outcome, Refusal, SeatSpec, SeatState, Timing
from .table import CommandError, RestoreError, Table
from .xp import level_for, level_progress, match_xp, xp_for_level

__all__ = [
    "BACK_COMMAND",
    "BOT",
    "HUMAN",
    "LEAVE_COMMAND",
    "STANDIN_LEVEL",
    "BackCommand",
    "Command",
    "CommandError",
    "LeaveCommand",
    "MoveCommand",
    "Outcome",
    "Refusal",
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
