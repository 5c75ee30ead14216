"""Events (赛事) in chromium: an organiser runs an event, a player follows it on a phone, a referee asks the tool.

An organiser registers and is logged in, opens /events, creates a physical knockout event with the form,
imports 8 pairs by CSV on the organiser's page, pairs round 1 (a draft the public does not see) and
publishes it. Meanwhile a player has the event's public page open on a phone (390×844): the pairings
appear there without a reload (the page polls the event's version). The organiser starts the round and
enters a table's result; the phone shows it and the standings. A penalty is given with the §14.4 form.
The referee's tool answers "is this follow legal" for a simple case both ways (a heart lead: a club is
refused while a heart is held, a heart is legal). Every name typed is shown as text, never as markup.
Screenshots of each page, phone and desktop: ``out/browser/events/`` (and /tmp/shots/ when it exists).

A second organiser runs the city contest's plan to its end with the organiser page's buttons and forms:
8 pairs, the quarter-finals, then 2 Swiss rounds among the 4 left, a forfeit and a game lost by penalty;
the finished event on a phone, and its standings' CSV (screenshots: ``out/browser/events-city/``).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from browser_helpers import ARTIFACTS, PHONES, VIEWPORTS, WAIT_MS, Shots, browser, server

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
    page.get_by_test_id("auth-dialog").wait_for(state="detached", timeout=WAIT_MS)
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
        org.wait_for_function("() => document.querySelectorAll('[data-testid=org-pair]').length === 8", timeout=WAIT_MS)
        assert org.get_by_test_id("import-flash").inner_text().strip().startswith("8")
        shots_org("organise-pairs")

        # -- pair round 1: a draft with its reasons, not yet on the public page
        org.get_by_test_id("pair-next").click()
        org.get_by_test_id("round-publish").wait_for(timeout=WAIT_MS)
        assert org.locator("[data-testid=org-rounds] [data-testid=pairing]").count() == 4
        assert org.locator("[data-testid=org-rounds] [data-testid=pairing-why]").count() >= 1
        shots_org("organise-draft")
        phone.wait_for_timeout(3500)
        assert phone.get_by_test_id("pairing").count() == 0, "a draft is the organiser's only"
        shots_phone("public-registering")

        # -- publish: the phone shows the pairings without a reload
        org.get_by_test_id("round-publish").click()
        org.get_by_test_id("round-start").wait_for(timeout=WAIT_MS)
        phone.wait_for_function(
            "() => document.querySelectorAll('[data-testid=pairing]').length === 4", timeout=WAIT_MS
        )
        assert phone.evaluate("() => window.__sameDocument === true"), "the page was reloaded"
        text = phone.get_by_test_id("current-round").inner_text()
        assert "第 1 桌" in text or "桌" in text, text
        assert XSS in phone.get_by_test_id("event-page").inner_text()  # a pair's name, as text
        assert phone.locator("img[src=x]").count() == 0
        shots_phone("public-published")

        # -- start the round; enter table 1's result; the phone shows it
        org.get_by_test_id("round-start").click()
        org.get_by_test_id("enter-result").first.wait_for(timeout=WAIT_MS)
        org.get_by_test_id("enter-result").first.click()
        org.get_by_test_id("result-winner-0").select_option("a")
        org.get_by_test_id("result-a-level-0").select_option("A")
        org.get_by_test_id("result-b-level-0").select_option("9")
        org.get_by_test_id("result-submit").click()
        org.wait_for_function(
            "() => document.querySelector('[data-testid=result-flash]')?.classList.contains('ev-ok')", timeout=WAIT_MS
        )
        phone.wait_for_function(
            "() => document.querySelector('[data-testid=pairing-result]') !== null", timeout=WAIT_MS
        )
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
        org.get_by_test_id("penalty-row").first.wait_for(timeout=WAIT_MS)

        # -- table 1 has its result: changing it is a correction, which says why (issue 37)
        org.get_by_test_id("enter-result").first.click()
        org.get_by_test_id("result-reason").wait_for(timeout=WAIT_MS)
        org.get_by_test_id("result-winner-0").select_option("b")
        org.get_by_test_id("result-a-level-0").select_option("9")
        org.get_by_test_id("result-b-level-0").select_option("A")
        org.get_by_test_id("result-submit").click()
        org.wait_for_function(
            "() => document.querySelector('[data-testid=result-flash]')?.classList.contains('form-error')",
            timeout=WAIT_MS,
        )
        org.get_by_test_id("result-reason").fill("the sides were swapped")
        org.get_by_test_id("result-submit").click()
        org.wait_for_function(
            "() => /corrected/.test(document.querySelector('[data-testid=result-flash]')?.textContent || '')",
            timeout=WAIT_MS,
        )
        org.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=log-entry]')]"
            ".some((e) => e.textContent.includes('the sides were swapped'))",
            timeout=WAIT_MS,
        )
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


#: The city contest's pairs: Tigers and Sharks are club-mates (Shanghai), kept apart with the forbid form.
CITY_PAIRS = [
    ("Tigers", "amy", "ben", "Shanghai"),
    ("Dragons", "cai", "dong", "Beijing"),
    ("Phoenix", "eva", "fan", "Hangzhou"),
    ("Pandas", "gao", "hui", "Chengdu"),
    ("Sharks", "ivy", "jun", "Shanghai"),
    ("Lotus", "kai", "lin", "Suzhou"),
    ("Comets", "mei", "ning", ""),
    ("Cranes", "ou", "ping", "Nanjing"),
]
CLUB_MATES = ("Tigers", "Sharks")
#: The losing pair's final level at each table, in turn (the winner ends on A).
LOSER_LEVELS = ["9", "J", "5", "Q", "7", "K", "3", "T"]


def _round_sel(n: int) -> str:
    return f"[data-testid=org-round][data-round='{n}']"


def _tables(page: Any, n: int) -> list[dict[str, Any]]:
    """The pairings of round n on the organiser's page: table, both pairs' ids and names, the winner's side."""
    return list(
        page.evaluate(
            """(sel) => [...document.querySelectorAll(sel + ' [data-testid=pairing]')].map((c) => {
                const sides = [...c.querySelectorAll('.ev-sides > .ev-pair')];
                return {table: Number(c.dataset.table),
                        ids: sides.map((s) => s.dataset.pair),
                        names: sides.map((s) => s.querySelector('.ev-pair-name').textContent),
                        winner: sides.findIndex((s) => s.classList.contains('winner')),
                        done: c.querySelector('[data-testid=pairing-result]') !== null};
            })""",
            _round_sel(n),
        )
    )


