"""Whole hands from fixed card orders: every phase and every special case (RULES §2, §5–§11)."""

from __future__ import annotations

from typing import Any

import pytest

import conftest
from chaodipi.cards import Rank, Suit, parse_cards
from chaodipi.hand import Event, EventKind, Hand, IllegalActionError, Phase
from chaodipi.observe import Visibility, seen_by, visibility
from chaodipi.position import Position
from chaodipi.rules import RuleSet
from chaodipi.settlement import Progress, Side
from chaodipi.view import BidOption

P = parse_cards


def new_hand(preset: str | dict[str, object], hands: dict[int, str], kitty: str = "", **kw: Any) -> Hand:
    kw.setdefault("scoring", Rank.TWO)
    return conftest.new_hand(preset, hands, kitty, **kw)


# -- the deal and bids ---------------------------------------------------------------------


def test_deal_one_card_at_a_time_in_play_order() -> None:
    hand = new_hand("standard", {}, first_seat=2, dealer=None)
    ev = hand.deal_card()
    assert ev.player == 2 and hand.deal_card().player == 3 and hand.deal_card().player == 0
    hand.deal_all()
    assert [len(h) for h in hand.hands] == [25] * 4 and len(hand.kitty) == 8
    assert hand.cards_in_play() == 108


def test_bids_during_the_deal_use_cards_already_held() -> None:
    hand = new_hand("standard", {1: "2s 2s"}, first_seat=0, dealer=None)
    with pytest.raises(IllegalActionError, match="does not hold"):
        hand.bid(1, P("2s"))
    while P("2s")[0] not in hand.hands[1]:
        hand.deal_card()
    hand.bid(1, P("2s"))
    assert hand.standing is not None and hand.standing.player == 1
    with pytest.raises(IllegalActionError):
        hand.bid(2, P("BJ"))  # never alone (and not held anyway)


def test_first_hand_redeal_when_nobody_bids() -> None:
    hand = new_hand("standard", {}, dealer=None)
    hand.deal_all()
    hand.close_bidding()
    assert hand.phase == Phase.REDEAL


def test_first_hand_dealer_is_the_standing_bidder() -> None:
    hand = new_hand("standard", {3: "2h 2h"}, dealer=None)
    hand.deal_all()
    hand.bid(3, P("2h 2h"))
    hand.close_bidding()
    assert hand.dealer == 3 and hand.trump == Suit.HEARTS and hand.phase == Phase.BURY
    assert hand.kitty_holder == 3 and len(hand.hands[3]) == 33


@pytest.mark.parametrize(
    "preset, kitty, trump",
    [
        ("standard", "3c SJ 8d 4h 5h 6s 7s 9c", None),  # first level card or joker: SJ → NT
        ("standard", "3c 4c 8d 4h 5h 6s 7s 9c", Suit.DIAMONDS),  # first level card 8d
        ("standard", "3c 4c 6d 4h 5h 6s 7s 9c", Suit.HEARTS),  # none: highest card, 5h → hearts
        ("contest2021", "3c SJ 8d 4h 5h 6s 7s 9c", Suit.CLUBS),  # the first card
        ("institute2023", "3c SJ 8d 4h 5h 6s 7s 9c", Suit.DIAMONDS),  # first level card
        ("institute2023", "3c SJ 9d 4h 7h 6s 7s 9c", None),  # highest: SJ → NT
    ],
)
def test_kitty_trump_when_nobody_bids_in_a_later_hand(preset: str, kitty: str, trump: Suit | None) -> None:
    hand = new_hand(preset, {}, kitty, dealer=1, first_seat=1, level=Rank.EIGHT)
    hand.deal_all()
    hand.close_bidding()
    assert hand.trump == trump and hand.kitty_trump_used
    hand.bury(1, hand.hands[1][:8])
    assert hand.phase == Phase.PLAY  # no frying after a kitty trump (本副牌无法炒底)


# -- frying ---------------------------------------------------------------------------------


def _to_fry(preset: str, hands: dict[int, str]) -> Hand:
    hand = new_hand(preset, hands, dealer=0, level=Rank.EIGHT)
    hand.deal_all()
    hand.bid(0, P("8c"))
    hand.close_bidding()
    hand.bury(0, hand.hands[0][-8:])
    return hand


