"""The gettext message files: complete, in step, used, and natural for every subject.

Pure Python (no browser). The check for the message files: same keys, same
placeholders and the same plural shape in both languages; every key the code
uses exists; every line renders without a broken shape (i18n_shapes) for the
player ("du"), a person, a bot and a team.
"""

from __future__ import annotations

import gettext
import importlib.util
import re
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from babel import Locale
from babel.messages.pofile import read_po
from i18n_shapes import SUBJECTS, broken

from domino import i18n
from domino.analysis.reasons import KEYS as REASON_KEYS
from domino.i18n import CATALOGUES, LANGS, Text, client_catalogue, po_path, tr, trn

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "domino"
PLACEHOLDER = re.compile(r"\{(\w*)\}")
#: Keys with ``{name}`` that never name a seat (a database, a name, a team letter, a greeting).
NOT_A_SEAT = {"db_missing", "name_taken", "table.team", "home.hello"}
#: Keys the client builds at run time (events.js, results.js): each with its "du" form.
SEAT_LINES = [
    *(f"log.{k}" for k in ("open", "play_L", "play_R", "draw", "pass", "fives")),
    *(f"log.{k}_auto" for k in ("play_L", "play_R", "draw", "pass")),
    *(
        f"log.{k}"
        for k in ("timeout", "standin", "back", "leave", "disconnected", "connected", "hint")
    ),
    "round.domino",
    "round.scores",
]
BUILT = {*SEAT_LINES, *(f"{k}_you" for k in SEAT_LINES), "round.scores_team_you"}
BUILT |= {"log.fives_team_you", "table.end_L", "table.end_R"}
BUILT |= {f"mode.{m}" for m in ("klassisch", "blitz", "zugemauert", "fuenferfieber")}
BUILT |= {f"level.{lv}" for lv in ("anfaenger", "fortgeschritten", "profi", "meister")}


def forms(text: Text) -> tuple[str, ...]:
    return (text,) if isinstance(text, str) else text


def placeholders(text: Text) -> set[str]:
    return {p for f in forms(text) for p in PLACEHOLDER.findall(f)}


def sample(key: str, text: Text, name: str) -> dict[str, object]:
    params: dict[str, object] = dict.fromkeys(placeholders(text), "X")
    params.update(name=name, tile="6|2", level="Profi", end="links")
    return params


def test_both_languages_have_the_same_keys_placeholders_and_plural_shape() -> None:
    de, en = CATALOGUES["de"], CATALOGUES["en"]
    assert set(de) == set(en), sorted(set(de) ^ set(en))
    for key in de:
        assert placeholders(de[key]) == placeholders(en[key]), key
        assert isinstance(de[key], str) == isinstance(en[key], str), key
        assert all(forms(de[key])) and all(forms(en[key])), f"{key} has an empty text"


def test_the_message_files_are_clean_gettext() -> None:
    for lang in LANGS:
        with po_path(lang).open("rb") as f:
            po = read_po(f, locale=lang, domain="domino", abort_invalid=True)
        assert po.plural_forms == "nplurals=2; plural=(n != 1);"
        ids = [m.id for m in po if m.id]
        assert len(ids) == len({i[0] if isinstance(i, tuple) else i for i in ids}), "duplicates"
        for m in po:
            assert not m.fuzzy or not m.id, f"{lang}: {m.id} is fuzzy"
            if isinstance(m.id, tuple):
                assert m.id[0] == m.id[1], "msgid_plural repeats the key"
                assert len(m.string) == po.num_plurals, m.id
        # No hand-made plurals are left: a count is a plural entry.
        assert not [k for k in CATALOGUES[lang] if k.endswith("_one")]


