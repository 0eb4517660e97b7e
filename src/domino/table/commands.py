"""What a seated player may ask of the table: the typed commands :meth:`Table.command` takes.

The server builds one from the client's message once, after its schema checked it
(``domino.server.protocol``); the table trusts the type and asks the rules whether a
move is legal. A move stays text here: the rules parse it (``Move.parse``) and name
what is wrong with it.

>>> MoveCommand("6|2 L", 3).kind, BACK_COMMAND.kind, LEAVE_COMMAND.kind
('move', 'back', 'leave')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from .model import BACK, HINT, LEAVE, MOVE


@dataclass(frozen=True, slots=True)
class MoveCommand:
    """Make ``move`` (its text, e.g. ``6|2 L``, ``D``, ``P``), seen at log version ``v``."""

    kind: ClassVar[str] = MOVE
    move: str
    v: int


@dataclass(frozen=True, slots=True)
class BackCommand:
    """*Ich bin wieder da*: the stand-in bot steps down."""

    kind: ClassVar[str] = BACK


@dataclass(frozen=True, slots=True)
class LeaveCommand:
    """Leave the match for good; a bot takes the seat."""

    kind: ClassVar[str] = LEAVE


@dataclass(frozen=True, slots=True)
class HintCommand:
    """*Tipp*: Meister's choice for the seat, asked at log version ``v`` (the server
    computes it off the event loop and logs only that a hint was used:
    :meth:`Table.hint_view`, :meth:`Table.use_hint`)."""

    kind: ClassVar[str] = HINT
    v: int


Command = MoveCommand | BackCommand | LeaveCommand | HintCommand
BACK_COMMAND: Final = BackCommand()
LEAVE_COMMAND: Final = LeaveCommand()

__all__ = [
    "BACK_COMMAND",
    "LEAVE_COMMAND",
    "BackCommand",
    "Command",
    "HintCommand",
    "LeaveCommand",
    "MoveCommand",
]
