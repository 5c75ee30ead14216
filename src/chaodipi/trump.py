"""Trump: effective suits, the trump order and tractor adjacency (RULES §3, §4.1).

A :class:`TrumpOrder` is built once for a hand (rules, level, trump) and holds
tables indexed by ``Card.index``: each card's effective suit, its strength in
that suit, and its slots for tractors.

>>> from chaodipi.rules import RuleSet
>>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
>>> to.effective_suit(Card.parse("2h")), to.effective_suit(Card.parse("5h")), to.effective_suit(Card.parse("Ah"))
('trump', 'trump', 'h')
>>> strength = [to.order_of(Card.parse(c)) for c in ("5h", "BJ", "2s", "2h")]
>>> strength == sorted(strength, reverse=True)
True
>>> to.order_of(Card.parse("2h")) == to.order_of(Card.parse("2d"))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from chaodipi.cards import SUITS, Card, Rank, Suit
from chaodipi.rules import RuleSet, TractorSkipLevel

__all__ = ["EFFECTIVE_SUITS", "TRUMP", "TrumpError", "TrumpOrder", "parse_trump", "trump_text"]

#: The name of the trump effective suit.
TRUMP = "trump"
#: Effective suits in display order: trumps first, then the side suits.
EFFECTIVE_SUITS: tuple[str, ...] = (TRUMP, "s", "h", "c", "d")

FIVE_HEARTS = Card.of(Rank.FIVE, Suit.HEARTS)
BIG_JOKER = Card.of(Rank.BIG_JOKER)
SMALL_JOKER = Card.of(Rank.SMALL_JOKER)

# Strength values of the special trumps (RULES §3.2); ordinary cards use their rank 2..14.
_ORDER_5H = 60
_ORDER_BJ = 59
_ORDER_SJ = 58
_ORDER_TRUMP_LEVEL = 57
_ORDER_OFF_LEVEL = 56
# Tractor values of the jokers' chain (SJ SJ BJ BJ), above any suit rank.
_TV_SJ = 20
_TV_BJ = 21


class TrumpError(ValueError):
    """A trump or level that cannot be read."""


def parse_trump(text: object) -> tuple[bool, Suit | None]:
    """Read a trump as (flag hand?, suit): ``s``/``h``/``c``/``d``, ``nt`` (suit None) or ``flag``.

    >>> parse_trump("nt"), parse_trump("flag"), parse_trump("H")
    ((False, None), (True, None), (False, <Suit.HEARTS: 'h'>))
    """
    if not isinstance(text, str):
        raise TrumpError(f"trump must be s, h, c, d, nt or flag, not {text!r}")
    key = text.strip().lower()
    if key in ("nt", "none", "notrump", "no-trump"):
        return False, None
    if key == "flag":
        return True, None
    for s in SUITS:
        if s.value == key:
            return False, s
    raise TrumpError(f"trump must be s, h, c, d, nt or flag, not {text!r}")


def trump_text(suit: Suit | None) -> str:
    """The trump as written in requests and views: ``"s"``, ``"h"``, ``"c"``, ``"d"``, or ``"nt"`` for None.

    The inverse of :func:`parse_trump` for suits and NT.
    """
    return "nt" if suit is None else suit.value


def trump_words(suit: Suit | None, *, chinese: bool = True) -> str:
    """The trump for people: ``"♠ 黑桃 spades"``, ``"NT 无主 no-trump"`` (``chinese=False``: ``"spades"``).

    >>> trump_words(Suit.CLUBS), trump_words(None, chinese=False)
    ('♣ 梅花 clubs', 'no-trump')
    """
    if not chinese:
        return "no-trump" if suit is None else suit.english
    return "NT 无主 no-trump" if suit is None else f"{suit.symbol} {suit.chinese} {suit.english}"


def suit_words(effective: str, *, chinese: bool = True) -> str:
    """An effective suit (``"trump"``, ``"s"``…) for people: ``"主 trumps"``, ``"♥ 红桃 hearts"``.

    >>> suit_words(TRUMP), suit_words("h", chinese=False)
    ('主 trumps', 'hearts')
    """
    if effective == TRUMP:
        return "主 trumps" if chinese else "trumps"
    return trump_words(Suit(effective), chinese=chinese)


@dataclass(frozen=True, slots=True)
class Slot:
    """A place of a card on a tractor chain: cards on the same chain at positions differing by 1 are adjacent."""

    chain: int
    pos: int
    value: int  # the tractor strength this card gives when it is a tractor's top pair


class TrumpOrder:
    """The card order of one hand: which cards are trump, how strong each card is, which pairs link.

    ``level`` is None and ``trump`` None in a flag hand (扛旗: only 5h, BJ, SJ are trump).
    """

    __slots__ = (
        "chains",
        "effective",
        "flag",
        "format_cache",
        "ftk_cache",
        "heart5_ftk_lead",
        "level",
        "order",
        "ranked",
        "rules",
        "slots",
        "sort_position",
        "strength_position",
        "suit_mask",
        "trump",
        "unit_cache",
    )

    rules: RuleSet
    level: Rank | None
    trump: Suit | None
    flag: bool
    effective: tuple[str, ...]
    order: tuple[int, ...]
    slots: tuple[tuple[Slot, ...], ...]
    chains: dict[str, list[list[tuple[Card, int]]]]
    heart5_ftk_lead: bool
    ftk_cache: dict[tuple[str, bool], list[Suit]]
    #: decompositions already computed, by (lead, card indices); see :func:`chaodipi.units.decompose`
    format_cache: dict[tuple[bool, tuple[int, ...]], object]
    #: each card's place in :meth:`sorted`'s order (the sort key made once, 54 entries)
    sort_position: dict[Card, int]
    #: each card's place from the strongest down (ties by card index), the order leads are listed in
    strength_position: dict[Card, int]
    #: each effective suit's cards as a bit mask (bit ``card.index``, :mod:`chaodipi.masks`)
    suit_mask: dict[str, int]
    #: each effective suit's cards from the strongest down (ties by card index), with their bits
    ranked: dict[str, tuple[tuple[int, Card], ...]]
    #: the single and the pair unit of each card, by card, and the tractors and 5·10·Ks led so far, made at first
    #: use by :mod:`chaodipi.leads`, which types them (units.py builds on this module, so this one does not name
    #: its classes)
    unit_cache: list[dict[object, object]]

    def __init__(self, rules: RuleSet, level: Rank | None, trump: Suit | None) -> None:
        if level is not None and level > Rank.ACE:
            raise TrumpError(f"{level!r} is not a level")
        self.rules = rules
        self.level = level
        self.trump = trump if level is not None else None
        self.flag = level is None
        self.ftk_cache = {}
        self.format_cache = {}
        effective: list[str] = []
        order: list[int] = []
        for card in Card.ALL:
            e, o = self._classify(card)
            effective.append(e)
            order.append(o)
        self.effective = tuple(effective)
        self.order = tuple(order)
        self.chains = {}
        slots: list[list[Slot]] = [[] for _ in Card.ALL]
        chain_id = 0
        for e in EFFECTIVE_SUITS:
            self.chains[e] = []
            for chain in self._build_chains(e):
                self.chains[e].append(chain)
                for pos, (card, value) in enumerate(chain):
                    slots[card.index].append(Slot(chain_id, pos, value))
                chain_id += 1
        self.slots = tuple(tuple(s) for s in slots)
        # RULES §4.2: 红心5下放 — the leader may use 5h as a heart side card in a heart FTK.
        self.heart5_ftk_lead = (
            rules.ftk and rules.heart5_in_ftk and self.trump != Suit.HEARTS and self.level not in (Rank.TEN, Rank.KING)
        )
        self.sort_position = {c: k for k, c in enumerate(sorted(Card.ALL, key=self.sort_key))}
        by_strength = sorted(Card.ALL, key=lambda c: (-self.order[c.index], c.index))
        self.strength_position = {c: k for k, c in enumerate(by_strength)}
        self.suit_mask = {e: 0 for e in EFFECTIVE_SUITS}
        for c in Card.ALL:
            self.suit_mask[self.effective[c.index]] |= 1 << c.index
        self.ranked = {
            e: tuple((1 << c.index, c) for c in by_strength if self.effective[c.index] == e) for e in EFFECTIVE_SUITS
        }
        self.unit_cache = []

    @classmethod
    def of(cls, rules: RuleSet, level: Rank | None, trump: Suit | None) -> TrumpOrder:
        """A cached order for these rules, level and trump."""
        return _cached(rules, level, trump)

    # -- RULES §3.1 / §3.2 ------------------------------------------------
    def _classify(self, card: Card) -> tuple[str, int]:
        if card is FIVE_HEARTS:
            return TRUMP, _ORDER_5H
        if card is BIG_JOKER:
            return TRUMP, _ORDER_BJ
        if card is SMALL_JOKER:
            return TRUMP, _ORDER_SJ
        assert card.suit is not None
        if self.level is not None and card.rank == self.level:
            return TRUMP, _ORDER_TRUMP_LEVEL if card.suit == self.trump else _ORDER_OFF_LEVEL
        if card.suit == self.trump:
            return TRUMP, int(card.rank)
        return card.suit.value, int(card.rank)

    # -- RULES §4.1 --------------------------------------------------------
    def _suit_chain_ranks(self, suit: Suit, *, in_trump: bool) -> list[list[tuple[Card, int]]]:
        """Chains of one natural suit's cards (side suit, or the trump suit's ordinary cards)."""
        rules = self.rules
        links = in_trump and rules.trump_level_links
        if in_trump:
            bridge = rules.tractor_skip_level == TractorSkipLevel.ALL and not links
        else:
            bridge = rules.tractor_skip_level in (TractorSkipLevel.SIDE, TractorSkipLevel.ALL)
        ranks: list[int] = []
        for r in range(2, 15):
            if suit == Suit.HEARTS and r == 5:
                continue  # the 5h gap is never bridged, and 5h never links
            if self.level is not None and r == self.level and not links:
                continue
            ranks.append(r)
        chains: list[list[tuple[Card, int]]] = []
        current: list[tuple[Card, int]] = []
        prev: int | None = None
        for r in ranks:
            adjacent = prev is not None and (
                r - prev == 1
                or (
                    bridge
                    and r - prev == 2
                    and self.level is not None
                    and prev + 1 == self.level
                    and not (suit == Suit.HEARTS and self.level == Rank.FIVE)
                )
            )
            if not adjacent and current:
                chains.append(current)
                current = []
            current.append((Card.of(Rank(r), suit), r))
            prev = r
        if current:
            chains.append(current)
        # option ace_low_tractor: A also sits below 2 (only next to an actual 2 on the chain).
        if rules.ace_low_tractor and 14 in ranks and 2 in ranks:
            first = chains[0]
            if first[0][1] == 2:
                first.insert(0, (Card.of(Rank.ACE, suit), 1))
        return chains

    def _build_chains(self, e: str) -> list[list[tuple[Card, int]]]:
        if e == TRUMP:
            chains: list[list[tuple[Card, int]]] = []
            if self.trump is not None:
                chains.extend(self._suit_chain_ranks(self.trump, in_trump=True))
            chains.append([(SMALL_JOKER, _TV_SJ), (BIG_JOKER, _TV_BJ)])  # 大小王连对
            return chains
        suit = Suit(e)
        if suit == self.trump:
            return []
        return self._suit_chain_ranks(suit, in_trump=False)

    # -- queries -------------------------------------------------------------
    def effective_suit(self, card: Card) -> str:
        """``"trump"`` or the card's side suit ``"s"``/``"h"``/``"c"``/``"d"``."""
        return self.effective[card.index]

    def is_trump(self, card: Card) -> bool:
        """Whether ``card`` is a trump (主) in this hand (RULES §3.1)."""
        return self.effective[card.index] == TRUMP

    def order_of(self, card: Card) -> int:
        """Strength inside the effective suit; equal for equal cards (twins, off-suit level cards)."""
        return self.order[card.index]

    def suit_of(self, cards: Iterable[Card]) -> str | None:
        """The common effective suit of some cards, or None if they are of several."""
        suits = {self.effective[c.index] for c in cards}
        return suits.pop() if len(suits) == 1 else None

    def sort_key(self, card: Card) -> tuple[int, int, int]:
        """Sort key: trumps first, then s, h, c, d; strong cards first; ties by natural suit."""
        e = self.effective[card.index]
        return (EFFECTIVE_SUITS.index(e), -self.order[card.index], SUITS.index(card.suit) if card.suit else -1)

    def sorted(self, cards: Iterable[Card]) -> list[Card]:
        """Cards sorted by effective suit and strength (a hand as players hold it), as by :meth:`sort_key`."""
        return sorted(cards, key=self.sort_position.__getitem__)

    def strongest(self, suit: str, bits: int) -> Card | None:
        """The strongest card of effective suit ``suit`` whose bit is set in ``bits`` (:mod:`chaodipi.masks`; ties
        by card index), or None when none is."""
        if bits:
            for b, c in self.ranked[suit]:
                if bits & b:
                    return c
        return None

    def order_text(self) -> str:
        """The trump order, high to low, for display (equal cards joined with '=')."""
        trumps = [c for c in Card.ALL if self.effective[c.index] == TRUMP]
        trumps.sort(key=self.sort_key)
        out: list[str] = []
        prev: int | None = None
        for c in trumps:
            o = self.order[c.index]
            if prev == o:
                out[-1] += "=" + str(c)
            else:
                out.append(str(c))
            prev = o
        return " > ".join(out)

    def cards_of_suit(self, cards: Sequence[Card], e: str) -> list[Card]:
        """The cards whose effective suit is ``e``."""
        effective = self.effective
        return [c for c in cards if effective[c.index] == e]


@lru_cache(maxsize=512)
def _cached(rules: RuleSet, level: Rank | None, trump: Suit | None) -> TrumpOrder:
    return TrumpOrder(rules, level, trump)
