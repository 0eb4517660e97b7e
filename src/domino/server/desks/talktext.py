"""What table talk accepts: a message's text cleaned, the reactions, the rate limits.

Pure and synchronous (no socket, no database): the talk desk asks it. The limits' windows
are here; where they are kept (this process, or Redis for the whole site) is
:mod:`domino.server.cluster.ratelimit` (``RateLimit`` is its in-memory kind).
"""

from __future__ import annotations

import re
import unicodedata

from domino.server.cluster.ratelimit import RateLimit

__all__ = ["CHAT_LIMITS", "MAX_CHARS", "REACTIONS", "REACTION_LIMITS", "RateLimit", "clean"]

#: The longest message, in characters after cleaning.
MAX_CHARS = 200

#: The reactions: a catalogue key each (``reaction.{key}``), German phrases and emoji.
REACTIONS: tuple[str, ...] = (
    "hallo",
    "viel_glueck",
    "gut_gespielt",
    "danke",
    "hoppla",
    "gutes_spiel",
    "daumen",
    "lachen",
    "staunen",
    "feiern",
)

#: Reactions: one per 2 s, ten per minute (per sender, on the whole site).
REACTION_LIMITS: tuple[tuple[float, int], ...] = ((2.0, 1), (60.0, 10))
#: Free text: five per 10 s, twenty per minute (per sender, on the whole site).
CHAT_LIMITS: tuple[tuple[float, int], ...] = ((10.0, 5), (60.0, 20))

_SPACES = re.compile(r"\s+")


def clean(raw: str) -> str:
    """A message as it is stored and shown: NFC, without control characters, invisible
    formatting (bidi overrides and isolates, zero-width characters, soft hyphens),
    surrogates, private-use and unassigned code points; line breaks and runs of white
    space become one space; trimmed.

    >>> clean("  Hallo\\u202e  Welt\\u200b!\\n\\x00 ")
    'Hallo Welt!'
    >>> clean("\\u200f\\u2066\\ufeff")
    ''
    """
    kept = []
    for ch in unicodedata.normalize("NFC", raw):
        cat = unicodedata.category(ch)
        if ch.isspace():
            kept.append(" ")
        elif cat[0] == "C":  # Cc, Cf (bidi, zero-width), Cs, Co, Cn
            continue
        else:
            kept.append(ch)
    return _SPACES.sub(" ", "".join(kept)).strip()
