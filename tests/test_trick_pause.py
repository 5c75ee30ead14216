"""The pause after a trick (issue 20): a won trick stays in the middle before the next lead.

After the fourth play of a trick the next lead waits ``trick_pause_ms``: a bot leads no sooner
(the pause stands in for its delay when it is longer), and a person's deadline for the lead is
moved on by the pause, so that the rules' time limit is whole once the pause is over. The pause
is pacing only: the same seed plays the same hand with or without it. On the fake clock of
test_table.py, with no waiting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import timedelta
from pathlib import Path
from typing import Any

from chaodipi.hand import DecisionKind
from chaodipi.server.bots import BotRunner
from chaodipi.server.clock import FakeClock
from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import Act
from chaodipi.server.table import Table, _Message
from chaodipi.view import Phase
from test_table import FakePeer, InlineExecutor, Setup

BOT_DELAY_MS = 500
PAUSE_MS = 1500


def config(pause_ms: int = PAUSE_MS, bot_delay_ms: int = BOT_DELAY_MS) -> ServerConfig:
    return ServerConfig(deal_ms=100, bot_delay_ms=bot_delay_ms, hand_pause_ms=15_000, trick_pause_ms=pause_ms)


class Paced(Setup):
    """test_table's table (Ann in seat 0, rules bots in 1–3) on a server with the pace given."""

    def __init__(self, path: Path, pace: ServerConfig, **kw: Any) -> None:
        self.pace = pace
        super().__init__(path, **kw)

    def load(self, clock: FakeClock) -> Table:
        info = self.store.claim(self.table_id, self.pace.owner, timedelta(seconds=30))
        assert info is not None
        seats = self.store.seats(self.table_id)
        db, bots = InlineExecutor(), BotRunner(1)
        return Table(info, seats, store=self.store, db=db, bots=bots, config=self.pace, clock=clock)

    def tricks(self) -> int:
        hand = self.table._hand()
        return 0 if hand is None else len(hand.tricks)

    def lead_after_a_trick(self) -> bool:
        """Whether the hand waits for the lead of a trick that follows a finished one."""
        hand, pending = self.table._hand(), self.pending()
        return (
            hand is not None
            and pending is not None
            and pending.kind is DecisionKind.PLAY
            and not hand.current
            and bool(hand.tricks)
        )


def run(test: Callable[[Paced], Coroutine[Any, Any, None]], path: Path, pace: ServerConfig, **kw: Any) -> None:
    setup = Paced(path, pace, **kw)

    async def main() -> None:
        await setup.start()
        await test(setup)

    asyncio.run(main())
    setup.store.close()


async def ann_plays_until(s: Paced, peer: FakePeer, done: Callable[[], bool]) -> None:
    """Ann decides in time (the rules bot's choice, sent as hers) until ``done()`` on her turn."""
    for turn in range(200):
        await s.until(s.anns_turn)
        if done():
            return
        action = s.table.bots.decide_now("rules", turn, s.table._hand().view(0))
        assert action is not None
        await s.table.step(_Message(peer, Act(s.table.seq, action), s.clock.now()))
    raise AssertionError("not reached")


def test_a_bot_does_not_lead_before_the_pause_has_run_out(tmp_path: Path) -> None:
    async def test(s: Paced) -> None:
        await s.connect()
        s.table.seats[0].auto = True  # 托管: the bots play every seat
        await s.until(lambda: s.tricks() >= 1)
        hand = s.table._hand()
        end = s.clock.now()  # the fourth play was just accepted
        assert s.lead_after_a_trick()
        leader = s.pending().seat
        assert leader == hand.tricks[-1].winner
        due, _ = s.table.bot_due[leader]
        assert due == end + PAUSE_MS / 1000  # the pause stands in for the (shorter) bot delay
        s.clock.advance(PAUSE_MS / 1000 - 0.01)
        await s.table.step()
        assert not hand.current and len(hand.tricks) == 1, "the bot led before the pause was over"
        s.clock.advance(0.02)
        await s.table.step()
        assert hand.current and hand.current[0][0] == leader  # then it leads

    run(test, tmp_path, config())


