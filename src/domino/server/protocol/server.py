"""Server → client: the ``*Out`` models of every frame and REST answer; REST bodies."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from domino.i18n import t
from domino.server.protocol.client import PROTOCOL_VERSION
from domino.server.protocol.out import _Out
from domino.server.protocol.talk import (
    BlocksMsg,
    ChatMsg,
    ReactionMsg,
    ReportedMsg,
    TalkLogMsg,
)

# -- server -> client ------------------------------------------------------------------


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
    rated: bool = False  # *gewertet*: its matches change the players' ratings


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


def error(
    code: str,
    ref: str | None = None,
    /,
    *,
    match: str | None = None,
    v: int | None = None,
    **params: Any,
) -> ErrorMsg:
    """The one way an error frame is made: ``code``'s German sentence from the catalogue
    (filled with ``params``), the request's ``ref``, and the match and its version when
    the refusal is a match's."""
    return ErrorMsg(code=code, message=t(code, **params), ref=ref, match=match, v=v)


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


class QueueMsg(_Out):
    """You wait in the matchmaking queue: your choice, the seconds waited so far and how
    many others wait for the same choice (never who)."""

    type: Literal["queue"] = "queue"
    seats: str
    mode: str
    wait: int
    waited: float
    others: int


class QueueLeftMsg(_Out):
    """You no longer wait: ``matched`` (``match`` starts now; ``match_started`` follows),
    ``left`` (you cancelled), ``gone`` (your last socket closed), ``lobby`` or
    ``in_match`` (you joined a lobby or sat down in a match meanwhile)."""

    type: Literal["queue_left"] = "queue_left"
    reason: Literal["matched", "left", "gone", "lobby", "in_match"]
    match: str | None = None


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


class HintMsg(_Out):
    """Answer to ``hint``, to the asking socket only: Meister's move for the seat
    (``"6|5 L"``), the reason's catalogue key and parameters and its German ``text``, the
    hints left this round, and the version it was computed on."""

    type: Literal["hint_answer"] = "hint_answer"
    match: str
    v: int
    move: str
    key: str
    params: dict[str, Any]
    text: str
    left: int


class ProfileMsg(_Out):
    """The receiver's profile after a change (XP at a match's end)."""

    type: Literal["profile"] = "profile"
    profile: ProfileOut


class RatingMsg(_Out):
    """A rated match's end: the receiver's rating in the match's pool before and after."""

    type: Literal["rating"] = "rating"
    match: str
    pool: Literal["2", "3", "4", "paare"]
    before: int
    after: int
    change: int
    provisional: bool  # fewer than 10 rated matches in the pool: shown with "?"


class RematchSeatOut(_Out):
    """A seat of a proposed *Revanche*: who sits there and whether they accepted (a bot
    always does)."""

    seat: int
    kind: Literal["human", "bot"]
    name: str
    accepted: bool


class RematchMsg(_Out):
    """The *Revanche* of the finished ``match``, to every member of its lobby and to the
    spectators who follow it: ``open`` (waiting, ``expires_in`` seconds left), ``started``
    (``next`` is the new match), ``lapsed``, ``declined`` (by ``by``) or ``cancelled``
    (the table changed)."""

    type: Literal["rematch_state"] = "rematch_state"
    match: str
    lobby: str
    state: Literal["open", "started", "lapsed", "declined", "cancelled"]
    by: str | None = None
    by_seat: int | None = None
    seats: list[RematchSeatOut]
    expires_in: float | None = None
    next: str | None = None


class InvitedMsg(_Out):
    """Somebody you played with invites you to their lobby (*Beitreten* joins it)."""

    type: Literal["invited"] = "invited"
    lobby: str
    link: str
    by: str


class InviteSentMsg(_Out):
    """Your invitation reached ``name``'s sockets."""

    type: Literal["invite_sent"] = "invite_sent"
    profile: str
    name: str


class RecentPlayerOut(_Out):
    """A human you played with lately (``GET /api/me/players``): the name the site shows,
    whether they are online now, and when you last played."""

    id: str
    name: str
    online: bool
    last_played: float


class RecentPlayersOut(_Out):
    """``GET /api/me/players``: recent human opponents, the latest first."""

    players: list[RecentPlayerOut]


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


class RatingPointOut(_Out):
    """One rated match in a pool's history: the rating after it."""

    at: float
    rating: int
    match: str


class PoolRatingOut(_Out):
    """A profile's rating in one pool."""

    rating: int
    matches: int
    wins: int
    provisional: bool
    history: list[RatingPointOut]


class ModeStatsOut(_Out):
    """A profile's rated matches in one mode."""

    matches: int
    wins: int
    average_place: float


class RatingsOut(_Out):
    """``GET /api/profiles/{id}/ratings``: every pool the profile is rated in (guests:
    none) and the statistics of its rated matches per mode."""

    pools: dict[str, PoolRatingOut]
    modes: dict[str, ModeStatsOut]


class BoardEntryOut(_Out):
    """One line of the leaderboard."""

    place: int
    profile: str
    name: str
    rating: int
    matches: int
    provisional: bool


class LeaderboardOut(_Out):
    """``GET /api/leaderboard/{pool}``: a page of the list (best first), the cursor of the
    next (``?after=``), and the asker's own place with its neighbours when listed."""

    pool: str
    entries: list[BoardEntryOut]
    next: str | None = None
    me: list[BoardEntryOut] | None = None
    min_matches: int
    active_days: int


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
    RatingMsg,
    RematchMsg,
    InvitedMsg,
    InviteSentMsg,
    HintMsg,
    ChatMsg,
    TalkLogMsg,
    ReactionMsg,
    BlocksMsg,
    ReportedMsg,
    QueueMsg,
    QueueLeftMsg,
)
REST_MODELS: tuple[type[BaseModel], ...] = (
    GuestIn,
    AccountIn,
    AuthOut,
    ProfilePageOut,
    MatchOut,
    RatingsOut,
    LeaderboardOut,
    RecentPlayersOut,
)