def test_fry_turns_rotate() -> None:
    hand = _to_fry("standard", {0: "8c", 2: "8s 8s", 3: "BJ BJ"})
    assert hand.phase == Phase.FRY and hand.fry_next == 1
    hand.pass_fry(1)
    hand.fry(2, P("8s 8s"))
    assert hand.phase == Phase.BURY and hand.kitty_holder == 2
    hand.bury(2, hand.hands[2][:8])
    assert hand.fry_next == 3  # rotate: the player after the last fryer
    hand.fry(3, P("BJ BJ"))
    hand.bury(3, hand.hands[3][:8])
    assert hand.fry_next == 0
    for p in (0, 1, 2):
        hand.pass_fry(p)
    assert hand.phase == Phase.PLAY and hand.trump is None and hand.dealer == 0  # 炒底时正主不正庄
    assert hand.leader == 0


def test_fry_turns_dealer_first() -> None:
    hand = _to_fry("kangqi", {0: "8c", 2: "8s 8s", 3: "BJ BJ"})
    assert hand.fry_next == 1
    hand.pass_fry(1)
    hand.fry(2, P("8s 8s"))
    hand.bury(2, hand.hands[2][:8])
    assert hand.fry_next == 0  # dealer_first: after a fry, the dealer is asked first
    hand.pass_fry(0)
    assert hand.fry_next == 1  # a player who passed may fry again after a later fry
    hand.pass_fry(1)
    assert hand.fry_next == 3
    hand.pass_fry(3)
    assert hand.phase == Phase.PLAY and hand.trump == Suit.SPADES


def test_open_fry_must_outrank() -> None:
    hand = new_hand("standard", {0: "8s 8s", 1: "8d 8d", 2: "BJ BJ"}, dealer=0, level=Rank.EIGHT)
    hand.deal_all()
    hand.bid(0, P("8s 8s"))
    hand.close_bidding()
    hand.bury(0, hand.hands[0][-8:])
    with pytest.raises(IllegalActionError, match="not stronger"):
        hand.fry(1, P("8d 8d"))  # standard: D < C < H < S
    assert hand.possible_fries(1) == []
    hand.pass_fry(1)
    assert hand.possible_fries(2) == [BidOption(tuple(P("BJ BJ")))]


def test_dark_fry_failure_on_each_side() -> None:
    for fryer, sign in ((2, +1), (1, -1)):  # dealer side (partner) fails: +80; scoring side: -80
        hand = new_hand("anchao", {0: "8s 8s", 1: "8d 8d", 2: "8c 8c"}, dealer=0, level=Rank.EIGHT)
        hand.deal_all()
        hand.bid(0, P("8s 8s"))
        hand.close_bidding()
        hand.bury(0, hand.hands[0][-8:])
        while hand.fry_next != fryer:
            hand.pass_fry(hand.fry_next or 0)
        cards = P("8c 8c") if fryer == 2 else P("8d 8d")
        ev = hand.fry(fryer, cards)  # anchao order C<D<S<H: clubs and diamonds are below spades
        other = 1 if fryer == 2 else 2
        assert ev.kind is EventKind.FRIED and seen_by(ev, other, dark=True) == Event(EventKind.FRIED, fryer)
        hand.bury(fryer, hand.hands[fryer][:8])
        while hand.phase == Phase.FRY:
            hand.pass_fry(hand.fry_next or 0)
        assert hand.trump == Suit.SPADES
        assert hand.adjustments == [(f"failed dark fry by player {fryer}", sign * 80)]
        assert hand.kitty_holder == fryer  # the last burial stays in the kitty


def test_unordered_dark_fry_never_fails_and_last_stands() -> None:
    hand = new_hand("institute2023", {0: "8s 8s", 1: "8d 8d"}, dealer=0, level=Rank.EIGHT)
    hand.deal_all()
    hand.bid(0, P("8s 8s"))
    hand.close_bidding()
    hand.bury(0, hand.hands[0][-8:])
    hand.fry(1, P("8d 8d"))
    hand.bury(1, hand.hands[1][:8])
    while hand.phase == Phase.FRY:
        hand.pass_fry(hand.fry_next or 0)
    assert hand.trump == Suit.DIAMONDS and hand.adjustments == []
    # the trump is announced at play, the fry's cards only after the first trick
    assert hand.view(2).trump == "d"
    assert all(b.cards is None for b in hand.view(2).bids)


