"""A referee's penalty in the hand's log (RULES §14.4): points change p at once, levels 罚级 come off the
game's progress (never below level 2), a game lost ends the game; records replay it and refuse a bad line."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from chaodipi.cards import Rank
from chaodipi.cli import main
from chaodipi.driver import run_hand
from chaodipi.game import Game, team_of
from chaodipi.hand import Hand, IllegalActionError, Phase
from chaodipi.levels import Progress
from chaodipi.log import Action, ActionError, ActionKind, EventKind, Penalty
from chaodipi.observe import SPECTATOR
from chaodipi.record import RecordError, game_record, replay
from chaodipi.rules import RuleSet
from chaodipi.server.protocol import ProtocolError, parse_client
from chaodipi.simulate import RandomPolicy

PRESET = "standard"


def _game_in_play(seed: int = 5, tricks: int = 3) -> tuple[Game, Hand]:
    """A game whose current hand has a dealer and ``tricks`` tricks played (random legal play)."""
    game = Game(RuleSet.preset(PRESET), seed)
    policy = [RandomPolicy(random.Random(seed)).decide] * 4
    while True:
        hand = game.new_hand()
        run_hand(hand, policy, until=lambda h: h.phase is Phase.PLAY and len(h.tricks) >= tricks)
        if hand.phase is Phase.PLAY:
            return game, hand
        game.finish_hand()


def _finish(game: Game, hand: Hand, seed: int = 9) -> None:
    run_hand(hand, [RandomPolicy(random.Random(seed)).decide] * 4)
    game.finish_hand()


def _without_penalties(record: dict[str, Any]) -> dict[str, Any]:
    """The record's last hand as it would have been played without its penalty lines (its result dropped)."""
    out = copy.deepcopy(record)
    last = out["hands"][-1]
    last["actions"] = [a for a in last["actions"] if a["a"] != "penalty"]
    return out


@pytest.mark.parametrize("against", ["scoring", "dealer"])
def test_points_change_p_against_the_offending_side_and_settle(against: str) -> None:
    game, hand = _game_in_play()
    assert hand.dealer is not None
    dealer_team = team_of(hand.dealer)
    team = dealer_team if against == "dealer" else 1 - dealer_team
    before = hand.points_so_far
    event = hand.apply(Action.penalize(Penalty(team, "revoke", points=20)))
    sign = 1 if against == "dealer" else -1
    assert event.kind is EventKind.PENALTY and event.points == 20 * sign
    assert hand.points_so_far == before + 20 * sign  # at once: p −= X (scoring side), p += X (dealer side)
    # everyone sees it, spectators too, with the offence and the amount
    for seat in (0, 1, 2, 3, SPECTATOR):
        shown = [e for e in hand.view(seat).events if e.kind is EventKind.PENALTY]
        assert [e.to_json() for e in shown] == [{"e": "penalty", "points": 20 * sign, "detail": event.detail,
                                                 "team": team, "offence": "revoke"}]  # fmt: skip
        assert hand.view(seat).points == hand.points_so_far
    _finish(game, hand)
    res = hand.result
    assert res is not None
    assert (f"penalty against team {team} (revoke)", 20 * sign) in res.adjustments
    assert res.points == res.trick_points + res.kou_di + sum(d for _, d in res.adjustments)
    assert replay(game_record(game), allow_unfinished=True).hands[-1].result == res  # the line replays
    # the same deal and actions without the penalty: p is X apart, and the settlement follows p
    other = Game(game.rules, game.seed)
    for i, h in enumerate(game.hands):
        new = other.new_hand(deck=h.deck, first_seat=h.first_seat)
        for a in h.actions:
            if a.kind is not ActionKind.PENALTY:
                new.apply(a)
        if i < len(game.hands) - 1:
            other.finish_hand()
    plain = other.hands[-1].result
    assert plain is not None
    assert res.points - plain.points == 20 * sign


