"""Property tests (hypothesis): the follow check and generator agree, decompositions are exact."""

from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chaodipi.cards import Card, Rank, Suit, deck, format_cards, parse_cards
from chaodipi.play import FollowRule, check_throw
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.trick import resolve_trick, trick_state
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder
from chaodipi.units import Format, PlayError, _decompose, decompose

SUITS_OR_NT: list[Suit | None] = [*Suit, None]


@st.composite
def situations(draw: st.DrawFn, follower_size: int = 25) -> tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]]:
    """A trump order, a lead taken from one hand, a follower's hand and the other hands."""
    preset = draw(st.sampled_from(PRESET_NAMES))
    rules = RuleSet.preset(preset)
    flag = draw(st.booleans()) if rules.flag else False
    level = None if flag else Rank(draw(st.integers(2, 14)))
    trump = None if flag else draw(st.sampled_from(SUITS_OR_NT))
    trump_order = TrumpOrder.of(rules, level, trump)
    rng = random.Random(draw(st.integers(0, 2**32)))
    cards = deck()
    rng.shuffle(cards)
    # Skew the follower's hand towards one suit so that pairs and tractors are common.
    leader = cards[:25]
    suit = draw(st.sampled_from([s for s in EFFECTIVE_SUITS if trump_order.cards_of_suit(leader, s)]))
    held = trump_order.sorted(trump_order.cards_of_suit(leader, suit))
    size = draw(st.integers(1, min(6, len(held))))
    start = draw(st.integers(0, len(held) - size))
    lead = held[start : start + size]
    rest = cards[25:]
    same = [c for c in rest if trump_order.effective[c.index] == suit]
    other = [c for c in rest if trump_order.effective[c.index] != suit]
    k = draw(st.integers(0, min(len(same), follower_size)))
    follower = same[:k] + other[: follower_size - k]
    others = [follower, rest[-25:], rest[-50:-25]]
    return trump_order, lead, follower, others


def _valid_lead(trump_order: TrumpOrder, lead: list[Card]) -> bool:
    try:
        decompose(lead, trump_order)
    except ValueError:
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(situations())
def test_every_generated_follow_passes_the_check(
    sit: tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]],
) -> None:
    trump_order, lead, hand, _ = sit
    if not _valid_lead(trump_order, lead):
        return
    rule = FollowRule(lead, hand, trump_order)
    seen: set[tuple[int, ...]] = set()
    for play in itertools.islice(rule.legal_plays(), 400):
        assert rule.check(play) is None, (format_cards(lead), format_cards(hand), format_cards(play))
        key = tuple(sorted(c.index for c in play))
        assert key not in seen
        seen.add(key)
    assert seen, "there is always a legal follow"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(situations(follower_size=9))
def test_brute_force_finds_exactly_the_generated_follows(
    sit: tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]],
) -> None:
    trump_order, lead, hand, _ = sit
    if not _valid_lead(trump_order, lead) or len(lead) > len(hand):
        return
    rule = FollowRule(lead, hand, trump_order)
    generated = {tuple(sorted(c.index for c in p)) for p in rule.legal_plays()}
    brute = set()
    for idx in itertools.combinations(range(len(hand)), len(lead)):
        play = [hand[i] for i in idx]
        if rule.check(play) is None:
            brute.add(tuple(sorted(c.index for c in play)))
    assert generated == brute, (format_cards(lead), format_cards(hand))


@settings(max_examples=300, deadline=None)
@given(situations())
def test_decomposition_reassembles_its_cards(sit: tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]]) -> None:
    trump_order, lead, _, _ = sit
    if not _valid_lead(trump_order, lead):
        return
    fmt = decompose(lead, trump_order)
    assert sorted(c.index for c in fmt.cards) == sorted(c.index for c in lead)
    assert all(u.suit == fmt.suit for u in fmt.units)


@settings(max_examples=200, deadline=None)
@given(situations())
def test_throw_forced_play_comes_from_the_lead(
    sit: tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]],
) -> None:
    trump_order, lead, _, others = sit
    if not _valid_lead(trump_order, lead):
        return
    res = check_throw(lead, others, trump_order)
    if res.ok:
        return
    assert res.penalty_cards == len(lead)
    left = list(lead)
    for c in res.forced:
        left.remove(c)
    assert _valid_lead(trump_order, list(res.forced)) and not decompose(list(res.forced), trump_order).is_throw


@settings(max_examples=200, deadline=None)
@given(situations())
def test_trick_winner_plays_a_legal_trick(sit: tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]]) -> None:
    """A trick of legal follows has a winner; a ``TrickState`` judges each next play as the whole trick does."""
    trump_order, lead, _, others = sit
    if not _valid_lead(trump_order, lead):
        return
    plays = [lead]
    for hand in others:
        if len(hand) < len(lead):
            return
        state = trick_state(plays, trump_order)
        for cand in itertools.islice(FollowRule(lead, hand, trump_order).legal_plays(), 30):
            assert state.wins_with(cand) == (resolve_trick([*plays, cand], trump_order).winner == len(plays))
        plays.append(list(next(FollowRule(lead, hand, trump_order).legal_plays())))
    res = resolve_trick(plays, trump_order)
    assert 0 <= res.winner < 4
    assert res.points == sum(c.points for p in plays for c in p)


@given(st.lists(st.sampled_from(Card.ALL), max_size=30))
def test_notation_round_trip(cards: list[Card]) -> None:
    text = format_cards(cards)
    assert parse_cards(text) == cards
    assert format_cards(parse_cards(text.lower())) == text
    assert format_cards(parse_cards(text.replace("T", "10"))) == text


@settings(max_examples=300, deadline=None)
@given(situations(), st.booleans())
def test_cached_decomposition_equals_a_fresh_one(
    sit: tuple[TrumpOrder, list[Card], list[Card], list[list[Card]]], lead: bool
) -> None:
    """``decompose`` answers from the trump order's cache exactly what a fresh decomposition gives."""
    trump_order, cards, follower, _ = sit
    for sample in (cards, follower[:5], cards + follower[:2]):
        try:
            fresh: Format | str = _decompose(sample, trump_order, lead)
        except PlayError as exc:
            fresh = str(exc)
        for _ in range(2):  # the first call may fill the cache, the second reads it
            try:
                got: Format | str = decompose(sample, trump_order, lead=lead)
            except PlayError as exc:
                got = str(exc)
            assert got == fresh
