"""A referee's penalty at an online event's table, in chromium (issue 37): the player's table page shows it in its
event log at once, with the rule, the offence and the amount, in Chinese and, after the language switch, in
English. Screenshots: ``out/browser/penalty/``."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from browser_helpers import ARTIFACTS, VIEWPORTS, WAIT_MS, Shots, browser, server

__all__ = ["browser", "server"]  # the fixtures, imported

PASSWORD = "correct horse battery"
LOG = "() => (document.querySelector('[data-testid=event-log]')?.textContent || '').includes(%s)"


#: Keeps the text of every notice (``.toast``) the page shows, in ``window.__toasts``.
TOASTS = """() => {
  window.__toasts = [];
  const keep = () => document.querySelectorAll('.toast').forEach((n) => window.__toasts.push(n.textContent));
  new MutationObserver(keep).observe(document.body, { childList: true, subtree: true, characterData: true });
}"""


def _account(base: str, username: str) -> httpx.Client:
    http = httpx.Client(base_url=base, timeout=30)
    r = http.post("/api/register", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text
    http.headers["X-CSRF-Token"] = r.json()["csrf"]
    return http


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_penalty_shows_in_the_players_event_log_in_their_language(server: str, browser: Any, size: str) -> None:
    org, ling = _account(server, f"pen_org_{size}"), _account(server, f"pen_ling_{size}")
    body = {"name": "Penalty cup", "format": "knockout", "online": True, "seed": 9, "best_of_three_from": 0}
    eid = org.post("/api/events", json=body).json()["id"]
    csv = f"name,player1,player2\nLing,pen_ling_{size},bot:rules\nBots,bot:rules,bot:rules\n"
    assert org.post(f"/api/events/{eid}/pairs/import", json={"csv": csv}).json()["added"] == 2
    assert org.post(f"/api/events/{eid}/rounds", json={}).status_code == 201
    assert org.post(f"/api/events/{eid}/rounds/1/publish", json={}).status_code == 200
    assert org.post(f"/api/events/{eid}/rounds/1/start", json={}).status_code == 200
    pairing = org.get(f"/api/events/{eid}").json()["rounds"][0]["pairings"][0]
    table, side = pairing["online_table"], "a" if pairing["a"] == 1 else "b"
    seat = ling.post(f"/api/tables/{table}/seats", json={}).json()
    memory = {"token": seat["token"], "seat": seat["seat"], "name": f"pen_ling_{size}"}
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    problems: list[str] = []
    try:
        context.add_init_script(f"localStorage.setItem('chaodipi.seat.{table}', {json.dumps(json.dumps(memory))})")
        page = context.new_page()
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.goto(f"{server}/t/{table}")
        page.get_by_test_id("table").wait_for()
        shots = Shots(page, ARTIFACTS / "penalty" / size)
        # the dealer is known once bidding ends: then the referee gives 20 points against Ling's pair
        end = time.monotonic() + 60
        while org.get(f"/api/tables/{table}").json()["phase"] not in ("bury", "fry", "play"):
            assert time.monotonic() < end, "bidding did not end"
            page.wait_for_timeout(200)
        # every notice the page shows from now on is kept, so that a busy machine cannot miss one (it lasts 5 s)
        page.evaluate(TOASTS)
        penalty = {"round": 1, "table": 1, "pair": side, "offence": "revoke", "cards": 2}
        r = org.post(f"/api/events/{eid}/penalties", json=penalty)
        assert r.status_code == 200 and r.json()["live"] is True, r.text
        page.wait_for_function(LOG % json.dumps("裁判判罚（§14.4）"), timeout=WAIT_MS)
        # the offence, from the schedule
        page.wait_for_function(LOG % json.dumps("吃苍蝇（有牌不跟）"), timeout=WAIT_MS)
        log = page.get_by_test_id("event-log").text_content() or ""
        assert "抓分方 −20 分" in log or "抓分方 +20 分" in log, log
        # and told at once in a notice, with the rule, the offence's words (once the schedule is in) and the amount
        page.wait_for_function(
            "() => window.__toasts.some((t) => t.includes('裁判判罚（§14.4）') && t.includes('吃苍蝇（有牌不跟）'))",
            timeout=WAIT_MS,
        )
        shots("penalty-zh")
        page.get_by_test_id("lang-switch").click()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        page.wait_for_function(LOG % json.dumps("Referee's penalty (§14.4)"), timeout=WAIT_MS)
        log = page.get_by_test_id("event-log").text_content() or ""
        assert "revoke found within the trick" in log and ("scoring side −20" in log or "scoring side +20" in log), log
        shots("penalty-en")
    finally:
        context.close()
        org.close()
        ling.close()
    assert not problems, problems
