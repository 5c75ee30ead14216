"""The appends of many tables, committed together: one transaction for all the actions that arrive meanwhile.

Every accepted action is stored before anyone hears of it (:meth:`Store.append
<chaodipi.server.store.Store.append>`), and a commit costs far more than the statements before it
(a disk flush on SQLite, a round trip and a flush on PostgreSQL). A :class:`Writer` runs one batch
at a time in the server's database thread(s): the actions of every table that arrive while a batch
is waiting or being committed go into the next one, stored together in one transaction by
:meth:`Store.append_batch <chaodipi.server.store.Store.append_batch>`, each still checked on its own
(a refused append changes nothing, and the others are stored). Each table's task resumes, and tells
its seats, only once the commit that holds its action has returned.

>>> import asyncio, tempfile
>>> from concurrent.futures import ThreadPoolExecutor
>>> from chaodipi.game import Game
>>> from chaodipi.log import Action
>>> from chaodipi.record import format_deal
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.server.store import Append, StaleSequenceError, Store
>>> store = Store(f"sqlite:///{tempfile.mkdtemp()}/tables.db")  # (a file: an in-memory one is the thread's own)
>>> store.migrate()
>>> hands = []
>>> for seed in (1, 2):
...     game = Game(RuleSet.preset("standard"), seed)
...     table = store.create_table(game.rules, seed)
...     hand = game.new_hand()
...     store.record_hand_start(table, 1, format_deal(hand.deck), hand.first_seat)
...     hands.append(table)
>>> async def main():
...     writer = Writer(store, ThreadPoolExecutor(1))
...     return await asyncio.gather(
...         writer.append(Append(hands[0], 0, 1, Action.close())),
...         writer.append(Append(hands[1], 0, 1, Action.close())),
...         writer.append(Append(hands[1], 5, 1, Action.close())),  # stale: refused alone
...         return_exceptions=True,
...     ), writer.batches
>>> results, batches = asyncio.run(main())  # one transaction
>>> results
[1, 1, StaleSequenceError('table 2 is at action 1, not 5')]
>>> batches, store.load(hands[1]).info.last_seq
(1, 1)
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Executor

from chaodipi.server.store import Append, Store

__all__ = ["Writer"]

#: The most appends one transaction stores (the rest wait for the next).
MAX_BATCH = 500


class Writer:
    """Stores the tables' accepted actions, those that arrive while a batch is in flight together in the next.

    One batch at a time runs in ``executor`` (the server's database thread(s)), so on SQLite the
    appends never contend with the other writes for the database's one writer lock.
    """

    def __init__(self, store: Store, executor: Executor) -> None:
        self.store = store
        self.executor = executor
        self.batches = 0  # transactions committed (an append's own retry after a spoiled batch aside)
        self.appends = 0  # appends handed to them
        self._lock = threading.Lock()  # (the queue is filled in the event loop and taken in a database thread)
        self._queue: list[tuple[Append, asyncio.Future[int]]] = []
        self._running = False  # a batch is submitted to the executor and not yet delivered

    async def append(self, append: Append) -> int:
        """Store ``append``; returns its number once the transaction that holds it is committed, or raises why it
        was refused (:class:`~chaodipi.server.store.StaleSequenceError`, …), having changed nothing."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        with self._lock:
            self._queue.append((append, future))
        if not self._running:  # (submitted once the tasks ready now have run: their appends join this batch)
            self._running = True
            loop.call_soon(self._start, loop)
        return await future

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self.executor.submit(self._run, loop)
        except BaseException as exc:  # (an executor that is shut down: every waiting append fails)
            self._running = False
            with self._lock:
                waiting, self._queue = self._queue, []
            for _, future in waiting:
                if not future.done():
                    future.set_exception(exc)

    def _run(self, loop: asyncio.AbstractEventLoop) -> None:
        """In a database thread: take what is queued now, store it in one transaction, hand the results back."""
        with self._lock:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
        try:
            results: list[int | BaseException] = list(self.store.append_batch([a for a, _ in batch]))
        except BaseException as exc:
            results = [exc] * len(batch)
        loop.call_soon_threadsafe(self._deliver, batch, results)

    def _deliver(self, batch: list[tuple[Append, asyncio.Future[int]]], results: list[int | BaseException]) -> None:
        """In the event loop, after the commit: resume each table's task; start the next batch if appends wait."""
        self.batches += 1
        self.appends += len(batch)
        for (_, future), result in zip(batch, results, strict=True):
            if future.done():  # (its task was cancelled meanwhile)
                continue
            if isinstance(result, BaseException):
                future.set_exception(result)
            else:
                future.set_result(result)
        self._running = False
        with self._lock:
            more = bool(self._queue)
        if more:
            self._running = True
            self._start(asyncio.get_running_loop())
