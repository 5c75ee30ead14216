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
from chaodipi.masks import CardMasks, masks_of
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder
from chaodipi.units import Unit, UnitKind, ftk_suits, pair_runs_of

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

    __slots__ = ("_built", "_counts", "_masks", "_ones", "_runs", "_sizes", "_suits", "_trump_order", "_twos")

    def __init__(self, hand: Sequence[Card], trump_order: TrumpOrder, masks: CardMasks | None = None) -> None:
        self._trump_order = trump_order
        ones, twos = masks if masks is not None else masks_of(hand)  # (the hand as bit masks: chaodipi.masks)
        self._ones, self._twos = ones, twos
        self._masks: dict[str, CardMasks] = {}
        self._counts: dict[str, dict[Card, int]] | None = None
        self._runs: dict[str, list[list[tuple[Card, int]]]] = {}
        self._suits: list[str] = []
        self._sizes: list[int] = []
        self._built: dict[str, list[Unit]] = {}
        ftk_pair = trump_order.rules.ftk_pair
        suit_mask = trump_order.suit_mask
        for suit in EFFECTIVE_SUITS:
            s1 = ones & suit_mask[suit]
            if not s1:
                continue
            s2 = twos & s1
            self._suits.append(suit)
            self._masks[suit] = (s1, s2)
            pairs = s2.bit_count()
            size = pairs + s1.bit_count()  # the pairs and the singles
            if pairs >= 2:
                runs = [r for r in pair_runs_of(s2, trump_order, suit) if len(r) >= 2]
                self._runs[suit] = runs
                size += sum(len(r) * (len(r) - 1) // 2 for r in runs)  # a run of n pairs: n-1 + n-2 + ... + 1
            for x in ftk_suits(trump_order, suit, lead=True):  # (an FTK of the suit: its 5, 10 and K all held)
                trio = _FTK_MASKS[x]
                if ones & trio == trio:
                    size += 1 + (ftk_pair and twos & trio == trio)
            self._sizes.append(size)

    def masks(self) -> CardMasks:
        """The hand as bit masks (:mod:`chaodipi.masks`)."""
        return self._ones, self._twos

    def suit_size(self, suit: str) -> int:
        """How many cards of effective suit ``suit`` the hand holds."""
        held = self._masks.get(suit)
        return 0 if held is None else held[0].bit_count() + held[1].bit_count()

    def suit_counts(self) -> dict[str, dict[Card, int]]:
        """The hand's cards counted, by effective suit, strongest first (read it, do not change it)."""
        counts = self._counts
        if counts is None:
            counts = self._counts = {}
            ranked = self._trump_order.ranked
            for suit in self._suits:
                s1, s2 = self._masks[suit]
                counts[suit] = {c: 2 if s2 & b else 1 for b, c in ranked[suit] if s1 & b}
        return counts

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
        held = self._masks.get(suit)
        if held is None:
            return out
        s1, s2 = held
        trump_order = self._trump_order
        singles, pairs, made = _simple_units(trump_order)
        for run in sorted(self._runs.get(suit, ()), key=lambda r: -r[-1][1]):
            for length in range(len(run), 1, -1):
                for start in range(len(run) - length, -1, -1):
                    top, value = run[start + length - 1]
                    key = (suit, top.index, value, length)  # (the top pair and the length place it on its chain)
                    unit = made.get(key)
                    if unit is None:
                        seg = run[start : start + length]
                        tcards = tuple(c for c, _ in reversed(seg) for _ in range(2))
                        unit = made[key] = Unit(UnitKind.TRACTOR, tcards, suit, value)
                    out.append(unit)
        ftk_pair = trump_order.rules.ftk_pair
        ones, twos = self._ones, self._twos  # (the whole hand: a 5h led as a heart is a trump, RULES §4.2)
        for x in ftk_suits(trump_order, suit, lead=True):
            trio_mask = _FTK_MASKS[x]
            if ftk_pair and twos & trio_mask == trio_mask:
                out.append(_ftk_unit(made, suit, x, 2))
            if ones & trio_mask == trio_mask:
                out.append(_ftk_unit(made, suit, x, 1))
        ranked = trump_order.ranked[suit]  # (strongest first)
        out.extend([pairs[c] for b, c in ranked if s2 & b])
        out.extend([singles[c] for b, c in ranked if s1 & b])
        self._built[suit] = out
        return out


_UnitKey = tuple[str, int, int, int]


def _simple_units(trump_order: TrumpOrder) -> tuple[dict[Card, Unit], dict[Card, Unit], dict[_UnitKey, Unit]]:
    """The single and the pair unit of every card, by card, made once per trump order; and the tractors and
    5·10·Ks made so far (at most every segment of the order's chains and two FTKs a suit: a few hundred)."""
    cache = trump_order.unit_cache
    if not cache:
        effective, order = trump_order.effective, trump_order.order
        cache.append({c: Unit(UnitKind.SINGLE, (c,), effective[c.index], order[c.index]) for c in Card.ALL})
        cache.append({c: Unit(UnitKind.PAIR, (c, c), effective[c.index], order[c.index]) for c in Card.ALL})
        cache.append({})
    return cast("tuple[dict[Card, Unit], dict[Card, Unit], dict[_UnitKey, Unit]]", tuple(cache))


def _ftk_unit(made: dict[_UnitKey, Unit], suit: str, x: Suit, copies: int) -> Unit:
    """The 5·10·K of natural suit ``x`` (``copies`` 2: the FTK pair) led in effective suit ``suit``, made once."""
    key = (suit, _FTK_TRIOS[x][0].index, -1, copies)
    unit = made.get(key)
    if unit is None:
        trio = _FTK_TRIOS[x]
        if copies == 2:
            unit = Unit(UnitKind.FTK_PAIR, tuple(c for c in trio for _ in range(2)), suit, 0)
        else:
            unit = Unit(UnitKind.FTK, trio, suit, 0)
        made[key] = unit
    return unit


#: Each natural suit's 5, 10 and K (RULES §4.2).
_FTK_TRIOS: dict[Suit, tuple[Card, Card, Card]] = {
    x: (Card.of(Rank.FIVE, x), Card.of(Rank.TEN, x), Card.of(Rank.KING, x)) for x in Suit
}
#: The bits of each natural suit's 5, 10 and K.
_FTK_MASKS: dict[Suit, int] = {x: sum(1 << c.index for c in trio) for x, trio in _FTK_TRIOS.items()}
