"""Random legal play: whole games driven by a seeded generator (``chaodipi simulate``).

The random policy is the simplest client of the hand's operation API: it only ever
offers actions the engine accepts. Its own generator is separate from the game's, so
a record (rules, seed, actions) replays without it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from chaodipi.cards import Card
from chaodipi.game import Game
from chaodipi.hand import Hand, Phase
from chaodipi.leads import unit_leads
from chaodipi.rules import RuleSet
from chaodipi.trump import FIVE_HEARTS

__all__ = ["RandomPolicy", "play_game", "play_hand", "simulate_game"]


class RandomPolicy:
    """Uniformly random among simple legal choices, with some bids, fries and throws."""

    def __init__(
        self, rng: random.Random, *, bid_chance: float = 0.5, fry_chance: float = 0.3, throw_chance: float = 0.15
    ) -> None:
        self.rng = rng
        self.bid_chance = bid_chance
        self.fry_chance = fry_chance
        self.throw_chance = throw_chance

    def maybe_bid(self, hand: Hand, player: int) -> None:
        options = hand.possible_bids(player)
        if options and self.rng.random() < self.bid_chance:
            cards, choose = self.rng.choice(options)
            hand.bid(player, cards, choose)

    def bury(self, hand: Hand, player: int) -> None:
        hand.bury(player, self.rng.sample(hand.hands[player], 8))

    def fry_or_pass(self, hand: Hand, player: int) -> None:
        options = hand.possible_fries(player)
        if options and self.rng.random() < self.fry_chance:
            cards, choose = self.rng.choice(options)
            hand.fry(player, cards, choose)
        else:
            hand.pass_fry(player)

    def lead(self, hand: Hand, player: int) -> Sequence[Card]:
        units = unit_leads(hand.hands[player], hand.to)
        unit = self.rng.choice(units)
        cards = list(unit.cards)
        if self.rng.random() < self.throw_chance:
            same = [u for u in units if u.suit == unit.suit and u is not unit]
            if same:
                extra = self.rng.choice(same)
                held = hand.hands[player]
                if all(cards.count(c) + extra.cards.count(c) <= held.count(c) for c in extra.cards):
                    cards.extend(extra.cards)
        return cards

    def follow(self, hand: Hand, player: int) -> Sequence[Card]:
        rule = hand.follow_rule(player)
        assert rule is not None
        parts: list[tuple[Card, ...]] = []
        for k, part in enumerate(rule.suit_parts()):
            parts.append(part)
            if k >= 63:
                break
        play = list(self.rng.choice(parts))
        free = rule.n - rule.k
        if free:
            eff = hand.to.eff
            others = [c for c in hand.hands[player] if eff[c.index] != rule.suit]
            play.extend(self.rng.sample(others, free))
        return play

    def act(self, hand: Hand) -> None:
        """Make one action in a hand that waits for a player."""
        seat = hand.to_act()
        assert seat is not None
        if hand.phase == Phase.BURY:
            self.bury(hand, seat)
        elif hand.phase == Phase.FRY:
            self.fry_or_pass(hand, seat)
        elif hand.phase == Phase.PLAY:
            if hand.flag and not hand.tricks and not hand.current:
                for p in range(4):
                    if hand.can_show_red5(p) and self.rng.random() < 0.5:
                        hand.show_red5(p)
            if hand.current:
                hand.play(seat, self.follow(hand, seat))
            else:
                hand.play(seat, self.lead(hand, seat))


def play_hand(hand: Hand, policy: RandomPolicy) -> None:
    """Play a hand to its end with the policy."""
    level_rank = hand.level
    while hand.phase == Phase.DEAL:
        ev = hand.deal_card()
        card = ev.cards[0]
        # only a new level card, joker or 5h can make a new bid possible
        if hand.bidding is not None and (card.rank == level_rank or card.suit is None or card is FIVE_HEARTS):
            policy.maybe_bid(hand, ev.player or 0)
    if hand.phase == Phase.COUNTDOWN:
        for p in policy.rng.sample(range(4), 4):
            if policy.rng.random() < 0.3:
                policy.maybe_bid(hand, p)
        hand.close_bidding()
    while hand.phase not in (Phase.OVER, Phase.REDEAL):
        policy.act(hand)


def play_game(game: Game, policy: RandomPolicy) -> Game:
    """Play a game's remaining hands with the policy."""
    while not game.over:
        hand = game.new_hand()
        play_hand(hand, policy)
        game.finish_hand()
    return game


def simulate_game(rules: RuleSet, seed: int, *, policy_seed: int | None = None) -> Game:
    """Play a whole game with random legal actions. The same seeds give the same game."""
    policy = RandomPolicy(random.Random(f"policy-{seed if policy_seed is None else policy_seed}"))
    return play_game(Game(rules, seed), policy)
