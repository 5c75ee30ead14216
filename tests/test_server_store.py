"""The server's event-sourced storage (issue 11) on SQLite and the run's PostgreSQL."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from chaodipi.driver import run_hand
from chaodipi.game import Game
from chaodipi.hand import Hand, Phase
from chaodipi.log import Action
from chaodipi.record import format_deal, game_record, replay
from chaodipi.rules import RuleSet
from chaodipi.server import StaleSequenceError, Store, StoreError, TableStatus, UnknownTableError
from chaodipi.server.store import ActionRow
from chaodipi.simulate import RandomPolicy, _new_bid_possible, simulate_game
from conftest import DATABASES, pg_schema

SEED = 5  # a short game under the standard rules (5 hands)

#: Makes a fresh engine on the test's database (each call a new one, as a restarted server would).
EngineFactory = Callable[[], Engine]


@pytest.fixture(params=DATABASES)
def engines(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[EngineFactory]:
    """Engines on an empty database: an SQLite file, or a PostgreSQL schema of the test's own (dropped after)."""
    made: list[Engine] = []
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/chaodipi.db"

        def make() -> Engine:
            made.append(create_engine(url))
            return made[-1]

        yield make
    else:
        base = request.getfixturevalue("postgres_url")
        with pg_schema(base) as schema:

            def make() -> Engine:
                made.append(create_engine(base, connect_args={"options": f"-csearch_path={schema}"}))
                return made[-1]

            try:
                yield make
            finally:
                for e in made:
                    e.dispose()
    for e in made:
        e.dispose()


def new_store(engines: EngineFactory) -> Store:
    """A migrated store."""
    store = Store(engines())
    store.migrate()
    return store


def play_through(
    store: Store, table: int, game: Game, policy: RandomPolicy, *, stop: Callable[[Hand], bool] | None = None
) -> int:
    """Play ``game`` as simulate_game does, storing each hand's start and each action as it happens.

    Stops once ``stop(hand)`` says so after an action (mid-hand); returns the last sequence number.
    """
    seq = 0
    state = {"seen": 0, "hand": 0, "stopped": False}

    def after(h: Hand) -> None:
        nonlocal seq
        for item in h.log[state["seen"] :]:
            if isinstance(item, Action):
                seq = store.append(table, seq, state["hand"], item)
                state["stopped"] = stop is not None and stop(h)
        state["seen"] = len(h.log)

    while not game.over:
        hand = game.new_hand()
        state.update(seen=0, hand=len(game.hands))
        store.record_hand_start(table, len(game.hands), format_deal(hand.deck), hand.first_seat)
        run_hand(hand, [policy.decide] * 4, asks=_new_bid_possible, after=after, until=lambda h: bool(state["stopped"]))
        if state["stopped"]:
            return seq
        game.finish_hand()
    return seq


def test_migrate_empty_database_is_idempotent(engines: EngineFactory) -> None:
    store = new_store(engines)
    store.migrate()  # already at head: nothing to do
    assert store.list_tables() == []
    rules = RuleSet.preset("anchao")
    table = store.create_table(rules, 42)
    info = store.list_tables()[0]
    assert (info.id, info.rules, info.seed, info.status, info.last_seq, info.hand_number) == (
        table,
        rules,
        42,
        TableStatus.WAITING,
        0,
        0,
    )
    with pytest.raises(UnknownTableError):
        store.load(table + 1)


def test_whole_game_rebuilds_from_a_fresh_store(engines: EngineFactory) -> None:
    rules = RuleSet.preset("standard")
    store = new_store(engines)
    table = store.create_table(rules, SEED)
    game = Game(rules, SEED)
    last = play_through(store, table, game, RandomPolicy(random.Random(f"policy-{SEED}")))
    assert game.over
    store.set_status(table, TableStatus.FINISHED)
    assert game_record(game) == game_record(simulate_game(rules, SEED))  # the storing changed nothing

    fresh = Store(engines())  # as after a restart
    stored = fresh.load(table)
    assert stored.info.status is TableStatus.FINISHED and stored.info.last_seq == last
    assert [a.seq for h in stored.hands for a in h.actions] == list(range(1, last + 1))
    assert game_record(fresh.rebuild(table)) == game_record(game)
    record = fresh.finished_record(table)
    assert record == game_record(game)
    assert replay(record).winner == game.winner
    assert [t.id for t in fresh.list_tables(TableStatus.FINISHED)] == [table]
    assert fresh.list_tables(TableStatus.PLAYING) == []


