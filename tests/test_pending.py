"""Hand.pending(): who must decide now, what, and the time limit by the rules (issue 19)."""

from __future__ import annotations

import random

import pytest

from chaodipi.cards import Rank, shuffled_deck
from chaodipi.hand import DecisionKind, Hand
from chaodipi.levels import Progress
from chaodipi.log import Action, ActionKind
from chaodipi.rules import RuleSet
from chaodipi.simulate import RandomPolicy
from chaodipi.view import Phase


@pytest.mark.parametrize("preset", ["standard", "anchao", "kangqi", "mingchao"])
def test_pending_follows_the_phase_and_the_rules(preset: str) -> None:
    rules = RuleSet.preset(preset)
    hand = Hand(rules, shuffled_deck(random.Random(5)), first_seat=1, dealer=1)
    policy = RandomPolicy(random.Random(5))
    numbers: list[int] = []
    while hand.phase not in (Phase.OVER, Phase.REDEAL):
        pending = hand.pending()
        if hand.phase is Phase.DEAL:
            assert pending is None  # a chance step: nobody's decision
            hand.deal_card()
            continue
        assert pending is not None
        expected = {
            Phase.COUNTDOWN: (DecisionKind.DECLARE, rules.declare_seconds, None),
            Phase.BURY: (DecisionKind.BURY, rules.bury_seconds, hand.to_act()),
            Phase.FRY: (DecisionKind.FRY, rules.fry_seconds, hand.to_act()),
            Phase.PLAY: (DecisionKind.PLAY, rules.play_seconds, hand.to_act()),
        }[hand.phase]
        assert (pending.kind, pending.seconds, pending.seat) == expected
        # the decision's number: every action so far but leaves and shows of 5h 5h
        ended = [a for a in hand.actions if a.kind not in (ActionKind.LEAVE, ActionKind.SHOW_RED5)]
        assert pending.number == len(ended)
        numbers.append(pending.number)
        if pending.kind is DecisionKind.DECLARE:
            assert pending.offered == tuple(s for s in range(4) if hand.possible_bids(s))
            hand.apply(Action.close())
            continue
        assert pending.seat is not None
        action = policy.decide(hand, pending.seat)
        assert action is not None
        hand.apply(action)
    assert hand.pending() is None
    assert numbers == sorted(numbers)


def test_a_leave_ends_no_decision() -> None:
    hand = Hand(RuleSet.preset("anchao"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
    hand.deal_all()
    before = hand.pending()
    hand.leave(2)
    after = hand.pending()
    assert before is not None and after is not None
    assert after.number == before.number and after.kind is DecisionKind.DECLARE


def test_a_flag_hand_offers_the_show_of_red5() -> None:
    rules = RuleSet.preset("kangqi").with_options({"double_red5": True})
    for seed in range(40):
        hand = Hand(
            rules,
            shuffled_deck(random.Random(seed)),
            first_seat=0,
            dealer=0,
            dealer_progress=Progress(1, None),
            scoring_progress=Progress(1, Rank.ACE),
        )
        hand.deal_all()
        pending = hand.pending()
        if pending is None or pending.kind is not DecisionKind.PLAY:
            continue
        shows = tuple(s for s in range(4) if s != pending.seat and hand.can_show_red5(s))
        assert pending.offered == shows
        if shows:
            return
    pytest.skip("no seed in 0..39 deals a scoring player 5h 5h")
