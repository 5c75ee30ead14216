"""Every word in the player's language at the table (issue 20, points 1, 4 and 6), in chromium.

A refused play is worded in Chinese from the engine's reason code and names the cards that would
do; bots are called by what they are and where they sit (下家·中级机器人); two missed decisions
in a row put the seat in 托管 and the page says so, offers control back, never says "your turn"
and lets no card be selected meanwhile; the settlement's notes are Chinese, and English after the
language switch. At desktop and phone size; screenshots under ``out/browser/words-<size>/``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from browser_helpers import ARTIFACTS, UNHURRIED, VIEWPORTS, WAIT_MS, Player, Shots, browser, server

__all__ = ["browser", "server"]  # the fixtures, imported

#: English words (three letters or more) that must not be in a Chinese sentence; card codes are shorter.
ENGLISH = re.compile(r"[A-Za-z]{3,}")


def _table(base: str, rules: dict[str, Any], seed: int, name: str) -> tuple[int, dict[str, Any]]:
    """A table with the person in seat 0 and rules bots in the others."""
    table = httpx.post(f"{base}/api/tables", json={"rules": rules, "seed": seed}).json()
    tid = int(table["id"])
    seat = httpx.post(f"{base}/api/tables/{tid}/seats", json={"name": name, "seat": 0}).json()
    for n in (1, 2, 3):
        httpx.post(f"{base}/api/tables/{tid}/seats", json={"bot": "rules", "seat": n})
    return tid, {"token": seat["token"], "seat": 0, "name": name}


def _open(context: Any, base: str, tid: int, memory: dict[str, Any]) -> Any:
    context.add_init_script(f"localStorage.setItem('chaodipi.seat.{tid}', {json.dumps(json.dumps(memory))})")
    page = context.new_page()
    page.goto(f"{base}/t/{tid}")
    page.get_by_test_id("table").wait_for()
    return page


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_refusals_bots_and_notes_are_worded_in_the_players_language(server: str, browser: Any, size: str) -> None:
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    problems: list[str] = []
    shots_dir = ARTIFACTS / f"words-{size}"
    try:
        tid, memory = _table(server, {"preset": "mingchao", "set": {"declare_seconds": 1, **UNHURRIED}}, 32, "小红")
        page = _open(context, server, tid, memory)
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        shots = Shots(page, shots_dir)
        player = Player(page, size == "phone", shots)
        # the bots' names: what they are and where they sit, never the server's "rules bot"
        page.wait_for_function("() => document.body.innerText.includes('中级机器人')", timeout=WAIT_MS)
        for seat, role in ((1, "下家"), (2, "对家"), (3, "上家")):
            plate = page.get_by_test_id(f"seat-{seat}").inner_text()
            # (a phone shows the seat's place on the felt, not the word)
            assert "中级机器人" in plate and (role in plate or size == "phone"), plate
        assert "rules bot" not in page.inner_text("body")
        shots("bots-named")
        # play on until the page has refused a play, worded in Chinese with the cards that would do
        deadline = 240
        for _ in range(deadline * 10):
            if "illegal" in player.done:
                break
            player.step()
            page.wait_for_timeout(100)
        assert "illegal" in player.done, f"no refusal met: {player.done}"
        refusal = player.errors[-1]
        assert refusal.startswith(("不能这样出", "不能这样做")), refusal
        assert not ENGLISH.search(refusal), f"English in the refusal: {refusal}"
        named = re.search(r"[黑红梅方][桃花块]|主牌|大王|小王", refusal)
        assert named, f"the refusal names no suit or cards: {refusal}"
        # the hand goes on in 托管 to its settlement: its notes are Chinese, then English
        player.press(player.testid("auto-toggle"))
        player.testid("settlement").wait_for(timeout=300_000)
        shots("settlement-zh")
        panel = player.testid("settlement")
        assert not ENGLISH.search(panel.locator(".settle-points, .settle-rows").first.inner_text())
        page.locator(".settle-notes summary").first.click()
        notes = player.testid("settle-notes").inner_text()
        assert notes.strip() and not ENGLISH.search(notes.replace("J到底", "")), notes
        log = player.testid("event-log").inner_text() if player.visible("event-log") else ""
        assert "level table" not in log and "nominal" not in log
        page.get_by_test_id("lang-switch").click()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        page.locator(".settle-notes summary").first.click() if not player.visible("settle-notes") else None
        english = player.testid("settle-notes").inner_text()
        assert re.search(r"points|side|table", english), english
        assert "Medium bot" in page.inner_text("body")
        shots("settlement-en")
    except Exception:
        with_page = context.pages[-1] if context.pages else None
        if with_page is not None:
            Shots(with_page, shots_dir / "failure")("failure")
        raise
    finally:
        context.close()
    assert not problems, problems


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_two_missed_decisions_turn_tuoguan_on_and_the_page_gives_control_back(
    server: str, browser: Any, size: str
) -> None:
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    shots_dir = ARTIFACTS / f"tuoguan-{size}"
    try:
        rules = {"preset": "mingchao", "set": {"declare_seconds": 1, "bury_seconds": 1, "play_seconds": 1}}
        tid, memory = _table(server, rules, 32, "小刚")
        page = _open(context, server, tid, memory)
        shots = Shots(page, shots_dir)
        # the person does nothing: one missed decision is played for them, the second turns 托管 on
        banner = page.get_by_test_id("auto-banner")
        banner.wait_for(timeout=120_000)
        assert banner.get_attribute("data-why") == "missed"
        assert "连续两次超时" in banner.inner_text()
        shots("tuoguan-on")
        # while 托管 is on: never "your turn", and no card can be selected
        for _ in range(10):
            assert page.get_by_test_id("turn-banner").count() == 0
            page.wait_for_timeout(150)
        cards = page.get_by_test_id("hand").locator("[data-card]")
        if cards.count():
            first = cards.first
            first.dispatch_event("click")  # (a card the page does not offer is not enabled: tap it anyway)
            page.wait_for_timeout(200)
            assert page.get_by_test_id("hand").locator("[data-selected=true]").count() == 0
            assert first.get_attribute("data-playable") != "true"
        take_back = page.get_by_test_id("auto-off")
        take_back.wait_for(state="visible", timeout=WAIT_MS)
        # (measured in the page: the banner is drawn again with each update, so a handle may go stale)
        size_of = "() => { const r = document.querySelector('[data-testid=auto-off]')?.getBoundingClientRect();"
        box = page.evaluate(size_of + " return r ? [r.width, r.height] : null; }")
        assert box is not None and box[0] >= 44 and box[1] >= 44, box
        take_back.tap() if size == "phone" else take_back.click()
        banner.wait_for(state="hidden", timeout=WAIT_MS)
        shots("control-back")
        # (with limits of 1 s the person may soon miss two more: then 托管 comes back, rightly)
        assert page.get_by_test_id("auto-toggle").get_attribute("aria-pressed") == "false" or banner.is_visible()
    finally:
        context.close()
