"""Issue 12, "one tap to a game": *Schnelles Spiel*, *Mit Bots auffüllen*, the host's action bar
on a phone, leaving a match, and the app's own German messages for bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from webplay import MY_TURN, TABLE, assert_no_js_errors, new_page, playable, version, wait_after

PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "has_touch": True,
    "is_mobile": True,
}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


class Taps:
    """Taps with one finger, counted."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, locator: Any) -> None:
        locator.tap()
        self.n += 1


def first_own_move(page: Any, tap: Taps) -> None:
    """Make one move as a person does: a tile that fits (and its end if it fits both), else the
    Lager or Passen."""
    page.wait_for_selector(MY_TURN)
    before = version(page)
    tiles = playable(page)
    if tiles:
        i, _tile, fits = tiles[0]
        tap(page.locator(".hand .tile-btn").nth(i))
        if fits == "L R":
            tap(page.locator(".end.glow").first)
    elif page.locator("button.lager").count() and page.locator("button.lager").is_enabled():
        tap(page.locator("button.lager"))
    else:
        tap(page.get_by_role("button", name="Passen", exact=True))
    wait_after(page, before)


def test_quick_game_from_a_first_visit_to_the_first_own_move_in_three_taps(
    server: str, browser: Any, shots: Path
) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    tap = Taps()
    # A friendly name is proposed: nothing to type.
    name = page.locator("#guest-name")
    proposed = name.input_value()
    assert proposed.strip(), "a name is proposed"
    page.screenshot(path=str(shots / "phone-quick-start.png"))
    # The quick game's buttons are on the first screen of a phone, no scrolling needed.
    go = page.get_by_test_id("quick-3")
    box = go.bounding_box()
    assert box and box["y"] + box["height"] <= 740, box
    tap(go)
    page.locator(TABLE).wait_for()
    # Three seats: me and two bots of the remembered level (Fortgeschritten by default).
    page.wait_for_function("document.querySelector('.table-screen')?.dataset.phase")
    assert page.locator(".opponents .seat").count() == 2
    assert page.locator(".opponents .badge", has_text="Fortgeschritten").count() == 2
    first_own_move(page, tap)
    assert tap.n <= 3, f"{tap.n} taps to the first own move"
    assert page.locator(".me-card .seat-name").inner_text().startswith(proposed)
    assert_no_js_errors(page)


