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

WebSocket ``/ws/tables/{id}``: docs/protocol.md, served by :mod:`chaodipi.server.ws`. The tables this
process runs are :class:`~chaodipi.server.tables.Server`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from chaodipi._build import engine_build
from chaodipi.record import RecordError
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.server import ledger, ratings
from chaodipi.server.accounts import ROUTES as ACCOUNT_ROUTES
from chaodipi.server.accounts import AccountError, Accounts, Guard, Limits, account_of, client_address, refused
from chaodipi.server.bots import BOT_NAMES
from chaodipi.server.config import ServerConfig
from chaodipi.server.exclusive import ServingLock
from chaodipi.server.protocol import BodyError, ProtocolError, lobby_seed, read_object
from chaodipi.server.replay import MAX_RECORD_BYTES, replay_frames
from chaodipi.server.seats import SeatState
from chaodipi.server.store import (
    DEFAULT_URL,
    ROOMS,
    StoreError,
    StoreUnavailable,
    TableStatus,
    UnknownTableError,
    unavailable,
)
from chaodipi.server.table import CLOSE_TRY_AGAIN, TableError
from chaodipi.server.tables import ROOM_NAMES, Server, guest_name, only_fields
from chaodipi.server.ws import table_socket
from chaodipi.tournament.service import EventService
from chaodipi.tournament.web import ROUTES as EVENT_ROUTES
from chaodipi.web import INDEX, STATIC

__all__ = ["EXCEPTION_HANDLERS", "create_app"]

log = logging.getLogger("chaodipi.server")

#: The largest HTTP request body the lobby reads.
MAX_BODY = 16 * 1024


# -- HTTP -------------------------------------------------------------------------------------------


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request, limit: int = MAX_BODY, what: str = "a lobby request") -> dict[str, Any]:
    return await read_object(request, limit, what)


Handler = Callable[[Request, Server], Awaitable[Response]]


def _endpoint(handler: Handler, *, write: bool = False) -> Callable[[Request], Awaitable[Response]]:
    """The route for ``handler``: it gets the server; a lobby change counts against its address's limit.

    A refused request raises (:class:`TableError`, :class:`StoreError`); the application's exception
    handlers (:data:`EXCEPTION_HANDLERS`) turn it into ``{"error": "..."}`` with its status.
    """

    async def endpoint(request: Request) -> Response:
        server: Server = request.app.state.server
        if write and not server.allow_write(client_address(request)):
            raise TableError("too many requests: wait a minute", 429)
        return await handler(request, server)

    return endpoint


async def _refused(request: Request, exc: Exception) -> Response:
    """A lobby request refused by a table (a taken seat, a bad body…): its words and its status."""
    assert isinstance(exc, TableError)
    return _error(str(exc), exc.status)


async def _bad_body(request: Request, exc: Exception) -> Response:
    """A request body that is not a JSON object of the allowed size: its words and its status (400, 413)."""
    assert isinstance(exc, BodyError)
    return _error(str(exc), exc.status)


async def _conflict(request: Request, exc: Exception) -> Response:
    """A request the store refuses (a stale sequence number, a table run elsewhere): 409 with its words."""
    return _error(str(exc), 409)


def _unreachable() -> JSONResponse:
    response = _error("the database did not answer: try again in a moment", 503)
    response.headers["Retry-After"] = "1"
    return response


async def _database_down(request: Request, exc: Exception) -> Response:
    """A request the database did not answer (a lost connection, a restart): 503 with its words; try again."""
    return _unreachable()


