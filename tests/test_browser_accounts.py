"""Accounts, rooms, the credits ledger, leaderboards, spectators and chat in the browser (issue 21).

A person registers in the page (a password too short is refused in Chinese first, and on the desktop
a name already taken is refused by the server, in Chinese), quick-joins the 暗炒房 with bots, plays a
hand by tapping legal cards, leaves the next hand early (逃跑), opens their player page from the
header and finds the escape penalty in the ledger, then opens the room's leaderboard and finds
themselves there. Then a second browser watches a table as a spectator (``/t/{id}?watch=1`` from
the lobby's 观战 button): no hand, no action buttons, the 观战中 banner and how many tricks behind;
it sees the player's chat lines, a quick phrase worded in Chinese, and a line of HTML shown as text;
it mutes the player and the lines go. Both at desktop size (1280×800) and on a phone (390×844).
Screenshots: ``out/browser/accounts-<size>/`` and ``out/browser/spectator-<size>/``.
"""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import quote

import pytest

from browser_helpers import (
    ARTIFACTS,
    PHONES,
    VIEWPORTS,
    WAIT_MS,
    Player,
    Shots,
    browser,
    playwright_api,
    server,
    watched,
)

__all__ = ["browser", "server"]  # the fixtures, imported

SIZES: dict[str, dict[str, Any]] = {"desktop": VIEWPORTS["desktop"], "phone": PHONES["390x844"]}
XSS = "<b>x</b><img src=x onerror=alert(1)>"
#: In the page: whether a hand after the first is in its play and a card of it is on the table.
_CARD_PLAYED = """() => {
  const t = document.querySelector('[data-testid=table]');
  const played = '[data-testid=current-trick] [data-card], [data-testid=finished-trick] [data-card]';
  return !!t && Number(t.dataset.hand) >= 2 && t.dataset.phase === 'play'
    && !document.querySelector('[data-testid=settlement]') && document.querySelectorAll(played).length > 0;
}"""


def _unique(prefix: str) -> str:
    """A username no other test of this server has taken (2–16 characters)."""
    return f"{prefix}{int(time.time() * 1000) % 100000:05d}"


def _register(page: Any, player: Player, username: str, *, phone: bool) -> None:
    """Register in the dialog: a short password is refused (in the page, in Chinese), then it works."""
    if phone:  # a phone's header has 登录 only: the dialog's tab registers
        player.press(player.testid("login-button"))
        player.press(player.testid("auth-tab-register"))
    else:
        player.press(player.testid("register-button"))
    dialog = player.testid("auth-dialog")
    dialog.wait_for()
    player.testid("auth-username").fill(username)
    player.testid("auth-password").fill("short")
    player.press(player.testid("auth-submit"))
    error = player.testid("auth-error")
    error.wait_for(state="visible")
    assert "密码至少" in error.inner_text(), error.inner_text()
    player.testid("auth-password").fill("a-long-password")
    player.shots("register")
    player.press(player.testid("auth-submit"))
    dialog.wait_for(state="detached", timeout=WAIT_MS)
    page.wait_for_function(
        "([name]) => document.querySelector('[data-testid=account-bar]')?.dataset.state === 'in'"
        " && document.querySelector('[data-testid=account-name]')?.getAttribute('href') === "
        "'/p/' + encodeURIComponent(name)",
        arg=[username],
        timeout=WAIT_MS,
    )


def _play_a_hand(page: Any, player: Player, limit_s: float = 120) -> None:
    """Tap through the first hand until its settlement shows, then say ready."""
    end = time.monotonic() + limit_s
    while "settlement" not in player.done:
        assert time.monotonic() < end, f"the hand did not end in time: {player.done}"
        before = player.done.get("plays", 0)
        player.step()
        if player.done.get("plays", 0) == 1 and before == 0:
            player.shots("playing")
        page.wait_for_timeout(60)
    assert player.done.get("plays", 0) >= 1, player.done
    player.shots("settlement")
    player.press(player.testid("ready-button"))


