"""Every example written in the rule book (docs/rules.md) sections 1 to 8, as tests."""

from __future__ import annotations

import pytest

from chaodipi.cards import Card, CardError, Rank, Suit, deck, format_cards, parse_cards, points_of
from chaodipi.play import FollowRule, check_follow, check_throw
from chaodipi.rules import KittyMultiplier
from chaodipi.trick import kitty_multiplier, resolve_trick
from chaodipi.units import PlayError, UnitKind, decompose
from conftest import cards, order

# -- §1 cards and notation ------------------------------------------------------------


def test_notation_is_case_insensitive_and_rank_first() -> None:
    assert str(Card.parse("js")) == "Js"
    assert str(Card.parse("sj")) == "SJ"
    assert str(Card.parse("10h")) == "Th"
    assert format_cards(parse_cards("ah AH kH bj Sj")) == "Ah Ah Kh BJ SJ"


@pytest.mark.parametrize("bad", ["", "1h", "Xs", "5x", "S", "hh", "10", "JJ"])
def test_bad_cards_are_refused_in_words(bad: str) -> None:
    with pytest.raises(CardError, match=r"card|rank"):
        Card.parse(bad)


def test_chinese_names() -> None:
    assert [c.chinese for c in parse_cards("5h BJ SJ As Td")] == ["红桃5", "大王", "小王", "黑桃A", "方块10"]


def test_deck_has_108_cards_and_200_points() -> None:
    d = deck()
    assert len(d) == 108 and points_of(d) == 200
    assert all(d.count(c) == 2 for c in Card.ALL)


# -- §3 trump ---------------------------------------------------------------------------


@pytest.mark.parametrize("level, trump", [("5", "h"), ("5", "s"), ("2", "h"), ("A", "nt")])
def test_5h_is_always_the_highest_trump(level: str, trump: str) -> None:
    trump_order = order("standard", level, trump)
    five = Card.parse("5h")
    assert all(trump_order.order_of(five) > trump_order.order_of(c) for c in Card.ALL if c is not five)


def test_trump_order_suit_hand() -> None:
    trump_order = order("standard", "8", "s")
    assert (
        trump_order.order_text()
        == "5h > BJ > SJ > 8s > 8h=8c=8d > As > Ks > Qs > Js > Ts > 9s > 7s > 6s > 5s > 4s > 3s > 2s"
    )


def test_trump_order_nt_and_flag() -> None:
    assert order("standard", "8", "nt").order_text() == "5h > BJ > SJ > 8s=8h=8c=8d"
    assert order("kangqi", "8", "flag").order_text() == "5h > BJ > SJ"
    assert order("kangqi", "8", "flag").effective_suit(Card.parse("8s")) == "s"


def test_equal_cards_first_played_wins() -> None:
    trump_order = order("standard", "2", "s")
    assert resolve_trick([cards("2h"), cards("2d"), cards("2c"), cards("3h")], trump_order).winner == 0
    assert resolve_trick([cards("9h"), cards("2d"), cards("2c"), cards("3h")], trump_order).winner == 1
    assert resolve_trick([cards("Ah"), cards("Ah"), cards("3h"), cards("4h")], trump_order).winner == 0


# -- §4 units ---------------------------------------------------------------------------


def kind(rules: str | dict[str, object], level: str, trump: str, text: str) -> str:
    try:
        return decompose(cards(text), order(rules, level, trump)).kind
    except PlayError:
        return "invalid"


def test_pairs() -> None:
    assert kind("standard", "8", "s", "8c 8d") == "throw"
    for p in ("BJ BJ", "SJ SJ", "5h 5h", "8c 8c"):
        assert kind("standard", "8", "s", p) == "pair"


