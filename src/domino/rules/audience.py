"""What each audience may see (RULES.md §4, §6, §7, §11, §13): the one place that decides.

An audience is a seat (``0..n-1``), the spectators (:data:`SPECTATORS`, ``None``)
or everyone with every hand face up (:data:`EVERYONE`: the replay of a finished
match, OpenSpiel's all-players observation). Everything shown to anyone is built
or filtered here; the modules that send it (the table's ``state`` message, the
replay frames, the game record, the server's record and history queries,
OpenSpiel's observer) keep only the shape of what they send:

- a hand: its seat's own, every hand at a round's end (§7), every hand in a
  replay; :func:`sees_hand`. A drawn tile is part of the hand it went into;
- legal moves: only the seat to move, while the round and the match run;
- the Lager: its size only, never its tiles or their order;
- the tiles out of play (*Lager Aus*): never, not even in a record;
- records: a finished match's game record, without the tiles out of play; the
  table log stored instead of one holds the seed and is never shown;
- a match's history: for its seats, its spectators, and anyone once it is over.

:func:`view` builds a seat's or the spectators' knowledge of a round. A view
holds the own hand only, the line, the ends, the Lager's size, every seat's hand
size, the points, the public history (plays, draws as events without the tile,
passes) and, on the seat's turn, its legal moves. After the round's end it shows
every hand still held. :func:`hand_text` is the one way a hand is written out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeVar

from .config import Rules
from .match import MatchState
from .moves import DRAW, Move
from .round import Event, RoundResult, RoundState
from .tiles import Tile, tiles_of

if TYPE_CHECKING:
    from .deal import Deal

#: An audience: a seat, :data:`SPECTATORS` or :data:`EVERYONE`.
Audience = int | None
#: The spectators (and anyone else without a seat): no hand before a round's end.
SPECTATORS: Final = None
#: Every hand face up, the Lager and the tiles out of play still hidden: the replay of
#: a finished match (its hands were all shown at each round's end, §7).
EVERYONE: Final = -1
#: The format name of a game record (docs/records.md): the only stored record shown.
RECORD_FORMAT: Final = "domino-record"

H = TypeVar("H")


def sees_hand(audience: Audience, seat: int) -> bool:
    """Whether ``audience`` sees the hand of ``seat``, and so the tiles it draws."""
    return audience in (EVERYONE, seat)


def seen_hands(hands: Sequence[H], audience: Audience) -> list[H | None]:
    """``hands`` (one per seat, in any form) as ``audience`` sees them: ``None`` when hidden."""
    return [h if sees_hand(audience, s) else None for s, h in enumerate(hands)]


def seen_tile(ev: Event, audience: Audience) -> Tile | None:
    """The tile of an engine event as ``audience`` learns it: a draw names it only to
    those who see the drawer's hand (§6); a play or an opening names it to all."""
    if ev.kind == DRAW and not sees_hand(audience, ev.seat):
        return None
    return ev.tile


def hand_text(tiles: Iterable[Tile]) -> list[str]:
    """A hand (or any row of tiles) written out: ``["6|2", "3|3"]``, the one way."""
    return [t.text for t in tiles]


def audience_of(
    profile: str, players: Sequence[str | None], left: Collection[int] = ()
) -> Audience:
    """The audience of ``profile`` at a match whose seats ``players`` hold (``None``: a
    bot): the seat it plays, unless that seat left the match; else the spectators.

    >>> audience_of("b", ["a", "b"]), audience_of("b", ["a", "b"], left={1})
    (1, None)
    """
    for seat, player in enumerate(players):
        if player == profile and seat not in left:
            return seat
    return SPECTATORS


def may_follow(*, seated: bool, watching: bool, finished: bool) -> bool:
    """Whether someone may read a match's public history: its seats, its spectators,
    and anyone once it is over."""
    return seated or watching or finished


def public_deal(deal: Deal) -> dict[str, Any]:
    """A deal as a record shows it: the hands and the Lager in drawing order, never the
    tiles out of play (§4). :meth:`~domino.rules.Deal.from_dict` reads it back to the
    same deal (the leftovers are the tiles in no hand and not in the Lager).

    >>> from domino.rules import Deal, Rules, shuffled_deal
    >>> d = shuffled_deal(Rules(seats=2, lager=False), seed=3)
    >>> back = Deal.from_dict(public_deal(d))
    >>> back.hands == d.hands, back.out == tuple(sorted(d.out)), "out" in public_deal(d)
    (True, True, False)
    """
    return {"hands": [hand_text(h) for h in deal.hands], "lager": hand_text(deal.lager)}


def public_record(record: Any, *, finished: bool = True) -> dict[str, Any] | None:
    """A stored record as anyone may see it; ``None`` when nothing of it may be shown.

    Nothing while the match runs (its deals are secret until the end), nothing of a
    stored table log (it holds the seed, which recomputes every deal); a game record
    without its tiles out of play (§4; records written before :func:`public_deal` left
    them out still hold them).

    >>> rec = {"format": "domino-record", "rounds": [{"deal": {"hands": [["6|6"]],
    ...     "out": ["0|0"]}, "moves": []}]}
    >>> public_record(rec)
    {'format': 'domino-record', 'rounds': [{'deal': {'hands': [['6|6']]}, 'moves': []}]}
    >>> public_record(rec, finished=False), public_record({"format": "domino-table-log"})
    (None, None)
    """
    if not finished or not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        return None
    out = dict(record)
    rounds = out.get("rounds")
    if isinstance(rounds, list):
        out["rounds"] = [
            {**r, "deal": {k: v for k, v in r["deal"].items() if k != "out"}}
            if isinstance(r, Mapping) and isinstance(r.get("deal"), Mapping)
            else r
            for r in rounds
        ]
    return out


