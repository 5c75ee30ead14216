"""The facts a view carries so that a client needs no rule (issue 19): the hand's threshold, the cards that
are trump as the seat knows it, each card's points, the teams, the sides and the partner.

They are worked out from the view's own public fields (rules, level, the trump as the seat knows it,
dealer, seat): never from a hand, the kitty or a trump hidden from the seat.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from chaodipi.cards import Card, Rank, Suit
from chaodipi.driver import run_hand
from chaodipi.hand import Hand
from chaodipi.levels import Side
from chaodipi.log import Event
from chaodipi.rules import PRESET_NAMES, FryVisibility, RuleSet
from chaodipi.settlement import Progress
from chaodipi.simulate import RandomPolicy
from chaodipi.trump import TrumpOrder
from chaodipi.view import CARD_POINTS, TEAMS, Phase, View, hand_threshold

FACTS = ("threshold", "trumps", "card_points", "teams", "sides", "partner")


def facts(view: View) -> dict[str, Any]:
    out = view.to_json()
    return {k: out[k] for k in FACTS}


def blind(view: View) -> View:
    """The view with every card it shows taken away (hand, kitty, bids, tricks, events, legal actions)."""
    return dataclasses.replace(
        view, hand=(), kitty=None, bids=(), current_trick=(), tricks=(), events=(), legal=type(view.legal)()
    )


def a_hand(preset: str, rng: random.Random, *, flag: bool = False, first: bool = False) -> Hand:
    rules = RuleSet.preset(preset)
    deck = [c for c in Card.ALL for _ in (0, 1)]
    rng.shuffle(deck)
    level = Rank(rng.randint(2, 14))
    dealer = rng.randrange(4)
    dealer_progress = Progress(rules.circles, None) if flag else Progress(1, level)
    if first:
        return Hand(
            rules,
            deck,
            first_seat=dealer,
            dealer=None,
            dealer_progress=dealer_progress,
            scoring_progress=dealer_progress,
        )
    return Hand(
        rules,
        deck,
        first_seat=dealer,
        dealer=dealer,
        dealer_progress=dealer_progress,
        scoring_progress=Progress(1, Rank(rng.randint(2, 14))),
    )


def check(hand: Hand) -> None:
    """Every seat's facts against the hand (the test's oracle) and against what the seat may know."""
    dark = hand.rules.fry_visibility is FryVisibility.DARK
    for seat in range(4):
        view = hand.view(seat, legal=False)
        assert view.threshold == hand.threshold
        assert facts(blind(view)) == facts(view), "the facts depend on no card the view shows"
        trumps = set(view.trumps)
        assert len(trumps) == len(view.trumps)
        order = view.trump_order()
        assert trumps == {c for c in Card.ALL if order.is_trump(c)}
        assert list(view.trumps) == order.sorted(view.trumps)
        if hand.flag:
            assert trumps == {Card.parse("5h"), Card.parse("BJ"), Card.parse("SJ")}
        elif hand.phase in (Phase.PLAY, Phase.OVER):
            real = hand.trump_order
            assert trumps == {c for c in Card.ALL if real.is_trump(c)}
        elif view.trump is None:
            # hidden (a dark game) or nobody bid yet: only what is trump whatever the trump will be
            assert hand.level is not None
            assert trumps == {c for c in Card.ALL if c.is_joker or c.rank == hand.level or str(c) == "5h"}
            if dark and hand.trump is not None and not hand.kitty_trump_used:
                assert not any(c.suit == hand.trump and c.rank != hand.level and str(c) != "5h" for c in trumps)
        assert view.to_json()["card_points"] == {str(c): c.points for c in Card.ALL if c.points}
        assert view.partner == (seat + 2) % 4 and TEAMS[view.partner] == TEAMS[seat]
        if hand.dealer is None:
            assert view.sides is None
        else:
            sides = view.sides
            assert sides is not None
            assert sides[hand.dealer] is Side.DEALER and sides[(hand.dealer + 2) % 4] is Side.DEALER
            assert sides[(hand.dealer + 1) % 4] is Side.SCORING and sides[(hand.dealer + 3) % 4] is Side.SCORING
            assert [s.value for s in sides] == view.to_json()["sides"]
        assert View.from_json(json.loads(json.dumps(view.to_json()))) == view


def play(hand: Hand, rng: random.Random) -> None:
    policy = RandomPolicy(rng, bid_chance=0.6, fry_chance=0.5)

    def after(h: Hand) -> None:
        if h.phase != Phase.DEAL or (isinstance(h.log[-1], Event) and h.log[-1].kind != "dealt") or h.dealt % 13 == 0:
            check(h)

    check(hand)
    run_hand(hand, [policy.decide] * 4, after=after)
    check(hand)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_seat_s_facts_through_a_hand(preset: str) -> None:
    for seed in range(2):
        rng = random.Random(f"{preset}-{seed}")
        play(a_hand(preset, rng, first=seed == 0), rng)


@pytest.mark.parametrize("preset", [p for p in PRESET_NAMES if RuleSet.preset(p).flag])
def test_a_flag_hand_s_facts(preset: str) -> None:
    rng = random.Random(preset)
    hand = a_hand(preset, rng, flag=True)
    assert hand.flag
    play(hand, rng)
    view = hand.view(0)
    assert view.threshold == RuleSet.preset(preset).flag_threshold == hand_threshold(hand.rules, flag=True)
    assert view.to_json()["trumps"] == "5h BJ SJ"


def test_threshold_follows_the_rules() -> None:
    rules = RuleSet.preset("kangqi").with_options({"flag_threshold": 120})
    assert hand_threshold(rules, flag=True) == 120
    assert hand_threshold(rules, flag=False) == 80


def test_the_trump_cards_as_known_strongest_first() -> None:
    rules = RuleSet.preset("standard")
    hand = a_hand("standard", random.Random(1))
    view = dataclasses.replace(hand.view(0), level="7", trump="s")
    text = view.to_json()["trumps"]
    assert text.split()[:3] == ["5h", "BJ", "SJ"]
    assert set(text.split()) == {str(c) for c in Card.ALL if TrumpOrder.of(rules, Rank.SEVEN, Suit.SPADES).is_trump(c)}
    assert "7s" in text and "As" in text and "Ah" not in text
    nt = dataclasses.replace(view, trump="nt").to_json()["trumps"]
    assert nt == dataclasses.replace(view, trump=None).to_json()["trumps"]
    assert set(nt.split()) == {"5h", "BJ", "SJ", "7s", "7h", "7c", "7d"}


def test_card_points() -> None:
    assert {f"{r}{s}": {"5": 5, "T": 10, "K": 10}[r] for r in "5TK" for s in "shcd"} == CARD_POINTS