@pytest.mark.parametrize(
    "rules, text, expected",
    [
        ("standard", "7h 7h 9h 9h", "throw"),  # none: the level leaves a gap
        ("kangqi", "7h 7h 9h 9h", "tractor"),  # all
        ("institute2023", "7h 7h 9h 9h", "tractor"),  # side
        ("kangqi", "7s 7s 9s 9s", "tractor"),  # all bridges inside the trump suit
        ("institute2023", "7s 7s 9s 9s", "throw"),  # 主牌中7799不算连对
        ("standard", "7s 7s 8s 8s", "tractor"),  # trump_level_links
        ("standard", "7s 7s 8s 8s 9s 9s", "tractor"),
        ("anchao", "7s 7s 8s 8s", "throw"),
        ("standard", "8h 8h 8s 8s", "throw"),  # off-suit level pairs stay isolated
        ("standard", "5h 5h BJ BJ", "throw"),
        ("standard", "SJ SJ BJ BJ", "tractor"),
    ],
)
def test_tractor_slots_level_8_spades(rules: str, text: str, expected: str) -> None:
    assert kind(rules, "8", "s", text) == expected


def test_5h_gap_never_bridged() -> None:
    for rules in ("standard", "kangqi", "institute2023"):
        assert kind(rules, "2", "s", "4h 4h 6h 6h") == "throw"
        assert kind(rules, "2", "h", "4h 4h 6h 6h") == "throw"
        assert kind(rules, "5", "s", "4h 4h 6h 6h") == "throw"
    assert kind("kangqi", "5", "s", "4d 4d 6d 6d") == "tractor"
    assert kind("standard", "5", "s", "4d 4d 6d 6d") == "throw"
    # links never apply to 5h: level 5, hearts trump
    assert kind("standard", "5", "h", "5h 5h 6h 6h") == "throw"
    assert kind("standard", "5", "h", "4h 4h 6h 6h") == "throw"


def test_ace_low_tractors() -> None:
    assert kind("standard", "3", "s", "Ah Ah 2h 2h") == "tractor"
    assert kind("contest2021", "3", "s", "Ah Ah 2h 2h") == "throw"
    assert kind({"preset": "standard", "set": {"ace_low_tractor": "no"}}, "3", "s", "Ah Ah 2h 2h") == "throw"
    # A cannot be high and low at once
    fmt = decompose(cards("Kh Kh Ah Ah 2h 2h"), order("standard", "3", "s"))
    assert fmt.kind == "throw" and fmt.tractor_lengths == (2,)
    # AA22 < 2233
    trump_order = order("standard", "5", "s")
    low = decompose(cards("Ah Ah 2h 2h"), trump_order).units[0]
    high = decompose(cards("2h 2h 3h 3h"), trump_order).units[0]
    assert low.strength < high.strength
    # the ace links to a 2 only: level 2 has no ace-low tractor, even with level gaps bridged
    assert kind("kangqi", "2", "s", "Ah Ah 3h 3h") == "throw"


def test_trump_level_links() -> None:
    trump_order = order("standard", "8", "s")
    high = decompose(cards("9s 9s Ts Ts"), trump_order).units[0]
    low = decompose(cards("7s 7s 8s 8s"), trump_order).units[0]
    assert high.strength > low.strength
    assert trump_order.order_of(Card.parse("8s")) > trump_order.order_of(Card.parse("As"))
    plays = [cards("7s 7s 8s 8s"), cards("9s 9s Ts Ts"), cards("3s 3s 4s 4s"), cards("6s 6s Js Js")]
    assert resolve_trick(plays, trump_order).winner == 1
    # level 2, spades trump, ace-low on: AsAs2s2s is a tractor
    assert kind("standard", "2", "s", "As As 2s 2s") == "tractor"
    assert kind("anchao", "2", "s", "As As 2s 2s") == "throw"


def test_nt_and_flag_hands_have_only_the_joker_tractor() -> None:
    assert kind("standard", "8", "nt", "SJ SJ BJ BJ") == "tractor"
    assert kind("standard", "8", "nt", "8s 8s 8h 8h") == "throw"
    assert kind("kangqi", "2", "flag", "SJ SJ BJ BJ") == "tractor"
    assert kind("kangqi", "2", "flag", "2s 2s 3s 3s") == "tractor"  # no level cards in a flag hand


