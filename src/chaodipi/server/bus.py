"""What several server processes on one database tell each other, through Redis (issue 22).

Each process of a platform is a *node*, named by its owner name (``host:port`` by default). Redis
(redis-py's asyncio client) carries:

- the **node registry**: a hash ``nodes`` of each node's load (the tables it runs) and when it last
  said so; a node silent for a lease is taken for dead (:meth:`Bus.live_nodes`);
- **messages to one node** on its channel ``to:<node>`` (pub/sub): a client's messages relayed to the
  process that runs its table and the table's messages relayed back (:mod:`chaodipi.server.relay`),
  lobby requests to a table's owner and their answers (:meth:`Bus.request`), and tables handed over;
- the **lobby's lines**: a hash ``summaries`` of the latest line of each running table (who sits
  there, the watchers, the game), written by its owner, read by every process's lobby.

Redis is treated as lossy: nothing in it is needed to rebuild anything. A lobby line older than
the store's row is not shown (the store's is); a message lost on its way to a client shows as a gap
in its events and the client asks again (a reconnect: its table's owner answers from the hand,
which is the store's); a lobby request whose answer is lost times out (:class:`BusTimeout`) and
the caller may ask again. Every key and channel is prefixed with the platform's namespace (one per
database), so that platforms on different databases can share one Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError

__all__ = ["Bus", "BusError", "BusTimeout", "Handler"]

log = logging.getLogger("chaodipi.server")

#: A handler of one kind of message: called with the message (a JSON object) in the event loop.
Handler = Callable[[dict[str, Any]], Awaitable[None] | None]


class BusError(ValueError):
    """A request to another process that failed there (its words and HTTP status come back)."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


