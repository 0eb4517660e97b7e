"""Client → server: the messages a socket may send, parsed strictly once at the edge."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from domino.i18n import t
from domino.table.commands import (
    BACK_COMMAND,
    LEAVE_COMMAND,
    BackCommand,
    HintCommand,
    LeaveCommand,
    MoveCommand,
)

PROTOCOL_VERSION = 1

Ref = Annotated[str | None, Field(default=None, max_length=40)]
MatchId = Annotated[str, Field(min_length=1, max_length=40)]


class ProtocolError(Exception):
    """Input the protocol refuses: ``code`` is a catalogue key, ``params`` its values."""

    def __init__(self, code: str, ref: str | None = None, /, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.ref = ref
        self.params = params


#: What every client message and REST body is validated with: nothing coerced.
_STRICT_IN = ConfigDict(extra="forbid", frozen=True, strict=True)


class _In(BaseModel):
    model_config = _STRICT_IN
    ref: Ref = None


# -- client -> server ------------------------------------------------------------------
class Hello(_In):
    """The first message on every socket: who is speaking."""

    type: Literal["hello"]
    token: str = Field(min_length=1, max_length=200)
    protocol: int = PROTOCOL_VERSION


class Ping(_In):
    """Keep-alive; answered with ``pong``."""

    type: Literal["ping"]


class ListLobbies(_In):
    """Ask for the open lobbies and running matches."""

    type: Literal["list_lobbies"]


class CreateLobby(_In):
    """Open a new lobby; the sender becomes host on seat 0."""

    type: Literal["create_lobby"]
    seats: int = 2


class JoinLobby(_In):
    """Enter a lobby by its code: on the first free seat, or watching."""

    type: Literal["join_lobby"]
    code: str = Field(min_length=1, max_length=32)
    watch: bool = False


class TakeSeat(_In):
    """Sit on a free seat of the lobby."""

    type: Literal["take_seat"]
    seat: int


class LeaveSeat(_In):
    """Stand up and stay in the lobby as a watcher."""

    type: Literal["leave_seat"]


class LeaveLobby(_In):
    """Leave the lobby."""

    type: Literal["leave_lobby"]


class AddBot(_In):
    """Host: put a bot of ``level`` on a free seat."""

    type: Literal["add_bot"]
    seat: int
    level: str = Field(max_length=32)


class RemoveBot(_In):
    """Host: take the bot off a seat."""

    type: Literal["remove_bot"]
    seat: int


class RulesPatch(BaseModel):
    """Rules to change (RULES.md §3): ``mode`` first, then the single rules given.

    ``target: null`` means *Automatisch*; a rule left out keeps its value.
    """

    model_config = _STRICT_IN
    mode: str | None = Field(default=None, max_length=32)
    seats: int | None = None
    target: int | None = None
    turn_seconds: int | None = None
    lager: bool | None = None
    fives: bool | None = None
    pairs: bool | None = None
    hints: int | None = None


class FillBots(_In):
    """Host: put a bot of ``level`` on every free seat."""

    type: Literal["fill_bots"]
    level: str = Field(max_length=32)


class QuickGame(_In):
    """*Schnelles Spiel*: a new lobby with ``seats`` seats, bots of ``level`` on every
    seat but the sender's, Klassisch rules, started at once (one step). ``leave``: the
    sender agreed to leave the lobby it is in for it (else that is ``already_in_lobby``)."""

    type: Literal["quick_game"]
    seats: int = 2
    level: str = Field(default="fortgeschritten", max_length=32)
    leave: bool = False


class QueueJoin(_In):
    """*Mit Menschen spielen*: wait for people of the same choice (issue 23). ``seats``:
    ``"2"``, ``"3"``, ``"4"`` or ``"paare"``; ``mode``: a Modus; ``wait``: the longest
    wait in seconds before bots fill the empty seats (30, 60, 180), 0 for *nur Menschen*.
    ``leave``: the sender agreed to leave the lobby it is in (as in ``quick_game``)."""

    type: Literal["queue_join"]
    seats: str = Field(max_length=8)
    mode: str = Field(default="klassisch", max_length=32)
    wait: int = 60
    leave: bool = False


class QueueLeave(_In):
    """Stop waiting in the matchmaking queue."""

    type: Literal["queue_leave"]


class SetRules(_In):
    """Host: change the lobby's rules."""

    type: Literal["set_rules"]
    rules: RulesPatch