def test_rebuild_mid_hand_gives_the_same_views(engines: EngineFactory) -> None:
    rules = RuleSet.preset("anchao")
    store = new_store(engines)
    table = store.create_table(rules, 3)
    game = Game(rules, 3)

    def stop(h: Hand) -> bool:  # in the second hand, a few tricks into the play
        return len(game.hands) == 2 and h.phase == Phase.PLAY and len(h.tricks) == 3 and bool(h.current)

    play_through(store, table, game, RandomPolicy(random.Random(9)), stop=stop)
    hand = game.current
    assert hand is not None and stop(hand)
    rebuilt = Store(engines()).rebuild(table)
    assert rebuilt.current is not None and len(rebuilt.hands) == 2
    for seat in range(4):
        assert rebuilt.current.view(seat).to_json() == hand.view(seat).to_json()
    assert game_record(rebuilt) == game_record(game)
    with pytest.raises(StoreError, match="unfinished"):
        store.finished_record(table)


def _started(store: Store) -> tuple[int, Hand]:
    """A table with its first hand stored and dealt (nobody has acted yet)."""
    game = Game(RuleSet.preset("standard"), 11)
    table = store.create_table(game.rules, game.seed)
    hand = game.new_hand()
    store.record_hand_start(table, 1, hand.deck, hand.first_seat)
    hand.deal_all()
    return table, hand


def test_stale_append_changes_nothing(engines: EngineFactory) -> None:
    store = new_store(engines)
    table, _ = _started(store)
    close = Action.close()
    assert store.append(table, 0, 1, close) == 1
    before = store.load(table)
    for expected in (0, 5):
        with pytest.raises(StaleSequenceError, match="is at action 1"):
            store.append(table, expected, 1, close)
    with pytest.raises(StaleSequenceError, match="in hand 1, not hand 2"):
        store.append(table, 1, 2, close)
    with pytest.raises(UnknownTableError):
        store.append(table + 1, 0, 1, close)
    with pytest.raises(StaleSequenceError, match="cannot start"):
        store.record_hand_start(table, 3, format_deal(_started(store)[1].deck), 0)
    after = store.load(table)
    assert (after.info.last_seq, after.hands) == (before.info.last_seq, before.hands)
    assert after.info.updated_at == before.info.updated_at


def test_unique_constraint_backs_up_the_sequence(engines: EngineFactory) -> None:
    store = new_store(engines)
    table, _ = _started(store)
    store.append(table, 0, 1, Action.close())
    with pytest.raises(IntegrityError), Session(store.engine) as session, session.begin():
        session.add(
            ActionRow(table_id=table, seq=1, hand_number=1, action='{"a":"close"}', created_at=datetime.now(UTC))
        )


def test_concurrent_appends_exactly_one_wins(engines: EngineFactory) -> None:
    store = new_store(engines)
    table, _ = _started(store)
    writers = [Store(engines()) for _ in range(4)]
    barrier = threading.Barrier(len(writers))
    outcomes: list[object] = []
    lock = threading.Lock()

    def write(w: Store) -> None:
        barrier.wait()
        try:
            result: object = w.append(table, 0, 1, Action.close())
        except StaleSequenceError as exc:
            result = exc
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=write, args=(w,)) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(o for o in outcomes if isinstance(o, int)) == [1]
    assert sum(isinstance(o, StaleSequenceError) for o in outcomes) == len(writers) - 1
    with Session(store.engine) as session:
        assert session.scalar(select(func.count()).select_from(ActionRow)) == 1
    assert store.load(table).info.last_seq == 1


def test_bad_input_is_refused(engines: EngineFactory) -> None:
    store = new_store(engines)
    with pytest.raises(StoreError, match="seed"):
        store.create_table(RuleSet.preset("standard"), 2**70)
    table = store.create_table(RuleSet.preset("standard"), 1)
    with pytest.raises(StoreError, match="deal"):
        store.record_hand_start(table, 1, "5h" * 108, 0)
    with pytest.raises(StoreError, match="first seat"):
        store.record_hand_start(table, 1, _started(store)[1].deck, 4)
    assert store.load(table).hands == ()


