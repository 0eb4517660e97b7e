"""Lobbies: seats, watchers, host and rules before a match (docs/protocol.md).

A :class:`Lobby` is plain data plus the rules of changing it; each method
either changes it or raises :class:`LobbyError` and changes nothing. The
service persists the lobby after every change and tells everyone in it.
"""

from __future__ import annotations

import secrets
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any, Final

from domino.bots import LEVEL_NAMES, LEVELS
from domino.i18n import t
from domino.rules import InvalidRulesError, Mode, Rules
from domino.server.protocol import LobbyOut, RulesPatch, SeatOut, WatcherOut
from domino.table.model import MAX_HINTS

# No 0/O, 1/I/L: codes are read aloud and typed from a phone.
CODE_ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH: Final = 8  # 31**8 ≈ 8.5e11 codes: unguessable at the socket's message budget

OPEN: Final = "open"
PLAYING: Final = "playing"
CLOSED: Final = "closed"


class LobbyError(Exception):
    """A refused lobby action; ``code`` is a catalogue key."""

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def new_code() -> str:
    """A fresh random lobby code."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(raw: str) -> str:
    """A typed or pasted code in canonical form, or :class:`LobbyError` ``lobby_bad_code``.

    >>> normalize_code(" k7q2-mx9p ")
    'K7Q2MX9P'
    """
    code = "".join(ch for ch in raw.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise LobbyError("lobby_bad_code")
    return code


def bot_name(seat: int, level: str) -> str:
    """The display name of a bot on ``seat``: ``Bot 2 (Profi)``."""
    return t("bot_name", n=seat + 1, level=LEVEL_NAMES.get(level, level))


@dataclass
class Occupant:
    """Who sits on a seat: a human (``player`` set) or a bot (``level`` set)."""

    kind: str
    player: str | None = None
    name: str = ""
    level: str | None = None


@dataclass
class Lobby:
    """One lobby; ``watchers`` maps profile id → name, in order of arrival."""

    code: str
    host: str | None
    rules: Rules = field(default_factory=Rules)
    seats: list[Occupant | None] = field(default_factory=list)
    watchers: dict[str, str] = field(default_factory=dict)
    status: str = OPEN
    match: str | None = None
    created_at: float = 0.0
    #: *gewertet*: the matches of this lobby change the players' ratings (issue 23)
    rated: bool = False
    #: The match that ended last here: ``{"match", "names"}`` (its seats' names), for
    #: *Revanche* (desks/rematch.py).
    last: dict[str, Any] | None = None
    #: A proposed *Revanche* (desks/rematch.py), or ``None``.
    rematch: dict[str, Any] | None = None
    #: Hints (*Tipp*) per round and seat, 0..MAX_HINTS (0: off); kept in the rules' JSON.
    hints: int = MAX_HINTS

    @classmethod
    def create(cls, code: str, host: str, name: str, seats: int, now: float) -> Lobby:
        """A new lobby with its host on seat 0 and Klassisch rules."""
        if seats not in (2, 3, 4):
            raise LobbyError("bad_seats")
        lobby = cls(
            code, host, Rules.preset(Mode.KLASSISCH, seats), [None] * seats, {}, OPEN, None, now
        )
        lobby.seats[0] = Occupant("human", host, name)
        return lobby

    # -- who is here -------------------------------------------------------------------
    def seat_of(self, player: str) -> int | None:
        """The seat ``player`` sits on, or ``None``."""
        for i, o in enumerate(self.seats):
            if o is not None and o.player == player:
                return i
        return None

    def members(self) -> list[str]:
        """Everyone in the lobby: seated humans, then watchers."""
        seated = [o.player for o in self.seats if o is not None and o.player is not None]
        return seated + [p for p in self.watchers if p not in seated]

    def rename(self, player: str, name: str) -> bool:
        """``player`` is called ``name`` now (on their seat or as a watcher); ``False``
        when nothing shows their name differently."""
        changed = False
        for o in self.seats:
            if o is not None and o.player == player and o.name != name:
                o.name, changed = name, True
        if player in self.watchers and self.watchers[player] != name:
            self.watchers[player], changed = name, True
        return changed

    def humans(self) -> int:
        """How many humans are seated."""
        return sum(1 for o in self.seats if o is not None and o.kind == "human")

    @property
    def can_start(self) -> bool:
        """Every seat taken, at least one human, and no match running."""
        return self.status == OPEN and all(self.seats) and self.humans() > 0

    # -- changes -----------------------------------------------------------------------
    def _need_open(self) -> None:
        if self.status != OPEN:
            raise LobbyError("lobby_not_open")

    def _need_host(self, actor: str) -> None:
        if actor != self.host:
            raise LobbyError("not_host")
        self._need_open()

    def _seat_index(self, seat: int) -> int:
        if not 0 <= seat < len(self.seats):
            raise LobbyError("bad_seat")
        return seat

    def join(self, player: str, name: str, watch: bool) -> None:
        """Enter on the first free seat, or as a watcher (also when the lobby is playing)."""
        if player in self.members():
            return
        free = [i for i, o in enumerate(self.seats) if o is None]
        if watch or not free or self.status != OPEN:
            self.watchers[player] = name
        else:
            self.seats[free[0]] = Occupant("human", player, name)
        if self.host is None:
            self.host = player

    def take_seat(self, player: str, name: str, seat: int) -> None:
        """Sit on a free seat (moving from another seat or from the watchers)."""
        self._need_open()
        i = self._seat_index(seat)
        if player not in self.members():
            raise LobbyError("not_in_lobby")
        if self.seats[i] is not None:
            if self.seats[i].player == player:  # type: ignore[union-attr]
                return
            raise LobbyError("seat_taken")
        old = self.seat_of(player)
        if old is not None:
            self.seats[old] = None
        self.watchers.pop(player, None)
        self.seats[i] = Occupant("human", player, name)

    def leave_seat(self, player: str, name: str) -> None:
        """Stand up and watch."""
        self._need_open()
        old = self.seat_of(player)
        if old is None:
            raise LobbyError("not_in_lobby" if player not in self.members() else "bad_seat")
        self.seats[old] = None
        self.watchers[player] = name

    def leave(self, player: str) -> bool:
        """Leave; returns ``True`` when no human is left and the lobby closes.

        While a match runs, the match keeps its own seat for the player; the lobby's
        seat (kept for the next match) is freed either way.
        """
        old = self.seat_of(player)
        if old is not None:
            self.seats[old] = None
        self.watchers.pop(player, None)
        if self.host == player or self.host not in self.members():
            self._pass_host(exclude=player)
        if not self.members() and self.status == OPEN:
            self.status = CLOSED
            return True
        return False

    def _pass_host(self, exclude: str) -> None:
        # Seated humans in seat order first, then watchers in order of arrival.
        self.host = next((p for p in self.members() if p != exclude), None)

    def add_bot(self, actor: str, seat: int, level: str) -> None:
        """Host: a bot of ``level`` on a free seat."""
        self._need_host(actor)
        i = self._seat_index(seat)
        if level not in LEVELS:
            raise LobbyError("bad_level")
        if self.seats[i] is not None:
            raise LobbyError("seat_taken")
        self.seats[i] = Occupant("bot", None, bot_name(i, level), level)

    def fill_bots(self, actor: str, level: str) -> int:
        """Host: a bot of ``level`` on every free seat; returns how many were seated."""
        self._need_host(actor)
        if level not in LEVELS:
            raise LobbyError("bad_level")
        free = [i for i, o in enumerate(self.seats) if o is None]
        for i in free:
            self.seats[i] = Occupant("bot", None, bot_name(i, level), level)
        return len(free)

    def remove_bot(self, actor: str, seat: int) -> None:
        """Host: free a bot's seat."""
        self._need_host(actor)
        i = self._seat_index(seat)
        occ = self.seats[i]
        if occ is None or occ.kind != "bot":
            raise LobbyError("seat_not_bot")
        self.seats[i] = None

    def set_rules(self, actor: str, patch: RulesPatch) -> None:
        """Host: *Modus* first (its presets), then each single rule given (RULES.md §3)."""
        self._need_host(actor)
        given = patch.model_fields_set
        rules = self.rules
        hints = self.hints
        if "hints" in given:
            if patch.hints is None or not 0 <= patch.hints <= MAX_HINTS:
                raise LobbyError("bad_hints")
            hints = patch.hints
        try:
            if "mode" in given:
                if patch.mode is None or patch.mode not in {m.value for m in Mode}:
                    raise LobbyError("bad_mode")
                rules = rules.with_mode(patch.mode)
            changes: dict[str, Any] = {}
            for key in ("seats", "target", "turn_seconds", "lager", "fives", "pairs"):
                if key in given:
                    value = getattr(patch, key)
                    if value is None and key != "target":
                        raise LobbyError(
                            "bad_" + key if key in ("seats", "turn_seconds") else "bad_rules"
                        )
                    changes[key] = value
            rules = rules.replace(**changes)
        except InvalidRulesError as exc:
            raise LobbyError(exc.code) from exc
        seats = self._resized(rules.seats)
        self.rules = rules
        self.seats = seats
        self.hints = hints

    def rules_dict(self) -> dict[str, Any]:
        """The rules as stored and shown: the game's rules plus the lobby's ``hints``."""
        return {**self.rules.to_dict(), "hints": self.hints}

    def set_rated(self, actor: str, rated: bool) -> None:
        """Host: mark the lobby's next matches *gewertet* or not. Like the rules, only
        while no match runs: a started match keeps what it started with."""
        self._need_host(actor)
        self.rated = rated

    def _resized(self, n: int) -> list[Occupant | None]:
        # Occupants of dropped seats move to free lower seats, in seat order; bots keep
        # their level and get the name of their new seat.
        if n >= len(self.seats):
            return self.seats + [None] * (n - len(self.seats))
        occupants = [o for o in self.seats if o is not None]
        if len(occupants) > n:
            raise LobbyError("seats_occupied", seats=n)
        out = self.seats[:n]
        for o in self.seats[n:]:
            if o is None:
                continue
            i = out.index(None)
            if o.kind == "bot" and o.level:
                o = Occupant("bot", None, bot_name(i, o.level), o.level)
            out[i] = o
        return out

    def check_start(self, actor: str) -> None:
        """Host: raise unless the match can start now."""
        self._need_host(actor)
        if not all(self.seats):
            raise LobbyError("seats_not_full")
        if self.humans() == 0:
            raise LobbyError("no_humans")

    # -- forms -------------------------------------------------------------------------
    def out(self, base_url: str, online: Container[str]) -> LobbyOut:
        """The lobby as every member sees it."""
        seats = []
        for i, o in enumerate(self.seats):
            seats.append(
                SeatOut(
                    seat=i,
                    kind=o.kind if o else None,  # type: ignore[arg-type]
                    name=o.name if o else None,
                    player=o.player if o else None,
                    level=o.level if o else None,
                    host=bool(o and o.player is not None and o.player == self.host),
                    online=bool(o and (o.kind == "bot" or o.player in online)),
                )
            )
        return LobbyOut(
            code=self.code,
            link=share_link(base_url, self.code),
            status=self.status,  # type: ignore[arg-type]
            host=self.host,
            rules=self.rules_dict(),
            target_points=self.rules.target_points,
            seats=seats,
            watchers=[
                WatcherOut(player=p, name=n, online=p in online) for p, n in self.watchers.items()
            ],
            match=self.match,
            can_start=self.can_start,
            rated=self.rated,
        )

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "code": self.code,
            "host": self.host,
            "rules": self.rules_dict(),
            "seats": [None if o is None else vars(o).copy() for o in self.seats],
            "watchers": [[p, n] for p, n in self.watchers.items()],
            "status": self.status,
            "match": self.match,
            "created_at": self.created_at,
            "rated": self.rated,
            "last": self.last,
            "rematch": self.rematch,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Lobby:
        """Read the stored form back."""
        return cls(
            code=d["code"],
            host=d["host"],
            rules=Rules.from_dict(d["rules"]),
            seats=[None if o is None else Occupant(**o) for o in d["seats"]],
            watchers={p: n for p, n in d["watchers"]},
            status=d["status"],
            match=d["match"],
            created_at=d.get("created_at", 0.0),
            rated=bool(d.get("rated", False)),
            last=d.get("last"),
            rematch=d.get("rematch"),
            hints=_hints_of(d["rules"]),
        )


def _hints_of(rules: dict[str, Any]) -> int:
    """The stored ``hints`` setting; a missing or malformed one is the default."""
    hints = rules.get("hints", MAX_HINTS)
    return hints if type(hints) is int and 0 <= hints <= MAX_HINTS else MAX_HINTS


def share_link(base_url: str, code: str) -> str:
    """The link that opens a lobby in the browser client (hash routing)."""
    return f"{base_url}/#/lobby/{code}"
