"""Presence across the nodes: which profiles have sockets where, and which nodes live.

:class:`Presence` is the half of :class:`~domino.server.cluster.redisrouter.RedisRouter`
that knows the other nodes (a base class: the router's state is set in its
constructor). The set ``profiles:{node}`` holds the profiles with a socket on that
node; ``alive:{node}`` is a key with a TTL (``alive_ttl``) the node refreshes every
``beat`` seconds; ``nodes`` is the set of nodes that ever registered. The heartbeat
is one script (:data:`BEAT`): it refreshes our key, forgets every node whose key
expired (a ``kill -9``: its profiles set is deleted) and returns the live nodes. The
cache (profile -> the other nodes where it has sockets) is loaded from Redis when
the subscriber (re)connects and kept up to date by the ``presence`` channel's
announcements, so :meth:`Presence.online` is synchronous and cheap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from domino.server.transport.conn import Conn

log = logging.getLogger("domino.redisrouter")

#: The heartbeat: refresh our liveness, drop dead nodes, return [was_alive, live nodes].
BEAT = """
local p, me = ARGV[1], ARGV[2]
local was = redis.call('EXISTS', p .. 'alive:' .. me)
redis.call('SET', p .. 'alive:' .. me, '1', 'PX', ARGV[3])
redis.call('SADD', p .. 'nodes', me)
local live = {}
for _, n in ipairs(redis.call('SMEMBERS', p .. 'nodes')) do
  if redis.call('EXISTS', p .. 'alive:' .. n) == 1 then
    table.insert(live, n)
  else
    redis.call('SREM', p .. 'nodes', n)
    redis.call('DEL', p .. 'profiles:' .. n)
  end
end
return {was, live}
"""

#: Every live node's profiles: [node, {profiles}, node, {profiles}, ...].
LOAD = """
local p = ARGV[1]
local out = {}
for _, n in ipairs(redis.call('SMEMBERS', p .. 'nodes')) do
  if redis.call('EXISTS', p .. 'alive:' .. n) == 1 then
    table.insert(out, n)
    table.insert(out, redis.call('SMEMBERS', p .. 'profiles:' .. n))
  end
end
return out
"""

PresenceCallback = Callable[[str, bool], None]


class Presence:
    """The other nodes' profiles, this node's heartbeat (see the module's docstring)."""

    # Set by the router's constructor.
    redis: Any
    node: str
    prefix: str
    alive_ttl: float
    beat: float
    conns: dict[str, set[Conn]]
    _where: dict[str, set[str]]
    _of_node: dict[str, set[str]]
    _presence_cbs: list[PresenceCallback]
    _first_beat: asyncio.Event | None
    _beat_ok: bool
    _beat_paused: bool
    _stopping: bool
    _beat_script: Any
    _load_script: Any

    if TYPE_CHECKING:  # the router's

        def _key(self, kind: str, name: str) -> str: ...
        def _resync(self) -> None: ...

    # -- presence ----------------------------------------------------------------------
    def online(self, profile: str) -> bool:
        """Whether ``profile`` has a socket on any live node (as far as this node knows)."""
        return bool(self.conns.get(profile)) or bool(self._where.get(profile))

    def nodes_of(self, profile: str) -> set[str]:
        """The live nodes where ``profile`` has sockets (this one included)."""
        nodes = set(self._where.get(profile, ()))
        if self.conns.get(profile):
            nodes.add(self.node)
        return nodes

    def on_presence(self, callback: PresenceCallback) -> None:
        """``callback(profile, online)`` whenever :meth:`online` changes for a profile,
        whatever the cause: a socket on this node or on another, a node that died."""
        self._presence_cbs.append(callback)

    def _tell_presence(self, profile: str, online: bool) -> None:
        for cb in list(self._presence_cbs):
            try:
                cb(profile, online)
            except Exception:
                log.exception("presence callback failed for %s", profile)

    def _set_node(self, node: str, profiles: set[str]) -> None:
        """Replace what we know of ``node``'s profiles, telling the changes."""
        before = self._of_node.get(node, set())
        if profiles:
            self._of_node[node] = profiles
        else:
            self._of_node.pop(node, None)
        for pid in profiles - before:
            self._node_gains(node, pid)
        for pid in before - profiles:
            self._node_loses(node, pid)

    def _node_gains(self, node: str, pid: str) -> None:
        where = self._where.setdefault(pid, set())
        if node in where:
            return
        where.add(node)
        if len(where) == 1 and not self.conns.get(pid):
            self._tell_presence(pid, True)

    def _node_loses(self, node: str, pid: str) -> None:
        where = self._where.get(pid)
        if where is None or node not in where:
            return
        where.discard(node)
        if not where:
            del self._where[pid]
            if not self.conns.get(pid):
                self._tell_presence(pid, False)

    async def _load_presence(self, node: str | None = None) -> None:
        """Reload every live node's profiles (or one node's) from Redis."""
        if node is not None:
            members = await self.redis.smembers(self._key("profiles", node))
            self._set_node(node, {str(m) for m in members})
            return
        flat = await self._load_script(args=[self.prefix])
        found: dict[str, set[str]] = {}
        for i in range(0, len(flat), 2):
            if flat[i] != self.node:
                found[str(flat[i])] = {str(m) for m in flat[i + 1]}
        for n in list(self._of_node):
            if n not in found:
                self._set_node(n, set())
        for n, profiles in found.items():
            self._set_node(n, profiles)

    # -- heartbeat ---------------------------------------------------------------------
    async def _heartbeat_once(self) -> None:
        was, live = await self._beat_script(
            args=[self.prefix, self.node, max(1, round(self.alive_ttl * 1000))]
        )
        self._beat_ok = True
        if not was and self._first_beat is not None and self._first_beat.is_set():
            # Our key had expired: the others dropped our presence as dead; write it again.
            log.warning("node %s was presumed dead; announcing its presence again", self.node)
            self._resync()
        alive = {str(n) for n in live}
        for n in list(self._of_node):
            if n not in alive:
                self._set_node(n, set())

    async def _heartbeat(self) -> None:
        assert self._first_beat is not None
        while not self._stopping:
            if not self._beat_paused:
                try:
                    await self._heartbeat_once()
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    if self._beat_ok or not self._first_beat.is_set():
                        log.warning("router %s: heartbeat failed: %s", self.node, e)
                    self._beat_ok = False
            # The publisher waits for the first try: our liveness key comes before
            # our presence, or the others would drop that presence as a dead node's.
            self._first_beat.set()
            await asyncio.sleep(self.beat)

    async def _presence_message(self, sender: str, body: str) -> None:
        if sender == self.node or not body:
            return
        op, pid = body[0], body[1:]
        if op == "+":
            self._of_node.setdefault(sender, set()).add(pid)
            self._node_gains(sender, pid)
        elif op == "-":
            profiles = self._of_node.get(sender)
            if profiles is not None:
                profiles.discard(pid)
                if not profiles:
                    del self._of_node[sender]
            self._node_loses(sender, pid)
        elif op == "!":
            await self._load_presence(sender)


__all__ = ["BEAT", "LOAD", "Presence", "PresenceCallback"]
