"""Bots: the view-only interface, legal play in every preset, strength sanity, the arena."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chaodipi.arena import run_arena, wilson
from chaodipi.bots import BotError, make_bot, run_hand
from chaodipi.bots.knowledge import Knowledge
from chaodipi.bots.rules_bot import play_out, ranked_plays
from chaodipi.bots.search_bot import SearchBot, _utility, best_weighed, points_so_far, rollout, sample_world
from chaodipi.cards import Rank, Suit, shuffled_deck
from chaodipi.driver import by_view
from chaodipi.driver import run_hand as drive
from chaodipi.hand import Action, Hand, Phase, View
from chaodipi.position import Position
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.settlement import Progress
from chaodipi.simulate import RandomPolicy
from test_position import IN_PLAY, in_play_at
from test_simulation import _allowed


def _hand(preset: str, seed: int) -> Hand:
    deck = shuffled_deck(random.Random(seed))
    return Hand(RuleSet.preset(preset), deck, first_seat=seed % 4, dealer=seed % 4)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("name", ["random", "rules"])
def test_bots_play_whole_hands_legally(preset: str, name: str) -> None:
    for seed in range(4):
        hand = run_hand(_hand(preset, seed), [make_bot(name, seed=seed * 4 + s) for s in range(4)])
        assert hand.phase == Phase.OVER and hand.result is not None


def test_search_bot_plays_a_whole_hand() -> None:
    bots = [make_bot("search", seed=s, budget=0.02, samples=2) for s in range(4)]
    hand = run_hand(_hand("anchao", 3), bots)
    assert hand.phase == Phase.OVER


class Spy:
    """Wraps a bot and checks that every call gets a View showing nothing hidden."""

    def __init__(self, inner: object, hand_ref: list[Hand], seat: int) -> None:
        self.inner = inner
        self.name = "spy"
        self.hand_ref = hand_ref
        self.seat = seat
        self.calls = 0

    def act(self, view: View) -> Action | None:
        assert type(view) is View and view.seat == self.seat
        hand = self.hand_ref[0]
        assert not (view.cards_seen() - _allowed(hand, self.seat))
        self.calls += 1
        return self.inner.act(view)  # type: ignore[attr-defined, no-any-return]


def test_search_bot_sees_only_its_view() -> None:
    hand = _hand("standard", 5)
    ref = [hand]
    spies = [Spy(make_bot("search", seed=s, budget=0.02, samples=2), ref, s) for s in range(4)]
    run_hand(hand, spies)
    assert hand.phase == Phase.OVER
    assert all(s.calls >= len(hand.tricks) > 0 for s in spies)  # asked at least once per trick


def test_search_decision_does_not_depend_on_hidden_cards() -> None:
    """Two worlds that look the same from seat 0 but differ in the others' cards: same decision."""
    rules = RuleSet.preset("standard")
    rng = random.Random(8)
    deck = shuffled_deck(rng)
    # the dealer's first lead: 25 cards each and the kitty it buried, all 108 (so that the bot samples worlds)
    mine = deck[:25]
    rest = deck[25:]
    hands_a = [mine, rest[0:25], rest[25:50], rest[50:75]]
    kitty = rest[75:]
    shuffled = rest[:75]
    random.Random(1).shuffle(shuffled)
    hands_b = [mine, shuffled[0:25], shuffled[25:50], shuffled[50:75]]
    kitty_b = kitty
    decisions = []
    for hands, kit in ((hands_a, kitty), (hands_b, kitty_b)):
        hand = Position.in_play(
            rules,
            hands=hands,
            kitty=kit,
            dealer=0,
            trump=Suit.HEARTS,
            leader=0,
            dealer_progress=Progress(1, Rank.SEVEN),
            captured=(0, 0),
        ).hand()
        bot = SearchBot(seed=4, budget=1000.0, samples=3)
        action = bot.act(hand.view(0))
        assert action is not None
        view = hand.view(0)
        know = Knowledge.from_view(view)
        cands = [
            p for _, p in ranked_plays(view.hand, 0, know.trump_order, rules, 0, (), know.unseen_cards(), know.voids)
        ]
        means, active = SearchBot(seed=4, budget=1000.0, samples=3).weigh_plays(view, know, cands[:3])
        decisions.append((action.cards, tuple(means), tuple(active)))
        # the play is the best weighed one, of the same candidates as act's (the rules bot's best, in its order)
        assert len(means) == 3 and active and best_weighed(means, active) in active
    assert decisions[0] == decisions[1]


