"""The replay viewer's data: a finished match, step by step, every hand face up.

After a match every hand is public (RULES.md §7 shows them at each round's end);
the tiles still in the Lager and the *Lager Aus* leftovers never are (§4). What a
frame shows is :mod:`domino.rules.audience`'s to decide for its audience
:data:`~domino.rules.EVERYONE` (:func:`~domino.rules.audience.replay_frame`, and
:func:`~domino.rules.seen_tile` for a draw's tile); each frame is the spectators'
view of that moment (what the live table renders) plus ``hands``, so the viewer
feeds its one board component the same shape.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Final

from domino.rules import DRAW, EVERYONE, Deal, MatchState, Move, seen_tile, view
from domino.rules.audience import replay_frame
from domino.rules.record import outcome_of, rules_of

FORMAT: Final = "domino-replay"
VERSION: Final = 1


def _frame(match: MatchState, event: dict[str, Any] | None) -> dict[str, Any]:
    d = replay_frame(match)
    d["event"] = event
    return d


def replay_data(
    record: Mapping[str, Any], auto: Collection[tuple[int, int]] = ()
) -> dict[str, Any]:
    """Every round's frames (the opening first, then one per move) and the score sheet.

    ``record`` is a finished match's stored record (trusted to replay). ``auto`` names
    the moves (round, move number from 1) the server made for a human seat; their events
    carry ``"auto": true``, as the live table's do (the record itself does not know).
    """
    rules = rules_of(record["rules"])
    match = MatchState(rules, auto=False)
    rounds = []
    for round_no, rnd in enumerate(record["rounds"], start=1):
        deal = Deal.from_dict(rnd["deal"])
        match.start_round(deal)
        opening = view(match, None).history[0]
        frames = [
            _frame(
                match,
                {"seat": opening.seat, "kind": "open", "tile": str(opening.tile), "end": None},
            )
        ]
        for k, text in enumerate(rnd.get("moves", []), start=1):
            move = Move.parse(text)
            seat = match.round.turn
            ev = match.apply(move, seat)
            event: dict[str, Any] = {"seat": seat, "kind": ev.kind, "tile": None, "end": ev.end}
            tile = seen_tile(ev, EVERYONE)  # a drawn tile too: its hand is public now
            if tile is not None:
                event["tile"] = str(tile)
            if ev.fives:
                event["fives"] = ev.fives
            event["move"] = str(move)
            if move.kind == DRAW:
                event["end"] = None
            if (round_no, k) in auto:
                event["auto"] = True
            frames.append(_frame(match, event))
        rounds.append({"round": round_no, "opener": match.round.opener, "frames": frames})
    if record.get("ended") == "abandoned":
        match.end_now()
    outcome = outcome_of(match, record.get("seats"))
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": {**rules.to_dict(), "target_points": rules.target_points},
        "seats": record.get("seats"),
        "rounds": rounds,
        "sheet": outcome.to_dict(),
    }