def _until(page: Any, probe: str, what: str, limit_s: float = 90) -> None:
    """Reload the page until `probe` (a JS expression) holds."""
    end = time.monotonic() + limit_s
    while True:
        try:
            page.wait_for_function(f"() => {probe}", timeout=3000)
            return
        except playwright_api.TimeoutError as exc:
            if time.monotonic() > end:
                raise AssertionError(f"{what}: not there after {limit_s} s") from exc
            page.reload()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_person_registers_plays_escapes_and_finds_the_penalty_and_the_leaderboard(
    server: str, browser: Any, size: str
) -> None:
    phone = size == "phone"
    context = browser.new_context(locale="zh-CN", **SIZES[size])
    page = context.new_page()
    with watched(context, page, ARTIFACTS / f"accounts-{size}") as shots:
        player = Player(page, phone, shots)
        player.done["illegal"] = 1  # the refusal of an illegal play is tests/test_browser.py's
        username = _unique("小明" if phone else "阿强")
        page.goto(server + "/")
        player.testid("room-panel-anchao").wait_for()
        for room in ("anchao", "kangqi", "mingchao", "house"):
            assert player.visible(f"room-panel-{room}"), room
        assert "亮主炒底都不公开" in player.testid("room-rules-anchao").inner_text()
        shots("rooms")
        _register(page, player, username, phone=phone)
        # 快速加入 the 暗炒房, the other seats filled with bots: the game starts at once
        box = player.testid("quick-bots-anchao")
        if not box.is_checked():
            player.press(box)
        assert box.is_checked()
        player.press(player.testid("quick-anchao"))
        page.wait_for_url(re.compile(r"/t/\d+$"), timeout=WAIT_MS)
        table = int(page.url.rsplit("/", 1)[1])
        player.testid("table").wait_for()
        page.wait_for_function("() => document.querySelector('[data-testid=table]')?.dataset.phase", timeout=WAIT_MS)
        assert player.testid("seat-0").locator(".seat-name").inner_text().startswith(username)
        # the lobby, in a second tab: the table in its room, the account's name a link to its page, the bots marked
        lobby = context.new_page()
        lobby.goto(server + "/")
        row = lobby.get_by_test_id(f"table-row-{table}")
        row.wait_for(timeout=WAIT_MS)
        assert row.locator(f'a[data-testid=player-link][href="/p/{quote(username)}"]').count() == 1
        assert row.locator(".seat-chip[data-kind=bot]").count() == 3
        Shots(lobby, ARTIFACTS / f"accounts-{size}-lobby")("rooms-seated")
        lobby.close()
        _play_a_hand(page, player)
        # 逃跑 in the next hand, once its first card is played (leaving before it costs nothing: RULES §13)
        end = time.monotonic() + 90
        while not page.evaluate(_CARD_PLAYED):
            assert time.monotonic() < end, f"the next hand's play did not start: {player.done}"
            player.step()
            page.wait_for_timeout(60)
        player.press(player.testid("leave-button"))
        player.testid("confirm-dialog").wait_for()
        shots("escape-confirm")
        player.press(player.testid("confirm-ok"))
        player.testid("gone").wait_for(timeout=WAIT_MS)
        assert "逃跑" in player.testid("gone").inner_text()
        # the player's page, from the header: the escape penalty in the ledger
        player.press(player.testid("account-name"))
        page.wait_for_url(re.compile(r"/p/"), timeout=WAIT_MS)
        player.testid("player-page").wait_for()
        _until(page, "!!document.querySelector('[data-testid=ledger-row][data-reason=escape]')", "the escape penalty")
        row = page.locator("[data-testid=ledger-row][data-reason=escape]").first
        assert "逃跑罚分" in row.inner_text()
        assert int(str(row.get_attribute("data-amount"))) < 0
        assert row.locator(".amount").inner_text().startswith("−")
        assert f"{table} 号桌" in row.inner_text()
        assert player.testid("credits-anchao").inner_text().startswith("−")
        page.wait_for_timeout(200)
        shots("player")
        # the room's leaderboard, from the player's page
        player.press(player.testid("player-room-anchao").locator("a.board-link"))
        page.wait_for_url(re.compile(r"/rooms/anchao/leaderboard"), timeout=WAIT_MS)
        player.testid("leaderboard").wait_for()
        _until(
            page,
            f"!!document.querySelector('[data-testid=board-row][data-username=\"{username}\"]')",
            "the player on the leaderboard (an escape rates the player at once, as a loss)",
            limit_s=30,
        )
        me = page.locator(f'[data-testid=board-row][data-username="{username}"]')
        assert "me" in str(me.get_attribute("class"))
        # a bot (rated once a game of the room ends) is marked as a bot
        bots = page.locator("[data-testid=board-row][data-kind=bot]")
        assert bots.locator("[data-testid=bot-mark]").count() == bots.count()
        assert me.locator("[data-testid=bot-mark]").count() == 0
        player.press(player.testid("sort-credits"))
        page.wait_for_function("() => /sort=credits/.test(location.search)", timeout=WAIT_MS)
        player.testid("board-row").first.wait_for()
        shots("leaderboard")
        print(f"{size}: ledger and leaderboard found for {username} (table {table})")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_spectator_watches_a_table_and_reads_its_chat_as_text(server: str, browser: Any, size: str) -> None:
    phone = size == "phone"
    # the player (a guest) opens a 明炒 table with bots; spectators kept one trick behind
    host = browser.new_context(locale="zh-CN", **VIEWPORTS["desktop"])
    hp = host.new_page()
    watcher = browser.new_context(locale="zh-CN", **SIZES[size])
    sp = watcher.new_page()
    alerts: list[str] = []
    sp.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    with (
        watched(host, hp, ARTIFACTS / f"spectator-host-{size}"),
        watched(watcher, sp, ARTIFACTS / f"spectator-{size}") as shots,
    ):
        host_player = Player(hp, False, shots)
        viewer = Player(sp, phone, shots)
        hp.goto(server + "/")
        host_player.testid("create-form").wait_for()
        host_player.press(host_player.testid("room-mingchao"))
        hp.get_by_test_id("player-name").fill("小王")
        hp.get_by_test_id("watch-delay").select_option("1")
        assert hp.get_by_test_id("allow-watch").is_checked()
        host_player.press(host_player.testid("create-table"))
        hp.wait_for_url(re.compile(r"/t/\d+$"), timeout=WAIT_MS)
        table = int(hp.url.rsplit("/", 1)[1])
        hp.wait_for_function(
            "() => document.querySelector('[data-testid=connection-state]')?.dataset.state === 'open'", timeout=WAIT_MS
        )
        host_player.press(host_player.testid("auto-toggle"))  # 托管: the bots play the hand on

        # the spectator: from the lobby's 观战 button
        sp.goto(server + "/")
        watch = viewer.testid(f"watch-{table}")
        watch.wait_for(timeout=WAIT_MS)
        sp.wait_for_timeout(300)
        shots("rooms")
        viewer.press(watch)
        sp.wait_for_url(re.compile(rf"/t/{table}\?watch=1$"), timeout=WAIT_MS)
        viewer.testid("watch-banner").wait_for(timeout=WAIT_MS)
        sp.wait_for_function(
            "() => document.querySelector('[data-testid=connection-state]')?.dataset.state === 'open'", timeout=WAIT_MS
        )
        assert "观战中" in viewer.testid("watch-banner").inner_text()
        assert "延迟 1 轮" in viewer.testid("watch-delay").inner_text()
        for n in range(4):
            assert viewer.visible(f"seat-{n}"), n
        assert sp.locator("[data-testid=hand] [data-card]").count() == 0, "a spectator sees no hand"
        for name in ("play-button", "bury-button", "bid-option", "auto-toggle", "leave-button", "ready-button"):
            assert sp.get_by_test_id(name).count() == 0, name
        assert viewer.testid("table").get_attribute("data-seat") == "null"

        # the player chats: a line, a quick phrase, and a line of HTML
        hp.get_by_test_id("chat-input").fill("大家好，一起来看！")
        host_player.press(host_player.testid("chat-send"))
        host_player.press(host_player.testid("phrase-good_luck"))
        hp.get_by_test_id("chat-input").fill(XSS)
        host_player.press(host_player.testid("chat-send"))
        sp.wait_for_function(
            "() => document.querySelectorAll('[data-testid=chat-lines] [data-testid=chat-line]').length >= 3",
            timeout=WAIT_MS,
        )
        if phone:  # on a phone the chat is a button with the lines that came: open it
            unread = viewer.testid("chat-unread")
            unread.wait_for()
            assert int(unread.inner_text()) >= 3
            shots("chat-button")
            viewer.press(viewer.testid("chat-button"))
            viewer.testid("chat-input").wait_for(state="visible")
            assert viewer.testid("chat-unread").count() == 0
        texts = viewer.testid("chat-text").all_inner_texts()
        assert texts[-3:] == ["大家好，一起来看！", "祝大家好运！", XSS], texts
        lines = sp.locator("[data-testid=chat-lines]")
        assert lines.locator("b, img").count() == 0, "a chat line is text, never HTML"
        assert "小王" in lines.locator("[data-testid=chat-line]").last.inner_text()
        # a spectator who is not logged in may read but not write
        assert viewer.testid("chat-input").is_disabled()
        assert "登录" in str(viewer.testid("chat-input").get_attribute("placeholder"))
        # one trick behind: the last trick shown stays in the middle (the one in progress is not shown)
        sp.wait_for_function(
            "() => document.querySelectorAll('[data-testid=finished-trick] [data-card]').length >= 4",
            timeout=60000,
        )
        shots("spectator")
        # mute the player: their lines go; unmute: back
        viewer.press(viewer.testid("chat-mute").last)
        sp.wait_for_function("() => document.querySelectorAll('[data-testid=chat-line]').length === 0", timeout=WAIT_MS)
        assert sp.evaluate("() => JSON.parse(localStorage.getItem('chaodipi.muted') || '[]').length") == 1
        viewer.press(viewer.testid("chat-muted-toggle"))
        viewer.press(sp.locator(".chat-muted .btn").first)
        sp.wait_for_function("() => document.querySelectorAll('[data-testid=chat-line]').length >= 3", timeout=WAIT_MS)
        if not phone:
            # the guest registers at the table and keeps the seat: it is the account's now, and so are its lines
            username = _unique("小王")
            host_player.press(host_player.testid("register-button"))
            keep = host_player.testid("auth-keep-seats")
            keep.wait_for()
            assert keep.is_checked()
            assert "把这张桌的座位存到我的账户" in hp.get_by_test_id("auth-dialog").inner_text()
            hp.get_by_test_id("auth-username").fill(username)
            hp.get_by_test_id("auth-password").fill("a-long-password")
            host_player.press(host_player.testid("auth-submit"))
            hp.get_by_test_id("auth-dialog").wait_for(state="detached", timeout=WAIT_MS)
            hp.wait_for_function(
                "() => document.querySelector('[data-testid=connection-state]')?.dataset.state === 'open'",
                timeout=WAIT_MS,
            )
            sp.wait_for_function(
                "([name]) => (document.querySelector('[data-testid=seat-0] .seat-name')?.textContent || '')"
                ".includes(name)",
                arg=[username],
                timeout=WAIT_MS,
            )
            hp.get_by_test_id("chat-input").fill("我注册了")
            host_player.press(host_player.testid("chat-send"))
            sp.wait_for_function(
                "([href]) => !!document.querySelector(`[data-testid=chat-line] a.chat-name[href='${href}']`)",
                arg=[f"/p/{quote(username)}"],
                timeout=WAIT_MS,
            )
        assert not alerts, alerts
        print(f"{size}: the spectator read {len(texts)} lines at table {table}")


