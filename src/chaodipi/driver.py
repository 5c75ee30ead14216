"""The one loop that drives a hand: deal card by card, ask who may act, apply what they decide.

Every client runs hands through :func:`run_hand`: the bots' arena, the simulation, the
terminal game, the tests and the server. A seat is a *decider*, a function from the hand and
the seat to an :class:`~chaodipi.log.Action` (or None: no bid now). Players who must see
only what their seat may know (bots, people) are wrapped by :func:`by_view`, which hands
them :meth:`Hand.view(seat) <chaodipi.hand.Hand.view>` and nothing else. Every decision is
applied through :meth:`Hand.apply <chaodipi.hand.Hand.apply>`, the one dispatcher.

Order of questions (RULES §9–§11): during the deal, the seat that was just dealt a card is
asked when it could bid; after the deal, each seat that could bid, in seat order, then the
countdown ends; then whoever the hand waits for. Before a flag hand's first card, each
scoring-side seat offered to show 5h 5h is asked first.

>>> import random
>>> from chaodipi.cards import shuffled_deck
>>> from chaodipi.hand import Hand
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.simulate import RandomPolicy
>>> hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(1)), first_seat=0, dealer=0)
>>> policy = RandomPolicy(random.Random(1))
>>> run_hand(hand, [policy.decide] * 4).phase
<Phase.OVER: 'over'>
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from chaodipi.hand import Hand
from chaodipi.log import Action, IllegalActionError
from chaodipi.view import Phase, View

__all__ = ["Decider", "DecisionError", "Player", "by_view", "run_hand"]

#: Decides for a seat: the action to take now, or None (no bid).
Decider = Callable[[Hand, int], Action | None]


class Player(Protocol):
    """Anything that acts from a view alone: bots, a person at a terminal, a server's client."""

    def act(self, view: View) -> Action | None:
        """The action to take now; None means no bid (during the deal and the countdown)."""
        ...


class DecisionError(IllegalActionError):
    """A seat decided an action the rules do not allow, or none when it had to act."""


def by_view(player: Player) -> Decider:
    """A decider that shows ``player`` the seat's view and nothing else."""

    def decide(hand: Hand, seat: int) -> Action | None:
        return player.act(hand.view(seat))

    return decide


def _apply(hand: Hand, seat: int, action: Action) -> None:
    if action.player != seat:
        raise DecisionError(f"the decider for seat {seat} acted for seat {action.player}")
    try:
        hand.apply(action)
    except IllegalActionError as exc:
        raise DecisionError(f"seat {seat} ({action.kind} {action.to_json()}): {exc}") from None


def run_hand(
    hand: Hand,
    seats: Sequence[Decider],
    *,
    asks: Callable[[Hand, int], bool] | None = None,
    after: Callable[[Hand], None] | None = None,
    until: Callable[[Hand], bool] | None = None,
) -> Hand:
    """Play ``hand`` to its end (or its redeal) with one decider per seat.

    ``asks(hand, seat)``, if given, says whether a seat is asked now, if it could bid (it is
    called first, so it may skip the work of listing bids; the terminal game asks a person
    only when their choices changed). ``after(hand)`` is called
    after each card dealt and each action (to show what happened, to check invariants).
    ``until(hand)``, if given, stops the hand early, once it says so after the deal or an
    action (a position to examine). Raises :class:`DecisionError` when a decider breaks the rules.
    """

    def stop() -> bool:
        return until is not None and until(hand)

    if len(seats) != 4:
        raise ValueError("a hand needs four seats")

    def ask(seat: int, *, required: bool) -> None:
        action = seats[seat](hand, seat)
        if action is None:
            if required:
                raise DecisionError(f"seat {seat} gave no action in phase {hand.phase.value}")
            return
        _apply(hand, seat, action)
        if after is not None:
            after(hand)

    def may_bid(seat: int) -> bool:
        return (asks is None or asks(hand, seat)) and bool(hand.possible_bids(seat))

    while hand.phase == Phase.DEAL:
        if stop():
            return hand
        ev = hand.deal_card()
        if after is not None:
            after(hand)
        seat = ev.player if ev.player is not None else 0
        if hand.phase == Phase.DEAL and may_bid(seat):
            ask(seat, required=False)
    if hand.phase == Phase.COUNTDOWN and not stop():
        for seat in range(4):
            if may_bid(seat):
                ask(seat, required=False)
        hand.apply(Action.close())
        if after is not None:
            after(hand)
    while hand.phase not in (Phase.OVER, Phase.REDEAL) and not stop():
        if hand.flag and hand.phase == Phase.PLAY and not hand.tricks and not hand.current:
            for seat in range(4):
                if hand.can_show_red5(seat):
                    ask(seat, required=False)  # (RULES §11.5: offered whoever's turn it is)
        turn = hand.to_act()
        assert turn is not None
        ask(turn, required=True)
    return hand
