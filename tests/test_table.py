"""A table's logic without a server: fake connections, a fake clock, an SQLite file, no waiting (issue 19).

The table is driven by :meth:`Table.step` alone: each step handles one command and does what is due
on the table's clock, and the clock moves only when a test moves it, so a 15-second decision expires
at once. The end-to-end tests through uvicorn are in test_server.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, Future
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from chaodipi.hand import DecisionKind
from chaodipi.phrases import PHRASES, Phrase
from chaodipi.rules import RuleSet
from chaodipi.server.bots import BotRunner
from chaodipi.server.clock import FakeClock
from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import Act, Auto, Hello, Leave, parse_client
from chaodipi.server.seats import SeatState
from chaodipi.server.store import SeatKind, Store
from chaodipi.server.table import CLOSE_LEFT, Table, _Connect, _Disconnect, _Message
from chaodipi.view import Phase
from server_helpers import step_until

CONFIG = ServerConfig(deal_ms=100, bot_delay_ms=500, hand_pause_ms=15_000)


class FakePeer:
    """A connection that keeps what it is sent."""

    def __init__(self, account: tuple[int, str] | None = None) -> None:
        self.seat = -1
        self.account = account
        self.hand_sent = 0
        self.events_sent = 0
        self.sent: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def last(self, kind: str) -> dict[str, Any]:
        return next(m for m in reversed(self.sent) if m["type"] == kind)


class InlineExecutor(Executor):
    """Runs the store's calls at once, in the caller's thread."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


class Setup:
    """One table with Ann (a person) in seat 0 and rules bots in the other seats."""

    def __init__(self, path: Path, rules: str = "standard", seed: int = 11) -> None:
        self.store = Store(f"sqlite:///{path / 'table.db'}")
        self.store.migrate()
        self.table_id = self.store.create_table(RuleSet.preset(rules), seed, name="unit")
        self.clock = FakeClock()
        self.table = self.load(self.clock)
        self.token = ""

    def load(self, clock: FakeClock) -> Table:
        """The stored table, claimed and made into a Table (not yet restored: ``await table.restore(...)``)."""
        info = self.store.claim(self.table_id, CONFIG.owner, timedelta(seconds=30))
        assert info is not None
        table = Table(
            info,
            self.store.seats(self.table_id),
            store=self.store,
            db=InlineExecutor(),
            bots=BotRunner(1),
            config=CONFIG,
            clock=clock,
        )
        return table

    async def start(self) -> None:
        await self.table.restore(timedelta(0))
        answer = await self.table.take_seat(0, "Ann", None)
        self.token = answer["token"]
        for seat in (1, 2, 3):
            await self.table.take_seat(seat, "", "rules")

    async def start_kept_behind(self, tricks: int) -> FakePeer:
        """Keep the table's spectators ``tricks`` whole tricks behind (the stored setting, the table made again from
        it), start it, and connect a spectator; returns the spectator's connection."""
        with self.store.engine.begin() as c:
            c.execute(text("UPDATE tables SET watch_delay = :d WHERE id = :i"), {"d": tricks, "i": self.table_id})
        self.table = self.load(self.clock)
        await self.start()
        watcher = FakePeer()
        await self.table.step(_Connect(watcher, Hello(None, watch=True)))
        return watcher

    async def connect(self, **resume: int) -> FakePeer:
        peer = FakePeer()
        await self.table.step(_Connect(peer, Hello(self.token, **resume)))
        return peer

    async def until(self, done: Callable[[], bool], limit: int = 5000) -> None:
        """Step the table, moving the clock to its next wake each time, until ``done()``."""
        await step_until(self.table, self.clock, done, limit)

    def pending(self) -> Any:
        hand = self.table._hand()
        return None if hand is None else hand.pending()

    def anns_turn(self) -> bool:
        p = self.pending()
        return p is not None and p.seat == 0


def run(test: Callable[[Setup], Coroutine[Any, Any, None]], tmp_path: Path, **kw: Any) -> None:
    setup = Setup(tmp_path, **kw)

    async def main() -> None:
        await setup.start()
        await test(setup)

    asyncio.run(main())
    setup.store.close()


