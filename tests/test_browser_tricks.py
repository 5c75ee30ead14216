"""Tricks people can follow (issue 20), in chromium: a won trick stays in the middle with its winner.

A person sits at a table of three bots and lets 托管 play; after the fourth play of each trick
the finished trick stays on the felt, the winner's play marked and the winner named ("下家 赢得本轮
+10分"), for the server's trick pause (``--trick-pause-ms``, here 1500), even with reduced motion,
until the next lead. On a phone the last trick is one tap away: a button on the felt (44×44 px at
least) opens it large, each seat's cards at least 40 px wide with the seats named 上家/对家/下家/我,
and a tap or Escape closes it. At desktop size the side panel shows the last trick. Screenshots
are kept under ``out/browser/tricks-{desktop,phone}/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from browser_helpers import ARTIFACTS, VIEWPORTS, WAIT_MS, Shots, browser, serving, watched

__all__ = ["browser"]  # the fixture, imported

PAUSE_MS = 1500
#: Quick bots, a short countdown, and the trick pause at its default.
TRICK_PACE = ("--deal-ms", "5", "--bot-delay-ms", "30", "--hand-pause-ms", "2500", "--trick-pause-ms", str(PAUSE_MS))
RULES = {"preset": "standard", "set": {"declare_seconds": 1}}
BANNER = re.compile(r"^(我|上家|对家|下家) 赢得本轮( \+\d+分)?$")

# Records each finished trick the page shows: when it appeared and went, what it showed, and when the next lead came.
RECORDER = """
(() => {
  window.__tricks = [];
  setInterval(() => {
    const list = window.__tricks;
    const last = list[list.length - 1];
    const now = performance.now();
    const f = document.querySelector('[data-testid=finished-trick]');
    if (f && (!last || last.k !== f.dataset.trick)) {
      const banner = f.querySelector('[data-testid=trick-winner]');
      const winner = f.querySelector('.slot.winner');
      list.push({ k: f.dataset.trick, shown: now, hidden: null, led: null,
        plays: f.querySelectorAll('[data-seat-play]').length, winners: f.querySelectorAll('.slot.winner').length,
        winner: winner ? winner.dataset.seat : null, banner: banner ? banner.textContent : null,
        bannerSeat: banner ? banner.dataset.seat : null });
    } else if (!f && last && last.hidden === null) {
      last.hidden = now;
    }
    const cur = document.querySelector('[data-testid=current-trick] [data-seat-play]');
    if (cur && last && last.led === null) last.led = now;
  }, 15);
})();
"""


@pytest.fixture(scope="module")
def trick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose tricks pause as in play (1.5 s), with quick bots otherwise."""
    with serving(tmp_path_factory.mktemp("tricks"), *TRICK_PACE) as base:
        yield base


def _seated_page(base: str, browser: Any, size: str) -> tuple[Any, Any]:
    """A table of three rules bots and the person in seat 0 (the page remembers the seat), 托管 on."""
    table = httpx.post(f"{base}/api/tables", json={"rules": RULES, "seed": 7, "bots": {"1": "rules"}}).json()
    tid = table["id"]
    seat = httpx.post(f"{base}/api/tables/{tid}/seats", json={"name": "小明", "seat": 0}).json()
    for n in (2, 3):
        httpx.post(f"{base}/api/tables/{tid}/seats", json={"bot": "rules", "seat": n}).raise_for_status()
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    memory = {"token": seat["token"], "seat": 0, "name": "小明"}
    context.add_init_script(f"localStorage.setItem('chaodipi.seat.{tid}', {json.dumps(json.dumps(memory))})")
    context.add_init_script(RECORDER)
    page = context.new_page()
    page.goto(f"{base}/t/{tid}")
    toggle = page.get_by_test_id("auto-toggle")
    toggle.wait_for()
    page.wait_for_function("() => !document.querySelector('[data-testid=auto-toggle]')?.disabled", timeout=WAIT_MS)
    if size == "phone":
        toggle.tap()
    else:
        toggle.click()
    page.wait_for_function("() => !!document.querySelector('[data-testid=seat-auto-0]')", timeout=WAIT_MS)
    return context, page


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_a_won_trick_stays_in_the_middle_with_its_winner(trick_server: str, browser: Any, size: str) -> None:
    context, page = _seated_page(trick_server, browser, size)
    with watched(context, page, ARTIFACTS / f"tricks-{size}") as shots:
        _won_trick(page, shots)
        if size == "phone":
            _last_trick_large(page, shots)
        else:
            _last_trick_at_the_side(page, shots)
        _held_for_the_pause(page)