def test_dark_bids_are_hidden_until_frying_ends() -> None:
    hand = new_hand("anchao", {0: "8s 8s", 1: "8d 8d"}, dealer=0, level=Rank.EIGHT)
    hand.deal_all()
    hand.bid(0, P("8s 8s"))
    v = hand.view(1)
    assert [b.to_json() for b in v.bids] == [{"player": 0, "fry": False}] and v.trump is None
    assert hand.view(0).bids[0].cards == tuple(P("8s 8s"))


# -- play: throws, red 5s, kou di ---------------------------------------------------------------


def _endgame(
    preset: str | dict[str, object],
    hands: list[str],
    kitty: str = "5c Tc Kc 3d 4d 6d 7d 8d",
    *,
    dealer: int = 1,
    leader: int = 0,
    trump: Suit | None = Suit.SPADES,
    level: Rank = Rank.SEVEN,
    scoring_level: Rank = Rank.FIVE,
    captured: tuple[int, int] = (0, 60),
) -> Hand:
    rules = RuleSet.from_spec(preset)
    return Position.in_play(
        rules,
        hands=[P(h) for h in hands],
        kitty=P(kitty),
        dealer=dealer,
        trump=trump,
        leader=leader,
        dealer_progress=Progress(1, level),
        scoring_progress=Progress(1, scoring_level),
        captured=captured,
    ).hand()


def _play_out(hand: Hand, plays: list[str]) -> None:
    for cards in plays:
        seat = hand.to_act()
        assert seat is not None
        hand.play(seat, P(cards))


@pytest.mark.parametrize(
    "lead, follows, mult",
    [
        ("Ah", ["3h", "4h", "6h"], 2),
        ("Ah Ah", ["3h 4h", "6h 8h", "9h Th"], 4),
        ("Ah Ah Kh Kh", ["3h 4h 6h 8h", "9h Th Jh Qh", "2c 3c 4c 6c"], 8),
        ("Ah Ah Kh Kh Qh Qh", ["3h 4h 6h 8h 9h 2c", "Th Jh 9c 9c Jc Jc", "2c 3c 4c 6c 6c 7c"], 12),
    ],
)
def test_kou_di_multipliers(lead: str, follows: list[str], mult: int) -> None:
    hand = _endgame("standard", [lead, *follows], dealer=1, leader=0)
    _play_out(hand, [lead, *follows])
    res = hand.result
    assert res is not None and res.multiplier == mult and res.kitty_points == 25 and res.kou_di == 25 * mult
    assert res.points == res.trick_points + 25 * mult and res.trick_points == 60 + res.trick_points - 60


def test_dealer_side_keeps_the_kitty() -> None:
    hand = _endgame("standard", ["3h", "Ah", "4h", "6h"], dealer=1, leader=0)
    _play_out(hand, ["3h", "Ah", "4h", "6h"])
    assert hand.result is not None and hand.result.kou_di == 0 and hand.result.multiplier == 0


@pytest.mark.parametrize("leader, sign", [(1, +1), (0, -1)])
def test_failed_throw_on_each_side(leader: int, sign: int) -> None:
    # dealer 1: a dealer-side throw that fails gives the scoring side 10 a card; a scoring-side one costs it
    hands = ["3d 4d 6d", "8d 9d Jd", "5c 7c 8c", "9c Jc Qc"]
    hands[leader] = "Ah Qh 2c"
    hands[(leader + 1) % 4] = "Kh 3c 4c"
    hand = _endgame("standard", hands, dealer=1, leader=leader)
    ev = hand.play(leader, P("Ah Qh"))
    assert ev.cards == tuple(P("Qh"))  # the forced play: the failing unit
    fail = [e for e in hand.iter_events() if e.kind == "throw_failed"]
    assert fail and fail[0].points == sign * 20 and visibility(fail[0].kind) is Visibility.PUBLIC
    assert fail[0].cards == tuple(P("Ah Qh"))
    assert hand.adjustments == [(f"failed throw by player {leader}", sign * 20)]
    assert P("Ah")[0] in hand.hands[leader]  # the rest goes back to the hand