def test_one_owner_at_a_time_and_a_lapsed_lease_is_taken_over(engines: EngineFactory) -> None:
    from datetime import timedelta

    from chaodipi.server.store import NotOwnerError, SeatKind, SeatTakenError

    store = new_store(engines)
    game = Game(RuleSet.preset("anchao"), seed=SEED)
    table = store.create_table(game.rules, game.seed, name="一桌")
    assert store.claim(table, "a", timedelta(seconds=30)) is not None
    assert store.claim(table, "b", timedelta(seconds=30)) is None  # a's lease runs
    assert store.claim(table, "a", timedelta(seconds=30)) is not None  # a takes its own back (a restart)
    hand = game.new_hand()
    store.record_hand_start(table, 1, format_deal(hand.deck), hand.first_seat)
    hand.apply(Action.close())
    with pytest.raises(NotOwnerError):
        store.append(table, 0, 1, hand.actions[-1], owner="b")
    assert store.append(table, 0, 1, hand.actions[-1], owner="a") == 1
    assert store.claim(table, "b", timedelta(seconds=-1)) is None
    store.release("a")
    before = store.claim(table, "b", timedelta(seconds=30))
    assert before is not None and before.owner is None and store.info(table).owner == "b"
    assert store.renew("b", timedelta(seconds=30)) == {table: store.info(table).epoch}
    assert store.renew("a", timedelta(seconds=30)) == {}
    # seats: taken once, changed, freed
    store.take_seat(table, 0, SeatKind.PLAYER, "小明", token_hash="ab" * 32)
    with pytest.raises(SeatTakenError):
        store.take_seat(table, 0, SeatKind.BOT, "bot")
    store.update_seat(table, 0, auto=True)
    assert store.seats(table)[0].auto is True and store.seats(table)[0].token_hash == "ab" * 32
    store.update_seat(table, 0, kind=SeatKind.BOT, token_hash=None)
    assert store.seats(table)[0].kind is SeatKind.BOT and store.seats(table)[0].token_hash is None
    store.free_seat(table, 0)
    assert store.seats(table) == {}
    with pytest.raises(SeatTakenError):
        store.free_seat(table, 0)
    store.close()


def test_games_after_games_at_one_table_rebuild_each(engines: EngineFactory) -> None:
    from chaodipi.server.store import game_seed

    store = new_store(engines)
    rules = RuleSet.preset("standard")
    table = store.create_table(rules, 41)
    number = 0
    for g in (1, 2):
        game = Game(rules, game_seed(41, g))
        while not game.over:
            hand = game.new_hand()
            number += 1
            store.record_hand_start(table, number, format_deal(hand.deck), hand.first_seat)
            policy = RandomPolicy(random.Random(number))
            run_hand(hand, [policy.decide] * 4)
            seq = store.info(table).last_seq
            for a in hand.actions:
                seq = store.append(table, seq, number, a)
            game.finish_hand()
        store.set_status(table, TableStatus.FINISHED)
        assert store.rebuild(table, g).to_json() == game.to_json()
        replay(store.finished_record(table, game=g))
        if g == 1:
            with pytest.raises(StoreError):
                store.rebuild(table, 2)
            assert store.next_game(table) == 2
    assert store.info(table).game == 2
    store.close()


def test_each_claim_moves_the_epoch_on_and_a_stalled_owner_can_write_nothing(engines: EngineFactory) -> None:
    """Fencing (issue 22): a process that lost its lease, under any name, is refused every write it names a
    stale epoch in, even when the table's sequence number is the one it expects."""
    from datetime import timedelta

    from chaodipi.server.store import Fence, NotOwnerError, SeatKind

    store = new_store(engines)
    game = Game(RuleSet.preset("standard"), seed=SEED)
    table = store.create_table(game.rules, game.seed)
    assert store.orphans() == []  # a new table is left a while to the process it is placed on
    assert store.orphans(grace=timedelta(seconds=-1)) == [table]  # … and then anyone takes it
    first = store.claim(table, "a", timedelta(seconds=-1))  # a lease that has already run out: a stalled owner
    assert first is not None and first.epoch == 1 and first.owner is None
    stalled = Fence("a", first.epoch)
    hand = game.new_hand()
    store.record_hand_start(table, 1, format_deal(hand.deck), hand.first_seat, fence=stalled)
    assert store.orphans() == [table]
    taken = store.claim(table, "b", timedelta(seconds=30))
    assert taken is not None and taken.epoch == 2 and taken.owner == "a"
    assert store.orphans() == [] and store.owners([table]) == {table: Fence("b", 2)}
    hand.apply(Action.close())
    for owner, epoch in (("a", 1), ("b", 1), ("a", 2)):
        with pytest.raises(NotOwnerError):
            store.append(table, 0, 1, hand.actions[-1], owner=owner, epoch=epoch)
    with pytest.raises(NotOwnerError):
        store.set_deadline(table, None, fence=stalled)
    with pytest.raises(NotOwnerError):
        store.take_seat(table, 0, SeatKind.BOT, "bot", fence=stalled)
    with pytest.raises(NotOwnerError):
        store.set_status(table, TableStatus.FINISHED, fence=stalled)
    assert store.info(table).last_seq == 0 and store.seats(table) == {}
    assert store.append(table, 0, 1, hand.actions[-1], owner="b", epoch=2) == 1
    # the same name claiming again (a restarted process) moves the epoch on too: its old self is fenced off
    again = store.claim(table, "b", timedelta(seconds=30))
    assert again is not None and again.epoch == 3
    with pytest.raises(NotOwnerError):
        store.set_deadline(table, None, fence=Fence("b", 2))
    store.set_deadline(table, None, fence=Fence("b", 3))
    assert store.release("b") == [table] and store.owners([table]) == {table: None}
    store.close()
