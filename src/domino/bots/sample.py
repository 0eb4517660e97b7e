"""Playouts for search bots: a hypothetical round played to its end by a fixed policy.

A search bot (Meister) and the analysis guess where the hidden tiles lie (a
:class:`~domino.rules.hypothesis.Hypothesis`, checked against the view by
:func:`~domino.rules.hypothesis.check`) and play every candidate out in each guess:
:func:`playout` runs on the bare rules kernel (:class:`~domino.rules.kernel.Kernel`, the
same one RoundState runs on, without its log) with the greedy policy of :mod:`.values`
(:func:`~.values.greedy_es`, a light Fortgeschritten) and returns each side's points for
the rest of the round. ``tests/bots/test_sample.py`` checks that :func:`playout` reaches the
same result as the engine playing the same moves.
"""

from __future__ import annotations

from domino.rules import Move, SeatView
from domino.rules.hypothesis import Hypothesis, check, kernel_of
from domino.rules.kernel import DRAW_I, FIT, PASS_I

from .values import block_weights, greedy_block_es, greedy_es


def playout(
    view: SeatView, hyp: Hypothesis, first: Move, *, block: bool = False
) -> tuple[int, ...]:
    """Play ``first`` for the seat to move, then :func:`~.values.greedy_es` for everyone to
    the round's end.

    Returns per side the points still to come this round: the round-end points of §7
    (rounded under Fünferpunkte) plus the Fünferpunkte scored from now on. A seat plays
    whenever it can (it never passes on a drawn fitting tile) and draws when it must.
    ``hyp`` is trusted to agree with ``view`` (see :func:`check`); ``first`` must be legal.
    With ``block`` every seat plays :func:`~.values.greedy_block_es` instead (it sees the
    guessed hands, as the whole playout does).
    """
    k = kernel_of(view, hyp)
    fives = view.rules.fives
    step = k.step
    hands = k.hands
    if step(first.index) < 0:
        raise ValueError(f"{first} is not legal in this view.")
    if block:
        weights = block_weights(view.rules)
        while not k.reason:
            s = k.turn
            es = k.es
            if hands[s] & FIT[es]:
                step(greedy_block_es(hands, s, es, fives, weights[s]))
            else:
                step(DRAW_I if k.lager else PASS_I)
        return k.totals()
    while not k.reason:
        hand = hands[k.turn]
        es = k.es
        if hand & FIT[es]:
            step(greedy_es(hand, es, fives))
        else:
            step(DRAW_I if k.lager else PASS_I)
    return k.totals()


__all__ = ["Hypothesis", "check", "playout"]
