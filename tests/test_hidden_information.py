"""Whole-hand fidelity and hidden information (RULES §9.5, §10.3, §10.5, §11.5).

Targeted cases for who is asked to fry, what dark bids tell their makers, how a hand is
sorted while trump is hidden, unordered frying, showing 5h 5h and a no-bid kitty; then
property tests over random whole hands of every preset: no view shows what its seat may
not see, and every refused operation, in every phase, leaves the hand as it was.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import conftest
from chaodipi.bidding import classify_bid
from chaodipi.cards import Card, Rank, Suit, parse_cards
from chaodipi.driver import run_hand
from chaodipi.hand import Action, Event, Hand, IllegalActionError, Legal, Phase, View
from chaodipi.rules import PRESET_NAMES, FryVisibility, NoBidTrump, RuleSet
from chaodipi.settlement import Progress
from chaodipi.simulate import RandomPolicy
from chaodipi.trump import TrumpOrder
from conftest import soak

P = parse_cards


def new_hand(spec: str | dict[str, object], hands: dict[int, str], kitty: str = "", **kw: Any) -> Hand:
    """conftest.new_hand at level 8 (both sides)."""
    kw.setdefault("level", Rank.EIGHT)
    return conftest.new_hand(spec, hands, kitty, **kw)


def buried(spec: str | dict[str, object], hands: dict[int, str], bids: list[tuple[int, str]], **kw: Any) -> Hand:
    """A hand dealt, with ``bids`` made, bidding closed and the kitty buried by the dealer."""
    hand = new_hand(spec, hands, **kw)
    hand.deal_all()
    for seat, cards in bids:
        hand.bid(seat, P(cards))
    hand.close_bidding()
    assert hand.dealer is not None
    hand.bury(hand.dealer, non_level(hand, hand.dealer))
    return hand


def asked_until_first_fry(hand: Hand) -> list[int]:
    """Pass for everyone asked until frying ends; the seats asked, in order."""
    asked = []
    while hand.phase == Phase.FRY:
        assert hand.fry_next is not None
        asked.append(hand.fry_next)
        hand.pass_fry(hand.fry_next)
    return asked


def non_level(hand: Hand, seat: int) -> list[Card]:
    return [c for c in hand.hands[seat] if c.rank != Rank.EIGHT and c.suit is not None][:8]


# -- 1. who is asked to fry (RULES §10.3) --------------------------------------------------------
@pytest.mark.parametrize(("turns", "expected"), [("dealer_first", [1, 2, 3]), ("rotate", [1, 2, 3])])
def test_dark_first_hand_the_dealer_holds_the_standing_bid(turns: str, expected: list[int]) -> None:
    # 0's spades stand; 1's clubs bid is void (anchao: C<D<S<H) but the table saw 1 bid last.
    # The table knows the dealer holds the standing bid: 1 is asked, the dealer is not.
    spec = {"preset": "anchao", "set": {"fry_turns": turns}}
    hand = buried(spec, {0: "8s 8s", 1: "8c 8c"}, [(0, "8s 8s"), (1, "8c 8c")], dealer=None)
    assert hand.dealer == 0 and hand.standing_holder() == 0
    assert asked_until_first_fry(hand) == expected


def test_dark_later_hand_the_last_bidder_as_the_table_saw_it_holds() -> None:
    spec = {"preset": "anchao", "set": {"fry_turns": "rotate"}}
    # 1's bid is void, but in a later hand nothing tells the table so
    hand = buried(spec, {0: "8s 8s", 1: "8c 8c"}, [(0, "8s 8s"), (1, "8c 8c")])
    assert hand.standing_holder() == 1
    assert asked_until_first_fry(hand) == [2, 3, 0]


def test_dealer_first_keeps_the_dealer_out_of_the_first_round() -> None:
    # kangqi (open, dealer_first): dealer 0, the standing bid is 1's. Before any fry the dealer
    # is not asked (庄家在第一次有主对也不能炒); 2 and 3 pass and frying ends.
    hand = buried("kangqi", {0: "8s 8s", 1: "8c 8c"}, [(1, "8c 8c")])
    assert asked_until_first_fry(hand) == [2, 3]


def test_dealer_first_asks_the_dealer_first_after_a_fry() -> None:
    hand = buried("kangqi", {0: "8s 8s", 1: "8c 8c", 2: "8h 8h"}, [(1, "8c 8c")])
    assert hand.fry_next == 2
    hand.fry(2, P("8h 8h"))
    hand.bury(2, non_level(hand, 2))
    assert hand.fry_next == 0  # now the dealer is asked first
    hand.fry(0, P("8s 8s"))
    hand.bury(0, non_level(hand, 0))
    assert asked_until_first_fry(hand) == [1, 2, 3]  # the dealer holds the bid now


# -- 2. dark validity is hidden from everyone until frying ends (RULES §10.5) ---------------------
def test_a_void_dark_bid_tells_its_maker_nothing() -> None:
    hand = new_hand("anchao", {0: "8s 8s", 1: "8c 8c"}, dealer=0)
    hand.deal_all()
    hand.bid(0, P("8s 8s"))
    ev = hand.bid(1, P("8c 8c"))
    assert ev.kind == "bid" and not hand.bid_log[-1][2]
    mine = hand.view(1)
    assert mine.bids[1].to_json() == {"player": 1, "fry": False, "cards": "8c 8c"}  # no "valid"
    assert mine.bids[0].to_json() == {"player": 0, "fry": False}
    assert all(e.kind != "bid_void" for e in hand.log if isinstance(e, Event))
    others = [e for e in hand.view(2).events if e.kind == "bid"]
    assert [(e.player, e.cards, e.detail) for e in others] == [(0, (), ""), (1, (), "")]


def test_a_failed_dark_fry_is_known_only_when_frying_ends() -> None:
    hand = buried("anchao", {0: "8s 8s", 2: "8c 8c"}, [(0, "8s 8s")])
    hand.pass_fry(1)
    hand.fry(2, P("8c 8c"))  # clubs under spades: this fry fails
    hand.bury(2, non_level(hand, 2))
    v = hand.view(2)
    assert v.bids[1].valid is None and v.points == 0
    assert all(e.kind != "fry_failed" for e in v.events)
    asked_until_first_fry(hand)
    v = hand.view(2)
    assert v.bids[1].valid is False and v.points == 80
    assert [e.kind for e in v.events if e.kind == "fry_failed"] == ["fry_failed"]


# -- 3. a dark hand's order is what the seat knows ----------------------------------------------
def test_dark_hand_order_does_not_follow_the_hidden_trump() -> None:
    hand = new_hand("anchao", {0: "8s 8s", 1: "8d 8d", 2: "Ah Kh Qh Jh"}, dealer=0)
    hand.deal_all()
    hand.bid(0, P("8s 8s"))
    hand.bid(1, P("8d 8d"))
    hand.close_bidding()
    rules, level = hand.rules, Rank.EIGHT
    for phase_hand in (hand,):
        for seat, trump in ((0, Suit.SPADES), (1, Suit.DIAMONDS), (2, None), (3, None)):
            expected = TrumpOrder.of(rules, level, trump).sorted(phase_hand.hands[seat])
            assert list(phase_hand.view(seat).hand) == expected, seat
    hand.bury(0, non_level(hand, 0))
    assert list(hand.view(2).hand) == TrumpOrder.of(rules, level, None).sorted(hand.hands[2])
    asked_until_first_fry(hand)
    assert hand.phase == Phase.PLAY
    assert list(hand.view(2).hand) == hand.trump_order.sorted(hand.hands[2])  # announced at play


# -- 4. unordered dark frying (institute2023) ---------------------------------------------------
def test_unordered_no_one_overrides_their_own_last_bid() -> None:
    hand = new_hand("institute2023", {0: "8s 8s 8d 8d", 1: "8c"}, dealer=0)
    hand.deal_all()
    hand.bid(0, P("8s 8s"))
    with pytest.raises(IllegalActionError, match="不得自反"):
        hand.bid(0, P("8d 8d"))
    assert len(hand.bid_log) == 1


def test_unordered_a_single_may_still_be_reinforced() -> None:
    hand = new_hand("institute2023", {1: "8c 8c"}, dealer=0)
    hand.deal_all()
    hand.bid(1, P("8c"))
    hand.bid(1, P("8c 8c"))  # 自保 (RULES §9.3)
    assert hand.standing is not None and hand.standing.cards == (Card.parse("8c"),) * 2


def test_unordered_only_the_last_fry_is_shown_after_the_first_trick() -> None:
    hand = buried("institute2023", {0: "8s 8s", 1: "8d 8d"}, [(0, "8s 8s")])
    hand.fry(1, P("8d 8d"))
    hand.bury(1, non_level(hand, 1))
    asked_until_first_fry(hand)
    assert [b.cards for b in hand.view(2).bids] == [None, None]
    deciders = [RandomPolicy(random.Random(1)).decide] * 4
    run_hand(hand, deciders, until=lambda h: bool(h.tricks))
    bids = hand.view(2).bids
    assert bids[0].cards is None and bids[0].valid is None  # never revealed
    assert bids[1].cards == tuple(P("8d 8d"))
    assert hand.view(0).bids[0].cards == tuple(P("8s 8s"))  # one's own
    run_hand(hand, deciders)
    assert hand.view(2).bids[0].cards is None


# -- 5. showing 5h 5h before a flag hand (RULES §11.5) ------------------------------------------
def test_show_red5_is_offered_to_scoring_holders_whoever_is_to_act() -> None:
    hand = new_hand("institute2023", {1: "5h 5h", 0: "Ah"}, dealer=0, flag=True)
    hand.deal_all()
    assert hand.phase == Phase.PLAY and hand.to_act() == 0
    assert hand.view(1).legal == Legal(show_red5=True)
    assert not hand.view(0).legal.show_red5 and not hand.view(3).legal.show_red5
    hand.show_red5(1)
    assert not hand.view(1).legal
    hand2 = new_hand("institute2023", {3: "5h 5h", 0: "Ah"}, dealer=0, flag=True)
    hand2.deal_all()
    hand2.play(0, P("Ah"))
    assert not hand2.view(3).legal.show_red5  # once the first card is played


# -- 6. a no-bid hand's kitty (RULES §9.5) -------------------------------------------------------
@pytest.mark.parametrize(
    ("preset", "kitty", "shown"),
    [
        ("standard", "3c SJ 8d 4h 5h 6s 7s 9c", "3c SJ"),
        ("standard", "3c 4c 6d 4h 5h 6s 7s 8d", "3c 4c 6d 4h 5h 6s 7s 8d"),
        ("standard", "3c 4c 6d 4h 5h 6s 7s 9c", "3c 4c 6d 4h 5h 6s 7s 9c"),  # fallback: all eight
        ("contest2021", "3c SJ 8d 4h 5h 6s 7s 9c", "3c"),
        ("institute2023", "3c SJ 8d 4h 5h 6s 7s 9c", "3c SJ 8d"),
        ("institute2023", "3c SJ 9d 4h 5h 6s 7s 9c", "3c SJ 9d 4h 5h 6s 7s 9c"),  # highest card
    ],
)
def test_no_bid_kitty_shows_the_cards_up_to_the_deciding_one(preset: str, kitty: str, shown: str) -> None:
    hand = new_hand(preset, {}, kitty, dealer=1)
    hand.deal_all()
    hand.close_bidding()
    for seat in range(4):
        evs = [e for e in hand.view(seat).events if e.kind == "kitty_trump"]
        assert [e.cards for e in evs] == [tuple(P(shown))]


# -- 7. refused operations change nothing ---------------------------------------------------------
def attributes(obj: object) -> dict[str, object]:
    """An object's attributes: its vars(), or in the compiled build (make fast), which keeps them
    outside any __dict__, the attributes its class names."""
    names = getattr(type(obj), "__mypyc_attrs__", None)
    if names is None:
        return dict(vars(obj))
    return {k: getattr(obj, k) for k in names if hasattr(obj, k)}


def snapshot(hand: Hand) -> dict[str, str]:
    """Everything a hand holds, as text (the trump order by its level and trump)."""
    state = {k: repr(v) for k, v in attributes(hand).items() if k != "to" and k not in Hand.CACHE_FIELDS}
    state["to"] = repr((hand.trump_order.level, hand.trump_order.trump, hand.trump_order.flag))
    return state


def test_apply_during_the_deal_refuses_before_dealing() -> None:
    hand = new_hand("standard", {0: "8s"}, dealer=0)
    for _ in range(10):
        hand.deal_card()
    before = snapshot(hand)
    for make in (
        lambda: Action.play(0, P("3c")),
        lambda: Action.bury(0, P("3c") * 8),
        lambda: Action.pass_fry(1),
        lambda: Action.fry(1, P("8c 8c")),
        lambda: Action.show_red5(1),
        lambda: Action.bid(0, P("8s"), at=5),  # in the past
        lambda: Action.bid(1, P("BJ BJ"), at=100),  # not held then
        lambda: Action.bid(0, P("8s"), at=101),  # beyond the deal
        lambda: Action("bid", None, tuple(P("8s"))),  # type: ignore[arg-type]
        lambda: Action("deal", 0),  # type: ignore[arg-type]
    ):
        with pytest.raises(IllegalActionError):
            hand.apply(make())
        assert snapshot(hand) == before, make
    hand.apply(Action("bid", 0, tuple(P("8s")), at=100))  # dealt to 100, then the bid
    assert hand.dealt == 100 and hand.standing is not None


def test_flag_hand_refuses_bids_without_assertions() -> None:
    hand = new_hand("kangqi", {1: "BJ BJ"}, dealer=0, flag=True)
    hand.deal_card()
    hand.deal_card()
    assert not hand.can_bid(1, P("BJ"))
    with pytest.raises(IllegalActionError, match="flag hand"):
        hand.bid(1, P("BJ"))
    with pytest.raises(IllegalActionError, match="flag hand"):
        hand.verify_bid(1, P("BJ"))
    before = snapshot(hand)
    with pytest.raises(IllegalActionError):
        hand.apply(Action("play", 1, tuple(P("BJ"))))  # not the leader
    assert snapshot(hand) == before
    hand.apply(Action("play", 0, (hand.deck[0],)))  # deals the rest, then the dealer leads
    assert hand.dealt == 108 and len(hand.current) == 1


# -- property tests over random whole hands -------------------------------------------------------
def random_hand(preset: str, rng: random.Random) -> Hand:
    """A hand at a random point of a game: first or later hand, any level, sometimes a flag hand."""
    rules = RuleSet.preset(preset)
    deck = [c for c in Card.ALL for _ in (0, 1)]
    rng.shuffle(deck)
    level = Rank(rng.randint(2, 14))
    dealer: int | None = rng.randrange(4)
    first_seat = dealer
    dealer_progress, scoring_progress = Progress(1, level), Progress(1, Rank(rng.randint(2, 14)))
    if rules.flag and rng.random() < 0.15:
        dealer_progress = Progress(rules.circles, None)  # 扛旗
    elif rng.random() < 0.4:
        dealer, first_seat, scoring_progress = None, rng.randrange(4), dealer_progress  # the first hand
    return Hand(
        rules,
        deck,
        first_seat=first_seat,
        dealer=dealer,
        dealer_progress=dealer_progress,
        scoring_progress=scoring_progress,
    )


def drive(hand: Hand, rng: random.Random, step: Callable[[Hand], None]) -> None:
    """Play the hand with random legal actions (bids during the deal too), calling ``step`` after each."""
    policy = RandomPolicy(rng, bid_chance=0.6, fry_chance=0.5)

    def after(h: Hand) -> None:
        if h.phase != Phase.DEAL or h.dealt % 9 == 0 or (isinstance(h.log[-1], Event) and h.log[-1].kind != "dealt"):
            step(h)

    step(hand)
    run_hand(hand, [policy.decide] * 4, after=after)
    step(hand)


PUBLIC_CARD_EVENTS = {
    "played",
    "throw_failed",
    "kitty_trump",
    "frying_over",
    "bid_shown",
    "red5_shown",
    "forced_red5",
    "kept_red5",
    "fry_failed",
    "kou_di",
    "kitty_shown",
}
OWN_CARD_EVENTS = {"dealt", "kitty_taken", "buried"}


def own_trump(hand: Hand, seat: int) -> Suit | str | None:
    """The trump of the seat's own last bid or fry, from the bid history (the test's oracle)."""
    own = [bid for player, bid, _, _ in hand.bid_log if player == seat]
    if not own:
        return "?"
    assert hand.bidding is not None
    return classify_bid(own[-1].cards, hand.bidding.level, own[-1].choose).trump


def check_view(hand: Hand, seat: int, view: View) -> None:
    rules = hand.rules
    dark = rules.fry_visibility == FryVisibility.DARK
    unordered = rules.bid_order.unordered
    before_play = hand.phase in (Phase.DEAL, Phase.COUNTDOWN, Phase.BURY, Phase.FRY)
    # the seat's own cards, and nobody else's
    assert Counter(view.hand) == Counter(hand.hands[seat])
    if view.kitty is not None:
        assert hand.kitty_holder == seat or hand.phase == Phase.OVER
    for e in view.events:
        if e.player == seat:
            continue
        assert e.kind not in OWN_CARD_EVENTS, e
        if e.kind in ("bid", "fried"):
            assert not dark or (not e.cards and not e.detail), e
        elif e.cards:
            assert e.kind in PUBLIC_CARD_EVENTS, e
    for e in view.events:
        if e.kind == "kitty_trump":
            mode = rules.no_bid_trump
            level = hand.level
            deciding = [c for c in e.cards if c.suit is not None and c.rank == level]
            if mode == NoBidTrump.FIRST_CARD:
                assert len(e.cards) == 1
            elif deciding or (mode == NoBidTrump.FIRST_LEVEL_CARD and any(c.suit is None for c in e.cards)):
                assert e.cards[-1] in deciding or e.cards[-1].suit is None
                assert len(deciding) <= 1
    # dark bids: others' cards and everyone's validity hidden until frying ends
    for k, entry in enumerate(view.bids):
        if not dark:
            continue
        last = k == len(view.bids) - 1
        revealed = not before_play and (not unordered or (hand.tricks and last))
        if entry.player != seat and not revealed:
            assert entry.cards is None and entry.valid is None, entry
        if not revealed:
            assert entry.valid is None, entry
    if dark and before_play and not hand.kitty_trump_used and not hand.flag:
        assert view.trump is None
        known = own_trump(hand, seat)
        level = hand.level
        assert level is not None
        trump = known if isinstance(known, Suit) else None
        assert list(view.hand) == TrumpOrder.of(rules, level, trump).sorted(hand.hands[seat])
    if not before_play and not hand.flag:
        assert list(view.hand) == hand.trump_order.sorted(hand.hands[seat])


@pytest.mark.slow
@settings(max_examples=soak(30, 600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32))
def test_no_view_shows_what_its_seat_may_not_see(preset: str, seed: int) -> None:
    rng = random.Random(seed)
    hand = random_hand(preset, rng)

    def step(h: Hand) -> None:
        for seat in range(4):
            view = h.view(seat, legal=seat == h.to_act())
            check_view(h, seat, view)
            assert View.from_json(json.loads(json.dumps(view.to_json()))) == view  # the wire form is exact

    drive(hand, rng, step)


def random_operations(hand: Hand, rng: random.Random) -> list[tuple[str, Callable[[], Any]]]:
    """Operations of every kind with random (mostly illegal) arguments."""
    everything = [c for c in Card.ALL for _ in (0, 1)]
    players: list[Any] = [0, 1, 2, 3, -1, 4, True, None]
    ops: list[tuple[str, Callable[[], Any]]] = []
    for _ in range(2):
        p = rng.choice(players)
        own = hand.hands[p] if isinstance(p, int) and 0 <= p <= 3 else []
        pick = rng.sample(own, min(len(own), rng.choice([1, 2, 3, 8]))) if own and rng.random() < 0.7 else []
        cards = tuple(pick or rng.sample(everything, rng.choice([0, 1, 2, 8])))
        choose = rng.choice([None, "s", "nt", "x", ""])
        ops += [
            ("bid", lambda p=p, c=cards, ch=choose: hand.bid(p, c, ch)),
            ("fry", lambda p=p, c=cards, ch=choose: hand.fry(p, c, ch)),
            ("bury", lambda p=p, c=cards: hand.bury(p, c)),
            ("pass", lambda p=p: hand.pass_fry(p)),
            ("play", lambda p=p, c=cards: hand.play(p, c)),
            ("show_red5", lambda p=p: hand.show_red5(p)),
            ("close", hand.close_bidding),
            ("view", lambda p=p: hand.view(p)),
            (
                "apply",
                lambda p=p, c=cards, ch=choose: hand.apply(
                    Action(
                        rng.choice(["bid", "fry", "bury", "pass", "play", "show_red5", "close", "nope"]),
                        p,
                        c,
                        ch,
                        rng.choice([None, hand.dealt, hand.dealt + 3, 200, -1]),
                    )
                ),
            ),
        ]
    if hand.phase != Phase.DEAL:
        ops.append(("deal", hand.deal_card))
    return ops


@pytest.mark.slow
@settings(max_examples=soak(15, 300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32))
def test_every_refused_operation_leaves_the_hand_as_it_was(preset: str, seed: int) -> None:
    rng = random.Random(seed)
    hand = random_hand(preset, rng)
    refused: Counter[str] = Counter()

    def step(h: Hand) -> None:
        if h.phase == Phase.PLAY and h.tricks and rng.random() < 0.8:
            return  # every phase is tried; most tricks are alike
        for name, op in random_operations(h, rng):
            before = snapshot(h)
            try:
                op()
            except IllegalActionError:
                assert snapshot(h) == before, name
                refused[name] += 1
                continue
            if snapshot(h) != before:
                # an accepted operation: undo it by starting again is not possible, so stop trying here
                return

    drive(hand, rng, step)
    assert refused  # the operations were tried and refused
