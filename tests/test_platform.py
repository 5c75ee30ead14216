"""Several server processes, one platform (issue 22): ``chaodipi serve --db postgresql+psycopg://… --redis …``
started two and three times on one PostgreSQL schema and one Redis.

- the lobby of every process lists every table, new tables go to the least loaded process;
- a whole game whose client is connected to a process that does not run its table (relayed);
- ``kill -9`` of the process that runs a table mid-hand: another claims it within the lease, the
  client reconnects (to another process) with its token to the same seat, the deadline was moved on,
  no acknowledged action is lost, the game finishes and its record replays; every message passes the
  hidden-card audit;
- a graceful stop hands the tables over at once;
- a stalled owner (its lease lost, another process claimed the table) is refused by the epoch;
- several processes on SQLite, and a lone process beside a platform, are refused in words.

They always run: on the run's PostgreSQL and Redis (tests/conftest.py's ``postgres_url`` and ``redis_url``: the
servers CHAODIPI_TEST_PG and CHAODIPI_TEST_REDIS name, else those at the usual ports, else ones the run starts).
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from chaodipi.bots import make_bot
from chaodipi.record import replay
from chaodipi.server.store import Fence, Store
from conftest import pg_schema, schema_url
from server_helpers import QUICK_DECLARE, Client, ServerProcess, audit, free_port, join, new_table, running_server

#: A short lease, so that a dead process's tables are taken over within seconds.
LEASE = 3.0
PACE = ("--deal-ms", "0", "--bot-delay-ms", "0", "--hand-pause-ms", "0", "--trick-pause-ms", "0")
BOTS = {"1": "rules", "2": "rules", "3": "rules"}


def run(coro: Any, timeout: float = 400) -> Any:
    async def bounded() -> Any:
        task = asyncio.ensure_future(coro)
        done, _ = await asyncio.wait([task], timeout=timeout)
        if not done:  # say where everything waits, then fail
            for t in asyncio.all_tasks():
                t.print_stack(limit=8)
        return await asyncio.wait_for(task, 1)

    return asyncio.run(bounded())


class Platform:
    """``n`` processes of ``chaodipi serve`` on one database and one Redis, each on its own port."""

    def __init__(self, url: str, n: int, *extra: str, redis: str) -> None:
        self.url = url
        self.procs = [
            ServerProcess(url, free_port(), "--redis", redis, "--lease", str(LEASE), *PACE, *extra, owner=f"node{k}")
            for k in range(n)
        ]
        self.store = Store(url)

    def __enter__(self) -> Platform:
        for p in self.procs:
            p.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        for p in self.procs:
            p.stop()
        self.store.close()

    def by_owner(self, owner: str) -> ServerProcess:
        return next(p for p in self.procs if p.owner == owner)

    def owner(self, table: int) -> Fence | None:
        return self.store.owners([table])[table]

    def other(self, table: int) -> ServerProcess:
        """A live process that does not run ``table``."""
        fence = self.owner(table)
        return next(p for p in self.procs if p.proc is not None and p.proc.poll() is None and p.owner != fence.owner)


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    """A PostgreSQL schema of the test's own on the run's server (dropped after)."""
    with pg_schema(postgres_url, "platform") as schema:
        yield schema_url(postgres_url, schema)


def _health(base: str) -> dict[str, Any]:
    return dict(httpx.get(f"{base}/api/health", timeout=5).json())


def test_every_lobby_lists_every_table_and_new_tables_go_to_the_least_loaded(pg_url: str, redis_url: str) -> None:
    with Platform(pg_url, 3, redis=redis_url) as platform:

        async def main() -> list[int]:
            made = []
            for k in range(6):  # each through another process's lobby
                base = platform.procs[k % 3].base
                made.append(await new_table(base, "anchao", bots={"1": "rules"}, name=f"桌{k}"))
            return made

        made = run(main())

        async def watch_and_sit() -> list[Client]:  # through a process that does not run the table
            elsewhere = platform.other(made[0])
            _, token = await join(elsewhere.base, made[0], "在座", 0)
            clients = [Client(elsewhere.base, made[0], token), Client(elsewhere.base, made[0], None, watch=True)]
            for c in clients:
                await c.connect()
            return clients

        loop = asyncio.new_event_loop()
        clients = loop.run_until_complete(watch_and_sit())
        owners = {t: platform.owner(t) for t in made}
        assert all(o is not None for o in owners.values())
        loads = [sum(1 for o in owners.values() if o is not None and o.owner == p.owner) for p in platform.procs]
        assert sorted(loads) == [2, 2, 2], loads  # placed on the least loaded process each time
        time.sleep(LEASE / 2)  # (each owner writes its tables' lobby lines every quarter lease)
        for p in platform.procs:
            listed = httpx.get(f"{p.base}/api/tables", timeout=5).json()["tables"]
            assert sorted(t["id"] for t in listed) == sorted(made)
            for line in listed:
                seats = line["seats"]
                assert seats[1] is not None and seats[1]["kind"] == "bot"
                if line["id"] == made[0]:  # the owner's line (kept in Redis) adds who is connected and watching
                    assert seats[0]["name"] == "在座" and seats[0]["connected"] is True and line["watchers"] == 1
                else:
                    assert seats[0] is None and line["watchers"] == 0
            rooms = httpx.get(f"{p.base}/api/rooms", timeout=5).json()["rooms"]
            assert sorted(t["id"] for t in rooms[0]["tables"]) == sorted(made)
            one = httpx.get(f"{p.base}/api/tables/{made[0]}", timeout=5).json()  # asked of its owner if elsewhere
            assert one["id"] == made[0] and one["seats"][1]["kind"] == "bot"
        assert sum(_health(p.base)["tables"] for p in platform.procs) == 6
        assert set(_health(platform.procs[0].base)["nodes"]) == {p.owner for p in platform.procs}
        # the accounts' rate limits are the platform's (in Redis), not each process's: no more tries elsewhere
        wrong = {"username": "限流", "password": "错的密码000"}
        r = httpx.post(f"{platform.procs[0].base}/api/register", json={**wrong, "password": "长长的密码123"})
        assert r.status_code == 201, r.text
        codes = [httpx.post(f"{p.base}/api/login", json=wrong, timeout=10).status_code for p in platform.procs * 2]
        assert codes[:5] == [401] * 5 and codes[5] == 429, codes
        for c in clients:
            loop.run_until_complete(c.close())
        loop.close()


def test_a_whole_game_through_a_process_that_does_not_run_the_table(pg_url: str, redis_url: str) -> None:
    with Platform(pg_url, 2, redis=redis_url) as platform:

        async def main() -> tuple[int, Client]:
            table = await new_table(platform.procs[0].base, QUICK_DECLARE, bots=BOTS, seed=11)
            elsewhere = platform.other(table)
            _, token = await join(elsewhere.base, table, "远方", 0)  # the lobby request goes to the owner
            client = Client(elsewhere.base, table, token)
            welcome = await client.connect()
            assert welcome["seat"] == 0 and welcome["table"] == table
            await client.play(until=lambda c: c.game is not None and c.game["hands"] >= 3, timeout=120)
            # the rest of the game in 托管 (the server's bot plays for the seat; the client still hears it all)
            await client.send({"type": "auto", "on": True})
            await client.wait(lambda c: c.game is not None and c.game["over"], timeout=300)
            await client.close()
            return table, client

        table, client = run(main())
        assert platform.owner(table) is not None and platform.owner(table).owner != platform.other(table).owner
        assert not [e for e in client.errors if e["code"] != "stale"], client.errors
        assert audit(platform.store, table, 0, client.messages) > 50
        record = httpx.get(f"{platform.other(table).base}/api/tables/{table}/games/1/record", timeout=10).json()
        game = replay(record)
        assert game.over and record["winner"] == client.game["winner"]


def test_kill_9_the_owner_mid_hand_and_another_process_takes_over(pg_url: str, redis_url: str) -> None:
    limits = {"declare_seconds": 0, "play_seconds": 30, "bury_seconds": 30, "fry_seconds": 30}
    with Platform(pg_url, 3, redis=redis_url) as platform:

        async def main() -> None:
            tables, clients = [], []
            for k in range(3):
                rules = QUICK_DECLARE if k else {"preset": "anchao", "set": limits}
                table = await new_table(platform.procs[k].base, rules, bots=BOTS, seed=30 + k)
                _, token = await join(platform.procs[(k + 1) % 3].base, table, f"玩家{k}", 0)
                tables.append(table)
                clients.append(Client(platform.other(table).base, table, token))
            for c in clients:
                await c.connect()
            victim = platform.owner(tables[0])
            assert victim is not None
            killed = platform.by_owner(victim.owner)
            # table 0: mid-hand, the player to play, its 30 s deadline running when the owner dies
            c0 = clients[0]
            await c0.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 3, timeout=120)
            await c0.wait(lambda c: c.deadline is not None and c.deadline["seat"] == 0, timeout=60)
            seen = c0.seq
            killed.kill()
            died = time.monotonic()
            # its clients (relayed through the other processes) are told the table moved, or lose the owner
            taken = None
            while time.monotonic() - died < LEASE + 5:
                taken = platform.owner(tables[0])
                if taken is not None and taken.owner != victim.owner:
                    break
                await asyncio.sleep(0.1)
            took = time.monotonic() - died
            assert taken is not None and taken.owner != victim.owner and taken.epoch > victim.epoch
            assert took <= LEASE + 2, f"taken over after {took:.1f} s (lease {LEASE} s)"
            stored = platform.store.info(tables[0]).last_seq
            assert stored >= seen  # every action a client saw was stored before it was sent
            for c in clients:  # every client reconnects, to any live process, with its token, to its seat
                if c.closed is None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(c.close(), 2)
                live = [p for p in platform.procs if p is not killed]
                c.url = live[tables.index(c.table) % 2].base.replace("http://", "ws://") + f"/ws/tables/{c.table}"
                for _ in range(50):
                    try:
                        welcome = await c.connect(resume=True)
                        break
                    except (OSError, AssertionError, TimeoutError):
                        await asyncio.sleep(0.2)
                else:
                    raise AssertionError("could not reconnect")
                assert welcome["seat"] == 0
            # the deadline was moved on by the downtime: the player still has most of the 30 s
            assert c0.deadline is not None and c0.deadline["seat"] == 0 and c0.deadline["ms"] > 20_000
            for c in clients:
                await c.play(until=lambda c: c.view is not None and c.view["phase"] == "over", timeout=120)
                await c.send({"type": "auto", "on": True})
            for c in clients:
                await c.wait(lambda c: c.game is not None and c.game["over"], timeout=300)
                await c.close()
            for table, c in zip(tables, clients, strict=True):
                record = httpx.get(f"{platform.other(table).base}/api/tables/{table}/games/1/record", timeout=10)
                assert replay(record.json()).over
                assert audit(platform.store, table, 0, c.messages) > 50

        run(main())


def test_a_graceful_stop_hands_the_tables_over_at_once(pg_url: str, redis_url: str) -> None:
    with Platform(pg_url, 2, redis=redis_url) as platform:

        async def main() -> None:
            table = await new_table(platform.procs[0].base, QUICK_DECLARE, bots=BOTS, seed=5)
            owner = platform.owner(table)
            assert owner is not None
            leaving, staying = platform.by_owner(owner.owner), platform.other(table)
            _, token = await join(staying.base, table, "留下", 0)
            client = Client(leaving.base, table, token)  # connected to the process that stops
            await client.connect()
            await client.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 2, timeout=120)
            seen = client.seq
            stopped = time.monotonic()
            leaving.stop()  # SIGTERM: uvicorn's shutdown, the server's stop() hands its tables over
            await client.wait(lambda c: c.closed is not None, timeout=10)
            assert client.closed is not None and client.closed[0] == 1012
            for _ in range(50):
                fence = platform.owner(table)
                if fence is not None and fence.owner == staying.owner:
                    break
                await asyncio.sleep(0.1)
            assert platform.owner(table) == Fence(staying.owner, owner.epoch + 1)
            assert time.monotonic() - stopped < LEASE, "handed over, not waited for the lease"
            client.url = staying.base.replace("http://", "ws://") + f"/ws/tables/{table}"
            welcome = await client.connect(resume=True)
            assert welcome["seat"] == 0 and welcome["resumed"] is True and client.seq >= seen
            await client.play(until=lambda c: c.view is not None and c.view["phase"] == "over", timeout=120)
            await client.close()

        run(main())


@contextlib.asynccontextmanager
async def _stalled_owner(pg_url: str, redis_url: str) -> AsyncIterator[tuple[Any, int, Client, Store]]:
    """A process ("stalled") running a dark-room table (long time limits) with a guest in seat 0 and rules bots,
    played to the guest's turn in the trick after the first; yields the process's Server, the table, the guest's
    client and a store of the test's own."""
    apps: list[Any] = []
    async with running_server(
        pg_url, apps=apps, owner="stalled", redis=redis_url, lease_s=LEASE, deal_ms=0, bot_delay_ms=0
    ) as base:
        slow = {"declare_seconds": 0, "play_seconds": 60, "bury_seconds": 60}
        table = await new_table(base, {"preset": "anchao", "set": slow}, bots=BOTS, seed=9)
        _, token = await join(base, table, "停顿", 0)
        client = Client(base, table, token)
        await client.connect()
        await client.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 1, timeout=60)
        await client.wait(lambda c: c.deadline is not None and c.deadline["seat"] == 0, timeout=60)
        store = Store(pg_url)
        try:
            yield apps[0].state.server, table, client, store
        finally:
            store.close()


