"""The tables this process runs: :class:`Server` owns the store, the tables (one
:class:`~chaodipi.server.table.Table` task each), the database thread(s), the writer that commits the
tables' actions in batches (:class:`~chaodipi.server.writer.Writer`) and the bots' process pool,
claims and rebuilds the stored tables, and renews its claims on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

from chaodipi.rules import RuleError, RuleSet
from chaodipi.server.bots import BOT_NAMES, BotRunner
from chaodipi.server.config import ServerConfig, Stats
from chaodipi.server.store import (
    DEFAULT_URL,
    MAX_WATCH_DELAY,
    ROOMS,
    SEED_RANGE,
    Store,
    TableStatus,
    UnknownTableError,
)
from chaodipi.server.table import MAX_NAME, Table, TableError, in_thread
from chaodipi.server.writer import Writer

__all__ = ["LOBBY_WRITES_PER_MINUTE", "ROOM_NAMES", "Server", "guest_name", "only_fields"]

log = logging.getLogger("chaodipi.server")

#: Each room's name (the source platform's): 暗炒房 the dark-fry room, 扛旗房 the flag room, 明炒房 the open-fry room.
ROOM_NAMES = {"anchao": "暗炒房", "kangqi": "扛旗房", "mingchao": "明炒房", "house": "自定义桌"}

#: Lobby requests that change something, per client address, per minute.
LOBBY_WRITES_PER_MINUTE = 120


class Server:
    """The tables this process runs, their store, and the machinery they share."""

    def __init__(self, url: str = DEFAULT_URL, config: ServerConfig | None = None) -> None:
        self.url = url
        self.config = config or ServerConfig()
        self.store = Store(url)
        sqlite = self.store.engine.dialect.name == "sqlite"
        # SQLite takes one writer at a time: one database thread; PostgreSQL: a few.
        self.db = ThreadPoolExecutor(1 if sqlite else 4, thread_name_prefix="chaodipi-db")
        self.writer = Writer(self.store, self.db)  # every table's accepted actions, committed in batches
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
            for peer in table._all_peers():
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
        table = Table(
            before,
            seats,
            store=self.store,
            db=self.db,
            bots=self.bots,
            config=self.config,
            stats=self.stats,
            writer=self.writer,
        )
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
        """A new table from a lobby request: ``{"name", "rules", "seed"?, "bots"?, "watch"?, "watch_delay"?}``."""
        only_fields(body, {"name", "rules", "seed", "bots", "watch", "watch_delay"})
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
        table_id = await self.db_call(
            self.store.create_table, rules, seed, name=name.strip(), watchers=watch, watch_delay=delay
        )
        table = await self.table(table_id)
        for seat, bot in sorted(bots.items()):
            await table.call(functools.partial(table.take_seat, seat, "", bot))
        return table

    async def claim_seat(self, table_id: int, token: str, account: tuple[int, str]) -> dict[str, Any]:
        """A guest's seat (its resume token) at table ``table_id`` becomes ``account``'s (:meth:`Table.claim`)."""
        table = await self.table(table_id)
        answer: dict[str, Any] = await table.call(lambda: table.claim(token, account))
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
                if info.room != room:
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
                table = await self.create_table({"name": f"{ROOM_NAMES[room]} {count + 1}", "rules": room})
            else:
                table = await self.table(best[0])
            try:
                answer: dict[str, Any] = await table.call(functools.partial(table.take_seat, None, name, None, account))
            except TableError:
                continue
            if bots:
                for seat in range(4):
                    if table.seats[seat] is None:
                        await table.call(functools.partial(table.take_seat, seat, "", "rules"))
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


def guest_name(value: object) -> str:
    """A guest's name as the lobby takes it: printable, 1 to MAX_NAME characters (400 otherwise)."""
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_NAME or not value.isprintable():
        raise TableError(f"'name' is printable text of 1 to {MAX_NAME} characters", 400)
    return value.strip()
