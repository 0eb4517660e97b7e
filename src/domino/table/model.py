"""Small value types of the match runtime: seat specs, timing, outcomes, seat state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from domino.bots import LEVELS
from domino.i18n import t

HUMAN: Final = "human"
BOT: Final = "bot"
#: The level that plays for absent players: timeouts, stand-ins, seats left (RULES.md §10).
STANDIN_LEVEL: Final = "fortgeschritten"

# Phases a snapshot reports.
PLAYING: Final = "playing"
ROUND_OVER: Final = "round_over"
MATCH_OVER: Final = "match_over"

# Kinds of log entries.
START: Final = "start"  # round 1 dealt and opened
MOVE: Final = "move"  # a human's move
BOT_MOVE: Final = "bot"  # a move of a bot seat, a stand-in or a seat whose player left
TIMEOUT: Final = "timeout"  # the turn ran out; payload names the automatic moves
BACK: Final = "back"  # the stand-in bot stands down
LEAVE: Final = "leave"  # the player left for good
ROUND: Final = "round"  # the next round dealt and opened after the pause
END: Final = "end"  # the match is over
HINT: Final = "hint"  # the seat's player used a hint (its content is not logged)

ENTRY_KINDS: Final = (START, MOVE, BOT_MOVE, TIMEOUT, BACK, LEAVE, ROUND, END, HINT)
#: Hints a seat may use per round at most (a lobby's setting chooses 0..this).
MAX_HINTS: Final = 3


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits on a seat at the start: a human (``player_id`` from the server) or a bot.

    >>> SeatSpec("bot", "Bot (Profi)", level="profi").level
    'profi'
    """

    kind: str
    name: str
    level: str | None = None
    player_id: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in (HUMAN, BOT):
            raise ValueError(f"A seat is taken by a human or a bot, not {self.kind!r}.")
        if self.kind == BOT and self.level not in LEVELS:
            raise ValueError(f"A bot seat needs a level of {LEVELS}, not {self.level!r}.")
        if self.kind == HUMAN and self.level is not None:
            raise ValueError("A human seat has no bot level.")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "level": self.level,
            "player_id": self.player_id,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatSpec:
        return cls(
            kind=str(data["kind"]),
            name=str(data["name"]),
            level=data.get("level"),
            player_id=data.get("player_id"),
        )


@dataclass(frozen=True, slots=True)
class Timing:
    """How the table paces itself (seconds).

    ``bot_delay`` is the range a bot's first action of a turn waits (drawn from a
    generator seeded by the match, so replays agree); ``bot_step_delay`` the wait
    between a bot's further actions in the same turn (draws, then the play);
    ``round_pause`` the look at the revealed hands before the next round;
    ``grace`` the extra time a human's clock gets when a match is restored.
    """

    bot_delay: tuple[float, float] = (0.8, 1.6)
    bot_step_delay: tuple[float, float] = (0.4, 0.8)
    round_pause: float = 6.0
    grace: float = 10.0

    def __post_init__(self) -> None:
        for lo, hi in (self.bot_delay, self.bot_step_delay):
            if not 0 < lo <= hi:
                raise ValueError("Bot delays must be positive ranges (low <= high).")
        if self.round_pause < 0 or self.grace < 0:
            raise ValueError("The round pause and the grace period cannot be negative.")


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused command: ``code`` is a catalogue key, ``params`` fill its text, ``v`` is
    the table's version (nothing changed). The server makes the error frame of it."""

    code: str
    v: int
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> str:
        """The German sentence the player reads."""
        return t(self.code, **self.params)


@dataclass(slots=True)
class Outcome:
    """What one call to the table changed.

    ``entries`` are the new log entries (persist them before sending anything);
    ``messages`` pairs an audience (a seat, or ``None`` for all spectators) with
    its message; ``error`` goes to the sender only; ``finished`` is true when
    the match ended with this outcome, ``xp`` then holds the XP per seat.
    """

    entries: list[dict[str, Any]] = field(default_factory=list)
    messages: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)
    error: Refusal | None = None
    finished: bool = False
    xp: list[int | None] | None = None


@dataclass(slots=True)
class SeatState:
    """A seat during the match: its spec plus what changed since the start."""

    spec: SeatSpec
    connected: bool
    standin: bool = False
    left: bool = False
    expired: int = 0  # consecutive turns that ran out (RULES.md §10)

    @property
    def human(self) -> bool:
        """A human player still sits here (standing in or not)."""
        return self.spec.kind == HUMAN and not self.left

    @property
    def bot_level(self) -> str | None:
        """The level of the bot that moves for this seat now, or ``None`` for the human."""
        if self.spec.kind == BOT:
            return self.spec.level
        if self.left or self.standin:
            return STANDIN_LEVEL
        return None

    def to_dict(self, seat: int, side: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "name": self.spec.name,
            "kind": self.spec.kind,
            "level": self.spec.level,
            "side": side,
            "connected": self.connected,
            "standin": self.standin,
            "left": self.left,
        }
