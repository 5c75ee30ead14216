"""Cards, suits, ranks and the card notation (RULES §1).

A card is written rank + suit: ``5h`` (红桃5), ``Ts`` (黑桃10), ``Kd``; the
jokers are ``SJ`` (小王) and ``BJ`` (大王). Parsing is case-insensitive and the
rank always comes first, so ``js`` is the jack of spades and ``sj`` the small
joker. There are 54 distinct cards; the game uses two decks, so every card has
an identical twin and a hand is a multiset.

>>> Card.parse("5h").chinese
'红桃5'
>>> format_cards(parse_cards("ah 10h sj"))
'Ah Th SJ'
>>> len(deck())
108
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from enum import IntEnum, StrEnum
from typing import ClassVar

__all__ = [
    "SUITS",
    "Card",
    "CardError",
    "Rank",
    "Suit",
    "check_copies",
    "deck",
    "format_cards",
    "parse_cards",
    "points_of",
    "shuffled_deck",
]


class CardError(ValueError):
    """A card or a list of cards could not be read, or needs a third copy."""


class Suit(StrEnum):
    """The four natural suits, in the tie-break order of the rule book (s, h, c, d)."""

    SPADES = "s"
    HEARTS = "h"
    CLUBS = "c"
    DIAMONDS = "d"

    @property
    def chinese(self) -> str:
        """The Chinese name: 黑桃, 红桃, 梅花, 方块."""
        return _SUIT_CHINESE[self]

    @property
    def symbol(self) -> str:
        """The suit symbol ♠ ♥ ♣ ♦."""
        return _SUIT_SYMBOL[self]

    @property
    def english(self) -> str:
        """The English name: spades, hearts, clubs, diamonds."""
        return _SUIT_ENGLISH[self]


SUITS: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
_SUIT_CHINESE = {Suit.SPADES: "黑桃", Suit.HEARTS: "红桃", Suit.CLUBS: "梅花", Suit.DIAMONDS: "方块"}
_SUIT_SYMBOL = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.CLUBS: "♣", Suit.DIAMONDS: "♦"}
_SUIT_ENGLISH = {Suit.SPADES: "spades", Suit.HEARTS: "hearts", Suit.CLUBS: "clubs", Suit.DIAMONDS: "diamonds"}


class Rank(IntEnum):
    """Card ranks; the jokers rank above the ace."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    SMALL_JOKER = 15
    BIG_JOKER = 16

    @property
    def symbol(self) -> str:
        """The one-letter notation: ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_SYMBOL[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read a level or rank: ``"2"``..``"9"``, ``"T"`` or ``"10"``, ``"J"``..``"A"``.

        >>> Rank.parse("10") is Rank.TEN
        True
        """
        key = text.strip().upper()
        if key == "10":
            key = "T"
        for rank, sym in _RANK_SYMBOL.items():
            if sym == key and rank <= Rank.ACE:
                return rank
        raise CardError(f"{text!r} is not a rank: use 2..9, T (or 10), J, Q, K or A")


