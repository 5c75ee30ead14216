"""The bot interface and the driver that runs hands with bots.

A bot gets a player's :class:`~chaodipi.hand.View` and returns an
:class:`~chaodipi.hand.Action` (bid, pass, burial, fry, play) or None (no bid now). It
sees nothing else: the driver never hands it the hand itself. The server's auto-play
(托管), the arena and terminal play all use this one interface.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from chaodipi.driver import Decider, DecisionError
from chaodipi.driver import run_hand as drive
from chaodipi.hand import Action, Hand, View

__all__ = ["Bot", "BotError", "DecisionTimer", "run_hand", "timed"]


class BotError(DecisionError):
    """A bot returned an action the rules do not allow."""


class Bot(Protocol):
    """Anything with a name and ``act(view) -> Action | None``."""

    name: str

    def act(self, view: View) -> Action | None:
        """The action to take now; None means no bid (during the deal and the countdown)."""
        ...


@dataclass
class DecisionTimer:
    """Seconds per decision, per seat (the arena's time statistics)."""

    times: list[list[float]] = field(default_factory=lambda: [[], [], [], []])

    def timed(self, seat: int, fn: Callable[[], Action | None]) -> Action | None:
        """Call ``fn`` and return its action, adding its seconds to ``seat``'s times (also when it raises)."""
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.times[seat].append(time.perf_counter() - start)


def timed(bot: Bot, timer: DecisionTimer) -> Decider:
    """A decider that shows ``bot`` its seat's view and times its decision."""

    def decide(hand: Hand, seat: int) -> Action | None:
        view = hand.view(seat)
        return timer.timed(seat, lambda: bot.act(view))

    return decide


def run_hand(hand: Hand, bots: Sequence[Bot], timer: DecisionTimer | None = None) -> Hand:
    """Play a hand to its end with four bots through the one driver (:func:`chaodipi.driver.run_hand`).

    A bot that breaks the rules raises :class:`BotError` saying which seat and why.
    """
    clock = timer or DecisionTimer()
    try:
        return drive(hand, [timed(bot, clock) for bot in bots])
    except DecisionError as exc:
        raise BotError(str(exc)) from None
