"""Chat at a table, spectators' connections and accounts' seats, on a fake clock with fake connections (issue 21)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from sqlalchemy import select, text

from chaodipi.server.chat import ChatRow, recent_lines
from chaodipi.server.protocol import Auto, Chat, Hello, Ping, parse_client
from chaodipi.server.table import CLOSE_NO_WATCHERS, _Connect, _Message
from test_ledger import AccountSetup, add_account
from test_table import FakePeer


def run(test: Callable[[AccountSetup], Coroutine[Any, Any, None]], tmp_path: Path) -> None:
    setup = AccountSetup(tmp_path)

    async def main() -> None:
        await setup.start()
        await test(setup)

    asyncio.run(main())
    setup.store.close()


async def hello(s: AccountSetup, peer: FakePeer, **kw: Any) -> dict[str, Any]:
    await s.table.step(_Connect(peer, Hello(kw.pop("token", None), **kw)))
    return peer.sent[-1]


async def say(s: AccountSetup, peer: FakePeer, text: str = "", phrase: str | None = None) -> None:
    await s.table.step(_Message(peer, Chat(text, phrase), s.clock.now()))


def test_a_line_is_stored_and_sent_to_every_seat_and_spectator_as_it_was_written(tmp_path: Path) -> None:
    async def test(s: AccountSetup) -> None:
        ann = FakePeer(account=(s.ann, "Ann"))
        assert (await hello(s, ann))["seat"] == 0  # no token: the seat her account holds
        bob = add_account(s.store, "Bob")
        watcher = FakePeer(account=(bob, "Bob"))
        assert (await hello(s, watcher, watch=True))["watching"] is True
        line = "<b>hi</b> <img src=x onerror=alert(1)>"
        await say(s, ann, line)
        got = ann.last("chat")["line"]
        assert watcher.last("chat")["line"] == got
        assert got["text"] == line and got["seat"] == 0 and got["name"] == "Ann" and got["account"] == "Ann"
        await say(s, watcher, phrase="gg")
        spoken = ann.last("chat")["line"]
        assert spoken["seat"] is None and spoken["name"] == "Bob" and spoken["phrase"] == "gg" and spoken["text"] == ""
        with s.store.engine.connect() as c:
            rows = list(c.execute(select(ChatRow).where(ChatRow.table_id == s.table_id)))
            assert [r.text for r in rows] == [line, ""]
            assert [x["text"] for x in recent_lines(c, s.table_id)] == [line, ""]
        later = FakePeer(account=(s.ann, "Ann"))
        welcome = await hello(s, later)
        assert [x["id"] for x in welcome["chat"]] == [got["id"], spoken["id"]]  # stored with the table

    run(test, tmp_path)


def test_chat_is_limited_and_a_guest_spectator_may_only_watch(tmp_path: Path) -> None:
    async def test(s: AccountSetup) -> None:
        ann = FakePeer(account=(s.ann, "Ann"))
        await hello(s, ann)
        for k in range(5):
            await say(s, ann, f"line {k}")
        await say(s, ann, "one too many")
        assert ann.last("error")["code"] == "chat_limit"
        assert sum(1 for m in ann.sent if m["type"] == "chat") == 5
        s.clock.advance(11)  # (the limit is the limits library's moving window, on real time: a new speaker here)
        guest = FakePeer()
        await hello(s, guest, watch=True)
        await say(s, guest, "hello")
        assert guest.last("error")["code"] == "chat_login"
        await s.table.step(_Message(guest, Auto(True), s.clock.now()))
        assert guest.last("error")["code"] == "watching"
        await s.table.step(_Message(guest, Ping("p"), s.clock.now()))
        assert guest.last("pong")["id"] == "p"
        assert s.table.summary()["watchers"] == 1

    run(test, tmp_path)


def test_no_account_speaks_for_another_and_a_table_may_refuse_spectators(tmp_path: Path) -> None:
    async def test(s: AccountSetup) -> None:
        eve = add_account(s.store, "Eve")
        intruder = FakePeer(account=(eve, "Eve"))
        reply = await hello(s, intruder)  # her cookie, no token: she holds no seat here
        assert reply["code"] == "unknown_token" and intruder.seat == -1
        wrong = FakePeer(account=(eve, "Eve"))
        assert (await hello(s, wrong, token="not-a-token"))["code"] == "unknown_token"
        with s.store.engine.begin() as c:
            c.execute(text("UPDATE tables SET watchers = false"))
        s.table.info = s.store.info(s.table_id)
        peeper = FakePeer()
        assert (await hello(s, peeper, watch=True))["code"] == "no_watchers"
        assert peeper.closed is not None and peeper.closed[0] == CLOSE_NO_WATCHERS

    run(test, tmp_path)


def test_chat_messages_are_checked_for_shape() -> None:
    assert parse_client('{"type": "chat", "text": "  two   words \\n here "}', seat=1) == Chat("two words here")
    for bad, code in (
        ('{"type": "chat", "text": ""}', "chat_length"),
        ('{"type": "chat", "text": "' + "x" * 201 + '"}', "chat_length"),
        ('{"type": "chat", "phrase": "insult"}', "chat_phrase"),
        ('{"type": "chat", "phrase": "gg", "text": "x"}', "chat_phrase"),
        ('{"type": "chat", "text": "a", "colour": "red"}', "malformed"),
    ):
        try:
            parse_client(bad, seat=1)
        except ValueError as exc:
            assert getattr(exc, "code", None) == code, (bad, exc)
        else:
            raise AssertionError(f"accepted {bad}")