def test_forced_red5_costs_50() -> None:
    # anchao: a follower who has to play 5h (every legal follow holds it) costs their side 50
    hand = _endgame(
        "anchao",
        ["As As 3c", "5h 4h 9h", "Ks 2c 3d", "Qs 4c 5d"],
        dealer=1,
        leader=0,
        trump=Suit.HEARTS,
        level=Rank.SEVEN,
    )
    hand.play(0, P("As As"))  # spades side lead
    hand.play(1, P("4h 5h"))  # void in spades: a free choice, not forced
    assert not [e for e in hand.iter_events() if e.kind == "forced_red5"]
    hand2 = _endgame(
        "anchao",
        ["Ah Ah 3c", "5h 4d 9d", "Ks 2c 3d", "Qs 4c 5d"],
        dealer=1,
        leader=0,
        trump=Suit.HEARTS,
        level=Rank.SEVEN,
    )
    hand2.play(0, P("Ah Ah"))  # trump pair lead; player 1 holds one trump: 5h, which must be played
    hand2.play(1, P("5h 4d"))
    forced = [e for e in hand2.iter_events() if e.kind == "forced_red5"]
    assert forced and forced[0].points == +50  # player 1 is on the dealer side (dealer 1)


def test_kept_red5_earns_50() -> None:
    hand = _endgame("anchao", ["5h", "3c", "4c", "6c"], dealer=1, leader=0, trump=Suit.SPADES)
    _play_out(hand, ["5h", "3c", "4c", "6c"])
    kept = [e for e in hand.iter_events() if e.kind == "kept_red5"]
    assert kept and kept[0].points == 50
    plain = _endgame("standard", ["5h", "3c", "4c", "6c"], dealer=1, leader=0, trump=Suit.SPADES)
    _play_out(plain, ["5h", "3c", "4c", "6c"])
    assert not [e for e in plain.iter_events() if e.kind == "kept_red5"]


# -- special endings through whole last tricks -------------------------------------------------


def test_shangtian_pure_by_the_dealer_side() -> None:
    hand = _endgame(
        "standard",
        ["5d Td Kd", "3d 4d 6d", "7d 8d 9d", "Jd Qd Ad"],
        dealer=0,
        leader=0,
        level=Rank.SIX,
        captured=(0, 100),
    )
    _play_out(hand, ["5d Td Kd", "3d 4d 6d", "7d 8d 9d", "Jd Qd Ad"])
    s = hand.result.settlement if hand.result else None
    assert s is not None and s.table is Side.DEALER and s.dealer.level == Rank.ACE and s.scoring.level == Rank.TWO


def test_shangtian_contains_by_the_scoring_side() -> None:
    hand = _endgame("kangqi", ["Ad Kd Qd", "5s Ts Ks", "3d 4d 6d", "3c 4c 6c"], dealer=0, leader=0, level=Rank.NINE)
    _play_out(hand, ["Ad Kd Qd", "5s Ts Ks", "3d 4d 6d", "3c 4c 6c"])
    s = hand.result.settlement if hand.result else None
    assert s is not None and s.table is Side.SCORING and s.scoring.level == Rank.ACE and s.dealer.level == Rank.TWO


def test_jack_rule_mingchao() -> None:
    hand = _endgame("mingchao", ["3d", "Jh", "4d", "6d"], dealer=0, leader=0, level=Rank.JACK, captured=(0, 80))
    _play_out(hand, ["3d", "Jh", "4d", "6d"])
    s = hand.result.settlement if hand.result else None
    assert s is not None and s.dealer.level == Rank.TWO and s.table is Side.SCORING


def test_double_red5_in_a_normal_hand() -> None:
    hand = _endgame("institute2023", ["Ad", "4d", "6d", "8d"], dealer=0, leader=0, captured=(0, 30))
    hand.red5_player = 2  # the dealer side's 5h 5h bid
    _play_out(hand, ["Ad", "4d", "6d", "8d"])
    s = hand.result.settlement if hand.result else None
    assert s is not None and s.dealer.level == Rank.ACE and s.scoring.level == Rank.TWO


# -- flag hands -------------------------------------------------------------------------------


def test_flag_hand_deals_all_cards_and_has_no_bidding() -> None:
    hand = new_hand("kangqi", {}, dealer=0, flag=True)
    hand.deal_all()
    assert [len(h) for h in hand.hands] == [27] * 4 and hand.kitty == [] and hand.phase == Phase.PLAY
    assert hand.trump_order.order_text() == "5h > BJ > SJ"
    with pytest.raises(IllegalActionError):
        hand.bid(0, P("2s 2s"))


