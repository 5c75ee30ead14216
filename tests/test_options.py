"""For every option of RULES §15 in every preset: a question whose answer depends on the option.

Each probe asks the referee (or the engine function that owns the rule) a question, and
``expect`` says what the answer must be for a given option value. The test runs every
preset as it is and with the option switched to another value, so it fails if the
option is ignored anywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from chaodipi.bidding import kitty_trump
from chaodipi.cards import Rank, parse_cards
from chaodipi.referee import answer
from chaodipi.rules import PRESET_NAMES, BidOrder, RuleSet


def ask(rules: RuleSet, **req: Any) -> dict[str, Any]:
    spec = {"preset": rules.name.rstrip("+"), "set": _overrides(rules)}
    out = answer({"rules": spec, **req})
    assert "error" not in out, out
    return out


def _overrides(rules: RuleSet) -> dict[str, object]:
    base = RuleSet.preset(rules.name.rstrip("+")).describe()
    now = rules.describe()
    return {k: v for k, v in now.items() if k != "name" and v != base[k]}


@dataclass(frozen=True)
class Probe:
    """An option, how to switch it, a question, and the answer each value implies."""

    option: str
    switch: Callable[[Any], Any]
    question: Callable[[RuleSet], Any]
    expect: Callable[[RuleSet], Any]


def _settle(rules: RuleSet, points: int, dealer: str, scoring: str, *, circle: int = 1, **extra: Any) -> dict[str, Any]:
    return ask(
        rules,
        op="settle",
        points=points,
        dealer={"level": dealer, "circle": circle},
        scoring={"level": scoring},
        **extra,
    )


def _classify(rules: RuleSet, level: str, trump: str, cards: str) -> str:
    return str(ask(rules, op="classify", level=level, trump=trump, cards=cards)["kind"])


def _follow(rules: RuleSet, lead: str, hand: str, play: str, level: str = "2", trump: str = "s") -> bool:
    return bool(ask(rules, op="follow", level=level, trump=trump, lead=lead, hand=hand, play=play)["legal"])


def _bids(rules: RuleSet, bids: list[dict[str, Any]], level: str = "8") -> list[bool]:
    return list(ask(rules, op="bids", level=level, bids=bids)["valid"])


def _bid_order_alt(order: BidOrder) -> BidOrder:
    if order.unordered:
        return BidOrder.parse("C<D<S<H<SJ<BJ<5h<LB")
    return BidOrder.parse("C<D<S<H<SJ<BJ<5h<LB") if order.rank("d") < order.rank("c") else BidOrder.parse("unordered")


def _first_single_then_lookback(rules: RuleSet) -> bool:
    if rules.bid_order.unordered:  # any pair overrides there: ask in an ordered game
        rules = rules.with_options({"bid_order": "D<C<H<S<SJ<BJ<5h"})
    return _bids(
        rules, [{"player": 0, "cards": "8c"}, {"player": 1, "cards": "BJ BJ"}, {"player": 0, "cards": "8c 8c"}]
    )[2]


def _must_play_alt(levels: tuple[Rank, ...]) -> tuple[Rank, ...]:
    return (Rank.ACE,) if Rank.JACK in levels else (Rank.JACK, Rank.ACE)


def _credits_value(rules: RuleSet) -> Any:
    return _settle(rules, 40, "5", "5").get("credits")


def _flag_scenario(rules: RuleSet) -> Any:
    out = _settle(rules, 70, "A", "5", circle=rules.circles)
    return (out["game_winner"], out["next_hand"])


def _ftk_ending(rules: RuleSet) -> tuple[str, str, str]:
    out = _settle(
        rules,
        60,
        "9",
        "6",
        last_trick={"winner": "scoring", "lead": "5d Td Kd", "winning_play": "5d Td Kd"},
        trump="s",
    )
    return (out["table"], out["dealer"]["level"], out["scoring"]["level"])


def _ftk_ending_expect(rules: RuleSet) -> tuple[str, str, str]:
    mode = rules.shangtian.value
    if mode in ("pure", "contains"):
        return ("scoring", "2", "A")
    gain = {"step10": 2, "step20": 1, "institute": 2}[rules.level_table.value]
    return ("dealer", str(2 + gain), "6")
    # (mode "none" is never a preset value, and the switch below only toggles between real modes)


def _step_table(rules: RuleSet) -> tuple[str, str]:
    out40 = _settle(rules, 40, "3", "3")["dealer"]["level"]
    out0 = _settle(rules, 0, "2", "3")["dealer"]["level"]
    return (out40, out0)


def _step_table_expect(rules: RuleSet) -> tuple[str, str]:
    return {
        "step10": ("7", "J"),  # 40 → +4; 0 → +9
        "step20": ("5", "6"),  # 40 → +2; 0 → +4
        "institute": ("7", "A"),  # 40 → +4; 0 → straight to A
    }[rules.level_table.value]


PROBES = [
    Probe(
        "bid_order",
        _bid_order_alt,
        lambda r: _bids(r, [{"player": 0, "cards": "8d 8d"}, {"player": 1, "cards": "8c 8c"}])[1],
        lambda r: r.bid_order.unordered or r.bid_order.rank("c") > r.bid_order.rank("d"),
    ),
    Probe("lookback", lambda v: not v, _first_single_then_lookback, lambda r: r.lookback),
    Probe(
        "no_bid_trump",
        lambda v: "highest_card" if v != "highest_card" else "first_card",
        lambda r: kitty_trump(r, Rank.EIGHT, parse_cards("3c SJ 8d 4h 5h 6s 7s 9c")),
        lambda r: {
            "first_level_card": None,
            "first_card": parse_cards("3c")[0].suit,
            "highest_card": parse_cards("8d")[0].suit,
        }[r.no_bid_trump.value],
    ),
    Probe(
        "tractor_skip_level",
        lambda v: "none" if v != "none" else "side",
        lambda r: (_classify(r, "8", "s", "7h 7h 9h 9h"), _classify(r, "8", "s", "7s 7s 9s 9s")),
        lambda r: {
            "none": ("throw", "throw"),
            "side": ("tractor", "throw"),
            # with trump_level_links the level card fills the gap itself: nothing to bridge
            "all": ("tractor", "throw" if r.trump_level_links else "tractor"),
        }[r.tractor_skip_level.value],
    ),
    Probe(
        "trump_level_links",
        lambda v: not v,
        lambda r: _classify(r, "8", "s", "7s 7s 8s 8s"),
        lambda r: "tractor" if r.trump_level_links else "throw",
    ),
    Probe(
        "ace_low_tractor",
        lambda v: not v,
        lambda r: _classify(r, "5", "s", "Ah Ah 2h 2h"),
        lambda r: "tractor" if r.ace_low_tractor else "throw",
    ),
    Probe(
        "ftk",
        lambda v: not v,
        lambda r: _classify(r, "2", "s", "5d Td Kd"),
        lambda r: "ftk" if r.ftk else "throw",
    ),
    Probe(
        "ftk_pair",
        lambda v: not v,
        lambda r: _classify(r, "2", "s", "5c 5c Tc Tc Kc Kc"),
        lambda r: "ftk_pair" if r.ftk_pair else "throw",
    ),
    Probe(
        "heart5_in_ftk",
        lambda v: not v,
        lambda r: _classify(r, "2", "s", "5h Th Kh"),
        lambda r: "ftk" if r.heart5_in_ftk else "invalid",
    ),
    Probe(
        "trump_ftk_follow",
        lambda v: "top" if v == "ftk_else_top" else "ftk_else_top",
        lambda r: _follow(r, "5s Ts Ks", "BJ 5s Ts Ks 9s", "5s Ts Ks"),
        lambda r: r.trump_ftk_follow.value == "ftk_else_top",
    ),
    Probe(
        "ftk_must_follow",
        lambda v: not v,
        lambda r: _follow(r, "5d Td Kd", "5d Td Kd 3d 4d", "3d 4d 5d"),
        lambda r: not r.ftk_must_follow,
    ),
    Probe(
        "throw_fail_play",
        lambda v: "smallest_card" if v == "failing_unit" else "failing_unit",
        lambda r: ask(r, op="throw", level="2", trump="s", lead="Qh Qh Ah", others=["Kh Kh 3h", "4c", "8c"])["forced"],
        lambda r: "Qh Qh" if r.throw_fail_play.value == "failing_unit" else "Qh",
    ),
    Probe(
        "throw_penalty_per_card",
        lambda v: v + 10,
        lambda r: ask(r, op="throw", level="2", trump="s", lead="Qh Qh Ah", others=["Kh Kh 3h", "4c", "8c"])["penalty"],
        lambda r: 3 * r.throw_penalty_per_card,
    ),
    Probe(
        "kitty_multiplier",
        lambda v: "exponential" if v == "linear" else "linear",
        lambda r: ask(r, op="kitty", level="2", trump="s", lead="3h 3h 4h 4h", kitty="5c Tc Kc 3d 4d 6d 7d 8d")[
            "multiplier"
        ],
        lambda r: 8 if r.kitty_multiplier.value == "linear" else 16,
    ),
    Probe(
        "level_table",
        lambda v: {"step10": "step20", "step20": "institute", "institute": "step10"}[v],
        _step_table,
        _step_table_expect,
    ),
    Probe(
        "must_play",
        _must_play_alt,
        lambda r: _settle(r, 30, "9", "5")["dealer"]["level"],
        lambda r: "J" if Rank.JACK in r.must_play else "Q" if r.level_table.value == "step20" else "A",
    ),
    Probe(
        "circles",
        lambda v: 1 if v > 1 else 3,
        lambda r: (_settle(r, 40, "K", "5")["dealer"]["circle"], _settle(r, 40, "K", "5")["dealer"]["level"]),
        lambda r: (1, "A") if r.circles == 1 else (2, "2" if r.level_table.value == "step20" else "4"),
    ),
    Probe(
        "flag",
        lambda v: not v,
        _flag_scenario,
        lambda r: (None, "flag") if r.flag else ("dealer", "normal"),
    ),
    Probe(
        "flag_threshold",
        lambda v: 120,
        lambda r: _settle(r.with_options({"flag": True}), 110, "flag", "5")["table"],
        lambda r: "scoring" if r.flag_threshold <= 110 else "dealer",
    ),
    Probe(
        "flag_fail_limit",
        lambda v: None if v else 3,
        lambda r: _settle(r.with_options({"flag": True}), 120, "flag", "5", flag_failures=2)["dealer"]["level"],
        lambda r: "A" if r.flag_fail_limit == 3 else "flag",
    ),
    Probe(
        "shangtian",
        lambda v: "contest" if v != "contest" else "contains",
        _ftk_ending,
        _ftk_ending_expect,
    ),
    Probe(
        "shangtian_credits",
        lambda v: 30 if v != 30 else 16,
        lambda r: _settle(
            r.with_options({"credits": True, "shangtian": "contains"}),
            90,
            "9",
            "6",
            last_trick={"winner": "scoring", "lead": "5d Td Kd", "winning_play": "5d Td Kd"},
        )["credits"]["scoring"],
        lambda r: max(r.shangtian_credits or 0, 1 + 10 // (20 if r.level_table.value == "step20" else 10)),
    ),
    Probe(
        "double_red5",
        lambda v: not v,
        lambda r: _settle(r, 40, "5", "7", double_red5="dealer")["dealer"]["level"],
        lambda r: "A" if r.double_red5 else ("9" if r.level_table.value != "step20" else "7"),
    ),
    Probe(
        "jack_rule",
        lambda v: "none" if v != "none" else "mingchao",
        lambda r: _settle(
            r, 90, "J", "6", last_trick={"winner": "scoring", "lead": "Jh", "winning_play": "Jh"}, trump="s"
        )["dealer"]["level"],
        lambda r: "J" if r.jack_rule.value == "none" else "2",
    ),
    Probe(
        "credits",
        lambda v: not v,
        _credits_value,
        lambda r: (
            {
                "dealer": 4 if r.level_table.value != "step20" else 2,
                "scoring": -4 if r.level_table.value != "step20" else -2,
            }
            if r.credits
            else None
        ),
    ),
]


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("probe", PROBES, ids=[p.option for p in PROBES])
def test_option_is_honoured(preset: str, probe: Probe) -> None:
    base = RuleSet.preset(preset)
    value = getattr(base, probe.option)
    switched = base.with_options({probe.option: _as_json(probe.switch(value))})
    # institute's straight-to-A and the special endings interact with other options;
    # each probe is chosen so that only the option under test decides it.
    assert probe.question(base) == probe.expect(base), f"{preset} as preset"
    assert probe.question(switched) == probe.expect(switched), f"{preset} with {probe.option} switched"
    assert probe.question(base) != probe.question(switched), f"{probe.option} makes no difference in {preset}"


def _as_json(value: Any) -> Any:
    if isinstance(value, BidOrder):
        return str(value)
    if isinstance(value, tuple):
        return [r.symbol for r in value]
    return value.value if hasattr(value, "value") else value


def test_every_option_has_a_probe() -> None:
    untested = {
        # hand-level options, tested with whole hands (frying, red 5s, escape, timers)
        "fry",
        "fry_visibility",
        "fry_turns",
        "dark_fry_penalty",
        "red5_bonus",
        "escape_penalty",
        "declare_seconds",
        "bury_seconds",
        "play_seconds",
        "fry_seconds",
    }
    assert {p.option for p in PROBES} | untested == set(RuleSet.option_names())
