"""Legal leads: every single unit a player may lead, and which of their throws stand (RULES §5).

>>> from chaodipi.cards import parse_cards, Rank, Suit
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.trump import TrumpOrder
>>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
>>> [str(u) for u in unit_leads(parse_cards("9h 9h Th Th 5c Tc Kc"), to)]
['Th Th 9h 9h', 'Th Th', '9h 9h', 'Th', '9h', '5c Tc Kc', 'Kc', 'Tc', '5c']
"""

from __future__ import annotations

from collections.abc import Sequence

from chaodipi.cards import Card, Rank, Suit
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder
from chaodipi.units import Unit, UnitKind, ftk_suits, pair_runs

__all__ = ["unit_leads"]


def unit_leads(hand: Sequence[Card], trump_order: TrumpOrder) -> list[Unit]:
    """Every distinct single-unit lead from ``hand``: tractors, FTK pairs, FTKs, pairs, singles, by suit.

    A throw is any set of these of one suit; whether it stands depends on the
    other hands (:func:`chaodipi.play.check_throw`).
    """
    effective = trump_order.effective
    by_suit: dict[str, dict[Card, int]] = {}
    for c in hand:  # one pass: each effective suit's cards, counted
        e = effective[c.index]
        counts = by_suit.get(e)
        if counts is None:
            by_suit[e] = {c: 1}
        else:
            counts[c] = counts.get(c, 0) + 1
    ftk_pair = trump_order.rules.ftk_pair
    strength = trump_order.strength_position.__getitem__
    out: list[Unit] = []
    for suit in EFFECTIVE_SUITS:
        counts = by_suit.get(suit)
        if counts is None:
            continue
        pairs = [c for c, n in counts.items() if n >= 2]
        if len(pairs) >= 2:
            runs = [r for r in pair_runs(pairs, trump_order, suit) if len(r) >= 2]
            for run in sorted(runs, key=lambda r: -r[-1][1]):
                for length in range(len(run), 1, -1):
                    for start in range(len(run) - length, -1, -1):
                        seg = run[start : start + length]
                        tcards = tuple(c for c, _ in reversed(seg) for _ in range(2))
                        out.append(Unit(UnitKind.TRACTOR, tcards, suit, seg[-1][1]))
        for x in ftk_suits(trump_order, suit, lead=True):
            trio = _FTK_TRIOS[x]
            have = [counts.get(c, 0) if effective[c.index] == suit else hand.count(c) for c in trio]
            if ftk_pair and min(have) >= 2:
                out.append(Unit(UnitKind.FTK_PAIR, tuple(c for c in trio for _ in range(2)), suit, 0))
            if min(have) >= 1:
                out.append(Unit(UnitKind.FTK, trio, suit, 0))
        ranked = sorted(counts, key=strength)
        out.extend(_simple_unit(trump_order, c, 2) for c in ranked if counts[c] >= 2)
        out.extend(_simple_unit(trump_order, c, 1) for c in ranked)
    return out


def _simple_unit(trump_order: TrumpOrder, card: Card, n: int) -> Unit:
    """The single (``n`` = 1) or pair (2) of ``card``, made once per trump order."""
    unit = trump_order.unit_cache.get((card, n))
    if unit is None:
        kind = UnitKind.SINGLE if n == 1 else UnitKind.PAIR
        unit = Unit(kind, (card,) * n, trump_order.effective[card.index], trump_order.order[card.index])
        trump_order.unit_cache[(card, n)] = unit
    assert isinstance(unit, Unit)
    return unit


#: Each natural suit's 5, 10 and K (RULES §4.2).
_FTK_TRIOS: dict[Suit, tuple[Card, Card, Card]] = {
    x: (Card.of(Rank.FIVE, x), Card.of(Rank.TEN, x), Card.of(Rank.KING, x)) for x in Suit
}
