"""The one catalogue of user-facing text: German first, English beside it.

Every string a player reads comes from the gettext message files
``domino/locale/{lang}/LC_MESSAGES/domino.po``, looked up by a stable key
(the ``msgid``: the ``code`` of an error, the name of a label). ``t(key,
**params)`` formats the German text with ``str.format`` placeholders; a
missing key falls back to English, then to the key itself, so a new code
never crashes the server. A count takes the language's plural form:

>>> t("lobby_not_found", code="ABC123")
'Es gibt keine Lobby mit dem Code ABC123.'
>>> tn("table.points", 1), tn("table.points", 3)
('1 Punkt', '3 Punkte')
>>> t("no_such_key")
'no_such_key'

A line about a seat has two entries: ``key`` names the seat (``{name}``: a
person, a bot or a team) and ``key_you`` speaks to the player ("du").

The catalogues are served to the browser as ``/api/i18n/{lang}``
(:func:`client_catalogue`). tests/web/test_i18n_catalogue.py checks both have the
same keys and placeholders; tools/dict_to_po.py ports entries from dicts.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from babel import Locale
from babel.messages.pofile import read_po

DEFAULT_LANG: Final = "de"
LANGS: Final = ("de", "en")
LOCALE_DIR: Final = Path(__file__).resolve().parent / "locale"
DOMAIN: Final = "domino"

#: A catalogue's text: one string, or the plural forms in the order of ``plural``.
Text = str | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Catalogue:
    """One language's texts and its plural rule."""

    lang: str
    texts: dict[str, Text]
    #: The gettext rule: the index of the plural form for a count.
    plural: Callable[[int], int]
    #: The CLDR category ("one", "other", ...) of each form, for ``Intl.PluralRules``.
    categories: tuple[str, ...]

    def form(self, text: Text, n: int) -> str:
        """The form of ``text`` for the count ``n`` (a plain string is its own form)."""
        if isinstance(text, str):
            return text
        i = self.plural(n)
        return text[i] if 0 <= i < len(text) else text[-1]


def po_path(lang: str) -> Path:
    """Where the message file of ``lang`` lives (package data)."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(lang: str) -> Catalogue:
    """Read the message file of ``lang``."""
    with po_path(lang).open("rb") as f:
        po = read_po(f, locale=lang, domain=DOMAIN)
    texts: dict[str, Text] = {}
    for msg in po:
        if not msg.id:
            continue  # the header
        if isinstance(msg.id, tuple | list) and isinstance(msg.string, tuple | list):
            texts[str(msg.id[0])] = tuple(str(s) for s in msg.string)
        else:
            texts[str(msg.id)] = str(msg.string)
    rule = gettext.c2py(po.plural_expr)
    loc = Locale.parse(lang)
    categories: list[str] = []
    for i in range(po.num_plurals):
        n = next((k for k in range(1000) if rule(k) == i), None)
        categories.append("other" if n is None else loc.plural_form(n))
    return Catalogue(lang, texts, rule, tuple(categories))


_CATS: Final[dict[str, Catalogue]] = {lang: load(lang) for lang in LANGS}

#: Every language's texts by key (plural entries as tuples of forms).
CATALOGUES: Final[dict[str, dict[str, Text]]] = {lang: c.texts for lang, c in _CATS.items()}


def _fill(text: str, params: dict[str, Any]) -> str:
    if not params:
        return text
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        return text


def _lookup(lang: str, key: str, n: int | None) -> str:
    cat = _CATS.get(lang, _CATS[DEFAULT_LANG])
    for c in (cat, _CATS["en"]):
        text = c.texts.get(key)
        if text:
            return c.form(text, n if n is not None else 2)
    return key


def t(key: str, **params: Any) -> str:
    """The German text for ``key``, formatted with ``params``."""
    return tr(DEFAULT_LANG, key, **params)


def tr(lang: str, key: str, **params: Any) -> str:
    """The text for ``key`` in ``lang``, formatted with ``params``.

    Unknown keys fall back to English, then to the key; a missing parameter
    leaves the placeholder visible rather than failing. A plural entry takes
    the form for ``params["n"]`` when it is a number.
    """
    n = params.get("n")
    return _fill(_lookup(lang, key, n if isinstance(n, int) else None), params)


def tn(key: str, n: int, **params: Any) -> str:
    """The German text for ``key`` in the plural form for ``n`` (also ``{n}``).

    >>> tn("round.pips", 1)
    '1 Auge'
    """
    return trn(DEFAULT_LANG, key, n, **params)


def trn(lang: str, key: str, n: int, **params: Any) -> str:
    """The text for ``key`` in ``lang`` in the plural form for ``n`` (also ``{n}``)."""
    return _fill(_lookup(lang, key, n), {**params, "n": n})


#: Keys the browser gets with the lessons (``web/lessons.json``, domino.lessons), not with
#: every page's catalogue: a first visit does not load the lessons' sentences.
LESSON_PREFIXES: Final = ("lesson.first.", "lesson.tip.")


def lesson_texts(lang: str) -> dict[str, str]:
    """The lessons' sentences in ``lang`` (all plain texts), for ``web/lessons.json``."""
    return {k: str(v) for k, v in _CATS[lang].texts.items() if k.startswith(LESSON_PREFIXES)}


def client_catalogue(lang: str) -> dict[str, Any] | None:
    """What ``/api/i18n/{lang}`` serves: the texts and how to pick a plural form.

    A plural entry is a list of forms; ``plural`` names the CLDR category of
    each form in order, so the browser picks one with ``Intl.PluralRules``.
    """
    cat = _CATS.get(lang)
    if cat is None:
        return None
    messages = {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in cat.texts.items()
        if not k.startswith(LESSON_PREFIXES)
    }
    return {"lang": lang, "plural": list(cat.categories), "messages": messages}