def test_the_servers_refusals_are_shown_in_the_pages_language(server: str, browser: Any) -> None:
    """A name that is taken (a bot's) and a wrong password, refused by the server, in Chinese and in English.
    (Not watched: the browser logs each refused request as a console error.)"""
    context = browser.new_context(locale="zh-CN", **VIEWPORTS["desktop"])
    page = context.new_page()
    try:
        player = Player(page, False, Shots(page, ARTIFACTS / "accounts-refusals"))
        page.goto(server + "/")
        player.press(player.testid("register-button"))
        player.testid("auth-username").fill("rules")
        player.testid("auth-password").fill("a-long-password")
        player.press(player.testid("auth-submit"))
        error = player.testid("auth-error")
        page.wait_for_function(
            "() => (document.querySelector('[data-testid=auth-error]')?.textContent || '').includes('已经有人用了')",
            timeout=WAIT_MS,
        )
        player.shots("taken")

        def wrong_login(name: str, words: str) -> None:
            """Log in as nobody: the server's 401, worded in the page's language."""
            player.testid("auth-username").fill(_unique(name))
            player.testid("auth-password").fill("a-long-password")
            player.press(player.testid("auth-submit"))
            page.wait_for_function(
                "(words) => (document.querySelector('[data-testid=auth-error]')?.textContent || '').includes(words)",
                arg=words,
                timeout=WAIT_MS,
            )

        player.press(player.testid("auth-tab-login"))
        wrong_login("无此人", "用户名或密码不对")
        page.evaluate("() => localStorage.setItem('chaodipi.lang', 'en')")
        page.reload()
        player.press(player.testid("login-button"))
        wrong_login("nobody", "Wrong username or password")
        assert error.is_visible()
        player.shots("wrong-en")
    finally:
        context.close()
