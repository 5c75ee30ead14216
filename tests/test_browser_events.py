"""Events (赛事) in chromium: an organiser runs an event, a player follows it on a phone, a referee asks the tool.

An organiser registers and is logged in, opens /events, creates a physical knockout event with the form,
imports 8 pairs by CSV on the organiser's page, pairs round 1 (a draft the public does not see) and
publishes it. Meanwhile a player has the event's public page open on a phone (390×844): the pairings
appear there without a reload (the page polls the event's version). The organiser starts the round and
enters a table's result; the phone shows it and the standings. A penalty is given with the §14.4 form.
The referee's tool answers "is this follow legal" for a simple case both ways (a heart lead: a club is
refused while a heart is held, a heart is legal). Every name typed is shown as text, never as markup.
Screenshots of each page, phone and desktop: ``out/browser/events/`` (and /tmp/shots/ when it exists).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from browser_helpers import ARTIFACTS, PHONES, VIEWPORTS, Shots, browser, server

__all__ = ["browser", "server"]  # the fixtures, imported

XSS = "<img src=x onerror=alert(1)>"
#: In the page: the referee tool's verdict (legal, illegal, stands, fails, answer, error).
VERDICT = "() => document.querySelector('[data-testid=ref-answer]')?.dataset.verdict === '%s'"
PAIRS = [
    ("Tigers", "alice", "bob", "Shanghai"),
    ("Dragons", "carol", "dave", "Beijing"),
    ("猛虎队", "小明", "小红", "上海"),
    ("Phoenix", "erin", "frank", ""),
    (XSS, "gina", "hank", "Hangzhou"),
    ("Pandas", "ivan", "judy", "Chengdu"),
    ("Lotus", "kim", "lee", "Suzhou"),
    ("Comets", "mona", "ned", ""),
]


def _unique(prefix: str) -> str:
    return f"{prefix}{int(time.time() * 1000) % 100000:05d}"


def _copy_shots(folder: Path) -> None:
    """Copy the screenshots to /tmp/shots/ too (where a person looks at them during development)."""
    out = Path("/tmp/shots")
    if out.is_dir():
        for png in folder.glob("*.png"):
            shutil.copy(png, out / f"events-{folder.name}-{png.name}")


def _register(page: Any) -> str:
    """Register an organiser in the header's dialog (desktop); returns the username."""
    username = _unique("org")
    page.get_by_test_id("register-button").click()
    page.get_by_test_id("auth-dialog").wait_for()
    page.get_by_test_id("auth-username").fill(username)
    page.get_by_test_id("auth-password").fill("a-long-password")
    page.get_by_test_id("auth-submit").click()
    page.get_by_test_id("auth-dialog").wait_for(state="detached", timeout=10000)
    page.wait_for_function("() => document.querySelector('[data-testid=account-bar]')?.dataset.state === 'in'")
    return username


