"""Tables for events (issue 23): the game time limit (RULES §14.2) kept by the table on its clock, best of
three, reserved seats, the event tag, and the games' outcomes for the tournament code.

Like test_table.py: the table is driven by :meth:`Table.step` on a fake clock, bots in every seat, no waiting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from chaodipi.game import side_ahead
from chaodipi.record import replay
from chaodipi.rules import RuleSet
from chaodipi.server.accounts import Accounts, check_username
from chaodipi.server.bots import BotRunner
from chaodipi.server.clock import FakeClock
from chaodipi.server.config import ServerConfig
from chaodipi.server.store import GameOutcome, ReservedSeat, Store, TableStatus
from chaodipi.server.table import Table, TableError
from chaodipi.server.tables import Server
from chaodipi.view import Phase
from server_helpers import step_until
from test_table import FakePeer, InlineExecutor

CONFIG = ServerConfig(deal_ms=10, bot_delay_ms=100, hand_pause_ms=5_000, trick_pause_ms=0)


class Event:
    """One table of an event: bots in every seat, on a fake clock; ``told`` is what its listener heard."""

    def __init__(self, path: Path, **options: Any) -> None:
        self.store = Store(f"sqlite:///{path / 'event.db'}")
        self.store.migrate()
        self.table_id = self.store.create_table(RuleSet.preset("standard"), 5, name="event", **options)
        self.clock = FakeClock()
        self.told: list[tuple[int, GameOutcome]] = []
        self.table = self.load(self.clock)

    def load(self, clock: FakeClock) -> Table:
        info = self.store.claim(self.table_id, CONFIG.owner, timedelta(seconds=30))
        assert info is not None

        async def listener(table_id: int, outcome: GameOutcome) -> None:
            self.told.append((table_id, outcome))

        async def broken(table_id: int, outcome: GameOutcome) -> None:
            raise RuntimeError("a listener that fails breaks nothing")

        return Table(
            info,
            self.store.seats(self.table_id),
            store=self.store,
            db=InlineExecutor(),
            bots=BotRunner(1),
            config=CONFIG,
            clock=clock,
            listeners=[broken, listener],
        )

    async def start(self) -> None:
        await self.table.restore(timedelta(0))
        for seat in range(4):
            await self.table.take_seat(seat, "", "rules")

    async def until(self, done: Callable[[], bool], limit: int = 20_000) -> None:
        await step_until(self.table, self.clock, done, limit)

    async def listened(self) -> None:
        await asyncio.gather(*self.table.listening)

    def hand_in_progress(self) -> bool:
        hand = self.table._hand()
        return hand is not None and hand.phase not in (Phase.OVER, Phase.REDEAL) and hand.dealt > 0


def run(test: Callable[[Event], Coroutine[Any, Any, None]], tmp_path: Path, **options: Any) -> None:
    event = Event(tmp_path, **options)

    async def main() -> None:
        await event.start()
        await test(event)

    asyncio.run(main())
    event.store.close()


def _check_outcome(e: Event, number: int = 1) -> GameOutcome:
    """The stored outcome of game ``number``: what the game says, told to the listener, and the record agrees."""
    game = e.store.rebuild(e.table_id, number)
    outcomes = {o.game: o for o in e.store.game_outcomes(e.table_id)}
    outcome = outcomes[number]
    assert game.end is not None
    assert (outcome.winner, outcome.by_time, outcome.hands) == (game.winner, game.ended_by_time, len(game.hands))
    assert outcome.progress == (game.progress[0], game.progress[1])
    assert (e.table_id, outcome) in e.told
    record = e.store.finished_record(e.table_id, game=number)
    assert replay(record).winner == outcome.winner  # the record of a game ended by time replays to its winner
    assert ("time_up" in record) is game.time_called
    return outcome


def test_time_during_a_hand_lets_it_finish_then_the_side_ahead_wins(tmp_path: Path) -> None:
    async def test(e: Event) -> None:
        peer = FakePeer()
        e.table.watchers.append(peer)
        clock = e.table.game_json()["clock"]  # type: ignore[index]
        assert clock == {"minutes": 1, "ms": 60_000, "time_up": False}
        assert e.store.info(e.table_id).game_ends_at == e.clock.wall() + timedelta(minutes=1)
        await e.until(lambda: e.table.game is not None and e.table.game.time_called and e.hand_in_progress())
        game = e.table.game
        assert game is not None and not game.over and e.table.status is TableStatus.PLAYING
        dealt = len(game.hands)
        assert e.store.info(e.table_id).time_up_game == 1  # stored at once (a restart keeps it)
        assert peer.last("update")["game"]["clock"] == {"minutes": 1, "ms": 0, "time_up": True}
        await e.until(lambda: game.over)
        assert len(game.hands) == dealt and game.ended_by_time  # the hand in progress was the last
        last = game.history[-1]
        assert last.result is not None and last.dealer is not None
        won = last.dealer % 2 if last.result.settlement.table.value == "dealer" else 1 - last.dealer % 2
        assert game.winner == side_ahead(game.progress, last_winner=won)
        await e.table.step()
        await e.listened()
        assert e.table.status is TableStatus.FINISHED and e.store.info(e.table_id).status is TableStatus.FINISHED
        outcome = _check_outcome(e)
        assert outcome.by_time and outcome.winner == game.winner
        assert e.table.pause_due is None and e.table.next_wake() is None  # nothing more: best of 1

    run(test, tmp_path, game_minutes=1)


def test_time_between_hands_ends_the_game_at_once(tmp_path: Path) -> None:
    async def test(e: Event) -> None:
        await e.until(lambda: e.table.pause_due is not None)  # the first hand is over: the pause between hands
        game = e.table.game
        assert game is not None and not game.over and e.table.game_due is not None
        e.clock.advance(max(0.0, e.table.game_due - e.clock.now()))  # the limit runs out during the pause
        await e.table.step()
        await e.listened()
        assert game.over and game.ended_by_time and game.time_up == 1 and len(game.hands) == 1
        assert e.table.status is TableStatus.FINISHED and e.table.pause_due is None
        outcome = _check_outcome(e)
        assert outcome.by_time and outcome.hands == 1

    run(test, tmp_path, game_minutes=10)


def test_a_restart_keeps_the_limit_moved_on_by_the_downtime(tmp_path: Path) -> None:
    async def test(e: Event) -> None:
        await e.until(lambda: e.hand_in_progress() and e.clock.now() > 1010)
        due = e.table.game_due
        assert due is not None
        left = due - e.clock.now()
        ends_at = e.store.info(e.table_id).game_ends_at
        assert ends_at is not None
        later = FakeClock(start=50.0, wall=e.clock.wall() + timedelta(seconds=20))  # down 20 s, 3 s of it given back
        e.store.release(CONFIG.owner)
        restored = e.load(later)
        await restored.restore(timedelta(seconds=3))
        assert restored.game_ends_at == ends_at + timedelta(seconds=3)
        assert e.store.info(e.table_id).game_ends_at == ends_at + timedelta(seconds=3)
        assert restored.game_due == pytest.approx(later.now() + left - 20 + 3)
        assert restored.game_json()["clock"]["time_up"] is False  # type: ignore[index]
        # the time runs out in the restored table, and a second restart keeps that too
        e.table, e.clock = restored, later
        await e.until(lambda: restored.game is not None and restored.game.time_called and e.hand_in_progress())
        e.store.release(CONFIG.owner)
        again = e.load(later)
        await again.restore(timedelta(0))
        assert again.game is not None and again.game.time_called and not again.game.over
        assert again.game_due is None and again.game_json()["clock"]["time_up"] is True  # type: ignore[index]
        e.table = again
        await e.until(lambda: again.game is not None and again.game.over)
        await again.step()
        await e.listened()
        assert again.game.ended_by_time and _check_outcome(e).by_time  # type: ignore[union-attr]

    run(test, tmp_path, game_minutes=1)


def test_best_of_three_plays_on_by_itself_until_a_side_has_two_wins(tmp_path: Path) -> None:
    async def test(e: Event) -> None:
        first = e.table.game
        await e.until(lambda: first is not None and first.over)
        assert e.table.status is TableStatus.PLAYING and e.table.pause_due is not None  # the next game follows
        assert e.table.game_json()["match"] == {"best_of": 3, "wins": list(e.table.match_wins())}  # type: ignore[index]
        await e.until(lambda: e.table.game_number == 2 and e.table.game is not first)
        assert e.table.game_json()["clock"]["ms"] == 60_000  # type: ignore[index]  # a new limit for each game
        await e.until(lambda: e.table.status is TableStatus.FINISHED)
        await e.listened()
        outcomes = e.store.game_outcomes(e.table_id)
        wins = [sum(o.winner == t for o in outcomes) for t in (0, 1)]
        assert max(wins) == 2 and len(outcomes) in (2, 3) and e.table.game_number == len(outcomes)
        assert [o.game for o in outcomes] == list(range(1, len(outcomes) + 1))
        for o in outcomes:
            _check_outcome(e, o.game)
        assert e.store.info(e.table_id).status is TableStatus.FINISHED
        with pytest.raises(TableError, match="the match at this table is over"):
            await e.table._again()

    run(test, tmp_path, game_minutes=1, best_of=3)


def test_a_restart_between_two_games_of_a_match_starts_the_next(tmp_path: Path) -> None:
    async def test(e: Event) -> None:
        first = e.table.game
        await e.until(lambda: first is not None and first.over)
        e.store.release(CONFIG.owner)
        restored = e.load(e.clock)
        await restored.restore(timedelta(0))
        assert restored.status is TableStatus.PLAYING and restored.pause_due is not None
        e.table = restored
        await e.until(lambda: restored.game_number == 2 and restored._hand() is not None)
        assert e.store.info(e.table_id).game == 2

    run(test, tmp_path, game_minutes=1, best_of=3)


# -- reserved seats, the event tag, the lobby ---------------------------------------------------------------


def test_reserved_seats_refuse_other_players_and_seat_their_bots(tmp_path: Path) -> None:
    async def main() -> None:
        server = Server(f"sqlite:///{tmp_path / 'lobby.db'}", ServerConfig(hand_pause_ms=600_000))
        server.store.migrate()
        accounts = Accounts(server.store.engine)
        ann, bob, eve = (accounts.create(n, check_username(n)[1], "x") for n in ("ann", "bob", "eve"))
        try:
            reserved = [{"account": [ann.id, "ann"]}, {"bot": "rules"}, {"account": [bob.id, "bob"]}, {"bot": "random"}]
            body = {"name": "R1", "rules": "anchao", "reserved": reserved, "event": 7, "game_minutes": 50}
            table_id = await server.create_table(body)
            summary = await server.table_op(table_id, "summary")
            assert summary["event"] == 7 and summary["game_minutes"] == 50 and summary["best_of"] == 1
            assert summary["reserved"] == [{"name": "ann"}, {"bot": "rules"}, {"name": "bob"}, {"bot": "random"}]
            seats = summary["seats"]
            assert seats[0] is None and seats[2] is None and seats[1]["bot"] == "rules" and seats[3]["bot"] == "random"

            async def seat(n: int | None, account: Any, bot: str | None = None) -> Any:
                return await server.table_op(table_id, "seat", seat=n, name="guest", bot=bot, account=account)

            for who, bot in ((None, None), ([eve.id, "eve"], None), ([bob.id, "bob"], None), (None, "rules")):
                with pytest.raises(TableError, match="seat 0 is reserved for ann") as refused:
                    await seat(0, who, bot)
                assert refused.value.status == 403
            with pytest.raises(TableError, match="every free seat is reserved for another player"):
                await seat(None, [eve.id, "eve"])  # no seat left for eve: each free seat is someone's
            with pytest.raises(TableError, match="seat 2 is reserved for bob"):
                await seat(2, [eve.id, "eve"])
            assert (await seat(None, [bob.id, "bob"]))["seat"] == 2  # bob is given his own seat
            assert (await seat(0, [ann.id, "ann"]))["seat"] == 0
            summary = await server.table_op(table_id, "summary")
            assert summary["status"] == "playing" and summary["game"]["clock"]["minutes"] == 50
            # quick join in the room offers no event's table
            joined = await server.quick_join("anchao", "guest", None)
            assert joined["table"] != table_id
        finally:
            await server.stop()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("game_minutes", -1, "'game_minutes' is 0 (no limit) to 600"),
        ("game_minutes", 601, "'game_minutes' is 0 (no limit) to 600"),
        ("game_minutes", 1.5, "'game_minutes' is 0 (no limit) to 600"),
        ("best_of", 2, "'best_of' is 1 or 3"),
        ("best_of", True, "'best_of' is 1 or 3"),
        ("event", "7", "'event' is the id of a tournament event"),
        ("event", 0, "'event' is the id of a tournament event"),
        ("reserved", [{"bot": "rules"}] * 3, "'reserved' is 4 entries"),
        ("reserved", [{"bot": "nobody"}] * 4, "reserved: seat 0: 'nobody' is not a bot"),
        ("reserved", [{"account": [1, "a"]}, {"account": [1, "a"]}, {"bot": "rules"}, {"bot": "rules"}], "account 1"),
        ("reserved", [{"account": ["1", "a"]}, {"bot": "rules"}, {"bot": "rules"}, {"bot": "rules"}], "an account is"),
        (
            "reserved",
            [{"account": [99, "zed"]}, {"bot": "rules"}, {"bot": "rules"}, {"bot": "rules"}],
            "does not exist",
        ),
    ],
)
def test_an_event_tables_fields_are_checked(tmp_path: Path, field: str, value: Any, words: str) -> None:
    async def main() -> None:
        server = Server(f"sqlite:///{tmp_path / 'lobby.db'}")
        server.store.migrate()
        try:
            with pytest.raises(TableError) as refused:
                await server.create_table({"name": "x", "rules": "standard", field: value})
            assert refused.value.status == 400 and words in str(refused.value)
        finally:
            await server.stop()

    asyncio.run(main())


def test_the_store_keeps_an_event_tables_settings(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    store.migrate()
    seats = [ReservedSeat(1, None, "rules bot", "rules"), ReservedSeat(3, None, "search bot", "search")]
    table = store.create_table(RuleSet.preset("standard"), 1, event_id=4, game_minutes=50, best_of=3, reserved=seats)
    info = store.info(table)
    assert (info.event_id, info.game_minutes, info.best_of) == (4, 50, 3)
    assert store.reserved(table) == {s.seat: s for s in seats}
    assert store.game_outcomes(table) == []
    plain = store.info(store.create_table(RuleSet.preset("standard"), 1))
    assert (plain.event_id, plain.game_minutes, plain.best_of) == (None, 0, 1)
    store.close()
