"""Helpers for the server tests and the load benchmark: a server on a free port, and a WebSocket client.

:class:`Client` is a complete client of docs/protocol.md: it keeps the seat's view from the
``welcome`` and ``update`` messages (adding the events each message brings to those it has),
can rebuild the engine's :class:`~chaodipi.view.View` from them, and can play by a bot's policy.
It records every message it receives, for the hidden-information audit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import uvicorn
import websockets

from chaodipi.bots import make_bot
from chaodipi.log import Action
from chaodipi.server.app import create_app
from chaodipi.server.config import ServerConfig
from chaodipi.server.serve import uvicorn_options
from chaodipi.view import View

FAST = {"deal_ms": 0, "bot_delay_ms": 0, "hand_pause_ms": 0, "trick_pause_ms": 0, "time_scale": 0.05}
#: The dark room with no declaring countdown after the deal (for tests that give long time limits otherwise).
QUICK_DECLARE = {"preset": "anchao", "set": {"declare_seconds": 0}}


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def running_server(url: str, *, guarded: bool = False, **config: Any) -> AsyncIterator[str]:
    """A server on ``url``'s database in this event loop, on a free port; yields its base URL.

    ``guarded``: with ``chaodipi serve``'s uvicorn setup (the guarded protocol and its limits)."""
    port = free_port()
    settings = {"owner": f"test:{port}", **config}
    app = create_app(url, ServerConfig(**settings))
    options = uvicorn_options(ServerConfig(**settings)) if guarded else {}
    options = {**options, "log_level": "warning"}
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", **options))
    task = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("the server did not start")
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


class Client:
    """One seat's WebSocket client: the view as the messages build it, every message kept."""

    def __init__(
        self, base: str, table: int, token: str | None, *, record: bool = True, watch: bool = False, **headers: str
    ) -> None:
        self.url = base.replace("http://", "ws://") + f"/ws/tables/{table}"
        self.table = table
        self.token = token
        self.watch = watch  # a spectator: says hello with "watch": true and no token
        self.headers = headers
        self.ws: Any = None
        self.messages: list[dict[str, Any]] = []
        self.record = record
        self.seat = -1
        self.seq = 0
        self.hand = 0
        self.rules: Any = None
        self.view: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.deadline: dict[str, Any] | None = None
        self.game: dict[str, Any] | None = None
        self.seats: list[Any] = []
        self.errors: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None
        self._reader: asyncio.Task[None] | None = None
        self.changed = asyncio.Event()

    async def connect(self, *, resume: bool = False) -> dict[str, Any]:
        """Open the socket and say hello (with where this client stands, when ``resume``); returns the welcome."""
        self.closed = None
        self.changed = asyncio.Event()  # (this event loop's: a client may reconnect from another)
        self.ws = await websockets.connect(self.url, max_size=2**24, additional_headers=self.headers or None)
        hello: dict[str, Any] = {"type": "hello", "watch": True} if self.watch else {"type": "hello"}
        if self.token is not None:
            hello["token"] = self.token
        if resume:
            hello.update(seq=self.seq, hand=self.hand, events=len(self.events))
        await self.ws.send(json.dumps(hello))
        welcome = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
        self._take(welcome)
        self._reader = asyncio.get_running_loop().create_task(self._read())
        return welcome

    async def close(self) -> None:
        """Close the socket."""
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.received(raw)
                self._take(json.loads(raw))
        except websockets.ConnectionClosed:
            pass
        finally:
            code = self.ws.close_code
            self.closed = (1006 if code is None else int(code), self.ws.close_reason or "")
            self.changed.set()

    def received(self, raw: str | bytes) -> None:
        """Called with each message as it arrives, before it is read (the load benchmark counts them)."""

    def _take(self, msg: dict[str, Any]) -> None:
        if self.record:
            self.messages.append(msg)
        kind = msg.get("type")
        self.seq = max(self.seq, int(msg.get("seq", 0)))
        if kind == "welcome":
            self.seat = msg["seat"]
            self.rules = msg["rules"]
            self.seats = msg["seats"]
        if kind in ("welcome", "update"):
            if msg["hand"] != self.hand or msg["events_from"] == 0:
                self.events = []
            self.hand = msg["hand"]
            assert msg["events_from"] == len(self.events), (msg["events_from"], len(self.events))
            self.events.extend(msg["events"])
            self.view = msg["view"]
            self.deadline = msg["deadline"]
            self.game = msg["game"]
        elif kind == "seats":
            self.seats = msg["seats"]
        elif kind == "error":
            self.errors.append(msg)
        self.changed.set()

    def engine_view(self) -> View | None:
        """The engine's view, rebuilt from the messages alone."""
        if self.view is None:
            return None
        return View.from_json({**self.view, "rules": self.rules, "events": self.events})

    async def send(self, message: dict[str, Any]) -> None:
        """Send a message as it is."""
        await self.ws.send(json.dumps(message))

    async def act(self, action: Action) -> None:
        """Send ``action`` answering the latest sequence number this client saw."""
        body = action.to_json()
        body.pop("p", None)
        body.pop("at", None)
        await self.send({"type": "act", "seq": self.seq, "action": body})

    async def wait(self, predicate: Callable[[Client], bool], timeout: float = 30) -> None:
        """Wait until ``predicate(self)`` holds (checked after every message)."""
        end = time.monotonic() + timeout
        while not predicate(self):
            if self.closed is not None and not predicate(self):
                raise AssertionError(f"connection closed {self.closed} while waiting")
            self.changed.clear()
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"timed out waiting; last view phase {self.view and self.view.get('phase')}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def play(
        self, bot: str = "rules", *, until: Callable[[Client], bool], timeout: float = 120, seed: int = 0
    ) -> None:
        """Play by ``bot``'s policy on every decision the view offers, until ``until(self)``."""
        policy = make_bot(bot, seed)
        answered: tuple[int, int, int] | None = None
        end = time.monotonic() + timeout
        while not until(self):
            if time.monotonic() > end:
                raise TimeoutError("the game did not get there in time")
            view = self.engine_view()
            key = (self.hand, self.seq, len(self.events))
            if view is not None and key != answered and _my_move(view):
                answered = key
                action = policy.act(view)
                if action is not None:
                    await self.act(action)
            self.changed.clear()
            if until(self):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 1)
            if self.closed is not None:
                raise AssertionError(f"connection closed {self.closed}")


def _my_move(view: View) -> bool:
    legal = view.legal
    return bool(legal.bids or legal.fries or legal.can_pass or legal.bury or legal.leads or legal.follows)


async def new_table(base: str, rules: Any = "standard", *, bots: dict[str, str] | None = None, **extra: Any) -> int:
    """Create a table through the lobby; returns its id."""
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.post("/api/tables", json={"rules": rules, "bots": bots or {}, **extra})
        assert r.status_code == 201, r.text
        return int(r.json()["id"])


async def join(base: str, table: int, name: str, seat: int | None = None) -> tuple[int, str]:
    """Take a seat as a guest; returns the seat and its resume token."""
    async with httpx.AsyncClient(base_url=base) as http:
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        r = await http.post(f"/api/tables/{table}/seats", json=body)
        assert r.status_code == 201, r.text
        return int(r.json()["seat"]), str(r.json()["token"])
