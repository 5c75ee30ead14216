"""The tables this process runs: :class:`Server` owns the store, the tables (one
:class:`~chaodipi.server.table.Table` task each), the database thread(s), the writer that commits the
tables' actions in batches (:class:`~chaodipi.server.writer.Writer`) and the bots' process pool,
claims and rebuilds the stored tables, and renews its claims on them; in a platform of several
processes (issue 22) it also relays to the tables other processes run, places new tables, takes over
those of a process that died and hands its own over when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from redis.exceptions import RedisError

from chaodipi.log import Action
from chaodipi.rules import RuleError, RuleSet
from chaodipi.server.bots import BOT_NAMES, BotRunner
from chaodipi.server.bus import Bus, BusError
from chaodipi.server.config import ServerConfig, Stats
from chaodipi.server.exclusive import ServingLock, namespace
from chaodipi.server.protocol import Hello
from chaodipi.server.relay import RemoteLink, RemotePeer, hello_from_json
from chaodipi.server.seats import Peer
from chaodipi.server.store import (
    DEFAULT_URL,
    MAX_GAME_MINUTES,
    MAX_WATCH_DELAY,
    ROOMS,
    SEED_RANGE,
    Fence,
    NotOwnerError,
    ReservedSeat,
    SessionLimits,
    Store,
    StoreError,
    StoreUnavailable,
    TableStatus,
    UnknownTableError,
    outage_words,
)
from chaodipi.server.table import CLOSE_MOVED, CLOSE_TRY_AGAIN, MAX_NAME, GameListener, Table, TableError, in_thread
from chaodipi.server.writer import Writer

__all__ = [
    "CLOSE_RESTART",
    "LOBBY_WRITES_PER_MINUTE",
    "ROOM_NAMES",
    "TABLE_OPS",
    "Server",
    "TableLink",
    "guest_name",
    "only_fields",
]

log = logging.getLogger("chaodipi.server")

#: Each room's name (the source platform's): 暗炒房 the dark-fry room, 扛旗房 the flag room, 明炒房 the open-fry room.
ROOM_NAMES = {"anchao": "暗炒房", "kangqi": "扛旗房", "mingchao": "明炒房", "house": "自定义桌"}

#: Lobby requests that change something, per client address, per minute.
LOBBY_WRITES_PER_MINUTE = 120


class TableLink(Protocol):
    """A table as the WebSocket endpoint talks to it: one this process runs (a :class:`Table`) or one another
    process runs (a :class:`~chaodipi.server.relay.RemoteLink`, its messages relayed through Redis)."""

    id: int
    seq: int

    def connect(self, peer: Peer, hello: Hello) -> None:
        """A client said hello on ``peer``."""
        ...

    def raw(self, peer: Peer, text: str) -> None:
        """A client message as it came."""
        ...

    def disconnect(self, peer: Peer) -> None:
        """The client's connection closed."""
        ...


#: WebSocket close code of a server that stops (its tables go to other processes, or wait for its restart).
CLOSE_RESTART = 1012
#: What a lobby request to a table asks of it (:meth:`Server.table_op`), run in the table's task.
TABLE_OPS = ("summary", "seat", "fill", "leave", "claim", "penalty")


