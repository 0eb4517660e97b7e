"""The protocol's messages (version 1), defined once as pydantic models.

Client → server messages are parsed with :func:`parse_client`; the server's
own messages are built from the ``*Out`` models, so docs/protocol.schema.json
(written by :func:`write_schema`, checked by a test) describes exactly what
goes over the wire. Table snapshots (``state``) are built by
``domino.table`` and documented in docs/match-state.md.

Semantic checks (a seat number out of range, an unknown bot level) happen in
the handlers, which answer with a specific German error; the models only
bound sizes and types. Client messages and REST bodies are validated in
pydantic's strict mode: ``"v": "1"`` or ``"lager": "yes"`` are refused
(``bad_message``) rather than coerced, so the schema says exactly what is
taken. JSON numbers stay numbers: an ``int`` field takes ``17``, not ``17.0``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.json_schema import models_json_schema
from pydantic_core import ErrorDetails

from domino.i18n import t

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


class SetRules(_In):
    """Host: change the lobby's rules."""

    type: Literal["set_rules"]
    rules: RulesPatch


class Start(_In):
    """Host: start the match (every seat taken)."""

    type: Literal["start"]


class MoveCmd(_In):
    """A seat's move, made on version ``v``."""

    type: Literal["move"]
    match: MatchId
    move: str = Field(max_length=16)
    v: int


class Back(_In):
    """*Ich bin wieder da*: the stand-in bot steps down."""

    type: Literal["back"]
    match: MatchId


class LeaveMatch(_In):
    """Leave the match for good; a bot takes the seat."""

    type: Literal["leave_match"]
    match: MatchId


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
    | SetRules
    | Start
    | MoveCmd
    | Back
    | LeaveMatch
    | Watch
    | Unwatch
    | Sync
    | History,
    Field(discriminator="type"),
]
_CLIENT = TypeAdapter(ClientMessage)
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


# -- server -> client ------------------------------------------------------------------
class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProfileOut(_Out):
    """A person as others see them (RULES.md §12 for the level)."""

    id: str
    name: str
    kind: Literal["guest", "account"]
    xp: int
    level: int
    level_xp: int
    next_level_xp: int
    played: int
    won: int


class RecentOut(_Out):
    """One finished match in a profile's history."""

    match: str
    finished_at: float | None
    rules: dict[str, Any]
    seat: int
    place: int | None
    xp: int
    won: bool
    players: list[str]
    scores: list[int]


class ProfilePageOut(_Out):
    """``GET /api/me`` and ``GET /api/profiles/{id}``."""

    profile: ProfileOut
    recent: list[RecentOut]
    next: str | None = None  # the cursor of the next page (``?before=``); None: the last


class AuthOut(_Out):
    """The answer to a sign-in: keep the token, send it in ``hello``."""

    token: str
    profile: ProfileOut


class SeatOut(_Out):
    """A lobby seat: empty (``kind`` null), a human, or a bot."""

    seat: int
    kind: Literal["human", "bot"] | None
    name: str | None
    player: str | None
    level: str | None
    host: bool
    online: bool


class WatcherOut(_Out):
    """Somebody in the lobby without a seat."""

    player: str
    name: str
    online: bool


class LobbyOut(_Out):
    """A whole lobby, sent after every change."""

    code: str
    link: str
    status: Literal["open", "playing", "closed"]
    host: str | None
    rules: dict[str, Any]
    target_points: int
    seats: list[SeatOut]
    watchers: list[WatcherOut]
    match: str | None
    can_start: bool


class YouOut(_Out):
    """Where the receiver is in the lobby."""

    player: str
    seat: int | None
    host: bool


class OpenLobbyOut(_Out):
    """An entry of the open-lobby list."""

    code: str
    link: str
    host: str
    rules: dict[str, Any]
    seats: int
    taken: int
    watchers: int


class RunningMatchOut(_Out):
    """A running match one may watch."""

    match: str
    lobby: str | None
    rules: dict[str, Any]
    players: list[str]
    started_at: float
    spectators: int


class SeatRef(_Out):
    """The unfinished match a profile sits in."""

    match: str
    seat: int


class WelcomeMsg(_Out):
    """Answer to ``hello``."""

    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    profile: ProfileOut
    lobby: str | None
    match: SeatRef | None


