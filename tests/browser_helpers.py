"""What the browser tests share: chromium, a server in its own process, screenshots, and a player who taps.

The fixtures ``server`` (a server for a module's tests) and ``browser`` (chromium through Playwright)
are imported by each browser test module. Without a chromium the tests are skipped, except under CI,
where that is a failure.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_helpers import free_port

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("CHAODIPI_CHROMIUM", "/usr/bin/chromium")
#: How long a test waits for something the page is sure to show (a tap's effect, a banner, the next update): a
#: fraction of a second on an idle machine, seconds when other processes keep the cores busy (``make test`` runs
#: the compiled build's tests beside the browser tests). Only a failing test waits it out.
WAIT_MS = 60_000
#: The time limits of a browser test's table that a person plays (RULES §13): a test is never hurried by them, as
#: a limit missed on a busy machine would play for the person (and two in a row put the seat in 托管).
UNHURRIED = {"bury_seconds": 3600, "play_seconds": 3600, "fry_seconds": 3600}
ARTIFACTS = Path(__file__).resolve().parent.parent / "out" / "browser"
GOLDEN = Path(__file__).resolve().parent / "golden"
# Reduced motion: the page skips its fades, so that each screenshot shows a settled page.
VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}, "reduced_motion": "reduce"},
    "phone": {
        "viewport": {"width": 375, "height": 667},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
        "reduced_motion": "reduce",
    },
}


def _phone(width: int, height: int) -> dict[str, Any]:
    return {
        "viewport": {"width": width, "height": height},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
        "reduced_motion": "reduce",
    }


#: Phone sizes, portrait and landscape (the hand's tap targets are measured at each: tests/test_browser_phone.py).
PHONES: dict[str, dict[str, Any]] = {
    "360x640": _phone(360, 640),
    "375x667": _phone(375, 667),
    "390x844": _phone(390, 844),
    "667x375": _phone(667, 375),
}


def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"no chromium at {CHROMIUM}: `make browser` installs Debian's chromium")
        pytest.skip(f"no chromium at {CHROMIUM} (`make browser` installs it)")
    return CHROMIUM


def serve(db: Path, port: int, *pace: str) -> subprocess.Popen[bytes]:
    """``chaodipi serve`` in its own process on ``db``; returns once it answers."""
    exe = Path(sys.executable).with_name("chaodipi")
    command = [str(exe), "serve", "--port", str(port), "--db", f"sqlite:///{db}", *pace]
    with (db.parent / "server.log").open("a") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(400):
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        if proc.poll() is not None:
            raise RuntimeError(f"the server stopped: {(db.parent / 'server.log').read_text()}")
        time.sleep(0.05)
    raise RuntimeError("the server did not start")


#: Quick bots and a short pause between hands: a test's pace.
PACE = ("--deal-ms", "10", "--bot-delay-ms", "30", "--hand-pause-ms", "2500", "--trick-pause-ms", "300")


@contextlib.contextmanager
def serving(folder: Path, *pace: str) -> Iterator[str]:
    """``chaodipi serve`` with this pace on a database in ``folder``; yields its base URL, stops it after."""
    port = free_port()
    proc = serve(folder / "web.db", port, *pace)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(15)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server for the module's tests."""
    with serving(tmp_path_factory.mktemp("browser"), *PACE) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = chromium_path()
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield chromium
        chromium.close()


class Shots:
    """Numbered screenshots of each step, kept as test artifacts."""

    def __init__(self, page: Any, folder: Path) -> None:
        self.page, self.folder, self.n = page, folder, 0
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.png"):
            old.unlink()

    def __call__(self, name: str) -> None:
        self.n += 1
        self.page.screenshot(path=str(self.folder / f"{self.n:02d}-{name}.png"))


