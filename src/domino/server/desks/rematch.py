"""*Revanche*: the same table again after a match, once every human there accepts.

The proposal lives in the lobby's stored document (``Lobby.rematch``), changed over
the lobby's version like every other lobby change, so it works whichever nodes the
players' sockets are on and whichever node drove the match: the match has ended (and
its owner may be gone) before anyone can propose. The match that ended last is
``Lobby.last`` (set when the lobby opens again after it).

- One tap proposes (the proposer accepts at once); bots always accept; every other
  seated human accepts or declines. The last acceptance starts the match as a lobby's
  ``start`` does: the lobby and the match are stored in one transaction over the
  version read, so two nodes never start two matches for one proposal.
- It lapses :data:`REMATCH_SECONDS` after the proposal. The node that stored it arms a
  timer on the injectable clock and tells everyone; should that node die, the proposal
  lapses all the same: every reader ignores a proposal past its deadline (an answer
  gets ``rematch_expired``) and the clients count down from ``expires_in``.
- It is cancelled when the table changes (a seat empties or is taken by someone
  else, a bot or the rules change): ``LobbyDesk._edit`` drops it and everyone hears
  ``cancelled``. A player who left the match (their lobby seat is freed), left the
  lobby or sits in another match makes the proposal refused, naming them.
- Everyone sees who accepted: the members of the lobby on their own channels, and the
  match's spectators who follow it (``rematch_follow``) on the audience
  :func:`audience` (a spectators' channel of its own, on every node).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Final

from domino.server import protocol as p
from domino.server.cluster.router import InProcessRouter
from domino.server.desks.lobby import OPEN, PLAYING, Lobby, LobbyError
from domino.server.desks.matchdesk import MatchDesk
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.lobbies import LobbyConflict
from domino.server.transport.conn import Conn

log = logging.getLogger(__name__)

#: How long a proposal waits for every human (seconds).
REMATCH_SECONDS: Final = 60.0
#: How often an answer is applied again after other nodes changed the lobby first.
TRIES: Final = 8


def audience(mid: str) -> str:
    """The spectators' audience that hears the *Revanche* of match ``mid``."""
    return f"rematch:{mid}"


def _table(lobby: Lobby) -> list[Any]:
    """What must stay the same for a proposal to hold: the seats and the rules."""
    seats = [None if o is None else [o.kind, o.player, o.level] for o in lobby.seats]
    return [seats, lobby.rules.to_dict()]


def current(lobby: Lobby, now: float) -> dict[str, Any] | None:
    """The proposal that holds now: not lapsed, for the last match, on the same table."""
    rm = lobby.rematch
    if rm is None or now >= rm["deadline"] or lobby.status != OPEN:
        return None
    if lobby.last is None or lobby.last["match"] != rm["match"] or rm["table"] != _table(lobby):
        return None
    return rm


def drop_stale(lobby: Lobby, now: float) -> dict[str, Any] | None:
    """Drop a proposal that no longer holds; return it when the table changed under it
    (it is then ``cancelled``; a lapsed one was told by its timer)."""
    rm = lobby.rematch
    if rm is None or current(lobby, now) is not None:
        return None
    lobby.rematch = None
    return rm if now < rm["deadline"] else None


def _missing(lobby: Lobby, i: int) -> str:
    names = (lobby.last or {}).get("names") or []
    return str(names[i]) if i < len(names) and names[i] else "?"