async def _claimed_by(store: Store, table: int, owner: str, seconds: float) -> Fence | None:
    """Wait (at most ``seconds``) until ``owner`` runs ``table``; returns who runs it then."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = store.owners([table])[table]
        if now is not None and now.owner == owner:
            return now
        await asyncio.sleep(0.05)
    return store.owners([table])[table]


def _guest_move(client: Client) -> Any:
    """The rules bot's move for the guest, from what its client was told."""
    view = client.engine_view()
    assert view is not None and (view.legal.follows or view.legal.leads)
    action = make_bot("rules", 1).act(view)
    assert action is not None
    return action


def test_a_stalled_owner_is_refused_by_the_epoch(pg_url: str, redis_url: str) -> None:
    """A process that stops renewing (a long pause) loses its lease; another claims the table; when the stalled
    one wakes and its table acts, the store refuses the write (the epoch moved on): the table is let go there,
    its client told to reconnect, and nothing the stalled process did is stored."""
    from sqlalchemy import text

    async def main() -> None:
        async with _stalled_owner(pg_url, redis_url) as (server, table, client, store):
            before = store.owners([table])[table]
            assert before is not None and before.owner == "stalled"
            # the stall: no renewal comes, the lease runs out, and another process claims the table
            server._maintainer.cancel()
            with store.engine.begin() as c:
                expire = "UPDATE tables SET lease_until = now() - interval '1 second' WHERE id = :t"
                c.execute(text(expire), {"t": table})
            async with running_server(pg_url, owner="fresh", redis=redis_url, lease_s=LEASE):
                assert await _claimed_by(store, table, "fresh", 5) == Fence("fresh", before.epoch + 1)
                seq = store.info(table).last_seq
                assert seq == client.seq
                # the stalled process wakes: its player's action reaches the table it still holds in memory
                action = _guest_move(client)
                await client.act(action)
                await client.wait(lambda c: c.closed is not None, timeout=10)
                assert client.closed is not None and client.closed[0] == 4409
                assert any(e["code"] == "moved" for e in client.errors)
                assert store.info(table).last_seq == seq  # the stalled write was refused: nothing stored
                assert table not in server.tables or server.tables[table].moved
                fence = store.owners([table])[table]
                assert fence is not None and fence.owner == "fresh"
                # the player reconnects (to the stalled process, which relays to the new owner) and plays on
                welcome = await client.connect(resume=True)
                assert welcome["seat"] == 0
                await client.act(action)
                await client.wait(lambda c: c.seq > seq, timeout=10)
                assert store.info(table).last_seq > seq
                await client.close()

    run(main(), 90)


