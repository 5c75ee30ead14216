"""Card sets as bit masks: how the engine counts, compares and splits hands (issue 24).

A two-deck hand is a multiset in which every card is held 0, 1 or 2 times. Here it is a pair of
54-bit integers ``(ones, twos)``: bit ``card.index`` of ``ones`` is set when the card is held at
least once, the same bit of ``twos`` when it is held twice (so ``twos`` is always inside ``ones``).
The questions the rules ask of a hand are then integer operations:

- how many cards: ``ones.bit_count() + twos.bit_count()``;
- the cards of an effective suit: ``ones & suit_mask``, ``twos & suit_mask`` (a trump order keeps the
  five suits' masks, :attr:`chaodipi.trump.TrumpOrder.suit_mask`);
- does it hold a pair in this suit: ``twos & suit_mask != 0``; how many pairs: its bit count;
- does it hold these cards: :func:`holds` (which of them it lacks: :func:`missing`); what is left after
  playing them: :func:`without`.

``Card`` objects stay at the edges (plays, records, views, the wire): :func:`cards_of` turns a mask back
into cards, in the order of the card index.

>>> from chaodipi.cards import parse_cards, format_cards
>>> ones, twos = masks_of(parse_cards("Ah Ah Kh 5c"))
>>> size(ones, twos), format_cards(cards_of(twos))
(4, 'Ah')
>>> left = without(ones, twos, *masks_of(parse_cards("Ah Kh")))
>>> format_cards(cards_in(*left))
'Ah 5c'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from chaodipi.cards import Card

__all__ = [
    "BITS",
    "CardMasks",
    "add",
    "cards_in",
    "cards_of",
    "holds",
    "masks_of",
    "missing",
    "size",
    "without",
]

#: A hand as bit masks: (cards held at least once, cards held twice).
CardMasks = tuple[int, int]

#: The bit of each card, by card index.
BITS: tuple[int, ...] = tuple(1 << c.index for c in Card.ALL)

_ALL = Card.ALL


def masks_of(cards: Iterable[Card]) -> CardMasks:
    """The masks of some cards, at most two of each (a third copy counts once more as held twice)."""
    ones = twos = 0
    for c in cards:
        b = 1 << c.index
        if ones & b:
            twos |= b
        else:
            ones |= b
    return ones, twos


def size(ones: int, twos: int) -> int:
    """The number of cards in the set."""
    return ones.bit_count() + twos.bit_count()


def holds(ones: int, twos: int, p_ones: int, p_twos: int) -> bool:
    """Whether the set ``(ones, twos)`` holds every card of ``(p_ones, p_twos)``, copies counted."""
    return not (p_ones & ~ones) and not (p_twos & ~twos)


def missing(ones: int, twos: int, cards: Sequence[Card]) -> int:
    """The bits of the cards that ``cards`` names more often than the set ``(ones, twos)`` holds them (a card
    named three times is never held: the game has two decks); 0 when the set holds them all.

    >>> from chaodipi.cards import parse_cards
    >>> cards_of(missing(*masks_of(parse_cards("Ah Ah Kh")), parse_cards("Ah Kh Kh 5c")))
    [Card('Kh'), Card('5c')]
    """
    p_ones, p_twos = masks_of(cards)
    miss = (p_ones & ~ones) | (p_twos & ~twos)
    if p_ones.bit_count() + p_twos.bit_count() != len(cards):  # (a card named a third time)
        for c in cards:
            if cards.count(c) > 2:
                miss |= 1 << c.index
    return miss


def without(ones: int, twos: int, p_ones: int, p_twos: int) -> CardMasks:
    """The set once the cards ``(p_ones, p_twos)`` (held, :func:`holds`) are taken out.

    A card played once loses its second copy if there was one, else its only one; a card played twice
    is gone.
    """
    return ones & ~(p_twos | (p_ones & ~twos)), twos & ~p_ones


def add(ones: int, twos: int, b_ones: int, b_twos: int) -> CardMasks:
    """Two sets together (at most two copies of a card in all: the two decks)."""
    return ones | b_ones, twos | b_twos | (ones & b_ones)


def cards_of(mask: int) -> list[Card]:
    """The cards whose bits are set, once each, by card index."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(_ALL[low.bit_length() - 1])
        mask ^= low
    return out


def cards_in(ones: int, twos: int) -> list[Card]:
    """Every card of the set, twins next to each other, by card index."""
    out: list[Card] = []
    while ones:
        low = ones & -ones
        c = _ALL[low.bit_length() - 1]
        out.append(c)
        if twos & low:
            out.append(c)
        ones ^= low
    return out
