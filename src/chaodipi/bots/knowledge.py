"""What a player can infer from a view: unseen cards, shown voids, hand sizes (card counting 记牌)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from chaodipi.cards import Card, Rank, Suit
from chaodipi.hand import View
from chaodipi.trump import TRUMP, TrumpOrder
from chaodipi.units import PlayError, decompose

__all__ = ["Knowledge", "order_of_view"]


def order_of_view(view: View) -> TrumpOrder:
    """The trump order the view implies (level and trump as the player knows them)."""
    if view.level == "flag" or view.trump == "flag":
        return TrumpOrder.of(view.rules, None, None)
    level = Rank.parse(view.level)
    trump = None if view.trump in (None, "nt") else Suit(view.trump)
    return TrumpOrder.of(view.rules, level, trump)


@dataclass
class Knowledge:
    """Card counting from a view: cards not yet seen by this player, and the suits others showed void in."""

    seat: int
    to: TrumpOrder
    unseen: Counter[Card]
    voids: list[set[str]]
    hand_sizes: tuple[int, int, int, int]
    kitty_known: bool

    @classmethod
    def from_view(cls, view: View) -> Knowledge:
        to = order_of_view(view)
        unseen: Counter[Card] = Counter({c: 2 for c in Card.ALL})
        for c in view.hand:
            unseen[c] -= 1
        voids: list[set[str]] = [set(), set(), set(), set()]
        tricks = [t.plays for t in view.tricks]
        if view.current_trick:
            tricks.append(view.current_trick)
        for plays in tricks:
            for _, cards in plays:
                for c in cards:
                    unseen[c] -= 1
            try:
                suit = decompose(plays[0][1], to, lead=True).suit
            except PlayError:
                continue
            n = len(plays[0][1])
            for seat, cards in plays[1:]:
                if sum(1 for c in cards if to.eff[c.index] == suit) < n:
                    voids[seat].add(suit)
        kitty_known = view.kitty is not None
        if view.kitty is not None:
            for c in view.kitty:
                unseen[c] -= 1
        unseen = +unseen
        return cls(view.seat, to, unseen, voids, view.hand_sizes, kitty_known)

    def unseen_of_suit(self, suit: str) -> list[Card]:
        eff = self.to.eff
        return [c for c, n in self.unseen.items() if eff[c.index] == suit for _ in range(n)]

    def trumps_out(self) -> int:
        return sum(n for c, n in self.unseen.items() if self.to.eff[c.index] == TRUMP)
