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

import contextlib
import json
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


def _chromium() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"no chromium at {CHROMIUM}: `make browser` installs Debian's chromium")
        pytest.skip(f"no chromium at {CHROMIUM} (`make browser` installs it)")
    return CHROMIUM


def _serve(db: Path, port: int, *pace: str) -> subprocess.Popen[bytes]:
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
PACE = ("--deal-ms", "10", "--bot-delay-ms", "30", "--hand-pause-ms", "2500")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server for the module's tests."""
    port = free_port()
    proc = _serve(tmp_path_factory.mktemp("browser") / "web.db", port, *PACE)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(15)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = _chromium()
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

    def press(self, locator: Any, timeout: float = 10_000) -> None:
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

    def select(self, indices: list[int]) -> None:
        cards = self.cards()
        for i in indices:
            card = cards.nth(i)
            if card.get_attribute("data-selected") != "true":
                self.press(card)
                self.page.wait_for_function(
                    "([i]) => document.querySelectorAll('[data-testid=hand] [data-card]')[i]"
                    "?.dataset.selected === 'true'",
                    arg=[i],
                    timeout=5000,
                )

    def clear(self) -> None:
        for i in range(self.cards().count()):
            card = self.cards().nth(i)
            if card.get_attribute("data-selected") == "true":
                self.press(card)

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
                self.press(bids.last, timeout=1500)
                self.done["bid"] = self.done.get("bid", 0) + 1
            self.page.wait_for_timeout(150)
            return
        if not self.visible("turn-banner"):
            return
        kind = self.testid("turn-banner").get_attribute("data-kind")
        if kind == "bury":
            self.clear()
            self.select(list(range(8)))
            self.press(self.testid("bury-button"))
            self.done["bury"] = self.done.get("bury", 0) + 1
            self.wait_turn_over()
        elif kind == "fry":
            fries = self.testid("fry-option")
            if fries.count():
                self.press(fries.first)
                self.done["fried"] = 1
            else:
                self.press(self.testid("pass-button"))
            self.done["fry"] = self.done.get("fry", 0) + 1
            self.wait_turn_over()
        elif kind == "play":
            if "illegal" not in self.done and self.try_illegal():
                return
            self.play_legal()
            self.wait_turn_over()

    def wait_turn_over(self) -> None:
        seq = self.table_attr("data-seq")
        with contextlib.suppress(playwright_api.TimeoutError):
            self.page.wait_for_function(
                "([seq]) => document.querySelector('[data-testid=table]')?.dataset.seq !== seq", arg=[seq], timeout=5000
            )

    def try_illegal(self) -> bool:
        """Select a play the rules refuse and send it: the page shows the engine's reason, nothing changes."""
        cards = self.cards()
        n = cards.count()
        playable = [cards.nth(i).get_attribute("data-playable") == "true" for i in range(n)]
        if all(playable):  # leading: two cards of two side suits (the hand is sorted trumps first, suit by suit)
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
        banner.wait_for(state="visible", timeout=5000)
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
                timeout=10000,
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
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    shots = Shots(page, ARTIFACTS / size)
    try:
        _game_in_browser(page, server, shots, touch=size == "phone")
    except Exception:
        shots("failure")
        raise
    finally:
        context.close()
    assert not [p for p in problems if "WebSocket" not in p], problems


