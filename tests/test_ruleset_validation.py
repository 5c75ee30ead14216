"""A RuleSet refuses what it cannot honour, however it is built (RULES §15).

Every field is checked at construction: by keyword arguments (typed values, strictly), by
``with_options`` / ``from_spec`` (a spec: JSON and RULES §15's words) and in the presets.
A refusal is a RuleError naming the option and what it may be; nothing is rewritten
silently (``ftk_pair`` is derived from ``ftk`` only in a house rule that leaves it out).
"""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.cards import Rank
from chaodipi.rules import (
    INT_OPTION_RANGES,
    PRESET_NAMES,
    PRESETS,
    BidOrder,
    FryVisibility,
    JackRule,
    NoBidTrump,
    RuleError,
    RuleSet,
    Shangtian,
    TractorSkipLevel,
)

# -- what each option is (written out here, so the test does not trust the module's own table) -------

BOOLS = {
    "lookback",
    "fry",
    "trump_level_links",
    "ace_low_tractor",
    "ftk",
    "ftk_pair",
    "heart5_in_ftk",
    "ftk_must_follow",
    "flag",
    "double_red5",
    "red5_bonus",
    "credits",
}
INTS = {
    "throw_penalty_per_card",
    "circles",
    "flag_threshold",
    "declare_seconds",
    "bury_seconds",
    "play_seconds",
    "fry_seconds",
}
OPTIONAL_INTS = {"dark_fry_penalty", "flag_fail_limit", "shangtian_credits", "escape_penalty"}
ENUMS = {
    "no_bid_trump",
    "fry_visibility",
    "fry_turns",
    "tractor_skip_level",
    "trump_ftk_follow",
    "throw_fail_play",
    "kitty_multiplier",
    "level_table",
    "shangtian",
    "jack_rule",
}
OTHERS = {"bid_order", "must_play"}

HINTS = typing.get_type_hints(RuleSet)


def _enum_values(option: str) -> list[str]:
    return [m.value for m in HINTS[option]]


def test_every_option_is_in_one_kind() -> None:
    kinds = [BOOLS, INTS, OPTIONAL_INTS, ENUMS, OTHERS]
    assert sum(len(k) for k in kinds) == len(RuleSet.option_names())
    assert set().union(*kinds) == set(RuleSet.option_names())
    assert set(INT_OPTION_RANGES) == INTS | OPTIONAL_INTS


# -- wrong values, one table for the direct and one for the spec path ------------------------------


def _direct_bad(option: str) -> list[object]:
    if option in BOOLS:
        return [0, 1, "yes", "true", None, [], 1.0]
    if option in INTS | OPTIONAL_INTS:
        low, high = INT_OPTION_RANGES[option]
        wrong_type: list[object] = [True, False, "10", 10.0, []]
        return [*wrong_type, low - 1, high + 1, 10**50] + ([] if option in OPTIONAL_INTS else [None])
    if option in ENUMS:
        first = _enum_values(option)[0]
        return ["bogus", first.upper(), f" {first}", 1, None, True, ["x"]]
    if option == "bid_order":
        return ["D<C<H<S<SJ<BJ<5h", ("d", "c", "h", "s", "SJ", "BJ", "5h"), None, 7]
    assert option == "must_play"
    return [
        "A",
        [Rank.ACE],
        (14,),
        ("A",),
        (Rank.BIG_JOKER,),
        (Rank.ACE, Rank.JACK),
        (Rank.ACE, Rank.ACE),
        None,
    ]


def _spec_bad(option: str) -> list[object]:
    if option in BOOLS:
        return [0, 1, "maybe", "1", None, [], {}, 1.5]
    if option in INTS | OPTIONAL_INTS:
        low, high = INT_OPTION_RANGES[option]
        wrong_type: list[object] = [True, "many", 1.5, [], {"a": 1}, "1e3"]
        return [*wrong_type, low - 1, high + 1, str(high + 1), 10**50, "9" * 5000] + (
            [] if option in OPTIONAL_INTS else [None, "no"]
        )
    if option in ENUMS:
        return ["bogus", 1, None, True, [], {"a": 1}]
    if option == "bid_order":
        return ["D<C", "x", "D<D<C<H<S<SJ<BJ<5h", [], [1], 5, None, {}]
    assert option == "must_play"
    return ["Z", "BJ", 5, {"a": 1}, ["SJ"], [[]], 1.5, True]