def test_an_organiser_runs_round_one_and_a_phone_sees_it_live(server: str, browser: Any) -> None:
    problems: list[str] = []
    org_ctx = browser.new_context(locale="en-GB", **VIEWPORTS["desktop"])
    phone_ctx = browser.new_context(locale="zh-CN", **PHONES["390x844"])
    org = org_ctx.new_page()
    phone = phone_ctx.new_page()
    for p in (org, phone):
        p.on("pageerror", lambda exc: problems.append(str(exc)))
        p.on("dialog", lambda d: problems.append("a dialog opened: " + d.message))
    org.add_init_script("localStorage.setItem('chaodipi.lang', 'en')")
    folder = ARTIFACTS / "events"
    shots_org = Shots(org, folder / "desktop")
    shots_phone = Shots(phone, folder / "phone")
    try:
        # -- the organiser: register, create the event with the form
        org.goto(server + "/events")
        org.get_by_test_id("events-page").wait_for()
        _register(org)
        org.get_by_test_id("event-form").wait_for()
        shots_org("events-list")
        org.get_by_test_id("event-name").fill("Spring cup " + XSS)
        org.get_by_test_id("event-preset").select_option("standard")
        org.get_by_test_id("seg-format-knockout").click()
        org.get_by_test_id("seg-online-physical").click()
        org.get_by_test_id("event-create-submit").click()
        org.wait_for_url("**/events/*/organise")
        event_id = org.url.rstrip("/").split("/")[-2]
        org.get_by_test_id("organise-page").wait_for()
        title = org.get_by_test_id("event-title").inner_text()
        assert XSS in title, title  # the name typed, shown as text

        # -- the player on a phone opens the public page before there is any round
        phone.goto(f"{server}/events/{event_id}")
        phone.get_by_test_id("no-round").wait_for()
        phone.evaluate("() => { window.__sameDocument = true; }")

        # -- 8 pairs by CSV
        csv = "name,player1,player2,club\n" + "\n".join(",".join(row) for row in PAIRS)
        org.get_by_test_id("import-csv").fill(csv)
        org.get_by_test_id("import-submit").click()
        org.wait_for_function("() => document.querySelectorAll('[data-testid=org-pair]').length === 8", timeout=10000)
        assert org.get_by_test_id("import-flash").inner_text().strip().startswith("8")
        shots_org("organise-pairs")

        # -- pair round 1: a draft with its reasons, not yet on the public page
        org.get_by_test_id("pair-next").click()
        org.get_by_test_id("round-publish").wait_for(timeout=10000)
        assert org.locator("[data-testid=org-rounds] [data-testid=pairing]").count() == 4
        assert org.locator("[data-testid=org-rounds] [data-testid=pairing-why]").count() >= 1
        shots_org("organise-draft")
        phone.wait_for_timeout(3500)
        assert phone.get_by_test_id("pairing").count() == 0, "a draft is the organiser's only"
        shots_phone("public-registering")

        # -- publish: the phone shows the pairings without a reload
        org.get_by_test_id("round-publish").click()
        org.get_by_test_id("round-start").wait_for(timeout=10000)
        phone.wait_for_function("() => document.querySelectorAll('[data-testid=pairing]').length === 4", timeout=10000)
        assert phone.evaluate("() => window.__sameDocument === true"), "the page was reloaded"
        text = phone.get_by_test_id("current-round").inner_text()
        assert "第 1 桌" in text or "桌" in text, text
        assert XSS in phone.get_by_test_id("event-page").inner_text()  # a pair's name, as text
        assert phone.locator("img[src=x]").count() == 0
        shots_phone("public-published")

        # -- start the round; enter table 1's result; the phone shows it
        org.get_by_test_id("round-start").click()
        org.get_by_test_id("enter-result").first.wait_for(timeout=10000)
        org.get_by_test_id("enter-result").first.click()
        org.get_by_test_id("result-winner-0").select_option("a")
        org.get_by_test_id("result-a-level-0").select_option("A")
        org.get_by_test_id("result-b-level-0").select_option("9")
        org.get_by_test_id("result-submit").click()
        org.wait_for_function(
            "() => document.querySelector('[data-testid=result-flash]')?.classList.contains('ev-ok')", timeout=10000
        )
        phone.wait_for_function("() => document.querySelector('[data-testid=pairing-result]') !== null", timeout=10000)
        phone.get_by_test_id("standings").wait_for()
        shots_phone("public-result")
        phone.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        shots_phone("public-standings")

        # -- a penalty with the §14.4 form: 10 a card × 2 cards
        org.get_by_test_id("give-penalty").first.click()
        org.get_by_test_id("penalty-offence").select_option("exposed")
        org.get_by_test_id("penalty-cards").fill("2")
        org.get_by_test_id("penalty-cards").dispatch_event("input")
        effect = org.get_by_test_id("penalty-effect").inner_text()
        assert "10 × 2" in effect and "20" in effect, effect
        org.get_by_test_id("penalty-submit").click()
        org.get_by_test_id("penalty-row").first.wait_for(timeout=10000)
        org.evaluate("() => window.scrollTo(0, 0)")
        shots_org("organise-started")
        org.get_by_test_id("result-form").scroll_into_view_if_needed()
        shots_org("organise-forms")
        org.get_by_test_id("event-log").scroll_into_view_if_needed()
        assert org.get_by_test_id("log-entry").count() >= 3
        shots_org("organise-log")

        # -- the public page and the list on the desktop
        org.goto(f"{server}/events/{event_id}")
        org.get_by_test_id("standings").wait_for()
        shots_org("public")
        org.goto(f"{server}/events")
        org.get_by_test_id("event-row").first.wait_for()
        shots_org("events-list-after")

        # -- the referee's tool on the phone: a heart lead, a hand of Kh and 3c
        phone.goto(f"{server}/referee")
        phone.get_by_test_id("card-grid").wait_for()
        phone.get_by_test_id("ref-preset").select_option("standard")
        phone.get_by_test_id("ref-level").select_option("2")
        phone.get_by_test_id("seg-trump-s").tap()
        phone.get_by_test_id("seg-op-follow").tap()
        grid = phone.get_by_test_id("card-grid")

        def pick(field: str, *cards: str) -> None:
            phone.get_by_test_id(f"ref-field-{field}").tap()
            for c in cards:
                grid.locator(f"[data-card='{c}']").tap()
            got = phone.get_by_test_id(f"ref-field-{field}").get_attribute("data-cards")
            assert sorted(str(got).split()) == sorted(cards), (field, got)

        pick("lead", "Ah")
        pick("hand", "Kh", "3c")
        pick("play", "3c")
        shots_phone("referee-filled")
        phone.get_by_test_id("ref-ask").tap()
        answer = phone.get_by_test_id("ref-answer")
        phone.wait_for_function(VERDICT % "illegal")
        assert "不合法" in answer.inner_text()
        answer.scroll_into_view_if_needed()
        shots_phone("referee-illegal")
        # the heart instead: legal
        phone.get_by_test_id("ref-field-play").tap()
        grid.locator("[data-card='3c']").tap()  # a second copy
        grid.locator("[data-card='3c']").tap()  # a third tap takes both copies away
        assert phone.get_by_test_id("ref-field-play").get_attribute("data-cards") == ""
        grid.locator("[data-card='Kh']").tap()
        phone.get_by_test_id("ref-ask").tap()
        phone.wait_for_function(VERDICT % "legal")
        shots_phone("referee-legal")

        # -- the organiser's page on the phone, and the referee tool on the desktop
        phone.goto(f"{server}/events")
        phone.get_by_test_id("event-row").first.wait_for()
        shots_phone("events-list")
        org.goto(f"{server}/referee?event={event_id}&round=1&table=1")
        org.get_by_test_id("penalty-form").wait_for()
        org.get_by_test_id("seg-op-trick").click()
        for i, cards in enumerate((["Ah"], ["3h"], ["2s"], ["Kh"])):
            org.get_by_test_id(f"ref-field-plays-{i}").click()
            for c in cards:
                org.get_by_test_id("card-grid").locator(f"[data-card='{c}']").click()
        org.get_by_test_id("ref-ask").click()
        org.wait_for_function(VERDICT % "answer")
        assert "Play 3 wins" in org.get_by_test_id("ref-answer").inner_text()  # the trump 2s (3rd) wins
        shots_org("referee")

        # -- the organiser's page and the referee's penalty form at phone width
        org.set_viewport_size({"width": 390, "height": 844})
        org.goto(f"{server}/events/{event_id}/organise")
        org.get_by_test_id("org-rounds").wait_for()
        org.get_by_test_id("pairing").first.wait_for()
        shots_org("phone-organise")
        org.get_by_test_id("result-form").scroll_into_view_if_needed()
        shots_org("phone-organise-result")
        org.get_by_test_id("penalty-form").scroll_into_view_if_needed()
        shots_org("phone-organise-penalty")
        org.goto(f"{server}/events")
        org.get_by_test_id("event-form").wait_for()
        org.get_by_test_id("seg-format-city").click()
        shots_org("phone-events-form")
    finally:
        org_ctx.close()
        phone_ctx.close()
        _copy_shots(folder / "desktop")
        _copy_shots(folder / "phone")
    assert not problems, problems


def test_the_organiser_page_sends_others_to_the_public_page(server: str, browser: Any) -> None:
    ctx = browser.new_context(locale="zh-CN", **PHONES["390x844"])
    page = ctx.new_page()
    try:
        page.goto(server + "/events/999999/organise")
        page.get_by_test_id("organise-gate").wait_for()
        assert page.get_by_test_id("public-link").get_attribute("href") == "/events/999999"
    finally:
        ctx.close()
