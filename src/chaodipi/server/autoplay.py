"""Bot seats and 托管 (auto-play): who plays when nobody is waited for, and what happens when time runs out.

RULES §13: a player whose decision runs out goes into 托管, and the rules bot plays for the seat
until the player acts again or turns it off. Bot seats (and seats left in a game, 逃跑) are
played by their bot after a short delay, so that people can follow; the search bot thinks in a
process pool while the table goes on.

After a trick is won the next lead waits ``trick_pause_ms`` (:attr:`ServerConfig.trick_pause_ms
<chaodipi.server.config.ServerConfig.trick_pause_ms>`), so that everyone sees the finished trick
and who took it: a bot leads no sooner (the pause stands in for its delay when longer), and the
leader's deadline is moved on by the pause, so that the rules' time limit is whole once it is
over. A person may lead during the pause. The pause is pacing only: it is in no record.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, TypeVar

from chaodipi.hand import DecisionKind, Hand, Pending
from chaodipi.log import Action, IllegalActionError
from chaodipi.server.bots import BOT_NAMES, BotRunner, bot_seed
from chaodipi.server.clock import Clock, Deadline
from chaodipi.server.config import ServerConfig
from chaodipi.server.seats import Peer, SeatState
from chaodipi.server.store import Fence, SeatKind, Store, TableInfo
from chaodipi.view import Phase

__all__ = ["MISSES_FOR_TUOGUAN", "AutoPlay", "BotDone"]

log = logging.getLogger("chaodipi.server")

#: Decisions missed in a row after which a seat stays in 托管 (RULES §13); one missed is played for it alone.
MISSES_FOR_TUOGUAN = 2
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BotDone:
    """A bot's decision coming back to the table's queue (``key``: the table's state it was made for)."""

    seat: int
    key: tuple[Any, ...]
    action: Action | None


class AutoPlay:
    """Who plays when nobody is waited for: the bot seats, the seats in 托管, and the decision's deadline.

    :class:`~chaodipi.server.table.Table` is one: it keeps the state named below and makes the
    operations named below (accepting an action, telling the seats); this class plans the bots'
    turns on the table's clock (:meth:`_schedule`), asks the bots (:class:`~chaodipi.server.bots.BotRunner`),
    times the decision the engine waits for (:meth:`Hand.pending <chaodipi.hand.Hand.pending>`) and,
    when it runs out, puts the seat in 托管 (RULES §13) and lets the rules bot play.
    """

    # The table's state that the bots read (set by Table).
    id: int
    info: TableInfo
    seq: int
    hand_number: int
    seats: list[SeatState | None]
    config: ServerConfig
    bots: BotRunner
    store: Store
    fence: Fence | None  # the claim every write names (the store refuses it once another process claimed the table)
    clock: Clock
    deadline: Deadline | None
    deal_due: float | None
    hand_settled: bool
    bot_due: dict[int, tuple[float, tuple[Any, ...]]]
    thinking: dict[int, tuple[Any, ...]]
    asked_in_countdown: dict[int, int]
    missed: dict[int, int]  # seat → decisions it missed in a row (RULES §13)
    #: The lead after a finished trick: its decision's key and when the trick's pause ends (None: no pause).
    trick_pause: tuple[tuple[int, int, str], float] | None = None

    # -- what the bots ask of the table (Table does it) ---------------------------------------------
    def _hand(self) -> Hand | None:
        raise NotImplementedError

    async def _accept(self, action: Action, arrived: float | None = None) -> None:
        raise NotImplementedError

    def _broadcast_seats(self, skip: Peer | None = None) -> None:
        raise NotImplementedError

    def _deal_if_all_ready(self) -> bool:
        raise NotImplementedError

    def _bot_done(self, done: BotDone) -> None:
        """Queue a bot's decision for the table's task."""
        raise NotImplementedError

    async def _db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        raise NotImplementedError

    # -- the bots' turns, 托管 and the deadline ---------------------------------------------------------
    async def _on_bot_done(self, done: BotDone) -> None:
        if self.thinking.get(done.seat) != done.key:
            return
        del self.thinking[done.seat]
        if done.key != self._bot_key(done.seat):
            self._schedule()  # the table moved on while the bot thought
            return
        await self._bot_apply(done.seat, done.action)

    async def _expire(self) -> None:
        deadline = self.deadline
        assert deadline is not None
        self.deadline = None
        hand = self._hand()
        if hand is None or self.hand_settled:
            return
        if deadline.kind == DecisionKind.DECLARE:
            await self._accept(Action.close())
            return
        seat = deadline.seat
        assert seat is not None
        state = self.seats[seat]
        if state is not None and state.kind is SeatKind.PLAYER and not state.auto:
            # RULES §13: a missed limit has that one decision played for the player; after two missed in a
            # row the seat stays in 托管 (the bot plays) until the player acts again or turns it off.
            self.missed[seat] = self.missed.get(seat, 0) + 1
            if self.missed[seat] >= MISSES_FOR_TUOGUAN:
                await self._set_auto(seat, True)
        self.bot_due.pop(seat, None)
        self.thinking.pop(seat, None)
        await self._bot_turn(seat, self._bot_key(seat), fallback=True)

    # -- bots --------------------------------------------------------------------------------------
    def _bot_plays(self, seat: int) -> bool:
        state = self.seats[seat]
        return state is not None and (state.kind is SeatKind.BOT or state.auto)

    def _bot_name(self, seat: int) -> str:
        state = self.seats[seat]
        return state.bot if state is not None and state.bot in BOT_NAMES else "rules"

    def _bot_key(self, seat: int) -> tuple[Any, ...]:
        hand = self._hand()
        return (self.hand_number, self.seq, hand.phase.value if hand else "", hand.dealt if hand else 0, seat)

    def _bot_wanted(self, seat: int, hand: Hand) -> bool:
        """Whether the hand waits on (or offers something to) ``seat`` now (the engine's :meth:`Hand.pending`)."""
        pending = hand.pending()
        if pending is None:
            return False
        if pending.kind is DecisionKind.DECLARE:  # each seat with a bid is asked once per change of the table
            return self.asked_in_countdown.get(seat) != self.seq and seat in pending.offered
        return pending.seat == seat or seat in pending.offered

    async def _bot_turn(
        self, seat: int, key: tuple[Any, ...], *, ask_now: bool = False, fallback: bool = False
    ) -> None:
        hand = self._hand()
        if hand is None or self.hand_settled or key != self._bot_key(seat):
            return
        if not ask_now and not fallback and not self._bot_wanted(seat, hand):
            return
        if hand.phase is Phase.COUNTDOWN:
            self.asked_in_countdown[seat] = self.seq
        if hand.phase in (Phase.DEAL, Phase.COUNTDOWN):
            legal = hand.legal(seat)  # (what the seat's view would offer: asked before the view is built)
            if not legal.bids and not legal.show_red5:
                return  # nothing to decide (the driver asks only seats that could bid, too)
        name = self._bot_name(seat)
        seed = bot_seed(self.info.seed, self.seq, seat, hand.dealt)
        view = hand.view(seat)
        if fallback or name != "search":
            await self._bot_apply(seat, self.bots.decide_now(name if not fallback else "rules", seed, view))
            return
        self.thinking[seat] = key

        async def think() -> None:
            try:
                action = await self.bots.decide(name, seed, view)
            except Exception:
                log.exception("table %s: the %s bot failed in seat %s", self.id, name, seat)
                action = self.bots.decide_now("rules", seed, view)
            self._bot_done(BotDone(seat, key, action))

        asyncio.get_running_loop().create_task(think())

    async def _bot_apply(self, seat: int, action: Action | None) -> None:
        hand = self._hand()
        if hand is None:
            return
        if action is None:
            if hand.to_act() == seat:  # a bot must act on its turn: the rules bot does
                action = self.bots.decide_now("rules", bot_seed(self.info.seed, self.seq, seat, 1), hand.view(seat))
            if action is None:
                self._schedule()
                return
        try:
            await self._accept(action)
        except IllegalActionError as exc:
            log.error("table %s: the bot in seat %s broke the rules (%s); the rules bot plays", self.id, seat, exc)
            backup = self.bots.decide_now("rules", bot_seed(self.info.seed, self.seq, seat, 2), hand.view(seat))
            if backup is not None and backup != action:
                await self._accept(backup)

    def _schedule(self) -> None:
        """Plan the clocks for the state the table is in: dealing, bots' turns, the deadline."""
        hand = self._hand()
        if hand is None or self.hand_settled:
            self.bot_due.clear()
            return
        if hand.phase is Phase.DEAL and self.deal_due is None:
            self.deal_due = self.clock.now() + self.config.deal_ms / 1000
        for seat in range(4):
            key = self._bot_key(seat)
            if seat in self.thinking or not self._bot_plays(seat) or not self._bot_wanted(seat, hand):
                if seat in self.bot_due and self.bot_due[seat][1] != key:
                    del self.bot_due[seat]
                continue
            if self.bot_due.get(seat, (0.0, None))[1] != key:
                due = self.clock.now() + self.config.bot_delay_ms / 1000
                self.bot_due[seat] = (max(due, self._pause_end(seat, hand)), key)

    def _pause_end(self, seat: int, hand: Hand) -> float:
        """When the pause after a finished trick ends, if ``seat`` leads the next one (else 0: no pause)."""
        pending = hand.pending()
        if self.trick_pause is None or pending is None or pending.seat != seat:
            return 0.0
        key, end = self.trick_pause
        return end if key == (self.hand_number, pending.number, pending.kind.value) else 0.0

    def _trick_pause_s(self, hand: Hand, pending: Pending) -> float:
        """The pause before ``pending`` in seconds: the trick pause when it is the lead right after a trick, else 0."""
        if pending.kind is not DecisionKind.PLAY or hand.current or not hand.tricks:
            return 0.0
        return max(0, self.config.trick_pause_ms) / 1000

    def _next_deadline(self) -> Deadline | None:
        """The deadline of the decision the hand waits for now (the engine's :meth:`Hand.pending`)."""
        hand = self._hand()
        pending = None if hand is None else hand.pending()
        if pending is None:
            return None
        key = (self.hand_number, pending.number, pending.kind.value)
        if self.deadline is not None and self.deadline.key == key:
            return self.deadline
        deadline = Deadline.start(pending.kind.value, pending.seat, self.limit(pending.seconds), self.clock, key=key)
        assert hand is not None
        pause = self._trick_pause_s(hand, pending)
        if pause <= 0:
            return deadline
        # the lead after a trick: the decision's time starts once the trick's pause is over (its limit stays whole)
        self.trick_pause = (key, self.clock.now() + pause)
        return replace(deadline, due=deadline.due + pause, at=deadline.at + timedelta(seconds=pause))

    def limit(self, seconds: int) -> float:
        """A decision's time limit in seconds: the rules' times the server's time scale."""
        return seconds * self.config.time_scale

    async def _set_auto(self, seat: int, on: bool) -> None:
        state = self.seats[seat]
        if state is None or state.kind is SeatKind.BOT or state.auto == on:
            return
        await self._db(self.store.update_seat, self.id, seat, auto=on, fence=self.fence)
        state.auto = on
        self._broadcast_seats()
        if on:
            self._deal_if_all_ready()
