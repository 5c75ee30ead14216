"""``chaodipi serve``: run the game server under uvicorn, with limits that slow clients cannot get around.

uvicorn times out an idle keep-alive connection (5 s) but nothing else: a client that sends half a
request, or trickles it a byte at a time, would hold its connection (a file descriptor) for ever.
:func:`guarded_protocol` is uvicorn's h11 protocol with three limits of :class:`ServerConfig`:

- ``head_timeout_s`` (10 s): a request's line and headers must have arrived this long after the
  connection opened, or after the first byte of the next request on a kept-alive connection;
- ``body_timeout_s`` (30 s): its body must have arrived this long after its head;
- ``max_connections`` (1000, and never more than the process's open-file limit allows, less 100):
  connections open at once, HTTP and WebSocket together; one more is answered 503 and closed.

A connection over a time limit is answered ``408 Request Timeout`` (when nothing was answered yet)
and closed; each refusal is logged. The request head is at most 16 KiB (h11's limit: 400 above it).
A WebSocket connection leaves these limits once it is upgraded (its hello has 10 s:
docs/protocol.md).

A request's address (the one the rate limits count) is its connection's: ``X-Forwarded-For`` and
``X-Forwarded-Proto`` are believed only from the proxies the operator names
(``forwarded_allow_ips``, ``chaodipi serve --forwarded-allow-ips``; uvicorn alone would believe any
client on 127.0.0.1, which could then give itself a fresh budget with each made-up address).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import MAX_MESSAGE_BYTES

__all__ = [
    "FD_RESERVE",
    "KEEP_ALIVE_S",
    "connection_limit",
    "default_owner",
    "guarded_protocol",
    "serve",
    "uvicorn_options",
]

log = logging.getLogger("chaodipi.server")

#: Seconds an idle kept-alive HTTP connection stays open (uvicorn's ``timeout_keep_alive``).
KEEP_ALIVE_S = 5
#: Open files kept for the database, the bots' processes and the logs when the connection limit
#: is fitted under the process's open-file limit.
FD_RESERVE = 100


def default_owner(port: int) -> str:
    """This process's name in the database: host and port, so a restarted server takes its own tables back at once."""
    return f"{socket.gethostname()[:48]}:{port}"


