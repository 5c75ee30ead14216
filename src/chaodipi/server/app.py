"""The server's ASGI application: the lobby over HTTP, one WebSocket per connected client.

:func:`create_app` makes a Starlette application around a :class:`Server`, which owns the
store, the tables (one :class:`~chaodipi.server.table.Table` task each), the database
thread(s) and the bots' process pool. ``chaodipi serve`` runs it under uvicorn.

HTTP (JSON in, JSON out; errors are ``{"error": "..."}`` with a 4xx status):

``GET  /api/health``                    the server is up; its owner name and tables run
``GET  /api/presets``                   the rule presets and the bots
``GET  /api/stats``                     accepted actions and the action-to-broadcast latency
``GET  /api/tables``                    the lobby: tables, newest first (``?status=waiting``…)
``POST /api/tables``                    a new table: ``{"name", "rules", "seed"?, "bots"?}``
``GET  /api/tables/{id}``               one table
``POST /api/tables/{id}/seats``         take a seat: ``{"name", "seat"?}`` (a resume token comes back,
                                        once) or fill it with a bot: ``{"bot": "rules", "seat"?}``
``POST /api/tables/{id}/leave``         ``{"token"}``: leave (逃跑 during a game)
``GET  /api/tables/{id}/games/{n}/record`` a finished game's record (``chaodipi replay`` reads it)
``GET  /api/tables/{id}/games/{n}/replay`` the same game frame by frame, for the replay viewer
``POST /api/replay``                    any finished game's record, frame by frame (at most 2 MiB)

Pages: ``/`` (the lobby), ``/t/{id}`` (a table), ``/replay`` and ``/replay/{id}/{n}`` (the
replay viewer) are the browser client's one page; its files are under ``/static/``.

WebSocket ``/ws/tables/{id}``: docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from chaodipi.record import RecordError
from chaodipi.rules import PRESET_NAMES, RuleError, RuleSet
from chaodipi.server.bots import BOT_NAMES, BotRunner
from chaodipi.server.protocol import (
    ProtocolError,
    dumps,
    error_message,
    parse_client,
    parse_hello,
)
from chaodipi.server.replay import MAX_RECORD_BYTES, replay_frames
from chaodipi.server.store import DEFAULT_URL, SEED_RANGE, Store, StoreError, TableStatus, UnknownTableError
from chaodipi.server.table import MAX_NAME, ServerConfig, Stats, Table, TableError, in_thread
from chaodipi.web import INDEX, STATIC

__all__ = ["Connection", "Server", "create_app"]

log = logging.getLogger("chaodipi.server")

#: The largest HTTP request body the lobby reads.
MAX_BODY = 16 * 1024
#: Lobby requests that change something, per client address, per minute.
LOBBY_WRITES_PER_MINUTE = 120
CLOSE_BAD_HELLO = 4400
CLOSE_TOO_FAST = 4429
CLOSE_TOO_SLOW = 4408  # the client did not read its messages
CLOSE_TOO_LARGE = 1009


class Server:
    """The tables this process runs, their store, and the machinery they share."""

    def __init__(self, url: str = DEFAULT_URL, config: ServerConfig | None = None) -> None:
        self.url = url
        self.config = config or ServerConfig()
        self.store = Store(url)
        sqlite = self.store.engine.dialect.name == "sqlite"
        # SQLite takes one writer at a time: one database thread; PostgreSQL: a few.
        self.db = ThreadPoolExecutor(1 if sqlite else 4, thread_name_prefix="chaodipi-db")
        self.bots = BotRunner(self.config.bot_workers)
        self.tables: dict[int, Table] = {}
        self.stats = Stats()
        self._loading = asyncio.Lock()
        self._renewer: asyncio.Task[None] | None = None
        self._writes: dict[str, list[float]] = {}

    async def db_call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a store call in the database thread(s)."""
        return await in_thread(self.db, fn, *args, **kwargs)

    async def start(self) -> None:
        """Migrate the database, claim and rebuild every unfinished table, and start renewing the claims."""
        await self.db_call(self.store.migrate)
        for info in await self.db_call(self.store.list_tables):
            if info.status is not TableStatus.FINISHED:
                await self._load(info.id)
        self._renewer = asyncio.get_running_loop().create_task(self._renew())

    async def stop(self) -> None:
        """Stop every table and give up their claims (what is stored stays)."""
        if self._renewer is not None:
            self._renewer.cancel()
        for table in list(self.tables.values()):
            await table.stop()
            for s in table.seats:
                for peer in list(s.peers if s else []):
                    peer.close(1001, "the server is going away")
        with contextlib.suppress(Exception):
            await self.db_call(self.store.release, self.config.owner)
        self.bots.close()
        self.db.shutdown(wait=True)
        self.store.close()

    async def _renew(self) -> None:
        lease = timedelta(seconds=self.config.lease_s)
        while True:
            await asyncio.sleep(self.config.lease_s / 3)
            try:
                await self.db_call(self.store.renew, self.config.owner, lease)
            except Exception:
                log.exception("cannot renew the claims on the tables")
            for tid, table in list(self.tables.items()):
                if table.moved:
                    del self.tables[tid]

    async def _load(self, table_id: int) -> Table | None:
        """Claim a stored table and rebuild it; None when another process runs it."""
        before = await self.db_call(
            self.store.claim, table_id, self.config.owner, timedelta(seconds=self.config.lease_s)
        )
        if before is None:
            return None
        now = datetime.now(UTC)
        last_alive = before.heartbeat_at or before.updated_at
        downtime = max(timedelta(0), now - last_alive) if before.deadline_at is not None else timedelta(0)
        seats = await self.db_call(self.store.seats, table_id)
        table = Table(before, seats, store=self.store, db=self.db, bots=self.bots, config=self.config, stats=self.stats)
        await table.restore(downtime)
        table.start()
        self.tables[table_id] = table
        log.info("table %s: running (%s, downtime %.1f s)", table_id, before.status, downtime.total_seconds())
        return table

    async def table(self, table_id: int) -> Table:
        """The running table ``table_id``, loaded from the database if this process does not run it yet."""
        table = self.tables.get(table_id)
        if table is not None and not table.moved:
            return table
        async with self._loading:
            table = self.tables.get(table_id)
            if table is not None and not table.moved:
                return table
            try:
                loaded = await self._load(table_id)
            except UnknownTableError:
                raise TableError(f"no table {table_id}", 404) from None
            if loaded is None:
                raise TableError(f"table {table_id} is run by another server", 409)
            return loaded

    async def create_table(self, body: dict[str, Any]) -> Table:
        """A new table from a lobby request: ``{"name", "rules", "seed"?, "bots"?}``."""
        _only(body, {"name", "rules", "seed", "bots"})
        name = body.get("name", "")
        if not isinstance(name, str) or len(name.strip()) > 64 or not name.isprintable():
            raise TableError("'name' is printable text of at most 64 characters", 400)
        try:
            rules = RuleSet.from_spec(body.get("rules", "standard"))
        except RuleError as exc:
            raise TableError(f"rules: {exc}", 400) from None
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbits(62)
        if isinstance(seed, bool) or not isinstance(seed, int) or not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
            raise TableError("'seed' is a whole number that fits 64 bits", 400)
        bots = _bots(body.get("bots", {}))
        table_id = await self.db_call(self.store.create_table, rules, seed, name=name.strip())
        table = await self.table(table_id)
        for seat, bot in sorted(bots.items()):
            await table.call(functools.partial(table.take_seat, seat, "", bot))
        return table

    def allow_write(self, client: str) -> bool:
        """Whether ``client`` may make another lobby change now (a per-address limit)."""
        now = time.monotonic()
        recent = [t for t in self._writes.get(client, []) if now - t < 60]
        if len(recent) >= LOBBY_WRITES_PER_MINUTE:
            self._writes[client] = recent
            return False
        recent.append(now)
        self._writes[client] = recent
        if len(self._writes) > 10_000:
            self._writes = {k: v for k, v in self._writes.items() if v and now - v[-1] < 60}
        return True


