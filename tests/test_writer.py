"""Appends batched across tables (issue 22): one transaction for many tables' actions, each checked alone.

On SQLite and the run's PostgreSQL (tests/conftest.py): a refused append changes nothing and the
others in its transaction are stored; an append whose ``also`` fails is refused with that error alone;
a batch spoiled by a failing statement is stored again append by append; and a table's task resumes
only once the commit that holds its action has returned.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.engine import Connection

from chaodipi.game import Game
from chaodipi.log import Action
from chaodipi.record import format_deal
from chaodipi.rules import RuleSet
from chaodipi.server.store import (
    ActionRow,
    Append,
    NotOwnerError,
    StaleSequenceError,
    Store,
    UnknownTableError,
)
from chaodipi.server.writer import Writer


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    made = Store(db_url)
    made.migrate()
    yield made
    made.close()


def _tables(store: Store, count: int) -> list[int]:
    """Tables with their first hand stored (nobody has acted yet)."""
    out = []
    for seed in range(count):
        game = Game(RuleSet.preset("standard"), seed)
        table = store.create_table(game.rules, seed)
        hand = game.new_hand()
        store.record_hand_start(table, 1, format_deal(hand.deck), hand.first_seat)
        out.append(table)
    return out


def _count(store: Store) -> int:
    with store.engine.connect() as c:
        return int(c.scalar(select(func.count()).select_from(ActionRow)) or 0)


def test_a_batch_stores_each_append_checked_alone(store: Store) -> None:
    a, b, c = _tables(store, 3)
    store.claim(c, "me", timedelta(seconds=30))
    wrote: list[int] = []

    def fails(connection: Connection) -> None:
        connection.execute(text("UPDATE tables SET name = 'changed' WHERE id = :t"), {"t": b})
        raise RuntimeError("the ledger broke")

    results = store.append_batch(
        [
            Append(a, 0, 1, Action.close()),
            Append(b, 3, 1, Action.close()),  # stale
            Append(b, 0, 2, Action.close()),  # not in that hand
            Append(b, 0, 1, Action.close(), also=fails),  # its also fails: refused, its writes undone
            Append(c, 0, 1, Action.close(), owner="other"),  # another process's table
            Append(c + 10, 0, 1, Action.close()),  # no such table
            Append(c, 0, 1, Action.close(), owner="me", also=lambda _: wrote.append(c)),
            Append(a, 1, 1, Action.close()),  # the next action of table a, in the same transaction
        ]
    )
    assert results[0] == 1 and results[6] == 1 and results[7] == 2
    assert isinstance(results[1], StaleSequenceError) and "is at action 0, not 3" in str(results[1])
    assert isinstance(results[2], StaleSequenceError) and "in hand 1, not hand 2" in str(results[2])
    assert isinstance(results[3], RuntimeError)
    assert isinstance(results[4], NotOwnerError)
    assert isinstance(results[5], UnknownTableError)
    assert wrote == [c]
    assert [store.info(t).last_seq for t in (a, b, c)] == [2, 0, 1]
    assert store.info(b).name == ""  # the failed also's write was rolled back with its append
    assert _count(store) == 3


def test_a_spoiled_batch_is_stored_again_append_by_append(store: Store) -> None:
    a, b = _tables(store, 2)
    with store.engine.begin() as c:  # an action row the table's last_seq does not know of: its insert fails
        c.execute(
            ActionRow.__table__.insert().values(
                table_id=b, seq=1, hand_number=1, action='{"a":"close"}', created_at=datetime.now(UTC)
            )
        )
    results = store.append_batch([Append(a, 0, 1, Action.close()), Append(b, 0, 1, Action.close())])
    assert results[0] == 1
    assert isinstance(results[1], StaleSequenceError)
    assert store.info(a).last_seq == 1 and store.info(b).last_seq == 0
    assert _count(store) == 2  # table a's action and the row put there by hand


class GatedExecutor(Executor):
    """A one-thread executor that runs nothing until the test opens the gate (appends pile up meanwhile)."""

    def __init__(self) -> None:
        self.inner = ThreadPoolExecutor(1)
        self.gate = threading.Event()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        def run() -> Any:
            self.gate.wait(10)
            return fn(*args, **kwargs)

        return self.inner.submit(run)


def test_the_writer_commits_what_arrives_meanwhile_together_and_resumes_each_after_its_commit(store: Store) -> None:
    tables = _tables(store, 6)
    executor = GatedExecutor()
    writer = Writer(store, executor)
    resumed: list[tuple[int, int]] = []

    async def table(t: int, actions: int) -> None:
        seq = 0
        for _ in range(actions):
            seq = await writer.append(Append(t, seq, 1, Action.close()))
            with store.engine.connect() as c:  # resumed only once the commit holding the action returned
                stored = c.scalar(select(func.count()).select_from(ActionRow).where(ActionRow.table_id == t))
            resumed.append((t, seq))
            assert stored == seq

    async def main() -> list[BaseException | None]:
        tasks = [asyncio.create_task(table(t, 3)) for t in tables]
        stale = asyncio.create_task(writer.append(Append(tables[0], 7, 1, Action.close())))
        await asyncio.sleep(0.05)  # every table's first append is queued; none is stored
        assert _count(store) == 0 and not resumed
        executor.gate.set()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        with pytest.raises(StaleSequenceError):
            await stale
        return [d for d in done if d is not None]

    try:
        assert asyncio.run(main()) == []
    finally:
        executor.inner.shutdown()
    assert sorted(resumed) == sorted((t, k) for t in tables for k in (1, 2, 3))
    assert writer.appends == 6 * 3 + 1 and writer.batches <= 3 + 1  # the first batch holds every table's first
    assert [store.info(t).last_seq for t in tables] == [3] * 6