def connection_limit(wanted: int) -> int:
    """``wanted``, or fewer when the process may not open that many files (its soft ``RLIMIT_NOFILE`` less
    :data:`FD_RESERVE`)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return wanted
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - FD_RESERVE))


def _response(status: str, text: str) -> bytes:
    body = text.encode("utf-8")
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def guarded_protocol(config: ServerConfig, max_connections: int | None = None) -> type[asyncio.Protocol]:
    """uvicorn's h11 HTTP protocol with ``config``'s head and body timeouts and a limit on open connections
    (``max_connections``, default ``config.max_connections``); pass it to uvicorn as ``http=``."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    head_s = config.head_timeout_s
    body_s = config.body_timeout_s
    most = config.max_connections if max_connections is None else max_connections

    class GuardedH11Protocol(H11Protocol):
        """h11 with a deadline on each request's head and body, and at most ``most`` open connections."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._deadline: asyncio.TimerHandle | None = None
            self._stage = ""  # "head" or "body" while a deadline runs

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            """A new connection: refused (503) beyond the limit, else its head's deadline starts."""
            super().connection_made(transport)
            if len(self.connections) > most:
                log.warning(
                    "refused a connection from %s: %d connections are open, the most this server takes",
                    self._peer(),
                    most,
                )
                transport.write(_response("503 Service Unavailable", "too many connections: try again soon\n"))
                transport.close()
                return
            self._arm("head")

        def connection_lost(self, exc: Exception | None) -> None:
            """The connection is gone: no deadline is left behind."""
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            """Bytes came: h11 reads them, then the deadline follows the part of the request awaited."""
            super().data_received(data)
            self._watch()

        def _watch(self) -> None:
            """After new bytes: which part of a request is awaited, and its deadline."""
            if self.transport.is_closing() or self.transport.get_protocol() is not self:  # closed, or a WebSocket now
                self._disarm()
                return
            state = self.conn.their_state
            if state is h11.IDLE:  # the head has not all arrived (the first bytes of a request, or of the next one)
                if self._stage != "head":
                    self._arm("head")
            elif state is h11.SEND_BODY:
                if self._stage != "body":
                    self._arm("body")
            else:  # the request is in: the application answers it in its own time
                self._disarm()

        def _arm(self, stage: str) -> None:
            self._disarm()
            self._stage = stage
            self._deadline = self.loop.call_later(head_s if stage == "head" else body_s, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = None
            self._stage = ""

        def _expired(self) -> None:
            stage = self._stage
            self._deadline = None
            self._stage = ""
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            limit = head_s if stage == "head" else body_s
            what = "no whole request head" if stage == "head" else "the request body did not all arrive"
            log.warning("closed the connection from %s: %s within %g s", self._peer(), what, limit)
            answered = self.cycle is not None and self.cycle.response_started
            if stage == "head" or not answered:
                self.transport.write(_response("408 Request Timeout", f"{what} within {limit:g} s\n"))
            self.transport.close()

        def _peer(self) -> str:
            client = self.client
            return f"{client[0]}:{client[1]}" if client else "?"

    return GuardedH11Protocol


def uvicorn_options(config: ServerConfig) -> dict[str, Any]:
    """What ``chaodipi serve`` gives uvicorn besides the address: the guarded protocol, the keep-alive time,
    the WebSocket pings and largest message, the logging, and the proxies whose forwarded headers are believed
    (none unless ``config.forwarded_allow_ips`` names them).

    >>> options = uvicorn_options(ServerConfig())
    >>> options["proxy_headers"], options["forwarded_allow_ips"]
    (False, [])
    >>> options = uvicorn_options(ServerConfig(forwarded_allow_ips=("10.0.0.1", "192.168.0.0/16")))
    >>> options["proxy_headers"], options["forwarded_allow_ips"]
    (True, ['10.0.0.1', '192.168.0.0/16'])
    """
    return {
        "proxy_headers": bool(config.forwarded_allow_ips),
        "forwarded_allow_ips": list(config.forwarded_allow_ips),
        "http": guarded_protocol(config, connection_limit(config.max_connections)),
        "timeout_keep_alive": KEEP_ALIVE_S,
        "ws_max_size": MAX_MESSAGE_BYTES * 4,
        "ws_ping_interval": 20,
        "ws_ping_timeout": 20,
        "log_level": "info",
        "access_log": False,
    }


def serve(host: str, port: int, url: str, config: ServerConfig) -> None:
    """Serve the lobby and the tables at ``http://host:port`` on the database at ``url`` until stopped."""
    import uvicorn

    from chaodipi.server.app import create_app
    from chaodipi.server.exclusive import ServingLock
    from chaodipi.server.store import Store

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    shown = "localhost" if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host
    most = connection_limit(config.max_connections)
    if most < config.max_connections:
        log.warning(
            "at most %d connections at once, not %d: the process may open only %d files",
            most,
            config.max_connections,
            most + FD_RESERVE,
        )

    def ready() -> None:
        print(f"chaodipi: play in your browser at http://{shown}:{port}  (database {url}; Ctrl+C stops)", flush=True)

    # Refused before anything listens (ServeRefused, a ValueError: the command prints its words): several
    # processes on SQLite, a lone process beside a platform, a platform process beside a lone one.
    store = Store(url)
    try:
        lock = ServingLock(store.engine, platform=config.redis is not None).acquire()
    finally:
        store.close()
    app = create_app(url, config, on_ready=ready, lock=lock)
    try:
        uvicorn.run(app, host=host, port=port, **uvicorn_options(config))
    finally:
        lock.release()