def test_an_owner_stalled_between_its_append_and_its_commit_tells_nothing_unstored(pg_url: str, redis_url: str) -> None:
    """Issue 38: the owner's database thread stalls after an append's statements, before its commit, holding the
    table's row lock. PostgreSQL ends the idle transaction after half a lease (SessionLimits), another process's
    claim (which skips a locked row, never waits on it) takes the table once the lease ran out; when the stalled
    thread wakes, its commit fails: the action was never stored, and no client is told it (no update, no welcome:
    the table reloads, finds the table claimed, and closes its clients with 4409)."""
    import threading

    async def main() -> None:
        async with _stalled_owner(pg_url, redis_url) as (server, table, client, store):
            before = store.info(table).last_seq
            assert client.seq == before
            entered, wake = threading.Event(), threading.Event()

            def stall(where: str) -> None:
                if where == "append" and not entered.is_set():
                    entered.set()
                    wake.wait(60)  # the database thread stalls here, its transaction open and the row locked

            server.store.before_commit = stall
            action = _guest_move(client)
            await client.act(action)
            for _ in range(200):
                if entered.is_set():
                    break
                await asyncio.sleep(0.05)
            assert entered.is_set(), "the append did not reach its commit"
            server._maintainer.cancel()  # (the rest of the process stalls too: no renewal comes)
            async with running_server(pg_url, owner="fresh", redis=redis_url, lease_s=LEASE):
                # the idle transaction is ended, the lease runs out, the row is claimed
                fence = await _claimed_by(store, table, "fresh", 15)
                assert fence is not None and fence.owner == "fresh", fence
                wake.set()  # the stalled thread wakes: its commit fails
                await client.wait(lambda c: c.closed is not None, timeout=20)
                assert client.closed is not None and client.closed[0] == 4409, client.closed
                assert store.info(table).last_seq == before  # the stalled action was never stored…
                told = [m["seq"] for m in client.messages if "seq" in m]
                assert max(told) == before, f"told seq {max(told)}, stored {before}"  # … nor told
                welcome = await client.connect(resume=True)  # to the stalled process: it relays to the new owner
                assert welcome["seat"] == 0 and welcome["seq"] == before
                await client.act(action)
                await client.wait(lambda c: c.seq > before, timeout=10)
                assert store.info(table).last_seq == before + 1
                await client.close()

    run(main(), 120)