def test_the_plural_rule_of_python_and_the_browser_agree() -> None:
    # Python picks a form with the .po file's gettext rule, the browser with Intl.PluralRules
    # and the served CLDR categories; both must choose the same form for every count.
    for lang in LANGS:
        with po_path(lang).open("rb") as f:
            po = read_po(f, locale=lang)
        rule = gettext.c2py(po.plural_expr)
        served = client_catalogue(lang)
        assert served is not None
        cats = served["plural"]
        for n in range(0, 1001):
            assert cats[rule(n)] == Locale.parse(lang).plural_form(n), (lang, n)
    assert trn("de", "table.tiles", 1) == "1 Stein" and trn("de", "table.tiles", 0) == "0 Steine"
    assert trn("en", "round.pips", 1) == "1 pip" and trn("en", "round.pips", 2) == "2 pips"
    assert tr("de", "log.draw", name="Anna", n=3) == "Anna zieht 3 Steine."


def test_every_key_the_python_code_uses_exists() -> None:
    used: set[str] = set()
    call = re.compile(r"""\b(?:t|_t|tr|tn|trn)\(\s*(?:[\w.]+,\s*)?"([\w.]+)\"""")
    for path in SRC.rglob("*.py"):
        used |= set(call.findall(path.read_text(encoding="utf-8")))
    assert used, "no t() calls found"
    used.discard("no_such_key")  # the docstring's example of a missing key
    assert used <= set(CATALOGUES["de"]), sorted(used - set(CATALOGUES["de"]))


def test_every_key_the_browser_uses_exists() -> None:
    used: set[str] = set()
    for path in sorted((SRC / "web" / "js").glob("*.js")):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"""\bt\(\s*"([\w.]+)\"""", text))
        counted = set(re.findall(r"""\btn\(\s*"([\w.]+)\"""", text))
        assert all(not isinstance(CATALOGUES["de"].get(k, ""), str) for k in counted), counted
        used |= counted
    missing = (used | BUILT) - set(CATALOGUES["de"])
    assert not missing, sorted(missing)


def test_every_line_about_a_seat_has_a_form_for_you() -> None:
    seat_lines = [
        k
        for k, text in CATALOGUES["de"].items()
        if "name" in placeholders(text) and k not in NOT_A_SEAT and not k.endswith("_you")
    ]
    assert set(SEAT_LINES) <= set(seat_lines)
    missing = [k for k in seat_lines if f"{k}_you" not in CATALOGUES["de"]]
    assert not missing, f"lines about a seat without a 'du' form: {missing}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("subject", ["you", *SUBJECTS])
def test_every_line_reads_well_for_every_subject(lang: str, subject: str) -> None:
    you = tr(lang, "table.you")
    bad: list[str] = []
    for key, text in CATALOGUES[lang].items():
        if key.endswith("_you") and subject != "you":
            continue
        if subject == "you" and f"{key}_you" in CATALOGUES[lang]:
            key, text = f"{key}_you", CATALOGUES[lang][f"{key}_you"]
        name = you if subject == "you" else SUBJECTS[subject]
        if subject == "you" and "name" in placeholders(text) and not key.endswith("_you"):
            if key not in NOT_A_SEAT:
                bad.append(f"{key}: no 'du' form")
            continue
        for n in (0, 1, 2, 5) if not isinstance(text, str) else (5,):
            params = sample(key, text, name)
            if "n" in params:
                del params["n"]
                line = trn(lang, key, n, **params)
            else:
                line = tr(lang, key, **params)
            bad += [f"{key} ({subject}, n={n}): {line!r}: {why}" for why in broken(line, lang)]
    assert not bad, "\n".join(bad)


def test_the_old_broken_lines_are_caught() -> None:
    # The shapes list itself works: the examples are all refused.
    for line in (
        "Die Zeit von Du ist abgelaufen; der Server zieht.",
        "Ein Bot vertritt jetzt Du.",
        "Du ist wieder verbunden.",
        "Du ist wieder da.",
        "Du bekommt 10 Fünferpunkte.",
        "Anna legt {tile} links an.",
    ):
        assert broken(line, "de"), line
    assert broken("You is back.", "en") and broken("A bot now stands in for You.", "en")
    for line in ("Du passt.", "Du bist wieder da.", "Ein Bot vertritt dich.", "Anna ist dran"):
        assert not broken(line, "de"), line
    assert not broken("You pass.", "en") and not broken("You draw 3 tiles.", "en")