class Server:
    """The tables this process runs, their store, and the machinery they share.

    Alone (no Redis) it runs every table of its database. In a platform (``config.redis``: several
    processes on one PostgreSQL database) it runs the tables it claimed, answers clients and lobby
    requests for the others through their owners (:mod:`chaodipi.server.bus`, :mod:`chaodipi.server.relay`),
    places new tables on the least loaded process, takes over the tables of a process that died once
    their leases run out, and hands its own over when it stops.
    """

    def __init__(self, url: str = DEFAULT_URL, config: ServerConfig | None = None) -> None:
        self.url = url
        self.config = config or ServerConfig()
        # its PostgreSQL sessions hold no lock longer than half a lease: a stalled process never holds a table up
        self.store = Store(url, limits=SessionLimits.for_lease(self.config.lease_s, self.owner))
        sqlite = self.store.engine.dialect.name == "sqlite"
        # SQLite takes one writer at a time: one database thread; PostgreSQL: a few.
        self.db = ThreadPoolExecutor(1 if sqlite else 4, thread_name_prefix="chaodipi-db")
        self.writer = Writer(self.store, self.db)  # every table's accepted actions, committed in batches
        self.bots = BotRunner(self.config.bot_workers)
        self.tables: dict[int, Table] = {}
        self.stats = Stats()
        self.lock: ServingLock | None = None  # how this process serves the database (alone, or in a platform)
        self.bus: Bus | None = None  # the other processes of the platform (None: this process alone)
        self.sockets: dict[str, tuple[Peer, RemoteLink]] = {}  # clients here whose tables run elsewhere
        self.remote: dict[str, tuple[RemotePeer, Table]] = {}  # clients elsewhere of tables that run here
        self._loading: dict[int, asyncio.Lock] = {}  # a table being claimed and rebuilt here: one at a time per table
        self._maintainer: asyncio.Task[None] | None = None
        self._orphans_seen: dict[int, float] = {}
        self._hellos: set[str] = set()  # relayed clients whose hello is being answered here
        self._stopping = False
        self._writes: dict[str, list[float]] = {}
        #: Told of every game that finishes at a table this process runs, once its outcome is stored
        #: (:meth:`Store.game_outcomes <chaodipi.server.store.Store.game_outcomes>` has them all): the table's id
        #: and the :class:`~chaodipi.server.store.GameOutcome`; awaited in a task, an error logged.
        self.game_listeners: list[GameListener] = []

    @property
    def owner(self) -> str:
        """This process's name (its node's, in a platform)."""
        return self.config.owner

    def _lease(self) -> timedelta:
        return timedelta(seconds=self.config.lease_s)

    async def db_call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a store call in the database thread(s); a database that did not answer raises
        :class:`~chaodipi.server.store.StoreUnavailable` (the lobby answers 503: try again)."""
        return await in_thread(self.db, fn, *args, **kwargs)

    async def start(self, lock: ServingLock | None = None) -> None:
        """Migrate the database, take the serving lock (:mod:`~chaodipi.server.exclusive`), join the platform
        when there is one, claim and rebuild the tables this process runs, and start looking after them."""
        await self.db_call(self.store.migrate)
        platform = self.config.redis is not None
        self.lock = lock or await self.db_call(ServingLock(self.store.engine, platform=platform).acquire)
        if self.config.redis is not None:
            space = await self.db_call(namespace, self.store.engine)
            self.bus = Bus(self.config.redis, self.owner, space, lease_s=self.config.lease_s)
            self.bus.handlers.update(
                {
                    "hello": self._on_hello,
                    "in": self._on_in,
                    "bye": self._on_bye,
                    "out": self._on_out,
                    "close": self._on_close,
                    "call": self._on_call,
                    "adopt": self._on_adopt,
                }
            )
            self.bus.aside.update({"call", "adopt"})  # (each waits for its table; the relayed messages keep order)
            self.bus.on_lost.append(self._relays_lost)
            await self.bus.start()
            await self.bus.heartbeat(0)
        for info in await self.db_call(self.store.list_tables):
            # alone: every table; in a platform: this process's own (a restart takes them back at once)
            if info.status is not TableStatus.FINISHED and (self.bus is None or info.owner == self.owner):
                await self._load(info.id)
        self._maintainer = asyncio.get_running_loop().create_task(self._maintain())

    async def stop(self) -> None:
        """Stop every table and give up their claims (what is stored stays); in a platform, hand them to the
        other processes at once. Clients are closed with 1012 and reconnect (to any process)."""
        self._stopping = True
        if self._maintainer is not None:
            self._maintainer.cancel()
            with contextlib.suppress(BaseException):
                await self._maintainer
        tables = list(self.tables.values())
        for table in tables:
            await table.stop()
        released: list[int] = []
        with contextlib.suppress(Exception):
            released = await self.db_call(self.store.release, self.owner)
        if self.bus is not None and released:
            with contextlib.suppress(Exception):
                await self._hand_over(released)
        for table in tables:
            for peer in table._all_peers():
                peer.close(CLOSE_RESTART, "the server is restarting: reconnect")
        for peer, _ in list(self.sockets.values()):
            peer.close(CLOSE_RESTART, "the server is restarting: reconnect")
        self.tables.clear()
        if self.bus is not None:
            with contextlib.suppress(Exception):
                await self.bus.publish_summaries({}, gone=released)
            await self.bus.close()
        if self.lock is not None:
            self.lock.release()
        self.bots.close()
        self.db.shutdown(wait=True)
        self.store.close()

    async def _hand_over(self, released: list[int]) -> None:
        """Give each released table to a live process, the least loaded first (they claim them at once)."""
        assert self.bus is not None
        nodes = {n: c for n, c in (await self.bus.live_nodes()).items() if n != self.owner}
        for table_id in released:
            if not nodes:
                return  # nobody else: the tables wait for this process's restart (or the next one to come)
            node = min(nodes, key=lambda n: (nodes[n], n))
            nodes[node] += 1
            self.bus.send(node, {"k": "adopt", "t": table_id})

    # -- looking after the tables ------------------------------------------------------------------
    async def _maintain(self) -> None:
        """Renew the claims every quarter lease (and say this node is alive), and every second take over tables
        whose owner is gone and check that relayed clients still reach their tables' owners: two loops, so that
        a renewal never waits behind the tables being claimed and rebuilt."""
        await asyncio.gather(
            self._every(self.config.lease_s / 4, self._renew),
            self._every(min(1.0, self.config.lease_s / 4), self._look_around),
            self._every(RELAY_SETTLE_S, self._audit_relays),
            self._watch_stalls(),
        )

    async def _watch_stalls(self) -> None:
        """Notice that this process stalled (a long pause: a stopped or swapped-out process, a frozen container) for
        long enough that the others may have taken it for dead and forgotten its relayed clients: those are told to
        reconnect at once (:meth:`_relays_lost`), rather than wait on a relay nobody serves."""
        tick = 0.25
        limit = max(1.0, 0.75 * self.config.lease_s)
        last = time.monotonic()
        while True:
            await asyncio.sleep(tick)
            now = time.monotonic()
            stalled, last = now - last - tick, now
            if stalled >= limit:
                log.warning("this process stalled for %.1f s", stalled)
                self._relays_lost(f"this process stalled for {stalled:.1f} s")

    def _relays_lost(self, reason: str) -> None:
        """Messages between this process and the others may have been lost (:attr:`Bus.on_lost
        <chaodipi.server.bus.Bus.on_lost>`, or a stall): every relayed client is closed with 1013 and reconnects
        with where it stood (to any process), so that none waits on a relay that lost its messages. (The clients
        of this process's own tables connected here lose nothing: their messages do not cross Redis.)"""
        if not self.sockets and not self.remote:
            return
        log.warning(
            "relays: %s; %d relayed client(s) here and %d elsewhere reconnect",
            reason,
            len(self.sockets),
            len(self.remote),
        )
        for peer, _ in list(self.sockets.values()):
            peer.close(CLOSE_TRY_AGAIN, LINK_LOST)
        for conn, (remote, table) in list(self.remote.items()):
            del self.remote[conn]
            remote.close(CLOSE_TRY_AGAIN, LINK_LOST)
            table.disconnect(remote)

    async def _every(self, seconds: float, job: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except (StoreUnavailable, RedisError, OSError) as exc:  # (an outage: said in one line, no traceback)
                log.warning("cannot look after the tables now (%s); the next round tries again", outage_words(exc))
            except Exception:
                log.exception("cannot look after the tables (the next round tries again)")

    async def _look_around(self) -> None:
        await self._adopt_orphans()
        if self.bus is not None:
            await self._check_relays()

    async def _renew(self) -> None:
        """Extend the leases of the tables running here; one whose lease was lost (another process claimed it)
        stops here, and one that stopped here for another reason is released (whoever sees it next claims it)."""
        known = dict(self.tables)  # (a table claimed while the renewal runs is renewed next time)
        running = [t for t, table in known.items() if not table.moved]
        held = await self.db_call(self.store.renew, self.owner, self._lease(), running)
        gone = []
        for table_id, table in known.items():
            if self.tables.get(table_id) is not table:
                continue  # (dropped or replaced meanwhile)
            fence = table.fence
            if table.moved or (fence is not None and held.get(table_id) != fence.epoch):
                if not table.moved:
                    log.warning("table %s: its lease was lost (another process claimed it)", table_id)
                    table._moved()
                await table.stop()
                del self.tables[table_id]
                gone.append(table_id)
                if fence is not None:
                    await self.db_call(self.store.release, self.owner, table_id, epoch=fence.epoch)
        if self.bus is not None:
            await self.bus.heartbeat(len(self.tables))
            lines = {t.id: t.summary() for t in self.tables.values() if not t.moved}
            await self.bus.publish_summaries(lines, gone=gone)

    async def _adopt_orphans(self) -> None:
        """Claim this process's share of the tables nobody runs (their owner died or stopped): each goes to the
        live process :func:`adopter` names (every process names the same one, whatever it sees of the loads or
        when it looks); one still left after :data:`ORPHAN_GRACE_S` is taken by whoever sees it (its adopter died
        too, or has not looked yet)."""
        orphans = await self.db_call(self.store.orphans)
        now = time.monotonic()
        self._orphans_seen = {t: self._orphans_seen.get(t, now) for t in orphans}
        if not orphans:
            return
        nodes = list(await self.bus.live_nodes()) if self.bus is not None else [self.owner]
        mine = [
            t
            for t in orphans
            if adopter(t, nodes) == self.owner or now - self._orphans_seen.get(t, now) >= ORPHAN_GRACE_S
        ]

        async def adopt(table_id: int) -> None:
            with contextlib.suppress(TableError, StoreUnavailable):
                await self._local(table_id)

        await asyncio.gather(*(adopt(t) for t in mine))  # (claimed and rebuilt side by side)

    async def _check_relays(self) -> None:
        """Close relayed clients whose table changed owner (it died, or handed it over): they reconnect; and
        forget the clients of processes that are gone."""
        assert self.bus is not None
        if self.sockets:
            owners = await self.db_call(self.store.owners, [link.id for _, link in self.sockets.values()])
            for peer, link in list(self.sockets.values()):
                now = owners.get(link.id)
                if now is not None and now != link.owner:  # (a lapsed lease: wait for whoever claims it next)
                    log.info("table %s: relayed to %s, now run by %s: its client reconnects", link.id, link.owner, now)
                    peer.close(CLOSE_MOVED, "another server runs this table now: reconnect")
        if self.remote:
            live = await self.bus.live_nodes()
            for conn, (peer, table) in list(self.remote.items()):
                if peer.host not in live:
                    del self.remote[conn]
                    # (told, in case the host only stalled: it closes the client, which reconnects)
                    peer.close(CLOSE_TRY_AGAIN, LINK_LOST)
                    table.disconnect(peer)

    async def _audit_relays(self) -> None:
        """Ask each process that runs a table of this process's relayed clients which of them it does not know
        (it forgot them: it took this process for dead, or their hello was lost), and close those with 1013: they
        reconnect. A relayed client is never left on a socket that nothing will be sent to."""
        if self.bus is None:
            return
        by_owner: dict[str, list[str]] = {}
        settled = time.monotonic() - RELAY_SETTLE_S
        for conn, (_, link) in self.sockets.items():
            if link.since <= settled:  # (a hello just relayed may not have reached the owner yet)
                by_owner.setdefault(link.owner.owner, []).append(conn)
        bus = self.bus

        async def ask(node: str, conns: list[str]) -> list[Any]:
            try:
                return list(await bus.request(node, "relays", {"c": conns}, timeout=RELAY_SETTLE_S))
            except BusError:
                return []  # (the owner is gone or Redis is: _check_relays and Bus.on_lost see to those)

        answers = await asyncio.gather(*(ask(node, conns) for node, conns in by_owner.items()))
        for node, unknown in zip(by_owner, answers, strict=True):
            for conn in unknown:
                entry = self.sockets.get(str(conn))
                if entry is not None:
                    log.info("table %s: %s forgot a client relayed from here: it reconnects", entry[1].id, node)
                    entry[0].close(CLOSE_TRY_AGAIN, LINK_LOST)

    # -- claiming ------------------------------------------------------------------------------------
    async def _load(self, table_id: int) -> Table | None:
        """Claim a stored table and rebuild it; None when another process runs it."""
        before = await self.db_call(self.store.claim, table_id, self.owner, self._lease())
        if before is None:
            return None
        self._orphans_seen.pop(table_id, None)
        now = datetime.now(UTC)
        last_alive = before.heartbeat_at or before.updated_at
        # (the game's time limit runs on wall time too: the downtime is given back whether a decision was waited for)
        timed = before.deadline_at is not None or before.game_ends_at is not None
        downtime = max(timedelta(0), now - last_alive) if timed else timedelta(0)
        seats = await self.db_call(self.store.seats, table_id)
        table = Table(
            replace(before, owner=self.owner),
            seats,
            store=self.store,
            db=self.db,
            bots=self.bots,
            config=self.config,
            stats=self.stats,
            writer=self.writer,
            listeners=self.game_listeners,
        )
        try:
            await table.restore(downtime)
        except NotOwnerError as exc:  # (claimed elsewhere meanwhile, or let go here as this process stops)
            log.info("table %s: not rebuilt here (%s)", table_id, exc)
            return None
        table.start()
        self.tables[table_id] = table
        log.info("table %s: running (%s, downtime %.1f s)", table_id, before.status, downtime.total_seconds())
        return table

    async def _local(self, table_id: int) -> Table | None:
        """The table if this process runs it, or could claim it now (nobody else's lease runs); else None."""
        table = self.tables.get(table_id)
        if table is not None and not table.moved:
            return table
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            table = self.tables.get(table_id)
            if table is not None and not table.moved:
                return table
            try:
                return await self._load(table_id)
            except UnknownTableError:
                raise TableError(f"no table {table_id}", 404) from None

    async def _owner(self, table_id: int) -> Fence | None:
        owners: dict[int, Fence | None] = await self.db_call(self.store.owners, [table_id])
        return owners.get(table_id)

    async def link(self, table_id: int) -> TableLink:
        """The table for a client's WebSocket: run here (claimed now if nobody runs it), or relayed to its owner."""
        if self.bus is not None:
            owner = await self._owner(table_id)
            if owner is not None and owner.owner != self.owner:
                if not self.bus.up:  # (a relay now would lose its messages)
                    raise TableError("this server cannot reach the table's server now: try again in a moment", 503)
                return RemoteLink(self.bus, table_id, owner, self.sockets)
        table = await self._local(table_id)
        if table is not None:
            return table
        if self.bus is None:
            raise TableError(f"table {table_id} is run by another server", 409)
        raise TableError(f"table {table_id} is moving to another server: try again", 503)

    async def table_op(self, table_id: int, op: str, **args: Any) -> Any:
        """Run a lobby request on table ``table_id`` (one of :data:`TABLE_OPS`) in its task: here, or at the
        process that runs it (through the bus). Refusals come back as :class:`TableError` with their status."""
        for attempt in range(3):
            if self.bus is not None:
                owner = await self._owner(table_id)
                if owner is not None and owner.owner != self.owner:
                    try:
                        return await self.bus.request(owner.owner, "table", {"t": table_id, "op": op, "a": args})
                    except BusError as exc:
                        if exc.status == STATUS_MOVED and attempt < 2:
                            await asyncio.sleep(0.2)  # (the table is moving: ask who runs it now)
                            continue
                        raise TableError(str(exc), 503 if exc.status == STATUS_MOVED else exc.status) from None
            table = await self._local(table_id)
            if table is not None:
                return await _run_op(table, op, args)
            if self.bus is None:
                raise TableError(f"table {table_id} is run by another server", 409)
        raise TableError(f"table {table_id} is moving to another server: try again", 503)

    # -- the bus: what other processes ask of this one -----------------------------------------------
    async def _running(self, table_id: int) -> Table | None:
        """The table a message from another process names, if this process runs it (waiting for it to be rebuilt
        when this process is claiming it just now); None if another process runs it."""
        try:
            return await self._local(table_id)
        except (TableError, StoreUnavailable):  # (the database away: the client is told to reconnect)
            return None

    async def _on_hello(self, message: dict[str, Any]) -> None:
        assert self.bus is not None
        conn, host, table_id = str(message["c"]), str(message["n"]), int(message["t"])
        self._hellos.add(conn)  # (known from now on to the relays' audit, while the table is found)
        try:
            table = await self._running(table_id)
        finally:
            self._hellos.discard(conn)
        account = message.get("a")
        peer = RemotePeer(self.bus, host, conn, (int(account[0]), str(account[1])) if account else None)
        if table is None or table.moved:
            log.info("table %s: a hello relayed from %s, but another process runs the table", table_id, host)
            peer.close(CLOSE_MOVED, "another server runs this table now: reconnect")
            return
        self.remote[conn] = (peer, table)
        table.connect(peer, hello_from_json(message["h"]))

    def _on_in(self, message: dict[str, Any]) -> None:
        entry = self.remote.get(str(message["c"]))
        if entry is None:  # (a client this process does not know: it said hello to the table's owner before)
            assert self.bus is not None
            host = str(message["c"]).rsplit("/", 1)[0]
            RemotePeer(self.bus, host, str(message["c"]), None).close(
                CLOSE_MOVED, "another server runs this table now: reconnect"
            )
            return
        peer, table = entry
        table.raw(peer, str(message["x"]))

    def _on_bye(self, message: dict[str, Any]) -> None:
        entry = self.remote.pop(str(message["c"]), None)
        if entry is not None:
            entry[1].disconnect(entry[0])

    def _on_out(self, message: dict[str, Any]) -> None:
        entry = self.sockets.get(str(message["c"]))
        if entry is not None:
            entry[0].send(str(message["x"]))

    def _on_close(self, message: dict[str, Any]) -> None:
        entry = self.sockets.get(str(message["c"]))
        if entry is not None:
            entry[0].close(int(message["code"]), str(message["r"]))

    async def _on_call(self, message: dict[str, Any]) -> None:
        assert self.bus is not None
        if message.get("op") == "relays":  # which of these relayed clients does this process not know?
            conns = message["a"]["c"]
            self.bus.reply(message, [c for c in conns if c not in self.remote and c not in self._hellos])
            return
        try:
            if message.get("op") != "table":
                raise TableError(f"unknown request {message.get('op')!r}", 400)
            args = message["a"]
            table = await self._running(int(args["t"]))
            if table is None or table.moved:
                raise TableError("this server does not run the table", STATUS_MOVED)
            value = await _run_op(table, str(args["op"]), dict(args["a"]))
        except Exception as exc:
            self.bus.reply(message, error=exc if isinstance(exc, ValueError) else TableError("internal error", 500))
            if not isinstance(exc, ValueError):
                log.exception("a request from %s failed", message.get("from"))
        else:
            self.bus.reply(message, value)

    async def _on_adopt(self, message: dict[str, Any]) -> None:
        if self._stopping:
            return  # (handed over by a process stopping too: the next process to see the table claims it)
        with contextlib.suppress(TableError, StoreUnavailable):
            await self._local(int(message["t"]))

    async def _loads(self) -> dict[str, int]:
        """The live processes (this one included) and how many tables each runs (the store's count)."""
        if self.bus is None:
            return {self.owner: len(self.tables)}
        counts: dict[str, int] = await self.db_call(self.store.loads)
        return {node: counts.get(node, 0) for node in await self.bus.live_nodes()}

    async def _place(self) -> str:
        """The process a new table goes to: the least loaded live one (this one, alone; this one on a tie)."""
        nodes = await self._loads()
        return min(nodes, key=lambda n: (nodes[n], n != self.owner, n))

    # -- the lobby -----------------------------------------------------------------------------------
    async def create_table(self, body: dict[str, Any]) -> int:
        """A new table from a lobby request: ``{"name", "rules", "seed"?, "bots"?, "watch"?, "watch_delay"?}``,
        placed on the least loaded process of the platform; returns its id.

        An event's table (issue 23) may also have ``"game_minutes"`` (each game's time limit, 0 to 600; 0: none,
        RULES §14.2), ``"best_of"`` (1 or 3: the table plays until a side has won ``best_of // 2 + 1`` games, each
        next one starting by itself), ``"reserved"`` (4 entries, seat 0 to 3: ``{"account": [id, "username"]}``,
        a seat only that account may take, or ``{"bot": name}``, a bot seated at once) and ``"event"`` (the
        tournament event's id: quick join offers no such table)."""
        only_fields(
            body,
            {"name", "rules", "seed", "bots", "watch", "watch_delay", "game_minutes", "best_of", "reserved", "event"},
        )
        watch = body.get("watch", True)
        if not isinstance(watch, bool):
            raise TableError("'watch' (spectators allowed) is true or false", 400)
        delay = body.get("watch_delay", 0)
        if type(delay) is not int or not 0 <= delay <= MAX_WATCH_DELAY:
            raise TableError(f"'watch_delay' is 0 to {MAX_WATCH_DELAY} whole tricks", 400)
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
        minutes = body.get("game_minutes", 0)
        if type(minutes) is not int or not 0 <= minutes <= MAX_GAME_MINUTES:
            raise TableError(f"'game_minutes' is 0 (no limit) to {MAX_GAME_MINUTES} whole minutes", 400)
        best_of = body.get("best_of", 1)
        if type(best_of) is not int or best_of not in (1, 3):
            raise TableError("'best_of' is 1 or 3 (games)", 400)
        event = body.get("event")
        if event is not None and (type(event) is not int or not 1 <= event < 2**31):
            raise TableError("'event' is the id of a tournament event, a whole number from 1", 400)
        reserved = _reserved(body["reserved"]) if "reserved" in body else []
        for r in reserved:
            if r.bot is not None:
                if bots.get(r.seat, r.bot) != r.bot:
                    raise TableError(f"bots: seat {r.seat} is reserved for the {r.bot} bot", 400)
                bots[r.seat] = r.bot
            elif r.seat in bots:
                raise TableError(f"bots: seat {r.seat} is reserved for {r.name}", 400)
        try:
            table_id: int = await self.db_call(
                self.store.create_table,
                rules,
                seed,
                name=name.strip(),
                watchers=watch,
                watch_delay=delay,
                event_id=event,
                game_minutes=minutes,
                best_of=best_of,
                reserved=reserved,
            )
        except StoreError as exc:
            raise TableError(f"reserved: {exc}", 400) from None
        target = await self._place()
        if target != self.owner and self.bus is not None:
            with contextlib.suppress(BusError):  # (no answer: whoever is asked next claims it)
                self.bus.send(target, {"k": "adopt", "t": table_id})
                await self.bus.request(target, "table", {"t": table_id, "op": "summary", "a": {}}, timeout=3)
        for seat, bot in sorted(bots.items()):
            await self.table_op(table_id, "seat", seat=seat, name="", bot=bot, account=None)
        return table_id

    async def claim_seat(self, table_id: int, token: str, account: tuple[int, str]) -> dict[str, Any]:
        """A guest's seat (its resume token) at table ``table_id`` becomes ``account``'s (:meth:`Table.claim`)."""
        answer: dict[str, Any] = await self.table_op(table_id, "claim", token=token, account=list(account))
        return answer

    async def quick_join(
        self, room: str, name: str, account: tuple[int, str] | None, *, bots: bool = False
    ) -> dict[str, Any]:
        """快速加入: a seat at the room's open table with the most players (a new table of the room if none is open);
        ``bots`` fills the other empty seats with rules bots, so that the game starts at once."""
        if room not in ROOMS[:3]:
            raise TableError(f"quick join is for the rooms {', '.join(ROOMS[:3])}", 404)
        for _ in range(5):  # (a table may fill up between the look and the seat: try the next)
            infos = await self.db_call(self.store.list_tables, TableStatus.WAITING)
            best: tuple[int, int] | None = None
            for info in infos:
                if info.room != room or info.event_id is not None:  # (an event's tables are its players')
                    continue
                seats = await self.db_call(self.store.seats, info.id)
                if len(seats) >= 4:
                    continue
                if account is not None and any(s.account_id == account[0] for s in seats.values()):
                    continue
                if best is None or len(seats) > best[1]:
                    best = (info.id, len(seats))
            if best is None:
                count = sum(1 for i in await self.db_call(self.store.list_tables) if i.room == room)
                table_id = await self.create_table({"name": f"{ROOM_NAMES[room]} {count + 1}", "rules": room})
            else:
                table_id = best[0]
            who = None if account is None else list(account)
            try:
                answer: dict[str, Any] = await self.table_op(
                    table_id, "seat", seat=None, name=name, bot=None, account=who
                )
            except TableError:
                continue
            if bots:
                await self.table_op(table_id, "fill")
            return answer
        raise TableError("every open table filled up meanwhile: try again", 409)

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


#: A table's owner answers a request for a table it no longer runs with this status: ask who runs it now.
STATUS_MOVED = 421

#: Why a relayed client is closed (1013) when messages between it and its table's process may have been lost.
LINK_LOST = "the link to the table's server was lost: reconnect"

#: A relayed client is audited (:meth:`Server._audit_relays`) once its hello is this many seconds old; the audit's
#: question waits as long for its answer.
RELAY_SETTLE_S = 2.0

#: An orphan (a table nobody runs) that its adopter has not claimed within this many seconds of being seen is
#: claimed by whichever process sees it next.
ORPHAN_GRACE_S = 2.0


def adopter(table_id: int, nodes: Iterable[str]) -> str:
    """The process that takes table ``table_id`` over when nobody runs it, among the live ``nodes``: the highest
    of a hash of the table and each node's name (rendezvous hashing). Every process finds the same one from the
    same nodes, the tables spread evenly over them, and a node's going moves only its own share.

    >>> adopter(7, ["node0", "node1", "node2"]) == adopter(7, ["node2", "node1", "node0"])
    True
    >>> shares = [adopter(t, ["a", "b", "c"]) for t in range(3000)]
    >>> all(900 < shares.count(n) < 1100 for n in "abc")
    True
    """

    def weight(node: str) -> tuple[bytes, str]:
        return hashlib.blake2b(f"{table_id}\x00{node}".encode(), digest_size=8).digest(), node

    return max(nodes, key=weight)


def _account(value: Any) -> tuple[int, str] | None:
    return None if value is None else (int(value[0]), str(value[1]))


async def _run_op(table: Table, op: str, args: dict[str, Any]) -> Any:
    """One of :data:`TABLE_OPS` on ``table``, in its task (the arguments as JSON carries them between processes)."""
    if op == "summary":
        return await table.call(table.summary)
    if op == "seat":
        return await table.call(
            functools.partial(table.take_seat, args["seat"], args["name"], args["bot"], _account(args.get("account")))
        )
    if op == "fill":  # every empty seat to a rules bot (quick join's "with bots")

        async def fill() -> dict[str, Any]:
            for seat in range(4):
                if table.seats[seat] is None and seat not in table.reserved:
                    await table.take_seat(seat, "", "rules")
            return {"table": table.id}

        return await table.call(fill)
    if op == "leave":
        return await table.call(functools.partial(table.leave_by_token, str(args["token"])))
    if op == "claim":
        account = _account(args["account"])
        assert account is not None
        return await table.call(functools.partial(table.claim, str(args["token"]), account))
    if op == "penalty":  # a referee's, through the table's event (RULES §14.4)
        penalty = Action.from_json({"a": "penalty", **args["penalty"]}).penalty
        assert penalty is not None
        return await table.call(functools.partial(table.penalize, int(args["game"]), penalty))
    raise TableError(f"unknown table request {op!r}", 400)


def only_fields(body: dict[str, Any], keys: set[str]) -> None:
    """Refuse a lobby body with a field outside ``keys`` (400, naming it)."""
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


def _reserved(value: object) -> list[ReservedSeat]:
    """An event's reserved seats: 4 entries (seats 0 to 3), each ``{"account": [id, "username"]}`` or ``{"bot"}``."""
    shape = '\'reserved\' is 4 entries, one per seat 0..3: {"account": [id, "username"]} or {"bot": "rules"}'
    if not isinstance(value, list) or len(value) != 4:
        raise TableError(shape, 400)
    out: list[ReservedSeat] = []
    accounts: set[int] = set()
    for seat, entry in enumerate(value):
        if not isinstance(entry, dict) or len(entry) != 1 or not set(entry) <= {"account", "bot"}:
            raise TableError(f"reserved: seat {seat}: {shape}", 400)
        if "bot" in entry:
            bot = entry["bot"]
            if bot not in BOT_NAMES:
                raise TableError(
                    f"reserved: seat {seat}: {bot!r} is not a bot; the bots are {', '.join(BOT_NAMES)}", 400
                )
            out.append(ReservedSeat(seat, None, f"{bot} bot", str(bot)))
            continue
        who = entry["account"]
        if not (
            isinstance(who, list)
            and len(who) == 2
            and type(who[0]) is int
            and who[0] >= 1
            and isinstance(who[1], str)
            and 0 < len(who[1]) <= MAX_NAME
        ):
            raise TableError(f'reserved: seat {seat}: an account is [id, "username"], not {who!r}', 400)
        if who[0] in accounts:
            raise TableError(f"reserved: seat {seat}: account {who[0]} has a seat already", 400)
        accounts.add(who[0])
        out.append(ReservedSeat(seat, who[0], who[1]))
    return out


def guest_name(value: object) -> str:
    """A guest's name as the lobby takes it: printable, 1 to MAX_NAME characters (400 otherwise)."""
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_NAME or not value.isprintable():
        raise TableError(f"'name' is printable text of 1 to {MAX_NAME} characters", 400)
    return value.strip()