_RANK_SYMBOL = {r: s for r, s in zip(Rank, "23456789TJQKA", strict=False)}
_RANK_SYMBOL[Rank.SMALL_JOKER] = "SJ"
_RANK_SYMBOL[Rank.BIG_JOKER] = "BJ"
_RANK_CHINESE = {
    r: s for r, s in zip(Rank, ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"], strict=False)
}


class Card:
    """One of the 54 distinct cards. Instances are interned: compare with ``is`` or ``==``.

    ``index`` is a dense number 0..53 used by the rule tables.
    """

    __slots__ = ("_text", "index", "points", "rank", "suit")

    ALL: ClassVar[tuple[Card, ...]]
    _BY_TEXT: ClassVar[dict[str, Card]]

    rank: Rank
    suit: Suit | None
    index: int
    points: int
    _text: str

    def __init__(self, rank: Rank, suit: Suit | None, index: int) -> None:
        self.rank = rank
        self.suit = suit
        self.index = index
        self.points = 5 if rank == Rank.FIVE else 10 if rank in (Rank.TEN, Rank.KING) else 0
        self._text = rank.symbol if suit is None else rank.symbol + suit.value

    @classmethod
    def of(cls, rank: Rank, suit: Suit | None = None) -> Card:
        """The card of this rank and suit (``suit`` is None for the jokers)."""
        if (rank >= Rank.SMALL_JOKER) != (suit is None):
            raise CardError(f"rank {rank.name} {'takes no' if suit is not None else 'needs a'} suit")
        return cls._BY_TEXT[rank.symbol + (suit.value if suit else "")]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card in the notation of RULES §1 (case-insensitive, ``10`` for ``T``)."""
        if not isinstance(text, str):
            raise CardError(f"a card must be written as text, not {text!r}")
        t = text.strip()
        up = t.upper()
        if up in ("SJ", "BJ"):
            return cls._BY_TEXT[up]
        if len(t) < 2:
            raise CardError(f"{text!r} is not a card: write rank then suit, e.g. 5h, Ts, BJ")
        rank_text, suit_text = up[:-1], t[-1].lower()
        if rank_text == "10":
            rank_text = "T"
        card = cls._BY_TEXT.get(rank_text + suit_text)
        if card is None or card.suit is None:
            raise CardError(f"{text!r} is not a card: write rank (2-9, T, J, Q, K, A) then suit (s, h, c, d)")
        return card

    @property
    def is_joker(self) -> bool:
        """Whether this is a joker (``SJ`` 小王 or ``BJ`` 大王), the only cards without a suit."""
        return self.suit is None

    @property
    def chinese(self) -> str:
        """The Chinese name: 红桃5, 大王, 黑桃A."""
        if self.rank == Rank.BIG_JOKER:
            return "大王"
        if self.rank == Rank.SMALL_JOKER:
            return "小王"
        assert self.suit is not None
        return self.suit.chinese + _RANK_CHINESE[self.rank]

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card({self._text!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self._text,))


def _build() -> None:
    cards: list[Card] = []
    for suit in SUITS:
        for rank in Rank:
            if rank <= Rank.ACE:
                cards.append(Card(rank, suit, len(cards)))
    cards.append(Card(Rank.SMALL_JOKER, None, len(cards)))
    cards.append(Card(Rank.BIG_JOKER, None, len(cards)))
    Card.ALL = tuple(cards)
    Card._BY_TEXT = {str(c): c for c in cards}


_build()


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read a space-separated list of cards (or an iterable of card texts).

    >>> parse_cards("Ah Ah Kh")
    [Card('Ah'), Card('Ah'), Card('Kh')]
    """
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
    else:
        try:
            tokens = list(text)
        except TypeError:
            raise CardError(f"cards must be a text like 'Ah Ah Kh', not {text!r}") from None
    return [Card.parse(t) for t in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards space-separated in canonical notation."""
    return " ".join([c._text for c in cards])  # (the text each card keeps: the server writes many)


def points_of(cards: Iterable[Card]) -> int:
    """Total points of some cards."""
    return sum(c.points for c in cards)


def check_copies(*groups: Iterable[Card]) -> None:
    """Raise CardError if the groups together hold a card more than twice (two decks)."""
    total: Counter[Card] = Counter()
    for g in groups:
        total.update(g)
    over = [c for c, n in total.items() if n > 2]
    if over:
        raise CardError(
            "the game has two copies of each card, but these cards would need a third: "
            + format_cards(sorted(over, key=lambda c: c.index))
        )


def deck() -> list[Card]:
    """The 108 cards of two decks, in a fixed order."""
    return [c for c in Card.ALL for _ in range(2)]


def shuffled_deck(rng: random.Random) -> list[Card]:
    """The 108 cards shuffled by a seeded generator."""
    cards = deck()
    rng.shuffle(cards)
    return cards
