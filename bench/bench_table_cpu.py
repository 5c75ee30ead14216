"""The game server's CPU per accepted action, measured on the tables' own loop (issue 22): no sockets, no clients.

``--tables`` tables (the ``standard`` rules by default) each play ``--games`` whole games on their own fake
clock (:class:`~chaodipi.server.clock.FakeClock`, as in ``tests/test_table.py``): a guest in seat 0 in 托管
with one connection that keeps nothing, the rules bot in seats 1 to 3. The tables run at once in one event
loop, stepped by :meth:`Table.step <chaodipi.server.table.Table.step>` and moved to their next wake, so that
the store's writes of several tables meet (as they do at a busy server); the database is a fresh SQLite file
or, with ``--db postgresql+psycopg://…``, a fresh schema of that database (dropped after). The store's calls
run in the server's database threads (:class:`~chaodipi.server.tables.Server`'s arrangement).

Reported: the process's CPU (``time.process_time``) per accepted action (the dealt cards are not actions but
their cost is counted), split into

* ``store``: the CPU of every thread but the event loop's (the database threads and the writer);
* ``messages``: building and serializing what the seats are sent (views included) in the event loop;
* ``bots``: the rules bots' decisions and the views they decide on;
* ``engine``: :meth:`Hand.apply <chaodipi.hand.Hand.apply>` and :meth:`Hand.deal_card <chaodipi.hand.Hand.deal_card>`;
* ``table``: the rest of the event loop's CPU (the tables' own logic, clocks, handing calls to the threads).

``--repeat`` runs the whole measurement several times (each in a fresh database) and prints each run and the
spread; ``--profile FILE`` writes a cProfile of one run (the event loop's thread only).

    python bench/bench_table_cpu.py                      # SQLite
    python bench/bench_table_cpu.py --db postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench_server import make_database

from chaodipi.hand import Hand
from chaodipi.rules import RuleSet
from chaodipi.server.bots import BotRunner
from chaodipi.server.clock import FakeClock
from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import Hello
from chaodipi.server.table import Table, _Connect
from chaodipi.server.tables import Server
from chaodipi.view import Phase

CONFIG = ServerConfig(deal_ms=100, bot_delay_ms=500, hand_pause_ms=1_000)


class QuietPeer:
    """A connection that keeps only how much it was sent (a client's own work is not the server's)."""

    def __init__(self) -> None:
        self.seat = -1
        self.account: tuple[int, str] | None = None
        self.hand_sent = 0
        self.events_sent = 0
        self.messages = 0
        self.chars = 0

    def send(self, text: str) -> None:
        self.messages += 1
        self.chars += len(text)

    def close(self, code: int, reason: str) -> None:
        pass


class Split:
    """CPU time of the event loop's thread by category: the outermost wrapped call decides the category."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.depth = 0

    @contextmanager
    def measure(self, category: str) -> Iterator[None]:
        if self.depth:
            yield
            return
        self.depth += 1
        start = time.thread_time()
        try:
            yield
        finally:
            self.depth -= 1
            self.spent[category] = self.spent.get(category, 0.0) + time.thread_time() - start


def _wrap(owner: Any, name: str, split: Split, category: str) -> Callable[[], None]:
    """Count the (synchronous) method ``owner.name`` as ``category``; returns the undo."""
    own = name in owner.__dict__
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with split.measure(category):
            return original(*args, **kwargs)

    setattr(owner, name, wrapped)
    return lambda: setattr(owner, name, original) if own else delattr(owner, name)


async def play(server: Server, rules: RuleSet, seed: int, games: int) -> tuple[Table, QuietPeer]:
    """One table: a guest in 托管 in seat 0 (one connection), rules bots in seats 1 to 3, ``games`` games played."""
    store = server.store
    table_id = await server.db_call(store.create_table, rules, seed, name="cpu")
    info = await server.db_call(store.claim, table_id, CONFIG.owner, timedelta(seconds=300))
    clock = FakeClock()
    table = Table(
        info,
        await server.db_call(store.seats, table_id),
        store=store,
        db=server.db,
        bots=server.bots,
        config=CONFIG,
        stats=server.stats,
        clock=clock,
    )
    _attach(table, server)
    await table.restore(timedelta(0))
    token = (await table.take_seat(0, "Ann", None))["token"]
    for seat in (1, 2, 3):
        await table.take_seat(seat, "", "rules")
    peer = QuietPeer()
    await table.step(_Connect(peer, Hello(token)))
    state = table.seats[0]
    assert state is not None
    state.auto = True  # 托管: the rules bot plays seat 0 too
    for game in range(games):
        if game:
            await table._again()
        for _ in range(100_000):
            await table.step()
            if table.game is not None and table.game.over:
                break
            wake = table.next_wake()
            if wake is None:
                raise RuntimeError(f"table {table_id} waits for nothing: stuck")
            clock.advance(max(0.0, wake - clock.now()))
            await asyncio.sleep(0)  # the other tables' turn
        else:
            raise RuntimeError(f"table {table_id}: the game did not end")
    return table, peer


