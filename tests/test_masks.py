"""Card sets as bit masks (issue 24): the masks count as lists do, and the engine on masks answers as it did on lists.

The oracle is the list-based code of commit e271dbb, kept in tests/list_oracle.py: the follow rule (its check with
its reason, its legal follows, its duties), the single-unit leads in their order, and the throw check.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import list_oracle as old
from chaodipi.cards import Card, deck, format_cards, parse_cards
from chaodipi.leads import LeadChoices, unit_leads
from chaodipi.masks import add, cards_in, cards_of, holds, masks_of, missing, size, without
from chaodipi.phrases import Phrase
from chaodipi.play import FollowRule, check_throw, unit_beaten
from chaodipi.trump import TrumpOrder
from chaodipi.units import PlayError, decompose
from test_properties import situations

Situation = tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]]

multisets = st.lists(st.sampled_from(deck()), max_size=30).map(
    lambda cards: [c for c, n in Counter(cards).items() for _ in range(min(n, 2))]
)


def _counts(cards: list[Card]) -> Counter[Card]:
    return Counter(cards)


# -- the masks themselves -----------------------------------------------------------------------------


@given(multisets, multisets)
def test_masks_count_hold_and_remove_as_a_multiset_does(a: list[Card], b: list[Card]) -> None:
    ones, twos = masks_of(a)
    assert twos & ~ones == 0
    assert size(ones, twos) == len(a)
    assert Counter(cards_in(ones, twos)) == _counts(a)
    assert cards_of(twos) == sorted((c for c, n in _counts(a).items() if n == 2), key=lambda c: c.index)
    sub = [c for c in b if c in a]
    sub = [c for c, n in Counter(sub).items() for _ in range(min(n, _counts(a)[c]))]
    p = masks_of(sub)
    assert holds(ones, twos, *p)
    assert Counter(cards_in(*without(ones, twos, *p))) == _counts(a) - Counter(sub)
    assert holds(ones, twos, *masks_of(b)) == (not Counter(b) - _counts(a))
    lacked = sorted(Counter(b) - _counts(a), key=lambda c: c.index)
    assert cards_of(missing(ones, twos, b)) == lacked
    assert cards_of(missing(ones, twos, [*b, *b, *b])) == sorted(set(b), key=lambda c: c.index)  # (a third copy)
    together = _counts(a) + _counts(b)
    if all(n <= 2 for n in together.values()):
        assert Counter(cards_in(*add(ones, twos, *masks_of(b)))) == together


def test_masks_doctest_example() -> None:
    ones, twos = masks_of(parse_cards("Ah Ah Kh 5c"))
    assert format_cards(cards_in(*without(ones, twos, *masks_of(parse_cards("Ah Kh"))))) == "Ah 5c"


# -- the follow rule on masks against the list-based one ----------------------------------------------


def _same_reason(new: Phrase | None, was: Phrase | None) -> bool:
    """The same verdict and the same reason: its code and values, the cards it names as a multiset."""
    if new is None or was is None:
        return new is was

    def norm(p: Phrase) -> tuple[str, tuple[tuple[str, object], ...]]:
        values = []
        for key, value in p.values:
            if isinstance(value, tuple) and value and isinstance(value[0], Card):
                value = tuple(sorted(value, key=lambda c: c.index))  # type: ignore[union-attr]
            values.append((key, value))
        return p.code, tuple(values)

    return norm(new) == norm(was)


def _plays_to_try(lead: list[Card], hand: list[Card], rng: random.Random) -> list[list[Card]]:
    """Random plays of the lead's size from the hand, wrong sizes, and plays with cards not held."""
    n = len(lead)
    tries = [rng.sample(hand, min(n, len(hand))) for _ in range(40)]
    tries += [hand[: n + 1], hand[: max(n - 1, 0)]]
    outside = [c for c in deck() if hand.count(c) < 2]
    tries += [[*hand[: n - 1], rng.choice(outside)] for _ in range(3)]
    if hand:
        tries.append([hand[0]] * n)  # (a card three times when n ≥ 3)
    return tries


def _keys(plays: object) -> set[tuple[int, ...]]:
    return {tuple(sorted(c.index for c in p)) for p in plays}  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(situations(follower_size=12), st.integers(0, 2**32))
def test_follow_rule_on_masks_agrees_with_the_lists(sit: Situation, seed: int) -> None:
    trump_order, lead, hand, _ = sit
    try:
        decompose(lead, trump_order)
    except PlayError:
        return
    new, was = FollowRule(lead, hand, trump_order), old.FollowRule(lead, hand, trump_order)
    where = (format_cards(lead), format_cards(hand))
    assert (new.n, new.k, new.best, new.fixed, new.top_required) == (
        was.n,
        was.k,
        was.best,
        was.fixed,
        was.top_required,
    ), where
    assert new.suit_cards == was.suit_cards
    assert _keys(new.suit_parts()) == _keys(was.suit_parts()), where
    assert _keys(new.legal_plays()) == _keys(was.legal_plays()), where
    for play in [*itertools.islice(was.legal_plays(), 20), *_plays_to_try(lead, hand, random.Random(seed))]:
        assert _same_reason(new.check(play), was.check(play)), (*where, format_cards(play))
    for card in set(hand):
        assert new.min_count(card) == was.min_count(card), (*where, str(card))


@settings(max_examples=300, deadline=None)
@given(situations())
def test_leads_on_masks_agree_with_the_lists(sit: Situation) -> None:
    trump_order, _, hand, others = sit
    for cards in (hand, *others):
        new, was = LeadChoices(cards, trump_order), old.LeadChoices(cards, trump_order)
        assert len(new) == len(was)
        assert [u.cards for u in unit_leads(cards, trump_order)] == [u.cards for u in was]
        assert new.suit_counts() == was.suit_counts()
        for suit in was.suit_counts():
            assert [u.cards for u in new.of_suit(suit)] == [u.cards for u in was.of_suit(suit)]


@settings(max_examples=300, deadline=None)
@given(situations(), st.integers(0, 2**32))
def test_throw_check_on_masks_agrees_with_the_lists(sit: Situation, seed: int) -> None:
    trump_order, lead, hand, others = sit
    rng = random.Random(seed)
    suit_cards = trump_order.sorted(
        c for c in others[2] if trump_order.effective[c.index] == trump_order.effective[lead[0].index]
    )
    throws = [lead, *(rng.sample(suit_cards, k) for k in range(2, min(7, len(suit_cards)) + 1))]
    for throw in throws:
        try:
            was = old.check_throw(throw, [hand, others[0], others[1]], trump_order)
        except PlayError:
            continue
        new = check_throw(throw, [hand, others[0], others[1]], trump_order)
        assert new == was, format_cards(throw)
        for unit in was.lead.units:
            held = [c for c in hand if trump_order.effective[c.index] == unit.suit]
            assert unit_beaten(unit, held, trump_order) == old.unit_beaten(unit, held, trump_order)
