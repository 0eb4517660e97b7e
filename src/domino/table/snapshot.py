"""The ``state`` message one audience receives (documented in docs/match-state.md).

What the audience sees of the round is :mod:`domino.rules.audience`'s to decide
(its :func:`~domino.rules.audience.view`, :func:`~domino.rules.audience.private_fields`);
this module adds the public seat, clock and standings information and keeps the
message's shape.

Parts that stay the same over many messages (the rules, the seats, the standings,
the score sheet, the round's history) are :class:`Shared` or :class:`SharedDict`
objects: one object held by every message that shows that part, until it changes.
A message is read-only once built, so they may be shared; the wire encoder keeps
each one's JSON text on it (``wire``) and writes it into every message that holds it
instead of encoding the part again for each audience and move.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from domino.rules import MatchState, RoundState, Rules, view
from domino.rules.audience import private_fields
from domino.rules.match import rank

from .events import public_event
from .model import SeatState


class Shared(list[Any]):
    """A list that many messages hold as the same object (so: never changed after it
    is made). ``wire`` is free for the encoder to keep the list's encoding in."""

    __slots__ = ("wire",)

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        self.wire: object = None


class SharedDict(dict[str, Any]):
    """A dict that many messages hold as the same object (see :class:`Shared`)."""

    __slots__ = ("wire",)

    def __init__(self, items: dict[str, Any]) -> None:
        super().__init__(items)
        self.wire: object = None


class TableFacts(Protocol):
    """What a ``state`` message reads of a table (:class:`domino.table.Table` is one):
    a door, so that this module need not import the table that imports it."""

    #: The shared parts of the last messages, by name, each with what it was made from
    #: (``"history"`` also holds the round's events converted so far: :func:`_history`).
    parts_cache: dict[str, tuple[Any, ...]]

    @property
    def match(self) -> MatchState | None: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def match_id(self) -> str: ...
    @property
    def seats(self) -> Sequence[SeatState]: ...
    @property
    def finished(self) -> bool: ...
    @property
    def xp(self) -> Sequence[int | None] | None: ...
    @property
    def auto_moves(self) -> dict[int, set[int]]: ...
    @property
    def version(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def finished_reason(self) -> str | None: ...
    def remaining(self, now: float) -> float | None: ...
    def until_next_round(self, now: float) -> float | None: ...


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)


def _history(table: TableFacts, rnd: RoundState) -> Shared:
    """The round's public history as dicts, each event converted once per round.

    The table keeps the list (``parts_cache["history"]``: the round, the list, the
    last copy handed out); messages get a :class:`Shared` copy of it, the same one
    until the next event (the dicts in it are never changed after they are made),
    so earlier messages stay as they were.
    """
    cached = table.parts_cache.get("history")
    if cached is None or cached[0] is not rnd:
        cached = (rnd, [], None)
    _, done, part = cached
    log = rnd.log
    if part is not None and len(done) == len(log):
        shared: Shared = part
        return shared
    auto = table.auto_moves.get(table.match.round_no, set()) if table.match else set()
    for i in range(len(done), len(log)):
        done.append(public_event(log[i], i in auto))
    shared = Shared(done)
    table.parts_cache["history"] = (rnd, done, shared)
    return shared


def _rules_part(table: TableFacts) -> SharedDict:
    rules = table.rules
    last = table.parts_cache.get("rules")
    if last is not None and last[0] is rules:
        part: SharedDict = last[1]
        return part
    part = SharedDict({**rules.to_dict(), "target_points": rules.target_points})
    table.parts_cache["rules"] = (rules, part)
    return part


def _seats_part(table: TableFacts) -> Shared:
    rules = table.rules
    seats = [st.to_dict(i, rules.side_of(i)) for i, st in enumerate(table.seats)]
    last = table.parts_cache.get("seats")
    if last is not None and last[0] == seats:
        part: Shared = last[0]
        return part
    part = Shared(seats)
    table.parts_cache["seats"] = (part,)
    return part


def _standings_part(table: TableFacts, m: MatchState) -> Shared:
    rules = table.rules
    scores = m.scores
    last = table.parts_cache.get("standings")
    if last is not None and last[0] is rules and last[1] == scores:
        part: Shared = last[2]
        return part
    seats = range(rules.seats)
    sides = [[i for i in seats if rules.side_of(i) == side] for side in range(rules.sides)]
    part = Shared(
        {"side": s.side, "seats": sides[s.side], "points": s.points, "place": s.place}
        for s in rank(scores)
    )
    table.parts_cache["standings"] = (rules, scores, part)
    return part


def _round_points_part(table: TableFacts, m: MatchState) -> Shared:
    # The score sheet: every finished round's points per side (round-end points plus
    # that round's Fünferpunkte), public like the standings.
    last = table.parts_cache.get("round_points")
    if last is not None and last[0] is m and last[1] == len(m.results):
        part: Shared = last[2]
        return part
    part = Shared(list(r.totals) for r in m.results)
    table.parts_cache["round_points"] = (m, len(m.results), part)
    return part


def build(
    table: TableFacts, audience: int | None, now: float, events: list[dict[str, Any]]
) -> dict[str, Any]:
    """The full ``state`` message for ``audience`` (a seat, or ``None`` for spectators)."""
    m = table.match
    assert m is not None
    rules = table.rules
    # A match ended early (everyone left) stops mid-round: nobody may move.
    vd = view(m, audience, with_history=False, stopped=table.finished).to_dict()
    vd["history"] = _history(table, m.round)
    running = not table.finished and not m.round.over
    return {
        "type": "state",
        "v": table.version,
        "match_id": table.match_id,
        "you": audience,
        "phase": table.phase,
        "rules": _rules_part(table),
        "seats": _seats_part(table),
        "view": vd,
        "clock": {
            "seat": m.round.turn if running else None,
            "turn_seconds": rules.turn_seconds,
            "remaining_ms": _ms(table.remaining(now)),
            "next_round_ms": _ms(table.until_next_round(now)),
        },
        "events": Shared(dict(e) for e in events),
        "standings": _standings_part(table, m),
        "round_points": _round_points_part(table, m),
        "finished_reason": table.finished_reason,
        "xp": None if table.xp is None else list(table.xp),
    }


def build_all(
    table: TableFacts, audiences: Sequence[int | None], now: float, events: list[dict[str, Any]]
) -> list[tuple[int | None, dict[str, Any]]]:
    """``[(a, build(table, a, now, events)) for a in audiences]``, built once.

    The audiences' messages differ only in ``you`` and in the view's ``seat``,
    ``hand`` and ``legal`` (:func:`domino.rules.audience.private_fields`); everything else is
    built once for the spectators and shared, by reference, by every seat's
    message. Messages are read-only after this (the server copies before adding
    to one). Measured under load, building every audience's message from scratch
    was a third of the server's time per move.
    """
    public = build(table, None, now, events)
    m = table.match
    assert m is not None
    rnd = m.round
    out: list[tuple[int | None, dict[str, Any]]] = []
    for a in audiences:
        if a is None:
            out.append((None, public))
            continue
        vd = {**public["view"], **private_fields(rnd, a, stopped=table.finished)}
        out.append((a, {**public, "you": a, "view": vd}))
    return out
