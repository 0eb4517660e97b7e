"""One place decides what each audience sees: ``domino.rules.audience``.

The secrets of a round are the hands, the Lager and the seat to move's legal moves
(and the tiles out of play, which only the engine and the deal hold). This test
reads the source: every top-level definition of the package that reads one of
them (``.hands``, ``.hand``, ``.lager``, ``.legal_moves``) must be a place listed
here with its reason. The engine and the players read them by design; of the code
that shows anything to an audience only ``domino.rules.audience`` does. A new
reader fails this test until it says here why it may read them.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "domino"

#: The attributes through which the engine's state gives its secrets away.
SECRETS = frozenset({"hands", "hand", "lager", "legal_moves"})

#: The one place that decides what an audience sees.
DECIDES = "rules/audience.py:"

#: Who else reads the secrets (prefixes of ``path:definition``), and why: none of
#: them shows what it reads to anyone.
READERS = {
    DECIDES: "builds every audience's view, frame and record",
    "rules/config.py:": "the rules (a Lager on or off, not its tiles)",
    "rules/deal.py:": "the deal itself",
    "rules/kernel.py:": "the engine",
    "rules/round.py:": "the engine",
    "rules/playout.py:": "the engine's playouts",
    "rules/hypothesis.py:": "a bot's guessed hands (its hypotheses, checked and dealt)",
    "bots/": "a bot reads its own hand in its view, and its guesses",
    "analysis/review.py:positions": "the truth of a finished match, for the hindsight verdict",
    "analysis/reasons.py:": "the seat's own hand in its view (a hint's reason)",
    "openspiel.py:DominoState": "the OpenSpiel game's state itself (chance, moves)",
    "openspiel.py:state_of_view": "a bot's own hand in its view",
    "openspiel.py:OpenSpielISMCTS": "the rules (a Lager on or off)",
    "cli/bench.py:": "the engine benchmark plays legal moves",
}

#: The places that show something to an audience: they ask ``domino.rules.audience``.
SHOWS = (
    "table/",
    "analysis/frames.py:",
    "rules/record.py:",
    "server/",
    "cli/replay.py:",
    "openspiel.py:DominoObserver",
    "openspiel.py:_event",
)


def _readers() -> dict[str, set[str]]:
    """``path:definition`` -> the secrets it reads, for every top-level definition."""
    found: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for top in ast.parse(path.read_text(encoding="utf-8")).body:
            read = {
                n.attr
                for n in ast.walk(top)
                if isinstance(n, ast.Attribute)
                and n.attr in SECRETS
                and isinstance(n.ctx, ast.Load)
            }
            if read:
                name = getattr(top, "name", "")
                found.setdefault(f"{rel}:{name}", set()).update(read)
    return found


def test_only_listed_places_read_the_secrets() -> None:
    found = _readers()
    unlisted = sorted(k for k in found if not k.startswith(tuple(READERS)))
    assert not unlisted, f"read a hand, the Lager or the legal moves: {unlisted}"
    assert any(k.startswith(DECIDES) for k in found)


def test_what_is_shown_is_decided_in_one_place() -> None:
    deciders = sorted(
        k for k in _readers() if not k.startswith(tuple(r for r in READERS if r != DECIDES))
    )
    assert deciders and all(k.startswith(DECIDES) for k in deciders), deciders
    showing = sorted(k for k in _readers() if k.startswith(SHOWS))
    assert not showing, f"these show something and read secrets themselves: {showing}"