def test_a_bot_delay_longer_than_the_pause_is_kept(tmp_path: Path) -> None:
    async def test(s: Paced) -> None:
        await s.connect()
        s.table.seats[0].auto = True
        await s.until(lambda: s.tricks() >= 1)
        due, _ = s.table.bot_due[s.pending().seat]
        assert due == s.clock.now() + BOT_DELAY_MS / 1000

    run(test, tmp_path, config(pause_ms=200))


def test_no_pause_keeps_the_bot_delay_and_the_whole_limit(tmp_path: Path) -> None:
    async def test(s: Paced) -> None:
        await s.connect()
        s.table.seats[0].auto = True
        await s.until(lambda: s.tricks() >= 1)
        pending = s.pending()
        due, _ = s.table.bot_due[pending.seat]
        assert due == s.clock.now() + BOT_DELAY_MS / 1000
        deadline = s.table.deadline
        assert deadline is not None and deadline.seat == pending.seat
        assert deadline.remaining_ms(s.clock.now()) == round(s.table.limit(pending.seconds) * 1000)
        assert s.table.trick_pause is None

    run(test, tmp_path, config(pause_ms=0))


def test_a_persons_deadline_is_not_eaten_by_the_pause(tmp_path: Path) -> None:
    async def test(s: Paced) -> None:
        peer = await s.connect()
        assert peer.sent[0]["pace"] == {
        "deal_ms": 100,
        "bot_delay_ms": BOT_DELAY_MS,
        "trick_pause_ms": PAUSE_MS,
        "keepalive_ms": 10_000,
    }
        await ann_plays_until(s, peer, s.lead_after_a_trick)  # Ann won a trick: she leads the next one
        pending = s.pending()
        limit = s.table.limit(pending.seconds)
        pause = PAUSE_MS / 1000
        deadline = s.table.deadline
        assert deadline is not None and deadline.seat == 0 and deadline.kind == "play"
        assert deadline.limit == limit  # the rules' limit, whole
        assert deadline.remaining_ms(s.clock.now()) == round((limit + pause) * 1000)
        assert peer.last("update")["deadline"] == {"seat": 0, "kind": "play", "ms": round((limit + pause) * 1000)}
        assert s.store.info(s.table_id).deadline_at == deadline.at == s.clock.wall() + timedelta(seconds=limit + pause)
        before = len(s.table._hand().actions)
        s.clock.advance(pause)  # the pause is over: the whole limit is left
        await s.table.step()
        assert s.table.deadline is deadline and deadline.remaining_ms(s.clock.now()) == round(limit * 1000)
        s.clock.advance(limit - 0.1)
        await s.table.step()
        assert len(s.table._hand().actions) == before and 0 not in s.table.missed  # not yet
        s.clock.advance(0.2)  # the limit is over: the rules bot leads for Ann (RULES §13)
        await s.table.step()
        hand = s.table._hand()
        assert len(hand.actions) == before + 1 and hand.actions[before].player == 0 and s.table.missed[0] == 1

    run(test, tmp_path, config())


def test_a_person_may_lead_during_the_pause(tmp_path: Path) -> None:
    async def test(s: Paced) -> None:
        peer = await s.connect()
        await ann_plays_until(s, peer, s.lead_after_a_trick)
        hand = s.table._hand()
        action = s.table.bots.decide_now("rules", 1, hand.view(0))
        assert action is not None
        await s.table.step(_Message(peer, Act(s.table.seq, action), s.clock.now()))  # at once, in the pause
        assert hand.current and hand.current[0][0] == 0 and hand.actions[-1] == action

    run(test, tmp_path, config())


def test_the_pause_changes_no_record(tmp_path: Path) -> None:
    """The same seed, played by the bots with and without the pause: the same actions, in the same order."""
    records = []
    for pause in (0, PAUSE_MS):

        async def test(s: Paced) -> None:
            await s.connect()
            s.table.seats[0].auto = True
            await s.until(lambda: s.table._hand() is not None and s.table._hand().phase in (Phase.OVER, Phase.REDEAL))
            records.append([a.action for a in s.store.load(s.table_id).hands[-1].actions])

        folder = tmp_path / str(pause)
        folder.mkdir()
        run(test, folder, config(pause_ms=pause))
    assert records[0] == records[1] and len(records[0]) > 40
