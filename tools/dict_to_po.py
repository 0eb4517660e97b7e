"""Port catalogue entries from Python dicts into the gettext message files.

Usage: ``python tools/dict_to_po.py SOURCE.py [--marker TEXT] [--replace] [--check]``

SOURCE is a Python file holding two dict literals ``_DE = {...}`` and
``_EN = {...}`` (the old ``src/domino/i18n.py``, or one with keys added under
a ``# -- issue 12 <branch> --`` marker; ``--marker "issue 12"`` takes only
the entries below that comment in each dict). Every key the message files
``src/domino/locale/{de,en}/LC_MESSAGES/domino.po`` lack is added, in the
order of the dict; keys already there are left alone (``--replace``
overwrites them, ``--check`` only lists what would change and exits 1 if
anything would). A pair ``key`` + ``key_one`` becomes one plural entry:
``msgid`` and ``msgid_plural`` are ``key``, ``msgstr[0]`` is the ``_one``
text and ``msgstr[1]`` the other. A key that exists on one side only is
refused: both languages stay in step.

The files are written by Babel with fixed dates, so a run that adds nothing
leaves them byte for byte as they were. Check them afterwards with
``pytest tests/web/test_i18n_catalogue.py``.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import sys
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE_DIR = ROOT / "src" / "domino" / "locale"
LANGS = ("de", "en")
PLURAL_SUFFIX = "_one"
#: Fixed dates in the header: the files change only when a text does.
EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

HEADER = (
    "# Domino: the {lang} texts, one entry per stable key (msgid = the key).\n"
    "# Read by src/domino/i18n.py; keep every language's keys and placeholders in step\n"
    "# (tests/web/test_i18n_catalogue.py checks). Add entries by hand or with tools/dict_to_po.py."
)

Text = str | tuple[str, ...]


def dicts_of(source: Path, marker: str | None = None) -> dict[str, dict[str, str]]:
    """The ``_DE`` / ``_EN`` dict literals of a Python file, by language.

    With ``marker``, only the entries below the first line holding it inside
    each dict (a comment such as ``# -- issue 12 quick --``).
    """
    text = source.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    found: dict[str, dict[str, str]] = {}
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        if target in ("_DE", "_EN") and isinstance(value, ast.Dict):
            flat: dict[str, str] = ast.literal_eval(value)
            if marker is not None:
                start, end = value.lineno, value.end_lineno or value.lineno
                at = next((i + 1 for i in range(start - 1, end) if marker in lines[i]), None)
                if at is None:
                    raise SystemExit(f"{source}: no {marker!r} inside {target}")
                keep = {ast.literal_eval(k) for k in value.keys if k is not None and k.lineno > at}
                flat = {k: v for k, v in flat.items() if k in keep}
            found[target[1:].lower()] = flat
    missing = [lang for lang in LANGS if lang not in found]
    if missing:
        raise SystemExit(f"{source}: no dict for {missing}")
    return found


def entries(flat: dict[str, str]) -> dict[str, Text]:
    """Fold ``key_one`` + ``key`` into plural tuples (one, other); the rest stays."""
    out: dict[str, Text] = {}
    for key, text in flat.items():
        if key.endswith(PLURAL_SUFFIX) and key[: -len(PLURAL_SUFFIX)] in flat:
            continue
        one = flat.get(key + PLURAL_SUFFIX)
        out[key] = (one, text) if one is not None else text
    return out


def po_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / lang / "LC_MESSAGES" / "domino.po"


def load(lang: str, locale_dir: Path = LOCALE_DIR) -> Catalog:
    path = po_path(lang, locale_dir)
    if not path.exists():
        return Catalog(
            locale=lang,
            domain="domino",
            project="Domino",
            version="1",
            creation_date=EPOCH,
            revision_date=EPOCH,
            fuzzy=False,
            header_comment=HEADER.replace("{lang}", {"de": "German", "en": "English"}[lang]),
            copyright_holder="the Domino authors",
            msgid_bugs_address="the Domino issue tracker",
            last_translator="the Domino authors",
            language_team="the Domino authors",
        )
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain="domino")


def save(lang: str, catalog: Catalog, locale_dir: Path = LOCALE_DIR) -> None:
    catalog.creation_date = EPOCH
    catalog.revision_date = EPOCH
    catalog.fuzzy = False
    path = po_path(lang, locale_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=100, omit_header=False, include_previous=False)


def message(key: str, text: Text) -> Message:
    if isinstance(text, tuple):
        return Message((key, key), text)
    return Message(key, text)


def current(catalog: Catalog, key: str) -> Text | None:
    msg = catalog.get(key)
    if msg is None:
        return None
    return tuple(msg.string) if isinstance(msg.string, tuple | list) else msg.string


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path)
    ap.add_argument("--replace", action="store_true", help="overwrite keys that differ")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 on changes")
    ap.add_argument("--marker", help="only the entries below this comment in each dict")
    ap.add_argument("--locale-dir", type=Path, default=LOCALE_DIR, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    dicts = dicts_of(args.source, args.marker)
    by_lang = {lang: entries(flat) for lang, flat in dicts.items()}
    one_sided = set(by_lang["de"]) ^ set(by_lang["en"])
    if one_sided:
        raise SystemExit(f"keys in one language only: {sorted(one_sided)}")
    changed = 0
    for lang in LANGS:
        catalog = load(lang, args.locale_dir)
        for key, text in by_lang[lang].items():
            old = current(catalog, key)
            if old == text:
                continue
            if old is not None and not args.replace:
                print(f"{lang}: {key} differs, kept (use --replace): {old!r} vs {text!r}")
                continue
            print(f"{lang}: {'replaced' if old is not None else 'added'} {key}")
            changed += 1
            if old is not None:
                del catalog[key]
            catalog[key] = message(key, text)
        if not args.check:
            save(lang, catalog, args.locale_dir)
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
