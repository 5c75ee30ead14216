"""Random legal play: whole games driven by a seeded generator (``chaodipi simulate``).

The random policy is the simplest client of the hand's operation API: it only ever
offers actions the engine accepts. Its own generator is separate from the game's, so
a record (rules, deals, actions) replays without it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from chaodipi.cards import Card
from chaodipi.driver import run_hand
from chaodipi.game import Game
from chaodipi.hand import Hand, Phase
from chaodipi.leads import LeadChoices
from chaodipi.log import Action, ActionKind
from chaodipi.rules import RuleSet
from chaodipi.trump import FIVE_HEARTS

__all__ = ["RandomPolicy", "play_game", "play_hand", "simulate_game"]


class RandomPolicy:
    """Uniformly random among simple legal choices, with some bids, fries and throws.

    It decides from the whole hand (it is the engine's own simulator, not a player), through
    the one driver (:func:`chaodipi.driver.run_hand`) like every other client.
    """

    def __init__(
        self, rng: random.Random, *, bid_chance: float = 0.5, fry_chance: float = 0.3, throw_chance: float = 0.15
    ) -> None:
        self.rng = rng
        self.bid_chance = bid_chance
        self.fry_chance = fry_chance
        self.throw_chance = throw_chance

    def decide(self, hand: Hand, seat: int) -> Action | None:
        """The action for ``seat`` now (a :data:`~chaodipi.driver.Decider`)."""
        rng = self.rng
        if hand.phase in (Phase.DEAL, Phase.COUNTDOWN):
            chance = self.bid_chance if hand.phase == Phase.DEAL else 0.3 * self.bid_chance
            options = hand.possible_bids(seat)
            return rng.choice(options).action(seat) if options and rng.random() < chance else None
        if hand.phase == Phase.BURY:
            return Action.bury(seat, rng.sample(hand.hands[seat], 8))
        if hand.phase == Phase.FRY:
            options = hand.possible_fries(seat)
            if options and rng.random() < self.fry_chance:
                return rng.choice(options).action(seat, fry=True)
            return Action.pass_fry(seat)
        if hand.to_act() != seat:
            return Action.show_red5(seat) if hand.can_show_red5(seat) and rng.random() < 0.5 else None
        play = tuple(self.follow(hand, seat) if hand.current else self.lead(hand, seat))
        return Action.made(ActionKind.PLAY, seat, play)  # (cards from the engine's generators; apply checks the play)

    def lead(self, hand: Hand, player: int) -> Sequence[Card]:
        """A random single-unit lead for ``player``; with chance ``throw_chance`` a second unit of the
        same suit is added, making a throw (甩牌) that may fail (RULES §5).
        """
        leads = LeadChoices(hand.hands[player], hand.trump_order, hand.held_masks(player))  # (one suit's units made)
        unit = leads[self.rng.randrange(len(leads))]  # (the draw rng.choice makes)
        cards = list(unit.cards)
        if self.rng.random() < self.throw_chance:
            same = [u for u in leads.of_suit(unit.suit) if u is not unit]
            if same:
                extra = self.rng.choice(same)
                held = hand.hands[player]
                if all(cards.count(c) + extra.cards.count(c) <= held.count(c) for c in extra.cards):
                    cards.extend(extra.cards)
        return cards

    def follow(self, hand: Hand, player: int) -> Sequence[Card]:
        """A random legal follow (RULES §6): one of the first 64 legal choices of the led suit's cards,
        filled up with random other cards when that suit runs short.
        """
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
            effective = hand.trump_order.effective
            others = [c for c in hand.hands[player] if effective[c.index] != rule.suit]
            play.extend(self.rng.sample(others, free))
        return play


def _new_bid_possible(hand: Hand, seat: int) -> bool:
    """During the deal only a new level card, joker or 5h can make a new bid possible."""
    if hand.phase != Phase.DEAL:
        return True
    card = hand.deck[hand.dealt - 1]
    return card.rank == hand.level or card.suit is None or card is FIVE_HEARTS


def play_hand(hand: Hand, policy: RandomPolicy) -> None:
    """Play a hand to its end with the policy."""
    run_hand(hand, [policy.decide] * 4, asks=_new_bid_possible)


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