def _game_in_browser(page: Any, base: str, shots: Shots, *, touch: bool) -> None:
    player = Player(page, touch, shots)
    # the lobby: a 明炒 table, the declaring countdown shortened to 1 s as a house rule
    page.goto(base + "/")
    player.testid("lobby").wait_for()
    shots("lobby")
    player.testid("player-name").fill("测试员")
    player.press(player.testid("room-mingchao"))
    player.press(player.testid("rules-toggle"))
    # seed 32 deals seat 0 both 5h by the 24th card: the strongest bid, so this player holds the kitty
    player.testid("seed").fill("32")
    seconds = player.testid("rules-editor").locator('[data-option="declare_seconds"]')
    seconds.fill("1")
    seconds.dispatch_event("change")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=overrides-summary]')?.textContent.includes('1')", timeout=5000
    )
    shots("house-rules")
    for seat in (1, 2, 3):
        assert player.testid(f"bot-seat-{seat}").input_value() == "rules"
    player.press(player.testid("create-table"))
    page.wait_for_url(re.compile(r"/t/\d+$"), timeout=10000)
    table_id = int(page.url.rsplit("/", 1)[1])
    player.testid("table").wait_for()
    info = httpx.get(f"{base}/api/tables/{table_id}").json()
    assert info["rules"] == {"preset": "mingchao", "set": {"declare_seconds": 1}}
    assert info["games"] == 1
    assert [s["kind"] for s in info["seats"]] == ["player", "bot", "bot", "bot"]
    # one hand played through the page, with a reload in the middle
    _until(player, {"bid", "bury", "fry", "illegal", "reload", "settlement"}, 420, shots)
    assert player.errors and all(e.strip() for e in player.errors)
    assert player.done.get("winning", 0) > 0
    # 托管 plays on to the end of the game
    player.press(player.testid("auto-toggle"))
    page.wait_for_function("() => !!document.querySelector('[data-testid=seat-auto-0]')", timeout=10000)
    shots("auto-play")
    player.testid("game-over").wait_for(timeout=600_000)
    shots("game-over")
    # the replay viewer: the finished game, trick by trick, from all seats and from one
    player.press(player.testid("replay-link"))
    page.wait_for_url(re.compile(rf"/replay/{table_id}/1$"), timeout=10000)
    root = player.testid("replay")
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=replay]')?.dataset.frames) > 0", timeout=30000
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
    proc = _serve(db, port, *slow)
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
        page.get_by_test_id("reconnecting").wait_for(state="visible", timeout=15000)
        shots = Shots(page, ARTIFACTS / "reconnect")
        shots("reconnecting")
        proc = _serve(db, port, *slow)
        page.get_by_test_id("reconnecting").wait_for(state="hidden", timeout=30000)
        page.wait_for_function(
            "() => document.querySelector('[data-testid=connection-state]')?.dataset.state === 'open'", timeout=30000
        )
        assert page.get_by_test_id("table").get_attribute("data-hand") == hand
        assert page.get_by_test_id("table").get_attribute("data-seat") == "0"
        seq = int(page.get_by_test_id("table").get_attribute("data-seq") or 0)
        page.wait_for_function(
            f"() => Number(document.querySelector('[data-testid=table]')?.dataset.seq) > {seq}", timeout=30000
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
        page.goto(f"{server}/replay")
        page.get_by_test_id("replay-upload").set_input_files(str(GOLDEN / "kangqi-seed7.json"))
        root = page.get_by_test_id("replay")
        page.wait_for_function(
            "() => Number(document.querySelector('[data-testid=replay]')?.dataset.frames) > 0", timeout=30000
        )
        assert page.locator("html").get_attribute("lang") == "zh"
        shots("uploaded")
        frame = int(root.get_attribute("data-frame") or 0)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert int(root.get_attribute("data-frame") or 0) == frame + 2
        page.keyboard.press("End")
        page.get_by_test_id("replay-result").wait_for()
        page.get_by_test_id("lang-switch").click()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        assert "Replay" in page.get_by_role("banner").inner_text() or "Replay" in page.inner_text("body")
        shots("english")
        # a record that does not replay: the engine's reason, in words
        bad = json.loads((GOLDEN / "kangqi-seed7.json").read_text())
        bad["hands"][0]["actions"][-1]["cards"] = "BJ"
        path = ARTIFACTS / "upload" / "bad.json"
        path.write_text(json.dumps(bad))
        page.goto(f"{server}/replay")
        page.get_by_test_id("replay-upload").set_input_files(str(path))
        error = page.get_by_test_id("replay-error")
        error.wait_for(timeout=15000)
        assert "hand 1" in error.inner_text()
        shots("refused")
    finally:
        context.close()