class SetRated(_In):
    """Host: mark the lobby's matches *gewertet* (rated) or not, before a match starts."""

    type: Literal["set_rated"]
    rated: bool


class Start(_In):
    """Host: start the match (every seat taken)."""

    type: Literal["start"]


class MoveCmd(_In):
    """A seat's move, made on version ``v``."""

    type: Literal["move"]
    match: MatchId
    move: str = Field(max_length=16)
    v: int

    def command(self) -> MoveCommand:
        """The table's command (the rules parse the move's text)."""
        return MoveCommand(self.move, self.v)


class Back(_In):
    """*Ich bin wieder da*: the stand-in bot steps down."""

    type: Literal["back"]
    match: MatchId

    def command(self) -> BackCommand:
        """The table's command."""
        return BACK_COMMAND


class LeaveMatch(_In):
    """Leave the match for good; a bot takes the seat."""

    type: Literal["leave_match"]
    match: MatchId

    def command(self) -> LeaveCommand:
        """The table's command."""
        return LEAVE_COMMAND


class Hint(_In):
    """*Tipp*: Meister's choice for the sender's seat, asked on version ``v`` (unrated
    games with bots, the lobby's limit per round; docs/protocol.md)."""

    type: Literal["hint"]
    match: MatchId
    v: int

    def command(self) -> HintCommand:
        """The table's command."""
        return HintCommand(self.v)


class Watch(_In):
    """Watch a running match as a spectator."""

    type: Literal["watch"]
    match: MatchId


class Unwatch(_In):
    """Stop watching a match."""

    type: Literal["unwatch"]
    match: MatchId


class Sync(_In):
    """Ask for a fresh snapshot of a match one sits in or watches."""

    type: Literal["sync"]
    match: MatchId


class History(_In):
    """Ask for the public events of a match's earlier rounds (a reloaded page's log)."""

    type: Literal["history"]
    match: MatchId


class Rematch(_In):
    """*Revanche* after ``match`` ended: propose the same table again, or accept the
    proposal (``accept``); ``accept: false`` declines it."""

    type: Literal["rematch"]
    match: MatchId
    accept: bool = True


class RematchFollow(_In):
    """A spectator of the finished ``match`` hears its *Revanche* (who accepted)."""

    type: Literal["rematch_follow"]
    match: MatchId


class Invite(_In):
    """Invite a recent opponent (``profile``) to the sender's open lobby."""

    type: Literal["invite"]
    profile: str = Field(min_length=1, max_length=40)


class Say(_In):
    """Free text (table talk): ``room`` ``lobby`` (the sender's lobby) or ``match`` (the
    match ``match``, among its spectators). Cleaned and checked by the server (at most
    200 characters after cleaning); a longer text is refused with ``talk_too_long``."""

    type: Literal["say"]
    room: Literal["lobby", "match"]
    match: Annotated[str | None, Field(default=None, max_length=40)] = None
    text: str = Field(max_length=8192)


class React(_In):
    """A reaction (one of the fixed set) at the sender's seat, or as a spectator."""

    type: Literal["react"]
    match: MatchId
    key: str = Field(max_length=32)


class Block(_In):
    """Block (``on``) or unblock a profile: its messages and reactions are hidden."""

    type: Literal["block"]
    profile: str = Field(min_length=1, max_length=40)
    on: bool = True


class ListBlocks(_In):
    """Ask for the profiles one blocked (answered with ``blocks``)."""

    type: Literal["list_blocks"]


class Report(_In):
    """*Melden*: a message (its id) for the moderators."""

    type: Literal["report"]
    message: int = Field(ge=1, le=2**31 - 1)


