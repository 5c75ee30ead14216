"""The game time limit (RULES §14.2): ``Game.call_time``, the side ahead, and records of games ended by time.

Each test names the sentence of §14.2 it checks.
"""

from __future__ import annotations

import random

import pytest

from chaodipi.cards import Rank
from chaodipi.game import Game, GameError, side_ahead, team_of
from chaodipi.hand import Action, Phase
from chaodipi.levels import Progress, Side
from chaodipi.record import RecordError, game_record, replay
from chaodipi.rules import RuleSet
from chaodipi.simulate import RandomPolicy, play_hand, simulate_game

RULES = RuleSet.preset("standard")


def _policy(seed: int = 1) -> RandomPolicy:
    return RandomPolicy(random.Random(f"limit-{seed}"))


def _played(hands: int, seed: int = 3) -> Game:
    """A game with ``hands`` hands played and applied (random legal play)."""
    game = Game(RULES, seed)
    policy = _policy(seed)
    while len(game.hands) < hands and not game.over:
        play_hand(game.new_hand(), policy)
        game.finish_hand()
    assert not game.over
    return game


# -- "the side ahead: the side whose progress (circle, then level) is higher" ---------------------------


def test_the_side_ahead_is_the_higher_progress_circle_first_then_level() -> None:
    assert side_ahead([Progress(2, Rank.THREE), Progress(1, Rank.ACE)]) == 0
    assert side_ahead([Progress(1, Rank.ACE), Progress(2, Rank.TWO)]) == 1
    assert side_ahead([Progress(1, Rank.TEN), Progress(1, Rank.JACK)], last_winner=0, holder=0) == 1
    assert side_ahead([Progress(3, None), Progress(3, Rank.ACE)], last_winner=1) == 0  # flag is above A
    assert side_ahead([Progress(1, Rank.KING), Progress(1, None)], last_winner=0) == 1


def test_equal_progress_goes_to_the_last_hands_winner_then_the_holder_then_the_fallback() -> None:
    even = [Progress(1, Rank.SIX), Progress(1, Rank.SIX)]
    assert side_ahead(even, last_winner=1, holder=0, fallback=0) == 1  # who won the last settled hand
    assert side_ahead(even, last_winner=None, holder=1, fallback=0) == 1  # no settled hand: who holds the table
    assert side_ahead(even, last_winner=None, holder=None, fallback=1) == 1  # no dealer ever known
    assert side_ahead(even) == 0


# -- "if no hand is in progress, the game ends at once" --------------------------------------------------


def test_time_before_any_hand_ends_the_game_at_once() -> None:
    game = Game(RULES, 5)
    assert game.call_time() is True
    assert game.over and game.ended_by_time and game.time_up == 0 and game.winner == 0
    with pytest.raises(GameError):
        game.new_hand()


def test_time_between_hands_ends_the_game_at_once_and_the_side_ahead_wins() -> None:
    game = _played(3)
    progress = list(game.progress)
    assert game.call_time() is True
    assert game.over and game.ended_by_time and game.time_up == 3 and len(game.hands) == 3
    last = game.history[-1]
    assert last.result is not None and last.dealer is not None
    won = team_of(last.dealer) if last.result.settlement.table is Side.DEALER else 1 - team_of(last.dealer)
    assert game.winner == side_ahead(progress, last_winner=won)
    assert game.end is not None and game.end.by_time and game.end.hands == 3
    assert game.call_time() is True and game.time_up == 3  # again: nothing changes


# -- "if a hand is in progress (cards have been dealt), it is played to its end and settled first" -------


