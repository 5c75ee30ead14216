"""Games across hands and matches (RULES §2, §11, §12)."""

from __future__ import annotations

import itertools
import random

import pytest

from chaodipi.cards import Rank, parse_cards
from chaodipi.game import Game, Match, team_of
from chaodipi.hand import Hand, Phase
from chaodipi.position import Position
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.settlement import Progress, Side
from chaodipi.simulate import RandomPolicy, play_game, simulate_game


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_dealer_rotation_levels_and_end(preset: str) -> None:
    rules = RuleSet.preset(preset)
    game = simulate_game(rules, 3)
    played = [(h, s) for h, s in zip(game.hands, game.history, strict=True) if h.phase == Phase.OVER]
    assert played and game.over
    for (hand, summary), (nxt, _) in itertools.pairwise(played):
        assert hand.result is not None and hand.dealer is not None
        res = hand.result.settlement
        # Decision (RULES §2): keeping the table passes the deal to the partner, losing it to the next seat
        expected = (hand.dealer + 2) % 4 if res.table is Side.DEALER else (hand.dealer + 1) % 4
        assert nxt.dealer == expected
        d = team_of(hand.dealer)
        assert summary.levels_after[d] == res.dealer and summary.levels_after[1 - d] == res.scoring
        # the next hand is dealt at the new dealer side's level (or is a flag hand)
        assert nxt.dealer_progress == summary.levels_after[team_of(expected)]
        assert nxt.flag == (nxt.dealer_progress.level is None)
    last = played[-1][0]
    assert last.result is not None and last.result.settlement.game_winner is not None


def test_first_hand_redeals_until_someone_bids() -> None:
    game = Game(RuleSet.preset("standard"), 1)
    hand = game.new_hand()
    hand.deal_all()
    hand.close_bidding()
    assert hand.phase == Phase.REDEAL
    game.finish_hand()
    again = game.new_hand()
    assert again.dealer is None and again.deck != hand.deck


def test_anchao_game_climbs_three_circles() -> None:
    for seed in range(1, 6):
        game = simulate_game(RuleSet.preset("anchao"), seed)
        assert game.winner is not None
        assert game.progress[game.winner].circle == 3 and game.progress[game.winner].level == Rank.ACE


def test_credits_sum_to_zero() -> None:
    game = simulate_game(RuleSet.preset("mingchao"), 4)
    assert game.credits[0] + game.credits[1] == 0 and game.credits != [0, 0]


def _flag_endgame(game: Game, points: int) -> Hand:
    """Replace the game's new flag hand by its last trick, with the scoring side at ``points``."""
    real = game.new_hand()
    assert real.flag and real.dealer == 0
    hand = Position.in_play(
        game.rules,
        hands=[parse_cards(c) for c in ("3d", "4d", "6d", "7d")],
        kitty=[],
        dealer=0,
        trump=None,
        leader=0,
        dealer_progress=real.dealer_progress,
        scoring_progress=real.scoring_progress,
        captured=(0, points),
        flag_failures=real.flag_failures,
    ).hand()
    game.hands[-1] = hand
    for seat, cards in enumerate(("3d", "4d", "6d", "7d")):
        hand.play(seat, parse_cards(cards))
    return hand


def test_flag_hand_fail_limit_through_the_game() -> None:
    game = Game(RuleSet.preset("institute2023"), 1)
    game.progress = [Progress(1, None), Progress(1, Rank.THREE)]
    for round_ in range(3):
        game.next_dealer = 0
        _flag_endgame(game, 100)
        game.finish_hand()
        assert game.flag_failures[0] == (round_ + 1) % 3
    assert game.progress[0].level == Rank.ACE  # three flag hands lost in a row: back to A
    game.next_dealer = 0
    hand = game.new_hand()
    assert not hand.flag and hand.level == Rank.ACE


def test_flag_hand_won_ends_the_game() -> None:
    game = Game(RuleSet.preset("kangqi"), 1)
    game.progress = [Progress(1, None), Progress(1, Rank.THREE)]
    game.next_dealer = 0
    _flag_endgame(game, 95)
    game.finish_hand()
    assert game.over and game.winner == 0


def test_match_best_of_three() -> None:
    match = Match(RuleSet.preset("institute2023"), seed=5, best_of=3)
    policy = RandomPolicy(random.Random(5))
    while not match.over:
        play_game(match.next_game(), policy)
    a, b = match.wins()
    assert max(a, b) == 2 and 2 <= len(match.played) <= 3 and match.winner == (0 if a > b else 1)


def test_match_of_n_games() -> None:
    match = Match(RuleSet.preset("standard"), seed=2, games=2)
    policy = RandomPolicy(random.Random(2))
    while not match.over:
        play_game(match.next_game(), policy)
    assert len(match.played) == 2 and sum(match.wins()) == 2