def _won_trick(page: Any, shots: Shots) -> None:
    finished = page.get_by_test_id("finished-trick")
    finished.wait_for(state="visible", timeout=WAIT_MS)  # the fourth play of the first trick
    shots("trick-won")
    banner = page.get_by_test_id("trick-winner")
    assert banner.is_visible()
    assert BANNER.match(banner.inner_text().strip()), banner.inner_text()
    # two tricks seen through: each held for about the pause, then the next lead
    page.wait_for_function(
        "() => window.__tricks.filter((t) => t.hidden !== null && t.led !== null).length >= 2", timeout=WAIT_MS
    )
    shots("next-lead")
    _held_for_the_pause(page)


def _held_for_the_pause(page: Any) -> None:
    """Every won trick the page has shown and taken away: held for about the pause, then the next lead."""
    seen = page.evaluate("() => window.__tricks")
    done = [t for t in seen if t["hidden"] is not None]
    assert len(done) >= 2, seen
    for trick in done:
        assert trick["plays"] == 4 and trick["winners"] == 1, trick
        assert trick["winner"] == trick["bannerSeat"], trick  # the marked play is the named seat's
        assert trick["banner"] and BANNER.match(trick["banner"].strip()), trick
        held = trick["hidden"] - trick["shown"]
        assert held >= PAUSE_MS - 500, f"the won trick went after {held:.0f} ms"
        assert held <= PAUSE_MS + 1500, f"the won trick stayed {held:.0f} ms"
        assert trick["led"] >= trick["hidden"] - 50, "the next lead came while the won trick was still shown"


def _last_trick_large(page: Any, shots: Shots) -> None:
    button = page.get_by_test_id("last-trick-felt")
    assert button.is_visible() and button.is_enabled()
    box = button.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    assert button.inner_text().strip() == "上一轮"
    button.tap()
    view = page.get_by_test_id("last-trick-view")
    view.wait_for(state="visible", timeout=WAIT_MS)
    shots("last-trick-large")
    sizes = page.evaluate(
        "() => { const v = document.querySelector('[data-testid=last-trick-view]');"
        " return { tags: [...v.querySelectorAll('[data-testid=trick-view-tag]')].map((e) => e.textContent),"
        " cards: [...v.querySelectorAll('[data-card]')].map((c) => c.getBoundingClientRect().width),"
        " winners: v.querySelectorAll('.trick-view-play.winner').length }; }"
    )
    assert sorted(sizes["tags"]) == sorted(["上家", "对家", "下家", "我"]), sizes
    assert sizes["cards"] and min(sizes["cards"]) >= 40, sizes["cards"]
    assert sizes["winners"] == 1
    page.keyboard.press("Escape")
    view.wait_for(state="hidden", timeout=WAIT_MS)
    button = page.get_by_test_id("last-trick-felt")
    button.tap()
    view.wait_for(state="visible", timeout=WAIT_MS)
    view.tap(position={"x": 10, "y": 10})  # a tap closes it
    view.wait_for(state="hidden", timeout=WAIT_MS)
    shots("last-trick-closed")


def _last_trick_at_the_side(page: Any, shots: Shots) -> None:
    assert not page.get_by_test_id("last-trick-felt").is_visible()  # a phone's button
    side = page.get_by_test_id("last-trick")
    assert side.is_visible()
    assert side.locator(".last-play").count() == 4
    assert side.locator(".last-play.winner").count() == 1
    shots("last-trick-side")
