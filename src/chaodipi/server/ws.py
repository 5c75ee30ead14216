"""The WebSocket endpoint ``/ws/tables/{id}`` (docs/protocol.md): one :class:`Connection` per client.

A connection says hello with its seat's token, then sends client messages that are checked for
shape here (:func:`~chaodipi.server.protocol.parse_client`) and for legality by the table's engine;
every message is rate-limited, and a client that does not read what it is sent is dropped.

Every message the server cannot send ends in a log line and, while the socket is open, a close
code: a message that cannot be written as UTF-8 text (a bug: the protocol refuses text that is not
valid Unicode before anything could echo it) closes with :data:`CLOSE_UNSENDABLE` (1011); a client
that is gone while a message is written is logged and forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from chaodipi.server.accounts import account_of
from chaodipi.server.config import ServerConfig
from chaodipi.server.messages import ErrorReply
from chaodipi.server.protocol import ProtocolError, parse_hello
from chaodipi.server.store import unavailable
from chaodipi.server.table import CLOSE_TOO_LARGE, CLOSE_TRY_AGAIN, TableError
from chaodipi.server.tables import Server, TableLink

__all__ = [
    "CLOSE_BAD_HELLO",
    "CLOSE_NO_TABLE",
    "CLOSE_TOO_FAST",
    "CLOSE_TOO_LARGE",
    "CLOSE_TOO_SLOW",
    "CLOSE_TRY_AGAIN",
    "CLOSE_UNSENDABLE",
    "Connection",
    "table_socket",
]

log = logging.getLogger("chaodipi.server")

CLOSE_BAD_HELLO = 4400
CLOSE_NO_TABLE = 4404
CLOSE_TOO_FAST = 4429
CLOSE_TOO_SLOW = 4408  # the client did not read its messages
CLOSE_UNSENDABLE = 1011  # the server could not send a message (an internal error): reconnect


# -- WebSocket --------------------------------------------------------------------------------------


class Connection:
    """One client's WebSocket: a queue of outgoing messages drained by a sender task, and a rate limit."""

    def __init__(self, websocket: WebSocket, config: ServerConfig) -> None:
        self.websocket = websocket
        self.config = config
        self.seat = -1  # the seat this connection speaks for (set by the table when it accepts the hello)
        self.account: tuple[int, str] | None = None  # the account logged in on this connection (its cookie)
        self.hand_sent = -1
        self.events_sent = 0
        self.closed = False
        self.outbox: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue(config.send_queue)
        self.tokens = float(config.rate_burst)
        self.refilled = time.monotonic()

    def send(self, text: str) -> None:
        """Queue a message; a client whose queue is full cannot keep up and is dropped."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dropping a client that does not read its messages (seat %s)", self.seat)
            self._drop(CLOSE_TOO_SLOW, "too slow: messages were not read")

    def close(self, code: int, reason: str) -> None:
        """Close after what is queued."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait((code, reason))
            self.closed = True
        except asyncio.QueueFull:
            self._drop(code, reason)

    def _drop(self, code: int, reason: str) -> None:
        self.closed = True
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
        """The sender task: write queued messages in order; close when told to.

        A message that cannot be written as UTF-8 closes the connection with :data:`CLOSE_UNSENDABLE`;
        a client gone while a message is written is forgotten. Both are logged.
        """
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
            except UnicodeEncodeError as exc:
                log.error(
                    "seat %s: a message cannot be sent (not UTF-8 text: %s at character %d of %a); closing %d",
                    self.seat,
                    exc.reason,
                    exc.start,
                    item[:120],
                    CLOSE_UNSENDABLE,
                )
                self._end()
                if ws.application_state is WebSocketState.CONNECTED:
                    with contextlib.suppress(Exception):
                        await ws.close(CLOSE_UNSENDABLE, "the server could not send a message")
                return
            except Exception as exc:  # the client is gone (a reset connection, a close that crossed this send)
                log.info("seat %s: a message was not sent, the client is gone (%s)", self.seat, type(exc).__name__)
                self._end()
                return

    def _end(self) -> None:
        """No more messages: what is queued is dropped."""
        self.closed = True
        while not self.outbox.empty():
            self.outbox.get_nowait()


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
    """``/ws/tables/{id}``: hello first, then actions; every reply comes from the table's task.

    The table may run in this process or in another of the platform (:meth:`Server.link`): then the hello
    and the messages are relayed to it and its replies come back the same way (:mod:`chaodipi.server.relay`).
    """
    server: Server = websocket.app.state.server
    await websocket.accept()
    conn = Connection(websocket, server.config)
    pump = asyncio.get_running_loop().create_task(conn.pump())
    link: TableLink | None = None
    try:
        raw = websocket.path_params.get("table_id", "")
        try:
            if not str(raw).isdigit() or len(str(raw)) > 12:
                raise TableError(f"no table {raw}", 404)
            try:
                conn.account = await account_of(websocket)
                link = await server.link(int(raw))
            except Exception as exc:  # (the database did not answer: the client tries again in a moment)
                if not unavailable(exc):
                    raise
                raise TableError("the database did not answer: try again in a moment", 503) from None
        except TableError as exc:
            conn.send(ErrorReply(0, "no_table", str(exc)).text())
            if exc.status == 404:
                conn.close(CLOSE_NO_TABLE, "no such table")
            else:  # (the table is moving between processes of a platform)
                conn.close(CLOSE_TRY_AGAIN, "try again in a moment")
            return
        try:
            async with asyncio.timeout(server.config.hello_timeout_s):
                text = await _receive(websocket)
        except TimeoutError:
            limit = server.config.hello_timeout_s
            conn.send(ErrorReply(link.seq, "hello_required", f"no hello within {limit:g} s").text())
            conn.close(CLOSE_BAD_HELLO, "a hello with the seat's token comes first")
            return
        if text is None:
            return
        try:
            hello = parse_hello(text)
        except ProtocolError as exc:
            conn.send(ErrorReply(link.seq, exc.code, str(exc)).text())
            conn.close(CLOSE_BAD_HELLO, "a hello with the seat's token comes first")
            return
        link.connect(conn, hello)
        strikes = 0
        while not conn.closed:
            text = await _receive(websocket)
            if text is None:
                return
            if not conn.allow():
                strikes += 1  # refused in a row: a client that keeps flooding is closed
                conn.send(ErrorReply(link.seq, "rate", "too many messages: slow down").text())
                if strikes > server.config.rate_burst:
                    conn.close(CLOSE_TOO_FAST, "too many messages")
                continue
            strikes = 0
            link.raw(conn, text)
    except WebSocketDisconnect:
        pass
    finally:
        conn.closed = True
        if link is not None:
            link.disconnect(conn)
        if not pump.done():
            with contextlib.suppress(asyncio.QueueFull):
                conn.outbox.put_nowait((1000, "bye"))
            try:
                await asyncio.wait_for(pump, 2)
            except (TimeoutError, asyncio.CancelledError):
                pump.cancel()


#: The browser client's pages may load nothing from another site (issue 12: every asset is the project's own).
