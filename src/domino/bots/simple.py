"""Anfänger and Fortgeschritten (RULES.md §11): memoryless policies.

Fortgeschritten's evaluation of a single play (:func:`play_score`) is also the
base of Profi's and the server's automatic move (:func:`auto_move`).
"""

from __future__ import annotations

import random

from domino.rules import Move, SeatView

from .base import ends_after, fits, fives_after, hand_mask, tile_of

# Weights of Fortgeschritten's evaluation, in "pips" units. Shedding heavy
# tiles is the base (a tile's pips); keeping a follow-up play matters more
# than a few pips because a seat that cannot play draws or passes; doubles
# only fit one number, so they are shed early; Fünferpunkte are real points.
KEEP_ANY_FIT = 6.0
KEEP_EACH_FIT = 1.5
DOUBLE_BONUS = 3.0
FIVES_WEIGHT = 2.0
GO_OUT = 1000.0


def play_score(view: SeatView, move: Move) -> float:
    """Fortgeschritten's value of a play: heavy tiles out, follow-ups kept, fives taken."""
    t = tile_of(move)
    rest = hand_mask(view) & ~t.mask
    if not rest:
        return GO_OUT + t.pips
    left, right, ld, rd = ends_after(view, move)
    follow = fits(rest, left, right).bit_count()
    score = float(t.pips)
    if follow:
        score += KEEP_ANY_FIT + KEEP_EACH_FIT * follow
    if t.is_double:
        score += DOUBLE_BONUS
    if view.rules.fives:
        score += FIVES_WEIGHT * fives_after(left, right, ld, rd)
    return score


def auto_move(view: SeatView) -> Move:
    """Fortgeschritten's choice: stateless and deterministic (the server's timeout move).

    Draws and passes only when it must; among plays the best :func:`play_score`,
    ties broken by the lower move index so the result never depends on chance.
    """
    plays = [m for m in view.legal if m.is_play]
    if not plays:
        return view.legal[0]
    return max(plays, key=lambda m: (play_score(view, m), -m.index))


class Anfaenger:
    """Any legal move, uniformly at random."""

    level: str = "anfaenger"

    def __init__(self, seed: object = None) -> None:
        self.rng = random.Random(str(seed))

    def choose(self, view: SeatView) -> Move:
        """A uniformly random legal move."""
        return self.rng.choice(view.legal)


class Fortgeschritten:
    """Heavy tiles first, keeps tiles that fit the open ends; see :func:`auto_move`."""

    level: str = "fortgeschritten"

    def __init__(self, seed: object = None) -> None:
        self.rng = random.Random(str(seed))

    def choose(self, view: SeatView) -> Move:
        """The same move as :func:`auto_move` (deterministic; the generator is unused)."""
        return auto_move(view)
