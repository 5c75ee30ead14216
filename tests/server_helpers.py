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
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import httpx
import uvicorn
import websockets

from chaodipi.bots import make_bot
from chaodipi.cards import Card, parse_cards
from chaodipi.hand import Hand
from chaodipi.log import Action
from chaodipi.record import parse_deal
from chaodipi.server.app import create_app
from chaodipi.server.config import ServerConfig
from chaodipi.server.serve import uvicorn_options
from chaodipi.server.store import Store, StoredAction
from chaodipi.view import SPECTATOR, Phase, View
from service_helpers import free_port

FAST = {"deal_ms": 0, "bot_delay_ms": 0, "hand_pause_ms": 0, "trick_pause_ms": 0, "time_scale": 0.05}
#: The dark room with no declaring countdown after the deal (for tests that give long time limits otherwise).
QUICK_DECLARE = {"preset": "anchao", "set": {"declare_seconds": 0}}


async def step_until(table: Any, clock: Any, done: Callable[[], bool], limit: int = 5000) -> None:
    """Step a table on a fake clock, moving the clock to the table's next wake each time, until ``done()``."""
    for _ in range(limit):
        if done():
            return
        await table.step()
        if done():
            return
        wake = table.next_wake()
        assert wake is not None, "the table waits for nothing: it is stuck"
        clock.advance(max(0.0, wake - clock.now()))
    raise AssertionError("not reached")


@contextlib.asynccontextmanager
async def running_server(
    url: str, *, guarded: bool = False, apps: list[Any] | None = None, **config: Any
) -> AsyncIterator[str]:
    """A server on ``url``'s database in this event loop, on a free port; yields its base URL.

    ``guarded``: with ``chaodipi serve``'s uvicorn setup (the guarded protocol and its limits); ``apps``: the
    application is appended to it (a test reaches the :class:`~chaodipi.server.tables.Server` as
    ``app.state.server``)."""
    port = free_port()
    settings = {"owner": f"test:{port}", **config}
    app = create_app(url, ServerConfig(**settings))
    if apps is not None:
        apps.append(app)
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


class ServerProcess:
    """``chaodipi serve`` as a child process on a fixed port and database."""

    def __init__(self, url: str, port: int, *extra: str, owner: str = "restart-test") -> None:
        self.url = url
        self.port = port
        self.extra = extra
        self.owner = owner
        self.env: dict[str, str] | None = None  # the process's environment (None: the test's)
        self.stderr: Any = subprocess.PIPE  # where its log goes (a file, for a test that reads it after)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the process and wait until it answers."""
        self.launch()
        self.wait_up()

    def launch(self) -> None:
        """Start the process (several may be launched at once, then waited for: :meth:`wait_up`)."""
        cmd = [sys.executable, "-m", "chaodipi.cli", "serve", "--port", str(self.port), "--db", self.url]
        cmd += ["--owner", self.owner, *self.extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.stderr, env=self.env)

    def wait_up(self) -> None:
        """Wait until the launched process answers (30 s at most)."""
        assert self.proc is not None
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.proc.stderr.read().decode() if self.proc.stderr else ''}")
            try:
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not answer in 30 s")

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        terminate(self.proc)


def terminate(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop a child process with SIGTERM, and SIGKILL if it is still there 10 s later."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


# -- hidden information: each message checked against the engine's view at the moment it was sent ----------


def message_cards(msg: dict[str, Any]) -> set[Card]:
    """Every card a server message shows."""
    cards: set[Card] = set()

    def add(text: object) -> None:
        if isinstance(text, str) and text:
            cards.update(parse_cards(text))

    view = msg.get("view")
    if view:
        add(view["hand"])
        add(view["kitty"])
        for _, c in view["current_trick"]:
            add(c)
        for t in view["tricks"]:
            for _, c in t["plays"]:
                add(c)
        for b in view["bids"]:
            add(b.get("cards"))
        legal = view["legal"]
        for group in ("bids", "fries"):
            for b in legal.get(group, []):
                add(b["cards"])
        for group in ("leads", "follows"):
            for c in legal.get(group, []):
                add(c)
    for e in msg.get("events", []):
        add(e.get("cards"))
    return cards


class Replays:
    """A table's stored hands, replayed through the engine on demand (for :func:`audit` and the fault test's
    ``check_told``)."""

    def __init__(self, store: Store, table: int) -> None:
        self.store = store
        self.table = table
        stored = store.load(table)
        self.hands = {h.number: h for h in stored.hands}
        self._number = {tuple(parse_deal(h.deal)): h.number for h in stored.hands}  # a hand's number by its deck
        self._fresh: dict[int, Hand] = {}

    def fresh(self, number: int) -> Hand:
        """Hand ``number`` as it was dealt, before its first action (its game rebuilt through the store once)."""
        if number not in self._fresh:
            h = self.hands[number]
            game = self.store.rebuild(self.table, h.game)
            for hand in game.hands:
                self._fresh[self._number[tuple(hand.deck)]] = hand
        hand = self._fresh[number]
        return Hand(
            hand.rules,
            hand.deck,
            first_seat=hand.first_seat,
            dealer=hand.dealer if not hand.first_hand else None,
            dealer_progress=hand.dealer_progress,
            scoring_progress=hand.scoring_progress,
            flag_failures=hand.flag_failures,
        )


def catch_up(hand: Hand, actions: Sequence[StoredAction], applied: int, upto: int, dealt: int) -> int:
    """Apply the stored ``actions[applied:upto]`` to ``hand``, then (in its deal) deal until ``dealt`` cards are out, as
    a message showed them; returns how many actions are applied now."""
    while applied < upto:
        hand.apply(actions[applied].action)
        applied += 1
    while hand.phase is Phase.DEAL and hand.dealt < dealt:
        hand.deal_card()
    return applied


def audit(store: Store, table: int, seat: int, messages: list[dict[str, Any]]) -> int:
    """Check each message against the engine's view of ``seat`` (or a spectator's, SPECTATOR) at the moment it
    was sent; returns the count."""
    replays = Replays(store, table)
    hands = replays.hands
    checked = 0
    replaying: tuple[int, Hand, int] | None = None  # (hand number, hand, actions applied)
    for msg in messages:
        kind = msg["type"]
        if kind not in ("welcome", "update"):
            assert not message_cards(msg) and "hand_cards" not in json.dumps(msg)
            continue
        if msg["view"] is None:
            continue
        number = msg["hand"]
        if replaying is None or replaying[0] != number:
            replaying = (number, replays.fresh(number), 0)
        number, hand, applied = replaying
        actions = hands[number].actions
        target = msg["seq"] - (actions[0].seq - 1) if actions else 0
        applied = catch_up(hand, actions, applied, min(target, len(actions)), sum(msg["view"]["hand_sizes"]))
        replaying = (number, hand, applied)
        allowed = hand.view(seat).cards_seen()
        if seat != SPECTATOR:
            allowed |= {c for b in hand.legal(seat).bids for c in b.cards}
        shown = message_cards(msg)
        assert shown <= allowed, f"seat {seat}, hand {number}, seq {msg['seq']}: hidden {shown - allowed}"
        held = hand.hands[seat] if seat != SPECTATOR else []
        assert sorted(c.index for c in parse_cards(msg["view"]["hand"])) == sorted(c.index for c in held)
        checked += 1
    return checked
