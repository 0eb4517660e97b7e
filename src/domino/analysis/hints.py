"""A hint (*Tipp*) for the seat to move: Meister's choice and one sentence of reason.

Pure, from the seat's :class:`~domino.rules.SeatView` alone (the information boundary of
the bots: ``tests/analysis/test_hints.py``): :meth:`Meister.evaluate
<domino.bots.meister.Meister.evaluate>` scores the candidates with the bot's own budget
(:data:`~domino.bots.meister.DEFAULT_PLAYOUTS` playouts), and
:func:`~domino.analysis.reasons.reason` says why the best one is best. The server runs this
in a worker process (``domino.server.desks.hints``), never on the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domino.bots.meister import DEFAULT_PLAYOUTS, Meister
from domino.rules import SeatView

from .reasons import reason


def hint(
    view: SeatView,
    seed: str,
    *,
    playouts: int = DEFAULT_PLAYOUTS,
    names: Sequence[str] | None = None,
    budget: float | None = None,
    clock: Callable[[], float] | None = None,
) -> dict[str, Any]:
    """``{"move", "key", "params", "options"}``: Meister's move for ``view``'s seat (text,
    e.g. ``"6|5 L"``), the reason's catalogue key and parameters, and every candidate with
    its expected points (best first). ``seed`` fixes Meister's guesses; ``budget`` seconds
    on ``clock`` cut the search short (anytime, as the bot's)."""
    bot = Meister(seed, playouts=playouts, budget=budget, clock=clock)
    options = bot.evaluate(view)
    best = options[0][0]
    key, params = reason(view, best, options, names)
    return {
        "move": str(best),
        "key": key,
        "params": params,
        "options": [{"move": str(m), "value": round(v, 2)} for m, v in options],
    }


__all__ = ["hint"]
