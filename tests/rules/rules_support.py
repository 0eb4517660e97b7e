"""Helpers to script positions: deals written as text, moves applied in order.

``deal(rules, "6|6 6|2 ...", "5|5 ...", lager="3|0 6|4")`` names each seat's
hand and the top of the Lager (drawn first); every tile not named goes to the
bottom of the Lager (Lager An) or out of play (Lager Aus / Paare), in set
order. The result is validated, so a test cannot script an impossible deal.
"""

from __future__ import annotations

import json
import re
from dataclasses import fields, is_dataclass

from domino.rules import (
    TILES,
    Deal,
    MatchState,
    Mode,
    Move,
    RoundResult,
    RoundState,
    Rules,
    Tile,
    view,
)
from domino.rules.audience import PublicEvent, SeatView
from domino.rules.tiles import ALL_MASK

T = Tile.parse

# Every variant a round can be played in: the four modes with 2, 3, 4 seats
# and 4 seats in pairs, plus the single-rule combinations the host may set
# (Lager x Fünferpunkte) that no mode presets.
SEATINGS: tuple[tuple[int, bool], ...] = ((2, False), (3, False), (4, False), (4, True))
VARIANTS: tuple[Rules, ...] = (
    *(Rules.preset(mode, seats, pairs) for mode in Mode for seats, pairs in SEATINGS),
    *(Rules(seats=seats, pairs=pairs, lager=False, fives=True) for seats, pairs in SEATINGS),
)


def tiles(text: str) -> tuple[Tile, ...]:
    """``"6|6 6|2"`` -> the tiles, in order."""
    return tuple(T(x) for x in text.split())


def deal(rules: Rules, *hands: str, lager: str = "", out: str = "") -> Deal:
    hs = tuple(tiles(h) for h in hands)
    lg = list(tiles(lager))
    ot = list(tiles(out))
    named = {t for h in hs for t in h} | set(lg) | set(ot)
    rest = [t for t in TILES if t not in named]
    if rules.draws:
        lg += rest
    else:
        ot += rest
    d = Deal(hs, tuple(lg), tuple(ot))
    d.validate(rules)
    return d


def start(rules: Rules, *hands: str, lager: str = "", out: str = "") -> RoundState:
    """A round of ``rules`` from a scripted deal, opened (§5)."""
    return RoundState.start(rules, deal(rules, *hands, lager=lager, out=out))


def play(state: RoundState | MatchState, *moves: str) -> None:
    """Apply moves (``"6|2 R"``, ``"D"``, ``"P"``) in order, each for the seat to move."""
    for m in moves:
        state.apply(Move.parse(m))


def legal(state: RoundState) -> list[str]:
    return [str(m) for m in state.legal_moves()]


def hand(state: RoundState, seat: int) -> str:
    """The seat's hand as text, in set order."""
    return " ".join(str(t) for t in state.hand(seat))


def snapshot(r: RoundState) -> tuple[object, ...]:
    """Everything a refused move must leave unchanged."""
    return (
        tuple(r.hands),
        tuple(r.lager),
        r.line_text(),
        r.left,
        r.right,
        r.left_double,
        r.right_double,
        r.turn,
        r.drew,
        r.drawn_fit,
        len(r.log),
        tuple(r.side_fives),
        r.result,
    )


def accounted(r: RoundState) -> bool:
    """All 28 tiles are in exactly one place: a hand, the line, the Lager or out of play."""
    masks = [*r.hands, *(t.mask for t, _, _ in r.line), *(1 << i for i in r.lager), r.out]
    total = 0
    for m in masks:
        if total & m:
            return False
        total |= m
    return total == ALL_MASK


# -- what a view reveals ------------------------------------------------------
_PLAIN = (int, str, bool, float, type(None))


def revealed(obj: object) -> set[Tile]:
    """Every tile reachable from a view, walking its fields; refuses unknown objects.

    Only plain values, tiles, moves, tuples, enums and the engine's frozen
    value classes may appear in a view: a state object or a list would be a
    door to hidden information.
    """
    found: set[Tile] = set()
    stack: list[object] = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, Tile):
            found.add(o)
        elif isinstance(o, Move):
            if o.tile is not None:
                found.add(o.tile)
        elif isinstance(o, (Mode, *_PLAIN)):
            pass
        elif isinstance(o, tuple):
            stack.extend(o)
        elif isinstance(o, (SeatView, PublicEvent, RoundResult, Rules)):
            assert is_dataclass(o) and type(o).__dataclass_params__.frozen  # type: ignore[attr-defined]
            stack.extend(getattr(o, f.name) for f in fields(o))
        else:
            raise AssertionError(f"a view holds an unexpected {type(o).__name__}: {o!r}")
    return found


_TILE_TEXT = re.compile(r"(\d)\|(\d)")


def revealed_in_json(data: object) -> set[Tile]:
    """Every tile named in the JSON text of a view (``"6|2"``, ``"6|2 L"``)."""
    return {Tile.of(int(a), int(b)) for a, b in _TILE_TEXT.findall(json.dumps(data))}


_VIEW_FIELDS = {f.name for f in fields(SeatView)}
_TILE_FIELDS = {"hand", "line", "legal", "history", "result"}


def revealed_fast(v: SeatView) -> set[Tile]:
    """:func:`revealed` for the hot loop: the tile-bearing fields read directly.

    The set of fields is pinned, so a new field makes this fail until the
    tests know what it reveals.
    """
    assert _TILE_FIELDS | {
        "seat", "rules", "round_no", "opener", "left", "right", "left_double",
        "right_double", "lager_count", "hand_counts", "scores", "turn", "drew",
    } == _VIEW_FIELDS  # fmt: skip
    found = set(v.hand or ())
    found.update(t for t, _, _ in v.line)
    found.update(m.tile for m in v.legal if m.tile is not None)
    found.update(e.tile for e in v.history if e.tile is not None)
    if v.result is not None:
        found.update(t for h in v.result.hands for t in h)
    return found


def allowed_tiles(r: RoundState, seat: int | None) -> set[Tile]:
    """What ``seat`` (None: a spectator) may know: own hand, the line, all hands after the end."""
    allowed = {t for t, _, _ in r.line}
    if seat is not None:
        allowed.update(r.hand(seat))
    if r.result is not None:
        allowed.update(t for h in r.result.hands for t in h)
    return allowed


def check_views(state: RoundState | MatchState, *, fast: bool = False) -> None:
    """Every seat's and a spectator's view reveal nothing they may not know (§4/§6/§11/§13)."""
    r = state.round if isinstance(state, MatchState) else state
    for seat in (*range(r.n), None):
        v = view(state, seat)
        allowed = allowed_tiles(r, seat)
        seen = revealed_fast(v) if fast else revealed(v)
        assert seen <= allowed, (seat, seen - allowed)
        d = v.to_dict()
        seen_json = revealed_in_json(d)
        assert seen_json <= allowed, (seat, seen_json - allowed)
        assert v.lager_count == len(r.lager)
        assert v.hand_counts == tuple(len(r.hand(i)) for i in range(r.n))
        if seat is None:
            assert v.hand is None and v.legal == ()
        else:
            assert v.hand == r.hand(seat)
            own_turn = r.result is None and r.turn == seat
            assert v.legal == (r.legal_moves() if own_turn else ())
