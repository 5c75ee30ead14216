"""The browser client end to end (issue 12), in Debian's chromium driven by Playwright.

A person creates a table with three bots in the lobby (a house rule changed on the way), plays
through the page until they have bid, buried, answered a fry question, had an illegal play
refused with the engine's reason, reloaded the page in the middle of a hand and carried on, and
seen a hand's settlement; then lets 托管 finish the game and opens it in the replay viewer. The
same at desktop size and on a 375-pixel-wide phone (tapping the cards). Screenshots of each step
are kept under ``out/browser/{desktop,phone}/`` (not committed).

``make test`` installs chromium (``make browser``) and sets ``CHAODIPI_CHROMIUM``; without a
chromium these tests are skipped, except under CI, where that is a failure.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from browser_helpers import (
    ARTIFACTS,
    GOLDEN,
    UNHURRIED,
    VIEWPORTS,
    WAIT_MS,
    Player,
    Shots,
    browser,
    open_record,
    serve,
    server,
    watched,
)
from server_helpers import free_port

__all__ = ["browser", "server"]  # the fixtures, imported


def _until(player: Player, done: set[str], limit_s: float, shots: Shots) -> None:
    end = time.monotonic() + limit_s
    reloaded = False
    shot_phases: set[str] = set()
    while not done <= set(player.done):
        assert time.monotonic() < end, f"the page did not get there in time: done {player.done}"
        phase = player.table_attr("data-phase")
        if phase and phase not in shot_phases and phase in ("deal", "countdown", "bury", "fry", "play"):
            shot_phases.add(phase)
            shots(f"phase-{phase}")
        if not reloaded and phase == "play" and int(player.testid("hand").locator("[data-card]").count()) <= 21:
            hand, seq = player.table_attr("data-hand"), int(player.table_attr("data-seq"))
            shots("before-reload")
            player.page.reload()
            player.testid("table").wait_for()
            player.page.wait_for_function(
                "() => document.querySelector('[data-testid=connection-state]')?.dataset.state === 'open'"
                " && document.querySelector('[data-testid=table]')?.dataset.phase",
                timeout=WAIT_MS,
            )
            assert player.table_attr("data-hand") == hand, "the reload comes back to the same hand"
            assert int(player.table_attr("data-seq")) >= seq
            assert player.cards().count() > 0
            shots("after-reload")
            reloaded = True
            player.done["reload"] = 1
        before = dict(player.done)
        player.step()
        if player.done.get("bury", 0) > before.get("bury", 0):
            shots("buried")
        if "settlement" in player.done and "settlement" not in before:
            shots("settlement")
            player.press(player.testid("ready-button"))
        player.page.wait_for_timeout(60)


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_a_person_plays_a_game_in_the_browser_and_replays_it(server: str, browser: Any, size: str) -> None:
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    page = context.new_page()
    with watched(context, page, ARTIFACTS / size) as shots:
        _game_in_browser(page, server, shots, touch=size == "phone")


def _game_in_browser(page: Any, base: str, shots: Shots, *, touch: bool) -> None:
    player = Player(page, touch, shots)
    # the lobby: a 明炒 table, the declaring countdown shortened to 1 s as a house rule, and the limits of the
    # person's decisions made long (a busy machine must not miss them for the test: UNHURRIED)
    page.goto(base + "/")
    player.testid("lobby").wait_for()
    shots("lobby")
    player.testid("player-name").fill("测试员")
    player.press(player.testid("room-mingchao"))
    player.press(player.testid("rules-toggle"))
    # seed 32 deals seat 0 both 5h by the 24th card: the strongest bid, so this player holds the kitty
    player.testid("seed").fill("32")
    house = {"declare_seconds": 1, **UNHURRIED}
    for option, value in house.items():
        seconds = player.testid("rules-editor").locator(f'[data-option="{option}"]')
        seconds.fill(str(value))
        seconds.dispatch_event("change")
    page.wait_for_function(
        "([n]) => document.querySelectorAll('[data-testid=overrides-summary] .override-chip').length === n",
        arg=[len(house)],
        timeout=WAIT_MS,
    )
    shots("house-rules")
    for seat in (1, 2, 3):
        assert player.testid(f"bot-seat-{seat}").input_value() == "rules"
    player.press(player.testid("create-table"))
    page.wait_for_url(re.compile(r"/t/\d+$"), timeout=WAIT_MS)
    table_id = int(page.url.rsplit("/", 1)[1])
    player.testid("table").wait_for()
    info = httpx.get(f"{base}/api/tables/{table_id}").json()
    assert info["rules"] == {"preset": "mingchao", "set": house}
    assert info["games"] == 1
    assert [s["kind"] for s in info["seats"]] == ["player", "bot", "bot", "bot"]
    # one hand played through the page, with a reload in the middle
    _until(player, {"bid", "bury", "fry", "illegal", "reload", "settlement"}, 420, shots)
    assert player.errors and all(e.strip() for e in player.errors)
    assert player.done.get("winning", 0) > 0
    # 托管 plays on to the end of the game
    player.press(player.testid("auto-toggle"))
    page.wait_for_function("() => !!document.querySelector('[data-testid=seat-auto-0]')", timeout=WAIT_MS)
    shots("auto-play")
    player.testid("game-over").wait_for(timeout=600_000)
    shots("game-over")
    # the replay viewer: the finished game, trick by trick, from all seats and from one
    player.press(player.testid("replay-link"))
    page.wait_for_url(re.compile(rf"/replay/{table_id}/1$"), timeout=WAIT_MS)
    root = player.testid("replay")
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=replay]')?.dataset.frames) > 0", timeout=WAIT_MS
    )
    shots("replay-start")
    frame = int(root.get_attribute("data-frame") or 0)
    for _ in range(3):
        player.press(player.testid("replay-next-trick"))
    assert int(root.get_attribute("data-frame") or 0) > frame
    assert player.testid("replay-trick").locator("[data-card]").count() > 0
    for seat in range(4):
        assert player.testid(f"replay-hand-{seat}").locator("[data-card]").count() > 0  # all hands open
    shots("replay-all-open")
    player.testid("replay-seat-select").select_option("0")
    page.wait_for_function("() => document.querySelector('[data-testid=replay]')?.dataset.seatView === '0'")
    assert player.testid("replay-hand-0").locator("[data-card]").count() > 0
    assert player.testid("replay-hand-1").locator("[data-card]").count() == 0
    assert player.testid("replay-hand-1").locator("[data-back=true]").count() > 0
    shots("replay-seat-0")
    player.press(player.testid("replay-last"))
    player.testid("replay-result").wait_for()
    shots("replay-end")


def test_a_lost_connection_shows_reconnecting_and_comes_back_to_the_same_seat(browser: Any, tmp_path: Path) -> None:
    """The server is killed in the middle of a hand and started again: the page says it is
    reconnecting, then carries on in the same seat, in the same hand."""
    port = free_port()
    db = tmp_path / "lost.db"
    slow = ("--deal-ms", "10", "--bot-delay-ms", "400", "--hand-pause-ms", "2500")
    proc = serve(db, port, *slow)
    base = f"http://127.0.0.1:{port}"
    context = browser.new_context(locale="zh-CN", **VIEWPORTS["phone"])
    try:
        table = httpx.post(f"{base}/api/tables", json={"rules": "kangqi", "seed": 5, "bots": {"1": "rules"}}).json()
        tid = table["id"]
        seat = httpx.post(f"{base}/api/tables/{tid}/seats", json={"name": "小明", "seat": 0}).json()
        for n in (2, 3):
            httpx.post(f"{base}/api/tables/{tid}/seats", json={"bot": "rules", "seat": n})
        memory = {"token": seat["token"], "seat": 0, "name": "小明"}
        context.add_init_script(f"localStorage.setItem('chaodipi.seat.{tid}', {json.dumps(json.dumps(memory))})")
        page = context.new_page()
        page.goto(f"{base}/t/{tid}")
        page.get_by_test_id("auto-toggle").wait_for()
        page.get_by_test_id("auto-toggle").tap()  # the bot plays for the player: the hand goes on by itself
        page.wait_for_function(
            "() => ['play'].includes(document.querySelector('[data-testid=table]')?.dataset.phase)", timeout=60000
        )
        hand = page.get_by_test_id("table").get_attribute("data-hand")
        proc.kill()
        proc.wait(10)
        page.get_by_test_id("reconnecting").wait_for(state="visible", timeout=WAIT_MS)
        shots = Shots(page, ARTIFACTS / "reconnect")
        shots("reconnecting")
        proc = serve(db, port, *slow)
        page.get_by_test_id("reconnecting").wait_for(state="hidden", timeout=WAIT_MS)
        page.wait_for_function(
            "() => document.querySelector('[data-testid=connection-state]')?.dataset.state === 'open'", timeout=WAIT_MS
        )
        assert page.get_by_test_id("table").get_attribute("data-hand") == hand
        assert page.get_by_test_id("table").get_attribute("data-seat") == "0"
        seq = int(page.get_by_test_id("table").get_attribute("data-seq") or 0)
        page.wait_for_function(
            f"() => Number(document.querySelector('[data-testid=table]')?.dataset.seq) > {seq}", timeout=WAIT_MS
        )
        shots("back")
    finally:
        context.close()
        proc.terminate()
        proc.wait(15)


def test_a_record_file_opens_in_the_replay_viewer_with_keys_and_in_english(server: str, browser: Any) -> None:
    """Upload a record (a golden file), step with the keyboard, switch to English; a bad file is refused in words."""
    context = browser.new_context(locale="zh-CN", **VIEWPORTS["desktop"])
    page = context.new_page()
    shots = Shots(page, ARTIFACTS / "upload")
    try:
        open_record(page, server, GOLDEN / "kangqi-seed7.json")
        root = page.get_by_test_id("replay")
        assert page.locator("html").get_attribute("lang") == "zh"
        shots("uploaded")
        frame = int(root.get_attribute("data-frame") or 0)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert int(root.get_attribute("data-frame") or 0) == frame + 2
        page.keyboard.press("End")
        page.get_by_test_id("replay-result").wait_for()
        # the settlement's notes (the settled events' phrases) in Chinese, then in English (issue 20)
        page.locator(".r-res-notes summary").click()
        notes = page.get_by_test_id("replay-notes").inner_text()
        assert notes.strip() and not re.search(r"[A-Za-z]{3,}", notes), notes
        shots("notes-zh")
        page.get_by_test_id("lang-switch").click()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        assert "Replay" in page.get_by_role("banner").inner_text() or "Replay" in page.inner_text("body")
        if not page.get_by_test_id("replay-notes").is_visible():
            page.locator(".r-res-notes summary").click()
        assert re.search(r"points|side|table", page.get_by_test_id("replay-notes").inner_text())
        shots("english")
        # a record that does not replay: the engine's reason, in words
        bad = json.loads((GOLDEN / "kangqi-seed7.json").read_text())
        bad["hands"][0]["actions"][-1]["cards"] = "BJ"
        path = ARTIFACTS / "upload" / "bad.json"
        path.write_text(json.dumps(bad))
        page.goto(f"{server}/replay")
        page.get_by_test_id("replay-upload").set_input_files(str(path))
        error = page.get_by_test_id("replay-error")
        error.wait_for(timeout=WAIT_MS)
        assert "hand 1" in error.inner_text()
        shots("refused")
    finally:
        context.close()