def _only(body: dict[str, Any], keys: set[str]) -> None:
    unknown = set(body) - keys
    if unknown:
        raise TableError(f"unknown field(s) {', '.join(sorted(map(str, unknown)))}", 400)


def _bots(value: object) -> dict[int, str]:
    if not isinstance(value, dict):
        raise TableError('\'bots\' maps seats to bots, e.g. {"1": "rules", "3": "search"}', 400)
    out: dict[int, str] = {}
    for key, bot in value.items():
        if not (isinstance(key, str) and key in ("0", "1", "2", "3")):
            raise TableError(f"bots: {key!r} is not a seat 0..3", 400)
        if bot not in BOT_NAMES:
            raise TableError(f"bots: {bot!r} is not a bot; the bots are {', '.join(BOT_NAMES)}", 400)
        out[int(key)] = bot
    return out


def _guest_name(value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_NAME or not value.isprintable():
        raise TableError(f"'name' is printable text of 1 to {MAX_NAME} characters", 400)
    return value.strip()


# -- HTTP -------------------------------------------------------------------------------------------


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


async def _body(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise TableError(f"a request body is at most {limit} bytes", 413)
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise TableError(f"a request body is at most {limit} bytes", 413)
    if not raw:
        return {}
    try:
        body = json.loads(raw, parse_constant=_not_json)
    except (ValueError, RecursionError) as exc:
        raise TableError(f"the body is not JSON: {exc}", 400) from None
    if not isinstance(body, dict):
        raise TableError("the body is a JSON object", 400)
    return body


Handler = Callable[[Request, Server], Awaitable[Response]]


def _endpoint(handler: Handler, *, write: bool = False) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        server: Server = request.app.state.server
        if write and not server.allow_write(request.client.host if request.client else "?"):
            return _error("too many requests: wait a minute", 429)
        try:
            return await handler(request, server)
        except TableError as exc:
            return _error(str(exc), exc.status)
        except StoreError as exc:
            return _error(str(exc), 409)

    return endpoint


def _table_id(request: Request) -> int:
    raw = request.path_params["table_id"]
    if not raw.isdigit() or len(raw) > 12:
        raise TableError(f"no table {raw}", 404)
    return int(raw)


async def health(request: Request, server: Server) -> Response:
    """``GET /api/health``: the server is up, its owner name and how many tables it runs."""
    return JSONResponse({"ok": True, "owner": server.config.owner, "tables": len(server.tables)})


async def stats(request: Request, server: Server) -> Response:
    """``GET /api/stats``: tables, connections, accepted actions and the action-to-broadcast latency."""
    connections = sum(len(s.peers) for t in server.tables.values() for s in t.seats if s is not None)
    return JSONResponse(
        {"owner": server.config.owner, "tables": len(server.tables), "connections": connections}
        | server.stats.to_json()
    )


async def presets(request: Request, server: Server) -> Response:
    """``GET /api/presets``: the rule presets with their options, each option's kind and values, and the bots."""
    return JSONResponse(
        {
            "presets": [{"name": n, "rules": RuleSet.preset(n).describe()} for n in PRESET_NAMES],
            "options": RuleSet.option_schema(),
            "bots": list(BOT_NAMES),
        }
    )


async def list_tables(request: Request, server: Server) -> Response:
    """``GET /api/tables``: the lobby, newest first (``?status=waiting|playing|finished``)."""
    status = request.query_params.get("status")
    if status is not None and status not in {s.value for s in TableStatus}:
        raise TableError("status is waiting, playing or finished", 400)
    infos = await server.db_call(server.store.list_tables, TableStatus(status) if status else None)
    out = []
    for info in reversed(infos[-500:]):
        table = server.tables.get(info.id)
        if table is not None:
            out.append(table.summary())
        else:
            seats = await server.db_call(server.store.seats, info.id)
            out.append(
                {
                    "id": info.id,
                    "name": info.name,
                    "rules": info.rules.to_spec(),
                    "room": info.rules.name,
                    "status": info.status.value,
                    "seats": [
                        None
                        if n not in seats
                        else {"seat": n, "kind": seats[n].kind.value, "name": seats[n].name, "auto": seats[n].auto}
                        for n in range(4)
                    ],
                    "seq": info.last_seq,
                    "hand": info.hand_number,
                    "games": info.game if info.hand_number else 0,
                }
            )
    return JSONResponse({"tables": out})


async def create_table(request: Request, server: Server) -> Response:
    """``POST /api/tables``: a new table (201 with its summary)."""
    table = await server.create_table(await _body(request))
    return JSONResponse(await table.call(table.summary), status_code=201)


async def get_table(request: Request, server: Server) -> Response:
    """``GET /api/tables/{id}``: one table's summary."""
    table = await server.table(_table_id(request))
    return JSONResponse(await table.call(table.summary))


async def take_seat(request: Request, server: Server) -> Response:
    """``POST /api/tables/{id}/seats``: a guest takes a seat (its resume token comes back once) or a bot fills it."""
    body = await _body(request)
    _only(body, {"name", "seat", "bot"})
    seat = body.get("seat")
    if seat is not None and (type(seat) is not int or seat not in (0, 1, 2, 3)):
        raise TableError("'seat' is 0..3 (or left out: the first free seat)", 400)
    bot = body.get("bot")
    if bot is not None and bot not in BOT_NAMES:
        raise TableError(f"'bot' is one of {', '.join(BOT_NAMES)}", 400)
    name = "" if bot is not None and "name" not in body else _guest_name(body.get("name"))
    table = await server.table(_table_id(request))
    answer = await table.call(lambda: table.take_seat(seat, name, bot))
    return JSONResponse(answer, status_code=201)


async def leave(request: Request, server: Server) -> Response:
    """``POST /api/tables/{id}/leave``: the seat with this token leaves (逃跑 during a game)."""
    body = await _body(request)
    _only(body, {"token"})
    token = body.get("token")
    if not isinstance(token, str) or not 1 <= len(token) <= 128:
        raise TableError("'token' is the seat's resume token", 400)
    table = await server.table(_table_id(request))
    return JSONResponse(await table.call(lambda: table.leave_by_token(token)))


async def record(request: Request, server: Server) -> Response:
    """``GET /api/tables/{id}/games/{n}/record``: a finished game's record."""
    return JSONResponse(await _finished_record(request, server))


async def _finished_record(request: Request, server: Server) -> dict[str, Any]:
    """The record of the finished game the path names, with the seats' names."""
    table_id = _table_id(request)
    raw = request.path_params["game"]
    if not raw.isdigit() or len(raw) > 9:
        raise TableError(f"no game {raw}", 404)
    try:
        seats = await server.db_call(server.store.seats, table_id)
        names = [seats[n].name if n in seats else f"seat {n}" for n in range(4)]
        rec: dict[str, Any] = await server.db_call(server.store.finished_record, table_id, game=int(raw), players=names)
    except UnknownTableError:
        raise TableError(f"no table {table_id}", 404) from None
    return rec


async def _frames(record: object) -> Response:
    try:
        return JSONResponse(await asyncio.to_thread(replay_frames, record))
    except RecordError as exc:
        raise TableError(f"the record does not replay: {exc}", 400) from None


async def game_replay(request: Request, server: Server) -> Response:
    """``GET /api/tables/{id}/games/{n}/replay``: a finished game of the table, frame by frame."""
    return await _frames(await _finished_record(request, server))


async def upload_replay(request: Request, server: Server) -> Response:
    """``POST /api/replay``: any finished game's record (``chaodipi-record/1`` or ``/2``), frame by frame."""
    return await _frames(await _body(request, MAX_RECORD_BYTES))


# -- WebSocket --------------------------------------------------------------------------------------


class Connection:
    """One client's WebSocket: a queue of outgoing messages drained by a sender task, and a rate limit."""

    def __init__(self, websocket: WebSocket, config: ServerConfig) -> None:
        self.websocket = websocket
        self.config = config
        self._seat = -1
        self.hand_sent = -1
        self.events_sent = 0
        self.ready = asyncio.Event()
        self.closed = False
        self.outbox: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue(config.send_queue)
        self.tokens = float(config.rate_burst)
        self.refilled = time.monotonic()

    @property
    def seat(self) -> int:
        """The seat this connection speaks for (-1 before the table accepted its hello)."""
        return self._seat

    @seat.setter
    def seat(self, value: int) -> None:
        """Set by the table when it accepts the hello."""
        self._seat = value
        self.ready.set()

    def send(self, text: str) -> None:
        """Queue a message; a client whose queue is full cannot keep up and is dropped."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dropping a client that does not read its messages (seat %s)", self._seat)
            self._drop(CLOSE_TOO_SLOW, "too slow: messages were not read")

    def close(self, code: int, reason: str) -> None:
        """Close after what is queued."""
        if self.closed:
            return
        self.ready.set()
        try:
            self.outbox.put_nowait((code, reason))
            self.closed = True
        except asyncio.QueueFull:
            self._drop(code, reason)

    def _drop(self, code: int, reason: str) -> None:
        self.closed = True
        self.ready.set()
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.outbox.put_nowait((code, reason))

    def allow(self) -> bool:
        """The rate limit: a token bucket of ``rate_burst`` refilled at ``rate_per_s``."""
        now = time.monotonic()
        self.tokens = min(float(self.config.rate_burst), self.tokens + (now - self.refilled) * self.config.rate_per_s)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def pump(self) -> None:
        """The sender task: write queued messages in order; close when told to."""
        ws = self.websocket
        while True:
            item = await self.outbox.get()
            if isinstance(item, tuple):
                if ws.application_state is WebSocketState.CONNECTED:
                    with contextlib.suppress(Exception):
                        await ws.close(item[0], item[1])
                return
            try:
                await ws.send_text(item)
            except Exception:
                self.closed = True
                return


async def _receive(websocket: WebSocket) -> str | None:
    """The next text message (bytes are read as UTF-8); None when the client is gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    if message.get("text") is not None:
        return str(message["text"])
    data = message.get("bytes") or b""
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        return "\x00not utf-8"


async def table_socket(websocket: WebSocket) -> None:
    """``/ws/tables/{id}``: hello first, then actions; every reply comes from the table's task."""
    server: Server = websocket.app.state.server
    await websocket.accept()
    conn = Connection(websocket, server.config)
    pump = asyncio.get_running_loop().create_task(conn.pump())
    table: Table | None = None
    try:
        raw = websocket.path_params.get("table_id", "")
        try:
            if not str(raw).isdigit() or len(str(raw)) > 12:
                raise TableError(f"no table {raw}", 404)
            table = await server.table(int(raw))
        except TableError as exc:
            conn.send(dumps(error_message(0, "no_table", str(exc))))
            conn.close(4404, "no such table")
            return
        try:
            async with asyncio.timeout(server.config.hello_timeout_s):
                text = await _receive(websocket)
        except TimeoutError:
            limit = server.config.hello_timeout_s
            conn.send(dumps(error_message(table.seq, "hello_required", f"no hello within {limit:g} s")))
            conn.close(CLOSE_BAD_HELLO, "a hello with the seat's token comes first")
            return
        if text is None:
            return
        try:
            hello = parse_hello(text)
        except ProtocolError as exc:
            conn.send(dumps(error_message(table.seq, exc.code, str(exc))))
            conn.close(CLOSE_BAD_HELLO, "a hello with the seat's token comes first")
            return
        table.connect(conn, hello)
        await conn.ready.wait()
        strikes = 0
        while not conn.closed:
            text = await _receive(websocket)
            if text is None:
                return
            if not conn.allow():
                strikes += 1  # refused in a row: a client that keeps flooding is closed
                conn.send(dumps(error_message(table.seq, "rate", "too many messages: slow down")))
                if strikes > server.config.rate_burst:
                    conn.close(CLOSE_TOO_FAST, "too many messages")
                continue
            strikes = 0
            try:
                message = parse_client(text, seat=conn.seat)
            except ProtocolError as exc:
                if exc.code == "too_large":
                    conn.send(dumps(error_message(table.seq, exc.code, str(exc))))
                    conn.close(CLOSE_TOO_LARGE, "message too large")
                else:
                    table.refuse(conn, exc.code, str(exc), exc.ref)
                continue
            table.message(conn, message)
    except WebSocketDisconnect:
        pass
    finally:
        conn.closed = True
        if table is not None and conn.seat >= 0:
            table.disconnect(conn)
        if not pump.done():
            with contextlib.suppress(asyncio.QueueFull):
                conn.outbox.put_nowait((1000, "bye"))
            try:
                await asyncio.wait_for(pump, 2)
            except (TimeoutError, asyncio.CancelledError):
                pump.cancel()


#: The browser client's pages may load nothing from another site (issue 12: every asset is the project's own).
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}


async def page(request: Request) -> Response:
    """The browser client's one page (lobby, table, replay viewer: its scripts route by the path)."""
    return FileResponse(INDEX, headers=PAGE_HEADERS, media_type="text/html")


class _Static(StaticFiles):
    """The client's files, revalidated on each load so that a new version is seen at once."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        """The file, with headers that make a browser check for a newer version each time."""
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def create_app(
    url: str = DEFAULT_URL, config: ServerConfig | None = None, *, on_ready: Callable[[], None] | None = None
) -> Starlette:
    """The ASGI application of a server on the database at ``url``; ``on_ready`` is called once it serves."""
    server = Server(url, config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            await server.stop()

    routes = [
        Route("/api/health", _endpoint(health)),
        Route("/api/presets", _endpoint(presets)),
        Route("/api/stats", _endpoint(stats)),
        Route("/api/tables", _endpoint(list_tables), methods=["GET"]),
        Route("/api/tables", _endpoint(create_table, write=True), methods=["POST"]),
        Route("/api/tables/{table_id}", _endpoint(get_table)),
        Route("/api/tables/{table_id}/seats", _endpoint(take_seat, write=True), methods=["POST"]),
        Route("/api/tables/{table_id}/leave", _endpoint(leave, write=True), methods=["POST"]),
        Route("/api/tables/{table_id}/games/{game}/record", _endpoint(record)),
        Route("/api/tables/{table_id}/games/{game}/replay", _endpoint(game_replay)),
        Route("/api/replay", _endpoint(upload_replay, write=True), methods=["POST"]),
        WebSocketRoute("/ws/tables/{table_id}", table_socket),
        Route("/", page),
        Route("/t/{table_id}", page),
        Route("/replay", page),
        Route("/replay/{table_id}/{game}", page),
        Mount("/static", _Static(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(GZipMiddleware, minimum_size=2048)])
    app.state.server = server
    return app