def test_quick_game_remembers_the_bot_level(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.goto(server + "/")
    page.locator("#quick-level").select_option("profi")
    page.reload()
    assert page.locator("#quick-level").input_value() == "profi"
    page.locator("#guest-name").fill("Tilda")
    page.get_by_test_id("quick-2").click()
    page.locator(TABLE).wait_for()
    page.locator(".opponents .badge", has_text="Profi").wait_for()
    # The lobby's bot choices start from the same level.
    assert page.evaluate("localStorage.getItem('domino.botLevel')") == "profi"
    assert_no_js_errors(page)


def test_fill_bots_and_the_start_button_in_view_on_a_phone(
    server: str, browser: Any, shots: Path
) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    page.locator("#guest-name").fill("Hanna")
    page.get_by_role("button", name="Als Gast spielen").tap()
    page.locator("#new-seats").select_option("4")
    page.get_by_test_id("create-lobby").tap()
    page.locator(".lobby-seats").wait_for()
    # The page is far taller than the phone, yet the host's main actions are in view.
    assert page.evaluate("document.documentElement.scrollHeight") > 740
    assert page.evaluate("window.scrollY") == 0
    for testid in ("start", "fill-bots"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 740, (testid, box)
    assert page.get_by_test_id("start").is_disabled()
    page.screenshot(path=str(shots / "phone-lobby-bar.png"))
    page.get_by_test_id("fill-bots").tap()
    page.locator(".lobby-seat[data-seat='3'] .badge", has_text="Fortgeschritten").wait_for()
    assert page.locator(".lobby-seat .badge", has_text="Bot").count() == 3
    assert page.get_by_test_id("fill-bots").count() == 0  # nothing left to fill
    start = page.get_by_test_id("start")
    assert start.is_enabled()
    box = start.bounding_box()
    assert box and box["y"] + box["height"] <= 740, box
    start.tap()
    page.locator(TABLE).wait_for()
    assert_no_js_errors(page)


def test_leaving_a_match_says_what_happened_and_offers_the_way_on(
    server: str, browser: Any, shots: Path
) -> None:
    page = new_page(browser, **DESKTOP)
    page.goto(server + "/")
    page.locator("#guest-name").fill("Gehtweg")
    page.get_by_test_id("quick-2").click()
    page.locator(TABLE).wait_for()
    page.wait_for_function("document.querySelector('.table-screen')?.dataset.phase")
    page.on("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Spiel verlassen").click()
    # The only person left: the match is over, the lobby open again, with me watching it.
    notice = page.get_by_test_id("left-notice")
    notice.wait_for()
    page.locator(".lobby-seats").wait_for()
    assert "Du hast die Partie verlassen." in notice.inner_text()
    watchers = page.locator(".watchers").inner_text()
    assert watchers == "Zuschauer: Gehtweg", watchers
    page.screenshot(path=str(shots / "desktop-left-match.png"))
    # The way on: a new game at once.
    notice.get_by_role("button", name="Neues Spiel").click()
    page.locator(TABLE).wait_for()
    page.wait_for_selector(".dock:not(.spectating) .hand .tile-btn")
    assert page.get_by_test_id("left-notice").count() == 0
    # ... or the start page.
    page.get_by_role("button", name="Spiel verlassen").click()
    page.get_by_test_id("left-notice").get_by_role("button", name="Zur Startseite").click()
    page.get_by_test_id("quick-2").wait_for()
    page.wait_for_function("location.hash === '#/'")
    assert page.get_by_test_id("left-notice").count() == 0
    assert_no_js_errors(page)


def _german_error(page: Any, form: str, field: str, button: Any, value: str, text: str) -> None:
    page.locator(field).fill(value)
    button.click()
    page.locator(f"{form}.error", has_text=text).wait_for()
    # No browser bubble: the field itself has nothing to complain about.
    assert page.locator(field).evaluate("el => el.validationMessage") == ""
    assert page.locator(field).get_attribute("aria-invalid") == "true"


def test_forms_say_what_is_wrong_in_the_apps_own_german(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP, locale="en-US")
    page.goto(server + "/")
    for form in page.locator("form").all():
        assert form.get_attribute("novalidate") is not None
    # The name's line of errors is in the quick game's card (both ways in use that one name);
    # the account form's is under the forms.
    quick, guest = ".quick p", ".forms > p"
    go = page.get_by_test_id("quick-2")
    _german_error(page, quick, "#guest-name", go, "   ", "Bitte gib einen Namen ein.")
    long = "Ein sehr langer Gastname ohne Ende"
    _german_error(page, quick, "#guest-name", go, long, "höchstens 24 Zeichen")
    join = page.get_by_role("button", name="Als Gast spielen")
    _german_error(page, quick, "#guest-name", join, "", "Bitte gib einen Namen ein.")
    _german_error(page, quick, "#guest-name", join, long, "höchstens 24 Zeichen")
    register = page.get_by_role("button", name="Registrieren")
    page.locator("#acc-pw").fill("kurz")
    _german_error(page, guest, "#acc-name", register, "", "Bitte gib einen Namen ein.")
    page.locator("#acc-name").fill("Ida")
    _german_error(page, guest, "#acc-pw", register, "kurz", "mindestens 8")
    # Signed in: the join code and the new name on the profile page.
    page.locator("#guest-name").fill("Ida")
    join.click()
    page.get_by_test_id("create-lobby").wait_for()
    for form in page.locator("form").all():
        assert form.get_attribute("novalidate") is not None
    page.locator("#join-code").fill("")
    page.get_by_role("button", name="Beitreten", exact=True).first.click()
    page.locator(".welcome .error", has_text="Bitte gib den Code der Lobby ein.").wait_for()
    assert_no_js_errors(page)


def test_a_proposed_name_can_be_changed_later_in_the_profile(server: str, browser: Any) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    proposed = page.locator("#guest-name").input_value()
    page.get_by_test_id("quick-2").tap()
    page.locator(TABLE).wait_for()
    page.on("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Verlassen").tap()
    page.get_by_test_id("left-home").tap()
    page.locator(".me-chip", has_text=proposed).tap()
    field = page.locator("#rename")
    field.wait_for()
    assert field.input_value() == proposed
    field.fill("")
    page.get_by_test_id("rename").tap()
    page.locator(".error", has_text="Bitte gib einen Namen ein.").wait_for()
    field.fill("x" * 30)
    page.get_by_test_id("rename").tap()
    page.locator(".error", has_text="höchstens 24 Zeichen").wait_for()
    field.fill("Lena")
    page.get_by_test_id("rename").tap()
    page.locator(".me-chip", has_text="Lena").wait_for()
    page.locator("h1", has_text="Lena").wait_for()
    assert_no_js_errors(page)


def test_a_quick_game_asks_before_it_leaves_a_held_lobby(
    server: str, browser: Any, shots: Path
) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    page.locator("#guest-name").fill("Lobbia")
    page.get_by_role("button", name="Als Gast spielen").tap()
    page.get_by_test_id("create-lobby").tap()
    page.locator(".lobby-seats").wait_for()
    code = page.evaluate("location.hash").rsplit("/", 1)[1]
    # Back on the start page, the lobby is still hers.
    page.locator("a.brand").tap()
    page.get_by_test_id("quick-2").wait_for()
    tap = Taps()
    tap(page.get_by_test_id("quick-2"))
    ask = page.get_by_test_id("quick-confirm")
    ask.wait_for()
    assert ask.get_attribute("role") == "dialog"
    text = ask.locator("p").inner_text()
    assert text == (
        f"Du bist noch in der Lobby „{code}“. "
        "Wenn du ein schnelles Spiel startest, verlässt du sie."
    )
    for button in ("Abbrechen", "Lobby verlassen und spielen"):
        box = ask.get_by_role("button", name=button, exact=True).bounding_box()
        assert box and box["y"] + box["height"] <= 740 and box["x"] + box["width"] <= 360, box
    page.screenshot(path=str(shots / "phone-quick-leave-lobby.png"))

    # Abbrechen: nothing happens, the lobby stays hers.
    ask.get_by_role("button", name="Abbrechen", exact=True).tap()
    assert ask.count() == 0
    assert page.evaluate("location.hash") == "#/"
    # ... as does Escape (the focus starts on Abbrechen).
    page.get_by_test_id("quick-2").tap()
    ask.wait_for()
    assert page.evaluate("document.activeElement.textContent") == "Abbrechen"
    page.keyboard.press("Escape")
    assert ask.count() == 0
    held = httpx.get(f"{server}/api/lobbies/{code}").json()
    assert held["status"] == "open" and held["seats"][0]["name"] == "Lobbia"

    # Asked again and agreed: she leaves it and plays, in two taps.
    tap = Taps()
    tap(page.get_by_test_id("quick-2"))
    tap(ask.get_by_role("button", name="Lobby verlassen und spielen"))
    page.locator(TABLE).wait_for()
    assert tap.n == 2
    gone = httpx.get(f"{server}/api/lobbies/{code}")  # she was its only member: it closed
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "lobby_not_found"
    assert_no_js_errors(page)


def test_a_quick_game_without_a_held_lobby_asks_nothing(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.goto(server + "/")
    page.locator("#guest-name").fill("Ohnelobby")
    page.get_by_role("button", name="Als Gast spielen").click()
    page.get_by_test_id("quick-2").click()
    page.locator(TABLE).wait_for()
    assert page.get_by_test_id("quick-confirm").count() == 0


NAME_FIELDS = """() => [...document.querySelectorAll('input')]
  .filter((el) => el.labels?.[0]?.textContent === 'Dein Name' || el.placeholder === 'Dein Name')
  .filter((el) => el.getClientRects().length > 0)
  .map((el) => el.id)"""


@pytest.mark.parametrize("kind", ["phone", "desktop"])
def test_one_name_field_and_a_long_name_cut_with_an_ellipsis(
    server: str, browser: Any, shots: Path, kind: str
) -> None:
    """The start page asks for the name once (for the quick game and for signing in as a
    guest); the header's profile chip cuts a long name with an ellipsis on a phone."""
    phone = kind == "phone"
    page = new_page(
        browser, **({**PHONE, "viewport": {"width": 320, "height": 568}} if phone else DESKTOP)
    )
    page.goto(server + "/")
    page.locator("#guest-name").wait_for()
    assert page.evaluate(NAME_FIELDS) == ["guest-name"]
    page.screenshot(path=str(shots / f"start-one-name-{kind}.png"))
    long = "Maximiliane Xaviera Ober"  # 24 letters, the most a name may have
    page.locator("#guest-name").fill(long)
    page.get_by_role("button", name="Als Gast spielen").click()
    page.get_by_test_id("create-lobby").wait_for()
    chip = page.evaluate(
        """() => {
          const chip = document.querySelector('.me-chip');
          const name = chip.firstElementChild;
          const r = (x) => x.getBoundingClientRect();
          return {text: name.textContent, cut: name.scrollWidth > name.clientWidth + 1,
                  overflow: getComputedStyle(name).textOverflow,
                  inside: r(name).right <= r(chip).right + 0.5 && r(chip).right <= innerWidth};
        }"""
    )
    assert chip["text"] == long and chip["inside"], chip
    if phone:
        assert chip["cut"] and chip["overflow"] == "ellipsis", chip
    else:
        assert not chip["cut"], chip  # the desktop has room for the whole name
    assert_no_js_errors(page)


def test_on_the_desktop_the_host_actions_are_part_of_the_page(server: str, browser: Any) -> None:
    """Issue 21: the lobby's sticky bar is for phones. On the desktop Mit Bots auffüllen and
    Starten are an ordinary row under the seats and rules (no bar over the page), and the
    styles after the replay viewer's phone rules (the quick game's card, this row) apply to the
    desktop at all: an unclosed @media block once kept them for phones."""
    page = new_page(browser, viewport={"width": 1280, "height": 600})
    page.goto(server + "/")
    go = page.locator(".quick-go")
    go.wait_for()
    assert go.evaluate("el => getComputedStyle(el).display") == "grid"
    tops = {round(b["y"]) for b in (x.bounding_box() for x in go.locator("button").all()) if b}
    assert len(tops) == 1, tops  # 2, 3 and 4 Spieler side by side
    page.locator("#guest-name").fill("Hedi")
    page.get_by_role("button", name="Als Gast spielen").click()
    page.locator("#new-seats").select_option("4")
    page.get_by_test_id("create-lobby").click()
    page.locator(".lobby-seats").wait_for()
    bar = page.get_by_test_id("lobby-main")
    style = bar.evaluate(
        "el => { const s = getComputedStyle(el); return [s.position, s.boxShadow]; }"
    )
    assert style == ["static", "none"], style
    # Below the seats and the rules, where the page's flow puts it, even scrolled to the top.
    page.evaluate("window.scrollTo(0, 0)")
    rules = page.locator(".rule").last.bounding_box()
    box = bar.bounding_box()
    assert rules and box and box["y"] >= rules["y"] + rules["height"], (rules, box)
    assert_no_js_errors(page)
