"""The ``random`` bot: uniformly random legal actions, from the view alone."""

from __future__ import annotations

import random

from chaodipi.cards import parse_cards
from chaodipi.hand import Action, Phase, View

__all__ = ["RandomBot"]


class RandomBot:
    """Picks uniformly among the legal actions the view lists (a random burial; a random lead unit)."""

    name = "random"

    def __init__(self, seed: int = 0, *, bid_chance: float = 0.3) -> None:
        self.rng = random.Random(seed)
        self.bid_chance = bid_chance

    def act(self, view: View) -> Action | None:
        legal = view.legal
        rng = self.rng
        if view.phase in (Phase.DEAL, Phase.COUNTDOWN):
            bids = legal.get("bids", [])
            if bids and rng.random() < self.bid_chance:
                b = rng.choice(bids)
                return Action("bid", view.seat, tuple(parse_cards(b["cards"])), b.get("choose"))
            return None
        if view.phase == Phase.BURY:
            return Action("bury", view.seat, tuple(rng.sample(list(view.hand), legal.get("bury", 8))))
        if view.phase == Phase.FRY:
            options = [None, *legal.get("fries", [])]
            choice = rng.choice(options)
            if choice is None:
                return Action("pass", view.seat)
            return Action("fry", view.seat, tuple(parse_cards(choice["cards"])), choice.get("choose"))
        if view.phase == Phase.PLAY:
            plays = legal.get("follows") or legal.get("leads") or []
            return Action("play", view.seat, tuple(parse_cards(rng.choice(plays))))
        return None
