"""The position notation (issue 19): written, read back, and played on exactly as the hand it came from."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.cards import Rank, parse_cards, shuffled_deck
from chaodipi.cli import main
from chaodipi.driver import run_hand
from chaodipi.game import Game
from chaodipi.hand import Hand
from chaodipi.levels import Progress
from chaodipi.position import Position, PositionError
from chaodipi.record import game_record
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.simulate import RandomPolicy
from chaodipi.view import Phase

P = parse_cards


#: A point in a random hand's play: the preset, the seed of the deal and of the random play, and how far into the
#: play (``tricks`` finished tricks and ``plays`` plays of the next; the hand may end before).
IN_PLAY = {
    "preset": st.sampled_from(PRESET_NAMES),
    "seed": st.integers(0, 10_000),
    "tricks": st.integers(0, 20),
    "plays": st.integers(0, 3),
}


def in_play_at(tricks: int, plays: int) -> Callable[[Hand], bool]:
    """Whether a hand's play has reached ``tricks`` finished tricks and ``plays`` plays of the next (or beyond)."""

    def there(h: Hand) -> bool:
        return h.phase is Phase.PLAY and (
            len(h.tricks) > tricks or (len(h.tricks) == tricks and len(h.current) >= plays)
        )

    return there


def _hand_in_play(preset: str, seed: int, tricks: int, plays: int) -> tuple[Hand, RandomPolicy] | None:
    hand = Hand(RuleSet.preset(preset), shuffled_deck(random.Random(seed)), first_seat=seed % 4, dealer=seed % 4)
    policy = RandomPolicy(random.Random(seed))
    run_hand(hand, [policy.decide] * 4, until=in_play_at(tricks, plays))
    if hand.phase is not Phase.PLAY:
        return None
    if seed % 5 == 0:  # now and then a seat has left (逃跑): the position keeps it, and the penalty follows
        hand.leave(seed % 4)
    return hand, policy


@settings(max_examples=40, deadline=None)
@given(**IN_PLAY)
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
        assert (a.hand, a.current_trick, a.tricks, a.points, a.trump, a.kitty, a.left) == (
            b.hand,
            b.current_trick,
            b.tricks,
            b.points,
            b.trump,
            b.kitty,
            b.left,
        )
        assert a.legal == b.legal  # the same legal plays, in the same order (a position keeps each hand's order)
    while hand.phase is Phase.PLAY:  # the same plays from here: the same result
        seat = hand.to_act()
        assert seat is not None
        action = policy.decide(hand, seat)
        assert action is not None
        hand.apply(action)
        again.apply(action)
    assert again.phase is Phase.OVER and hand.result is not None and again.result is not None
    assert again.result == hand.result  # points, kitty, adjustments, settlement and escape penalties
    mine, theirs = hand.standing, again.standing  # the standing bid (a look-back is read back as the pair it shows)
    assert (mine is None) == (theirs is None)
    assert (
        mine is None
        or theirs is None
        or (mine.player, mine.cards, mine.trump) == (theirs.player, theirs.cards, theirs.trump)
    )


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


def test_an_endgame_played_on_is_still_a_position() -> None:
    """Earlier tricks unknown, a trick listed since, a seat gone: written, read back and played to the same end."""
    hand = _endgame().hand()
    for seat in (1, 2, 3, 0):
        hand.play(seat, hand.hands[seat][:1])
    hand.leave(2)
    position = Position.of(hand)
    text = position.text()
    assert "tricks=1:5d,7d,9d,3d" in text and "captured=40 65" in text and "left=2 at 65" in text
    assert Position.parse(text) == position and Position.parse(text).text() == text
    again = position.hand()
    for seat in (3, 0, 1, 2):
        hand.play(seat, hand.hands[seat])
        again.play(seat, again.hands[seat])
    assert again.result == hand.result and hand.result is not None and hand.result.escapes[0].player == 2


def test_the_standing_bid_and_the_burier_are_kept() -> None:
    """After a fry the fryer holds the kitty it buried; the standing bid is the fry (RULES §10)."""
    for seed in range(60):
        hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(seed)), first_seat=0, dealer=0)
        run_hand(
            hand, [RandomPolicy(random.Random(seed), fry_chance=1.0).decide] * 4, until=lambda h: h.phase is Phase.PLAY
        )
        if hand.phase is Phase.PLAY and hand.kitty_holder != hand.dealer:
            break
    else:
        pytest.fail("no fried hand in 60 deals")
    position = Position.of(hand)
    assert hand.standing is not None and position.bid is not None
    assert (position.bid.player, position.bid.cards) == (hand.standing.player, hand.standing.cards)
    assert position.kitty_holder == hand.kitty_holder
    again = Position.parse(position.text()).hand()
    assert again.kitty_holder == hand.kitty_holder and again.view(hand.kitty_holder).kitty == tuple(hand.kitty)
    assert again.standing is not None and again.standing.trump == hand.trump


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
        (("bid=-", "bid=1:2s 2s"), "bid: 2s 2s names trump s, not nt"),
        (("buried=0", "buried=5"), "buried: a seat"),
        (("left=-", "left=2 at ninety"), "left: '2 at ninety' is not"),
        (("left=-", "left=2 at 60, 2 at 70"), "left: each seat at most once"),
        (("captured=40 60", "captured=-"), "give captured"),
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


def test_replay_prints_the_position_a_bug_report_pastes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record that stops in play, or whose play is refused, is replayed to the position where it went wrong."""
    game = Game(RuleSet.preset("standard"), 8)
    hand = game.new_hand()
    policy = RandomPolicy(random.Random(8))
    run_hand(hand, [policy.decide] * 4, until=lambda h: len(h.tricks) == 1 and len(h.current) == 2)
    assert hand.phase is Phase.PLAY
    record = game_record(game)
    path = tmp_path / "stops.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", "--quiet", "--allow-unfinished", str(path)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("position 局面 where it stops: ")
    assert Position.parse(line.split(": ", 1)[1]) == Position.of(hand)
    record["hands"][0]["actions"].append({"a": "play", "p": hand.to_act(), "cards": "BJ BJ BJ"})
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", "--quiet", "--allow-unfinished", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert "action" in err[0] and err[1].startswith("position 局面 before it: ")
    assert Position.parse(err[1].split(": ", 1)[1]) == Position.of(hand)


def test_the_examples_in_docs_position_md_read_back() -> None:
    text = (Path(__file__).parent.parent / "docs" / "position.md").read_text(encoding="utf-8")
    examples = [block.split("\n", 1)[1].strip() for block in text.split("```text")[1:]]
    assert len(examples) == 2
    for example in examples:
        example = example.split("```")[0].strip()
        assert Position.parse(example).text() == example


def test_the_dealer_leads_the_first_trick() -> None:
    """With every card placed there are no earlier tricks: the dealer leads (docs/rules.md §5)."""
    hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(3)), first_seat=2, dealer=2)
    run_hand(hand, [RandomPolicy(random.Random(3)).decide] * 4, until=lambda h: h.phase is Phase.PLAY)
    text = Position.of(hand).text()
    assert "current=2:;" in text and "captured=-" in text and text.endswith("turn=2")
    with pytest.raises(PositionError, match="trick 1 is led by the dealer, player 2, not by player 1"):
        Position.parse(text.replace("current=2:;", "current=1:;").replace("turn=2", "turn=1"))
