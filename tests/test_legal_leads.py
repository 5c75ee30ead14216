"""The view's legal leads say what may be led together (issue 20): ``leads`` lists every single unit, and
``throw_groups`` the seat's cards of each effective suit (trumps one group), any of which may be led at once
as a throw 甩牌. The table page lights a card when the selection with it is inside one listed lead or one
group; here the groups are checked against the engine's own lead check (:meth:`Hand.can_play`).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from chaodipi.cards import Card, parse_cards
from chaodipi.driver import run_hand
from chaodipi.hand import Hand, Phase
from chaodipi.rules import PRESET_NAMES
from chaodipi.simulate import RandomPolicy
from chaodipi.view import Legal
from test_view_facts import a_hand


def _inside(big: Sequence[Card], small: Sequence[Card]) -> bool:
    """Whether ``small`` is a sub-multiset of ``big``."""
    need = Counter(small)
    have = Counter(big)
    return all(have[c] >= n for c, n in need.items())


def _check_lead(hand: Hand, seat: int, rng: random.Random) -> int:
    """The leader's ``throw_groups`` against the engine; returns the number of selections checked."""
    legal = hand.view(seat).legal
    assert legal.leads and legal.can_throw
    held = list(hand.hands[seat])
    order = hand.trump_order
    groups = legal.throw_groups
    # the groups: each one effective suit, two cards or more, no suit twice, together inside the hand
    suits = [order.effective[g[0].index] for g in groups]
    assert len(set(suits)) == len(suits)
    for g, suit in zip(groups, suits, strict=True):
        assert len(g) >= 2 and all(order.effective[c.index] == suit for c in g)
        assert Counter(g) == Counter(c for c in held if order.effective[c.index] == suit), "a group is all its suit"
    assert _inside(held, [c for g in groups for c in g])
    checked = 0
    # every selection a group allows is a lead the engine takes
    for g in groups:
        assert hand.can_play(seat, g)
        for _ in range(12):
            k = rng.randint(1, len(g))
            pick = rng.sample(list(g), k)
            assert hand.can_play(seat, pick), f"{' '.join(map(str, pick))} is inside a group but refused"
            checked += 1
    # every listed lead is taken too
    for lead in legal.leads:
        assert hand.can_play(seat, lead)
        checked += 1
    # two cards of two groups, not inside one listed lead: refused
    for a, b in itertools.pairwise(groups):
        for _ in range(4):
            pick = [rng.choice(a), rng.choice(b)]
            if any(_inside(lead, pick) for lead in legal.leads):
                continue
            assert not hand.can_play(seat, pick), f"{pick} crosses two groups and is taken"
            checked += 1
    # what the page dims once one card is selected: a card that joins it in no listed lead and no group;
    # the two together are no lead the engine takes
    sel = [rng.choice(held)]
    for card in set(held):
        cand = [*sel, card]
        if not _inside(held, cand):
            continue
        lit = any(_inside(lead, cand) for lead in legal.leads) or any(_inside(g, cand) for g in groups)
        if not lit:
            assert not hand.can_play(seat, cand), f"{cand} is dimmed but the engine takes it"
        checked += 1
    return checked


def _leads_checked(hand: Hand, rng: random.Random) -> int:
    """Play ``hand`` out with random legal actions, checking every lead on the way; the selections checked."""
    policy = RandomPolicy(rng, bid_chance=0.6, fry_chance=0.5)
    seen: set[int] = set()
    checked = 0

    def after(h: Hand) -> None:
        nonlocal checked
        seat = h.to_act()
        if h.phase is Phase.PLAY and not h.current and seat is not None and len(h.log) not in seen:
            seen.add(len(h.log))
            checked += _check_lead(h, seat, rng)

    run_hand(hand, [policy.decide] * 4, after=after)
    return checked


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_throw_groups_agree_with_the_engine(preset: str) -> None:
    rng = random.Random(f"legal-leads-{preset}")
    assert sum(_leads_checked(a_hand(preset, rng), rng) for _ in range(3)) > 100


def test_the_groups_are_in_the_wire_form_and_read_back() -> None:
    legal = Legal(
        leads=(tuple(parse_cards("Ah")), tuple(parse_cards("Kh")), tuple(parse_cards("2c"))),
        can_throw=True,
        throw_groups=(tuple(parse_cards("Ah Kh")),),
    )
    wire = legal.to_json()
    assert wire == {"leads": ["Ah", "Kh", "2c"], "throws": True, "throw_groups": ["Ah Kh"]}
    assert Legal.from_json(wire) == legal
    assert Legal.from_json({"leads": ["Ah"], "throws": True}).throw_groups == ()


def test_only_the_leader_is_given_groups() -> None:
    rng = random.Random(7)
    hand = a_hand("standard", rng)
    policy = RandomPolicy(rng)
    followers: list[Legal] = []

    def after(h: Hand) -> None:
        seat = h.to_act()
        if h.phase is Phase.PLAY and h.current and seat is not None:
            followers.append(h.view(seat).legal)

    run_hand(hand, [policy.decide] * 4, after=after)
    assert followers and all(not f.throw_groups and not f.leads for f in followers)