class Player:
    """A person at the table page: reads what the page shows and answers each decision by tapping."""

    def __init__(self, page: Any, touch: bool, shots: Shots) -> None:
        self.page = page
        self.touch = touch
        self.shots = shots
        self.done: dict[str, int] = {}
        self.errors: list[str] = []

    def press(self, locator: Any, timeout: float = WAIT_MS) -> None:
        if self.touch:
            locator.tap(timeout=timeout)
        else:
            locator.click(timeout=timeout)

    def testid(self, name: str) -> Any:
        return self.page.get_by_test_id(name)

    def table_attr(self, name: str) -> str:
        return str(self.testid("table").get_attribute(name) or "")

    def cards(self) -> Any:
        return self.testid("hand").locator("[data-card]")

    def toggle(self, i: int, selected: bool) -> None:
        """Tap the hand's ``i``-th card unless it is already ``selected`` (or not), and wait until the page shows
        it so. (Each look finds the card anew: the page draws the hand again on every update.)"""
        want = "true" if selected else "false"
        if self.cards().nth(i).get_attribute("data-selected") == want:
            return
        self.press(self.cards().nth(i))
        self.page.wait_for_function(
            "([i, want]) => document.querySelectorAll('[data-testid=hand] [data-card]')[i]?.dataset.selected === want",
            arg=[i, want],
            timeout=WAIT_MS,
        )

    def select(self, indices: list[int]) -> None:
        for i in indices:
            self.toggle(i, True)

    def clear(self) -> None:
        for i in range(self.cards().count()):
            self.toggle(i, False)

    def settle(self) -> None:
        """Wait until the page has drawn two frames: the input sent before has been handled (a tap that should
        change nothing has had its chance to change something)."""
        self.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")

    def visible(self, name: str) -> bool:
        loc = self.testid(name)
        return loc.count() > 0 and loc.first.is_visible()

    def step(self) -> None:
        """Answer whatever the page asks now (or nothing)."""
        if self.visible("settlement") and "settlement" not in self.done:
            self.done["settlement"] = int(self.table_attr("data-hand"))
            return
        bids = self.testid("bid-option")
        if bids.count() and self.done.get("bid", 0) < 6:
            # the strongest bid offered (5h 5h with the test's seed): to hold the kitty. A bot may bid
            # first and take the option away: then there is nothing to press, and the page moves on.
            with contextlib.suppress(playwright_api.TimeoutError, playwright_api.Error):
                self.press(bids.last, timeout=5000)
                self.done["bid"] = self.done.get("bid", 0) + 1
            self.page.wait_for_timeout(150)
            return
        if not self.visible("turn-banner"):
            return
        kind = self.testid("turn-banner").get_attribute("data-kind")
        seq = self.table_attr("data-seq")
        if kind == "bury":
            self.clear()
            self.select(list(range(8)))
            self.press(self.testid("bury-button"))
            self.done["bury"] = self.done.get("bury", 0) + 1
            self.wait_turn_over(seq)
        elif kind == "fry":
            fries = self.testid("fry-option")
            if fries.count():
                self.press(fries.first)
                self.done["fried"] = 1
            else:
                self.press(self.testid("pass-button"))
            self.done["fry"] = self.done.get("fry", 0) + 1
            self.wait_turn_over(seq)
        elif kind == "play":
            if "illegal" not in self.done and self.try_illegal():
                return
            self.play_legal()
            self.wait_turn_over(seq)

    def wait_turn_over(self, seq: str) -> None:
        """Wait until the table has moved on from ``seq`` (read before the player acted: the update may already
        be in), then look again; a table that stays put is looked at again after WAIT_MS as well."""
        with contextlib.suppress(playwright_api.TimeoutError):
            self.page.wait_for_function(
                "([seq]) => document.querySelector('[data-testid=table]')?.dataset.seq !== seq",
                arg=[seq],
                timeout=WAIT_MS,
            )

    def try_illegal(self) -> bool:
        """Select a play the rules refuse and send it: the page shows the engine's reason, nothing changes."""
        cards = self.cards()
        n = cards.count()
        playable = [cards.nth(i).get_attribute("data-playable") == "true" for i in range(n)]
        if all(playable):  # following a single when void: two cards of two side suits (sorted suit by suit)
            if self.leading():
                return False  # a lead: the page dims and refuses the cards that go with the selection in no lead
            codes = [str(cards.nth(i).get_attribute("data-card")) for i in range(n)]
            trumps = [cards.nth(i).get_attribute("data-trump") == "true" for i in range(n)]
            side = [i for i in range(n) if not trumps[i] and codes[i] not in ("SJ", "BJ", "5h")]
            pick = next(((a, b) for a in side for b in side if codes[a][-1] != codes[b][-1]), None)
            if pick is None:
                return False
            indices = list(pick)
        else:  # following: one card the rules do not allow now, with the others a legal play needs
            bad = playable.index(False)  # in no legal play: any selection holding it is refused
            indices = [bad, *[i for i in range(n) if playable[i]][: max(0, self.led() - 1)]]
        self.clear()
        seq = self.table_attr("data-seq")
        for i in indices:
            self.press(cards.nth(i))
        self.press(self.testid("play-button"))
        with contextlib.suppress(playwright_api.TimeoutError):
            confirm = self.page.get_by_role("button", name=re.compile("甩|throw|确定|OK", re.IGNORECASE))
            if confirm.count() and confirm.first.is_visible():
                self.press(confirm.first)
        banner = self.testid("error-banner")
        banner.wait_for(state="visible", timeout=WAIT_MS)
        text = banner.inner_text()
        assert text.strip(), "the refusal names a reason"
        assert self.table_attr("data-seq") == seq, "a refused play changes nothing"
        self.errors.append(text)
        self.shots("illegal-refused")
        self.done["illegal"] = 1
        self.clear()
        return True

    def play_legal(self) -> None:
        """Tap playable cards until the play button takes the selection, then play it."""
        trick = self.testid("current-trick")
        if trick.locator("[data-seat-play]").count() >= 2:  # the page marks whose play is winning so far
            self.done["winning"] = self.done.get("winning", 0) + 1
            assert trick.locator("[data-winning=true]").count() == 1
        self.clear()
        button = self.testid("play-button")
        for _ in range(40):
            if button.is_enabled() and self.selected() > 0 and (self.leading() or self.selection_complete()):
                break
            cards = self.cards()
            nxt = next(
                (
                    i
                    for i in range(cards.count())
                    if cards.nth(i).get_attribute("data-playable") == "true"
                    and cards.nth(i).get_attribute("data-selected") != "true"
                ),
                None,
            )
            if nxt is None:
                break
            self.select([nxt])
            if self.leading():
                break
        if not button.is_enabled():
            return  # the turn went by (the deadline): the next step looks again
        self.press(button)
        self.done["plays"] = self.done.get("plays", 0) + 1

    def selected(self) -> int:
        return int(self.testid("hand").locator("[data-selected=true]").count())

    def leading(self) -> bool:
        return bool(self.testid("current-trick").locator("[data-card]").count() == 0)

    def led(self) -> int:
        """How many cards the trick's lead has (0 when this player leads)."""
        return int(
            self.page.evaluate(
                "() => { const t = document.querySelector('[data-testid=current-trick]');"
                " const first = t && t.querySelector('[data-seat-play]');"
                " return first ? first.querySelectorAll('[data-card]').length : 0; }"
            )
        )

    def selection_complete(self) -> bool:
        led = self.led()
        return led > 0 and self.selected() == led


def open_record(page: Any, base: str, path: Path) -> None:
    """Upload a record file in the replay viewer and wait until its frames are drawn."""
    page.goto(f"{base}/replay")
    page.get_by_test_id("replay-upload").set_input_files(str(path))
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=replay]')?.dataset.frames) > 0", timeout=WAIT_MS
    )


@contextlib.contextmanager
def watched(context: Any, page: Any, folder: Path) -> Iterator[Shots]:
    """Screenshots into ``folder`` while a test drives ``page``: one more on a failure; then the context
    is closed, and the page must have had no script error (lost WebSockets aside)."""
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    shots = Shots(page, folder)
    try:
        yield shots
    except Exception:
        shots("failure")
        raise
    finally:
        context.close()
    assert not [p for p in problems if "WebSocket" not in p], problems