DIRECT_CASES = [(o, v) for o in RuleSet.option_names() for v in _direct_bad(o)]
SPEC_CASES = [(o, v) for o in RuleSet.option_names() for v in _spec_bad(o)]


def _assert_names_what_is_allowed(option: str, message: str) -> None:
    assert f"option {option} " in message or f"option {option}:" in message, message
    if option in ENUMS:
        assert f"one of {', '.join(_enum_values(option))}" in message, message
    if option in INTS | OPTIONAL_INTS:
        low, high = INT_OPTION_RANGES[option]
        assert f"from {low} to {high}" in message, message
    assert len(message) < 300, message


@pytest.mark.parametrize("option, value", DIRECT_CASES, ids=[f"{o}={v!r:.30}" for o, v in DIRECT_CASES])
def test_direct_construction_refuses_a_wrong_value(option: str, value: object) -> None:
    with pytest.raises(RuleError) as caught:
        RuleSet(**{option: value})
    _assert_names_what_is_allowed(option, str(caught.value))


@pytest.mark.parametrize("option, value", SPEC_CASES, ids=[f"{o}={v!r:.30}" for o, v in SPEC_CASES])
def test_from_spec_refuses_a_wrong_value(option: str, value: object) -> None:
    with pytest.raises(RuleError) as caught:
        RuleSet.from_spec({"preset": "standard", "set": {option: value}})
    _assert_names_what_is_allowed(option, str(caught.value))
    with pytest.raises(RuleError, match=f"option {option}"):
        RuleSet.preset("anchao").with_options({option: value})


def test_the_message_for_a_bogus_enum() -> None:
    with pytest.raises(RuleError) as caught:
        RuleSet(fry_visibility="bogus")  # type: ignore[arg-type]
    assert str(caught.value) == "option fry_visibility must be one of open, dark, not 'bogus'"


def test_a_member_of_another_enum_is_refused() -> None:
    with pytest.raises(RuleError, match="option jack_rule must be one of none, mingchao, contest"):
        RuleSet(jack_rule=Shangtian.CONTEST)  # type: ignore[arg-type]


def test_name_must_be_a_text() -> None:
    for bad in (5, "", None):
        with pytest.raises(RuleError, match="name must be a non-empty text"):
            RuleSet(name=bad)  # type: ignore[arg-type]


def test_flag_threshold_must_be_a_multiple_of_5() -> None:
    with pytest.raises(RuleError, match="option flag_threshold must be a multiple of 5, not 102"):
        RuleSet(flag_threshold=102)
    with pytest.raises(RuleError, match="option flag_threshold must be a multiple of 5"):
        RuleSet.from_spec({"preset": "kangqi", "set": {"flag_threshold": "102"}})


# -- good values ------------------------------------------------------------------------------------


def test_enum_text_is_converted_to_the_member() -> None:
    # direct construction: the exact value only, stored as the member
    rules = RuleSet(fry_visibility="dark", no_bid_trump="first_card")  # type: ignore[arg-type]
    assert rules.fry_visibility is FryVisibility.DARK
    assert rules.no_bid_trump is NoBidTrump.FIRST_CARD
    assert rules == RuleSet(fry_visibility=FryVisibility.DARK, no_bid_trump=NoBidTrump.FIRST_CARD)
    # a spec: any case, and RULES §15's "no" / "–" for an enum that has ``none``
    spec = RuleSet.from_spec({"set": {"fry_visibility": " DARK ", "jack_rule": "no", "shangtian": "–"}})
    assert spec.fry_visibility is FryVisibility.DARK
    assert spec.jack_rule is JackRule.NONE and spec.shangtian is Shangtian.NONE
    assert RuleSet.from_spec({"set": {"tractor_skip_level": False}}).tractor_skip_level is TractorSkipLevel.NONE