class DatabaseErrors:
    """The outermost layer: a request that fails because the database did not answer (wherever it was asked: the
    accounts' guard, a route, a table) is answered ``503 {"error": …}`` with ``Retry-After``, and logged in one line,
    never as a plain-text 500 and a traceback (issue 38); a WebSocket is closed with 1013 (try again)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] in ("http.response.start", "websocket.accept", "websocket.close"):
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            if not unavailable(exc):
                raise
            log.warning("%s %s: the database did not answer (%s)", scope["type"], scope.get("path"), type(exc).__name__)
            if started:
                return  # (the answer began: nothing more can be said on it)
            if scope["type"] == "http":
                await _unreachable()(scope, receive, send)
            else:
                await WebSocketClose(CLOSE_TRY_AGAIN, "try again in a moment")(scope, receive, send)


#: How a refused request becomes a reply: one place for every route (Starlette's exception handlers).
EXCEPTION_HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    TableError: _refused,
    StoreError: _conflict,
    StoreUnavailable: _database_down,
    AccountError: refused,
    BodyError: _bad_body,
}


def _table_id(request: Request) -> int:
    raw = request.path_params["table_id"]
    if not raw.isdigit() or len(raw) > 12:
        raise TableError(f"no table {raw}", 404)
    return int(raw)


async def health(request: Request, server: Server) -> Response:
    """``GET /api/health``: the server is up, its owner name, how many tables it runs and which engine build
    (``compiled`` or ``pure``); in a platform, each live process (node) and the tables it runs."""
    answer: dict[str, Any] = {
        "ok": True,
        "owner": server.config.owner,
        "tables": len(server.tables),
        "engine": engine_build(),
    }
    if server.bus is not None:
        answer["nodes"] = await server.bus.live_nodes()
    return JSONResponse(answer)


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
    out = await _summaries(server, list(reversed(infos[-500:])))
    return JSONResponse({"tables": out})


async def _summaries(server: Server, infos: list[Any]) -> list[dict[str, Any]]:
    """The lobby's line for each table: from the table when this process runs it, else from the store (the
    truth: seats, status, sequence number), with what only the table's owner knows (its watchers, the game so
    far, the phase) from the line the owner keeps in Redis, when that line is as new as the store's row."""
    elsewhere = [info.id for info in infos if info.id not in server.tables]
    kept = await server.bus.summaries(elsewhere) if server.bus is not None and elsewhere else {}
    out = []
    for info in infos:
        table = server.tables.get(info.id)
        if table is not None:
            out.append(table.summary())
            continue
        seats = await server.db_call(server.store.seats, info.id)
        line: dict[str, Any] = {
            "id": info.id,
            "name": info.name,
            "rules": info.rules.to_spec(),
            "room": info.room,
            "preset": info.rules.name,
            "status": info.status.value,
            "seats": [None if n not in seats else SeatState.stored(seats[n]).to_json(n) for n in range(4)],
            "seq": info.last_seq,
            "hand": info.hand_number,
            "games": info.game if info.hand_number else 0,
            "watch": info.watchers,
            "watch_delay": info.watch_delay,
            "watchers": 0,
        }
        owner = kept.get(info.id)
        if owner is not None and owner.get("seq") == info.last_seq and owner.get("hand") == info.hand_number:
            line.update({k: owner[k] for k in ("watchers", "game", "phase") if k in owner})
            line["seats"] = [
                s if s is None or o is None else {**s, "connected": o.get("connected", s["connected"])}
                for s, o in zip(line["seats"], owner.get("seats") or [None] * 4, strict=False)
            ]
        out.append(line)
    return out


async def rooms(request: Request, server: Server) -> Response:
    """``GET /api/rooms``: the platform's rooms (暗炒房, 扛旗房, 明炒房, then house tables), each with its rules,
    whether it keeps credits, its tables being waited for or played (newest first), and who is there."""
    infos = [i for i in await server.db_call(server.store.list_tables) if i.status is not TableStatus.FINISHED]
    out = []
    for room in ROOMS:
        mine = list(reversed([i for i in infos if i.room == room]))[:100]
        tables = await _summaries(server, mine)
        players = sum(1 for t in tables for s in t["seats"] if s is not None and s["kind"] == "player")
        rules = None if room == "house" else RuleSet.preset(room)
        out.append(
            {
                "room": room,
                "name": ROOM_NAMES[room],
                "rules": None if rules is None else rules.to_spec(),
                "describe": None if rules is None else rules.describe(),
                "credits": bool(rules is not None and rules.credits),
                "tables": tables,
                "players": players,
                "watchers": sum(t["watchers"] for t in tables),
            }
        )
    return JSONResponse({"rooms": out})


def _room(request: Request) -> str:
    room = request.path_params["room"]
    if room not in ROOMS:
        raise TableError(f"no room {room!r}; the rooms are {', '.join(ROOMS)}", 404)
    return str(room)


async def quick_join(request: Request, server: Server) -> Response:
    """``POST /api/rooms/{room}/quick``: a seat at an open table of the room (``{"name"?, "bots"?}``)."""
    room = _room(request)
    body = await _body(request)
    only_fields(body, {"name", "bots"})
    bots = body.get("bots", False)
    if not isinstance(bots, bool):
        raise TableError("'bots' is true or false", 400)
    account = await account_of(request)
    name = account[1] if account is not None else guest_name(body.get("name"))
    answer = await server.quick_join(room, name, account, bots=bots)
    return JSONResponse(answer, status_code=201)


def _page_number(request: Request, key: str) -> int:
    raw = request.query_params.get(key, "1")
    if not raw.isdigit() or not 1 <= int(raw) <= 100_000:
        raise TableError(f"'{key}' is a page number from 1", 400)
    return int(raw)


async def player(request: Request, server: Server) -> Response:
    """``GET /api/players/{username}``: an account's ratings, credits (the ledger's sums), games and ledger."""
    accounts = request.app.state.accounts
    found = await server.db_call(accounts.by_name, request.path_params["username"])
    if found is None:
        raise TableError("no player has this name", 404)
    games_page, ledger_page = _page_number(request, "games_page"), _page_number(request, "ledger_page")

    def read(connection: Any) -> dict[str, Any]:
        return {
            "account": {
                "id": found.id,
                "username": found.username,
                "kind": found.kind,
                "created_at": found.created_at.isoformat(),
            },
            "ratings": ratings.ratings_of(connection, found.id),
            "credits": ledger.balances(connection, found.id),
            "games": ledger.games_of(connection, found.id, games_page),
            "ledger": ledger.ledger_of(connection, found.id, ledger_page),
        }

    return JSONResponse(await server.db_call(server.store.read, read))


