"""One client connection as the service sees it: an outbox and who is speaking.

Sending never blocks the caller (a match task must not wait for a slow
client): messages go into a bounded queue that the socket's writer task
drains. A client too slow to keep up is disconnected instead of buffering
without end.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import orjson
from pydantic import BaseModel

OUTBOX_LIMIT = 512
_ids = itertools.count(1)


def encode(msg: dict[str, Any] | BaseModel) -> str:
    """The JSON text of a message as it goes over the wire (compact, UTF-8 as is).

    orjson writes the same text as ``json.dumps(msg, separators=(",", ":"),
    ensure_ascii=False)`` about ten times faster (state messages are encoded once
    per audience and move); what it refuses (an integer beyond 64 bits) goes the
    standard library's way.
    """
    if isinstance(msg, BaseModel):
        return msg.model_dump_json()
    try:
        return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


class Conn:
    """A signed-in socket: ``profile`` speaks through it; ``watching`` lists its matches."""

    def __init__(self, profile: str, name: str) -> None:
        self.id = next(_ids)
        self.profile = profile
        self.name = name
        self.watching: set[str] = set()
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX_LIMIT + 1)
        self.closed = False
        self.close_code: int | None = None

    def send(self, msg: dict[str, Any] | BaseModel) -> None:
        """Queue a message (a dict or a protocol model) for the writer task."""
        if self.closed:
            return
        self.send_text(encode(msg))

    def send_text(self, text: str) -> None:
        """Queue an already encoded message (one encoding for many receivers)."""
        if self.closed:
            return
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.close(1008)
            return
        self.outbox.put_nowait(text)

    def close(self, code: int = 1000) -> None:
        """Ask the writer to close the socket after what is queued."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.outbox.put_nowait(None)

    def __repr__(self) -> str:
        return f"Conn({self.id}, {self.profile})"
