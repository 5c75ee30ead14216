"""What a player can infer from a view: unseen cards, voids, cards bids showed, hand sizes (card counting 记牌)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

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
    """Card counting from a view: cards not yet seen by this player, the suits others showed void in,
    and the unseen cards that bids showed, as ``shown``: (card, bidder, whether it may be in the kitty).
    """

    seat: int
    trump_order: TrumpOrder
    unseen: Counter[Card]
    voids: list[set[str]]
    hand_sizes: tuple[int, int, int, int]
    kitty_known: bool
    shown: list[tuple[Card, int, bool]] = field(default_factory=list)

    @classmethod
    def from_view(cls, view: View) -> Knowledge:
        """Count the cards from what ``view`` shows: its hand, the tricks, the kitty if seen, and the bids.

        A follower is marked void in the led suit (RULES §6.1) when it played fewer cards of that
        effective suit than the lead held.
        """
        trump_order = order_of_view(view)
        unseen: Counter[Card] = Counter({c: 2 for c in Card.ALL})
        for c in view.hand:
            unseen[c] -= 1
        voids: list[set[str]] = [set(), set(), set(), set()]
        tricks = [t.plays for t in view.tricks]
        if view.current_trick:
            tricks.append(view.current_trick)
        played: Counter[tuple[int, Card]] = Counter()  # by whom
        for plays in tricks:
            for seat, cards in plays:
                for c in cards:
                    unseen[c] -= 1
                    played[seat, c] += 1
            try:
                suit = decompose(plays[0][1], trump_order, lead=True).suit
            except PlayError:
                continue
            n = len(plays[0][1])
            for seat, cards in plays[1:]:
                if sum(1 for c in cards if trump_order.effective[c.index] == suit) < n:
                    voids[seat].add(suit)
        kitty_known = view.kitty is not None
        if view.kitty is not None:
            for c in view.kitty:
                unseen[c] -= 1
        unseen = +unseen
        shown = _shown_cards(view, unseen, played, kitty_known)
        return cls(view.seat, trump_order, unseen, voids, view.hand_sizes, kitty_known, shown)

    def unseen_cards(self) -> list[Card]:
        """The cards this player has not seen, each copy listed (a new list, in card order)."""
        return [c for c, n in self.unseen.items() for _ in range(n)]

    def trumps_out(self) -> int:
        """How many trumps (主) this player has not seen: in the other hands or the hidden kitty."""
        return sum(n for c, n in self.unseen.items() if self.trump_order.effective[c.index] == TRUMP)


def _shown_cards(
    view: View, unseen: Counter[Card], played: Counter[tuple[int, Card]], kitty_known: bool
) -> list[tuple[Card, int, bool]]:
    """Unseen cards the bids showed, as (card, bidder, whether it may be in the kitty).

    A bidder keeps the cards it showed until it plays them, unless it took the kitty (the dealer
    and every fryer) and could have buried them: then, while the kitty is hidden from this player,
    they are in its hand or in the kitty, and once this player has seen the kitty nothing is known.
    Dark bids whose cards are not shown say nothing.
    """
    holders = {view.dealer} | {b.player for b in view.bids if b.fry}
    shown: dict[int, Counter[Card]] = {}
    for b in view.bids:
        seat = b.player
        if seat == view.seat or b.cards is None:
            continue
        mine = shown.setdefault(seat, Counter())
        mine |= Counter(b.cards)  # the most copies any of its bids showed
    left = Counter(unseen)
    out: list[tuple[Card, int, bool]] = []
    for seat, counts in sorted(shown.items()):
        in_kitty = seat in holders
        if in_kitty and kitty_known:
            continue
        for c, n in counts.items():
            for _ in range(min(n - played[seat, c], left[c])):
                out.append((c, seat, in_kitty))
                left[c] -= 1
    return out