def test_ftk() -> None:
    assert kind("standard", "2", "s", "5d Td Kd") == "ftk"
    assert kind("standard", "2", "s", "5s Ts Ks") == "ftk"
    assert decompose(cards("5s Ts Ks"), order("standard", "2", "s")).suit == "trump"
    # level 10: a side FTK of a suit is impossible; a trump FTK exists in the trump suit
    assert kind("standard", "T", "s", "5d Td Kd") == "invalid"
    assert kind("standard", "T", "s", "5s Ts Ks") == "ftk"
    # 红心5下放
    assert kind("standard", "2", "s", "5h Th Kh") == "ftk"
    assert decompose(cards("5h Th Kh"), order("standard", "2", "s")).suit == "h"
    assert kind("kangqi", "2", "s", "5h Th Kh") == "invalid"
    assert kind("standard", "K", "s", "5h Th Kh") == "invalid"  # Kh is a level card
    assert kind("standard", "2", "h", "5h Th Kh") == "ftk"  # a trump FTK with hearts trump
    assert decompose(cards("5h Th Kh"), order("standard", "2", "h")).suit == "trump"
    assert kind({"preset": "standard", "set": {"ftk": "no"}}, "2", "s", "5d Td Kd") == "throw"


def test_ftk_has_no_rank_order() -> None:
    trump_order = order("standard", "2", "s")
    plays = [cards("5d Td Kd"), cards("5d Td Kd"), cards("3d 4d 6d"), cards("7d 8d 9d")]
    assert resolve_trick(plays, trump_order).winner == 0


def test_canonical_decomposition() -> None:
    trump_order = order("standard", "5", "s")
    fmt = decompose(cards("Qd Qd Kd Kd Ad Ad 2d 2d"), trump_order)
    assert [(u.kind, format_cards(u.cards)) for u in fmt.units] == [
        (UnitKind.TRACTOR, "Ad Ad Kd Kd Qd Qd"),
        (UnitKind.PAIR, "2d 2d"),
    ]
    no_pair = order("contest2021", "2", "s")
    assert [u.kind for u in decompose(cards("5c 5c Tc Tc Kc Kc"), no_pair).units] == [UnitKind.FTK, UnitKind.FTK]
    fmt = decompose(cards("5s 5s Ts Ks"), order("contest2021", "2", "h"))
    assert [u.kind for u in fmt.units] == [UnitKind.FTK, UnitKind.SINGLE]
    assert [u.kind for u in decompose(cards("5c 5c Tc Tc Kc Kc"), order("standard", "2", "s")).units] == [
        UnitKind.FTK_PAIR
    ]


# -- §5 throws --------------------------------------------------------------------------


def test_throw_of_top_cards_stands() -> None:
    trump_order = order("standard", "2", "s")
    assert check_throw(cards("Ah Kh"), [cards("3h 4h"), cards("Qh Jh"), cards("6c 7c")], trump_order).ok


def test_failed_throw_forces_the_lowest_failing_unit() -> None:
    trump_order = order("standard", "2", "s")
    res = check_throw(cards("Qh Qh Ah 9h"), [cards("Kh Kh Th"), cards("4c"), cards("8c")], trump_order)
    assert not res.ok and format_cards(res.forced) == "9h" and res.penalty_cards == 4
    res = check_throw(cards("Qh Qh Ah"), [cards("Kh Kh 3h"), cards("4c"), cards("8c")], trump_order)
    assert format_cards(res.forced) == "Qh Qh"


def test_failed_throw_smallest_card_option() -> None:
    trump_order = order({"preset": "standard", "set": {"throw_fail_play": "smallest_card"}}, "2", "s")
    res = check_throw(cards("Qh Qh Ah 9h"), [cards("Kh Kh Th"), cards("4c"), cards("8c")], trump_order)
    assert format_cards(res.forced) == "9h"
    res = check_throw(cards("Qh Qh Ah"), [cards("Kh Kh 3h"), cards("4c"), cards("8c")], trump_order)
    assert format_cards(res.forced) == "Qh"