def test_best_weighed_keeps_to_the_race_and_breaks_ties_by_the_rules_order() -> None:
    assert best_weighed([0.5, 0.9, 0.9], [0, 2]) == 2  # 1 left the race
    assert best_weighed([0.9, 0.9, 0.1], [0, 1, 2]) == 0
    assert best_weighed([0.1, 0.3000000001, 0.3], [0, 1, 2]) == 1  # means equal to 6 places: the earlier
    assert best_weighed([], []) == 0  # nothing sampled: the rules bot's best


def test_sampled_worlds_respect_voids_and_sizes() -> None:
    hand = _hand("standard", 2)
    # play until some tricks are done, then sample from seat 0's view
    _to_phase(hand, Phase.PLAY, tricks=8)
    view = hand.view(0)
    know = Knowledge.from_view(view)
    for k in range(20):
        world = sample_world(know, view, random.Random(k))
        assert world is not None
        hands, kitty = world
        assert [len(h) for h in hands] == list(view.hand_sizes)
        assert len(kitty) == (0 if view.kitty is not None else 8)
        for seat in (1, 2, 3):
            assert not any(know.trump_order.effective[c.index] in know.voids[seat] for c in hands[seat])


def test_bot_errors_name_the_seat() -> None:
    class Bad:
        name = "bad"

        def act(self, view: View) -> Action | None:
            if view.phase == Phase.PLAY:
                return Action("play", view.seat, tuple(view.hand[:2]) if len(view.hand) > 1 else ())
            return make_bot("rules").act(view)

    with pytest.raises(BotError, match="seat"):
        run_hand(_hand("standard", 1), [Bad(), Bad(), Bad(), Bad()])


def test_wilson_interval() -> None:
    lo, hi = wilson(58, 100)
    assert round(lo, 3) == 0.482 and round(hi, 3) == 0.672
    assert wilson(0, 0) == (0.0, 1.0)


def test_rules_beats_random_and_the_arena_is_deterministic() -> None:
    one = run_arena("rules", "random", deals=12, seed=3, jobs=1)
    two = run_arena("rules", "random", deals=12, seed=3, jobs=2)
    assert one.a_wins == two.a_wins and one.mean_margin == two.mean_margin
    assert one.hands == 24 and one.win_rate >= 0.9
    assert "Wilson 95%" in one.report()


def _to_phase(hand: Hand, phase: Phase, *, tricks: int = 0) -> None:
    """Drive ``hand`` with rules bots until ``phase`` (and, in play, ``tricks`` finished tricks)."""
    bots = [by_view(make_bot("rules", seed=s)) for s in range(4)]

    def reached(h: Hand) -> bool:
        return h.phase == phase and (phase != Phase.PLAY or (len(h.tricks) >= tricks and not h.current))

    drive(hand, bots, until=reached)


def test_sampled_worlds_leave_shown_bids_with_their_bidders() -> None:
    """A bidder keeps the cards it showed (or, if it took the kitty, they may be in the kitty)."""
    checked = 0
    for seed in range(40):
        hand = _hand("standard", seed)
        _to_phase(hand, Phase.PLAY, tricks=3)
        if hand.phase != Phase.PLAY:
            continue
        for seat in range(4):
            view = hand.view(seat)
            know = Knowledge.from_view(view)
            forced = know.shown
            for card, bidder, may_be_buried in forced:
                assert bidder != seat
                truly_there = card in hand.hands[bidder] or (may_be_buried and card in hand.kitty)
                assert truly_there, (seed, seat, card, bidder)
            for k in range(5):
                world = sample_world(know, view, random.Random(k))
                assert world is not None
                hands, kitty = world
                for card, bidder, may_be_buried in forced:
                    assert card in hands[bidder] or (may_be_buried and card in kitty)
                    checked += 1
    assert checked > 100


