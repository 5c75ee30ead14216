"""The replay viewer's key help and 19-digit seeds in the browser (issue 20, points 7 and 8), in chromium.

``?`` opens the viewer's key help as it does at the table (Esc closes it, and so do its button and a
click beside it), in both languages; a record whose seed is 2479999172460754900 shows exactly those
digits (a JavaScript number would show 2479999172460755000), whether the file writes the seed as text
(as the engine does) or as a number (as records did before); the lobby takes a 19-digit seed,
sends it as text, and refuses one beyond 64 bits in words.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from browser_helpers import ARTIFACTS, GOLDEN, PACE, VIEWPORTS, WAIT_MS, Shots, browser, serve, server, watched
from chaodipi.record import game_record
from chaodipi.rules import RuleSet
from chaodipi.server.store import Store
from chaodipi.simulate import simulate_game
from server_helpers import free_port

__all__ = ["browser", "server"]  # the fixtures, imported

BIG = 2479999172460754900
ROUNDED = "2479999172460755000"  # what a double makes of it

LOADED = "() => Number(document.querySelector('[data-testid=replay]')?.dataset.frames) > 0"


def _page(browser: Any, size: str = "desktop") -> tuple[Any, Any, list[str]]:
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    return context, page, problems


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_question_mark_opens_the_replay_viewers_key_help(server: str, browser: Any, size: str) -> None:
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    page = context.new_page()
    with watched(context, page, ARTIFACTS / f"replay-keys-{size}") as shots:
        page.goto(f"{server}/replay")
        page.get_by_test_id("replay-upload").set_input_files(str(GOLDEN / "kangqi-seed7.json"))
        page.wait_for_function(LOADED, timeout=WAIT_MS)
        help_box = page.get_by_test_id("replay-help")
        assert help_box.count() == 0
        root = page.get_by_test_id("replay")
        frame = int(root.get_attribute("data-frame") or 0)
        page.keyboard.press("?")  # on a phone: a keyboard attached to it
        help_box.wait_for(timeout=WAIT_MS)
        text = help_box.inner_text()
        assert "回放按键" in text and "上一步 / 下一步" in text and "自动播放" in text and "Esc" in text, text
        assert help_box.get_attribute("role") == "dialog"
        box = page.locator("[data-testid=replay-help] .help-box").bounding_box()
        width = VIEWPORTS[size]["viewport"]["width"]
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box  # it fits the screen
        shots("help-zh")
        if size == "phone":
            page.get_by_test_id("replay-help-close").tap()
        else:
            page.keyboard.press("Escape")
        help_box.wait_for(state="detached", timeout=WAIT_MS)
        assert int(root.get_attribute("data-frame") or 0) == frame  # opening and closing moved nothing
        # again (the ? button beside the keys' line; phones show neither), and a click beside the box closes it
        if size == "phone":
            assert not page.get_by_test_id("replay-help-button").is_visible()
            page.keyboard.press("?")
        else:
            page.get_by_test_id("replay-help-button").click()
        help_box.wait_for(timeout=WAIT_MS)
        page.mouse.click(5, 5)
        help_box.wait_for(state="detached", timeout=WAIT_MS)
        # the keys still step, and the help follows the language
        page.keyboard.press("ArrowRight")
        assert int(root.get_attribute("data-frame") or 0) == frame + 1
        page.get_by_test_id("lang-switch").click()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        page.keyboard.press("?")
        help_box.wait_for(timeout=WAIT_MS)
        text = help_box.inner_text()
        assert "Replay keys" in text and "previous / next step" in text and "autoplay on/off" in text, text
        shots("help-en")
        page.keyboard.press("?")  # ? toggles, as at the table
        help_box.wait_for(state="detached", timeout=WAIT_MS)


def _big_seed_record() -> dict[str, Any]:
    record = game_record(simulate_game(RuleSet.preset("standard"), BIG))
    assert record["seed"] == str(BIG)
    return record


@pytest.mark.parametrize("form", ["text", "number"])
def test_a_19_digit_seed_is_shown_exactly_in_the_replay_viewer(server: str, browser: Any, form: str) -> None:
    record = _big_seed_record()
    folder = ARTIFACTS / "replay-seed"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"seed-as-{form}.json"
    text = json.dumps(record, ensure_ascii=False)
    if form == "number":  # a record written before seeds were text
        text = text.replace(f'"seed": "{BIG}"', f'"seed": {BIG}')
        assert f'"seed": {BIG},' in text
    path.write_text(text, encoding="utf-8")
    context, page, problems = _page(browser)
    shots = Shots(page, folder / form)
    try:
        page.goto(f"{server}/replay")
        page.get_by_test_id("replay-upload").set_input_files(str(path))
        page.wait_for_function(LOADED, timeout=WAIT_MS)
        head = page.locator(".r-head").inner_text()
        assert f"种子 {BIG}" in head and ROUNDED not in head, head
        shots("seed")
    finally:
        context.close()
    assert not problems, problems


def test_the_lobby_sends_a_19_digit_seed_as_text_and_refuses_one_beyond_64_bits(browser: Any, tmp_path: Path) -> None:
    db = tmp_path / "seed.db"
    port = free_port()
    proc = serve(db, port, *PACE)
    context, page, problems = _page(browser)
    shots = Shots(page, ARTIFACTS / "lobby-seed")
    posted: list[Any] = []
    page.on(
        "request",
        lambda r: posted.append(r.post_data) if r.method == "POST" and r.url.endswith("/api/tables") else None,
    )
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        page.get_by_test_id("lobby").wait_for()
        page.get_by_test_id("player-name").fill("种子")
        page.get_by_test_id("rules-toggle").click()
        seed = page.get_by_test_id("seed")
        assert seed.get_attribute("maxlength") == "19"
        # 20 digits typed: the field keeps 19; 9999999999999999999 is beyond 2^63 - 1: refused in words
        seed.press_sequentially("99999999999999999999")
        assert seed.input_value() == "9" * 19
        error = page.get_by_test_id("seed-error")
        error.wait_for(timeout=WAIT_MS)
        assert "9223372036854775807" in error.inner_text() and "64" in error.inner_text()
        assert seed.get_attribute("aria-invalid") == "true"
        page.get_by_test_id("create-table").click()
        page.wait_for_timeout(300)
        assert posted == [] and page.get_by_test_id("lobby").count() == 1  # nothing was sent
        shots("refused")
        seed.fill("")
        seed.press_sequentially(str(BIG))
        assert seed.input_value() == str(BIG) and not error.is_visible()
        page.get_by_test_id("create-table").click()
        page.wait_for_url("**/t/*", timeout=WAIT_MS)
        assert len(posted) == 1 and json.loads(posted[0])["seed"] == str(BIG)  # text: not rounded on the way
        shots("created")
    finally:
        context.close()
        proc.terminate()
        proc.wait(15)
    store = Store(f"sqlite:///{db}")
    try:
        assert [info.seed for info in store.list_tables()] == [BIG]
    finally:
        store.close()
    assert not [p for p in problems if "WebSocket" not in p], problems