def test_a_warning_changes_nothing_but_is_shown() -> None:
    game, hand = _game_in_play()
    before = (hand.points_so_far, list(hand.adjustments), hand.phase, hand.to_act())
    event = hand.apply(Action.penalize(Penalty(1, "slow_bury", warning=True)))
    assert event.points == 0 and event.to_json()["warning"] is True
    assert (hand.points_so_far, hand.adjustments, hand.phase, hand.to_act()) == before
    assert any(e.kind is EventKind.PENALTY for e in hand.view(0).events)
    assert game.progress_now == tuple(game.progress)


def test_levels_come_off_at_once_and_after_the_settlement_never_below_two() -> None:
    game, hand = _game_in_play()
    game.progress[0] = Progress(1, Rank.FIVE)  # (as if team 0 had climbed to 5 before this hand)
    hand.apply(Action.penalize(Penalty(0, "disturbing", levels=2)))
    hand.apply(Action.penalize(Penalty(1, "disturbing", levels=4)))
    assert game.progress_now == (Progress(1, Rank.THREE), Progress(1, Rank.TWO))  # shown at once; 2 is the floor
    assert hand.points_so_far == sum(d for _, d in hand.adjustments) + hand.captured[1]  # no points
    end = None
    run_hand(hand, [RandomPolicy(random.Random(2)).decide] * 4)
    end = game.end_after_hand()
    res = hand.result
    assert res is not None and hand.dealer is not None
    settled = [res.settlement.dealer, res.settlement.scoring]
    if team_of(hand.dealer) == 1:
        settled.reverse()
    game.finish_hand()
    assert game.progress == [settled[0].lowered(2), settled[1].lowered(4)]
    assert game.progress[1].climbed == max(0, settled[1].climbed - 4)
    assert end is None or end.progress == tuple(game.progress)
    record = game_record(game)
    assert replay(record, allow_unfinished=True).progress == game.progress


def test_a_game_lost_ends_the_game_for_the_other_team_and_replays() -> None:
    game, hand = _game_in_play()
    hand.apply(Action.penalize(Penalty(1, "secret_agreement", levels=1, game_lost=True)))
    assert hand.phase is Phase.OVER and hand.result is None and hand.lost_by == 1
    assert hand.to_act() is None and hand.pending() is None
    with pytest.raises(IllegalActionError):
        hand.apply(Action.penalize(Penalty(0, "other", points=10)))  # the hand is over
    end = game.end_after_hand()
    game.finish_hand()
    assert game.over and game.winner == 0
    assert end is not None and end.winner == 0 and end.progress == tuple(game.progress)
    assert game.progress[1] == Progress(1, Rank.TWO)  # (never below level 2)
    record = game_record(game)
    assert record["winner"] == 0 and record["hands"][-1]["result"] == {"game_lost": 1}
    assert record["hands"][-1]["actions"][-1] == {
        "a": "penalty", "team": 1, "offence": "secret_agreement", "levels": 1, "game_lost": True}  # fmt: skip
    again = replay(record)
    assert again.winner == 0 and game_record(again) == record
    record["hands"].append(copy.deepcopy(record["hands"][-1]))
    with pytest.raises(RecordError, match="the game was over after hand"):
        replay(record)


def test_points_wait_for_the_dealer_in_the_first_hand() -> None:
    game = Game(RuleSet.preset(PRESET), 5)
    hand = game.new_hand()
    assert hand.dealer is None
    with pytest.raises(IllegalActionError, match="give the points once the dealer is"):
        hand.apply(Action.penalize(Penalty(0, "exposed", points=10)))
    assert hand.actions == [] and hand.adjustments == []  # refused: nothing changed, nothing dealt
    hand.apply(Action.penalize(Penalty(0, "exposed", levels=1)))  # levels need no sides
    assert hand.dealt == 0 and game.progress_now[0] == Progress(1, Rank.TWO)


