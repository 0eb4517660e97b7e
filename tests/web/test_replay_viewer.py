"""The replay viewer: a finished match move by move, its analysis, its record as a file.

One short match (Blitz, 2 seats, to 30 points) is played against a bot; the tests then open
its replay from the match-end panel, the profile list and a link (also signed out), step with
buttons, keys, the slider and a tap, and check that the board shows the position the viewer
names (the tiles on the line are the opening plus the plays so far).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from webplay import (
    MATCH_END,
    MY_TURN,
    TABLE,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
    play_match,
    playable,
    set_rule,
    sign_in_as_guest,
    start_match,
)

if TYPE_CHECKING:
    from live import LiveServers

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "has_touch": True,
    "is_mobile": True,
}
VIEWER = "[data-testid=replay] .replay-grid"
# Every appearance of the analysis' progress line, recorded by the page itself.
WATCH_PROGRESS = """
window.__progress = [];
new MutationObserver(() => {
  const el = document.querySelector('[data-testid=analysis-progress]');
  if (el && window.__progress.at(-1) !== el.textContent) window.__progress.push(el.textContent);
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def act(p: Any) -> None:
    tiles = playable(p)
    if tiles:
        i, _tile, fits = tiles[0]
        p.locator(".hand .tile-btn").nth(i).click()
        if fits == "L R":
            p.locator(".end.glow").first.click()
        return
    draw = p.get_by_role("button", name="Ziehen", exact=True)
    if draw.is_enabled():
        draw.click()
    else:
        p.get_by_role("button", name="Passen", exact=True).click()


@pytest.fixture(scope="module")
def finished(server: str, browser: Any) -> dict[str, Any]:
    """A finished match: its id, the player's stored sign-in, and the page at its end."""
    page = new_page(browser, **DESKTOP)
    page.add_init_script(WATCH_PROGRESS)
    sign_in_as_guest(page, server, "Rita")
    open_lobby_with_bots(page, ["profi"])
    start_match(page)
    play_match(page, act)
    page.locator(MATCH_END).wait_for()
    match_id = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
    assert match_id.startswith("m_")
    return {"id": match_id, "storage": page.context.storage_state(), "page": page}


def replay_data(page: Any, server: str, match_id: str) -> dict[str, Any]:
    res = page.request.get(f"{server}/api/matches/{match_id}/replay")
    assert res.status == 200
    data: dict[str, Any] = res.json()
    return data


def wait_position(page: Any, round_no: int, move: int) -> None:
    page.wait_for_function(
        "([r, m]) => { const el = document.querySelector('[data-testid=replay]');"
        " return el && el.dataset.round === String(r) && el.dataset.move === String(m); }",
        arg=[round_no, move],
    )


def position(page: Any) -> tuple[int, int]:
    ds = page.locator("[data-testid=replay]").evaluate("el => [el.dataset.round, el.dataset.move]")
    return int(ds[0]), int(ds[1])


def check_board(page: Any, data: dict[str, Any]) -> None:
    """The board shows the position the viewer names: the line of that frame, tile for tile."""
    r, k = position(page)
    frames = data["rounds"][r - 1]["frames"]
    plays = sum(1 for f in frames[1 : k + 1] if f["event"]["kind"] == "play")
    assert page.locator(".replay-board .line-svg > g").count() == 1 + plays
    assert len(frames[k]["line"]) == 1 + plays
    # Every hand face up, as the frame has them.
    for seat, hand in enumerate(frames[k]["hands"]):
        shown = page.locator(f".replay-seat[data-seat='{seat}'] .mini-tile").evaluate_all(
            "els => els.map((e) => e.title)"
        )
        assert shown == hand
    assert page.url.endswith(f"#/replay/{data['match']}/{r}/{k}")


def test_match_end_opens_the_replay_and_every_control_steps(
    finished: dict[str, Any], server: str, shots: Path
) -> None:
    page = finished["page"]
    # "Spielbericht ansehen" in the match-end panel opens the viewer, not JSON.
    page.locator(MATCH_END).get_by_role("link", name="Spielbericht ansehen").click()
    page.locator(VIEWER).wait_for()
    wait_position(page, 1, 0)
    data = replay_data(page, server, finished["id"])
    check_board(page, data)
    now_text = page.get_by_test_id("replay-now").inner_text()
    # Rita's own seat is "du" for her (a visitor reads her name: the phone test).
    opener = data["rounds"][0]["frames"][0]["event"]["seat"]
    opened = "Du eröffnest mit" if opener == 0 else "eröffnet mit"
    assert "Runde 1, Eröffnung" in now_text and opened in now_text, now_text

    # Buttons.
    page.get_by_role("button", name="Ein Zug vor").click()
    wait_position(page, 1, 1)
    check_board(page, data)
    page.get_by_role("button", name="Ein Zug vor").click()
    wait_position(page, 1, 2)
    page.get_by_role("button", name="Ein Zug zurück").click()
    wait_position(page, 1, 1)
    page.get_by_role("button", name="Zum Ende").click()
    last_round = len(data["rounds"])
    wait_position(page, last_round, len(data["rounds"][-1]["frames"]) - 1)
    check_board(page, data)
    assert page.get_by_role("button", name="Ein Zug vor").is_disabled()
    page.get_by_role("button", name="Zum Anfang").click()
    wait_position(page, 1, 0)

    # Keys: → ← End Home (focus on the page, not in a field).
    page.locator(".replay-head h1").click()
    page.keyboard.press("ArrowRight")
    wait_position(page, 1, 1)
    page.keyboard.press("ArrowRight")
    wait_position(page, 1, 2)
    check_board(page, data)
    page.keyboard.press("ArrowLeft")
    wait_position(page, 1, 1)
    page.keyboard.press("End")
    wait_position(page, last_round, len(data["rounds"][-1]["frames"]) - 1)
    page.keyboard.press("Home")
    wait_position(page, 1, 0)
    # Enter on a focused button; when it goes grey at the end, the slider keeps the focus.
    page.get_by_role("button", name="Zum Ende").focus()
    page.keyboard.press("Enter")
    wait_position(page, last_round, len(data["rounds"][-1]["frames"]) - 1)
    assert page.evaluate("document.activeElement.classList.contains('replay-slider')")
    page.keyboard.press("Home")  # the slider's own key
    wait_position(page, 1, 0)

    # The slider: its round marks, and a value set on it shows that position.
    slider = page.get_by_role("slider", name="Zug wählen")
    total = sum(len(r["frames"]) for r in data["rounds"])
    assert slider.get_attribute("max") == str(total - 1)
    assert page.locator(".replay-mark").count() == len(data["rounds"])
    first_of_round_2 = len(data["rounds"][0]["frames"]) if last_round > 1 else 3
    slider.fill(str(first_of_round_2))
    expected = (2, 0) if last_round > 1 else (1, 3)
    wait_position(page, *expected)
    check_board(page, data)
    # The slider's own keys step it too (focus on it).
    slider.focus()
    page.keyboard.press("ArrowRight")
    wait_position(page, expected[0], expected[1] + 1)
    check_board(page, data)
    # The screen reader hears the move: the live region holds its sentence, the slider names it.
    now = page.get_by_test_id("replay-now")
    assert now.get_attribute("aria-live") == "polite"
    assert f"Zug {expected[1] + 1} von" in now.inner_text()
    assert f"Zug {expected[1] + 1} von" in (slider.get_attribute("aria-valuetext") or "")

    # A click in the list of moves jumps there.
    page.locator(".replay-move[data-k='1']").click()
    wait_position(page, expected[0], 1)

    # The analysis: progress first (the first request starts it), then the result.
    panel = page.get_by_test_id("analysis")
    page.wait_for_selector("[data-testid=analysis][data-state=done]")
    progress = page.evaluate("window.__progress")
    assert progress and "Meister analysiert die Partie" in progress[0], progress
    summary = page.get_by_test_id("analysis-summary").inner_text()
    assert "Du hast" in summary and "% der besten Züge" in summary
    judgement = page.get_by_test_id("judgement")
    # Find a judged move of Rita with a choice: its judgement names the move and its worth.
    analysis = page.request.get(f"{server}/api/matches/{finished['id']}/analysis").json()
    chosen = [m for m in analysis["moves"] if not m["forced"]]
    if chosen:
        m = chosen[0]
        page.goto(f"{server}/#/replay/{finished['id']}/{m['round']}/{m['move']}")
        wait_position(page, m["round"], m["move"])
        page.wait_for_selector("[data-testid=analysis][data-state=done]")
        text = judgement.inner_text()
        assert f"Gespielt: {m['played']}" in text
        if not m["best_move"]:
            assert f"Besser war {m['best']}" in text
        if m["grade"]:
            grade = {"ungenau": "Ungenau", "fehler": "Fehler", "patzer": "Patzer"}[m["grade"]]
            assert grade in text
        # Hindsight: a labelled toggle.
        page.get_by_label("Im Nachhinein (mit Blick in alle Hände)").check()
        panel.locator(".hindsight-note").wait_for()
        assert "Im Nachhinein hättest du" in page.get_by_test_id("analysis-summary").inner_text()
    page.screenshot(path=str(shots / "desktop-replay.png"))
    assert_no_js_errors(page)


def test_the_profile_lists_the_match_with_replay_and_download(
    finished: dict[str, Any], server: str, browser: Any
) -> None:
    page = new_page(browser, storage_state=finished["storage"], **DESKTOP)
    page.goto(server + "/#/profile")
    item = page.locator(f".recent-list li[data-match='{finished['id']}']")
    item.wait_for()
    # The record as a file: the link downloads it and `domino replay` reads that JSON.
    with page.expect_download() as dl:
        item.get_by_role("link", name="Herunterladen").click()
    download = dl.value
    assert download.suggested_filename == f"domino-{finished['id']}.json"
    record = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert record["rounds"] and record["seats"][0]["name"] == "Rita"
    from domino.cli import main  # `domino replay FILE` reads the downloaded file

    assert main(["replay", str(download.path())]) == 0
    item.get_by_role("link", name="Spielbericht ansehen").click()
    page.locator(VIEWER).wait_for()
    wait_position(page, 1, 0)
    assert page.get_by_test_id("record-download").get_attribute("download")
    # Back leaves the viewer (stepping replaced the address, it did not pile up entries).
    page.get_by_role("button", name="Ein Zug vor").click()
    wait_position(page, 1, 1)
    page.go_back()
    page.locator(".recent-list").wait_for()
    assert_no_js_errors(page)


def test_a_linked_move_opens_there_for_a_signed_out_visitor_on_a_phone(
    finished: dict[str, Any], server: str, browser: Any, shots: Path
) -> None:
    page = new_page(browser, **PHONE)
    data = replay_data(page, server, finished["id"])
    rnd = len(data["rounds"])
    move = min(4, len(data["rounds"][-1]["frames"]) - 1)
    page.goto(f"{server}/#/replay/{finished['id']}/{rnd}/{move}")
    page.locator(VIEWER).wait_for()
    wait_position(page, rnd, move)
    check_board(page, data)
    assert page.locator("#guest-name").count() == 0  # no sign-in asked for
    # Nothing is cut off at 360 px, and the controls are on screen.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, width
    for name in ("Zum Anfang", "Ein Zug zurück", "Ein Zug vor", "Zum Ende"):
        box = page.get_by_role("button", name=name).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360
        assert box["y"] + box["height"] <= 740
    # A tap steps.
    page.get_by_role("button", name="Ein Zug zurück").tap()
    wait_position(page, rnd, move - 1)
    check_board(page, data)
    # A tap on the slider's far end goes to the last move; on its start, to the first.
    slider = page.get_by_role("slider", name="Zug wählen")
    box = slider.bounding_box()
    assert box
    slider.tap(position={"x": box["width"] - 2, "y": box["height"] / 2})
    wait_position(page, rnd, len(data["rounds"][-1]["frames"]) - 1)
    check_board(page, data)
    slider.tap(position={"x": 2, "y": box["height"] / 2})
    wait_position(page, 1, 0)
    # The match's own address with a round and a move opens the replay there too.
    page.goto(f"{server}/#/match/{finished['id']}/{rnd}/{move}")
    wait_position(page, rnd, move)
    assert page.url.endswith(f"#/replay/{finished['id']}/{rnd}/{move}")
    page.wait_for_selector("[data-testid=analysis][data-state=done]")
    assert "Rita hat" in page.get_by_test_id("analysis-summary").inner_text()
    page.screenshot(path=str(shots / "phone-replay.png"))
    page.screenshot(path=str(shots / "phone-replay-full.png"), full_page=True)
    assert_no_js_errors(page)


def test_a_controller_and_the_page_keys_step_moves_and_rounds(
    finished: dict[str, Any], server: str, browser: Any
) -> None:
    from test_gamepad import LB, LEFT, PAD_STUB, RB, RIGHT, press

    page = new_page(browser, **DESKTOP)
    page.add_init_script(PAD_STUB)
    data = replay_data(page, server, finished["id"])
    rounds = len(data["rounds"])
    page.goto(f"{server}/#/replay/{finished['id']}/1/0")
    page.locator(VIEWER).wait_for()
    wait_position(page, 1, 0)
    # The pad: right and left a move, RB the next round's opening, LB back to an opening.
    press(page, RIGHT)
    wait_position(page, 1, 1)
    press(page, RIGHT)
    wait_position(page, 1, 2)
    check_board(page, data)
    press(page, LEFT)
    wait_position(page, 1, 1)
    press(page, LB)  # inside a round: back to its opening
    wait_position(page, 1, 0)
    last = (rounds, len(data["rounds"][-1]["frames"]) - 1)
    press(page, RB)
    wait_position(page, *((2, 0) if rounds > 1 else last))
    check_board(page, data)
    press(page, LB)  # at an opening: the round before
    wait_position(page, *((1, 0) if rounds > 1 else (rounds, 0)))
    # The keyboard's page keys do the same.
    page.locator(".replay-head h1").click()
    page.keyboard.press("PageDown")
    wait_position(page, *((2, 0) if rounds > 1 else last))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("PageUp")
    wait_position(page, *((2, 0) if rounds > 1 else (rounds, 0)))
    assert_no_js_errors(page)


def test_a_running_match_has_no_replay(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    sign_in_as_guest(page, server, "Lea")
    open_lobby_with_bots(page, ["profi"])
    start_match(page)
    match_id = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
    other = new_page(browser, **DESKTOP)
    other.goto(f"{server}/#/replay/{match_id}")
    err = other.get_by_test_id("replay-error")
    err.wait_for()
    assert "läuft noch" in err.inner_text()
    assert_no_js_errors(other)


# -- the profile's pages -----------------------------------------------------------------------
PAGE = 20  # the server's default page (docs/protocol.md), which the client asks for


def bot_record(seed: str) -> dict[str, Any]:
    """A whole 2-seat match of Profi bots as a game record (seat 0 is "Rita")."""
    from domino.bots import make_bot
    from domino.rules import MatchState, Rules, view
    from domino.rules.record import record_of

    m = MatchState(Rules(seats=2, target=30), seed=seed)
    bots = [make_bot("profi", f"{seed}/{i}") for i in range(2)]
    while not m.over:
        if m.round.over:
            m.start_round()
            continue
        s = m.round.turn
        m.apply(bots[s].choose(view(m, s)), s)
    return record_of(m, seats=[{"name": "Rita", "kind": "human"}, {"name": "Bot", "kind": "bot"}])


async def _fill(settings: Any, token: str, count: int) -> list[str]:
    """A profile with `count` finished matches (newest last), signed in with `token`."""
    from domino.server.desks.people import token_hash
    from domino.server.storage.db import Database

    db = Database(settings.database_url)
    await db.create()
    await db.create_profile("p_pages", "Rita", "guest", 1.0, token_hash=token_hash(token))
    seats = [
        {"name": "Rita", "kind": "human", "player_id": "p_pages"},
        {"name": "Bot", "kind": "bot"},
    ]
    mids = []
    for i in range(count):
        mid = f"m_page{i:02d}"
        day = 1767350000.0 + i * 86400.0  # one match a day from 2 January 2026
        await db.create_match(mid, None, {"seats": 2, "target": 30}, seats, mid, day - 600, [])
        player = {"seat": 0, "profile_id": "p_pages", "place": 1, "xp": 10, "won": True}
        await db.finish_match(
            mid, day, {"standings": []}, bot_record(mid), [{**player, "finished": True}]
        )
        mids.append(mid)
    await db.close()
    return mids


def test_the_profile_pages_through_its_matches(
    browser: Any, tmp_path: Path, server: str, shots: Path, live_server: LiveServers
) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    del server  # only for the skip when chromium is missing
    settings = live_server.settings(data_dir=tmp_path, signin_burst=float("inf"))
    token = "t_pages_" + "x" * 32
    # Playwright's sync API holds this thread's event loop: the filling runs in another thread.
    with ThreadPoolExecutor(1) as pool:
        mids = pool.submit(asyncio.run, _fill(settings, token, PAGE + 3)).result()
    url = live_server(settings)
    page = new_page(browser, **PHONE)
    page.add_init_script(f"localStorage.setItem('domino.token', {json.dumps(token)})")
    page.goto(url + "/#/profile")
    items = page.locator(".recent-list li[data-match]")
    items.first.wait_for()
    assert items.evaluate_all("els => els.map((e) => e.dataset.match)") == mids[::-1][:PAGE]
    more = page.get_by_role("button", name="Weitere laden")
    more.tap()
    page.wait_for_function(
        f"document.querySelectorAll('.recent-list li[data-match]').length === {PAGE + 3}"
    )
    assert items.evaluate_all("els => els.map((e) => e.dataset.match)") == mids[::-1]
    assert more.is_hidden()  # the last page: nothing more to load
    page.screenshot(path=str(shots / "phone-profile-matches.png"))
    # A match of the second page opens in the viewer.
    page.locator(f".recent-list li[data-match='{mids[0]}']").get_by_role(
        "link", name="Spielbericht ansehen"
    ).tap()
    page.locator(VIEWER).wait_for()
    wait_position(page, 1, 0)
    assert page.url.endswith(f"#/replay/{mids[0]}/1/0")
    assert_no_js_errors(page)


def test_the_match_address_after_the_end_shows_the_standings(
    finished: dict[str, Any], server: str, browser: Any
) -> None:
    # Rita comes back to her match's address after it ended (a reload, a dropped
    # connection): the welcome names no seat any more, the page asks for the match and
    # the server answers with its last state: the standings, not the start page.
    page = new_page(browser, **DESKTOP, storage_state=finished["storage"])
    page.goto(f"{server}/#/match/{finished['id']}")
    end = page.locator(MATCH_END)
    end.wait_for()
    text = end.inner_text()
    assert "Spielende" in text and "Du" in text and "Platz" in text
    assert page.url.endswith(f"#/match/{finished['id']}")
    assert_no_js_errors(page)


# -- where the viewer opens: the list shows the move, the page its head ------------------------
MOVE_IN_LIST = """() => {
  const list = document.querySelector('.replay-moves');
  const cur = list.querySelector('li.current');
  const a = list.getBoundingClientRect(), b = cur.getBoundingClientRect();
  return {top: b.top - a.top, bottom: a.bottom - b.bottom,
          scrolls: list.scrollHeight > list.clientHeight + 1, scrolled: list.scrollTop};
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_linked_move_is_in_view_in_the_move_list(
    finished: dict[str, Any], server: str, browser: Any, size: str
) -> None:
    page = new_page(browser, **(DESKTOP if size == "desktop" else PHONE))
    data = replay_data(page, server, finished["id"])
    # The round with the most moves, at its last move: far down a list that scrolls.
    r = max(range(len(data["rounds"])), key=lambda i: len(data["rounds"][i]["frames"]))
    k = len(data["rounds"][r]["frames"]) - 1
    page.goto(f"{server}/#/replay/{finished['id']}/{r + 1}/{k}")
    page.locator(VIEWER).wait_for()
    wait_position(page, r + 1, k)
    where = page.evaluate(MOVE_IN_LIST)
    assert where["scrolls"] and where["scrolled"] > 0, where
    assert where["top"] >= -1 and where["bottom"] >= -1, where
    # Still in view once the analysis has added its grades (the list is drawn again).
    page.wait_for_selector("[data-testid=analysis][data-state=done]")
    where = page.evaluate(MOVE_IN_LIST)
    assert where["top"] >= -1 and where["bottom"] >= -1, where
    # A step back from the first move in view keeps it in view too.
    page.get_by_role("button", name="Zum Anfang").click()
    wait_position(page, 1, 0)
    where = page.evaluate(MOVE_IN_LIST)
    assert where["top"] >= -1 and where["bottom"] >= -1, where
    assert_no_js_errors(page)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_replay_opened_from_the_profile_starts_at_its_head(
    finished: dict[str, Any], server: str, browser: Any, size: str
) -> None:
    page = new_page(
        browser, storage_state=finished["storage"], **(DESKTOP if size == "desktop" else PHONE)
    )
    page.goto(server + "/#/profile")
    link = page.locator(f".recent-list li[data-match='{finished['id']}']").get_by_role(
        "link", name="Spielbericht ansehen"
    )
    link.wait_for()
    # The list is read further down the page: the link is reached by scrolling.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    link.click()
    page.locator(VIEWER).wait_for()
    wait_position(page, 1, 0)
    assert page.evaluate("window.scrollY") == 0
    head = page.locator("[data-testid=replay] h1").bounding_box()
    assert head and head["y"] >= 0
    assert_no_js_errors(page)


def test_a_profile_drawn_late_does_not_cover_the_replay_opened_meanwhile(
    finished: dict[str, Any], server: str, browser: Any
) -> None:
    """The profile is drawn again (its socket's welcome, say) while its answer is slow, and
    the player opens a replay from the list meanwhile: the late profile stays unseen."""
    page = new_page(browser, storage_state=finished["storage"], **DESKTOP)
    page.goto(server + "/#/profile")
    link = page.locator(f".recent-list li[data-match='{finished['id']}']").get_by_role(
        "link", name="Spielbericht ansehen"
    )
    link.wait_for()
    held: list[Any] = []
    page.route(re.compile(r"/api/me$"), lambda route: held.append(route))
    # A second drawing of the profile, waiting for its answer.
    with page.expect_request(lambda r: r.url.endswith("/api/me")):
        page.evaluate("window.dispatchEvent(new HashChangeEvent('hashchange'))")
    link.click()
    page.locator(VIEWER).wait_for()
    # One held answer, or two: the socket's welcome may draw the profile again too.
    assert held, "the second drawing asked for nothing"
    finished_me: list[str] = []

    def all_answered(r: Any) -> bool:
        if r.url.endswith("/api/me"):
            finished_me.append(r.url)
        return len(finished_me) == len(held)

    with page.expect_event("requestfinished", all_answered):
        for route in held:
            route.continue_()
    # The late drawing's remaining steps run in the page's next turns.
    page.evaluate("() => new Promise((ok) => setTimeout(() => requestAnimationFrame(ok), 0))")
    assert page.locator(VIEWER).is_visible()
    assert page.locator(".recent-list").count() == 0
    assert_no_js_errors(page)


# -- the server's moves for a player ----------------------------------------------------------
def test_a_move_the_server_made_for_the_player_reads_as_the_bots(server: str, browser: Any) -> None:
    """Her clock runs out once: the replay tells those moves as the live log did ("Der Bot
    legt für dich ..."), not as her own ("Du legst ...")."""
    page = new_page(browser, **DESKTOP)
    sign_in_as_guest(page, server, "Timo")
    open_lobby_with_bots(page, ["profi"])
    set_rule(page, "turn_seconds", "12 s")  # the shortest clock the rules allow
    start_match(page)
    page.locator(MY_TURN).wait_for()
    page.locator(f"{TABLE} ol.log li", has_text="Deine Zeit ist abgelaufen.").wait_for(
        timeout=60_000
    )
    play_match(page, act)
    page.locator(MATCH_END).wait_for()
    match_id = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
    data = replay_data(page, server, match_id)
    auto = [
        (r + 1, k)
        for r, rnd in enumerate(data["rounds"])
        for k, f in enumerate(rnd["frames"])
        if f["event"] and f["event"].get("auto")
    ]
    assert auto, "the timed-out turn is not marked"
    rnd, move = auto[-1]  # the turn's last move: a tile laid or a pass
    page.goto(f"{server}/#/replay/{match_id}/{rnd}/{move}")
    wait_position(page, rnd, move)
    for_you = re.compile(r"Der Bot (legt|zieht|passt) für dich")
    assert for_you.search(page.get_by_test_id("replay-now").inner_text())
    lines = page.locator(".replay-moves li").all_inner_texts()
    marked = [lines[k] for r, k in auto if r == rnd]
    assert marked and all(for_you.search(x) for x in marked), lines
    assert not [x for x in marked if re.search(r"Du (legst|ziehst|passt)", x)], lines
    # Her own moves stay hers.
    own = [
        lines[k]
        for k, f in enumerate(data["rounds"][rnd - 1]["frames"])
        if k and f["event"]["seat"] == 0 and not f["event"].get("auto")
    ]
    assert all(re.search(r"Du (legst|ziehst|passt)", x) for x in own), lines
    assert_no_js_errors(page)


# -- long names in the viewer (issue 21) -------------------------------------------------------
LONG_BOT = "Bot 2 (Fortgeschritten)"


async def _one_long_named_match(settings: Any) -> str:
    """A finished match of Rita and a bot whose name is as long as the table gives them."""
    from domino.bots import make_bot
    from domino.rules import MatchState, Rules, view
    from domino.rules.record import record_of
    from domino.server.storage.db import Database

    seats = [
        {"name": "Rita", "kind": "human"},
        {"name": LONG_BOT, "kind": "bot", "level": "fortgeschritten"},
    ]
    m = MatchState(Rules(seats=2, target=30), seed="long-names")
    bots = [make_bot("profi", f"long-names/{i}") for i in range(2)]
    while not m.over:
        if m.round.over:
            m.start_round()
            continue
        s = m.round.turn
        m.apply(bots[s].choose(view(m, s)), s)
    db = Database(settings.database_url)
    await db.create()
    mid = "m_longnames"
    await db.create_match(mid, None, {"seats": 2, "target": 30}, seats, mid, 1767350000.0, [])
    await db.finish_match(mid, 1767350600.0, {"standings": []}, record_of(m, seats=seats), [])
    await db.close()
    return mid


def test_long_bot_names_are_whole_in_the_replay(
    browser: Any, tmp_path: Path, server: str, shots: Path, live_server: LiveServers
) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    del server  # only for the skip when chromium is missing
    settings = live_server.settings(data_dir=tmp_path, signin_burst=float("inf"))
    with ThreadPoolExecutor(1) as pool:
        mid = pool.submit(asyncio.run, _one_long_named_match(settings)).result()
    url = live_server(settings)
    for name, context in (("phone", PHONE), ("desktop", DESKTOP)):
        page = new_page(browser, **context)
        page.goto(f"{url}/#/replay/{mid}/1/0")
        page.locator(VIEWER).wait_for()
        names = page.locator(".replay-seat .seat-name").evaluate_all(
            """els => els.map((e) => [e.textContent, e.scrollWidth <= e.clientWidth + 1,
                                      e.getBoundingClientRect().right <= innerWidth])"""
        )
        assert [n[0] for n in names] == ["Rita", LONG_BOT], names
        assert all(whole and seen for _text, whole, seen in names), (name, names)
        page.screenshot(path=str(shots / f"{name}-replay-long-name.png"))
        assert_no_js_errors(page)