class BusTimeout(BusError):
    """No answer came from the other process in time (it died, or Redis lost the message)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 503)


class Bus:
    """This process's link to the others of its platform: a Redis client, a subscriber and a sender task."""

    def __init__(self, url: str, node: str, namespace: str, *, lease_s: float) -> None:
        self.url = url
        self.node = node
        self.prefix = f"cdp:{namespace}:"
        self.lease_s = lease_s
        self.redis: aioredis.Redis = aioredis.from_url(url)
        self.handlers: dict[str, Handler] = {}
        #: The kinds handled each in a task of its own (in any order); the others in the order they came.
        self.aside: set[str] = set()
        self._aside: set[asyncio.Task[None]] = set()
        self._outbox: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()  # None: stop
        self._tasks: list[asyncio.Task[None]] = []
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._subscribed = asyncio.Event()
        self._published: dict[int, bytes] = {}  # the lobby lines this node wrote last, by table
        self._nodes: dict[str, int] = {node: 0}  # the live nodes last read from the registry
        #: Whether this node hears its channel now (subscribed, and its last messages were sent).
        self.up = False
        #: Called (in the event loop, with the reason in words) when messages to or from this node may have been
        #: lost: its subscription dropped (Redis restarted, the connection was cut), or messages could not be sent.
        self.on_lost: list[Callable[[str], None]] = []

    # -- names ------------------------------------------------------------------------------------
    def channel(self, node: str) -> str:
        """The channel of messages to ``node``."""
        return f"{self.prefix}to:{node}"

    # -- life -------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Check that Redis answers, then start listening on this node's channel and the sender task."""
        await self.redis.ping()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen(), name="bus-listen"), loop.create_task(self._send_loop())]
        await asyncio.wait_for(self._subscribed.wait(), 10)

    async def close(self) -> None:
        """Leave the registry, stop listening and sending (what is queued is sent first, briefly)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._drain(), 2)
        with contextlib.suppress(Exception):
            await self.redis.hdel(f"{self.prefix}nodes", self.node)
        self._outbox.put_nowait(None)  # (the sender stops there, even if a cancellation was swallowed below it)
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=2)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(BusTimeout("this server is stopping"))
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def _drain(self) -> None:
        while not self._outbox.empty() and not all(t.done() for t in self._tasks):
            await asyncio.sleep(0.01)

    # -- sending ----------------------------------------------------------------------------------
    def send(self, node: str, message: dict[str, Any]) -> None:
        """Queue ``message`` for ``node`` (in order with this node's other messages to it; lossy)."""
        self._outbox.put_nowait((self.channel(node), orjson.dumps(message)))

    async def _send_loop(self) -> None:
        """Publish what is queued, everything waiting at once in one pipeline, in order."""
        while True:
            first = await self._outbox.get()
            if first is None:
                return
            batch = [first]
            while not self._outbox.empty() and len(batch) < 1000:
                item = self._outbox.get_nowait()
                if item is None:
                    self._outbox.put_nowait(None)  # (sent what came before it first)
                    break
                batch.append(item)
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: these messages are lost (their clients are told: _lost)
                log.warning("bus: %d message(s) not sent: %s", len(batch), exc)
                self._lost(f"{len(batch)} message(s) not sent ({type(exc).__name__})")
                await asyncio.sleep(0.5)

    # -- receiving --------------------------------------------------------------------------------
    async def _listen(self) -> None:
        """Read this node's channel and hand each message to its kind's handler; resubscribe after an error."""
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel(self.node))
                self._subscribed.set()
                self.up = True
                while True:
                    item = await pubsub.get_message(timeout=1.0)
                    if item is None or item.get("type") != "message":
                        continue
                    await self._dispatch(item["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("bus: listening stopped (%s); subscribing again", exc)
                self.up = False
                self._lost(f"listening stopped ({type(exc).__name__})")
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]

    def _lost(self, reason: str) -> None:
        for callback in list(self.on_lost):
            try:
                callback(reason)
            except Exception:
                log.exception("bus: telling of lost messages failed")

    async def _dispatch(self, data: bytes) -> None:
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            log.warning("bus: a message that is not JSON was ignored")
            return
        if not isinstance(message, dict):
            return
        kind = message.get("k")
        if kind == "reply":
            future = self._waiting.pop(str(message.get("id")), None)
            if future is not None and not future.done():
                if message.get("ok"):
                    future.set_result(message.get("v"))
                else:
                    future.set_exception(BusError(str(message.get("e")), int(message.get("s") or 409)))
            return
        handler = self.handlers.get(str(kind))
        if handler is None:
            log.warning("bus: a message of unknown kind %r was ignored", kind)
            return
        if kind in self.aside:  # (a request waits for its table: the messages behind it do not wait for it)
            task = asyncio.get_running_loop().create_task(self._handle(str(kind), handler, message))
            self._aside.add(task)
            task.add_done_callback(self._aside.discard)
            return
        await self._handle(str(kind), handler, message)

    async def _handle(self, kind: str, handler: Handler, message: dict[str, Any]) -> None:
        try:
            result = handler(message)
            if result is not None:
                await result
        except Exception:
            log.exception("bus: a %r message could not be handled", kind)

    # -- requests (a lobby request to the process that runs the table) ------------------------------
    async def request(self, node: str, op: str, args: dict[str, Any], *, timeout: float = 5.0) -> Any:
        """Ask ``node`` to run ``op`` (its ``call`` handler) and wait for the answer; :class:`BusError` with the
        other process's words and status if refused there, :class:`BusTimeout` if nothing came in time."""
        ident = f"{self.node}#{next(self._ids)}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        self.send(node, {"k": "call", "id": ident, "from": self.node, "op": op, "a": args})
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise BusTimeout(f"{node} did not answer in {timeout:g} s") from None
        finally:
            self._waiting.pop(ident, None)

    def reply(self, request: dict[str, Any], value: Any = None, error: Exception | None = None) -> None:
        """Answer a ``call`` message: its value, or the error's words and status."""
        node, ident = str(request.get("from")), request.get("id")
        if error is None:
            self.send(node, {"k": "reply", "id": ident, "ok": True, "v": value})
        else:
            status = int(getattr(error, "status", 409))
            self.send(node, {"k": "reply", "id": ident, "ok": False, "e": str(error), "s": status})

    # -- the registry -------------------------------------------------------------------------------
    async def heartbeat(self, tables: int) -> None:
        """Say this node is alive and how many tables it runs."""
        entry = orjson.dumps({"node": self.node, "tables": tables, "at": time.time()})
        await self.redis.hset(f"{self.prefix}nodes", self.node, entry)

    async def live_nodes(self) -> dict[str, int]:
        """The nodes heard from within a lease, each with the tables it runs (this node always included). While
        Redis does not answer: the nodes it last said (the processes go on sharing the work as they did)."""
        try:
            raw = await self.redis.hgetall(f"{self.prefix}nodes")
        except RedisError as exc:
            log.warning("bus: the registry cannot be read (%s); the nodes last seen stand", type(exc).__name__)
            return dict(self._nodes)
        now = time.time()
        out: dict[str, int] = {}
        for value in raw.values():
            with contextlib.suppress(orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                entry = orjson.loads(value)
                if now - float(entry["at"]) <= self.lease_s:
                    out[str(entry["node"])] = int(entry["tables"])
        out.setdefault(self.node, 0)
        self._nodes = dict(out)
        return out

    # -- the lobby's lines --------------------------------------------------------------------------
    async def publish_summaries(self, lines: dict[int, dict[str, Any]], gone: Iterable[int] = ()) -> None:
        """Write the lobby lines of this node's tables that changed since last time; drop those of ``gone``."""
        key = f"{self.prefix}summaries"
        changed = {}
        for table_id, line in lines.items():
            data = orjson.dumps(line)
            if self._published.get(table_id) != data:
                changed[str(table_id)] = data
                self._published[table_id] = data
        dropped = [str(t) for t in gone]
        for t in gone:
            self._published.pop(t, None)
        if changed:
            await self.redis.hset(key, mapping=changed)  # type: ignore[arg-type]
        if dropped:
            await self.redis.hdel(key, *dropped)

    async def summaries(self, table_ids: list[int]) -> dict[int, dict[str, Any]]:
        """The lobby lines Redis holds for these tables (those it has)."""
        if not table_ids:
            return {}
        try:
            values = await self.redis.hmget(f"{self.prefix}summaries", [str(t) for t in table_ids])
        except RedisError as exc:  # (the lobby shows the store's lines: they lack only what the owners know)
            log.warning("bus: the lobby's lines cannot be read (%s)", type(exc).__name__)
            return {}
        out: dict[int, dict[str, Any]] = {}
        for table_id, value in zip(table_ids, values, strict=True):
            if value is not None:
                with contextlib.suppress(orjson.JSONDecodeError):
                    out[table_id] = orjson.loads(value)
        return out