def test_tractor_beaten_only_by_as_long_a_tractor() -> None:
    trump_order = order("standard", "2", "s")
    lead = cards("Th Th Jh Jh Ah")
    assert not check_throw(lead, [cards("Qh Qh Kh Kh"), cards("3c"), cards("3d")], trump_order).ok
    assert check_throw(lead, [cards("Kh Kh 3h 3h"), cards("3c"), cards("3d")], trump_order).ok
    assert not check_throw(lead, [cards("6h 6h 7h 7h 8h 8h Qh Qh Kh Kh"), cards("3c"), cards("3d")], trump_order).ok


def test_ftk_in_a_throw_is_never_beaten() -> None:
    trump_order = order("standard", "2", "s")
    assert check_throw(cards("5d Td Kd Ad"), [cards("Qd Qd"), cards("Jd"), cards("9c")], trump_order).ok


# -- §6 following -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lead, hand, legal, illegal",
    [
        ("9h 9h", "3h 3h 4h 7h", ["3h 3h"], ["3h 4h", "4h 7h"]),
        ("9h 9h Th Th", "3h 3h 4h 4h 7h 7h", ["3h 3h 4h 4h"], ["3h 3h 7h 7h"]),
        ("9h 9h Th Th", "3h 3h 6h 6h 7h", ["3h 3h 6h 6h"], ["3h 3h 6h 7h"]),
        ("Ah Kh Qh", "3h 3h 4h 6h", ["3h 4h 6h", "3h 3h 4h", "3h 3h 6h"], []),
    ],
)
def test_rulebook_follow_examples(lead: str, hand: str, legal: list[str], illegal: list[str]) -> None:
    trump_order = order("standard", "2", "s")
    for p in legal:
        assert check_follow(cards(lead), cards(hand), cards(p), trump_order) is None, p
    for p in illegal:
        assert check_follow(cards(lead), cards(hand), cards(p), trump_order) is not None, p


def test_short_of_the_suit_plays_all_of_it() -> None:
    trump_order = order("standard", "2", "s")
    reason = check_follow(cards("9h 9h"), cards("3h Kc Kc 3d"), cards("Kc Kc"), trump_order)
    assert reason is not None and "hearts" in str(reason)
    assert reason.code == "follow.all_suit" and reason.get("cards") == tuple(cards("3h"))
    assert check_follow(cards("9h 9h"), cards("3h Kc Kc 3d"), cards("3h 3d"), trump_order) is None


def test_trump_ftk_lead_forces_highest_trumps() -> None:
    trump_order = order("standard", "2", "s")
    lead = cards("5s Ts Ks")
    assert check_follow(lead, cards("BJ 2s 3s 4s 6c"), cards("BJ 2s 4s"), trump_order) is None
    assert check_follow(lead, cards("BJ 2s 3s 4s 6c"), cards("BJ 3s 4s"), trump_order) is not None
    # ftk_else_top: a held trump FTK must be played
    hand = cards("BJ 5s Ts Ks 9s")
    assert check_follow(lead, hand, cards("5s Ts Ks"), trump_order) is None
    assert check_follow(lead, hand, cards("BJ Ks Ts"), trump_order) is not None
    top = order({"preset": "standard", "set": {"trump_ftk_follow": "top"}}, "2", "s")
    assert check_follow(lead, hand, cards("BJ Ks Ts"), top) is None
    assert check_follow(lead, hand, cards("5s Ts Ks"), top) is not None


def test_side_ftk_must_be_followed() -> None:
    trump_order = order("standard", "2", "s")
    lead = cards("5d Td Kd")
    assert check_follow(lead, cards("5d Td Kd 3d 4d"), cards("3d 4d 5d"), trump_order) is not None
    assert check_follow(lead, cards("5d Td Kd 3d 4d"), cards("5d Td Kd"), trump_order) is None
    off = order({"preset": "standard", "set": {"ftk_must_follow": "no"}}, "2", "s")
    assert check_follow(lead, cards("5d Td Kd 3d 4d"), cards("3d 4d 5d"), off) is None


