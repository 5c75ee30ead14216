"""The ``random`` bot: uniformly random legal actions, from the view alone."""

from __future__ import annotations

import random

from chaodipi.hand import Action, Phase, View

__all__ = ["RandomBot"]


class RandomBot:
    """Picks uniformly among the legal actions the view lists (a random burial; a random lead unit)."""

    name = "random"

    def __init__(self, seed: int = 0, *, bid_chance: float = 0.3) -> None:
        self.rng = random.Random(seed)
        self.bid_chance = bid_chance

    def act(self, view: View) -> Action | None:
        """A random legal action: shows 5h 5h when it may, bids with chance ``bid_chance``, and
        otherwise buries, fries or passes, and plays at random among what the view lists.
        """
        legal = view.legal
        rng = self.rng
        if view.legal.show_red5:
            return Action.show_red5(view.seat)  # showing 5h 5h can only help the scoring side (RULES §11.5)
        if view.phase in (Phase.DEAL, Phase.COUNTDOWN):
            if legal.bids and rng.random() < self.bid_chance:
                return rng.choice(legal.bids).action(view.seat)
            return None
        if view.phase == Phase.BURY:
            return Action.bury(view.seat, rng.sample(list(view.hand), legal.bury))
        if view.phase == Phase.FRY:
            choice = rng.choice([None, *legal.fries])
            return Action.pass_fry(view.seat) if choice is None else choice.action(view.seat, fry=True)
        if view.phase == Phase.PLAY:
            return Action.play(view.seat, rng.choice(legal.plays))
        return None