@dataclass(frozen=True, slots=True)
class PublicEvent:
    """An event as every seat learns it: a draw never names its tile."""

    seat: int
    kind: str  # open | play | draw | pass
    tile: Tile | None
    end: str | None
    ends: tuple[int, int] | None
    fives: int

    @staticmethod
    def of(ev: Event) -> PublicEvent:
        return PublicEvent(ev.seat, ev.kind, seen_tile(ev, SPECTATORS), ev.end, ev.ends, ev.fives)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seat": self.seat, "kind": self.kind}
        if self.tile is not None:
            d["tile"] = str(self.tile)
        if self.end is not None:
            d["end"] = self.end
        if self.fives:
            d["fives"] = self.fives
        return d


@dataclass(frozen=True, slots=True)
class SeatView:
    """One audience's knowledge of a round (``seat`` is ``None`` for spectators)."""

    seat: int | None
    rules: Rules
    round_no: int
    opener: int
    hand: tuple[Tile, ...] | None
    line: tuple[tuple[Tile, int, int], ...]  # (tile, left half, right half) as laid
    left: int
    right: int
    left_double: bool
    right_double: bool
    lager_count: int
    hand_counts: tuple[int, ...]
    scores: tuple[int, ...]
    turn: int | None
    drew: int
    history: tuple[PublicEvent, ...]
    legal: tuple[Move, ...]
    result: RoundResult | None

    @property
    def seats(self) -> int:
        return self.rules.seats

    @property
    def played(self) -> tuple[Tile, ...]:
        return tuple(t for t, _, _ in self.line)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for clients (tiles as ``"6|2"``, moves as ``"6|2 L"``)."""
        d: dict[str, Any] = {
            "seat": self.seat,
            "round": self.round_no,
            "opener": self.opener,
            "hand": None if self.hand is None else hand_text(self.hand),
            "line": [[str(t), a, b] for t, a, b in self.line],
            "ends": [self.left, self.right],
            "end_doubles": [self.left_double, self.right_double],
            "lager": self.lager_count,
            "hand_counts": list(self.hand_counts),
            "scores": list(self.scores),
            "turn": self.turn,
            "drew": self.drew,
            "legal": [str(m) for m in self.legal],
            "result": None if self.result is None else result_to_dict(self.result),
        }
        return d


def result_to_dict(r: RoundResult) -> dict[str, Any]:
    return {
        "reason": r.reason,
        "out_seat": r.out_seat,
        "winner": r.winner,
        "points": list(r.points),
        "fives": list(r.fives),
        "pips": list(r.pips),
        "hands": [hand_text(h) for h in r.hands],
    }


def private_part(
    rnd: RoundState, seat: int, *, stopped: bool = False
) -> tuple[tuple[Tile, ...], tuple[Move, ...]]:
    """What only ``seat`` sees of a round beyond the spectators' view: its own hand,
    and its legal moves while it is the seat to move (none once the round is over, nor
    in a match ``stopped`` mid-round: everyone left, nobody may move)."""
    own_turn = rnd.result is None and rnd.turn == seat and not stopped
    return tiles_of(rnd.hands[seat]), rnd.legal_moves() if own_turn else ()


def private_fields(rnd: RoundState, seat: int, *, stopped: bool = False) -> dict[str, Any]:
    """The fields of :meth:`SeatView.to_dict` in which a seat's view differs from the
    spectators': ``seat``, ``hand`` and ``legal`` (:func:`private_part`)."""
    hand, legal = private_part(rnd, seat, stopped=stopped)
    return {"seat": seat, "hand": hand_text(hand), "legal": [str(m) for m in legal]}


def replay_frame(match: MatchState) -> dict[str, Any]:
    """A finished match's moment as its replay shows it (:data:`EVERYONE`): the
    spectators' view (:meth:`SeatView.to_dict` without ``seat``, ``hand`` and
    ``legal``) plus ``hands``: :data:`EVERYONE` sees every hand. The Lager stays a size."""
    d = view(match, SPECTATORS, with_history=False).to_dict()
    del d["hand"], d["legal"], d["seat"]
    rnd = match.round
    d["hands"] = [hand_text(rnd.hand(s)) for s in range(match.rules.seats)]
    return d


def view(
    state: RoundState | MatchState,
    seat: int | None,
    *,
    with_history: bool = True,
    stopped: bool = False,
) -> SeatView:
    """The view of ``seat`` (``None``: a spectator) of a round or a match's current round.

    ``with_history=False`` leaves ``history`` empty, for a caller that keeps the
    round's public history itself, event by event (:meth:`PublicEvent.of`).
    ``stopped``: the match ended mid-round (everyone left), so nobody may move.
    """
    scores: tuple[int, ...]
    if isinstance(state, MatchState):
        rnd = state.round
        scores = state.scores
        round_no = state.round_no
    else:
        rnd = state
        scores = tuple(rnd.side_fives)
        round_no = 1
    over = rnd.result is not None
    hand, legal = private_part(rnd, seat, stopped=stopped) if seat is not None else (None, ())
    return SeatView(
        seat=seat,
        rules=rnd.rules,
        round_no=round_no,
        opener=rnd.opener,
        hand=hand,
        line=tuple(rnd.line),
        left=rnd.left,
        right=rnd.right,
        left_double=rnd.left_double,
        right_double=rnd.right_double,
        lager_count=len(rnd.lager),
        hand_counts=tuple(h.bit_count() for h in rnd.hands),
        scores=scores,
        turn=None if over else rnd.turn,
        drew=rnd.drew,
        history=tuple(PublicEvent.of(e) for e in rnd.log) if with_history else (),
        legal=legal,
        result=rnd.result,
    )
