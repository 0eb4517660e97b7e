"""What table talk accepts: a message's text cleaned, the reactions, the rate limits.

Pure and synchronous (no socket, no database): the talk desk asks it.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Sequence

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

#: Reactions: one per 2 s, ten per minute (per sender).
REACTION_LIMITS: tuple[tuple[float, int], ...] = ((2.0, 1), (60.0, 10))
#: Free text: five per 10 s, twenty per minute (per sender).
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


class RateLimit:
    """Per sender: at most ``count`` events in every ``seconds`` window, for each window
    of ``windows``. :meth:`take` records an event, or says how long to wait."""

    __slots__ = ("_last", "_longest", "_seen", "windows")

    def __init__(self, windows: Sequence[tuple[float, int]]) -> None:
        self.windows = tuple(windows)
        self._longest = max(s for s, _ in self.windows)
        self._seen: dict[str, deque[float]] = {}
        self._last = 0.0

    def take(self, who: str, now: float) -> float:
        """Record one event of ``who`` at ``now`` and return 0, or return the seconds
        until it would be allowed (nothing recorded)."""
        if now - self._last > self._longest:
            self._forget(now)
        seen = self._seen.setdefault(who, deque())
        while seen and seen[0] <= now - self._longest:
            seen.popleft()
        wait = 0.0
        for seconds, count in self.windows:
            inside = [t for t in seen if t > now - seconds]
            if len(inside) >= count:
                wait = max(wait, inside[-count] + seconds - now)
        if wait > 0:
            return wait
        seen.append(now)
        return 0.0

    def _forget(self, now: float) -> None:
        # Senders silent for the longest window hold nothing (bounded memory).
        self._last = now
        for who in [w for w, s in self._seen.items() if not s or s[-1] <= now - self._longest]:
            del self._seen[who]