def test_spec_words_are_read() -> None:
    rules = RuleSet.from_spec(
        {
            "preset": "standard",
            "set": {
                "flag": "yes",
                "credits": "on",
                "lookback": True,
                "ace_low_tractor": "No",
                "escape_penalty": "–",
                "dark_fry_penalty": "80",
                "play_seconds": "20s",
                "must_play": "J, A",
                "bid_order": ["C", "D", "S", "H", "SJ", "BJ", "5h", "LB"],
            },
        }
    )
    assert (rules.flag, rules.credits, rules.lookback, rules.ace_low_tractor) == (True, True, True, False)
    assert (rules.escape_penalty, rules.dark_fry_penalty, rules.play_seconds) == (None, 80, 20)
    assert rules.must_play == (Rank.JACK, Rank.ACE)
    assert str(rules.bid_order) == "C<D<S<H<SJ<BJ<5h<LB"


def test_typed_values_are_kept_as_given() -> None:
    order = BidOrder.parse("unordered")
    rules = RuleSet(bid_order=order, must_play=(Rank.JACK, Rank.ACE), circles=3, escape_penalty=None)
    assert rules.bid_order is order and rules.must_play == (Rank.JACK, Rank.ACE)
    assert RuleSet.preset("standard").with_options({"must_play": (Rank.JACK, Rank.ACE)}).must_play == rules.must_play


def test_a_bid_order_checks_its_own_tokens() -> None:
    with pytest.raises(RuleError, match="option bid_order: unknown bid 'x'"):
        BidOrder(("x",))
    with pytest.raises(RuleError, match="listed twice"):
        BidOrder(("d", "d", "c", "h", "s", "SJ", "BJ", "5h"))
    with pytest.raises(RuleError, match="missing h, s"):
        BidOrder(("d", "c", "SJ", "BJ", "5h"))
    with pytest.raises(RuleError, match="tuple of bids"):
        BidOrder(["d"])  # type: ignore[arg-type]
    assert BidOrder(()).unordered


# -- ftk and ftk_pair ---------------------------------------------------------------------------------


def test_ftk_pair_needs_ftk_when_built_directly() -> None:
    with pytest.raises(RuleError, match=r"option ftk_pair needs ftk.*set ftk_pair to False too"):
        RuleSet(ftk=False)
    with pytest.raises(RuleError, match="option ftk_pair needs ftk"):
        RuleSet(ftk=False, ftk_pair=True)
    rules = RuleSet(ftk=False, ftk_pair=False)
    assert (rules.ftk, rules.ftk_pair) == (False, False)


def test_a_house_rule_naming_both_cannot_conflict() -> None:
    with pytest.raises(RuleError, match="option ftk_pair needs ftk"):
        RuleSet.from_spec({"preset": "standard", "set": {"ftk": "no", "ftk_pair": "yes"}})
    no_ftk = RuleSet.from_spec({"preset": "institute2023", "set": {"ftk": False}})
    with pytest.raises(RuleError, match="option ftk_pair needs ftk"):
        no_ftk.with_options({"ftk_pair": True})


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_house_rule_switching_ftk_off_derives_ftk_pair(preset: str) -> None:
    rules = RuleSet.from_spec({"preset": preset, "set": {"ftk": "no"}})
    assert (rules.ftk, rules.ftk_pair) == (False, False)
    derived = {"ftk_pair": False} if RuleSet.preset(preset).ftk_pair else {}
    assert rules.to_spec()["set"] == {"ftk": False, **derived}
    assert _options(RuleSet.from_spec(rules.to_spec())) == _options(rules)
    # switching ftk back on does not switch ftk_pair on: only switching off is derived
    assert rules.with_options({"ftk": True}).ftk_pair is False


# -- presets and round trips ----------------------------------------------------------------------------


def _options(rules: RuleSet) -> dict[str, object]:
    return {name: getattr(rules, name) for name in RuleSet.option_names()}