def answer(lobby: Lobby, me: str, mid: str, accept: bool, now: float) -> bool:
    """Apply ``me``'s answer to the *Revanche* of ``mid``; ``True`` when every human has
    accepted (start it now). Raises :class:`LobbyError` to refuse (nothing changed)."""
    if lobby.last is None or lobby.last["match"] != mid:
        if lobby.status == PLAYING and lobby.match == mid:
            raise LobbyError("rematch_not_ready")
        raise LobbyError("rematch_gone")
    if lobby.status != OPEN:
        raise LobbyError("rematch_gone")
    if lobby.seat_of(me) is None:
        raise LobbyError("rematch_not_player")
    rm = current(lobby, now)
    if not accept:
        if rm is None:
            raise LobbyError("rematch_expired")
        lobby.rematch = None
        return False
    for i, o in enumerate(lobby.seats):
        if o is None:
            raise LobbyError("rematch_missing", player=_missing(lobby, i))
    if rm is None:  # a new proposal (also after one lapsed)
        rm = lobby.rematch = {
            "match": mid,
            "by": me,
            "accepted": [],
            "deadline": now + REMATCH_SECONDS,
            "table": _table(lobby),
        }
    if me not in rm["accepted"]:
        rm["accepted"].append(me)
    humans = [o.player for o in lobby.seats if o is not None and o.kind == "human"]
    return all(h in rm["accepted"] for h in humans)


def message(
    lobby: Lobby,
    rm: dict[str, Any],
    state: str,
    now: float,
    by: str | None = None,
    next_match: str | None = None,
) -> p.RematchMsg:
    """The frame everyone hears about proposal ``rm`` of ``lobby``."""
    accepted = set(rm["accepted"])
    names = (lobby.last or {}).get("names") or []
    seats = []
    for i, o in enumerate(lobby.seats):
        if o is None:
            name = str(names[i]) if i < len(names) and names[i] else "?"
            seats.append(p.RematchSeatOut(seat=i, kind="human", name=name, accepted=False))
        else:
            ok = o.kind == "bot" or o.player in accepted
            seats.append(p.RematchSeatOut(seat=i, kind=o.kind, name=o.name, accepted=ok))  # type: ignore[arg-type]
    who = by if by is not None else rm.get("by")
    by_seat = lobby.seat_of(who) if who is not None else None
    by_name = lobby.seats[by_seat].name if by_seat is not None else None  # type: ignore[union-attr]
    left = max(0.0, rm["deadline"] - now) if state == "open" else None
    return p.RematchMsg(
        match=rm["match"],
        lobby=lobby.code,
        state=state,  # type: ignore[arg-type]
        by=by_name,
        by_seat=by_seat,
        seats=seats,
        expires_in=left,
        next=next_match,
    )


