"""The table page keeps its own watch on its socket (issue 38), in chromium: Playwright sits between the page and
the server (``page.route_web_socket``) and, in the middle of a hand, stops passing the server's messages (and the
page's pings) on the page's connection without closing it, as a relaying server that lost its way to the table
may. The page pings after the welcome's ``keepalive_ms`` of silence, and after twice that opens a new socket by
itself, resuming with where it stood. Then a made-up update for the next hand that does not start at event 0 (its
start missed) makes the page close (4999) and take a whole snapshot. Screenshots: ``out/browser/keepalive/``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from browser_helpers import ARTIFACTS, PACE, UNHURRIED, VIEWPORTS, WAIT_MS, browser, serving, watched

__all__ = ["browser"]  # the fixture, imported

KEEPALIVE_S = 1.0
#: The bound on the page's new socket after the silence began: twice the keep-alive, and a margin for a busy machine.
BOUND_S = 2 * KEEPALIVE_S + 3
BACK = (
    "() => document.querySelector('[data-testid=connection-state]')?.dataset.state === 'open'"
    " && !document.querySelector('[data-testid=reconnecting]')"
)


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose clients ping after 1 s of silence."""
    with serving(tmp_path_factory.mktemp("keepalive"), *PACE, "--keepalive", str(KEEPALIVE_S)) as base:
        yield base


class Wire:
    """Every table socket of a page, passed through: what each said, and a switch that silences the first."""

    def __init__(self) -> None:
        self.conns: list[dict[str, Any]] = []

    def route(self, route: Any) -> None:
        conn: dict[str, Any] = {"route": route, "up": [], "down": [], "dropped": [], "silent": False, "closed": None}
        self.conns.append(conn)
        server = route.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if conn["silent"] and data.get("type") == "ping":
                conn["dropped"].append(data)  # (the table would answer it: not even that comes back)
                return
            conn["up"].append(data)
            server.send(message)

        def from_server(message: str | bytes) -> None:
            if conn["silent"]:
                return
            conn["down"].append(json.loads(message))
            route.send(message)

        def closed(code: int | None, reason: str | None) -> None:
            if conn["closed"] is None:  # (the page's code; Playwright tells the close's end again, without one)
                conn["closed"] = code
                server.close()

        route.on_message(from_page)
        server.on_message(from_server)
        route.on_close(closed)


def _until(page: Any, done: Any, limit_s: float, what: str) -> float:
    """Wait (letting Playwright deliver the sockets' messages) until ``done()``; returns the seconds it took."""
    start = time.monotonic()
    while not done():
        assert time.monotonic() - start < limit_s, f"{what}: not within {limit_s} s"
        page.wait_for_timeout(50)
    return time.monotonic() - start


@pytest.mark.parametrize("size", ["phone"])  # (the logic is the same at every size: the phone, where it matters most)
def test_a_silent_socket_is_replaced_and_a_missed_hand_start_resyncs(quick: str, browser: Any, size: str) -> None:
    rules = {"preset": "anchao", "set": {"declare_seconds": 0, **UNHURRIED}}  # the table waits for the person
    made = httpx.post(f"{quick}/api/tables", json={"rules": rules, "seed": 5, "bots": {"1": "rules", "2": "rules"}})
    tid = made.json()["id"]
    seat = httpx.post(f"{quick}/api/tables/{tid}/seats", json={"name": "小明", "seat": 0}).json()
    httpx.post(f"{quick}/api/tables/{tid}/seats", json={"bot": "rules", "seat": 3})
    context = browser.new_context(locale="zh-CN", **VIEWPORTS[size])
    memory = {"token": seat["token"], "seat": 0, "name": "小明"}
    context.add_init_script(f"localStorage.setItem('chaodipi.seat.{tid}', {json.dumps(json.dumps(memory))})")
    page = context.new_page()
    wire = Wire()
    page.route_web_socket(re.compile(r"/ws/tables/\d+$"), wire.route)
    with watched(context, page, ARTIFACTS / "keepalive" / size) as shots:
        page.goto(f"{quick}/t/{tid}")
        page.wait_for_function(
            BACK + " && Number(document.querySelector('[data-testid=table]')?.dataset.hand) >= 1"
            " && ['deal', 'countdown', 'bury', 'fry', 'play'].includes("
            "document.querySelector('[data-testid=table]')?.dataset.phase)",
            timeout=WAIT_MS,
        )
        first = wire.conns[0]
        assert first["down"][0]["type"] == "welcome" and first["down"][0]["pace"]["keepalive_ms"] == 1000
        hand = page.get_by_test_id("table").get_attribute("data-hand")
        shots("before")
        # the server's side goes silent, the socket stays open: the page pings, then opens a new socket itself
        first["silent"] = True
        took = _until(page, lambda: len(wire.conns) >= 2, BOUND_S, "a new socket after the silence")
        pings = [m for m in first["up"] + first["dropped"] if m.get("type") == "ping"]
        answered = {m.get("id") for m in first["down"] if m.get("type") == "pong"}
        assert [p for p in pings if p.get("id") not in answered], "the page pinged before giving the socket up"
        _until(page, lambda: first["closed"] is not None, 5, "the silent socket closed")
        assert 4000 <= first["closed"] <= 4999, first["closed"]
        second = wire.conns[1]
        _until(page, lambda: second["up"] and second["down"], 10, "the new socket's hello and welcome")
        hello, welcome = second["up"][0], second["down"][0]
        assert hello["type"] == "hello" and {"seq", "hand", "events"} <= set(hello), hello
        assert welcome["type"] == "welcome" and welcome["resumed"] is True, welcome
        assert welcome["events_from"] == hello["events"]
        page.wait_for_function(BACK, timeout=WAIT_MS)
        assert page.get_by_test_id("table").get_attribute("data-hand") == hand
        assert page.get_by_test_id("hand").locator("[data-card]").count() > 0
        shots("after-silent-reconnect")
        print(f"{size}: a new socket {took:.2f} s after the silence began (keep-alive {KEEPALIVE_S} s)")
        # an update for the next hand whose events do not start at 0: the start of that hand was missed (a gap)
        last = [m for m in second["down"] if m["type"] in ("welcome", "update") and m["view"]][-1]
        made_up = {
            **{k: last[k] for k in ("seq", "game", "deadline", "view")},
            "type": "update",
            "hand": last["hand"] + 1,
            "events_from": 3,
            "events": [],
        }
        second["route"].send(json.dumps(made_up))
        _until(page, lambda: second["closed"] is not None, 10, "the socket closed on the gap")
        assert second["closed"] == 4999
        _until(page, lambda: len(wire.conns) >= 3 and wire.conns[2]["down"], 10, "a full snapshot")
        third = wire.conns[2]
        assert not {"hand", "events"} & set(third["up"][0]), third["up"][0]  # no resume: the whole list
        assert third["down"][0]["type"] == "welcome" and third["down"][0]["resumed"] is False
        page.wait_for_function(BACK, timeout=WAIT_MS)
        assert page.get_by_test_id("table").get_attribute("data-hand") == hand
        shots("after-gap")