# -- refused: several processes on SQLite, a lone process beside a platform ------------------------------------


def _serve(url: str, *extra: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "chaodipi.cli", "serve", "--port", str(free_port()), "--db", url, *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_second_process_on_one_sqlite_file_is_refused_in_words(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/chaodipi.db"
    first = ServerProcess(url, free_port(), owner="first")
    first.start()
    try:
        second = _serve(url)
        _, err = second.communicate(timeout=30)
        assert second.returncode == 2
        assert "another chaodipi server already serves" in err.decode() and "PostgreSQL" in err.decode()
        third = _serve(url, "--redis", "redis://127.0.0.1:6379/0")
        _, err = third.communicate(timeout=30)
        assert third.returncode == 2 and "several server processes need PostgreSQL" in err.decode()
    finally:
        first.stop()
    again = ServerProcess(url, free_port(), owner="again")  # the lock went with the first process
    again.start()
    again.stop()


def test_a_lone_process_and_a_platform_never_share_a_database(pg_url: str, redis_url: str) -> None:
    alone = ServerProcess(pg_url, free_port(), owner="alone")
    alone.start()
    try:
        joining = _serve(pg_url, "--redis", redis_url)
        _, err = joining.communicate(timeout=30)
        assert joining.returncode == 2 and "without Redis serves" in err.decode()
    finally:
        alone.stop()
    with Platform(pg_url, 1, redis=redis_url):
        lone = _serve(pg_url)
        _, err = lone.communicate(timeout=30)
        assert lone.returncode == 2 and "start this one with the same --redis" in err.decode()


def test_processes_starting_at_once_on_a_new_database_migrate_it_once(pg_url: str) -> None:
    """A platform's processes started together on an empty schema: one migrates, the others wait and find it current."""
    from concurrent.futures import ThreadPoolExecutor

    from chaodipi.server.store import migrate

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: migrate(pg_url), range(4), timeout=60))  # (without the lock: a deadlock)
    store = Store(pg_url)
    try:
        assert store.list_tables() == []
    finally:
        store.close()
