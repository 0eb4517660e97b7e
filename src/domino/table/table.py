"""One running match: seats, clocks, commands in, per-audience snapshots out.

The table is event-sourced. Every accepted change becomes a log entry
``{"v", "t", "seat", "kind", "payload"}`` and is applied by one function,
:meth:`Table._apply`, both live and when :meth:`Table.restore` replays a log.
Decisions that need a policy (a bot's move, the automatic moves on a timeout)
are made *before* the entry is written and stored in its payload, so a replay
never asks a bot again. Timers (a human's deadline, a bot's next action, the
pause after a round) are derived from the entries' times, which makes the
whole table a function of (rules, seats, seed, log).

Nothing here reads a clock or sleeps: the caller passes ``now`` and calls
:meth:`Table.advance` at :meth:`Table.next_wakeup`. The one exception is a
bot's decision budget (``bot_budget`` seconds, measured on ``bot_clock``,
``time.perf_counter`` unless injected): it only cuts Meister's search short,
and the move it leads to is logged like any other.

Bots never see the secret seed (it recomputes every deal): each decision's
bot is seeded with :func:`bot_seed`, an HMAC of the secret over the seat and
the log's version, so it is reproducible from the log but reveals nothing.

>>> from domino.rules import Rules
>>> t = Table("m1", Rules(seats=2), [SeatSpec("bot", "A", "anfaenger"),
...                                 SeatSpec("bot", "B", "anfaenger")], seed="doc", now=0.0)
>>> while not t.finished:
...     _ = t.advance(t.next_wakeup() or 0.0)
>>> t.log[-1]["kind"]
'end'
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import hmac
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from domino.bots import auto_move, make_bot
from domino.rules import MatchState, Move, Rules, RulesError, SeatView, view

from . import snapshot as snap
from .commands import BackCommand, Command, HintCommand, LeaveCommand
from .entries import entry_moves
from .events import Seen, announce
from .model import (
    BACK,
    BOT_MOVE,
    END,
    HINT,
    HUMAN,
    LEAVE,
    MATCH_OVER,
    MOVE,
    PLAYING,
    ROUND,
    ROUND_OVER,
    START,
    TIMEOUT,
    Outcome,
    Refusal,
    SeatSpec,
    SeatState,
    Timing,
)
from .xp import match_xp

ABANDONED: Final = "abandoned"
#: Expired turns in a row after which a bot stands in (RULES.md §10).
EXPIRIES_FOR_STANDIN: Final = 2


def bot_seed(secret: str, seat: int, version: int) -> str:
    """The seed of the bot deciding for ``seat`` at log ``version``: HMAC-SHA256 (hex).

    Keyed by the match's secret seed, so it is fixed by the log (a restored table
    seeds its bots alike) but one-way: neither the secret nor another seat's or
    turn's seed can be worked out from it.
    """
    msg = f"bot|{seat}|{version}".encode()
    return hmac.new(str(secret).encode(), msg, hashlib.sha256).hexdigest()


class RestoreError(ValueError):
    """A log that cannot be replayed onto these rules, seats and seed."""


class CommandError(Exception):
    """A refused command: ``code`` is a catalogue key, ``params`` fill its text."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class Table:
    """One match in progress; see the module docstring and docs/match-state.md."""

    def __init__(
        self,
        match_id: str,
        rules: Rules,
        seats: Sequence[SeatSpec],
        seed: str,
        now: float,
        *,
        timing: Timing | None = None,
        bot_budget: float | None = None,
        bot_clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._setup(match_id, rules, seats, seed, timing or Timing(), connected=True)
        self._set_bot_budget(bot_budget, bot_clock)
        self._record(START, None, {"round": 1}, now)
        # The first messages are plain snapshots (see snapshots()); nothing to announce.
        self._events.clear()

    def _setup(
        self,
        match_id: str,
        rules: Rules,
        seats: Sequence[SeatSpec],
        seed: str,
        timing: Timing,
        *,
        connected: bool,
    ) -> None:
        if len(seats) != rules.seats:
            raise ValueError(f"{len(seats)} seat specs for {rules.seats} seats.")
        self.match_id = match_id
        self.rules = rules
        self.seed = seed
        self.timing = timing
        # Humans come from the lobby connected; after a restore nobody is until
        # the server says so.
        self.seats = [
            SeatState(spec, connected=connected or spec.kind != "human") for spec in seats
        ]
        self.log: list[dict[str, Any]] = []
        self.finished = False
        self.xp: list[int | None] | None = None
        self.match: MatchState | None = None
        # Timers: at most one matters at a time (see next_wakeup).
        self._deadline: float | None = None  # the human to move must have moved by then
        self._bot_due: float | None = None  # a bot moves for the seat to move then
        self._pause_due: float | None = None  # the next round starts then
        self._turn_key: tuple[int, int] | None = None
        # Public events not yet sent, and how far the round's log has been read.
        self._events: list[dict[str, Any]] = []
        self._seen: Seen = (0, 0)
        #: The messages' shared parts, with what each was made from, and the current
        #: round's public history as message dicts (snapshot.py).
        self.parts_cache: dict[str, tuple[Any, ...]] = {}
        #: Per round, the indices in the round's log of the moves the server made
        #: for a human seat (a stand-in or left seat's bot, an expired turn): their
        #: public events carry ``"auto": true`` (docs/match-state.md).
        self.auto_moves: dict[int, set[int]] = {}
        #: Hints used per (round, seat) (``hint`` entries).
        self.hints_used: dict[tuple[int, int], int] = {}

    def _set_bot_budget(self, budget: float | None, clock: Callable[[], float]) -> None:
        if budget is not None and not budget >= 0:
            raise ValueError("A bot's decision budget cannot be negative.")
        #: Seconds a bot's decision may take (``None``: no limit), measured on ``bot_clock``.
        self.bot_budget = budget
        self.bot_clock = clock

    # -- public API ------------------------------------------------------------
    @property
    def version(self) -> int:
        """The number of accepted log entries; every message carries it as ``v``."""
        return len(self.log)

    @property
    def phase(self) -> str:
        """``playing``, ``round_over`` (the pause between rounds) or ``match_over``."""
        if self.finished:
            return MATCH_OVER
        return ROUND_OVER if self._m.round.over else PLAYING

    @property
    def finished_reason(self) -> str | None:
        return self._m.finished_reason if self.finished else None

    def command(self, seat: int, cmd: Command, now: float) -> Outcome:
        """Handle ``seat``'s command: a move, back ("Ich bin wieder da") or leave.

        The command's type is trusted (the server's schema checked the message); a move
        is legal when the rules make it. A refusal changes nothing and is ``out.error``.
        """
        now = self._clamp(now)
        out = Outcome()
        self._fire_due(now, out)
        try:
            self._command(seat, cmd, now, out)
        except (CommandError, RulesError) as exc:
            out.error = Refusal(exc.code, self.version, exc.params)
        return self._finish(out, now)

    def rename(self, seat: int, name: str) -> bool:
        """A seated human's player took a new name: the seat shows it from now on (the
        next snapshots, the record). Not logged: names are no part of the play; the
        server stores the seats with it. ``False`` when nothing changed."""
        st = self.seats[seat]
        if st.spec.kind != "human" or st.spec.name == name:
            return False
        st.spec = dataclasses.replace(st.spec, name=name)
        return True

    def set_connected(self, seat: int, connected: bool, now: float) -> Outcome:
        """Note that ``seat``'s client came or went; the seat and its clock stay as they are.

        Connections are not logged: they change nothing in the game, and after a
        restore every client has to connect again anyway.
        """
        now = self._clamp(now)
        out = Outcome()
        self._fire_due(now, out)
        st = self.seats[seat]
        if st.spec.kind == "human" and st.connected != connected:
            st.connected = connected
            self._events.append(
                {"kind": "connected" if connected else "disconnected", "seat": seat}
            )
        return self._finish(out, now)

    def advance(self, now: float) -> Outcome:
        """Fire everything due by ``now``: bot moves, timeouts, stand-ins, the next round.

        Each timer fires at its own due time (the entries carry that time), so the
        log does not depend on how late the caller wakes up.
        """
        now = self._clamp(now)
        out = Outcome()
        self._fire_due(now, out)
        return self._finish(out, now)

    def next_wakeup(self) -> float | None:
        """When :meth:`advance` has something to do, or ``None`` (match over)."""
        if self.finished:
            return None
        if self._m.round.over:
            return self._pause_due
        if self.seats[self._m.round.turn].bot_level is not None:
            return self._bot_due
        return self._deadline

    def snapshot(self, audience: int | None, now: float) -> dict[str, Any]:
        """The full state message for a seat (or ``None``: a spectator), without events."""
        return snap.build(self, audience, now, [])

    def snapshots(self, now: float) -> list[tuple[int | None, dict[str, Any]]]:
        """A snapshot for every audience: each seat, then the spectators."""
        return snap.build_all(self, self._audiences(), now, [])

    def remaining(self, now: float) -> float | None:
        """Seconds left on the running human clock, or ``None`` when no human clock runs."""
        if self.finished or self._m.round.over or self._deadline is None:
            return None
        if self.seats[self._m.round.turn].bot_level is not None:
            return None
        return max(0.0, self._deadline - now)

    def until_next_round(self, now: float) -> float | None:
        """Seconds until the next round starts by itself (``round_over`` phase only)."""
        if self.finished or self._pause_due is None or not self._m.round.over:
            return None
        return max(0.0, self._pause_due - now)

    def earlier_rounds(self) -> list[dict[str, Any]]:
        """The public events of every round before the current one, oldest first.

        ``[{"round": 1, "events": [...]}, ...]``: what the log of a client that watched
        from the start showed (docs/match-state.md, ``events``), rebuilt from the log on
        request (a reloaded page asks once; the snapshots stay small). Each entry's
        events are gathered as one outcome's are, so draws merge within an entry only;
        connection news is not logged, so it is not here either. A round's events run
        from its ``round_start`` (round 1 has none) to what happened in the pause after
        it. Public only: the engine's public events, never a drawn tile, a hand or the
        Lager, nor the *Lager Aus* leftovers.
        """
        current = self._m.round_no
        if current <= 1:
            return []
        shadow = Table.__new__(Table)
        shadow._setup(
            self.match_id,
            self.rules,
            [st.spec for st in self.seats],
            self.seed,
            self.timing,
            connected=True,
        )
        shadow._set_bot_budget(None, self.bot_clock)
        events: list[dict[str, Any]] = []
        for entry in self.log:
            if entry["kind"] == ROUND and entry["payload"]["round"] >= current:
                break
            shadow._apply(dict(entry))
            events += shadow._events
            shadow._events = []
        rounds: list[dict[str, Any]] = []
        for ev in events:
            if ev["kind"] == "round_start":
                if ev["round"] == 1:
                    continue  # a live client never hears round 1 start: it sees it dealt
                rounds.append({"round": ev["round"], "events": []})
            elif not rounds:
                rounds.append({"round": 1, "events": []})
            rounds[-1]["events"].append(ev)
        return rounds

    def hint_view(self, seat: int, v: int, limit: int) -> SeatView:
        """The view a hint for ``seat`` is computed from (its own, nothing else), or
        :class:`CommandError`: not its turn, the table moved on since version ``v``,
        ``limit`` hints this round used up (0: hints are off)."""
        if not 0 <= seat < len(self.seats) or self.seats[seat].spec.kind != HUMAN:
            raise CommandError("not_seated")
        if self.finished:
            raise CommandError("match_over")
        st = self.seats[seat]
        if st.left:
            raise CommandError("left_match")
        if limit <= 0:
            raise CommandError("hint_off")
        m = self._m
        if m.round.over or m.round.turn != seat or st.standin:
            raise CommandError("hint_not_your_turn")
        if v != self.version:
            raise CommandError("stale_version")
        if self.hints_used.get((m.round_no, seat), 0) >= limit:
            raise CommandError("hint_limit", n=limit)
        return view(m, seat)

    def hints_left(self, seat: int, limit: int) -> int:
        """Hints ``seat`` may still use this round under ``limit``."""
        used = self.hints_used.get((self._m.round_no, seat), 0) if self.match else 0
        return max(0, limit - used)

    def use_hint(self, seat: int, now: float) -> Outcome:
        """Log that ``seat`` used a hint (everyone's log says so; what it said is the
        seat's alone and is not logged)."""
        now = self._clamp(now)
        out = Outcome()
        self._record(HINT, seat, {"round": self._m.round_no}, now, out)
        return self._finish(out, now)

    @classmethod
    def restore(
        cls,
        match_id: str,
        rules: Rules,
        seats: Sequence[SeatSpec],
        seed: str,
        log: Sequence[dict[str, Any]],
        now: float,
        timing: Timing | None = None,
        *,
        bot_budget: float | None = None,
        bot_clock: Callable[[], float] = time.perf_counter,
    ) -> Table:
        """Rebuild a table by replaying ``log``; re-arm its timers relative to ``now``.

        A human's clock gets the time it had left at the last entry plus
        ``timing.grace``; a bot's next move and the pause between rounds keep
        their remaining time. Bots are not asked again: their moves are in the log
        (a move cut short by ``bot_budget`` depends on timing and could differ).
        """
        self = cls.__new__(cls)
        self._setup(match_id, rules, seats, seed, timing or Timing(), connected=False)
        self._set_bot_budget(bot_budget, bot_clock)
        if not log or log[0].get("kind") != START:
            raise RestoreError("A table log begins with its start entry.")
        for i, entry in enumerate(log):
            if entry.get("v") != i + 1:
                raise RestoreError(f"Entry {i} has version {entry.get('v')}, expected {i + 1}.")
            try:
                self._apply(dict(entry))
            except (RulesError, KeyError, TypeError, ValueError) as exc:
                raise RestoreError(f"Entry {i + 1} cannot be replayed: {exc}") from exc
        self._events.clear()
        shift = now - float(log[-1]["t"])
        if self._deadline is not None:
            self._deadline += shift + self.timing.grace
        if self._bot_due is not None:
            self._bot_due += shift
        if self._pause_due is not None:
            self._pause_due += shift
        return self

    # -- commands --------------------------------------------------------------
    def _command(self, seat: int, cmd: Command, now: float, out: Outcome) -> None:
        if not 0 <= seat < len(self.seats):
            raise CommandError("bad_seat")
        st = self.seats[seat]
        if st.spec.kind != "human":
            raise CommandError("not_seated")
        if self.finished:
            raise CommandError("match_over")
        if st.left:
            raise CommandError("left_match")
        if isinstance(cmd, LeaveCommand):
            self._record(LEAVE, seat, {}, now, out)
            if not self.finished and self._due_end() == ABANDONED:
                self._record(END, None, {"reason": ABANDONED}, now, out)
            return
        version = self.version
        # Any action of the player ends a stand-in, even a move that is then refused.
        if st.standin:
            self._record(BACK, seat, {}, now, out)
        if isinstance(cmd, BackCommand):
            return
        if isinstance(cmd, HintCommand):
            raise CommandError("hint_off")  # the server asks hint_view / use_hint instead
        if cmd.v != version:
            raise CommandError("stale_version")
        # The rules parse the text and, making the move, decide whether it is legal.
        move = Move.parse(cmd.move)
        self._record(MOVE, seat, {"move": str(move)}, now, out, move)

    # -- timers ----------------------------------------------------------------
    def _clamp(self, now: float) -> float:
        # A caller's clock that steps back must not write entries out of order.
        return max(now, float(self.log[-1]["t"])) if self.log else now

    def _fire_due(self, now: float, out: Outcome) -> None:
        while (due := self.next_wakeup()) is not None and due <= now:
            if self._m.round.over and self._events:
                # A caller waking late would fold the round's end into the next
                # round's snapshot; send the reveal first so nobody misses it.
                self._flush(out, now)
            self._fire(due, out)

    def _fire(self, t: float, out: Outcome) -> None:
        m = self._m
        reason = self._due_end()
        if reason is not None:
            # Only reachable after a restore from a log cut between an entry and the
            # end it implied (live, the end is recorded with its cause).
            self._record(END, None, {"reason": reason}, t, out)
            return
        if m.round.over:
            self._record(ROUND, None, {"round": m.round_no + 1}, t, out)
            return
        s = m.round.turn
        level = self.seats[s].bot_level
        if level is not None:
            seen = view(m, s)
            try:
                bot = make_bot(
                    level,
                    bot_seed(self.seed, s, self.version),
                    budget=self.bot_budget,
                    clock=self.bot_clock,
                )
                move = bot.choose(seen)
            except Exception:  # a failing policy must not stop the match
                move = auto_move(seen)
            if move not in seen.legal:
                move = auto_move(seen)
            self._record(BOT_MOVE, s, {"move": str(move)}, t, out, move)
            return
        # The human's turn ran out: Fortgeschritten's choice, drawing until a tile
        # fits, all within this one turn (RULES.md §10). Worked out on a copy so the
        # moves can be logged first and then applied like any entry.
        trial = copy.deepcopy(m.round)
        moves: list[str] = []
        while not trial.over and trial.turn == s:
            mv = auto_move(view(trial, s))
            trial.apply(mv, s)
            moves.append(str(mv))
        standin = self.seats[s].expired + 1 >= EXPIRIES_FOR_STANDIN
        self._record(TIMEOUT, s, {"moves": moves, "standin": standin}, t, out)

    def _due_end(self) -> str | None:
        """Why the match must end now, if it must: decided (§9) or no human left (§10)."""
        m = self._m
        if m.round.over and m.over:
            return m.finished_reason
        started_with_humans = any(st.spec.kind == "human" for st in self.seats)
        if started_with_humans and not any(st.human for st in self.seats):
            return ABANDONED
        return None

    # -- the log ---------------------------------------------------------------
    def _record(
        self,
        kind: str,
        seat: int | None,
        payload: dict[str, Any],
        t: float,
        out: Outcome | None = None,
        move: Move | None = None,
    ) -> None:
        entry = {"v": self.version + 1, "t": t, "seat": seat, "kind": kind, "payload": payload}
        self._apply(entry, move)
        if out is not None:
            out.entries.append(entry)
        # The match ends right after the round that decides it (RULES.md §9).
        if kind != END and not self.finished and self._m.round.over and self._m.over:
            self._record(END, None, {"reason": self._m.finished_reason}, t, out)

    def _apply(self, e: dict[str, Any], move: Move | None = None) -> None:
        """Apply one entry to the state; the same code runs live and on replay.

        ``move``: the move of a move entry, as made live (a replay parses the entry's text).
        """
        kind, seat, payload, t = e["kind"], e["seat"], e["payload"], float(e["t"])
        if self.finished:
            raise RestoreError("Nothing happens after the match's end.")
        if kind in (MOVE, BOT_MOVE, TIMEOUT, BACK, LEAVE, HINT) and not (
            isinstance(seat, int) and 0 <= seat < len(self.seats)
        ):
            # The engine would apply a move without a seat for whoever is to move.
            raise RestoreError(f"A {kind} entry needs a seat, not {seat!r}.")
        if kind == START:
            if self.match is not None:
                raise RestoreError("The match has started already.")
            self.match = MatchState(self.rules, seed=self.seed)
        elif self.match is None:
            raise RestoreError("The log does not begin with the start entry.")
        elif kind in (MOVE, BOT_MOVE):
            start = len(self._m.round.log)
            if move is None:
                (text,) = entry_moves(e)
                move = Move.parse(text)
            self._m.apply(move, seat)
            if kind == MOVE:
                self.seats[seat].expired = 0
            elif self.seats[seat].spec.kind == HUMAN:
                self._mark_auto(start)
        elif kind == TIMEOUT:
            self._events.append({"kind": "timeout", "seat": seat})
            start = len(self._m.round.log)
            if "moves" not in payload:
                raise RestoreError("A timeout entry needs its moves.")
            for text in entry_moves(e):
                self._m.apply(Move.parse(text), seat)
            self._mark_auto(start)
            self._collect_events()  # the automatic moves before the stand-in news
            st = self.seats[seat]
            st.expired += 1
            if payload.get("standin") and not st.standin:
                st.standin = True
                self._events.append({"kind": "standin", "seat": seat})
        elif kind == BACK:
            st = self.seats[seat]
            st.standin = False
            st.expired = 0
            self._events.append({"kind": "back", "seat": seat})
            if not self._m.round.over and self._m.round.turn == seat:
                self._deadline = None  # a fresh turn clock for the returning player
        elif kind == LEAVE:
            st = self.seats[seat]
            st.left = True
            st.standin = False
            self._events.append({"kind": "leave", "seat": seat})
        elif kind == HINT:
            key = (self._m.round_no, seat)
            self.hints_used[key] = self.hints_used.get(key, 0) + 1
            self._events.append({"kind": "hint", "seat": seat})
        elif kind == ROUND:
            if payload["round"] != self._m.round_no + 1:
                raise RestoreError(f"Round {payload['round']} does not follow.")
            self._m.start_round()
        elif kind == END:
            reason = payload["reason"]
            if reason == ABANDONED:
                self._m.end_now()
            elif not (self._m.round.over and self._m.over):
                raise RestoreError("The log ends a match that is not over.")
            self.finished = True
            self.xp = self._xp()
            self._collect_events()
            self._events.append({"kind": "match_end", "reason": self._m.finished_reason})
        else:
            raise RestoreError(f"Unknown entry kind {kind!r}.")
        if kind != END:
            self._collect_events()
        self.log.append(e)
        self._rearm(t)

    def _rearm(self, t: float) -> None:
        """Set the timer that matters after a change at time ``t``."""
        m = self._m
        if self.finished:
            self._deadline = self._bot_due = self._pause_due = None
            return
        if m.round.over:
            if self._pause_due is None:
                self._pause_due = t + self.timing.round_pause
            self._deadline = self._bot_due = None
            self._turn_key = None
            return
        self._pause_due = None
        s = m.round.turn
        key = (m.round_no, s)
        new_turn = key != self._turn_key
        self._turn_key = key
        if self.seats[s].bot_level is not None:
            # Seeded by the version, so a replay draws the same delays.
            rng = random.Random(f"{self.seed}|delay|{self.version}")
            first = new_turn or self._bot_due is None
            lo, hi = self.timing.bot_delay if first else self.timing.bot_step_delay
            self._bot_due = t + rng.uniform(lo, hi)
            self._deadline = None
        else:
            self._bot_due = None
            if new_turn or self._deadline is None:
                self._deadline = t + self.rules.turn_seconds

    # -- events and messages ---------------------------------------------------
    def _mark_auto(self, start: int) -> None:
        """The round's log from ``start`` on holds moves the server made for a human."""
        m = self._m
        self.auto_moves.setdefault(m.round_no, set()).update(range(start, len(m.round.log)))

    def _collect_events(self) -> None:
        auto = self.auto_moves.get(self._m.round_no, set())
        self._seen = announce(self._m, self._seen, self._events, auto)

    def _flush(self, out: Outcome, now: float) -> None:
        """One snapshot per audience carrying the events gathered so far."""
        events, self._events = self._events, []
        out.messages += snap.build_all(self, self._audiences(), now, events)

    def _finish(self, out: Outcome, now: float) -> Outcome:
        if self._events:
            self._flush(out, now)
        if any(e["kind"] == END for e in out.entries):
            out.finished = True
            out.xp = self.xp
        return out

    def _audiences(self) -> list[int | None]:
        return [*range(len(self.seats)), None]

    def _xp(self) -> list[int | None]:
        """XP per seat at the match's end (RULES.md §12): humans seated at the end only."""
        places = [s.place for s in self._m.standings()]
        return [
            match_xp(self._m.place_of_seat(i), places) if st.human else None
            for i, st in enumerate(self.seats)
        ]

    @property
    def _m(self) -> MatchState:
        assert self.match is not None
        return self.match


__all__ = ["CommandError", "RestoreError", "Table", "bot_seed"]
