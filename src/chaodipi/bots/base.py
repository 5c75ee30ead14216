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

from chaodipi.hand import Action, Hand, IllegalActionError, Phase, View

__all__ = ["Bot", "BotError", "DecisionTimer", "apply_action", "run_hand"]


class BotError(ValueError):
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
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.times[seat].append(time.perf_counter() - start)


def apply_action(hand: Hand, seat: int, action: Action) -> None:
    """Apply a bot's action for ``seat``; a wrong action is a BotError that says which and why."""
    if action.player is not None and action.player != seat:
        raise BotError(f"the bot for seat {seat} acted for seat {action.player}")
    try:
        if action.kind == "bid":
            hand.bid(seat, action.cards, action.choose)
        elif action.kind == "bury":
            hand.bury(seat, action.cards)
        elif action.kind == "fry":
            hand.fry(seat, action.cards, action.choose)
        elif action.kind == "pass":
            hand.pass_fry(seat)
        elif action.kind == "play":
            hand.play(seat, action.cards)
        elif action.kind == "show_red5":
            hand.show_red5(seat)
        else:
            raise BotError(f"unknown action {action.kind!r}")
    except IllegalActionError as exc:
        raise BotError(f"seat {seat} ({action.kind} {action.to_json()}): {exc}") from None


def run_hand(hand: Hand, bots: Sequence[Bot], timer: DecisionTimer | None = None) -> Hand:
    """Play a hand to its end: deal card by card (each bot may bid when it gets a card), countdown, the rest."""
    clock = timer or DecisionTimer()

    def ask(seat: int) -> Action | None:
        view = hand.view(seat)
        return clock.timed(seat, lambda: bots[seat].act(view))

    while hand.phase == Phase.DEAL:
        ev = hand.deal_card()
        seat = ev.player if ev.player is not None else 0
        if hand.phase == Phase.DEAL and hand.possible_bids(seat):
            action = ask(seat)
            if action is not None:
                apply_action(hand, seat, action)
    if hand.phase == Phase.COUNTDOWN:
        for seat in range(4):
            if hand.possible_bids(seat):
                action = ask(seat)
                if action is not None:
                    apply_action(hand, seat, action)
        hand.close_bidding()
    while hand.phase not in (Phase.OVER, Phase.REDEAL):
        if hand.phase == Phase.PLAY and hand.flag and not hand.tricks and not hand.current:
            for seat in range(4):
                if hand.can_show_red5(seat):
                    hand.show_red5(seat)  # showing 5h 5h can only help the scoring side
        turn = hand.to_act()
        assert turn is not None
        action = ask(turn)
        if action is None:
            raise BotError(f"the bot for seat {turn} gave no action in phase {hand.phase.value}")
        apply_action(hand, turn, action)
    return hand