def _assert_round_trips(rules: RuleSet) -> None:
    spec = rules.to_spec()
    again = RuleSet.from_spec(json.loads(json.dumps(spec)))
    assert _options(again) == _options(rules), spec
    assert again.to_spec() == spec


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_preset_round_trips(preset: str) -> None:
    rules = RuleSet.preset(preset)
    assert RuleSet.from_spec(rules.to_spec()) == rules
    assert rules.to_spec() == {"preset": preset, "set": {}}
    _assert_round_trips(rules)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_preset_is_built_from_its_values_alone(preset: str) -> None:
    # no preset relies on a value being rewritten: its fields, given directly, build it unchanged
    rules = PRESETS[preset]
    assert RuleSet(**{f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}) == rules


def _another_value(option: str, value: object) -> object:
    if option in BOOLS:
        return not value
    if option in INTS | OPTIONAL_INTS:
        low, high = INT_OPTION_RANGES[option]
        return high if value != high else low
    if option in ENUMS:
        values = _enum_values(option)
        return values[(values.index(str(value)) + 1) % len(values)]
    if option == "bid_order":
        return "unordered" if str(value) != "unordered" else "C<D<S<H<SJ<BJ<5h<LB"
    return ["J", "A"] if Rank.JACK not in typing.cast(tuple[Rank, ...], value) else ["A"]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_override_round_trips(preset: str) -> None:
    base = RuleSet.preset(preset)
    for option in RuleSet.option_names():
        value = _another_value(option, getattr(base, option))
        if option == "flag_threshold":
            value = 120
        if option == "ftk_pair" and not base.ftk:  # pragma: no cover - no preset has ftk off
            continue
        rules = base.with_options({option: value})
        assert getattr(rules, option) != getattr(base, option), option
        _assert_round_trips(rules)


def test_a_rule_set_built_directly_round_trips() -> None:
    rules = RuleSet(circles=3, must_play=(Rank.FIVE, Rank.ACE), bid_order=BidOrder.parse("unordered"))
    _assert_round_trips(rules)


# -- kinds follow the field types ------------------------------------------------------------------------


def test_option_kinds_follow_the_field_types() -> None:
    for name in RuleSet.option_names():
        hint = HINTS[name]
        if name in BOOLS:
            assert hint is bool
        elif name in INTS:
            assert hint is int
        elif name in OPTIONAL_INTS:
            assert hint == int | None
        elif name in ENUMS:
            assert issubclass(hint, str)


def test_a_field_type_with_no_kind_stops_the_import() -> None:
    from chaodipi import rules as module

    with pytest.raises(TypeError, match="no option kind"):
        module._kind_of("colour", complex)
    with pytest.raises(TypeError, match="INT_OPTION_RANGES"):
        module._kind_of("colour", int)


# -- anything at all: a RuleSet that round-trips, or a RuleError ------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 1100)
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(
        [
            "yes",
            "no",
            "–",
            "-",
            "none",
            "15s",
            "100",
            "D<C<H<S<SJ<BJ<5h<LB",
            "C<D<S<H<SJ<BJ<5h",
            "unordered",
            "J, A",
            "A (last circle)",
            "OPEN",
            "dark",
            *(m.value for name in sorted(ENUMS) for m in HINTS[name]),
        ]
    )
)
_JSONISH = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
_KEYS = st.sampled_from([*RuleSet.option_names(), "name", "colour"]) | st.text(max_size=6)
_SPECS = (
    st.fixed_dictionaries(
        {"set": st.dictionaries(_KEYS, _JSONISH, max_size=6)},
        optional={"preset": st.sampled_from(PRESET_NAMES) | _JSONISH},
    )
    | st.sampled_from(PRESET_NAMES)
    | _JSONISH
)


@settings(max_examples=300, deadline=None)
@given(_SPECS)
def test_any_spec_builds_a_rule_set_that_round_trips_or_is_a_rule_error(spec: Any) -> None:
    try:
        rules = RuleSet.from_spec(spec)
    except RuleError as exc:
        assert str(exc)
        return
    _assert_round_trips(rules)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(RuleSet.option_names()), _JSONISH, max_size=5))
def test_any_keyword_arguments_build_a_rule_set_or_are_a_rule_error(kwargs: dict[str, Any]) -> None:
    try:
        rules = RuleSet(**kwargs)
    except RuleError as exc:
        assert str(exc)
        return
    _assert_round_trips(rules)
