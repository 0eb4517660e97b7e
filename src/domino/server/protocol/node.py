"""Node → node: the messages one node of a cluster sends another over Redis.

Each is a pydantic model with a ``kind``; :meth:`RedisRouter.send_to_node
<domino.server.cluster.redisrouter.RedisRouter.send_to_node>` carries it as JSON, and
the receiving node reads it back with :func:`parse_node` (``None`` for a message it
cannot read, which it logs and drops). What a node sends to one socket on another
node (an error, a snapshot) is a client frame, not one of these.

>>> m = parse_node({"kind": "done", "fid": 7})
>>> m
Done(kind='done', fid=7)
>>> parse_node(m.model_dump()) == m
True
>>> parse_node({"kind": "done"}) is None
True
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Forwarded(_Node):
    """A socket's request for a match another node drives: a seat's ``command`` (move,
    back, leave) or a ``snapshot`` of what that socket may see. The owner answers the
    socket itself (``node``, ``conn``), and the forwarding node keeps a command until
    the owner says :class:`Done` or :class:`Passed` (``fid``)."""

    kind: Literal["command", "snapshot"]
    match: str
    profile: str
    #: the node with the socket, and the socket's id there
    node: str
    conn: int
    cmd: dict[str, Any] | None = None
    ref: str | None = None
    #: the forwarding node's id of a command (``cluster/forwarding.py``)
    fid: int | None = None
    #: how often it was passed on by nodes that no longer drive the match
    hops: int = 0


class Done(_Node):
    """The owner handled a forwarded command (stored or refused, its answer sent)."""

    kind: Literal["done"] = "done"
    fid: int


class Passed(_Node):
    """The node a command went to passed it on to ``to``, which answers it now."""

    kind: Literal["passed"] = "passed"
    fid: int
    to: str


class WatchLobby(_Node):
    """A lobby's match started on another node: this node's sockets of ``profile`` (a
    member without a seat) watch it."""

    kind: Literal["watch_lobby"] = "watch_lobby"
    match: str
    lobby: str
    profile: str


class RenameSeat(_Node):
    """``profile`` took a new name: the owner of its match stores and shows it."""

    kind: Literal["rename_seat"] = "rename_seat"
    match: str
    profile: str
    name: str


class Renamed(_Node):
    """``profile`` took a new name: this node's sockets of it take it."""

    kind: Literal["renamed"] = "renamed"
    profile: str
    name: str


#: Any message between nodes, told apart by its ``kind``.
NodeMsg = Annotated[
    Forwarded | Done | Passed | WatchLobby | RenameSeat | Renamed, Field(discriminator="kind")
]

_ADAPTER: TypeAdapter[NodeMsg] = TypeAdapter(NodeMsg)


def parse_node(payload: object) -> NodeMsg | None:
    """A node message read from its JSON form; ``None`` when it is not one."""
    try:
        return _ADAPTER.validate_python(payload)
    except ValidationError:
        return None


__all__ = [
    "Done",
    "Forwarded",
    "NodeMsg",
    "Passed",
    "RenameSeat",
    "Renamed",
    "WatchLobby",
    "parse_node",
]