def test_dark_bids_show_nothing_to_sample_from() -> None:
    for seed in range(10):
        hand = _hand("anchao", seed)
        _to_phase(hand, Phase.FRY)
        if hand.phase != Phase.FRY:
            continue
        for seat in range(4):
            view = hand.view(seat)
            others_shown = [b for b in view.bids if b.player != seat and b.cards is not None]
            if not others_shown:
                assert Knowledge.from_view(view).shown == []


def test_search_bot_chooses_fries_on_sampled_deals() -> None:
    """Offered a fry, the search bot fries or passes, legally, and frying goes on from there."""
    decided = set()
    for seed in range(60):
        hand = _hand("standard", seed)
        _to_phase(hand, Phase.FRY)
        while hand.phase == Phase.FRY:
            seat = hand.to_act()
            assert seat is not None
            view = hand.view(seat)
            action = SearchBot(seed=seed, budget=0.02, samples=4).act(view)
            assert action is not None and action.kind in ("fry", "pass")
            if view.legal.fries:
                decided.add(action.kind)
            if action.kind == "fry":
                hand.fry(seat, action.cards, action.choose)
                bury = SearchBot(seed=seed, budget=0.02, samples=2).act(hand.view(seat))
                assert bury is not None and bury.kind == "bury"
                hand.bury(seat, bury.cards)
            else:
                hand.pass_fry(seat)
        if decided == {"fry", "pass"}:
            break
    assert decided == {"fry", "pass"}


def test_evidence_finds_the_true_world_consistent() -> None:
    """In the true deal, the rules policy makes every play rules bots made (leads read the right pool)."""
    from chaodipi.bots.search_bot import Evidence

    checked = 0
    for seed in range(12):
        hand = _hand("standard", seed)
        _to_phase(hand, Phase.PLAY, tricks=6 + seed % 5)
        if hand.phase != Phase.PLAY:
            continue
        for seat in range(4):
            view = hand.view(seat)
            evidence = Evidence(view, Knowledge.from_view(view))
            assert evidence.checks
            hands = [list(h) for h in hand.hands]
            assert evidence.consistent(hands, list(hand.kitty), 0.0) == 1.0, (seed, seat)
            checked += 1
    assert checked >= 20


def test_sampler_prefers_worlds_that_explain_the_plays() -> None:
    """Worlds drawn best of several explain the others' plays better than plain draws, and stay consistent."""
    from chaodipi.bots.search_bot import Evidence, Sampler

    plain_total = best_total = 0.0
    for seed in range(6):
        hand = _hand("standard", seed)
        _to_phase(hand, Phase.PLAY, tricks=5 + seed)
        if hand.phase != Phase.PLAY:
            continue
        view = hand.view(0)
        know = Knowledge.from_view(view)
        evidence = Evidence(view, know)
        plain = Sampler(know, view, random.Random(seed), None, 1)
        best = Sampler(know, view, random.Random(seed), evidence, 6)
        for _ in range(5):
            for sampler in (plain, best):
                world = sampler.next()
                assert world is not None
                hands, kitty = world
                assert [len(h) for h in hands] == list(view.hand_sizes)
                assert hands[0] == list(view.hand)
                for seat in (1, 2, 3):
                    assert not any(know.trump_order.effective[c.index] in know.voids[seat] for c in hands[seat])
                w = evidence.consistent(hands, kitty, 0.0)
                if sampler is plain:
                    plain_total += w
                else:
                    best_total += w
    assert best_total > plain_total