def test_heart_ftk_with_5h_is_never_owed() -> None:
    trump_order = order("standard", "2", "s")
    lead = cards("5h Th Kh")
    assert check_follow(lead, cards("5h Th Kh 3h 9c"), cards("5h Th Kh"), trump_order) is not None
    assert check_follow(lead, cards("5h Th Kh 3h 9c"), cards("Th Kh 3h"), trump_order) is None


def test_void_follower_may_discard_or_trump() -> None:
    trump_order = order("standard", "2", "s")
    rule = FollowRule(cards("9h 9h"), cards("Kc Kc 3s 4d"), trump_order)
    plays = {format_cards(p) for p in rule.legal_plays()}
    assert "Kc Kc" in plays and "3s 4d" in plays and len(plays) == 4


# -- §7 who wins ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "plays, winner",
    [
        (["Ac Kc 5c 5c 4c 4c", "3d 4d 6d 7d 8d 9d", "9s 9s 8s 8s 7s 3s", "Jd Qd Kd 3h 4h 6h"], 2),
        (["Ac Ac 5c 5c 4c 4c", "3d 4d 6d 7d 8d 9d", "9s 9s 8s 8s 7s 3s", "Jd Qd Kd 3h 4h 6h"], 0),
        (["5c 4c 4c", "9s 7s 7s", "3d 3d 6d", "8s 8s 4s"], 3),
        (["5c 6c 7c", "9s 7s 7s", "Kd 3d 4d", "8s 8s 4s"], 1),
        (["5d Td Kd", "BJ BJ SJ", "5s Ts Ks", "3d 4d 6d"], 2),
        (["3h 3h 4h 4h", "Ah Ah Qh Qh", "6c 7c 8c 9c", "3d 4d 6d 7d"], 0),
        (["9h 9h Th Th", "Jh Jh Qh Qh", "Ah Ah Kh Kh", "3h 3h 4h 4h"], 2),
    ],
)
def test_trick_winner_examples(plays: list[str], winner: int) -> None:
    assert resolve_trick([cards(p) for p in plays], order("standard", "2", "s")).winner == winner


def test_trick_points() -> None:
    res = resolve_trick(
        [cards("5c 4c 4c"), cards("9s 7s 7s"), cards("3d 3d 6d"), cards("8s 8s Ks")], order("standard", "2", "s")
    )
    assert res.points == 15


def test_succeeded_throw_cannot_be_beaten_in_suit() -> None:
    trump_order = order("standard", "2", "s")
    plays = [cards("Ah Kh"), cards("3h 4h"), cards("Qh Jh"), cards("6c 7c")]
    assert resolve_trick(plays, trump_order).winner == 0
    trump_throw = [cards("As Ks"), cards("BJ SJ"), cards("3s 4s"), cards("6c 7c")]
    assert resolve_trick(trump_throw, trump_order).winner == 0


def test_trump_lead_followed_by_non_trumps_is_a_discard() -> None:
    trump_order = order("standard", "2", "s")
    assert resolve_trick([cards("3s"), cards("Ah"), cards("BJ"), cards("4s")], trump_order).winner == 2


# -- §8 kitty --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lead, linear, exponential",
    [
        ("Ah", 2, 2),
        ("Ah Ah", 4, 4),
        ("3h 3h 4h 4h", 8, 16),
        ("7h 7h 8h 8h 9h 9h", 12, 64),
        ("5d Td Kd", 2, 2),
        ("5d 5d Td Td Kd Kd", 4, 4),
        ("Ah Kh Qh", 2, 2),
    ],
)
def test_kitty_multiplier(lead: str, linear: int, exponential: int) -> None:
    fmt = decompose(cards(lead), order("standard", "2", "s"))
    assert kitty_multiplier(fmt, KittyMultiplier.LINEAR) == linear
    assert kitty_multiplier(fmt, KittyMultiplier.EXPONENTIAL) == exponential


def test_rank_parse() -> None:
    assert Rank.parse("10") is Rank.TEN and Suit("h") is Suit.HEARTS