def test_time_during_a_hand_lets_it_finish_then_the_side_ahead_wins() -> None:
    game = _played(2)
    hand = game.new_hand()
    hand.deal_card()  # cards have been dealt
    assert game.call_time() is False
    assert not game.over and game.time_called and game.time_up == 3
    play_hand(hand, _policy(9))
    expected = game.end_after_hand()
    assert expected is not None and expected.by_time
    game.finish_hand()
    assert game.over and game.ended_by_time and game.end == expected
    assert game.winner == side_ahead(
        game.progress,
        last_winner=team_of(hand.dealer) if hand.result.settlement.table is Side.DEALER else 1 - team_of(hand.dealer),  # type: ignore[arg-type,union-attr]
    )
    with pytest.raises(GameError):
        game.new_hand()


def test_equal_progress_goes_to_the_side_that_won_the_last_settled_hand() -> None:
    game = _played(2, seed=8)
    game.progress = [Progress(1, Rank.FIVE), Progress(1, Rank.FIVE)]  # equal, whatever the hands did
    last = game.history[-1]
    assert last.result is not None and last.dealer is not None
    kept = last.result.settlement.table is Side.DEALER
    game.call_time()
    assert game.winner == (team_of(last.dealer) if kept else 1 - team_of(last.dealer))


def test_no_settled_hand_and_no_dealer_goes_to_the_first_seat_of_the_last_hand() -> None:
    for seed in range(4):
        game = Game(RULES, seed)
        hand = game.new_hand()
        hand.apply(Action.close())  # nobody bid: a redeal, nothing settled, no dealer known
        assert hand.phase is Phase.REDEAL
        game.finish_hand()
        game.call_time()
        assert game.over and game.ended_by_time and game.winner == team_of(hand.first_seat)


def test_time_during_a_hand_that_is_redealt_ends_the_game_when_it_is_over() -> None:
    game = Game(RULES, 2)
    hand = game.new_hand()
    game.call_time()
    hand.apply(Action.close())
    assert game.end_after_hand() == game.end_after_hand() and game.end_after_hand() is not None
    game.finish_hand()
    assert game.over and game.ended_by_time and game.winner == team_of(hand.first_seat)


def test_a_hand_that_wins_the_game_as_the_time_runs_out_wins_it_as_usual() -> None:
    played = simulate_game(RULES, 4)
    record = game_record(played)
    assert "time_up" not in record
    record["time_up"] = len(record["hands"])  # time called once the last hand was dealt
    again = replay(record)
    assert again.winner == played.winner and not again.ended_by_time and again.time_up == len(record["hands"])


# -- records: a game ended by time replays to the same winner ---------------------------------------------


@pytest.mark.parametrize("during", [False, True])
def test_the_record_of_a_game_ended_by_time_replays_to_the_same_winner(during: bool) -> None:
    for seed in (1, 2, 3):
        game = _played(3, seed=seed)
        if during:
            hand = game.new_hand()
            game.call_time()
            play_hand(hand, _policy(seed))
            game.finish_hand()
        else:
            game.call_time()
        record = game_record(game)
        assert record["time_up"] == len(game.hands) and record["winner"] == game.winner
        again = replay(record)
        assert again.winner == game.winner and again.ended_by_time and again.time_up == game.time_up
        without = dict(record)
        del without["time_up"]  # without it the game is unfinished
        with pytest.raises(RecordError, match="nobody has won yet"):
            replay(without)


def test_a_record_with_time_up_refuses_a_later_hand_and_a_bad_value() -> None:
    game = _played(3, seed=2)
    game.call_time()
    record = game_record(game)
    more = dict(record, time_up=2)
    with pytest.raises(RecordError, match=r"hand 3: the game was over after hand 2 \(its time ran out\)"):
        replay(more)
    for bad in (-1, 4, True, "3", 2.0):
        with pytest.raises(RecordError, match=r"^time_up: "):
            replay(dict(record, time_up=bad))


def test_a_time_up_of_zero_replays_a_game_with_no_hand() -> None:
    game = Game(RULES, 6)
    game.call_time()
    record = game_record(game)
    assert record["time_up"] == 0 and record["hands"] == [] and record["winner"] == 0
    assert replay(record).winner == 0
