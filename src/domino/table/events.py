"""Public announcements: the engine's round log as every audience may learn it.

The engine's own log is private (a draw names its tile); what of it every
audience learns is :class:`~domino.rules.PublicEvent`'s to decide
(:mod:`domino.rules.audience`). Here those public events become the ``events`` of a snapshot
(docs/match-state.md): a seat's consecutive draws merge into one event with a
``count``, a move the server made for a human seat carries ``"auto": true``,
and a round's start and end are announced.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from domino.rules import Event, MatchState, PublicEvent

#: The kinds of engine events a move makes (an opening is nobody's choice).
AUTO_KINDS = frozenset({"play", "draw", "pass"})

#: How far the engine's log has been announced: (round number, events read).
Seen = tuple[int, int]


def public_event(ev: Event, auto: bool) -> dict[str, Any]:
    """One engine event as its public dict; ``auto`` marks a move made for a human."""
    pub = PublicEvent.of(ev).to_dict()
    if auto and pub["kind"] in AUTO_KINDS:
        pub["auto"] = True
    return pub


def announce(
    m: MatchState, seen: Seen, events: list[dict[str, Any]], auto: Collection[int] = ()
) -> Seen:
    """Append the public events of ``m`` that happened since ``seen``; return the new mark.

    ``auto`` holds the indices in the round's log of moves the server made for a
    human seat (:func:`public_event` marks them).
    """
    rnd_no, start = seen
    if rnd_no != m.round_no:
        events.append({"kind": "round_start", "round": m.round_no})
        start = 0
    log = m.round.log
    for i in range(start, len(log)):
        pub = public_event(log[i], i in auto)
        if pub["kind"] == "draw":
            last = events[-1] if events else None
            if (
                last is not None
                and last["kind"] == "draw"
                and last["seat"] == pub["seat"]
                and last.get("auto") == pub.get("auto")
            ):
                last["count"] += 1
                continue
            pub["count"] = 1
        events.append(pub)
    res = m.round.result
    if res is not None and start < len(log):
        # The event that ended the round was just announced: so is the end.
        events.append(
            {
                "kind": "round_end",
                "round": m.round_no,
                "reason": res.reason,
                "winner": res.winner,
                "points": list(res.points),
            }
        )
    return (m.round_no, len(log))
