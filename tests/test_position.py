"""The position notation (issue 19): written, read back, and played on exactly as the hand it came from."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.cards import Rank, parse_cards, shuffled_deck
from chaodipi.driver import run_hand
from chaodipi.hand import Hand
from chaodipi.levels import Progress
from chaodipi.position import Position, PositionError
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.simulate import RandomPolicy
from chaodipi.view import Phase

P = parse_cards


def _hand_in_play(preset: str, seed: int, tricks: int, plays: int) -> tuple[Hand, RandomPolicy] | None:
    hand = Hand(RuleSet.preset(preset), shuffled_deck(random.Random(seed)), first_seat=seed % 4, dealer=seed % 4)
    policy = RandomPolicy(random.Random(seed))

    def there(h: Hand) -> bool:
        return h.phase is Phase.PLAY and (
            len(h.tricks) > tricks or (len(h.tricks) == tricks and len(h.current) >= plays)
        )

    run_hand(hand, [policy.decide] * 4, until=there)
    return (hand, policy) if hand.phase is Phase.PLAY else None


@settings(max_examples=40, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    seed=st.integers(0, 10_000),
    tricks=st.integers(0, 20),
    plays=st.integers(0, 3),
)
def test_a_position_round_trips_and_plays_on_as_its_hand(preset: str, seed: int, tricks: int, plays: int) -> None:
    found = _hand_in_play(preset, seed, tricks, plays)
    if found is None:
        return  # a redeal, or the hand ended before that trick
    hand, policy = found
    position = Position.of(hand)
    text = position.text()
    assert Position.parse(text) == position  # parse(print(p)) == p
    assert Position.parse(text).text() == text  # print(parse(t)) == t
    again = Position.parse(text).hand()
    assert again.to_act() == hand.to_act() == position.turn
    for seat in range(4):
        a, b = hand.view(seat), again.view(seat)
        assert (a.hand, a.current_trick, a.tricks, a.points, a.trump) == (
            b.hand,
            b.current_trick,
            b.tricks,
            b.points,
            b.trump,
        )
        # the same legal plays (listed in the order of the cards as held, which a position writes sorted)
        assert set(a.legal.plays) == set(b.legal.plays) and a.legal.more_follows == b.legal.more_follows
        assert replace(a.legal, leads=(), follows=()) == replace(b.legal, leads=(), follows=())
    while hand.phase is Phase.PLAY:  # the same plays from here: the same result
        seat = hand.to_act()
        assert seat is not None
        action = policy.decide(hand, seat)
        assert action is not None
        hand.apply(action)
        again.apply(action)
    assert again.phase is Phase.OVER and hand.result is not None and again.result is not None
    assert again.result.points == hand.result.points
    assert again.result.settlement == hand.result.settlement


def _endgame() -> Position:
    """Two cards each, East to lead, the earlier tricks unknown: 40 and 60 points taken."""
    return Position.in_play(
        RuleSet.preset("standard"),
        hands=[P("3d 4d"), P("5d 6d"), P("7d 8d"), P("9d Td")],
        kitty=P("2s 3s 4s 6s 7s 8s 9s Js"),
        dealer=0,
        trump=None,
        leader=1,
        dealer_progress=Progress(1, Rank.TWO),
        captured=(40, 60),
    )


def test_a_position_whose_earlier_tricks_are_unknown() -> None:
    position = _endgame()
    text = position.text()
    assert "tricks=-" in text and "captured=40 60" in text and "current=1:" in text and text.endswith("turn=1")
    assert Position.parse(text) == position
    hand = position.hand()
    assert hand.to_act() == 1 and hand.points_so_far == 60 and hand.cards_in_play() == 108


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("dealer=0", "dealer=7"), "dealer: a seat"),
        (("turn=1", "turn=2"), "turn: player 1 plays now"),
        (("hands=3d 4d", "hands=3d 3d 3d 4d"), "more than twice"),
        (("kitty=2s", "kitty=5h 2s"), "the kitty is 8 cards"),
        (("captured=40 60", "captured=forty"), "captured: two whole numbers"),
        (("hands=3d 4d", "hands=3d"), "hand sizes"),
        (("; adjust=-", ""), "missing field(s): adjust"),
        (("rules=standard", "rules=nonsense"), "nonsense"),
    ],
)
def test_a_bad_position_is_refused_in_words(change: tuple[str, str], words: str) -> None:
    text = _endgame().text()
    assert change[0] in text
    with pytest.raises(PositionError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Position.parse(text.replace(change[0], change[1], 1))


def test_a_hand_not_in_play_has_no_position() -> None:
    hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(1)), first_seat=0, dealer=0)
    with pytest.raises(PositionError, match="in play"):
        Position.of(hand)