class Rematches:
    """The *Revanche* half of :class:`~domino.server.desks.lobbydesk.LobbyDesk` (its base)."""

    settings: Settings
    db: Database
    router: InProcessRouter
    matches: MatchDesk
    _tasks: set[asyncio.Task[None]]

    # (LobbyDesk's, typed here for mypy)
    def _locked(self, key: str) -> contextlib.AbstractAsyncContextManager[None]:
        raise NotImplementedError  # pragma: no cover

    async def _read(self, code: str) -> tuple[Lobby, int] | None:
        raise NotImplementedError  # pragma: no cover

    def _remember(self, lobby: Lobby) -> None:
        raise NotImplementedError  # pragma: no cover

    def broadcast(self, lobby: Lobby, here: bool = False) -> None:
        raise NotImplementedError  # pragma: no cover

    # -- telling ----------------------------------------------------------------------------
    def tell_rematch(self, lobby: Lobby, msg: p.RematchMsg) -> None:
        """Every member of ``lobby`` and every follower of the match hears ``msg``."""
        for m in lobby.members():
            self.router.to_player(m, msg)
        self.router.to_spectators(audience(msg.match), msg.model_dump())

    def rematch_cancelled(self, lobby: Lobby, rm: dict[str, Any]) -> None:
        """The table changed under proposal ``rm``: everyone hears it is off."""
        self.tell_rematch(lobby, message(lobby, rm, "cancelled", self.settings.clock.now()))

    def rematch_on_connect(self, lobby: Lobby, conn: Conn) -> None:
        """A member's socket opened: it hears an open proposal."""
        now = self.settings.clock.now()
        rm = current(lobby, now)
        if rm is not None:
            conn.send(message(lobby, rm, "open", now))

    # -- answers ----------------------------------------------------------------------------
    async def rematch(self, conn: Conn, msg: p.Rematch) -> None:
        """``rematch``: propose, accept or decline the *Revanche* of ``msg.match``."""
        me = conn.profile
        code = await self.db.lobby_of(me)
        if code is None:
            raise LobbyError("rematch_gone")
        clock = self.settings.clock
        async with self._locked(code):
            for _ in range(TRIES):
                read = await self._read(code)
                if read is None:
                    raise LobbyError("rematch_gone")
                lobby, version = read
                before = current(lobby, clock.now())
                now = clock.now()
                ready = answer(lobby, me, msg.match, msg.accept, now)
                rm = lobby.rematch if msg.accept else before
                assert rm is not None
                if ready:
                    try:
                        await self._start_rematch(lobby, version)
                    except LobbyConflict:
                        continue
                    self.tell_rematch(lobby, message(lobby, rm, "started", now, me, lobby.match))
                    return
                try:
                    await self.db.save_lobby(code, lobby.status, lobby.to_dict(), now, version)
                except LobbyConflict:
                    continue
                self._remember(lobby)
                if not msg.accept:
                    self.tell_rematch(lobby, message(lobby, rm, "declined", now, me))
                    return
                self.tell_rematch(lobby, message(lobby, rm, "open", now))
                if before is None:  # a new proposal: its timer
                    self._arm(code, rm["match"], rm["deadline"])
                return
            raise LobbyError("lobby_busy")

    async def _start_rematch(self, lobby: Lobby, version: int) -> None:
        # Nobody plays two matches at once: a player who sits in another match now.
        for o in lobby.seats:
            human = o.player if o is not None and o.kind == "human" else None
            if human is not None and await self.matches.seat_anywhere(human) is not None:
                raise LobbyError("rematch_in_match", player=o.name)  # type: ignore[union-attr]
        lobby.rematch = None
        await self.matches.start(lobby, version, self.broadcast)
        self._remember(lobby)

    # -- lapsing ----------------------------------------------------------------------------
    def _arm(self, code: str, mid: str, deadline: float) -> None:
        task = asyncio.get_running_loop().create_task(self._lapse(code, mid, deadline))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _lapse(self, code: str, mid: str, deadline: float) -> None:
        clock = self.settings.clock
        await clock.wait_until(deadline, asyncio.Event())
        try:
            async with self._locked(code):
                for _ in range(TRIES):
                    read = await self._read(code)
                    if read is None:
                        return
                    lobby, version = read
                    rm = lobby.rematch
                    if rm is None or rm["match"] != mid or rm["deadline"] != deadline:
                        return  # started, declined, cancelled or proposed anew
                    lobby.rematch = None
                    try:
                        await self.db.save_lobby(
                            code, lobby.status, lobby.to_dict(), clock.now(), version
                        )
                    except LobbyConflict:
                        continue
                    self._remember(lobby)
                    self.tell_rematch(lobby, message(lobby, rm, "lapsed", clock.now()))
                    return
        except Exception:  # the database away: every reader ignores it past its deadline
            log.warning("rematch of %s: lapse not stored", mid, exc_info=True)

    # -- spectators -------------------------------------------------------------------------
    async def rematch_follow(self, conn: Conn, msg: p.RematchFollow) -> None:
        """A spectator of the finished ``msg.match`` hears its *Revanche* from now on.

        Over is when its result is stored: the end is announced (the spectator's page
        then asks) before the match is marked finished (``close_match``)."""
        row = await self.db.match(msg.match)
        over = row is not None and (row["status"] == "finished" or row["result"] is not None)
        if row is None or not over or not row["lobby"]:
            raise LobbyError("rematch_gone")
        key = audience(msg.match)
        if key not in conn.watching:
            conn.watching.add(key)
            self.router.watch(key, conn)
        read = await self._read(row["lobby"])
        if read is None:
            return
        lobby = read[0]
        now = self.settings.clock.now()
        rm = current(lobby, now)
        if rm is not None and rm["match"] == msg.match:
            conn.send(message(lobby, rm, "open", now))
