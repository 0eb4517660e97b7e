"""A random playout of one round, for the benchmark and tests.

:func:`random_round` plays one round on the rules kernel
(:class:`~domino.rules.kernel.Kernel`) with uniformly random legal moves: no
event log, no Tile or Move objects, no per-move error reporting. The kernel
offers the legal moves in the same order as ``RoundState.legal_moves()`` and
the choice is ``legal[int(rng.random() * len(legal))]`` whenever there is one
(:func:`pick`), so, given the same deal and generator state, a RoundState
driven by :func:`pick` reaches the same result; ``tests/rules/test_playout.py``
checks that over thousands of rounds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from operator import attrgetter
from typing import Final, TypeVar

from .config import Rules
from .deal import Deal, random_permutation
from .kernel import Kernel
from .round import RoundResult, result_of

T = TypeVar("T")

_mask: Final = attrgetter("mask")
_index: Final = attrgetter("index")


def pick(options: Sequence[T], rng: random.Random) -> T:
    """A uniformly random element of a non-empty sequence, by one ``rng.random()``.

    A single-element sequence costs no draw (the engine's forced moves).
    """
    if len(options) == 1:
        return options[0]
    return options[int(rng.random() * len(options))]


def random_round(rules: Rules, rng: random.Random, deal: Deal | None = None) -> RoundResult:
    """Deal (from ``rng`` unless ``deal`` is given) and play one round at random."""
    if deal is None:
        # The order of shuffled_deal, as masks: hands in turn, the rest the Lager.
        order = random_permutation(rng)
        n = rules.seats
        size = rules.hand_size
        hands = []
        for s in range(n):
            m = 0
            for i in order[s * size : (s + 1) * size]:
                m |= 1 << i
            hands.append(m)
        lager = order[n * size :][::-1]  # the kernel draws from the end
    else:
        hands = [sum(map(_mask, h)) for h in deal.hands]
        lager = list(map(_index, reversed(deal.lager)))
    k = Kernel.from_masks(rules, hands, lager)
    rand = rng.random
    legal = k.legal
    step = k.step
    while not k.reason:
        options = legal()
        step(options[int(rand() * len(options))] if len(options) > 1 else options[0])
    return result_of(k)