async def leaderboard(request: Request, server: Server) -> Response:
    """``GET /api/rooms/{room}/leaderboard?sort=rating|credits|games|winrate&page=N``: 20 a page."""
    room = _room(request)
    sort = request.query_params.get("sort", "rating")
    if sort not in ratings.SORTS:
        raise TableError(f"'sort' is one of {', '.join(ratings.SORTS)}", 400)
    page = _page_number(request, "page")
    answer = await server.db_call(server.store.read, lambda c: ratings.leaderboard(c, room, sort, page))
    return JSONResponse(answer)


async def create_table(request: Request, server: Server) -> Response:
    """``POST /api/tables``: a new table (201 with its summary); the seed may come as decimal text."""
    body = await _body(request)
    if body.get("seed") is not None:
        try:
            body["seed"] = lobby_seed(body["seed"])
        except ProtocolError as exc:
            raise TableError(str(exc), 400) from None
    table_id = await server.create_table(body)
    return JSONResponse(await server.table_op(table_id, "summary"), status_code=201)


async def get_table(request: Request, server: Server) -> Response:
    """``GET /api/tables/{id}``: one table's summary."""
    return JSONResponse(await server.table_op(_table_id(request), "summary"))


async def take_seat(request: Request, server: Server) -> Response:
    """``POST /api/tables/{id}/seats``: a guest or an account takes a seat (its resume token comes back once)
    or a bot fills it. A logged-in player sits under the account's name."""
    body = await _body(request)
    only_fields(body, {"name", "seat", "bot"})
    seat = body.get("seat")
    if seat is not None and (type(seat) is not int or seat not in (0, 1, 2, 3)):
        raise TableError("'seat' is 0..3 (or left out: the first free seat)", 400)
    bot = body.get("bot")
    if bot is not None and bot not in BOT_NAMES:
        raise TableError(f"'bot' is one of {', '.join(BOT_NAMES)}", 400)
    account = None if bot is not None else await account_of(request)
    if account is not None:
        name = account[1]
    else:
        name = "" if bot is not None and "name" not in body else guest_name(body.get("name"))
    who = None if account is None else list(account)
    answer = await server.table_op(_table_id(request), "seat", seat=seat, name=name, bot=bot, account=who)
    return JSONResponse(answer, status_code=201)


async def leave(request: Request, server: Server) -> Response:
    """``POST /api/tables/{id}/leave``: the seat with this token leaves (逃跑 during a game)."""
    body = await _body(request)
    only_fields(body, {"token"})
    token = body.get("token")
    if not isinstance(token, str) or not 1 <= len(token) <= 128:
        raise TableError("'token' is the seat's resume token", 400)
    return JSONResponse(await server.table_op(_table_id(request), "leave", token=token))


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
    return await _frames(await _body(request, MAX_RECORD_BYTES, "a record"))


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
    url: str = DEFAULT_URL,
    config: ServerConfig | None = None,
    *,
    on_ready: Callable[[], None] | None = None,
    lock: ServingLock | None = None,
) -> Starlette:
    """The ASGI application of a server on the database at ``url``; ``on_ready`` is called once it serves;
    ``lock``: the serving lock, taken already (else the server takes it as it starts)."""
    server = Server(url, config)
    events = EventService(server)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start(lock)
        events.start()
        if server.bus is not None:  # a platform: its processes count the accounts' rate limits together
            app.state.limits = Limits(server.config, redis_prefix=f"{server.bus.prefix}limits")
        if on_ready is not None:
            on_ready()
        try:
            yield
        finally:
            await events.stop()
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
        Route("/api/rooms", _endpoint(rooms)),
        Route("/api/rooms/{room}/quick", _endpoint(quick_join, write=True), methods=["POST"]),
        Route("/api/rooms/{room}/leaderboard", _endpoint(leaderboard)),
        Route("/api/players/{username}", _endpoint(player)),
        *ACCOUNT_ROUTES,
        *EVENT_ROUTES,
        WebSocketRoute("/ws/tables/{table_id}", table_socket),
        Route("/", page),
        Route("/t/{table_id}", page),
        Route("/replay", page),
        Route("/replay/{table_id}/{game}", page),
        Route("/p/{username}", page),
        Route("/rooms/{room}/leaderboard", page),
        Route("/events", page),
        Route("/events/{event_id}", page),
        Route("/events/{event_id}/organise", page),
        Route("/referee", page),
        Mount("/static", _Static(directory=STATIC), name="static"),
    ]
    accounts = Accounts(server.store.engine)
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(DatabaseErrors),
            Middleware(Guard, accounts=accounts, allowed_origins=server.config.allowed_origins),
            Middleware(GZipMiddleware, minimum_size=2048),
        ],
        exception_handlers=EXCEPTION_HANDLERS,
    )
    app.state.server = server
    app.state.accounts = accounts
    app.state.events = events
    app.state.limits = Limits(server.config)
    return app
