"""Legal leads: every single unit a player may lead, and which of their throws stand (RULES §5).

>>> from chaodipi.cards import parse_cards, Rank, Suit
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.trump import TrumpOrder
>>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
>>> [str(u) for u in unit_leads(parse_cards("9h 9h Th Th 5c Tc Kc"), to)]
['Th Th 9h 9h', 'Th Th', '9h 9h', 'Th', '9h', '5c Tc Kc', 'Kc', 'Tc', '5c']
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import cast

from chaodipi.cards import Card, Rank, Suit
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder
from chaodipi.units import Unit, UnitKind, ftk_suits, pair_runs

__all__ = ["LeadChoices", "unit_leads"]


def unit_leads(hand: Sequence[Card], trump_order: TrumpOrder) -> list[Unit]:
    """Every distinct single-unit lead from ``hand``: tractors, FTK pairs, FTKs, pairs, singles, by suit.

    A throw is any set of these of one suit; whether it stands depends on the
    other hands (:func:`chaodipi.play.check_throw`).
    """
    return list(LeadChoices(hand, trump_order))


class LeadChoices:
    """:func:`unit_leads` as a lazy sequence: counted at once, each suit's units made when first asked for.

    A policy that picks one lead at random (``choices[rng.randrange(len(choices))]``, as
    ``rng.choice`` does) makes the units of one suit, not of all five.

    >>> from chaodipi.cards import parse_cards
    >>> from chaodipi.rules import RuleSet
    >>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
    >>> leads = LeadChoices(parse_cards("9h 9h Th Th 5c Tc Kc"), to)
    >>> len(leads), str(leads[5]), [str(u) for u in leads.of_suit("c")]
    (9, '5c Tc Kc', ['5c Tc Kc', 'Kc', 'Tc', '5c'])
    """

    __slots__ = ("_built", "_counts", "_ftks", "_hand", "_runs", "_sizes", "_suits", "_trump_order")

    def __init__(self, hand: Sequence[Card], trump_order: TrumpOrder) -> None:
        self._hand = hand
        self._trump_order = trump_order
        effective = trump_order.effective
        by_suit: dict[str, dict[Card, int]] = {}
        for c in hand:  # one pass: each effective suit's cards, counted
            e = effective[c.index]
            counts = by_suit.get(e)
            if counts is None:
                by_suit[e] = {c: 1}
            else:
                counts[c] = counts.get(c, 0) + 1
        self._suits = [suit for suit in EFFECTIVE_SUITS if suit in by_suit]
        self._counts = by_suit
        self._runs: dict[str, list[list[tuple[Card, int]]]] = {}
        self._sizes: list[int] = []
        self._built: dict[str, list[Unit]] = {}
        self._ftks: dict[str, list[list[int]]] = {}
        ftk_pair = trump_order.rules.ftk_pair
        for suit in self._suits:
            counts = by_suit[suit]
            pairs = [c for c, n in counts.items() if n >= 2]
            size = len(pairs) + len(counts)  # the pairs and the singles
            if len(pairs) >= 2:
                runs = [r for r in pair_runs(pairs, trump_order, suit) if len(r) >= 2]
                self._runs[suit] = runs
                size += sum(len(r) * (len(r) - 1) // 2 for r in runs)  # a run of n pairs: n-1 + n-2 + ... + 1
            holdings = self._ftks[suit] = self._ftk_holdings(suit)
            for have in holdings:
                size += (ftk_pair and min(have) >= 2) + (min(have) >= 1)
            self._sizes.append(size)

    def _ftk_holdings(self, suit: str) -> list[list[int]]:
        """For each FTK of ``suit`` (RULES §4.2), how many of its 5, 10 and K the hand holds."""
        effective, counts = self._trump_order.effective, self._counts[suit]
        out = []
        for x in ftk_suits(self._trump_order, suit, lead=True):
            trio = _FTK_TRIOS[x]
            out.append([counts.get(c, 0) if effective[c.index] == suit else self._hand.count(c) for c in trio])
        return out

    def suit_counts(self) -> dict[str, dict[Card, int]]:
        """The hand's cards counted, by effective suit (read it, do not change it)."""
        return self._counts

    def __len__(self) -> int:
        return sum(self._sizes)

    def __getitem__(self, i: int) -> Unit:
        if i < 0:
            i += len(self)
        if i < 0:
            raise IndexError("lead index out of range")
        for suit, size in zip(self._suits, self._sizes, strict=True):
            if i < size:
                return self.of_suit(suit)[i]
            i -= size
        raise IndexError("lead index out of range")

    def __iter__(self) -> Iterator[Unit]:
        for suit in self._suits:
            yield from self.of_suit(suit)

    def of_suit(self, suit: str) -> list[Unit]:
        """The single-unit leads of one effective suit, in :func:`unit_leads`' order (made once)."""
        built = self._built.get(suit)
        if built is not None:
            return built
        out: list[Unit] = []
        counts = self._counts.get(suit)
        if counts is None:
            return out
        trump_order = self._trump_order
        for run in sorted(self._runs.get(suit, ()), key=lambda r: -r[-1][1]):
            for length in range(len(run), 1, -1):
                for start in range(len(run) - length, -1, -1):
                    seg = run[start : start + length]
                    tcards = tuple(c for c, _ in reversed(seg) for _ in range(2))
                    out.append(Unit(UnitKind.TRACTOR, tcards, suit, seg[-1][1]))
        ftk_pair = trump_order.rules.ftk_pair
        for x, have in zip(ftk_suits(trump_order, suit, lead=True), self._ftks[suit], strict=True):
            trio = _FTK_TRIOS[x]
            if ftk_pair and min(have) >= 2:
                out.append(Unit(UnitKind.FTK_PAIR, tuple(c for c in trio for _ in range(2)), suit, 0))
            if min(have) >= 1:
                out.append(Unit(UnitKind.FTK, trio, suit, 0))
        ranked = sorted(counts, key=trump_order.strength_position.__getitem__)
        singles, pairs = _simple_units(trump_order)
        out.extend([pairs[c] for c in ranked if counts[c] >= 2])
        out.extend([singles[c] for c in ranked])
        self._built[suit] = out
        return out


def _simple_units(trump_order: TrumpOrder) -> list[dict[Card, Unit]]:
    """The single and the pair unit of every card, by card, made once per trump order."""
    cache = cast(list[dict[Card, Unit]], trump_order.unit_cache)
    if not cache:
        effective, order = trump_order.effective, trump_order.order
        cache.append({c: Unit(UnitKind.SINGLE, (c,), effective[c.index], order[c.index]) for c in Card.ALL})
        cache.append({c: Unit(UnitKind.PAIR, (c, c), effective[c.index], order[c.index]) for c in Card.ALL})
    return cache


#: Each natural suit's 5, 10 and K (RULES §4.2).
_FTK_TRIOS: dict[Suit, tuple[Card, Card, Card]] = {
    x: (Card.of(Rank.FIVE, x), Card.of(Rank.TEN, x), Card.of(Rank.KING, x)) for x in Suit
}