class TalkLog(_In):
    """Ask for a room's earlier messages (answered with ``talk_log``)."""

    type: Literal["talk_log"]
    room: Literal["lobby", "match"]
    match: Annotated[str | None, Field(default=None, max_length=40)] = None


ClientMessage = Annotated[
    Hello
    | Ping
    | ListLobbies
    | CreateLobby
    | JoinLobby
    | TakeSeat
    | LeaveSeat
    | LeaveLobby
    | AddBot
    | RemoveBot
    | FillBots
    | QuickGame
    | QueueJoin
    | QueueLeave
    | SetRules
    | SetRated
    | Start
    | MoveCmd
    | Back
    | LeaveMatch
    | Hint
    | Watch
    | Unwatch
    | Sync
    | History
    | Rematch
    | RematchFollow
    | Invite
    | Say
    | React
    | Block
    | ListBlocks
    | Report
    | TalkLog,
    Field(discriminator="type"),
]
_CLIENT = TypeAdapter(ClientMessage)
#: A seat's command for its match: what the match desk takes (and, in a cluster,
#: forwards as its ``model_dump()`` to the node that drives the match).
MatchCommand = MoveCmd | Back | LeaveMatch | Hint
_COMMAND: TypeAdapter[MatchCommand] = TypeAdapter(
    Annotated[MatchCommand, Field(discriminator="type")]
)
CLIENT_TYPES = frozenset(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in _In.__subclasses__()
)


def parse_client(raw: str) -> BaseModel:
    """Parse one text frame from a client, or raise :class:`ProtocolError`.

    A good message is parsed and validated in one pass (pydantic's JSON mode,
    strict); only a refused one is read again to say what is wrong with it.
    """
    try:
        msg: BaseModel = _CLIENT.validate_json(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
    else:
        return msg
    if first["type"] == "json_invalid":  # also lone surrogates, nesting over 200 deep
        raise ProtocolError("bad_json")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # pragma: no cover - pydantic read it
        raise ProtocolError("bad_json") from exc
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", detail=t("detail.not_object"))
    ref = data.get("ref") if isinstance(data.get("ref"), str) else None
    ref = ref[:40] if ref else None
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", ref, type=str(kind)[:40])
    # loc[0] is the message type (the union's tag); the field path follows.
    raise ProtocolError("bad_message", ref, detail=error_detail(first, skip=1))


def command_of(data: object) -> MatchCommand:
    """A forwarded command (another node's ``model_dump()`` of it) as the typed command
    again, checked by the same schema; :class:`ProtocolError` (``bad_message``) if not."""
    try:
        return _COMMAND.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError("bad_message", detail=error_detail(exc.errors()[0])) from None


#: pydantic's error types → the catalogue's German description of the field.
_DETAILS = {
    "missing": "detail.missing",
    "extra_forbidden": "detail.extra",
    "int_type": "detail.int",
    "int_parsing": "detail.int",
    "int_from_float": "detail.int",
    "bool_type": "detail.bool",
    "bool_parsing": "detail.bool",
    "string_type": "detail.str",
    "string_too_long": "detail.too_long",
    "string_too_short": "detail.too_short",
    "model_type": "detail.object",
    "model_attributes_type": "detail.object",
    "dict_type": "detail.object",
}


def error_detail(err: ErrorDetails, skip: int = 0) -> str:
    """One validation error in German: the field (its path) and what it must be.

    ``skip`` drops leading parts of the path (the union tag, FastAPI's ``body``).
    """
    if err["type"] == "json_invalid":
        return t("detail.json")
    where = ".".join(str(part) for part in err["loc"][skip:])
    if not where:  # the message itself: not an object, or (REST) no body at all
        return t("detail.not_object")
    ctx = err.get("ctx") or {}
    return t(
        _DETAILS.get(err["type"], "detail.invalid"),
        field=where,
        max=ctx.get("max_length", ""),
        min=ctx.get("min_length", ""),
    )