def _flag_endgame(preset: str, captured: int, failures: int = 0) -> Hand:
    rules = RuleSet.preset(preset)
    return Position.in_play(
        rules,
        hands=[P("3d"), P("4d"), P("6d"), P("7d")],
        kitty=[],
        dealer=0,
        trump=None,
        leader=0,
        dealer_progress=Progress(1, None),
        scoring_progress=Progress(1, Rank.NINE),
        captured=(0, captured),
        flag_failures=failures,
    ).hand()


def test_flag_hand_won_lost_and_lost_three_times() -> None:
    won = _flag_endgame("kangqi", 95)
    _play_out(won, ["3d", "4d", "6d", "7d"])
    assert won.result is not None and won.result.settlement.game_winner is Side.DEALER
    lost = _flag_endgame("kangqi", 120)
    _play_out(lost, ["3d", "4d", "6d", "7d"])
    s = lost.result.settlement if lost.result else None
    assert s is not None and s.table is Side.SCORING and s.dealer.is_flag and s.scoring.level == Rank.JACK
    third = _flag_endgame("institute2023", 120, failures=2)
    _play_out(third, ["3d", "4d", "6d", "7d"])
    s3 = third.result.settlement if third.result else None
    assert s3 is not None and s3.dealer.level == Rank.ACE


def test_refused_actions_change_nothing() -> None:
    hand = new_hand("standard", {0: "2s"}, dealer=0)
    hand.deal_all()
    before = (list(map(list, hand.hands)), list(hand.log))
    for bad in (
        lambda: hand.bury(0, hand.hands[0][:8]),
        lambda: hand.play(0, hand.hands[0][:1]),
        lambda: hand.bid(1, P("BJ")),
        lambda: hand.fry(1, P("2s 2s")),
    ):
        with pytest.raises(IllegalActionError):
            bad()
    assert (list(map(list, hand.hands)), list(hand.log)) == before


def test_shangtian_contest_p_decides_the_table() -> None:
    # contest2021: kou di with an FTK sends the dealer side to 2; with p < 80 it keeps the table from 2
    hand = _endgame(
        "contest2021",
        ["Ad Kd Qd", "5s Ts Ks", "3d 4d 6d", "3c 4c 6c"],
        "2c 2c 3h 3h 4h 4h 6h 6h",
        dealer=0,
        leader=0,
        level=Rank.NINE,
        captured=(0, 0),
    )
    _play_out(hand, ["Ad Kd Qd", "5s Ts Ks", "3d 4d 6d", "3c 4c 6c"])
    res = hand.result
    assert res is not None and res.points < 80
    s = res.settlement
    assert s.table is Side.DEALER and s.dealer.level is not None and s.dealer.level > Rank.TWO


def test_jack_rule_contest_whatever_p() -> None:
    hand = _endgame("contest2021", ["3d", "Jh", "4d", "6d"], dealer=0, leader=0, level=Rank.JACK, captured=(0, 0))
    _play_out(hand, ["3d", "Jh", "4d", "6d"])
    s = hand.result.settlement if hand.result else None
    assert s is not None and s.table is Side.DEALER and s.dealer.level is not None and s.dealer.level < Rank.JACK


def test_dark_fry_over_ones_own_standing_bid_is_judged_by_strength() -> None:
    # anchao (C<D<S<H): 0 bids spades, 1's dark clubs bid is void; 0 cannot know it stands and fries hearts
    # (a later hand: the table saw 1 bid last, so 0 is asked; rotate, so 0 is asked before any fry)
    spec = {"preset": "anchao", "set": {"fry_turns": "rotate"}}
    hand = new_hand(spec, {0: "8s 8s 8h 8h", 1: "8c 8c"}, dealer=0, level=Rank.EIGHT)
    hand.deal_all()
    hand.bid(0, P("8s 8s"))
    ev = hand.bid(1, P("8c 8c"))  # void, but nobody is told so before frying ends (RULES §10.5)
    assert ev.kind == "bid" and hand.bid_log[-1][2] is False
    hand.close_bidding()
    hand.bury(0, [c for c in hand.hands[0] if c.rank != Rank.EIGHT][:8])
    while hand.fry_next != 0:
        hand.pass_fry(hand.fry_next or 0)
    hand.fry(0, P("8h 8h"))
    hand.bury(0, [c for c in hand.hands[0] if c.rank != Rank.EIGHT][:8])
    while hand.phase == Phase.FRY:
        hand.pass_fry(hand.fry_next or 0)
    assert hand.trump == Suit.HEARTS and hand.adjustments == []
