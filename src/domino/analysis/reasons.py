"""One German sentence of reason for Meister's choice, from the seat's own knowledge.

Shared by the hints of a running match (``Tipp``) and the puzzles. The one entry point is
:func:`reason`::

    reason(view, best, options, names=None) -> (key, params)

- ``view``: the :class:`~domino.rules.SeatView` of the seat to move (its own hand, the line,
  the hand sizes, the Lager's size and the public history). Nothing else is read: the
  sentence can only say what that seat could know.
- ``best``: the move Meister prefers (one of ``view.legal``).
- ``options``: every candidate with the points Meister expects from it, as
  ``[(move, expected points), ...]`` in any order (Meister's margin, see
  :meth:`domino.bots.meister.Meister.evaluate`; the analysis's ``options`` are the same).
  ``best`` must be among them, or ``options`` may be empty (then no comparison is made).
- ``names``: optional display names per seat, for the sentence that names the seat that
  could not play a number; without them a seat is "Platz N".

It returns a catalogue key (``domino.i18n``, keys ``reason.*``) and the parameters that
fill it: render with ``t(key, **params)`` (German) or ``tr(lang, key, **params)``.
Every key is listed in :data:`KEYS`; plays have one key per end (``_L``, ``_R``).

The reasons, first match wins:

1. a single choice: *forced* (draw, pass, the only play);
2. the play empties the hand: *Domino*;
3. the two best options lie within :data:`CLOSE` points: *knapp* (honest: nothing stands out);
4. the end the play leaves shows a number an opponent has shown it lacks (it drew or
   passed while that number showed, and by the seat's counting holds none now): *blocked*,
   together with *heavy* when the tile is also the heaviest in the hand;
5. it scores Fünferpunkte: *fives*;
6. a double: it keeps the end's number, and a double fits only one number (*double*);
7. the heaviest tile of the hand: *heavy*;
8. otherwise the points at stake: how much more Meister expects than from the next option
   (*margin*), or, with nothing to compare, *best*.

>>> from domino.rules import MatchState, Rules, view
>>> m = MatchState(Rules(seats=2), seed=3)
>>> v = view(m, m.round.turn)
>>> key, params = reason(v, v.legal[0], [])
>>> key.startswith("reason.") and set(params) >= {"tile"} or key == "reason.forced_draw"
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from domino.bots.base import ends_after
from domino.bots.knowledge import infer
from domino.bots.meister import candidates
from domino.rules import Move, SeatView
from domino.rules.kernel import FIVES, ends_state

#: Two options whose expected points differ by less than this are "fast gleich gut".
CLOSE: Final = 1.0
#: A tile counts as heavy only from this many pips on (a 1|0 is nobody's heaviest worry).
HEAVY_PIPS: Final = 7

_PLAY_REASONS: Final = (
    "out",
    "blocked",
    "heavy_blocked",
    "fives",
    "double",
    "heavy",
    "margin",
    "best",
    "forced_play",
)
#: Every key :func:`reason` can return.
KEYS: Final = (
    *(f"reason.{r}_{e}" for r in _PLAY_REASONS for e in ("L", "R")),
    "reason.close",
    "reason.close_many",
    "reason.forced_draw",
    "reason.forced_pass",
    "reason.pass",
    "reason.draw",
)

Params = dict[str, object]


def _seat_name(seat: int, names: Sequence[str] | None) -> str:
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return f"Platz {seat + 1}"


def _lacking_opponent(view: SeatView, number: int) -> int | None:
    """An opponent that surely holds no ``number`` now (the next one in playing order
    first), or ``None``. Only facts public to the seat: its own :func:`infer`."""
    me = view.seat
    assert me is not None
    rules = view.rules
    know = infer(view)
    n = rules.seats
    for k in range(1, n):
        s = (me + k) % n
        if rules.side_of(s) == rules.side_of(me) or not view.hand_counts[s]:
            continue
        if know.lacks(s) >> number & 1 and _showed_it(view, s, number):
            return s
    return None


def _showed_it(view: SeatView, seat: int, number: int) -> bool:
    """Whether ``seat`` drew or passed while an end showed ``number`` (so "konnte vorhin
    keine ... legen" is what happened, not only what the counting implies)."""
    return any(
        ev.seat == seat
        and ev.kind in ("draw", "pass")
        and ev.ends is not None
        and number in ev.ends
        for ev in view.history
    )


def _new_end(view: SeatView, move: Move) -> int:
    """The number the play's end shows after it (a double keeps the end's number)."""
    left, right, _, _ = ends_after(view, move)
    return left if move.end == "L" else right


def reason(
    view: SeatView,
    best: Move,
    options: Sequence[tuple[Move, float]],
    names: Sequence[str] | None = None,
) -> tuple[str, Params]:
    """The catalogue key and parameters of the sentence that explains ``best``; see the
    module docstring for the arguments and the order of the reasons."""
    ranked = sorted(options, key=lambda o: -o[1])
    single = len(candidates(view)) == 1
    if not best.is_play:
        if single:
            return ("reason.forced_draw" if best.kind == "D" else "reason.forced_pass"), {}
        return ("reason.draw" if best.kind == "D" else "reason.pass"), {}
    tile = best.tile
    assert tile is not None and view.hand is not None
    end = best.end
    params: Params = {"tile": str(tile)}
    if single:
        return f"reason.forced_play_{end}", params
    if len(view.hand) == 1:
        return f"reason.out_{end}", params
    if len(ranked) >= 2 and ranked[0][1] - ranked[1][1] < CLOSE:
        return ("reason.close" if len(ranked) == 2 else "reason.close_many"), {}
    others = [t for t in view.hand if t != tile]
    heavy = tile.pips >= HEAVY_PIPS and all(tile.pips >= t.pips for t in others)
    number = _new_end(view, best)
    seat = _lacking_opponent(view, number)
    if seat is not None:
        params.update(number=number, player=_seat_name(seat, names), seat=seat)
        return (f"reason.heavy_blocked_{end}" if heavy else f"reason.blocked_{end}"), params
    if view.rules.fives:
        left, right, ld, rd = ends_after(view, best)
        fives = FIVES[ends_state(left, right, ld, rd)]
        if fives:
            params["points"] = fives
            return f"reason.fives_{end}", params
    if tile.is_double:
        params["number"] = tile.high
        return f"reason.double_{end}", params
    if heavy:
        return f"reason.heavy_{end}", params
    if len(ranked) >= 2:
        params["points"] = _points(ranked[0][1] - ranked[1][1])
        return f"reason.margin_{end}", params
    return f"reason.best_{end}", params


def _points(x: float) -> str:
    """Points of margin as a German decimal with one digit ("2,5")."""
    return f"{x:.1f}".replace(".", ",")


__all__ = ["CLOSE", "HEAVY_PIPS", "KEYS", "reason"]
