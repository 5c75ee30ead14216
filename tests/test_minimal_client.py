"""docs/protocol.md's minimal client, run for real (issue 38): its code block is taken from the document and run
against a server with a fast pace, once directly and once through a proxy that, on the client's first connection,
stops passing the server's messages on without closing the socket (as a relaying process that lost its way to the
table may). The client must ping, give up on the silent socket, connect again with where it stood and finish its
hand.

Also here, with no server: the event numbering a client's gap rule relies on (a new hand's events start at 0), for
a seat and for a spectator kept some tricks behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import websockets

from server_helpers import FAST, running_server
from test_table import Setup

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
#: The pace of these runs: quick bots, and time limits long enough that a second of silence costs the client no turn.
PACE = {**FAST, "time_scale": 0.2, "keepalive_s": 0.5}
LIMIT_S = 60


def minimal_client(base: str, ws: str) -> str:
    """The document's minimal client, its lobby at ``base`` and its WebSockets at ``ws``."""
    doc = DOC.read_text(encoding="utf-8")
    section = doc[doc.index("## A minimal client") :]
    match = re.search(r"^```python\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert match, "no python block under 'A minimal client'"
    code = match.group(1)
    lines = {'BASE = "http://127.0.0.1:8000"': f'BASE = "{base}"', 'WS = BASE.replace("http", "ws", 1)': f'WS = "{ws}"'}
    for old, new in lines.items():
        assert code.count(old) == 1, f"the minimal client has no line {old!r}"
        code = code.replace(old, new)
    return code


async def run_client(code: str) -> str:
    """Run the client in its own process; returns what it printed (it must end well, within LIMIT_S)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), LIMIT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError(f"the minimal client did not finish its hand in {LIMIT_S} s") from None
    printed = out.decode()
    assert proc.returncode == 0, printed
    return printed


def test_the_minimal_client_plays_a_hand(tmp_path: Path) -> None:
    async def main() -> str:
        async with running_server(f"sqlite:///{tmp_path}/minimal.db", **PACE) as base:
            return await run_client(minimal_client(base, base.replace("http", "ws", 1)))

    printed = asyncio.run(main())
    assert re.fullmatch(r"hand over: .+\n", printed), printed


class SilentProxy:
    """A WebSocket proxy that passes everything both ways, except on its first connection: there, once the server
    has sent ``after`` messages with a view, it passes nothing more from the server (the client's messages still
    go), and keeps the socket open."""

    def __init__(self, target: str, after: int = 5) -> None:
        self.target = target
        self.after = after
        self.hellos: list[dict[str, Any]] = []  # each connection's hello
        self.firsts: list[dict[str, Any]] = []  # each connection's first message from the server
        self.pings_unanswered = 0  # pings the client sent on the silent connection

    async def handle(self, client: Any) -> None:
        n = len(self.hellos)
        self.hellos.append({})
        viewed = 0
        async with websockets.connect(self.target + client.request.path) as server:

            async def up() -> None:
                async for raw in client:
                    message = json.loads(raw)
                    if not self.hellos[n]:
                        self.hellos[n] = message
                    elif n == 0 and viewed >= self.after and message.get("type") == "ping":
                        self.pings_unanswered += 1
                    await server.send(raw)

            async def down() -> None:
                nonlocal viewed
                async for raw in server:
                    message = json.loads(raw)
                    if len(self.firsts) == n:
                        self.firsts.append(message)
                    if n == 0 and viewed >= self.after:
                        continue  # silent: the socket stays open, nothing more comes
                    viewed += message.get("view") is not None
                    await client.send(raw)

            tasks = [asyncio.ensure_future(up()), asyncio.ensure_future(down())]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, websockets.ConnectionClosed):
                    await task


def test_the_minimal_client_reconnects_when_its_socket_goes_silent(tmp_path: Path) -> None:
    async def main() -> tuple[str, SilentProxy]:
        async with running_server(f"sqlite:///{tmp_path}/silent.db", **PACE) as base:
            proxy = SilentProxy(base.replace("http", "ws", 1))
            async with websockets.serve(proxy.handle, "127.0.0.1", 0) as listening:
                port = listening.sockets[0].getsockname()[1]
                return await run_client(minimal_client(base, f"ws://127.0.0.1:{port}")), proxy

    printed, proxy = asyncio.run(main())
    assert re.fullmatch(r"hand over: .+\n", printed), printed
    assert proxy.pings_unanswered >= 1, "the client pinged the silent socket"
    assert len(proxy.hellos) >= 2, "the client connected again"
    again = proxy.hellos[1]
    assert {"seq", "hand", "events"} <= set(again) and again["events"] > 0, again
    welcome = proxy.firsts[1]
    assert welcome["type"] == "welcome" and welcome["resumed"] is True, welcome
    assert welcome["events_from"] == again["events"]


# -- the numbering the gap rule relies on ---------------------------------------------------------------------------


def follows_on(messages: list[dict[str, Any]]) -> int:
    """Check a connection's welcome and updates by a client's event rule (events from 0 start a list; others go on
    the list of their hand, never past its end); returns how many hands they covered."""
    hand, events, hands = None, 0, set()
    for msg in messages:
        if msg["type"] not in ("welcome", "update") or msg["view"] is None:
            continue
        if msg["events_from"] == 0:
            hand, events = msg["hand"], 0
        assert msg["hand"] == hand and msg["events_from"] <= events, (msg["hand"], hand, msg["events_from"], events)
        events = msg["events_from"] + len(msg["events"])
        hands.add(hand)
    return len(hands)


def test_a_new_hands_events_start_at_0_for_a_seat_and_a_spectator_kept_behind(tmp_path: Path) -> None:
    setup = Setup(tmp_path, rules="anchao")

    async def main() -> None:
        s = setup
        watcher = await s.start_kept_behind(2)
        ann = await s.connect()
        assert watcher.sent[0]["watch_delay"] == 2
        await s.table._set_auto(0, True)
        await s.until(
            lambda: s.table.hand_number >= 3 and len(getattr(s.table._hand(), "tricks", ())) >= 3, limit=50_000
        )
        assert follows_on(ann.sent) >= 3 and follows_on(watcher.sent) >= 3

    asyncio.run(main())
    setup.store.close()
