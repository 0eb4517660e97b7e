"""Broken sentences a catalogue line must never produce, in German and English.

The old catalogue put "Du"/"You" where a third-person name belongs ("Die Zeit von
Du ist abgelaufen", "Ein Bot vertritt jetzt Du", "Du ist wieder da"). Every line
about a seat now has a ``key_you`` form; these shapes catch a line that slips
back. Used by tests/web/test_i18n_catalogue.py (Python rendering) and
tests/web/test_i18n_lines.py (the browser's own rendering).
"""

from __future__ import annotations

import re

#: The subjects a line about a seat is rendered for: the player, a person, a bot, a team.
SUBJECTS: dict[str, str] = {"person": "Anna", "bot": "Bot 2 (Profi)", "team": "Team A"}

_COMMON = [
    (r"\{\w*\}", "an unfilled placeholder"),
    (r"\bNone\b|\bundefined\b|\bnull\b|\bNaN\b", "a missing value"),
]
FORBIDDEN: dict[str, list[tuple[str, str]]] = {
    "de": [
        *_COMMON,
        (r"\bvon Du\b", "von Du"),
        (r"\bDu (?:ist|hat|bekommt|legt|zieht|eröffnet|wird|verliert)\b", "Du + 3rd person"),
        (r"\bjetzt Du\b", "jetzt Du"),
        (r"(?<=[a-zäöüß,;]) Du\b", "Du in the middle of a sentence"),
        (r"\bDus\b|\bDu's\b", "a genitive of Du"),
        (r"\bDie Zeit von\b", "the old timeout line"),
        (r"der Server zieht\b", "'zieht' reads as 'draws'"),
        (r"\bfür Du\b|\bvertritt Du\b", "Du as an object"),
    ],
    "en": [
        *_COMMON,
        (r"\bYou (?:is|has|was|\w*[^s\W]s)\b", "You + 3rd person"),
        (r"(?<=[a-z,;]) You\b", "You in the middle of a sentence"),
        (r"\bYou's\b|\bYou'\b", "a genitive of You"),
    ],
}


def broken(text: str, lang: str) -> list[str]:
    """The forbidden shapes ``text`` shows (empty when it reads well)."""
    return [why for pattern, why in FORBIDDEN[lang] if re.search(pattern, text)]