# -- the search bot when the points are below zero, after penalties, with leavers (issue 37) ------------

#: where the hand is driven to before the search bot decides: the burial (a re-burial after a fry too), the
#: frying, or the play at ``tricks`` finished tricks and ``plays`` plays of the next
STOPS = st.sampled_from([Phase.BURY, Phase.FRY, Phase.PLAY])


def _penalised_hand(preset: str, seed: int, stop: Phase, tricks: int, plays: int, leaver: bool) -> Hand | None:
    """A hand driven by random play with many fries (dark ones fail when weaker) and throws (which fail when
    beaten) to ``stop``, a seat left now and then; None when the hand did not get there (a redeal, or over)."""
    hand = _hand(preset, seed)
    policy = RandomPolicy(random.Random(seed), fry_chance=0.7, throw_chance=0.7)

    there = in_play_at(tricks, plays) if stop is Phase.PLAY else lambda h: h.phase is stop
    drive(hand, [policy.decide] * 4, until=there)
    if hand.phase is not stop or hand.to_act() is None:
        return None
    if leaver and stop is Phase.PLAY:
        hand.leave((seed + 1) % 4)  # 逃跑: a bot plays on for the seat
    return hand


@settings(max_examples=60, deadline=None)
@given(
    **IN_PLAY,
    stop=STOPS,
    leaver=st.booleans(),
    penalty=st.sampled_from([0, 0, -10, -20, -40, -85, -200, 10, 40, 120]),
)
def test_the_search_bot_decides_whatever_the_points_penalties_and_leavers(
    preset: str, seed: int, stop: Phase, tricks: int, plays: int, leaver: bool, penalty: int
) -> None:
    """The search bot decides (a legal action, no exception) with the scoring side's points below zero (after
    a failed throw or a failed dark fry, or any penalty adjusting them, as a referee's does), and with leavers:
    its play-outs once built a position with captured (0, -20), which the notation refuses (the server then
    let the rules bot decide, so the strongest bot played as the medium one exactly when the hand turned)."""
    hand = _penalised_hand(preset, seed, stop, tricks, plays, leaver)
    assume(hand is not None)
    assert hand is not None
    if penalty:
        hand.adjustments.append(("a referee's penalty", penalty))  # (what a penalty mid-hand changes)
    seat = hand.to_act()
    assert seat is not None
    view = hand.view(seat)
    action = SearchBot(seed=seed, budget=0.01, samples=3).act(view)
    assert action is not None and action.player == seat
    hand.apply(action)  # legal: the hand takes it


@settings(max_examples=40, deadline=None)
@given(**IN_PLAY, penalty=st.sampled_from([0, -20, -85, 30]))
def test_a_play_out_of_the_true_deal_ends_as_the_hand_itself(
    preset: str, seed: int, tricks: int, plays: int, penalty: int
) -> None:
    """The search bot's play-out, given the true deal, ends with the points the hand itself ends with when the
    same plays are made: the points so far (tricks and every adjustment, below zero or not) all count."""
    hand = _penalised_hand(preset, seed, Phase.PLAY, tricks, plays, leaver=seed % 3 == 0)
    assume(hand is not None)
    assert hand is not None
    if penalty:
        hand.adjustments.append(("a referee's penalty", penalty))
    seat = hand.to_act()
    assert seat is not None and hand.dealer is not None
    view = hand.view(seat)
    know = Knowledge.from_view(view)
    taken, adjusted = points_so_far(view)
    assert taken == tuple(hand.captured) and adjusted == sum(d for _, d in hand.adjustments)
    cand = ranked_plays(
        view.hand, seat, know.trump_order, view.rules, hand.dealer, view.current_trick, know.unseen_cards(), know.voids
    )[0][1]
    utility = rollout(view, know.trump_order, hand.hands, hand.kitty, cand)
    hand.play_trusted(seat, cand)
    play_out(hand, hand.trump_order)
    assert hand.result is not None
    assert utility == _utility(view, hand.result.points)