def _attach(table: Table, server: Server) -> None:
    """Give the table what the server gives it beyond the constructor's arguments (the batching writer, when any)."""
    writer = getattr(server, "writer", None)
    if writer is not None:
        table.writer = writer


def measure(args: argparse.Namespace, tmp: Path, profile: str | None = None) -> dict[str, Any]:
    """One run in a fresh database: CPU per accepted action and its split."""
    db = make_database(args.db, Path(tempfile.mkdtemp(dir=tmp)))  # (a new file, or a new schema, each run)
    url = db.url
    server = Server(url, CONFIG)
    split = Split()
    undo = [
        _wrap(Table, "_broadcast", split, "messages"),
        _wrap(Table, "_send_state", split, "messages"),
        _wrap(Table, "_broadcast_seats", split, "messages"),
        _wrap(BotRunner, "decide_now", split, "bots"),
        _wrap(Hand, "view", split, "bots"),  # (a view built for a message is inside "messages" already)
        _wrap(Hand, "apply", split, "engine"),
        _wrap(Hand, "deal_card", split, "engine"),
    ]
    rules = RuleSet.preset(args.rules)

    async def main() -> tuple[list[tuple[Table, QuietPeer]], float, float, float]:
        await server.db_call(server.store.migrate)
        # (the first run of the store's statements compiles them: one game's worth of warm-up, not counted)
        await play(server, rules, args.seed + 10_000, 1)
        start_cpu, start_loop, start_wall = time.process_time(), time.thread_time(), time.perf_counter()
        split.spent.clear()
        accepted = server.stats.accepted
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        tables = await asyncio.gather(*(play(server, rules, args.seed + k, args.games) for k in range(args.tables)))
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile)
        cpu, loop = time.process_time() - start_cpu, time.thread_time() - start_loop
        wall = time.perf_counter() - start_wall
        server.stats.accepted -= accepted
        return tables, cpu, loop, wall

    try:
        played, cpu, loop, wall = asyncio.run(main())
    finally:
        for u in undo:
            u()
        server.bots.close()
        server.db.shutdown(wait=True)
        server.store.close()
        db.close()
    actions = server.stats.accepted
    for table, _ in played:
        assert table.game is not None and table.game.over and table._hand() is not None
        assert table._hand().phase in (Phase.OVER, Phase.REDEAL)  # type: ignore[union-attr]
    ms = {k: v * 1000 / actions for k, v in sorted(split.spent.items())}
    ms["store"] = (cpu - loop) * 1000 / actions
    ms["table"] = (loop - sum(split.spent.values())) * 1000 / actions
    writer = getattr(server, "writer", None)
    return {
        "actions": actions,
        "appends_per_commit": None if writer is None else round(writer.appends / max(1, writer.batches), 2),
        "messages": sum(p.messages for _, p in played),
        "kb_sent": round(sum(p.chars for _, p in played) / 1000),
        "wall_s": round(wall, 2),
        "cpu_ms_per_action": cpu * 1000 / actions,
        "split_ms": ms,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="a PostgreSQL URL (postgresql+psycopg://…): a fresh schema there; else SQLite")
    parser.add_argument("--tables", type=int, default=8, help="tables played at once (default 8)")
    parser.add_argument("--games", type=int, default=1, help="whole games per table (default 1)")
    parser.add_argument("--rules", default="standard", help="the preset (default standard)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=3, help="runs, each in a fresh database (default 3)")
    parser.add_argument("--profile", help="write a cProfile of the first run here (the event loop's thread)")
    parser.add_argument("--json", action="store_true", help="print the runs as JSON")
    args = parser.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            runs.append(measure(args, Path(tmp), args.profile if k == 0 else None))
            if not args.json:
                r = runs[-1]
                parts = "  ".join(f"{name} {v:.2f}" for name, v in r["split_ms"].items())
                print(
                    f"run {k + 1}: {r['actions']} actions, {r['cpu_ms_per_action']:.2f} ms CPU each "
                    f"({parts}); {r['messages']} messages, {r['kb_sent']} kB; {r['wall_s']} s; "
                    f"appends per commit {r['appends_per_commit']}",
                    flush=True,
                )
    if args.json:
        json.dump(runs, sys.stdout, indent=1)
        print()
        return
    per = [r["cpu_ms_per_action"] for r in runs]
    db = "PostgreSQL" if args.db else "SQLite"
    print(
        f"{db}, {args.tables} tables × {args.games} {args.rules} game(s): CPU per accepted action "
        f"median {statistics.median(per):.2f} ms (min {min(per):.2f}, max {max(per):.2f}, {len(per)} runs); "
        f"threads: {threading.active_count()}"
    )


if __name__ == "__main__":
    main()
