"""The table talk's frames, server → client (docs/protocol.md "Table talk")."""

from __future__ import annotations

from typing import Literal

from domino.server.protocol.out import _Out


class ChatOut(_Out):
    """One free-text message (cleaned on the server; shown as text, never as HTML)."""

    id: int
    room: Literal["lobby", "match"]
    key: str  # the lobby's code or the match's id
    sender: str  # the sender's profile id
    name: str
    seat: int | None  # the sender's seat (a player's), else None
    text: str
    at: float


class ChatMsg(_Out):
    """A new message in a room one is in (never from somebody either side blocked)."""

    type: Literal["chat"] = "chat"
    message: ChatOut


class TalkLogMsg(_Out):
    """Answer to ``talk_log``: a room's last messages, oldest first (blocked ones left
    out)."""

    type: Literal["chat_log"] = "chat_log"
    room: Literal["lobby", "match"]
    key: str
    messages: list[ChatOut]


class ReactionMsg(_Out):
    """A reaction: ``key`` names one of the fixed set (catalogue ``reaction.{key}``),
    shown at ``seat`` for a few seconds (``None``: a spectator's)."""

    type: Literal["reaction"] = "reaction"
    match: str
    seat: int | None
    sender: str  # the sender's profile id
    name: str
    key: str


class BlockedOut(_Out):
    """A profile one blocked."""

    id: str
    name: str


class BlocksMsg(_Out):
    """The profiles the receiver blocked (after ``block`` or ``list_blocks``)."""

    type: Literal["blocks"] = "blocks"
    profiles: list[BlockedOut]


class ReportedMsg(_Out):
    """A report is stored for the moderators."""

    type: Literal["reported"] = "reported"
    message: int
