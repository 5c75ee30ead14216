"""Card sets as bit masks beside the lists and counts the engine uses, and the cost of building
records, frozen or not (issue 13, items 2 and 4).

Prints microseconds per call over 500 random 25-card hands, one core: holding two cards and the
rest afterwards, counting a hand, splitting one suit, finding pairs. A multiset of cards is two
54-bit masks (the cards held once, the cards held twice). Then one record of five fields built
as a frozen slotted dataclass (as ``Event`` and ``Unit``), a slotted one, a ``NamedTuple``, and
``Event`` itself. ``python bench/bench_cardsets.py``.
"""

from __future__ import annotations

import random
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from chaodipi.cards import Card, Suit, shuffled_deck
from chaodipi.hand import Hand
from chaodipi.log import Event, EventKind
from chaodipi.masks import CardMasks, holds, masks_of, size, without
from chaodipi.units import count_cards


def holds_and_rest(m: CardMasks, cards: Sequence[Card]) -> CardMasks | None:
    """The masks without ``cards``, or None when they are not all held (Hand._holds' question), as the engine
    asks it since issue 24 (:mod:`chaodipi.masks`)."""
    p = masks_of(cards)
    if len(cards) != size(*p) or not holds(*m, *p):
        return None
    return without(*m, *p)


def main() -> None:
    rng = random.Random(1)
    hands = [shuffled_deck(rng)[:25] for _ in range(500)]
    plays = [rng.sample(h, 2) for h in hands]
    held = [masks_of(h) for h in hands]
    hearts = sum(1 << c.index for c in Card.ALL if c.suit is Suit.HEARTS)

    def per_call(f: Callable[[], object]) -> float:
        return min(timeit.repeat(f, number=20, repeat=5)) / (20 * len(hands)) * 1e6

    pairs_of = list(zip(hands, plays, strict=True))
    held_plays = list(zip(held, plays, strict=True))
    rows = [
        ("holds two cards, and the rest: list", lambda: [Hand._holds(h, p) for h, p in pairs_of]),
        (
            "holds two cards, and the rest: masks",
            lambda: [holds_and_rest(m, p) for m, p in held_plays],
        ),
        ("count a hand: dict (count_cards)", lambda: [count_cards(h) for h in hands]),
        ("count a hand: masks (made from the list)", lambda: [masks_of(h) for h in hands]),
        ("one suit's cards: list", lambda: [[c for c in h if c.suit is Suit.HEARTS] for h in hands]),
        ("one suit's cards: masks", lambda: [(m[0] & hearts, m[1] & hearts) for m in held]),
        ("pairs: dict", lambda: [[c for c, n in count_cards(h).items() if n == 2] for h in hands]),
        ("pairs: masks", lambda: [m[1] for m in held]),
    ]
    for label, f in rows:
        print(f"{label:42} {per_call(f):6.2f} µs")

    @dataclass(frozen=True, slots=True)
    class Frozen:
        a: int
        b: tuple[int, ...]
        c: str
        d: int
        e: bool | None

    @dataclass(slots=True)
    class Slotted:
        a: int
        b: tuple[int, ...]
        c: str
        d: int
        e: bool | None

    class Named(NamedTuple):
        a: int
        b: tuple[int, ...]
        c: str
        d: int
        e: bool | None

    records: list[tuple[str, Callable[[], object]]] = [
        ("record: frozen slotted dataclass", lambda: Frozen(1, (), "x", 2, None)),
        ("record: slotted dataclass", lambda: Slotted(1, (), "x", 2, None)),
        ("record: NamedTuple", lambda: Named(1, (), "x", 2, None)),
        ("record: chaodipi Event", lambda: Event(EventKind.PLAYED, 1, (), 0, "", None)),
    ]
    for label, make in records:
        print(f"{label:42} {min(timeit.repeat(make, number=100_000, repeat=5)) * 10:6.2f} µs")


if __name__ == "__main__":
    main()