def test_lines_for_you_read_naturally() -> None:
    # The timeout says only that the time ran out: the moves that follow say who made
    # them ("Der Bot legt für dich ..."), so the log does not say it twice.
    assert tr("de", "log.timeout_you") == "Deine Zeit ist abgelaufen."
    assert tr("de", "log.standin_you") == "Ein Bot vertritt dich."
    assert tr("de", "log.play_R_auto_you", tile="6|2") == "Der Bot legt für dich 6|2 rechts an."
    assert tr("de", "log.play_L_auto", name="Anna", tile="6|2") == (
        "Für Anna legt der Bot 6|2 links an."
    )
    assert i18n.t("log.timeout", name="Anna") == "Für Anna ist die Zeit abgelaufen."
    assert not [k for k in CATALOGUES["de"] if k.startswith("log.") and "Server" in tr("de", k)]


def test_the_german_page_says_gastgeber_verbunden_getrennt() -> None:
    # Badges of the lobby and the table: German words, not "Host", "online", "offline".
    assert tr("de", "lobby.host") == "Gastgeber"
    assert (tr("de", "table.online"), tr("de", "table.offline")) == ("verbunden", "getrennt")
    english = re.compile(r"\b(?:Host|online|offline)\b", re.IGNORECASE)
    assert not [k for k, v in CATALOGUES["de"].items() if english.search(str(v))]


def dict_to_po() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dict_to_po", ROOT / "tools" / "dict_to_po.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_message_files_are_as_the_tool_writes_them(tmp_path: Path) -> None:
    # Read and written again by tools/dict_to_po.py, the files stay byte for byte the same:
    # porting keys into them later changes only the lines of those keys.
    tool = dict_to_po()
    for lang in LANGS:
        tool.save(lang, tool.load(lang), tmp_path)
        assert tool.po_path(lang, tmp_path).read_bytes() == po_path(lang).read_bytes(), lang


def test_the_tool_ports_the_entries_below_a_marker(tmp_path: Path) -> None:
    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    source = tmp_path / "i18n.py"
    source.write_text(
        """_DE: dict[str, str] = {
    "bad_json": "Anders.",
    "log.draw_n": "{name} zieht {n} Steine.",
    # -- issue 12 quick --
    "quick.title": "Schnelles Spiel",
    "quick.seats_one": "{n} Platz",
    "quick.seats": "{n} Plätze",
}
_EN: dict[str, str] = {
    "bad_json": "Other.",
    "log.draw_n": "{name} draws {n} tiles.",
    # -- issue 12 quick --
    "quick.title": "Quick game",
    "quick.seats_one": "{n} seat",
    "quick.seats": "{n} seats",
}
""",
        encoding="utf-8",
    )
    tool = dict_to_po()
    args = [str(source), "--marker", "# -- issue 12", "--locale-dir", str(locale)]
    assert tool.main([*args, "--check"]) == 1  # something to port, nothing written yet
    assert tool.po_path("de", locale).read_bytes() == po_path("de").read_bytes()
    assert tool.main(args) == 0
    de = tool.load("de", locale)
    assert de["quick.title"].string == "Schnelles Spiel"
    assert tuple(de["quick.seats"].string) == ("{n} Platz", "{n} Plätze")
    assert de.get("log.draw_n") is None and de["bad_json"].string != "Anders."
    assert tool.main([*args, "--check"]) == 0  # ported: nothing left to do


def test_every_reason_sentence_renders_in_both_languages() -> None:
    params = {"tile": "6|5", "player": "Bot 2 (Profi)", "number": 5, "points": 10, "seat": 1}
    for lang in LANGS:
        for key in REASON_KEYS:
            assert key in CATALOGUES[lang], key
            text = tr(lang, key, **params)
            assert "{" not in text and text != key, (lang, key)
            assert not broken(text, lang), (lang, key, text)
    assert tr("de", "reason.close") == "Knapp: beide Züge sind fast gleich gut."
    assert tr("de", "reason.heavy_blocked_L", tile="6|5", player="Bot 2", number=5) == (
        "Leg 6|5 links: dein schwerster Stein, und Bot 2 konnte vorhin keine 5 legen."
    )