def _points(page: Any) -> dict[str, int]:
    """The organiser page's standings: each pair's points, by the pair's id."""
    rows = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=standing-row]')]
            .map((r) => [r.dataset.pair, r.querySelectorAll('td')[2].textContent])"""
    )
    return {pid: int(points) for pid, points in rows}


def test_an_organiser_runs_the_city_contests_plan_end_to_end(server: str, browser: Any) -> None:
    """8 pairs of a physical city event (swiss_from 4, 2 Swiss rounds, no best-of-three): the quarter-finals
    (4 tables, one forfeit), then 2 Swiss rounds of 2 tables, every step with the organiser page's buttons
    and forms; a game lost by penalty changes the standings; the finished event on a phone ranks the Swiss
    pairs first, and the standings' CSV has the 8 pairs."""
    started = time.monotonic()
    problems: list[str] = []
    org_ctx = browser.new_context(locale="en-GB", **VIEWPORTS["desktop"])
    phone_ctx = browser.new_context(locale="zh-CN", **PHONES["390x844"])
    org = org_ctx.new_page()
    phone = phone_ctx.new_page()
    for p in (org, phone):
        p.on("pageerror", lambda exc: problems.append(str(exc)))
        p.on("dialog", lambda d: problems.append("a dialog opened: " + d.message))
        p.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    org.add_init_script("localStorage.setItem('chaodipi.lang', 'en')")
    folder = ARTIFACTS / "events-city"
    shots_org = Shots(org, folder / "desktop")
    shots_phone = Shots(phone, folder / "phone")
    try:
        # -- create the event: city, physical tables, Swiss from 4 pairs, 2 Swiss rounds, no best-of-three
        org.goto(server + "/events")
        org.get_by_test_id("events-page").wait_for()
        _register(org)
        org.get_by_test_id("event-form").wait_for()
        org.get_by_test_id("event-name").fill("City contest")
        org.get_by_test_id("seg-format-city").click()
        org.get_by_test_id("seg-online-physical").click()
        org.get_by_test_id("event-seed").fill("0")  # (the draw this test knows keeps the club-mates apart)
        for key, value in (("swiss-from", "4"), ("swiss-rounds", "2"), ("best-of-three-from", "0")):
            box = org.get_by_test_id(f"event-{key}")
            box.fill(value)
            box.dispatch_event("change")
        org.get_by_test_id("event-create-submit").click()
        org.wait_for_url("**/events/*/organise")
        event_id = org.url.rstrip("/").split("/")[-2]
        org.get_by_test_id("organise-page").wait_for()
        options = org.request.get(f"{server}/api/events/{event_id}").json()["options"]
        assert (options["format"], options["online"], options["seed"]) == ("city", False, 0), options
        assert (options["swiss_from"], options["swiss_rounds"], options["best_of_three_from"]) == (4, 2, 0), options

        # -- 8 pairs by CSV; the two club-mates kept apart with the forbid form
        csv_text = "name,player1,player2,club\n" + "\n".join(",".join(row) for row in CITY_PAIRS)
        org.get_by_test_id("import-csv").fill(csv_text)
        org.get_by_test_id("import-submit").click()
        org.wait_for_function("() => document.querySelectorAll('[data-testid=org-pair]').length === 8", timeout=WAIT_MS)
        org.get_by_test_id("forbid-form").locator("xpath=..").locator("summary").click()
        org.get_by_test_id("forbid-a").select_option(label=CLUB_MATES[0])
        org.get_by_test_id("forbid-b").select_option(label=CLUB_MATES[1])
        org.get_by_test_id("forbid-submit").click()
        flash = org.get_by_test_id("forbid-flash")
        flash.wait_for(timeout=WAIT_MS)
        assert "ev-ok" in str(flash.get_attribute("class")), flash.inner_text()
        assert CLUB_MATES[0] in flash.inner_text() and CLUB_MATES[1] in flash.inner_text()

        # -- every round until the event is over: pair, publish, start, every table's result
        sizes: list[int] = []
        swiss_pairs: set[str] = set()
        swiss_names: set[str] = set()
        forfeit_given = penalty_given = False
        status = org.get_by_test_id("event-status")
        while status.get_attribute("data-status") != "finished":
            n = len(sizes) + 1
            assert n <= 3, "the event goes on past its plan"
            org.get_by_test_id("pair-next").click()
            org.locator(_round_sel(n)).get_by_test_id("round-publish").click(timeout=WAIT_MS)
            org.locator(_round_sel(n)).get_by_test_id("round-start").click(timeout=WAIT_MS)
            org.locator(_round_sel(n)).get_by_test_id("enter-result").first.wait_for(timeout=WAIT_MS)
            tables = _tables(org, n)
            sizes.append(len(tables))
            if n > 1:
                swiss_pairs |= {pid for t in tables for pid in t["ids"]}
                swiss_names |= {name for t in tables for name in t["names"]}
                assert set(tables[0]["names"]) != set(CLUB_MATES) and set(tables[1]["names"]) != set(CLUB_MATES)
            for i, tie in enumerate(tables):
                # the club-mates win their knockout ties (both reach the Swiss stage), else pair a or b in turn
                mate = [s for s in (0, 1) if tie["names"][s] in CLUB_MATES]
                win = mate[0] if n == 1 and len(mate) == 1 else (tie["table"] + n) % 2
                side, other = "ab"[win], "ab"[1 - win]
                card = org.locator(_round_sel(n)).locator(f"[data-testid=pairing][data-table='{tie['table']}']")
                card.get_by_test_id("enter-result").click()
                assert org.get_by_test_id("result-round").input_value() == str(n)
                assert org.get_by_test_id("result-table").input_value() == str(tie["table"])
                if n == 1 and not mate and not forfeit_given:
                    org.get_by_test_id(f"seg-forfeit-{other}").click()  # the losing pair did not come
                    forfeit_given = True
                else:
                    org.get_by_test_id("result-winner-0").select_option(side)
                    org.get_by_test_id(f"result-{side}-level-0").select_option("A")
                    org.get_by_test_id(f"result-{other}-level-0").select_option(LOSER_LEVELS[(i + 3 * n) % 8])
                org.get_by_test_id("result-submit").click()
                card.get_by_test_id("pairing-result").wait_for(timeout=WAIT_MS)
                assert _tables(org, n)[i]["winner"] == win
            org.wait_for_function(
                "(sel) => document.querySelector(`details:has(> ${sel}) > summary .ev-status`)?.dataset.status"
                " === 'finished'",
                arg=_round_sel(n),
                timeout=WAIT_MS,
            )
            if n == 2:
                # -- a penalty: Swiss 1's table 1, its winner loses the game: the standings change
                before = _points(org)
                tie = _tables(org, 2)[0]
                won = tie["winner"]
                org.locator(_round_sel(2)).locator("[data-testid=pairing][data-table='1']").get_by_test_id(
                    "give-penalty"
                ).click()
                assert org.get_by_test_id("penalty-round").input_value() == "2"
                assert org.get_by_test_id("penalty-table").input_value() == "1"
                org.get_by_test_id("penalty-pair").select_option("ab"[won])
                org.get_by_test_id("penalty-offence").select_option("other")
                org.get_by_test_id("penalty-game-lost").check()
                effect = org.get_by_test_id("penalty-effect").inner_text()
                assert tie["names"][won] in effect and "loses the game" in effect, effect
                org.get_by_test_id("penalty-note").fill("spoke about the cards")
                org.get_by_test_id("penalty-submit").click()
                org.get_by_test_id("penalty-row").first.wait_for(timeout=WAIT_MS)
                org.wait_for_function(
                    "([sel, id]) => document.querySelector(sel + \" [data-testid=pairing][data-table='1']"
                    ' .ev-pair.winner")?.dataset.pair === id',
                    arg=[_round_sel(2), tie["ids"][1 - won]],
                    timeout=WAIT_MS,
                )
                after = _points(org)
                a, b = tie["ids"][won], tie["ids"][1 - won]
                assert (before[a] - after[a], after[b] - before[b]) == (2, 2), (before, after)
                assert org.locator(_round_sel(2)).get_by_text("lost by penalty").count() == 1
                penalty_given = True
                shots_org("organise-penalty")
            # the round is over: the next round's button, or the end of the event
            org.wait_for_function(
                "() => document.querySelector('[data-testid=pair-next]') !== null"
                " || document.querySelector('[data-testid=event-status]')?.dataset.status === 'finished'",
                timeout=WAIT_MS,
            )
        assert sizes == [4, 2, 2], sizes
        assert forfeit_given and penalty_given
        assert set(CLUB_MATES) <= swiss_names, swiss_names  # both club-mates in the Swiss stage, never met there

        # -- the organiser's page at the end (desktop)
        org.evaluate("() => window.scrollTo(0, 0)")
        shots_org("organise-finished")
        org.get_by_test_id("standings").scroll_into_view_if_needed()
        shots_org("organise-standings")
        org.get_by_test_id("event-log").scroll_into_view_if_needed()
        shots_org("organise-log")
        org.goto(f"{server}/events/{event_id}")
        org.get_by_test_id("standings").wait_for()
        shots_org("public-finished")

        # -- the public page on a phone: finished, 8 pairs ranked, the Swiss stage's 4 first
        phone.goto(f"{server}/events/{event_id}")
        phone.get_by_test_id("standings").wait_for(timeout=WAIT_MS)
        assert phone.get_by_test_id("event-status").get_attribute("data-status") == "finished"
        rows = phone.evaluate(
            """() => [...document.querySelectorAll('[data-testid=standing-row]')]
                .map((r) => [r.dataset.pair, r.className, Number(r.querySelector('td').textContent)])"""
        )
        assert [rank for _, _, rank in rows] == list(range(1, 9)), rows
        assert {pid for pid, _, _ in rows[:4]} == swiss_pairs, (rows, swiss_pairs)
        assert all("st-in" in cls for _, cls, _ in rows[:4]) and all("st-out" in cls for _, cls, _ in rows[4:]), rows
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the phone page is {width}px wide"
        shots_phone("public-finished")
        phone.get_by_test_id("standings").scroll_into_view_if_needed()
        shots_phone("public-standings")

        # -- the CSV link answers CSV: a header and the 8 pairs
        href = phone.locator("a[href$='standings.csv']").first.get_attribute("href")
        answer = phone.request.get(server + str(href))
        assert answer.ok and answer.headers["content-type"].startswith("text/csv"), answer.headers
        lines = [line for line in answer.text().splitlines() if line.strip()]
        assert len(lines) == 9, lines
    finally:
        org_ctx.close()
        phone_ctx.close()
        _copy_shots(folder / "desktop")
        _copy_shots(folder / "phone")
    assert not problems, problems
    assert time.monotonic() - started < 60
