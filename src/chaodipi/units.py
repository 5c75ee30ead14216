"""Units (combinations) and the canonical decomposition of a lead (RULES §4).

A play is made of units of one effective suit: singles, pairs (对), tractors
(拖拉机/连对), 5·10·K (FTK) and FTK pairs. :func:`decompose` reads a set of
cards the one canonical way of RULES §4.3.

>>> from chaodipi.cards import parse_cards, Rank, Suit
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.trump import TrumpOrder
>>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.FIVE, Suit.SPADES)
>>> fmt = decompose(parse_cards("Qd Qd Kd Kd Ad Ad 2d 2d"), to)
>>> [(u.kind.value, str(u)) for u in fmt.units]
[('tractor', 'Ad Ad Kd Kd Qd Qd'), ('pair', '2d 2d')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from chaodipi.cards import Card, Rank, Suit, format_cards
from chaodipi.phrases import PhrasedError, say
from chaodipi.trump import FIVE_HEARTS, TRUMP, TrumpOrder

__all__ = [
    "Format",
    "PlayError",
    "Unit",
    "UnitKind",
    "count_cards",
    "decompose",
    "ftk_suits",
    "pair_runs",
    "pair_runs_of",
]


class PlayError(PhrasedError):
    """Cards that do not make a valid lead or play (``phrase``: the reason as data)."""


class UnitKind(StrEnum):
    """The kinds of unit (RULES §4)."""

    SINGLE = "single"
    PAIR = "pair"
    TRACTOR = "tractor"
    FTK = "ftk"
    FTK_PAIR = "ftk_pair"


# Priority of kinds when reading the primary kind of a lead (RULES §7).
_KIND_RANK = {UnitKind.FTK_PAIR: 5, UnitKind.FTK: 4, UnitKind.TRACTOR: 3, UnitKind.PAIR: 2, UnitKind.SINGLE: 1}


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit: its kind, cards (strong first), effective suit and strength.

    ``strength`` is the card order for singles and pairs, the top pair's tractor
    value for tractors, and 0 for FTKs (they have no rank order, RULES §4.2).
    ``pairs`` is the number of pairs it holds (a tractor's length, 3 for an FTK pair).
    """

    kind: UnitKind
    cards: tuple[Card, ...]
    suit: str
    strength: int
    #: pairs in the unit: 1 for a pair, a tractor's length, 3 for an FTK pair, 0 for a single or an FTK
    pairs: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        single = self.kind == UnitKind.SINGLE or self.kind == UnitKind.FTK
        object.__setattr__(self, "pairs", 0 if single else len(self.cards) // 2)

    @property
    def size(self) -> int:
        """The number of cards."""
        return len(self.cards)

    def __str__(self) -> str:
        return format_cards(self.cards)


@dataclass(frozen=True, slots=True)
class Format:
    """The canonical reading of a lead: its effective suit and its units.

    ``size``, ``pair_count`` and ``tractor_lengths`` are worked out once, when the format is made
    (a format is read many times: by every follow rule, trick and trump-in judged against it).
    """

    suit: str
    units: tuple[Unit, ...]
    #: the number of cards in the lead
    size: int = field(init=False, compare=False, repr=False)
    #: pairs in the lead: pairs, pairs inside tractors and FTK pairs (RULES §6.4)
    pair_count: int = field(init=False, compare=False, repr=False)
    #: lengths (in pairs) of the lead's tractors, longest first
    tractor_lengths: tuple[int, ...] = field(init=False, compare=False, repr=False)
    #: the primary kind and its pairs (RULES §7): FTK pair, else FTK, else the longest tractor, else pair, else single
    primary: tuple[UnitKind, int] = field(init=False, compare=False, repr=False)
    #: each unit's (kind, pairs), the most demanding first: FTK pairs, FTKs, tractors (longest first), pairs,
    #: singles (the order a trump-in is matched to the lead, :func:`chaodipi.trick.trump_in_key`)
    demands: tuple[tuple[UnitKind, int], ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        units = self.units
        object.__setattr__(self, "size", sum(len(u.cards) for u in units))
        object.__setattr__(self, "pair_count", sum(u.pairs for u in units))
        lengths = sorted((u.pairs for u in units if u.kind == UnitKind.TRACTOR), reverse=True)
        object.__setattr__(self, "tractor_lengths", tuple(lengths))
        best = max(units, key=lambda u: (_KIND_RANK[u.kind], u.pairs))
        object.__setattr__(self, "primary", (best.kind, best.pairs))
        demands = sorted(((u.kind, u.pairs) for u in units), key=lambda kp: (-_KIND_RANK[kp[0]], -kp[1]))
        object.__setattr__(self, "demands", tuple(demands))

    @property
    def kind(self) -> str:
        """``single``, ``pair``, ``tractor``, ``ftk``, ``ftk_pair`` or ``throw`` (several units)."""
        return self.units[0].kind.value if len(self.units) == 1 else "throw"

    @property
    def is_throw(self) -> bool:
        """Whether the lead is a throw (甩牌): several units of one effective suit (RULES §5.1)."""
        return len(self.units) > 1

    @property
    def cards(self) -> tuple[Card, ...]:
        """All the lead's cards, unit by unit."""
        return tuple(c for u in self.units for c in u.cards)

    @property
    def ftk_count(self) -> int:
        """FTKs (5·10·K) in the lead, not counting FTK pairs (RULES §4.2)."""
        return sum(1 for u in self.units if u.kind == UnitKind.FTK)

    @property
    def ftk_pair_count(self) -> int:
        """FTK pairs (both 5s, 10s and Ks of one suit) in the lead (RULES §4.2)."""
        return sum(1 for u in self.units if u.kind == UnitKind.FTK_PAIR)

    @property
    def has_ftk(self) -> bool:
        """Whether the lead contains an FTK or an FTK pair."""
        kind = self.primary[0]  # (the primary kind is an FTK pair or an FTK whenever the lead holds one)
        return kind is UnitKind.FTK_PAIR or kind is UnitKind.FTK

    @property
    def largest_unit_cards(self) -> int:
        """Cards in the largest unit for kou di (RULES §8): an FTK counts as a single, an FTK pair as a pair."""
        sizes = [1 if u.kind == UnitKind.FTK else 2 if u.kind == UnitKind.FTK_PAIR else u.size for u in self.units]
        return max(sizes)

    def __str__(self) -> str:
        return " + ".join(f"{u.kind.value}({u})" for u in self.units)


def count_cards(cards: Iterable[Card]) -> dict[Card, int]:
    """A multiset of cards as a dict card → count (1 or 2)."""
    counts: dict[Card, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return counts


def ftk_suits(trump_order: TrumpOrder, suit: str, *, lead: bool = False) -> list[Suit]:
    """Natural suits X whose ``5X TX KX`` is an FTK of effective suit ``suit`` (RULES §4.2).

    With ``lead=True`` the leader's 5h allowance (红心5下放) counts.
    """
    key = (suit, lead)
    cached = trump_order.ftk_cache.get(key)
    if cached is not None:
        return cached
    out = _ftk_suits(trump_order, suit, lead=lead)
    trump_order.ftk_cache[key] = out
    return out


def _ftk_suits(trump_order: TrumpOrder, suit: str, *, lead: bool) -> list[Suit]:
    if not trump_order.rules.ftk:
        return []
    if suit == TRUMP:
        candidates = [trump_order.trump] if trump_order.trump is not None else []
    else:
        candidates = [Suit(suit)]
    out: list[Suit] = []
    for x in candidates:
        assert x is not None
        ok = True
        for r in (Rank.FIVE, Rank.TEN, Rank.KING):
            c = Card.of(r, x)
            if trump_order.effective[c.index] != suit and not (
                lead and c is FIVE_HEARTS and suit == "h" and trump_order.heart5_ftk_lead
            ):
                ok = False
        if ok:
            out.append(x)
    return out


def pair_runs(pairs: Iterable[Card], trump_order: TrumpOrder, suit: str) -> list[list[tuple[Card, int]]]:
    """Maximal runs of adjacent pairs on the tractor chains of ``suit`` (RULES §4.1).

    Each run is a list of (card, tractor value), low to high. A run of length 1 is
    a lone pair. An ace may end one run and start another (ace-low and ace-high):
    callers that use both must not use the ace twice.
    """
    twos = 0
    for c in pairs:
        twos |= 1 << c.index
    return pair_runs_of(twos, trump_order, suit)


def pair_runs_of(twos: int, trump_order: TrumpOrder, suit: str) -> list[list[tuple[Card, int]]]:
    """:func:`pair_runs` of the pairs whose bits are set in ``twos`` (:mod:`chaodipi.masks`)."""
    runs: list[list[tuple[Card, int]]] = []
    for chain in trump_order.chains[suit]:
        run: list[tuple[Card, int]] = []
        for card, value in chain:
            held = twos >> card.index & 1
            if held and not (run and run[0][0] is card):
                run.append((card, value))
                continue
            if len(run) > 0:
                runs.append(run)
            run = [(card, value)] if held else []
        if run:
            runs.append(run)
    return runs


def decompose(cards: Sequence[Card], trump_order: TrumpOrder, *, lead: bool = True) -> Format:
    """The canonical decomposition of ``cards`` (RULES §4.3).

    Raises PlayError when the cards are not all of one effective suit (a lead may
    use 5h in a heart FTK under ``heart5_in_ftk``, RULES §4.2).
    """
    if not cards:
        raise PlayError(say("play.empty"))
    key = (lead, tuple(c.index for c in cards))
    cache = trump_order.format_cache
    found = cache.get(key)
    if found is None:
        try:
            found = _decompose(cards, trump_order, lead)
        except PlayError as exc:
            found = exc
        _keep(cache, key, found)
    if isinstance(found, PlayError):
        raise type(found)(found.phrase or str(found))
    assert isinstance(found, Format)
    return found


#: Decompositions kept, all trump orders together (about half a kilobyte each): when full, all are dropped.
_FORMAT_CACHE_SIZE = 100_000
_format_caches: list[dict[tuple[bool, tuple[int, ...]], object]] = []  # the trump orders' caches holding some
_format_count = [0]  # decompositions kept in them


def _keep(cache: dict[tuple[bool, tuple[int, ...]], object], key: tuple[bool, tuple[int, ...]], found: object) -> None:
    """Keep a decomposition in its trump order's cache, within the one bound for all orders."""
    if _format_count[0] >= _FORMAT_CACHE_SIZE:
        for kept in _format_caches:
            kept.clear()
        _format_caches.clear()
        _format_count[0] = 0
    if not cache:
        _format_caches.append(cache)
    cache[key] = found
    _format_count[0] += 1


def _decompose(cards: Sequence[Card], trump_order: TrumpOrder, lead: bool) -> Format:
    effective = trump_order.effective
    suits = {effective[c.index] for c in cards}
    h5_as_heart = False
    if len(suits) != 1:
        if (
            lead
            and trump_order.heart5_ftk_lead
            and suits == {TRUMP, "h"}
            and all(effective[c.index] == "h" or c is FIVE_HEARTS for c in cards)
        ):
            h5_as_heart = True
            suit = "h"
        else:
            raise PlayError(say("lead.mixed", cards=tuple(cards), suits=tuple(sorted(suits))))
    else:
        suit = suits.pop()
    counts = count_cards(cards)
    units: list[Unit] = []

    # (1) tractors: longest first, then highest, greedily
    while True:
        pairs = [c for c, n in counts.items() if n >= 2 and (not h5_as_heart or c is not FIVE_HEARTS)]
        if len(pairs) < 2:
            break
        best: list[tuple[Card, int]] | None = None
        for run in pair_runs(pairs, trump_order, suit):
            if len(run) >= 2 and (best is None or (len(run), run[-1][1]) > (len(best), best[-1][1])):
                best = run
        if best is None:
            break
        tcards: list[Card] = []
        for card, _ in reversed(best):
            counts[card] -= 2
            tcards.extend((card, card))
        units.append(Unit(UnitKind.TRACTOR, tuple(tcards), suit, best[-1][1]))

    # (2) FTK pairs, (3) FTKs
    for x in ftk_suits(trump_order, suit, lead=lead):
        five, ten, king = Card.of(Rank.FIVE, x), Card.of(Rank.TEN, x), Card.of(Rank.KING, x)
        if trump_order.rules.ftk_pair and all(counts.get(c, 0) >= 2 for c in (five, ten, king)):
            for c in (five, ten, king):
                counts[c] -= 2
            units.append(Unit(UnitKind.FTK_PAIR, (five, five, ten, ten, king, king), suit, 0))
        while all(counts.get(c, 0) >= 1 for c in (five, ten, king)):
            for c in (five, ten, king):
                counts[c] -= 1
            units.append(Unit(UnitKind.FTK, (five, ten, king), suit, 0))

    # (4) pairs, (5) singles
    order = trump_order.order
    rest = sorted((c for c, n in counts.items() if n > 0), key=lambda c: -order[c.index])
    pair_units = [Unit(UnitKind.PAIR, (c, c), suit, order[c.index]) for c in rest if counts[c] == 2]
    single_units = [Unit(UnitKind.SINGLE, (c,), suit, order[c.index]) for c in rest if counts[c] == 1]
    if h5_as_heart and any(FIVE_HEARTS in u.cards for u in pair_units + single_units):
        raise PlayError(say("lead.red5"))
    units.extend(pair_units)
    units.extend(single_units)
    return Format(suit, tuple(units))
