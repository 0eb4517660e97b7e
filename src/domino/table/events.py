"""Public announcements: the engine's round log as every audience may learn it.

The engine's own log is private (a draw names its tile); :class:`PublicEvent`
hides that. Here those public events become the ``events`` of a snapshot
(docs/match-state.md): a seat's consecutive draws merge into one event with a
``count``, and a round's start and end are announced.
"""

from __future__ import annotations

from typing import Any

from domino.rules import MatchState, PublicEvent

#: How far the engine's log has been announced: (round number, events read).
Seen = tuple[int, int]


def announce(m: MatchState, seen: Seen, events: list[dict[str, Any]]) -> Seen:
    """Append the public events of ``m`` that happened since ``seen``; return the new mark."""
    rnd_no, start = seen
    if rnd_no != m.round_no:
        events.append({"kind": "round_start", "round": m.round_no})
        start = 0
    log = m.round.log
    for ev in log[start:]:
        pub = PublicEvent.of(ev).to_dict()
        if pub["kind"] == "draw":
            last = events[-1] if events else None
            if last is not None and last["kind"] == "draw" and last["seat"] == pub["seat"]:
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
