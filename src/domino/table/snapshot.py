"""The ``state`` message one audience receives (documented in docs/match-state.md).

What the audience sees of the round is :mod:`domino.rules.audience`'s to decide
(its :func:`~domino.rules.audience.view`, :func:`~domino.rules.audience.private_fields`);
this module adds the public seat, clock and standings information and keeps the
message's shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from domino.rules import MatchState, RoundState, Rules, view
from domino.rules.audience import private_fields

from .events import public_event
from .model import SeatState


class TableFacts(Protocol):
    """What a ``state`` message reads of a table (:class:`domino.table.Table` is one):
    a door, so that this module need not import the table that imports it."""

    #: The current round's public history as message dicts (:func:`_history` keeps it).
    history_cache: tuple[RoundState, list[dict[str, Any]]] | None

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


def _history(table: TableFacts, rnd: RoundState) -> list[dict[str, Any]]:
    """The round's public history as dicts, each event converted once per round.

    The table keeps the list; a message gets a new list holding the same dicts
    (never changed after they are made), so earlier messages stay as they were.
    """
    cached = table.history_cache
    if cached is None or cached[0] is not rnd:
        cached = (rnd, [])
        table.history_cache = cached
    done = cached[1]
    log = rnd.log
    auto = table.auto_moves.get(table.match.round_no, set()) if table.match else set()
    for i in range(len(done), len(log)):
        done.append(public_event(log[i], i in auto))
    return list(done)


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
    seats = range(rules.seats)
    return {
        "type": "state",
        "v": table.version,
        "match_id": table.match_id,
        "you": audience,
        "phase": table.phase,
        "rules": {**rules.to_dict(), "target_points": rules.target_points},
        "seats": [st.to_dict(i, rules.side_of(i)) for i, st in enumerate(table.seats)],
        "view": vd,
        "clock": {
            "seat": m.round.turn if running else None,
            "turn_seconds": rules.turn_seconds,
            "remaining_ms": _ms(table.remaining(now)),
            "next_round_ms": _ms(table.until_next_round(now)),
        },
        "events": [dict(e) for e in events],
        "standings": [
            {
                "side": s.side,
                "seats": [i for i in seats if rules.side_of(i) == s.side],
                "points": s.points,
                "place": s.place,
            }
            for s in m.standings()
        ],
        # The score sheet: every finished round's points per side (round-end points plus
        # that round's Fünferpunkte), public like the standings.
        "round_points": [list(r.totals) for r in m.results],
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
