"""Bots of four levels (RULES.md §11): policies from a seat's view to a move.

>>> from domino.rules import MatchState, Rules, view
>>> m = MatchState(Rules(seats=2), seed=1)
>>> bot = make_bot("profi", seed=1)
>>> v = view(m, m.round.turn)
>>> bot.choose(v) in v.legal
True

Bots are pure: they see only a :class:`~domino.rules.SeatView`, read no
clock (Meister accepts a time ``budget`` with an injected ``clock``, and a
``deadline`` predicate) and draw chance only from their own ``random.Random``.
Each reconstructs what it needs from ``view.history``, so a fresh bot taking
over mid-round plays as well as one that watched from the start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .base import Bot
from .meister import Meister
from .profi import Profi
from .simple import Anfaenger, Fortgeschritten, auto_move

LEVELS: Final = ("anfaenger", "fortgeschritten", "profi", "meister")
#: German display names of the levels (the catalogue in ``domino.i18n`` has them too).
LEVEL_NAMES: Final = {
    "anfaenger": "Anfänger",
    "fortgeschritten": "Fortgeschritten",
    "profi": "Profi",
    "meister": "Meister",
}


def make_bot(
    level: str,
    seed: object = None,
    *,
    budget: float | None = None,
    clock: Callable[[], float] | None = None,
) -> Bot:
    """A new bot of ``level`` (one of :data:`LEVELS`) with its own generator seeded by ``seed``.

    ``budget`` is the time (seconds, measured on ``clock``, a monotonic-time
    callable the caller supplies) a decision may take; ``None`` is no limit.
    Only Meister searches long enough to need one; the other levels ignore it.
    Raises :class:`ValueError` for an unknown level, or a budget without a clock.
    """
    if budget is not None and clock is None:
        raise ValueError("A time budget needs a clock to measure it with.")
    if level == "anfaenger":
        return Anfaenger(seed)
    if level == "fortgeschritten":
        return Fortgeschritten(seed)
    if level == "profi":
        return Profi(seed)
    if level == "meister":
        return Meister(seed, budget=budget, clock=clock)
    raise ValueError(f"Unknown bot level {level!r}; choose one of {', '.join(LEVELS)}.")


__all__ = ["LEVELS", "LEVEL_NAMES", "Bot", "auto_move", "make_bot"]