def test_records_without_penalties_replay_unchanged() -> None:
    game, hand = _game_in_play()
    _finish(game, hand)
    record = game_record(game)
    assert all(a["a"] != "penalty" for h in record["hands"] for a in h["actions"])
    assert game_record(replay(record, allow_unfinished=True)) == record


def _penalised_record() -> dict[str, Any]:
    game, hand = _game_in_play()
    hand.apply(Action.penalize(Penalty(0, "revoke", points=20)))
    return game_record(game)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ({"a": "penalty", "offence": "revoke", "points": 20}, "a penalty action needs 'team'"),
        ({"a": "penalty", "team": 2, "offence": "revoke", "points": 20}, "team is 0 (seats 0 and 2) or 1"),
        ({"a": "penalty", "team": 0, "offence": "revoke", "points": 7}, "a multiple of 5"),
        ({"a": "penalty", "team": 0, "offence": "revoke", "points": -10}, "points is a whole number from 0"),
        ({"a": "penalty", "team": 0, "offence": "Revoke!", "points": 10}, "offence is a short key"),
        ({"a": "penalty", "team": 0, "offence": "revoke"}, "a warning, points, levels or the game lost"),
        ({"a": "penalty", "team": 0, "offence": "revoke", "points": 10, "p": 1}, 'unknown field "p"'),
        ({"a": "penalty", "team": 0, "offence": "revoke", "points": 10, "levels": 0}, "not written as the engine"),
        ({"a": "penalty", "team": 0, "offence": "revoke", "game_lost": 1}, "game_lost is true or false"),
    ],
)
def test_a_malformed_penalty_line_is_refused_in_words(line: dict[str, Any], words: str) -> None:
    record = _penalised_record()
    actions = record["hands"][-1]["actions"]
    assert actions[-1] == {"a": "penalty", "team": 0, "offence": "revoke", "points": 20}
    actions[-1] = line
    with pytest.raises(RecordError, match=r"hand \d+, action \d+") as caught:
        replay(record, allow_unfinished=True)
    assert words in str(caught.value)


def test_the_penalty_line_is_checked_like_any_action() -> None:
    record = _penalised_record()
    replay(record, allow_unfinished=True)
    first = record["hands"][0]["actions"]  # the first hand: no dealer before its bidding ends
    first.insert(0, {"a": "penalty", "team": 0, "offence": "revoke", "points": 10})
    with pytest.raises(RecordError, match=r"hand 1, action 1 .*give the points once the dealer is"):
        replay(record, allow_unfinished=True)
    first[0] = {"a": "penalty", "team": 0, "offence": "revoke", "warning": True}  # a warning needs no sides
    assert replay(record, allow_unfinished=True).hands[0].penalties[0] == Penalty(0, "revoke", warning=True)


def test_players_cannot_send_a_penalty() -> None:
    with pytest.raises(ProtocolError, match="referee"):
        parse_client('{"type": "act", "seq": 3, "action": {"a": "penalty", "team": 0, "offence": "x", "points": 10}}',
                     seat=1)  # fmt: skip
    with pytest.raises(ActionError, match="no player"):
        Action(Action.penalize(Penalty(0, "x", points=10)).kind, 1, penalty=Penalty(0, "x", points=10))


def test_the_replay_command_proves_a_record_with_penalties_and_names_a_bad_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, hand = _game_in_play()
    hand.apply(Action.penalize(Penalty(0, "revoke", points=20, levels=1)))
    hand.apply(Action.penalize(Penalty(1, "other", game_lost=True)))
    game.finish_hand()
    path = tmp_path / "game.json"
    record = game_record(game)
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", "--quiet", str(path)]) == 0
    record["hands"][-1]["actions"][-1]["team"] = 0  # the other team lost, by the record's own words
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", "--quiet", str(path)]) == 1
    assert "result.game_lost: the record says 1, the replay gives 0" in capsys.readouterr().err