def test_a_missed_decision_is_played_for_the_seat_and_two_in_a_row_put_it_in_tuoguan(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        assert peer.sent[0]["type"] == "welcome" and peer.seat == 0
        await s.until(s.anns_turn)
        pending = s.pending()
        deadline = s.table.deadline
        assert deadline is not None and deadline.seat == 0 and deadline.kind == pending.kind.value
        assert deadline.remaining_ms(s.clock.now()) == round(s.table.limit(pending.seconds) * 1000)
        before = len(s.table._hand().actions)
        s.clock.advance(pending.seconds - 0.5)  # not yet
        await s.table.step()
        assert s.table.seats[0].auto is False and len(s.table._hand().actions) == before
        s.clock.advance(1.0)  # the limit is over: the rules bot plays that one decision for Ann (RULES §13)
        await s.table.step()
        assert len(s.table._hand().actions) > before and s.table._hand().actions[before].player == 0
        assert s.table.seats[0].auto is False and s.table.missed[0] == 1
        await s.until(s.anns_turn)  # her next decision: missed too, the second in a row, and 托管 stays on
        second = s.pending()
        before = len(s.table._hand().actions)
        s.clock.advance(s.table.limit(second.seconds) + 0.1)
        await s.table.step()
        assert s.table.seats[0].auto is True
        assert len(s.table._hand().actions) > before and s.table._hand().actions[before].player == 0
        seats = peer.last("seats")["seats"]
        assert seats[0]["auto"] is True
        assert s.store.seats(s.table_id)[0].auto is True  # stored
        # she takes control back: the count starts again, and one more missed decision is played for her alone
        await s.table.step(_Message(peer, Auto(False), s.clock.now()))
        assert s.table.seats[0].auto is False and 0 not in s.table.missed
        await s.until(s.anns_turn)
        third = s.pending()
        s.clock.advance(s.table.limit(third.seconds) + 0.1)
        await s.table.step()
        assert s.table.seats[0].auto is False and s.table.missed[0] == 1


def test_acting_between_two_missed_decisions_keeps_the_seat_out_of_tuoguan(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        for turn in range(3):  # miss, act, miss, act, …: never two missed in a row
            await s.until(s.anns_turn)
            if turn % 2 == 0:
                s.clock.advance(s.table.limit(s.pending().seconds) + 0.1)
                await s.table.step()
                assert s.table.missed.get(0) == 1
            else:
                action = s.table.bots.decide_now("rules", turn, s.table._hand().view(0))  # Ann decides in time
                assert action is not None
                await s.table.step(_Message(peer, Act(s.table.seq, action), s.clock.now()))
                assert 0 not in s.table.missed
            assert s.table.seats[0].auto is False

    run(test, tmp_path)

    run(test, tmp_path)


def test_the_countdown_closes_by_the_clock(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        await s.connect()
        await s.until(lambda: s.pending() is not None and s.pending().kind is DecisionKind.DECLARE)
        deadline = s.table.deadline
        assert deadline is not None and deadline.seat is None and deadline.kind == "declare"
        await s.until(lambda: s.table._hand().phase is not Phase.COUNTDOWN)
        assert s.table._hand().actions[-1].kind.value in ("close", "bury") or s.table._hand().phase is Phase.REDEAL

    run(test, tmp_path)


def test_tuoguan_ends_when_the_player_acts_or_turns_it_off(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        await s.table.step(_Message(peer, Auto(True), s.clock.now()))
        assert s.table.seats[0].auto is True and peer.last("seats")["seats"][0]["auto"] is True
        await s.table.step(_Message(peer, Auto(False), s.clock.now()))
        assert s.table.seats[0].auto is False and peer.last("seats")["seats"][0]["auto"] is False
        await s.until(s.anns_turn)
        await s.table.step(_Message(peer, Auto(True), s.clock.now()))  # at her turn: the bot is due after its delay
        assert s.table.seats[0].auto is True and 0 in s.table.bot_due
        hand = s.table._hand()
        action = next(iter(hand.view(0).legal.actions(0)))
        before = len(hand.actions)
        await s.table.step(_Message(peer, Act(s.table.seq, action), s.clock.now()))  # she acts first: 托管 ends
        assert s.table.seats[0].auto is False and s.store.seats(s.table_id)[0].auto is False
        assert len(hand.actions) == before + 1 and hand.actions[before].player == 0
        assert peer.last("seats")["seats"][0]["auto"] is False and peer.last("update")["seq"] == s.table.seq

    run(test, tmp_path)


def test_a_stale_or_illegal_act_gets_an_error_and_changes_nothing(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        await s.until(s.anns_turn)
        seq, actions = s.table.seq, len(s.table._hand().actions)
        bogus = parse_client(json.dumps({"type": "act", "seq": seq - 1, "action": {"a": "pass"}}), seat=0)
        await s.table.step(_Message(peer, bogus, s.clock.now()))
        assert peer.sent[-1]["type"] == "error" and peer.sent[-1]["code"] == "stale"
        wrong = parse_client(json.dumps({"type": "act", "seq": seq, "action": {"a": "bury", "cards": "BJ"}}), seat=0)
        await s.table.step(_Message(peer, wrong, s.clock.now()))
        assert peer.sent[-1]["type"] == "error" and peer.sent[-1]["code"] == "illegal"
        reason = peer.sent[-1]["reason"]  # the engine's reason as data, beside its words
        assert reason["code"] in PHRASES and Phrase.from_json(reason).code == reason["code"]
        assert peer.sent[-1]["message"] == str(Phrase.from_json(reason))
        assert (s.table.seq, len(s.table._hand().actions)) == (seq, actions)

    run(test, tmp_path)


def test_leaving_mid_game_hands_the_seat_to_a_bot(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        await s.until(s.anns_turn)
        await s.table.step(_Message(peer, Leave(), s.clock.now()))
        assert peer.last("left")["escaped"] is True and peer.closed is not None and peer.closed[0] == CLOSE_LEFT
        assert s.table.seats[0].kind is SeatKind.BOT and 0 in s.table._hand().left
        assert s.store.seats(s.table_id)[0].kind is SeatKind.BOT
        hand = s.table._hand()
        await s.until(lambda: hand.phase is Phase.OVER)  # the bots finish the hand
        assert hand.result is not None and [e.player for e in hand.result.escapes] == [0]

    run(test, tmp_path)


def test_a_restart_gives_back_the_downtime_within_the_whole_limit(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        await s.connect()
        await s.until(s.anns_turn)
        deadline = s.table.deadline
        assert deadline is not None
        s.clock.advance(4.0)  # 4 s of the limit used, then the server stops
        stored = s.store.info(s.table_id).deadline_at
        assert stored == deadline.at
        later = FakeClock(start=50.0, wall=s.clock.wall() + timedelta(seconds=60))
        s.store.release(CONFIG.owner)
        restored = s.load(later)
        await restored.restore(timedelta(seconds=3))
        again = restored.deadline
        assert again is not None and again.seat == 0 and again.key == deadline.key
        # stored deadline + 3 s of downtime, never more than the whole limit from now
        expected = min(deadline.at + timedelta(seconds=3), later.wall() + timedelta(seconds=deadline.limit))
        assert again.at == expected
        assert again.remaining_ms(later.now()) == max(0, round((expected - later.wall()).total_seconds() * 1000))
        assert restored._hand().actions == s.table._hand().actions  # the same hand, replayed from the store

    run(test, tmp_path)


def test_a_reconnection_gets_only_the_events_it_missed(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        await s.until(lambda: s.table._hand() is not None and s.table._hand().phase is Phase.COUNTDOWN)
        seen = len(s.table._hand().visible_events(0))
        seq, hand_number = s.table.seq, s.table.hand_number
        assert peer.events_sent == seen
        await s.table.step(_Disconnect(peer))
        await s.until(s.anns_turn)
        back = await s.connect(seq=seq, hand=hand_number, events=seen)
        welcome = back.sent[0]
        assert welcome["type"] == "welcome" and welcome["resumed"] is True and welcome["events_from"] == seen
        now = s.table._hand().visible_events(0)
        assert len(welcome["events"]) == len(now) - seen
        assert welcome["events"] == [e.to_json() for e in now[seen:]]
        fresh = await s.connect()  # no resume data: the whole list
        assert fresh.sent[0]["resumed"] is False and fresh.sent[0]["events_from"] == 0

    run(test, tmp_path)


@pytest.mark.parametrize("rules", ["anchao", "kangqi", "mingchao"])
def test_a_whole_hand_runs_on_the_fake_clock(tmp_path: Path, rules: str) -> None:
    async def test(s: Setup) -> None:
        await s.connect()
        s.table.seats[0].auto = True  # 托管 from the start: the bots play every seat
        hand = None

        def over() -> bool:
            nonlocal hand
            hand = s.table._hand()
            return hand is not None and hand.phase in (Phase.OVER, Phase.REDEAL)

        await s.until(over)
        stored = [a.action for a in s.store.load(s.table_id).hands[-1].actions]
        assert hand is not None and stored == hand.actions  # every action stored, in order

    run(test, tmp_path, rules=rules)


def test_a_seat_has_one_json_shape_in_the_lobby_and_at_the_table(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        at_table = peer.sent[0]["seats"]
        stored = s.store.seats(s.table_id)
        in_lobby = [SeatState.stored(stored[n]).to_json(n) for n in range(4)]
        assert [set(x) for x in in_lobby] == [set(x) for x in at_table]
        assert in_lobby[1] == at_table[1]  # a bot seat: the same, connected or not
        assert at_table[0]["connected"] is True and in_lobby[0]["connected"] is False  # (no connection in the store)

    run(test, tmp_path)


def test_an_append_that_fails_while_the_database_is_away_is_never_told(tmp_path: Path) -> None:
    """Issue 38: the action is applied in memory, its append fails (the database is away), and the table cannot
    reload what the store holds either. It must not go on from memory (which is ahead of the store): no update or
    welcome tells the action; its clients are closed with 1013 (reconnect in a moment) and the table stops
    (``moved``), to be rebuilt from the store once the database answers, at the stored sequence number."""
    import sqlite3

    from chaodipi.bots import make_bot
    from chaodipi.server.table import CLOSE_TRY_AGAIN

    async def test(s: Setup) -> None:
        peer = await s.connect()
        await s.until(s.anns_turn)
        seq = s.table.seq
        hand = s.table._hand()
        action = make_bot("rules", 1).act(hand.view(0))
        assert action is not None
        body = action.to_json()
        body.pop("p", None)
        body.pop("at", None)
        act = parse_client(json.dumps({"type": "act", "seq": seq, "action": body}), seat=0)
        away = sqlite3.OperationalError("disk I/O error")
        real_append, real_info = s.store.append_batch, s.store.info
        s.store.append_batch = lambda appends: [away for _ in appends]  # type: ignore[method-assign]

        def info(table_id: int) -> Any:
            raise away

        s.store.info = info  # type: ignore[method-assign]
        sent = len(peer.sent)
        with pytest.raises(sqlite3.OperationalError):
            await s.table.step(_Message(peer, act, s.clock.now()))
        assert peer.closed is not None and peer.closed[0] == CLOSE_TRY_AGAIN
        assert all(m.get("seq", 0) <= seq for m in peer.sent[sent:]), peer.sent[sent:]
        assert s.table.moved
        s.store.append_batch, s.store.info = real_append, real_info  # type: ignore[method-assign]
        assert s.store.info(s.table_id).last_seq == seq  # not stored
        again = s.load(s.clock)  # the database answers: the table is rebuilt from the store
        await again.restore(timedelta(0))
        assert again.seq == seq and len(again._hand().actions) == len(hand.actions) - 1

    run(test, tmp_path)
