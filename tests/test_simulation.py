"""Property tests over simulated hands in every preset (RULES §2, §5–§11).

Random legal play through the hand's operation API: 108 cards at every step, trick points
plus kitty points = 200, views never show a hidden card, every recorded action replays as
legal and the replay reproduces the record exactly.
"""

from __future__ import annotations

import json
import random

import pytest

from chaodipi.cards import Card, points_of
from chaodipi.driver import run_hand
from chaodipi.game import Game
from chaodipi.hand import Hand, Phase
from chaodipi.record import game_record, replay
from chaodipi.rules import PRESET_NAMES, FryVisibility, RuleSet
from chaodipi.simulate import RandomPolicy, play_hand, simulate_game
from conftest import soak

HANDS_PER_PRESET = soak(100, 1000)


def _allowed(hand: Hand, seat: int) -> set[Card]:
    """The cards ``seat`` may know of, computed from the hand's history (not from the views)."""
    ok: set[Card] = set(hand.hands[seat])
    for t in hand.tricks:
        for _, cards in t.plays:
            ok.update(cards)
    for _, cards in hand.current:
        ok.update(cards)
    dark = hand.rules.fry_visibility == FryVisibility.DARK
    revealed = hand.trump_revealed and hand.bid_cards_revealed
    for e in hand.iter_events():
        if e.kind in ("bid", "fried"):
            if not dark or e.player == seat or revealed:
                ok.update(e.cards)
        elif e.kind in ("kitty_taken", "buried", "dealt"):
            if e.player == seat:
                ok.update(e.cards)
        elif e.kind in (
            "throw_failed",
            "kitty_trump",
            "red5_shown",
            "kou_di",
            "kitty_shown",
            "forced_red5",
            "kept_red5",
            "fry_failed",
            "frying_over",
            "bid_shown",
        ):
            ok.update(e.cards)
    if hand.phase == Phase.OVER:
        ok.update(hand.kitty)
    return ok


def _check_step(hand: Hand, check_views: bool) -> None:
    assert hand.cards_in_play() == 108
    if check_views:
        for seat in range(4):
            v = hand.view(seat)
            assert sorted(c.index for c in v.hand) == sorted(c.index for c in hand.hands[seat])
            leak = v.cards_seen() - _allowed(hand, seat)
            assert not leak, (seat, hand.phase, sorted(map(str, leak)))
            if v.kitty is not None:
                assert hand.kitty_holder == seat or hand.phase == Phase.OVER


def _play_checked(hand: Hand, policy: RandomPolicy, check_views: bool) -> None:
    def after(h: Hand) -> None:
        sample = h.dealt % 10 == 0 if h.phase == Phase.DEAL else len(h.tricks) % 5 == 0
        _check_step(h, check_views and (sample or h.phase not in (Phase.DEAL, Phase.PLAY)))

    run_hand(hand, [policy.decide] * 4, after=after)
    _check_step(hand, check_views)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_simulated_hands_keep_the_invariants(preset: str) -> None:
    rules = RuleSet.preset(preset)
    rng = random.Random(preset)
    policy = RandomPolicy(rng)
    played = 0
    seed = 0
    while played < HANDS_PER_PRESET:
        seed += 1
        game = Game(rules, seed)
        while not game.over and played < HANDS_PER_PRESET:
            hand = game.new_hand()
            _play_checked(hand, policy, check_views=played < 25)
            game.finish_hand()
            if hand.phase == Phase.REDEAL:
                continue
            played += 1
            res = hand.result
            assert res is not None
            total = sum(t.points for t in hand.tricks) + points_of(hand.kitty)
            assert total == 200, f"{preset} seed {seed}: tricks + kitty = {total}"
            assert res.trick_points + res.dealer_trick_points == sum(t.points for t in hand.tricks)
            assert res.points % 5 == 0
            assert len(hand.kitty) == (0 if hand.flag else 8)
            if rules.credits:
                c = res.settlement.credits
                assert c is not None and c[0] + c[1] == 0


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_replay_reproduces_the_record(preset: str) -> None:
    rules = RuleSet.preset(preset)
    for seed in (1, 2, 3):
        game = simulate_game(rules, seed)
        record = json.loads(json.dumps(game_record(game)))
        again = replay(record)
        assert game_record(again) == record
        assert again.winner == game.winner and again.winner is not None


def test_same_seed_same_game() -> None:
    rules = RuleSet.preset("anchao")
    assert game_record(simulate_game(rules, 42)) == game_record(simulate_game(rules, 42))
    assert game_record(simulate_game(rules, 42)) != game_record(simulate_game(rules, 43))


def test_replay_refuses_a_tampered_record() -> None:
    from chaodipi.record import RecordError

    record = json.loads(json.dumps(game_record(simulate_game(RuleSet.preset("standard"), 5))))
    hand = next(h for h in record["hands"] if any(a["a"] == "play" for a in h["actions"]))
    plays = [a for a in hand["actions"] if a["a"] == "play"]
    plays[1]["cards"], plays[2]["cards"] = plays[2]["cards"], plays[1]["cards"]
    with pytest.raises(RecordError, match="action"):
        replay(record)


def test_play_hand_with_policy_finishes() -> None:
    game = Game(RuleSet.preset("standard"), 9)
    hand = game.new_hand()
    play_hand(hand, RandomPolicy(random.Random(1)))
    assert hand.phase in (Phase.OVER, Phase.REDEAL)
