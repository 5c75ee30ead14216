"""Tests for bids and overrides (RULES §9.2, §9.3) and the fry strength test (§10.2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.bidding import (
    NT,
    Bid,
    Bidding,
    BidError,
    BidKind,
    BidRequestError,
    IllegalBidError,
    StandingBid,
    classify_bid,
    evaluate_bids,
    parse_choice,
)
from chaodipi.cards import Card, CardError, Rank, Suit, parse_cards
from chaodipi.phrases import Phrase
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.trump import trump_text

EIGHT = Rank.EIGHT
PUBLIC = Path(__file__).resolve().parent / "scenarios" / "public.jsonl"
LOOKBACK_PRESETS = ("anchao", "mingchao", "contest2021")
NO_LOOKBACK_PRESETS = ("standard", "kangqi", "institute2023")


def rules(name: str) -> RuleSet:
    return RuleSet.preset(name)


def bid(player: int, cards: str, choose: str | None = None) -> Bid:
    return Bid.parse(player, cards, choose)


def run(preset: str | RuleSet, seq: list[tuple[Any, ...]], level: Rank = EIGHT) -> dict[str, Any]:
    rs = preset if isinstance(preset, RuleSet) else rules(preset)
    return evaluate_bids(rs, level, [bid(*b) for b in seq]).to_json()


# -- public scenarios ------------------------------------------------------
def _public_bids() -> list[dict[str, Any]]:
    if not PUBLIC.exists():
        return []
    lines = [json.loads(line) for line in PUBLIC.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in lines if r.get("op") == "bids"]


@pytest.mark.parametrize("req", _public_bids(), ids=lambda r: json.dumps(r["bids"]))
def test_public_bids_scenarios(req: dict[str, Any]) -> None:
    rs = RuleSet.from_spec(req["rules"])
    level = Rank.parse(req["level"])
    bids = [Bid.parse(b["player"], b["cards"], b.get("choose")) for b in req["bids"]]
    assert evaluate_bids(rs, level, bids).to_json() == req["expect"]


def test_public_bids_scenarios_present() -> None:
    assert len(_public_bids()) >= 8


# -- parsing and shapes (RULES §9.2) ----------------------------------------
def test_parse_choice() -> None:
    assert parse_choice("nt") == NT
    assert parse_choice("NT") == NT
    assert parse_choice(" S ") is Suit.SPADES
    assert parse_choice(Suit.CLUBS) is Suit.CLUBS
    with pytest.raises(BidRequestError, match="choose"):
        parse_choice("x")
    with pytest.raises(BidRequestError):
        parse_choice(3)


def test_trump_text() -> None:
    assert trump_text(None) == "nt"
    assert trump_text(Suit.DIAMONDS) == "d"


def test_bid_parse_and_validation() -> None:
    b = bid(1, "8c 8C")
    assert b.cards == (Card.parse("8c"), Card.parse("8c"))
    assert b.choose is None
    assert str(bid(3, "5h 5h", "nt")) == "player 3: 5h 5h (nt)"
    with pytest.raises(BidRequestError, match="seat"):
        bid(4, "8c")
    with pytest.raises(BidRequestError):
        Bid(True, (Card.parse("8c"),))
    with pytest.raises(BidRequestError, match="cards"):
        Bid(0, ("8c",))  # type: ignore[arg-type]
    with pytest.raises(CardError):
        bid(0, "8x")
    assert Bid(0, [Card.parse("8c")], "c").choose is Suit.CLUBS  # type: ignore[arg-type]


def test_bid_errors_are_value_errors() -> None:
    assert issubclass(BidError, ValueError)
    assert issubclass(IllegalBidError, BidError)
    assert issubclass(BidRequestError, BidError)


@pytest.mark.parametrize(
    ("cards", "kind", "trump", "token"),
    [
        ("8s", BidKind.SINGLE, Suit.SPADES, "single"),
        ("8d", BidKind.SINGLE, Suit.DIAMONDS, "single"),
        ("8h 8h", BidKind.PAIR, Suit.HEARTS, "h"),
        ("8c 8c", BidKind.PAIR, Suit.CLUBS, "c"),
        ("SJ SJ", BidKind.JOKER_PAIR, None, "SJ"),
        ("BJ BJ", BidKind.JOKER_PAIR, None, "BJ"),
    ],
)
def test_classify_shapes(cards: str, kind: BidKind, trump: Suit | None, token: str) -> None:
    shape = classify_bid(parse_cards(cards), EIGHT)
    assert (shape.kind, shape.trump, shape.token) == (kind, trump, token)


@pytest.mark.parametrize(
    ("cards", "words"),
    [
        ("BJ", "alone"),
        ("SJ", "alone"),
        ("5h", "alone"),
        ("Ks", "not a level card"),
        ("8c 8d", "two different level cards"),
        ("8c Kc", "not a pair"),
        ("Ks Ks", "not of level cards"),
        ("8c 8c 8d", "3 cards"),
        ("", "not none"),
        ("SJ BJ", "not a pair"),
    ],
)
def test_classify_non_bids(cards: str, words: str) -> None:
    with pytest.raises(IllegalBidError, match=words):
        classify_bid(parse_cards(cards), EIGHT)


@pytest.mark.parametrize("choose", ["s", "h", "c", "d"])
def test_red5_pair_chooses_any_suit(choose: str) -> None:
    shape = classify_bid(parse_cards("5h 5h"), EIGHT, parse_choice(choose))
    assert shape == (BidKind.RED5_PAIR, Suit(choose), "5h")


def test_red5_pair_chooses_nt() -> None:
    assert classify_bid(parse_cards("5h 5h"), EIGHT, NT) == (BidKind.RED5_PAIR, None, "5h")


def test_red5_pair_without_choice_is_a_bad_request() -> None:
    with pytest.raises(BidRequestError, match="name its trump"):
        classify_bid(parse_cards("5h 5h"), EIGHT)
    with pytest.raises(BidRequestError):
        run("standard", [(0, "5h 5h")])
    with pytest.raises(BidRequestError):
        Bidding(rules("standard"), EIGHT).check(bid(0, "5h 5h"))


def test_choose_on_other_bid_is_a_bad_request() -> None:
    with pytest.raises(BidRequestError, match="only a 5h 5h"):
        classify_bid(parse_cards("8s 8s"), EIGHT, Suit.HEARTS)


# -- level 5 ---------------------------------------------------------------
def test_level5_red5_single_declares_hearts() -> None:
    assert run("standard", [(0, "5h")], Rank.FIVE) == {"valid": [True], "trump": "h", "bidder": 0}


def test_level5_other_fives_are_level_cards() -> None:
    assert run("standard", [(1, "5s")], Rank.FIVE) == {"valid": [True], "trump": "s", "bidder": 1}
    assert run("standard", [(1, "5d 5d"), (2, "5c 5c")], Rank.FIVE)["trump"] == "c"


def test_level5_red5_pair_is_the_top_bid_with_a_choice() -> None:
    assert run("standard", [(0, "5s 5s"), (1, "5h 5h", "d")], Rank.FIVE) == {
        "valid": [True, True],
        "trump": "d",
        "bidder": 1,
    }
    shape = classify_bid(parse_cards("5h 5h"), Rank.FIVE, NT)
    assert shape.kind is BidKind.RED5_PAIR
    with pytest.raises(BidRequestError):
        run("standard", [(0, "5h 5h")], Rank.FIVE)


def test_level5_red5_pair_outranks_bj_pair() -> None:
    assert run("standard", [(0, "BJ BJ"), (1, "5h 5h", "h")], Rank.FIVE)["valid"] == [True, True]


def test_level5_red5_reinforce_names_a_choice() -> None:
    out = run("standard", [(0, "5h"), (0, "5h 5h", "nt")], Rank.FIVE)
    assert out == {"valid": [True, True], "trump": "nt", "bidder": 0}


def test_level5_red5_pair_is_never_a_lookback() -> None:
    b = Bidding(rules("anchao"), Rank.FIVE)
    b.apply(bid(0, "5h"))
    b.apply(bid(1, "BJ BJ"))
    st_ = b.apply(bid(0, "5h 5h", "c"))
    assert (st_.kind, st_.trump, st_.token) == (BidKind.RED5_PAIR, Suit.CLUBS, "5h")


# -- singles ---------------------------------------------------------------
def test_bj_single_is_invalid() -> None:
    assert run("standard", [(0, "BJ")]) == {"valid": [False], "trump": None, "bidder": None}


def test_single_only_as_first_bid() -> None:
    out = run("standard", [(0, "8d"), (1, "8s")])
    assert out == {"valid": [True, False], "trump": "d", "bidder": 0}
    out = run("standard", [(0, "8d 8d"), (1, "8s")])
    assert out == {"valid": [True, False], "trump": "d", "bidder": 0}


def test_single_after_invalid_bid_is_still_first() -> None:
    assert run("standard", [(0, "BJ"), (1, "8h")]) == {"valid": [False, True], "trump": "h", "bidder": 1}


def test_any_pair_outranks_a_single() -> None:
    for preset in PRESET_NAMES:
        assert run(preset, [(0, "8s"), (1, "8d 8d")])["valid"] == [True, True], preset


def test_no_valid_bid_is_not_nt() -> None:
    out = evaluate_bids(rules("standard"), EIGHT, [bid(0, "Ks")])
    assert out.standing is None and out.bidder is None
    with pytest.raises(BidError):
        _ = out.trump
    nt = evaluate_bids(rules("standard"), EIGHT, [bid(0, "SJ SJ")])
    assert nt.trump is None and nt.bidder == 0
    assert nt.to_json() == {"valid": [True], "trump": "nt", "bidder": 0}


# -- bid orders of the presets (RULES §9.3, §15) ------------------------------
ORDERED = {
    "standard": ["d", "c", "h", "s"],
    "kangqi": ["d", "c", "h", "s"],
    "mingchao": ["d", "c", "h", "s"],
    "contest2021": ["d", "c", "h", "s"],
    "anchao": ["c", "d", "s", "h"],
}


@pytest.mark.parametrize("preset", list(ORDERED))
def test_preset_suit_pair_order(preset: str) -> None:
    suits = ORDERED[preset]
    for i, low in enumerate(suits):
        for high in suits[i + 1 :]:
            up = run(preset, [(0, f"8{low} 8{low}"), (1, f"8{high} 8{high}")])
            assert up == {"valid": [True, True], "trump": high, "bidder": 1}, (preset, low, high)
            down = run(preset, [(0, f"8{high} 8{high}"), (1, f"8{low} 8{low}")])
            assert down == {"valid": [True, False], "trump": high, "bidder": 0}, (preset, low, high)


def test_anchao_clubs_below_diamonds_standard_diamonds_below_clubs() -> None:
    assert run("anchao", [(0, "8c 8c"), (1, "8d 8d")])["valid"] == [True, True]
    assert run("anchao", [(0, "8d 8d"), (1, "8c 8c")])["valid"] == [True, False]
    assert run("standard", [(0, "8d 8d"), (1, "8c 8c")])["valid"] == [True, True]
    assert run("standard", [(0, "8c 8c"), (1, "8d 8d")])["valid"] == [True, False]


@pytest.mark.parametrize("preset", list(ORDERED))
def test_top_of_order(preset: str) -> None:
    seq = [(0, "8s 8s"), (1, "8h 8h"), (2, "SJ SJ"), (3, "BJ BJ"), (0, "5h 5h", "nt")]
    out = run(preset, seq)
    assert out["valid"][2:] == [True, True, True]
    assert out["trump"] == "nt" and out["bidder"] == 0
    # nothing but a look-back outranks 5h 5h; equal bids do not override
    assert run(preset, [(0, "5h 5h", "s"), (1, "BJ BJ")])["valid"] == [True, False]
    assert run(preset, [(0, "BJ BJ"), (1, "SJ SJ")])["valid"] == [True, False]
    b = Bidding(rules(preset), EIGHT)
    b.apply(bid(0, "8s 8s"))
    assert not b.can(bid(1, "8s 8s"))  # the other pair of the same strength (as a bare check)


def test_unordered_any_pair_overrides() -> None:
    seq = [(0, "5h 5h", "s"), (1, "8d 8d"), (2, "SJ SJ"), (3, "8c 8c"), (0, "8h 8h")]
    out = run("institute2023", seq)
    assert out == {"valid": [True, True, True, True, True], "trump": "h", "bidder": 0}
    b = Bidding(rules("institute2023"), EIGHT)
    b.apply(bid(0, "BJ BJ"))
    assert b.can(bid(1, "BJ BJ"))  # even an equal pair (as a bare check)


def test_unordered_single_still_only_first() -> None:
    assert run("institute2023", [(0, "8s 8s"), (1, "8d")])["valid"] == [True, False]


def test_unordered_never_overrides_own_bid() -> None:
    assert run("institute2023", [(0, "8s 8s"), (0, "8d 8d")])["valid"] == [True, False]


def test_custom_order() -> None:
    rs = RuleSet.from_spec({"preset": "standard", "set": {"bid_order": "S<H<C<D<SJ<BJ<5h"}})
    assert run(rs, [(0, "8s 8s"), (1, "8d 8d")])["valid"] == [True, True]
    assert run(rs, [(0, "8d 8d"), (1, "8s 8s")])["valid"] == [True, False]


# -- own bids, partners, reinforcing (RULES §9.3) -----------------------------
def test_partners_may_override_each_other() -> None:
    assert run("standard", [(0, "8d 8d"), (2, "8s 8s")]) == {"valid": [True, True], "trump": "s", "bidder": 2}


def test_player_never_overrides_own_bid() -> None:
    assert run("standard", [(0, "8d 8d"), (0, "8s 8s")]) == {"valid": [True, False], "trump": "d", "bidder": 0}
    assert run("standard", [(0, "8d"), (0, "8s 8s")]) == {"valid": [True, False], "trump": "d", "bidder": 0}
    b = Bidding(rules("standard"), EIGHT)
    b.apply(bid(0, "8d"))
    assert "own" in str(b.check(bid(0, "SJ SJ")) or "")


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_reinforce_own_single(preset: str) -> None:
    b = Bidding(rules(preset), EIGHT)
    b.apply(bid(0, "8c"))
    st_ = b.apply(bid(0, "8c 8c"))
    assert st_ == StandingBid(0, BidKind.PAIR, Suit.CLUBS, "c", tuple(parse_cards("8c 8c")))
    assert b.first_single == (0, Card.parse("8c"))


def test_reinforced_pair_has_the_pair_strength() -> None:
    out = run("standard", [(0, "8c"), (0, "8c 8c"), (1, "8d 8d"), (2, "8h 8h")])
    assert out == {"valid": [True, True, False, True], "trump": "h", "bidder": 2}


def test_reinforce_only_with_the_twin() -> None:
    assert run("standard", [(0, "8c"), (0, "8d 8d")])["valid"] == [True, False]


def test_reinforce_only_before_anyone_overrides() -> None:
    # After another's override, showing the pair is an override (standard) or a look-back (anchao).
    assert run("standard", [(0, "8s"), (1, "8d 8d"), (0, "8s 8s")]) == {
        "valid": [True, True, True],
        "trump": "s",
        "bidder": 0,
    }
    assert run("standard", [(0, "8d"), (1, "8s 8s"), (0, "8d 8d")])["valid"] == [True, True, False]


def test_reinforce_after_invalid_override_attempt() -> None:
    out = run("standard", [(0, "8c"), (1, "BJ"), (0, "8c 8c")])
    assert out == {"valid": [True, False, True], "trump": "c", "bidder": 0}


# -- look-back 回头望 (RULES §9.2) ------------------------------------------
@pytest.mark.parametrize("preset", LOOKBACK_PRESETS)
def test_lookback_allowed(preset: str) -> None:
    out = run(preset, [(0, "8d"), (1, "8s 8s"), (2, "BJ BJ"), (3, "5h 5h", "nt"), (0, "8d 8d")])
    assert out == {"valid": [True] * 5, "trump": "d", "bidder": 0}
    b = Bidding(rules(preset), EIGHT)
    for x in [bid(0, "8d"), bid(3, "5h 5h", "nt")]:
        b.apply(x)
    st_ = b.apply(bid(0, "8d 8d"))
    assert (st_.kind, st_.token, st_.trump) == (BidKind.LOOKBACK, "LB", Suit.DIAMONDS)
    # nothing outranks a look-back
    assert not b.can(bid(1, "5h 5h", "s"))


@pytest.mark.parametrize("preset", NO_LOOKBACK_PRESETS)
def test_lookback_refused(preset: str) -> None:
    out = run(preset, [(0, "8d"), (1, "5h 5h", "s"), (0, "8d 8d")])
    valid = [True, True, preset == "institute2023"]  # unordered: an ordinary override
    assert out["valid"] == valid
    assert out["bidder"] == (0 if valid[2] else 1)


def test_lookback_not_after_first_pair() -> None:
    out = run("anchao", [(0, "8c 8c"), (1, "8s 8s"), (0, "8c 8c")])
    assert out == {"valid": [True, True, False], "trump": "s", "bidder": 1}
    b = Bidding(rules("anchao"), EIGHT)
    b.apply(bid(0, "8c 8c"))
    assert b.first_single is None


def test_lookback_only_by_the_first_single_bidder() -> None:
    # Checked on the state alone (as a referee replay, it would need a third 8s).
    b = Bidding(rules("anchao"), EIGHT)
    b.apply(bid(0, "8s"))
    b.apply(bid(1, "8h 8h"))
    assert not b.can(bid(2, "8s 8s"))
    assert b.apply(bid(0, "8s 8s")).kind is BidKind.LOOKBACK


def test_lookback_only_with_the_twin() -> None:
    assert run("anchao", [(0, "8c"), (1, "BJ BJ"), (0, "8h 8h")])["valid"] == [True, True, False]


def test_lookback_not_after_reinforcing() -> None:
    out = run("anchao", [(0, "8c"), (0, "8c 8c"), (1, "8h 8h"), (0, "8c 8c")])
    assert out == {"valid": [True, True, True, False], "trump": "h", "bidder": 1}


def test_lookback_option_on_a_preset_without_lb_in_the_order() -> None:
    rs = RuleSet.from_spec({"preset": "standard", "set": {"lookback": "yes"}})
    out = run(rs, [(0, "8d"), (1, "5h 5h", "s"), (0, "8d 8d")])
    assert out == {"valid": [True, True, True], "trump": "d", "bidder": 0}


def test_lookback_after_partner_override() -> None:
    assert run("mingchao", [(0, "8d"), (2, "8s 8s"), (0, "8d 8d")])["trump"] == "d"


# -- dark bids ---------------------------------------------------------------
def test_dark_bids_that_do_not_outrank_are_void() -> None:
    out = run("anchao", [(0, "8d 8d"), (1, "8c 8c"), (2, "8s 8s")])
    assert out == {"valid": [True, False, True], "trump": "s", "bidder": 2}


# -- third copies ------------------------------------------------------------
def test_third_copy_across_players_is_an_error() -> None:
    with pytest.raises(CardError, match="third"):
        run("standard", [(0, "8c"), (1, "8c 8c")])
    with pytest.raises(CardError):
        run("standard", [(0, "8s 8s"), (1, "5h 5h", "s"), (2, "8s")])


def test_reshowing_own_cards_is_not_a_third_copy() -> None:
    out = run("anchao", [(0, "8c"), (1, "8s 8s"), (0, "8c 8c"), (2, "BJ")])
    assert out["valid"] == [True, True, True, False]
    run("standard", [(0, "8c 8c"), (0, "8c 8c"), (0, "8c")])


def test_third_copy_within_one_bid() -> None:
    with pytest.raises(CardError):
        run("standard", [(0, "8c 8c 8c")])


# -- the Bidding object: operations, state, fries ---------------------------------
def test_apply_raises_and_keeps_state() -> None:
    b = Bidding(rules("standard"), EIGHT)
    b.apply(bid(0, "8h 8h"))
    before = (b.standing, b.first_single, b.history)
    with pytest.raises(IllegalBidError, match="not stronger"):
        b.apply(bid(1, "8d 8d"))
    assert (b.standing, b.first_single, b.history) == before
    assert len(b.history) == 1


def test_offer_logs_void_bids() -> None:
    b = Bidding(rules("standard"), EIGHT)
    assert b.offer(bid(0, "BJ")) is False
    assert b.offer(bid(1, "8s")) is True
    assert [v for _, v in b.history] == [False, True]
    assert b.trump is Suit.SPADES


def test_history_is_a_copy() -> None:
    b = Bidding(rules("standard"), EIGHT)
    b.apply(bid(0, "8s"))
    b.history.clear()
    assert len(b.history) == 1


def test_trump_without_bid_raises() -> None:
    with pytest.raises(BidError, match="no trump"):
        _ = Bidding(rules("standard"), EIGHT).trump


def test_bad_level() -> None:
    with pytest.raises(BidRequestError):
        Bidding(rules("standard"), Rank.BIG_JOKER)


def test_reasons_are_words() -> None:
    b = Bidding(rules("standard"), EIGHT)
    assert "alone" in str(b.check(bid(0, "SJ")) or "")
    b.apply(bid(0, "8s"))
    reason = b.check(bid(1, "8d"))
    assert reason is not None and "first bid" in str(reason) and "player 0's 8s stands" in str(reason)
    assert reason.code == "bid.single_not_first" and reason.get("standing_player") == 0
    b.apply(bid(1, "BJ BJ"))
    reason = b.check(bid(2, "SJ SJ"))
    assert reason is not None and "player 1's standing BJ BJ" in str(reason)
    assert reason.to_json() == {
        "code": "bid.weaker",
        "cards": "SJ SJ",
        "standing_player": 1,
        "standing_cards": "BJ BJ",
        "bid_order": "D<C<H<S<SJ<BJ<5h",
    }


def test_fry_needs_a_pair_that_overrides() -> None:
    b = Bidding(rules("standard"), EIGHT)
    assert "nobody bid" in str(b.check_override(bid(1, "8s 8s")) or "")
    b.apply(bid(0, "8d"))
    assert "cannot fry" in str(b.check_override(bid(1, "8s")) or "")
    assert "not a fry" in str(b.check_override(bid(0, "8d 8d")) or "")
    assert b.can_override(bid(1, "8c 8c"))
    b.apply(bid(1, "8c 8c"), fry=True)
    assert not b.can_override(bid(2, "8d 8d"))
    assert not b.can(bid(2, "8d 8d"), fry=True)
    assert b.can_override(bid(2, "SJ SJ"))
    assert "own" in str(b.check_override(bid(1, "BJ BJ")) or "")


def test_fry_lookback() -> None:
    b = Bidding(rules("contest2021"), EIGHT)
    b.apply(bid(0, "8h"))
    b.apply(bid(1, "BJ BJ"), fry=True)
    assert b.can_override(bid(0, "8h 8h"))
    assert b.apply(bid(0, "8h 8h"), fry=True).kind is BidKind.LOOKBACK


def test_unordered_fry_cannot_fail() -> None:
    b = Bidding(rules("institute2023"), EIGHT)
    b.apply(bid(0, "5h 5h", "h"))
    assert b.can_override(bid(1, "8d 8d"))


# -- properties (hypothesis) -----------------------------------------------------
POOL = ["8s", "8h", "8c", "8d", "SJ", "BJ", "5h", "Ks", "3c"]


@st.composite
def bids(draw: st.DrawFn) -> Bid:
    player = draw(st.integers(0, 3))
    shape = draw(st.sampled_from(["single", "pair", "pair", "pair", "mixed", "three"]))
    first = draw(st.sampled_from(POOL))
    if shape == "single":
        cards = [first]
    elif shape == "pair":
        cards = [first, first]
    elif shape == "mixed":
        cards = [first, draw(st.sampled_from(POOL))]
    else:
        cards = [first, first, draw(st.sampled_from(POOL))]
    choose = draw(st.sampled_from(["s", "h", "c", "d", "nt"])) if cards == ["5h", "5h"] else None
    return Bid.parse(player, cards, choose)


presets = st.sampled_from(PRESET_NAMES)


def _replay(rs: RuleSet, seq: list[Bid]) -> tuple[Bidding, list[bool]]:
    b = Bidding(rs, EIGHT)
    return b, [b.offer(x) for x in seq]


@settings(max_examples=300, deadline=None)
@given(presets, st.lists(bids(), max_size=12))
def test_standing_is_the_last_valid_bid(preset: str, seq: list[Bid]) -> None:
    b, valid = _replay(rules(preset), seq)
    made = [x for x, v in zip(seq, valid, strict=True) if v]
    if not made:
        assert b.standing is None
    else:
        assert b.standing is not None
        assert b.standing.player == made[-1].player
        assert b.standing.cards == made[-1].cards
    assert b.history == list(zip(seq, valid, strict=True))
    if made:
        assert (b.first_single is not None) == (len(made[0].cards) == 1)


@settings(max_examples=300, deadline=None)
@given(presets, st.lists(bids(), max_size=12))
def test_ordered_strength_only_rises(preset: str, seq: list[Bid]) -> None:
    rs = rules(preset)
    b = Bidding(rs, EIGHT)
    last = -1
    for x in seq:
        if b.offer(x):
            assert b.standing is not None
            if not rs.bid_order.unordered:
                strength = rs.bid_order.rank(b.standing.token)
                assert strength > last
                last = strength


@settings(max_examples=300, deadline=None)
@given(presets, st.lists(bids(), max_size=10), bids(), st.booleans())
def test_check_can_apply_agree(preset: str, seq: list[Bid], extra: Bid, fry: bool) -> None:
    b, _ = _replay(rules(preset), seq)
    reason = b.check(extra, fry=fry)
    assert b.can(extra, fry=fry) == (reason is None)
    before = (b.standing, b.first_single, b.history)
    if reason is None:
        standing = b.apply(extra, fry=fry)
        assert b.standing == standing and standing.player == extra.player
        assert b.history[-1] == (extra, True)
    else:
        assert isinstance(reason, Phrase) and str(reason)
        with pytest.raises(IllegalBidError) as exc:
            b.apply(extra, fry=fry)
        assert str(exc.value) == str(reason) and exc.value.phrase == reason
        assert (b.standing, b.first_single, b.history) == before


@settings(max_examples=300, deadline=None)
@given(presets, st.lists(bids(), max_size=10), bids())
def test_a_fry_is_an_override(preset: str, seq: list[Bid], extra: Bid) -> None:
    b, _ = _replay(rules(preset), seq)
    if b.can_override(extra):
        assert b.can(extra)
        assert len(extra.cards) == 2


@settings(max_examples=300, deadline=None)
@given(presets, st.lists(bids(), max_size=10))
def test_evaluate_bids_matches_replay_or_raises_copies(preset: str, seq: list[Bid]) -> None:
    rs = rules(preset)
    try:
        out = evaluate_bids(rs, EIGHT, seq)
    except CardError:
        return
    b, valid = _replay(rs, seq)
    assert out.valid == tuple(valid)
    assert out.standing == b.standing
    js = out.to_json()
    assert (js["trump"] is None) == (b.standing is None)
