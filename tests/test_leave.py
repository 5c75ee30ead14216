"""Leaving a game in progress 逃跑 (RULES §13): the ``leave`` operation, its penalty, the seats'
credits, what every seat sees, and records that carry a leave."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import conftest
from chaodipi.bots import make_bot
from chaodipi.cards import Rank, Suit, parse_cards
from chaodipi.driver import Decider, by_view, run_hand
from chaodipi.game import Game, team_of
from chaodipi.hand import Hand, Phase
from chaodipi.levels import Progress, Side, seat_side
from chaodipi.log import Action, ActionError, ActionKind, Event, EventKind, IllegalActionError, Left
from chaodipi.observe import Visibility, seen_by, visibility
from chaodipi.outcome import Escape, EscapePenalty, HandResult, escape_penalty
from chaodipi.position import Position
from chaodipi.record import RecordError, describe_game, game_record, replay
from chaodipi.rules import RuleSet
from chaodipi.settlement import NORMAL_THRESHOLD
from chaodipi.simulate import RandomPolicy
from chaodipi.view import View

LEFT_WORDS = "no penalty before the first card"
P = parse_cards
ANCHAO = RuleSet.preset("anchao")


def rules(**options: object) -> RuleSet:
    """anchao (credits, escape_penalty 15) with some options changed."""
    return ANCHAO.with_options(options)


# -- the action and the event ---------------------------------------------------------------


def test_the_leave_action_in_json() -> None:
    action = Action.leave(2)
    assert action.kind is ActionKind.LEAVE and action.player == 2 and action.cards == ()
    assert action.to_json() == {"a": "leave", "p": 2}
    assert Action.from_json({"a": "leave", "p": 2}) == action
    assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action


@pytest.mark.parametrize(
    "obj",
    [
        {"a": "leave", "p": 2, "cards": "Ah"},
        {"a": "leave", "p": 2, "choose": "s"},
        {"a": "leave", "p": 2, "at": 10},
        {"a": "leave"},
        {"a": "leave", "p": 4},
        {"a": "leave", "p": True},
    ],
)
def test_a_leave_takes_only_its_player(obj: dict[str, Any]) -> None:
    with pytest.raises(ActionError):
        Action.from_json(obj)


def test_a_leave_with_cards_cannot_be_built() -> None:
    with pytest.raises(ActionError, match="leav"):
        Action(ActionKind.LEAVE, 1, tuple(P("Ah")))


def test_the_left_event_is_public_and_reads_back() -> None:
    assert visibility(EventKind.LEFT) is Visibility.PUBLIC
    ev = Event(EventKind.LEFT, 2, detail="逃跑: player 2 left; penalty 15 credits")
    assert ev.to_json() == {"e": "left", "p": 2, "detail": "逃跑: player 2 left; penalty 15 credits"}
    assert Event.from_json(ev.to_json()) == ev
    for seat in range(4):
        assert seen_by(ev, seat, dark=True) == ev


# -- the penalty table (RULES §13) -----------------------------------------------------------

D, S = Side.DEALER, Side.SCORING


@pytest.mark.parametrize(
    "side, played, t, side_credits, expected",
    [
        # before the first card: nothing, whatever else
        (D, False, False, -20, 0),
        (D, False, True, -20, 0),
        (S, False, False, -20, 0),
        (S, False, True, -20, 0),
        # dealer side: exactly P if not t, at least P if t
        (D, True, False, -20, 15),
        (D, True, False, 5, 15),
        (D, True, True, -20, 20),
        (D, True, True, -8, 15),
        (D, True, True, 5, 15),
        # scoring side: at least P if not t, exactly P if t
        (S, True, False, -20, 20),
        (S, True, False, -9, 15),
        (S, True, False, 3, 15),
        (S, True, True, -20, 15),
        (S, True, True, 3, 15),
        # no credits option: the normal loss is 0
        (D, True, True, None, 15),
        (S, True, False, None, 15),
    ],
)
def test_penalty_table(side: Side, played: bool, t: bool, side_credits: int | None, expected: int) -> None:
    assert escape_penalty(ANCHAO, side, card_played=played, reached=t, side_credits=side_credits) == expected


@pytest.mark.parametrize("side", [D, S])
@pytest.mark.parametrize("t", [False, True])
def test_no_escape_penalty_option_no_penalty(side: Side, t: bool) -> None:
    free = rules(escape_penalty=None)
    assert escape_penalty(free, side, card_played=True, reached=t, side_credits=-30) == 0


# -- whole hands: the last trick of a position, a seat leaving before it ---------------------

#: (captured by the scoring side, the four one- or two-card hands, the kitty). The dealer, seat 0,
#: leads; spades are trump at level 2.
ENDINGS: dict[str, tuple[int, list[str], str]] = {
    # the dealer leads a trump nobody can follow: p stays as it is
    "dealer_wins": (0, ["3s", "4c", "6d", "7h"], "3c 3c 4d 4d 6c 6c 7c 7c"),
    # East trumps a club lead and scores the kitty (80 points × 2)
    "kou_di": (0, ["3c", "3s", "4c", "6d"], "Kd Kd Kh Kh Ts Ts Td Td"),
    # East must follow a trump pair with 5h 5h: 逼红5 costs the scoring side 100, it wins 10
    "forced_red5": (0, ["Js Js", "5h 5h", "3d 4c", "6d 7d"], "3c 3c 4d 4d 6c 6c 7c 7c"),
}


def ending(name: str, points: int, rule_set: RuleSet = ANCHAO) -> Hand:
    """The last trick of a hand dealt by seat 0, the scoring side holding ``points`` so far."""
    _, hands, kitty = ENDINGS[name]
    return Position.in_play(
        rule_set,
        hands=[P(h) for h in hands],
        kitty=P(kitty),
        dealer=0,
        trump=Suit.SPADES,
        leader=0,
        dealer_progress=Progress(1, Rank.TWO),
        captured=(0, points),
    ).hand()


def play_out(hand: Hand) -> HandResult:
    """Play the hand's last trick in seat order (each seat's whole hand) and return the result."""
    while hand.phase == Phase.PLAY:
        seat = hand.to_act()
        assert seat is not None
        hand.play(seat, hand.hands[seat])
    assert hand.result is not None
    return hand.result


@pytest.mark.parametrize(
    "name, points, leaver, penalty_option, p, credits, t, expected",
    [
        # dealer side, not t: exactly P, even when its side then loses more (p 40 + kou di 160 = 200)
        ("kou_di", 40, 0, 15, 200, (-13, 13), False, 15),
        ("kou_di", 40, 2, 5, 200, (-13, 13), False, 5),
        ("dealer_wins", 40, 2, 15, 40, (4, -4), False, 15),
        # dealer side, t: at least P, the side's loss when larger (p 150: dealer side −8)
        ("dealer_wins", 150, 0, 15, 150, (-8, 8), True, 15),
        ("dealer_wins", 150, 2, 5, 150, (-8, 8), True, 8),
        # scoring side, not t: at least P (p 0: scoring side −9)
        ("dealer_wins", 0, 1, 15, 0, (9, -9), False, 15),
        ("dealer_wins", 0, 3, 5, 0, (9, -9), False, 9),
        # scoring side, t: exactly P, even when it then falls to p 0 (90 + 10 − 100)
        ("forced_red5", 90, 1, 5, 0, (9, -9), True, 5),
        ("dealer_wins", 90, 3, 15, 90, (-2, 2), True, 15),
    ],
)
def test_penalty_in_a_whole_hand(
    name: str,
    points: int,
    leaver: int,
    penalty_option: int,
    p: int,
    credits: tuple[int, int],
    t: bool,
    expected: int,
) -> None:
    hand = ending(name, points, rules(escape_penalty=penalty_option))
    ev = hand.leave(leaver)
    assert ev.kind is EventKind.LEFT and ev.player == leaver
    exact = t != (seat_side(leaver, 0) is Side.DEALER)
    assert ev.detail.endswith(f"penalty {penalty_option} credits") == exact
    assert ("at least" in ev.detail) != exact
    assert hand.escapes == [Escape(leaver, True, points, t)]
    result = play_out(hand)
    assert (result.points, result.settlement.credits) == (p, credits)
    side = seat_side(leaver, 0)
    loss = max(0, -credits[0 if side is Side.DEALER else 1])
    assert result.escapes == (EscapePenalty(leaver, side, True, t, loss, expected, True),)
    assert result.to_json()["escapes"] == [{"player": leaver, "penalty": expected}]
    settled = hand.log[-1]
    assert isinstance(settled, Event) and settled.kind is EventKind.SETTLED
    assert f"逃跑: player {leaver} pays {expected} credits" in settled.detail


def test_t_is_read_at_the_threshold() -> None:
    """80 points reach the threshold; 75 do not (RULES §11.2)."""
    assert ending("dealer_wins", NORMAL_THRESHOLD).threshold == NORMAL_THRESHOLD
    at, below = ending("dealer_wins", 80), ending("dealer_wins", 75)
    at.leave(1)
    below.leave(1)
    assert at.escapes[0].reached and not below.escapes[0].reached


def test_t_counts_the_adjustments_so_far() -> None:
    hand = Position.in_play(
        ANCHAO,
        hands=[P(h) for h in ENDINGS["dealer_wins"][1]],
        kitty=P(ENDINGS["dealer_wins"][2]),
        dealer=0,
        trump=Suit.SPADES,
        leader=0,
        dealer_progress=Progress(1, Rank.TWO),
        captured=(0, 60),
        adjustments=[("failed dark fry by player 0", 80)],
    ).hand()
    hand.leave(3)
    assert hand.escapes == [Escape(3, True, 140, True)]


def test_the_flag_hand_threshold_is_flag_threshold() -> None:
    kangqi = RuleSet.preset("kangqi")
    hand = Position.in_play(
        kangqi,
        hands=[P(h) for h in ENDINGS["dealer_wins"][1]],
        kitty=[],
        dealer=0,
        trump=None,
        leader=0,
        dealer_progress=Progress(1, None),
        captured=(0, 90),
    ).hand()
    assert hand.flag and hand.threshold == kangqi.flag_threshold == 100
    hand.leave(1)
    assert hand.escapes == [Escape(1, True, 90, False)]  # 90 reaches 80, not the flag hand's 100


def test_no_penalty_option_nobody_pays() -> None:
    hand = ending("kou_di", 40, rules(escape_penalty=None))
    assert hand.leave(0).detail == "逃跑: player 0 left; these rules set no penalty"
    result = play_out(hand)
    assert result.escapes == (EscapePenalty(0, Side.DEALER, True, False, 13, 0, False),)
    assert result.to_json()["escapes"] == [{"player": 0, "penalty": 0}]


def test_credits_off_the_normal_loss_is_zero() -> None:
    hand = ending("dealer_wins", 150, rules(credits=False, escape_penalty=5))
    hand.leave(2)
    result = play_out(hand)
    assert result.settlement.credits is None
    assert result.escapes == (EscapePenalty(2, Side.DEALER, True, True, 0, 5, True),)


def test_a_hand_nobody_left_has_no_escapes_in_json() -> None:
    result = play_out(ending("dealer_wins", 40))
    assert result.escapes == () and "escapes" not in result.to_json()


# -- leaving in every phase -------------------------------------------------------------------


def new_hand(hands: dict[int, str] | None = None, **kw: Any) -> Hand:
    return conftest.new_hand("anchao", hands or {}, **kw)


def at_phase(phase: Phase) -> Hand:
    """An anchao hand dealt by seat 0 stopped in ``phase`` (no card played yet)."""
    hand = new_hand({0: "2s"})
    if phase == Phase.DEAL:
        for _ in range(30):
            hand.deal_card()
        return hand
    hand.deal_all()
    if phase == Phase.COUNTDOWN:
        return hand
    hand.bid(0, P("2s"))
    hand.close_bidding()
    if phase == Phase.BURY:
        return hand
    hand.bury(0, hand.hands[0][-8:])
    if phase == Phase.FRY:
        return hand
    while hand.phase == Phase.FRY:
        assert hand.fry_next is not None
        hand.pass_fry(hand.fry_next)
    return hand


def snapshot(hand: Hand) -> tuple[Any, ...]:
    return (
        hand.phase,
        hand.dealt,
        hand.to_act(),
        [list(h) for h in hand.hands],
        list(hand.kitty),
        hand.dealer,
        hand.fry_next,
        list(hand.current),
        len(hand.tricks),
        hand.points_so_far,
    )


@pytest.mark.parametrize("phase", [Phase.DEAL, Phase.COUNTDOWN, Phase.BURY, Phase.FRY, Phase.PLAY])
@pytest.mark.parametrize("seat", [0, 1])
def test_leave_in_every_phase_changes_nothing_else(phase: Phase, seat: int) -> None:
    hand = at_phase(phase)
    assert hand.phase == phase and hand.can_leave(seat)
    before = snapshot(hand)
    ev = hand.leave(seat)
    words = "no penalty before the first card"
    assert ev == Event(EventKind.LEFT, seat, detail=f"逃跑: player {seat} left; {words}", data=Left(words))
    assert snapshot(hand) == before
    assert hand.left == (seat,) and hand.escapes == [Escape(seat, False, 0, False)]
    assert hand.actions[-1] == Action.leave(seat)
    assert not hand.can_leave(seat) and hand.can_leave(2)
    run_hand(hand, [RandomPolicy(random.Random(4)).decide] * 4)
    assert hand.result is not None
    assert [e.to_json() for e in hand.result.escapes] == [{"player": seat, "penalty": 0}]
    assert not hand.result.escapes[0].charged


def test_leave_during_the_deal_deals_nothing() -> None:
    hand = at_phase(Phase.DEAL)
    dealt, log = hand.dealt, len(hand.log)
    hand.apply(Action.leave(3))
    assert hand.dealt == dealt and hand.phase == Phase.DEAL
    assert hand.log[log:] == [
        Action.leave(3),
        Event(EventKind.LEFT, 3, detail="逃跑: player 3 left; no penalty before the first card", data=Left(LEFT_WORDS)),
    ]
    hand.verify_apply(Action.leave(1))
    assert hand.dealt == dealt


def test_leaving_twice_is_refused() -> None:
    hand = at_phase(Phase.PLAY)
    hand.leave(1)
    with pytest.raises(IllegalActionError, match="already left"):
        hand.leave(1)
    assert not hand.can_apply(Action.leave(1))
    hand.leave(3)  # another seat still may
    assert hand.left == (1, 3)


def test_leaving_a_finished_hand_is_refused() -> None:
    hand = ending("dealer_wins", 40)
    play_out(hand)
    assert hand.phase == Phase.OVER
    with pytest.raises(IllegalActionError, match="over"):
        hand.leave(2)
    assert not hand.can_leave(2)


def test_leaving_a_redealt_hand_is_refused() -> None:
    hand = new_hand(dealer=None)
    hand.deal_all()
    hand.close_bidding()
    assert hand.phase == Phase.REDEAL
    with pytest.raises(IllegalActionError, match="redealt"):
        hand.leave(0)


@pytest.mark.parametrize("seat", [-1, 4, True, "2", None])
def test_a_bad_seat_is_refused(seat: Any) -> None:
    hand = at_phase(Phase.PLAY)
    with pytest.raises(IllegalActionError, match="seat"):
        hand.leave(seat)
    assert not hand.can_leave(seat) and hand.escapes == [] and hand.left == ()


def test_apply_leave_is_atomic() -> None:
    hand = at_phase(Phase.DEAL)
    hand.apply(Action.leave(2))
    before, log = snapshot(hand), list(hand.log)
    with pytest.raises(IllegalActionError, match="already left"):
        hand.apply(Action.leave(2))
    assert snapshot(hand) == before and hand.log == log and hand.left == (2,)


def test_a_leave_keeps_the_seats_turn() -> None:
    hand = at_phase(Phase.PLAY)
    turn = hand.to_act()
    assert turn is not None
    hand.apply(Action.leave(turn))
    assert hand.to_act() == turn and hand.legal(turn).leads


# -- what every seat sees ----------------------------------------------------------------


def test_every_seat_sees_the_leave() -> None:
    hand = at_phase(Phase.FRY)  # anchao: a dark game
    assert hand.dark
    hand.leave(3)
    for seat in range(4):
        view = hand.view(seat)
        left = [e for e in view.events if e.kind is EventKind.LEFT]
        assert left == [
            Event(
                EventKind.LEFT,
                3,
                detail="逃跑: player 3 left; no penalty before the first card",
                data=Left("no penalty before the first card"),
            )
        ]
        assert view.left == (3,)
        assert [e for e in hand.visible_events(seat) if e.kind is EventKind.LEFT] == left


def test_the_view_lists_the_seats_that_left() -> None:
    hand = at_phase(Phase.PLAY)
    plain = hand.view(0)
    assert plain.left == () and "left" not in plain.to_json()
    assert View.from_json(plain.to_json()) == plain
    hand.leave(2)
    hand.leave(1)
    view = hand.view(0)
    assert view.left == (2, 1) and view.to_json()["left"] == [2, 1]
    assert View.from_json(json.loads(json.dumps(view.to_json()))) == view
    bad = view.to_json() | {"left": [7]}
    with pytest.raises(ActionError, match="left"):
        View.from_json(bad)


# -- a game: bots play on for the seat that left, seats' credits, records ------------------


def play_game_with_leave(seed: int, leaver_offset: int, tricks: int) -> tuple[Game, int]:
    """An anchao game of one hand (redeals aside) in which a seat leaves after ``tricks`` tricks.

    The leaver is the dealer + ``leaver_offset``; from then on a rules bot plays for it.
    """
    game = Game(ANCHAO, seed)
    policy = RandomPolicy(random.Random(seed))
    seats: list[Decider] = [policy.decide] * 4
    while True:
        hand = game.new_hand()
        run_hand(hand, seats, until=lambda h: h.phase == Phase.PLAY and len(h.tricks) == tricks)
        if hand.phase == Phase.REDEAL:
            game.finish_hand()
            continue
        break
    assert hand.dealer is not None and hand.phase == Phase.PLAY
    leaver = (hand.dealer + leaver_offset) % 4
    hand.apply(Action.leave(leaver))
    bot = by_view(make_bot("rules", seed))
    run_hand(hand, [bot if s == leaver else policy.decide for s in range(4)])
    game.finish_hand()
    return game, leaver


@pytest.mark.parametrize("seed, offset", [(1, 0), (2, 1), (3, 2), (4, 3)])
def test_a_bot_plays_on_and_the_leaver_pays(seed: int, offset: int) -> None:
    game, leaver = play_game_with_leave(seed, offset, tricks=6)
    hand = game.current
    assert hand is not None and hand.result is not None and hand.dealer is not None
    result = hand.result
    credits = result.settlement.credits
    assert credits is not None
    (esc,) = result.escapes
    side = seat_side(leaver, hand.dealer)
    side_credits = credits[0 if side is Side.DEALER else 1]
    assert (esc.player, esc.side, esc.card_played, esc.charged) == (leaver, side, True, True)
    assert esc.penalty == escape_penalty(ANCHAO, side, card_played=True, reached=esc.reached, side_credits=side_credits)
    assert esc.penalty >= 15
    # the teams keep the hand's normal credits; the leaver alone is charged its penalty
    dteam = team_of(hand.dealer)
    assert game.credits[dteam] == credits[0] and game.credits[1 - dteam] == credits[1]
    for seat in range(4):
        share = credits[0] if team_of(seat) == dteam else credits[1]
        assert game.seat_credits[seat] == (-esc.penalty if seat == leaver else share)
    assert game.to_json()["seat_credits"] == game.seat_credits


def test_seat_credits_after_a_leave_before_the_first_card() -> None:
    game, _ = play_game_with_leave(5, 1, tricks=0)
    hand = game.current
    assert hand is not None and hand.result is not None and hand.dealer is not None
    credits = hand.result.settlement.credits
    assert credits is not None
    assert hand.result.escapes[0].penalty == 0 and not hand.result.escapes[0].charged
    dteam = team_of(hand.dealer)
    assert game.seat_credits == [credits[0] if team_of(s) == dteam else credits[1] for s in range(4)]


def test_seat_credits_stay_zero_without_credits() -> None:
    game = Game(rules(credits=False), 6)
    policy = RandomPolicy(random.Random(6))
    hand = game.new_hand()
    run_hand(hand, [policy.decide] * 4, until=lambda h: len(h.tricks) == 3)
    if hand.phase == Phase.PLAY:
        hand.leave(1)
        run_hand(hand, [policy.decide] * 4)
    game.finish_hand()
    assert game.seat_credits == [0, 0, 0, 0] and game.to_json()["seat_credits"] is None


def test_a_record_with_a_leave_replays() -> None:
    game, leaver = play_game_with_leave(7, 1, tricks=8)
    record = json.loads(json.dumps(game_record(game), ensure_ascii=False))
    hand_rec = record["hands"][-1]
    assert {"a": "leave", "p": leaver} in hand_rec["actions"]
    hand = game.current
    assert hand is not None and hand.result is not None
    assert hand_rec["result"]["escapes"] == [{"player": leaver, "penalty": hand.result.escapes[0].penalty}]
    again = replay(record, allow_unfinished=True)
    assert again.seat_credits == game.seat_credits and again.credits == game.credits
    again_hand = again.current
    assert again_hand is not None and again_hand.result == hand.result
    assert game_record(again) == game_record(game)
    assert any("逃跑" in line for line in describe_game(again))


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda res: res["escapes"][0].update(penalty=res["escapes"][0]["penalty"] + 5),
            r"result\.escapes\[0\]\.penalty",
        ),
        (
            lambda res: res["escapes"][0].update(player=(res["escapes"][0]["player"] + 1) % 4),
            r"result\.escapes\[0\]\.player",
        ),
        (lambda res: res.pop("escapes"), r"result\.escapes: missing in the record"),
        (lambda res: res["escapes"].append({"player": 0, "penalty": 0}), r"result\.escapes"),
    ],
)
def test_a_record_with_altered_escapes_is_refused(change: Callable[[dict[str, Any]], object], message: str) -> None:
    game, _ = play_game_with_leave(7, 1, tricks=8)
    record = game_record(game)
    bad = copy.deepcopy(record)
    change(bad["hands"][-1]["result"])
    with pytest.raises(RecordError, match=message):
        replay(bad, allow_unfinished=True)


def test_a_record_without_the_leave_is_refused() -> None:
    game, leaver = play_game_with_leave(7, 1, tricks=8)
    bad = game_record(game)
    bad["hands"][-1]["actions"].remove({"a": "leave", "p": leaver})
    with pytest.raises(RecordError, match=r"result: the record has an unknown key \"escapes\""):
        replay(bad, allow_unfinished=True)


def test_a_record_leave_with_cards_is_refused() -> None:
    game, leaver = play_game_with_leave(7, 1, tricks=8)
    bad = game_record(game)
    actions = bad["hands"][-1]["actions"]
    actions[actions.index({"a": "leave", "p": leaver})] = {"a": "leave", "p": leaver, "cards": "Ah"}
    with pytest.raises(RecordError, match='unknown field "cards" in a leave action'):
        replay(bad, allow_unfinished=True)


def test_a_record_leave_replays_during_the_deal() -> None:
    """A leave recorded during the deal is replayed where it stands among the bids (nothing dealt for it)."""
    game = Game(ANCHAO, 8)
    policy = RandomPolicy(random.Random(8))
    hand = game.new_hand()
    run_hand(hand, [policy.decide] * 4, until=lambda h: h.dealt == 40)
    assert hand.phase == Phase.DEAL
    hand.apply(Action.leave(0))
    run_hand(hand, [policy.decide] * 4)
    game.finish_hand()
    again = replay(game_record(game), allow_unfinished=True)
    again_hand = again.current
    assert again_hand is not None and again_hand.left == (0,)
    assert again_hand.result == hand.result and again.seat_credits == game.seat_credits


def test_team_credits_are_unchanged_by_a_leave() -> None:
    """The same game with and without the leave: the team credits agree (the bot played on)."""
    with_leave, without = ending("dealer_wins", 150), ending("dealer_wins", 150)
    with_leave.leave(1)
    a, b = play_out(with_leave), play_out(without)
    assert a.settlement == b.settlement and a.points == b.points
