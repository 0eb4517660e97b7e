"""One client connection as the service sees it: an outbox and who is speaking.

Sending never blocks the caller (a match task must not wait for a slow
client). When nothing waits in the outbox and the socket can take more, a
message is written at once (:attr:`Conn.direct`, the lean transport's
``send_now``); otherwise it goes into a bounded queue that the socket's
writer task drains, in order. A client too slow to keep up is disconnected
instead of buffering without end.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import BaseModel

from domino.table.snapshot import Shared, SharedDict

OUTBOX_LIMIT = 512
_ids = itertools.count(1)


_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS


def _part(obj: Any) -> Any:
    """What orjson writes for a subclass of ``str``, ``int``, ``dict`` or ``list``: a
    shared part of state messages (:mod:`domino.table.snapshot`) as the text it was
    encoded to the first time (kept on it), anything else as its plain base type."""
    if isinstance(obj, Shared | SharedDict):
        wire = obj.wire
        if wire is None:
            # Kept as text: orjson's bytes keep the whole buffer they were written into,
            # a text copy only what it holds (docs/performance.md, KB per match).
            text = orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
            wire = obj.wire = orjson.Fragment(text)
        return wire
    if isinstance(obj, str):
        return str.__str__(obj)
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, dict):
        return dict(obj)
    if isinstance(obj, list):
        return list(obj)
    raise TypeError(f"not JSON: {type(obj).__name__}")


def encode(msg: dict[str, Any] | BaseModel) -> str:
    """The JSON text of a message as it goes over the wire (compact, UTF-8 as is).

    orjson writes the same text as ``json.dumps(msg, separators=(",", ":"),
    ensure_ascii=False)`` about ten times faster (state messages are encoded once
    per audience and move, their shared parts once: :func:`_part`); what it refuses
    (an integer beyond 64 bits) goes the standard library's way.
    """
    if isinstance(msg, BaseModel):
        return msg.model_dump_json()
    try:
        return orjson.dumps(msg, option=_OPTIONS, default=_part).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


class Outbox:
    """The encoded messages waiting for one socket's writer, first in first out.

    What ``asyncio.Queue`` did here (``put_nowait``, ``get``, ``task_done``,
    ``join``), in one deque and at most one waiting future: a Queue keeps three
    deques and an Event with a fourth, ≈ 2.5 KB per open socket before any
    message is queued.
    """

    __slots__ = ("_getter", "_items", "_joiners", "_unfinished")

    def __init__(self) -> None:
        self._items: deque[str | None] = deque()
        self._unfinished = 0
        self._getter: asyncio.Future[None] | None = None
        self._joiners: list[asyncio.Future[None]] | None = None

    def qsize(self) -> int:
        """Messages waiting."""
        return len(self._items)

    def empty(self) -> bool:
        """Whether nothing waits."""
        return not self._items

    def idle(self) -> bool:
        """Whether every item put so far is handled (none waits, none is being sent)."""
        return self._unfinished <= 0

    def put_nowait(self, item: str | None) -> None:
        """Queue ``item`` (``None`` asks the writer to close) and wake the writer."""
        self._items.append(item)
        self._unfinished += 1
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    async def get(self) -> str | None:
        """The next item, waiting for one if none is queued (one reader at a time)."""
        while not self._items:
            self._getter = asyncio.get_running_loop().create_future()
            try:
                await self._getter
            finally:
                self._getter = None
        return self._items.popleft()

    def get_nowait(self) -> str | None:
        """The next item; :class:`asyncio.QueueEmpty` when none is queued."""
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    def task_done(self) -> None:
        """One item taken earlier is handled (sent, or dropped)."""
        self._unfinished -= 1
        if self._unfinished <= 0 and self._joiners:
            for fut in self._joiners:
                if not fut.done():
                    fut.set_result(None)
            self._joiners = None

    async def join(self) -> None:
        """Wait until every item put so far is handled."""
        if self._unfinished <= 0:
            return
        fut = asyncio.get_running_loop().create_future()
        if self._joiners is None:
            self._joiners = []
        self._joiners.append(fut)
        await fut


class Conn:
    """A signed-in socket: ``profile`` speaks through it; ``watching`` lists its matches."""

    def __init__(self, profile: str, name: str) -> None:
        self.id = next(_ids)
        self.profile = profile
        self.name = name
        self.watching: set[str] = set()
        self.outbox = Outbox()
        self.closed = False
        self.close_code: int | None = None
        #: Writes one message at once if the socket can take it without waiting
        #: (``False``: it could not, queue it); set by the endpoint where the
        #: transport offers it. Used only while the outbox is idle, so order is kept.
        self.direct: Callable[[str], bool] | None = None

    def send(self, msg: dict[str, Any] | BaseModel) -> None:
        """Send a message (a dict or a protocol model): at once, or through the outbox."""
        if self.closed:
            return
        self.send_text(encode(msg))

    def send_text(self, text: str) -> None:
        """Send an already encoded message (one encoding for many receivers)."""
        if self.closed:
            return
        direct = self.direct
        if direct is not None and self.outbox.idle() and direct(text):
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