class PongMsg(_Out):
    """Answer to ``ping``."""

    type: Literal["pong"] = "pong"


class ErrorMsg(_Out):
    """A refusal; nothing changed. ``message`` is German."""

    type: Literal["error"] = "error"
    code: str
    message: str
    ref: str | None = None
    match: str | None = None
    v: int | None = None


class LobbyMsg(_Out):
    """The whole lobby, to everyone in it, after every change."""

    type: Literal["lobby"] = "lobby"
    lobby: LobbyOut
    you: YouOut | None


class LobbyLeftMsg(_Out):
    """You are no longer in the lobby (``left`` or ``closed``)."""

    type: Literal["lobby_left"] = "lobby_left"
    code: str
    reason: Literal["left", "closed"]


class LobbyListMsg(_Out):
    """Open lobbies and running matches."""

    type: Literal["lobby_list"] = "lobby_list"
    open: list[OpenLobbyOut]
    running: list[RunningMatchOut]


class MatchStartedMsg(_Out):
    """The host started; a ``state`` snapshot follows."""

    type: Literal["match_started"] = "match_started"
    match: str
    lobby: str | None
    seat: int | None


class RoundEventsOut(_Out):
    """One earlier round's public events (docs/match-state.md, ``events``)."""

    round: int
    events: list[dict[str, Any]]


class EarlierRoundsMsg(_Out):
    """Answer to ``history``: the public events of every round before the current one."""

    type: Literal["earlier_rounds"] = "earlier_rounds"
    match: str
    v: int
    rounds: list[RoundEventsOut]


class ProfileMsg(_Out):
    """The receiver's profile after a change (XP at a match's end)."""

    type: Literal["profile"] = "profile"
    profile: ProfileOut


# -- REST bodies -----------------------------------------------------------------------
class GuestIn(BaseModel):
    """``POST /api/guest``."""

    # The bounds only keep huge strings from the checks; the app answers what they
    # refuse as the checks would (name_too_long, password_too_long, login_failed).
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=200)


class RenameIn(BaseModel):
    """``POST /api/me/name``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=200)


class AccountIn(BaseModel):
    """``POST /api/account`` and ``POST /api/login``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=200)
    password: str = Field(max_length=1000)


class MatchOut(_Out):
    """``GET /api/matches/{id}``."""

    match: str
    status: Literal["running", "finished"]
    lobby: str | None
    rules: dict[str, Any]
    players: list[dict[str, Any]]
    started_at: float
    finished_at: float | None
    result: dict[str, Any] | None
    record: Any


SERVER_MODELS: tuple[type[BaseModel], ...] = (
    WelcomeMsg,
    PongMsg,
    ErrorMsg,
    LobbyMsg,
    LobbyLeftMsg,
    LobbyListMsg,
    MatchStartedMsg,
    EarlierRoundsMsg,
    ProfileMsg,
)
REST_MODELS: tuple[type[BaseModel], ...] = (
    GuestIn,
    AccountIn,
    AuthOut,
    ProfilePageOut,
    MatchOut,
)


def schema() -> dict[str, Any]:
    """The JSON schema of every message and REST body (docs/protocol.schema.json)."""
    client = _CLIENT.json_schema()
    _, defs = models_json_schema(
        [(m, "serialization") for m in (*SERVER_MODELS, *REST_MODELS)],
        ref_template="#/$defs/{model}",
    )
    all_defs = {**client.pop("$defs", {}), **defs.get("$defs", {})}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Domino protocol v{PROTOCOL_VERSION}",
        "description": "Generated from domino.server.protocol; see docs/protocol.md.",
        "$defs": dict(sorted(all_defs.items())),
        "properties": {
            "client_message": client,
            "server_message": {"oneOf": [{"$ref": f"#/$defs/{m.__name__}"} for m in SERVER_MODELS]},
        },
    }


def schema_text() -> str:
    """The schema as the file holds it."""
    return json.dumps(schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def write_schema(path: Path) -> None:
    """Write the schema file (``python -m domino.server.protocol docs/protocol.schema.json``)."""
    path.write_text(schema_text(), encoding="utf-8")


if __name__ == "__main__":
    write_schema(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/protocol.schema.json"))
