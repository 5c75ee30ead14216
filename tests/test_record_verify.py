"""``replay`` proves a whole record or says why not (docs/record-format.md, "Replaying").

Records come from simulated games of several presets; each test tampers with a copy and
checks that the replay refuses it with one clear :class:`RecordError` naming the hand and
action or the field. Unfinished games (cut mid-hand, or between hands) are refused unless
allowed. A hypothesis fuzz mutates records at random: the replay either reproduces the
record exactly or raises ``RecordError``, never anything else.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chaodipi import record as record_module
from chaodipi.cli import main
from chaodipi.game import MAX_HANDS, Game
from chaodipi.hand import Action, Phase
from chaodipi.record import (
    MAX_ACTIONS_PER_HAND,
    RecordError,
    format_deal,
    game_record,
    load_record,
    parse_deal,
    replay,
    unfinished_at,
)
from chaodipi.rules import RuleSet
from chaodipi.simulate import simulate_game
from chaodipi.tui import TerminalGame

PRESETS = ("standard", "anchao", "kangqi", "institute2023")
CREDIT_PRESETS = ("anchao", "kangqi")
Record = dict[str, Any]


SHORT_GAME_SEEDS = {"standard": 6, "anchao": 13, "kangqi": 3, "institute2023": 7}  # short games today


@functools.cache
def _original(preset: str) -> str:
    """A simulated game's record as JSON text (cached: each test parses its own copy).

    The game has at least three hands, a bid and a played hand after the first, so that every
    tampering below applies; the preferred seed gives a short one.
    """
    rules = RuleSet.preset(preset)
    for seed in (SHORT_GAME_SEEDS[preset], *range(1, 40)):
        record = game_record(simulate_game(rules, seed))
        text = json.dumps(record)
        hands = record["hands"]
        if len(hands) >= 3 and '"bid"' in text and any(isinstance(h["result"], dict) for h in hands[1:-1]):
            return text
    raise AssertionError(f"no {preset} game fits the tests")


def fresh(preset: str) -> Record:
    record: Record = json.loads(_original(preset))
    return record


def refused(record: object, pattern: str, *, allow_unfinished: bool = False) -> str:
    """Replay must raise RecordError whose message matches ``pattern``; returns the message."""
    with pytest.raises(RecordError) as info:
        replay(record, allow_unfinished=allow_unfinished)
    message = str(info.value)
    assert re.search(pattern, message), message
    assert "Traceback" not in message and len(message) < 600, message
    return message


def played(record: Record, *, last: bool = False) -> int:
    """The index of a hand that was played to its end (not a redeal): the first such, or the last."""
    indexes = [i for i, h in enumerate(record["hands"]) if isinstance(h["result"], dict)]
    return indexes[-1] if last else indexes[0]


def middle(record: Record) -> int:
    """A played hand that is neither the first nor the last hand."""
    last = len(record["hands"]) - 1
    return next(i for i, h in enumerate(record["hands"]) if 0 < i < last and isinstance(h["result"], dict))


def after_a_dealer(record: Record) -> int:
    """A hand dealt once a dealer is known (after a played hand): its first card goes to the dealer."""
    return next(i for i in range(1, len(record["hands"])) if isinstance(record["hands"][i - 1]["result"], dict))


def as_format_1(record: Record) -> Record:
    """The same record in format 1: no deals (the seed deals every hand)."""
    hands = [{k: v for k, v in h.items() if k != "deal"} for h in record["hands"]]
    return {**record, "format": "chaodipi-record/1", "hands": hands}


def first_play(record: Record, i: int) -> int:
    """The index of the first card play of hand ``i``."""
    return next(k for k, a in enumerate(record["hands"][i]["actions"]) if a["a"] == "play")


# -- the untouched records ---------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_untouched_records_replay(preset: str) -> None:
    record = fresh(preset)
    game = replay(record)
    assert game.over and unfinished_at(game) is None
    assert game_record(game) == record


def test_records_written_in_memory_replay() -> None:
    game = simulate_game(RuleSet.preset("kangqi"), 3)
    assert game_record(replay(game_record(game))) == game_record(game)


def test_a_record_without_players_replays() -> None:
    record = fresh("standard")
    del record["players"]
    assert replay(record).over


def test_rules_may_be_a_preset_name() -> None:
    record = fresh("anchao")
    record["rules"] = "anchao"
    assert replay(record).rules.name == "anchao"


# -- tampering: each one refused with a message that names what is wrong --------------------

Tamper = Callable[[Record], None]


def _cut_actions(*, last: bool = False) -> Tamper:
    def tamper(r: Record) -> None:
        del r["hands"][played(r, last=last)]["actions"][-3:]

    return tamper


def _cut_middle_and_result(r: Record) -> None:
    i = middle(r)
    del r["hands"][i]["actions"][-2:]
    del r["hands"][i]["result"]


def _drop_middle(r: Record) -> None:
    del r["hands"][middle(r)]


def _drop_middle_renumbered(r: Record) -> None:
    del r["hands"][middle(r)]
    for n, h in enumerate(r["hands"], 1):
        h["number"] = n


def _drop_last(r: Record) -> None:
    del r["hands"][-1]


def _set(path: tuple[Any, ...], value: Any) -> Tamper:
    def tamper(r: Record) -> None:
        node: Any = r
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return tamper


def _in_played(key: str, change: Callable[[Any], Any], *, last: bool = False) -> Tamper:
    def tamper(r: Record) -> None:
        h = r["hands"][played(r, last=last)]
        h[key] = change(h[key])

    return tamper


def _result(path: tuple[str, ...], change: Callable[[Any], Any]) -> Tamper:
    def tamper(r: Record) -> None:
        node = r["hands"][played(r)]["result"]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = change(node[path[-1]])

    return tamper


def _del_result(r: Record) -> None:
    del r["hands"][played(r)]["result"]


def _swap_plays(r: Record) -> None:
    i = played(r)
    k = first_play(r, i) + 1
    acts = r["hands"][i]["actions"]
    acts[k], acts[k + 1] = acts[k + 1], acts[k]


def _duplicate_play(r: Record) -> None:
    i = played(r)
    k = first_play(r, i)
    acts = r["hands"][i]["actions"]
    acts.insert(k, dict(acts[k]))


def _duplicate_close(r: Record) -> None:
    acts = r["hands"][played(r)]["actions"]
    k = next(k for k, a in enumerate(acts) if a["a"] == "close")
    acts.insert(k, {"a": "close"})


def _action_after_the_end(r: Record) -> None:
    acts = r["hands"][played(r)]["actions"]
    acts.append(dict(acts[-1]))


def _million_actions(r: Record) -> None:
    r["hands"][0]["actions"].extend([{"a": "close"}] * 1_000_000)


def _too_many_hands(r: Record) -> None:
    r["hands"] = [r["hands"][0]] * (MAX_HANDS + 1)


def _hand_after_the_end(r: Record) -> None:
    extra = copy.deepcopy(r["hands"][-1])
    extra["number"] += 1
    r["hands"].append(extra)


def _bid_at(r: Record) -> None:
    for h in r["hands"]:
        for a in h["actions"]:
            if a["a"] == "bid":
                a["at"] = 0  # before any card was dealt
                return
    raise AssertionError("no bid in the record")


def _other_seat(r: Record) -> None:
    i = played(r)
    a = r["hands"][i]["actions"][first_play(r, i)]
    a["p"] = (a["p"] + 1) % 4


def _spaced_cards(r: Record) -> None:
    i = played(r)
    a = r["hands"][i]["actions"][first_play(r, i)]
    a["cards"] = " " + a["cards"]


def _lower_case_cards(r: Record) -> None:
    for h in r["hands"]:
        for a in h["actions"]:
            if a["a"] == "bury":
                a["cards"] = a["cards"].lower()
                return


def _unknown_action_field(r: Record) -> None:
    r["hands"][0]["actions"][-1]["why"] = "because"


def _extra_in_result(r: Record) -> None:
    r["hands"][played(r)]["result"]["extra"] = 1


def _redeal_result(r: Record) -> None:
    r["hands"][played(r)]["result"] = "redeal"


def _later_first_seat(r: Record) -> None:
    h = r["hands"][after_a_dealer(r)]
    h["first_seat"] = (h["first_seat"] + 1) % 4


def _first_hand_first_seat(r: Record) -> None:
    h = r["hands"][0]
    h["first_seat"] = (h["first_seat"] + 1) % 4


def _swap_dealt_cards(r: Record) -> None:
    """Swap two different cards dealt to two different seats in a played hand: the deal stays two decks."""
    h = r["hands"][played(r)]
    cards = [h["deal"][2 * k : 2 * k + 2] for k in range(108)]
    j = next(j for j in range(1, 100) if j % 4 != 0 and cards[j] != cards[0])
    cards[0], cards[j] = cards[j], cards[0]
    h["deal"] = "".join(cards)


def _third_copy(r: Record) -> None:
    h = r["hands"][played(r)]
    h["deal"] = h["deal"][2:4] + h["deal"][2:]  # the second card twice over, the first card once less


TAMPERINGS: dict[str, tuple[Tamper, str]] = {
    "cut the last actions of a hand": (
        _cut_actions(),
        r"^hand \d+: the record gives a result, but the hand is not over",
    ),
    "cut the last actions of the last hand": (
        _cut_actions(last=True),
        r"^hand \d+: the record gives a result, but the hand is not over after its \d+ actions \(trick \d+",
    ),
    "cut a hand and drop its result": (_cut_middle_and_result, r"^hand \d+ is not over .* but hand \d+ follows"),
    "drop a hand": (_drop_middle, r"^hand \d+: number: the record says \d+, expected \d+"),
    "drop a hand and renumber": (_drop_middle_renumbered, r"^hand \d+(, action \d+)?: "),
    "drop the last hand": (_drop_last, r"^winner: the record says team [01] won, but after hand \d+ .* nobody has won"),
    "delete a result": (_del_result, r"^hand \d+: result missing: the hand is over after its \d+ actions"),
    "a played hand called a redeal": (_redeal_result, r'^hand \d+: result: the record says "redeal"'),
    "change a dealer": (_in_played("dealer", lambda d: (d + 1) % 4), r"^hand \d+: dealer: the record says \d"),
    "dealer null": (_in_played("dealer", lambda d: None), r"^hand \d+: dealer: the record says null"),
    "change a number": (_in_played("number", lambda n: n + 1), r"^hand \d+: number: the record says \d+, expected"),
    "change a first seat after a dealer is known": (
        _later_first_seat,
        r"^hand \d+: first_seat: the record says \d, the first card goes to the dealer, \d$",
    ),
    "deal the first hand from another seat": (_first_hand_first_seat, r"^hand 1(, action \d+ \(.*\))?: "),
    "swap two dealt cards between seats": (_swap_dealt_cards, r"^hand \d+, action \d+ \(.*\): "),
    "a third copy of a card in a deal": (_third_copy, r"^hand \d+: deal: not two decks \(each card twice\): "),
    "change the final levels": (_set(("levels", 0, "circle"), 7), r"^levels\[0\]\.circle: the record says 7"),
    "change a final level": (_set(("levels", 1, "level"), "3"), r'^levels\[1\]\.level: the record says "3"'),
    "flip the winner": (lambda r: r.__setitem__("winner", 1 - r["winner"]), r"^winner: the record says [01]"),
    "winner null in a finished game": (
        _set(("winner",), None),
        r"^winner: the record says null, the replay gives [01]",
    ),
    "change a result's points": (
        _result(("points",), lambda p: p + 5),
        r"^hand \d+: result\.points: the record says -?\d+, the replay gives -?\d+",
    ),
    "change a result's settlement": (
        _result(("settlement", "table"), lambda t: "scoring" if t == "dealer" else "dealer"),
        r"^hand \d+: result\.settlement\.table: the record says",
    ),
    "add to a result": (_extra_in_result, r'^hand \d+: result: the record has an unknown key "extra"'),
    "swap two plays": (_swap_plays, r"^hand \d+, action \d+ \(\{.*\}\): "),
    "duplicate a play": (_duplicate_play, r"^hand \d+, action \d+ \(\{.*\}\): "),
    "duplicate the close": (_duplicate_close, r"^hand \d+, action \d+ \(\{\"a\": \"close\"\}\): "),
    "an action after the hand's end": (_action_after_the_end, r"^hand \d+, action \d+: the hand is over after action"),
    "a million actions": (
        _million_actions,
        rf"^hand 1: 1000\d+ actions, more than a hand can have \({MAX_ACTIONS_PER_HAND}\)",
    ),
    "too many hands": (_too_many_hands, rf"^hands: {MAX_HANDS + 1} hands, more than a game may have"),
    "a hand after the game's end": (_hand_after_the_end, r"^hand \d+: the game was over after hand \d+"),
    "a bid before the deal": (_bid_at, r"^hand \d+, action \d+ \(.*\): player \d does not hold"),
    "a play by another seat": (_other_seat, r"^hand \d+, action \d+ .*turn"),
    "cards not written as the engine writes them": (_spaced_cards, r"not written as the engine writes it"),
    "lower-case cards": (_lower_case_cards, r"^hand \d+, action \d+"),
    "an unknown action field": (_unknown_action_field, r'^hand 1, action \d+: unknown field "why" in a \w+ action'),
    "an unknown top-level key": (_set(("comment",), "hi"), r'^the record: unknown key "comment"'),
    "an unknown hand key": (_set(("hands", 1, "comment"), "hi"), r'^hand 2: unknown key "comment"'),
    "other rules": (_set(("rules",), {"preset": "contest2021", "set": {}}), r"^(hand \d+|credits|levels|winner)"),
}


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_tampering_is_refused(preset: str, name: str) -> None:
    tamper, pattern = TAMPERINGS[name]
    record = fresh(preset)
    tamper(record)
    refused(record, pattern)
    refused(record, pattern, allow_unfinished=True)  # no tampering passes as an unfinished game


@pytest.mark.parametrize("preset", PRESETS)
def test_credits_are_checked(preset: str) -> None:
    record = fresh(preset)
    if preset in CREDIT_PRESETS:
        record["credits"][0] += 1
        refused(record, r"^credits\[0\]: the record says -?\d+, the replay gives -?\d+$")
        record["credits"] = None
        refused(record, r"^credits: the record says null, the replay gives \[")
    else:
        record["credits"] = [0, 0]
        refused(record, r"^credits: the record says \[0, 0\], the replay gives null \(these rules keep no credits\)")


# -- the deal, the seed, and format 1 records ---------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_the_deal_not_the_seed_deals_each_hand(preset: str) -> None:
    """In format 2 the seed is informative: another seed replays the same game."""
    record = fresh(preset)
    assert record["format"] == "chaodipi-record/2"
    record["seed"] += 1
    assert game_record(replay(record)) == record


@pytest.mark.parametrize("preset", PRESETS)
def test_a_deal_says_who_got_what(preset: str) -> None:
    """Card i goes to seat (first_seat + i) mod 4 until the deal's end; the rest is the kitty."""
    record = fresh(preset)
    game = replay(record)
    for rec, hand in zip(record["hands"], game.hands, strict=True):
        deal = parse_deal(rec["deal"])
        assert format_deal(deal) == rec["deal"] and deal == list(hand.deck)
        size = 108 if hand.flag else 100
        for seat in range(4):
            dealt = [e.cards[0] for e in hand.iter_events() if e.kind == "dealt" and e.player == seat]
            assert dealt == [deal[i] for i in range(size) if (rec["first_seat"] + i) % 4 == seat]
        taken = [e.cards for e in hand.iter_events() if e.kind == "kitty_taken"]
        assert list(taken[0] if taken else ()) == deal[size:]


@pytest.mark.parametrize("code", ["5H", "sj", "Bj", "10", "x5", "5♥"])
def test_a_card_written_otherwise_in_a_deal_is_refused(code: str) -> None:
    record = fresh("standard")
    record["hands"][0]["deal"] = code + record["hands"][0]["deal"][2:]
    refused(record, rf'^hand 1: deal: card 1 \("{re.escape(code)}"\) is not a card as the engine writes it')


@pytest.mark.parametrize("preset", PRESETS)
def test_format_1_records_replay_from_the_seed(preset: str) -> None:
    """A record without deals (format 1) is still read; written again, it gains its deals (format 2)."""
    record = fresh(preset)
    old = as_format_1(record)
    assert game_record(replay(old)) == record
    refused({**old, "seed": old["seed"] + 1}, r"^hand 1")  # there the seed deals every hand


def test_format_1_first_seats_are_the_seeds() -> None:
    old = as_format_1(fresh("standard"))
    for i in (0, after_a_dealer(old)):
        r = copy.deepcopy(old)
        r["hands"][i]["first_seat"] = (r["hands"][i]["first_seat"] + 1) % 4
        refused(r, rf"^hand {i + 1}: first_seat: the record says \d, the seed deals from \d$")


def test_format_1_stores_no_deal_and_format_2_needs_one() -> None:
    record = fresh("standard")
    old = as_format_1(record)
    old["hands"][1]["deal"] = record["hands"][1]["deal"]
    refused(old, r'^hand 2: unknown key "deal" \(the keys are .*\) \(a chaodipi-record/1 record stores no deal\)$')
    refused({**as_format_1(record), "format": "chaodipi-record/2"}, r"^hand 1: deal missing$")


# -- wrong types and missing fields ------------------------------------------------------------

NAN = float("nan")
HUGE = 10**5000

WRONG: list[tuple[tuple[Any, ...], Any, str]] = [
    (("format",), "chaodipi-record/3", r"^format: not a chaodipi-record/2 record, nor an older chaodipi-record/1"),
    (("format",), None, r"^format"),
    (("rules",), 3, r"^rules: a preset name or"),
    (("rules",), None, r"^rules"),
    (("rules",), ["standard"], r"^rules"),
    (("rules",), "nosuch", r"^rules: unknown preset"),
    (("rules",), {"preset": 7}, r"^rules: unknown preset"),
    (("rules",), {"preset": "standard", "set": {"nosuch": 1}}, r"^rules: unknown option"),
    (("rules",), {"preset": "standard", "set": {"circles": "many"}}, r"^rules: option circles"),
    (("rules",), {"preset": "standard", "set": [1]}, r"^rules: options must be"),
    (("rules",), {"preset": "standard", "extra": 1}, r"^rules: unknown key"),
    (("seed",), True, r"^seed: a whole number, not true"),
    (("seed",), "1", r'^seed: a whole number, not "1"'),
    (("seed",), 1.0, r"^seed: a whole number, not 1\.0"),
    (("seed",), NAN, r"^seed: a whole number, not NaN"),
    (("seed",), None, r"^seed"),
    (("players",), 7, r"^players: a list of 4 texts"),
    (("players",), ["a", "b", "c"], r"^players"),
    (("players",), [1, 2, 3, 4], r"^players"),
    (("players",), None, r"^players"),
    (("hands",), [5], r"^hand 1: a hand is an object, not 5"),
    (("hands",), "x", r'^hands: a list of hands, not "x"'),
    (("hands",), None, r"^hands"),
    (("hands",), {"1": {}}, r"^hands"),
    (("hands", 0), [], r"^hand 1: a hand is an object"),
    (("hands", 0, "actions"), "x", r'^hand 1: actions: a list of actions, not "x"'),
    (("hands", 0, "actions"), None, r"^hand 1: actions"),
    (("hands", 0, "actions"), [5], r"^hand 1, action 1: an action is an object"),
    (("hands", 0, "actions"), [[]], r"^hand 1, action 1: an action is an object"),
    (("hands", 0, "number"), "1", r'^hand 1: number: the record says "1", expected 1'),
    (("hands", 0, "number"), 1.0, r"^hand 1: number: the record says 1\.0"),
    (("hands", 0, "number"), True, r"^hand 1: number: the record says true"),
    (("hands", 0, "number"), HUGE, r"^hand 1: number: the record says a number too large"),
    (("hands", 0, "number"), NAN, r"^hand 1: number: the record says NaN"),
    (("hands", 0, "first_seat"), "0", r"^hand 1: first_seat: the record says \"0\""),
    (("hands", 0, "first_seat"), 4, r"^hand 1: first_seat: the record says 4"),
    (("hands", 0, "first_seat"), None, r"^hand 1: first_seat: the record says null"),
    (("hands", 0, "first_seat"), HUGE, r"^hand 1: first_seat: the record says a number too large"),
    (("hands", 0, "dealer"), "1", r'^hand 1: dealer: the record says "1"'),
    (("hands", 0, "deal"), None, r"^hand 1: deal: 108 cards in dealing order, one text of 2-character codes, not null"),
    (("hands", 0, "deal"), ["5h"] * 108, r"^hand 1: deal: 108 cards in dealing order, .* not \["),
    (("hands", 0, "deal"), "", r"^hand 1: deal: 0 characters, not 216 \(108 cards of 2 characters each\)"),
    (("hands", 0, "deal"), "5h" * 109, r"^hand 1: deal: 218 characters, not 216"),
    (("hands", 0, "deal"), "5h" * 108, r"^hand 1: deal: not two decks \(each card twice\): 5h 108 times, 2s 0"),
    (("hands", 1, "deal"), "5h 5h " * 36, r'^hand 2: deal: card 2 \(" 5"\) is not a card as the engine writes it'),
    (("hands", 0, "dealer"), [1], r"^hand 1: dealer: the record says \[1\]"),
    (("hands", 0, "result"), 5, r"^hand 1: result: the record says 5"),
    (("hands", 0, "result"), {}, r"^hand 1: result"),
    (("winner",), "0", r'^winner: a team \(0 or 1\) or null, not "0"'),
    (("winner",), 2, r"^winner: a team"),
    (("winner",), NAN, r"^winner: a team"),
    (("winner",), HUGE, r"^winner: a team .* a number too large"),
    (("levels",), None, r"^levels: the record says null"),
    (("levels",), "x", r'^levels: the record says "x"'),
    (("levels",), [1, 2], r"^levels\[0\]: the record says 1"),
    (("levels", 0, "circle"), 1.0, r"^levels\[0\]\.circle: the record says 1\.0"),
    (("levels", 0, "circle"), True, r"^levels\[0\]\.circle: the record says true"),
    (("credits",), "x", r'^credits: the record says "x"'),
]

ACTION_WRONG: list[tuple[str, Any, str]] = [
    ("p", "0", r"'p' is a seat 0\.\.3, not \"0\""),
    ("p", True, r"'p' is a seat 0\.\.3, not true"),
    ("p", 4, r"'p' is a seat 0\.\.3, not 4"),
    ("p", -1, r"'p' is a seat"),
    ("p", 1.0, r"'p' is a seat"),
    ("p", None, r"'p' is a seat"),
    ("p", HUGE, r"'p' is a seat 0\.\.3, not a number too large"),
    ("cards", 5, r"'cards' is a text, not 5"),
    ("cards", ["As"], r"'cards' is a text"),
    ("cards", "", r"'cards' is a text"),
    ("cards", "Zz", r"not a card|card"),
    ("a", "nope", r"an action is an object whose 'a' is one of"),
    ("a", 5, r"an action is an object whose 'a' is one of"),
    ("choose", 5, r"'choose' is a text|unknown field"),
]


def _name(value: Any) -> str:
    return "HUGE" if value is HUGE else repr(value)[:30]


def _with(record: Record, path: tuple[Any, ...], value: Any) -> Record:
    node: Any = record
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return record


@pytest.mark.parametrize(("path", "value", "pattern"), WRONG, ids=[f"{p}={_name(v)}" for p, v, _ in WRONG])
def test_wrong_types_are_refused(path: tuple[Any, ...], value: Any, pattern: str) -> None:
    refused(_with(fresh("standard"), path, value), pattern)


@pytest.mark.parametrize(
    ("field", "value", "pattern"), ACTION_WRONG, ids=[f"{f}={_name(v)}" for f, v, _ in ACTION_WRONG]
)
def test_wrong_action_fields_are_refused(field: str, value: Any, pattern: str) -> None:
    record = fresh("anchao")
    i = played(record)
    k = first_play(record, i)
    record["hands"][i]["actions"][k][field] = value
    refused(record, rf"^hand {i + 1}, action {k + 1}\b.*{pattern}")


@pytest.mark.parametrize("field", ["at", "p", "cards"])
def test_a_bid_needs_its_fields(field: str) -> None:
    record = fresh("standard")
    for i, h in enumerate(record["hands"]):
        for k, a in enumerate(h["actions"]):
            if a["a"] == "bid":
                del a[field]
                refused(record, rf"^hand {i + 1}, action {k + 1}: a bid action needs '{field}'")
                return
    raise AssertionError("no bid")


@pytest.mark.parametrize("value", ["5", 1.5, 109, -1, True, HUGE], ids=_name)
def test_a_bid_at_out_of_range_is_refused(value: Any) -> None:
    record = fresh("standard")
    bid = next(a for h in record["hands"] for a in h["actions"] if a["a"] == "bid")
    bid["at"] = value
    refused(record, r"'at' is a number of cards dealt 0\.\.108")


@pytest.mark.parametrize("key", ["format", "rules", "seed", "hands", "winner", "levels", "credits"])
def test_missing_top_level_fields_are_refused(key: str) -> None:
    record = fresh("kangqi")
    del record[key]
    refused(record, rf"^{key}: (missing|not a)")


@pytest.mark.parametrize("key", ["number", "first_seat", "dealer", "deal", "actions"])
def test_missing_hand_fields_are_refused(key: str) -> None:
    record = fresh("kangqi")
    del record["hands"][1][key]
    refused(record, rf"^hand 2: {key} missing")


@pytest.mark.parametrize("value", [None, [], "x", 5, NAN, {"format": "chaodipi-record/1"}])
def test_not_a_record(value: Any) -> None:
    refused(value, r"^(a record is a JSON object|format|rules)")


def test_deep_nesting_in_memory() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    refused(_with(fresh("standard"), ("players",), deep), r"^players: a list of 4 texts .*, not a list$")
    refused(_with(fresh("standard"), ("levels",), deep), r"^levels")
    refused(_with(fresh("standard"), ("hands", 0, "result"), {"dealer": deep}), r"^hand 1: result")


# -- unfinished games ------------------------------------------------------------------------------


def _prefix(record: Record, hands: int, actions: int | None) -> Record:
    """The record a game would have had after ``hands`` hands and ``actions`` more actions of the next."""
    game = Game(RuleSet.from_spec(record["rules"]), record["seed"])
    for h in record["hands"][:hands]:
        hand = game.new_hand()
        for a in h["actions"]:
            hand.apply(Action.from_json(a))
        game.finish_hand()
    if actions is not None:
        hand = game.new_hand()
        for a in record["hands"][hands]["actions"][:actions]:
            hand.apply(Action.from_json(a))
        assert hand.phase not in (Phase.OVER, Phase.REDEAL)
    out: Record = json.loads(json.dumps(game_record(game)))
    return out


def _stops(record: Record) -> Iterator[tuple[int, int | None]]:
    n = len(record["hands"])
    yield 0, None  # no hand at all
    yield 0, 0  # the first hand, no action yet
    yield 1, None  # between hands
    yield n - 1, None  # just before the last hand
    for h in (0, n // 2, n - 1):
        acts = len(record["hands"][h]["actions"])
        for k in (1, acts // 3, acts - 1):
            yield h, k


@pytest.mark.parametrize("preset", PRESETS)
def test_unfinished_games_need_the_flag(preset: str) -> None:
    full = fresh(preset)
    for hands, actions in _stops(full):
        record = _prefix(full, hands, actions)
        assert record["winner"] is None
        message = refused(record, r"^the game is unfinished: ")
        assert "allow_unfinished" in message
        game = replay(record, allow_unfinished=True)
        assert game_record(game) == record
        stop = unfinished_at(game)
        assert stop is not None and stop in message
        if actions is None:
            assert stop == "the record has no hands" if hands == 0 else stop.startswith(f"after hand {hands} (")
        else:
            assert stop.startswith(f"hand {hands + 1} stops after action {actions} (")


@pytest.mark.parametrize("preset", PRESETS)
def test_an_unfinished_record_is_still_checked(preset: str) -> None:
    full = fresh(preset)
    k = middle(full)
    mid = _prefix(full, k, 20)  # hand k + 1 cut after 20 actions
    between = _prefix(full, k + 1, None)  # after hand k + 1, a played hand
    for record in (mid, between):
        for tamper, pattern in [
            (_set(("winner",), 0), r"^winner: the record says team 0 won, but (hand \d+ stops|after hand)"),
            (_set(("levels", 0, "circle"), 3), r"^levels\[0\]\.circle"),
            (_set(("credits",), [5, -5]), r"^credits"),
            (_set(("hands", 0, "dealer"), 2), r"^hand 1: dealer"),
        ]:
            r = copy.deepcopy(record)
            tamper(r)
            if r != record:  # (a tampering may change nothing: the same circle, say)
                refused(r, pattern, allow_unfinished=True)
    # dropping the last played hand leaves the levels (or credits) it made
    r = copy.deepcopy(between)
    del r["hands"][-1]
    before = _prefix(full, k, None)
    if (r["levels"], r["credits"]) != (before["levels"], before["credits"]):
        refused(r, r"^(levels|credits)", allow_unfinished=True)
    # but dropping a cut hand leaves a good record of the game between hands
    r = copy.deepcopy(mid)
    del r["hands"][-1]
    stop = unfinished_at(replay(r, allow_unfinished=True))
    assert stop is not None and stop.startswith(f"after hand {k} (")
    # the cut hand cannot carry a result
    r = copy.deepcopy(mid)
    r["hands"][-1]["result"] = full["hands"][k]["result"]
    refused(
        r,
        r"^hand \d+: the record gives a result, but the hand is not over after its 20 actions",
        allow_unfinished=True,
    )


def _scripted(answers: int) -> Callable[[str], str]:
    """A terminal player: no bids or fries, the hint for every burial and play; the input ends after ``answers``."""
    asked = [0]

    def read(prompt: str) -> str:
        asked[0] += 1
        if asked[0] > answers:
            raise EOFError
        return "" if prompt in ("bid> ", "fry> ") else "auto"

    return read


def _quiet_console() -> Any:
    """A terminal console that prints nowhere (``chaodipi play`` writes through a rich Console)."""
    from rich.console import Console

    return Console(file=io.StringIO())


@pytest.mark.parametrize(
    ("preset", "hands", "answers"),
    [("standard", 2, 10**6), ("kangqi", 1, 10**6), ("anchao", None, 30), ("institute2023", None, 1)],
)
def test_terminal_games_record_as_unfinished(preset: str, hands: int | None, answers: int) -> None:
    """``chaodipi play --hands N`` (or quitting) leaves a game that is not over: its record replays with the flag."""
    tg = TerminalGame(
        RuleSet.preset(preset), bot="random", seed=5, hands=hands, read=_scripted(answers), console=_quiet_console()
    )
    assert tg.run() == 0
    assert not tg.game.over
    record: Record = json.loads(json.dumps(game_record(tg.game, players=["you", "random", "random", "random"])))
    refused(record, r"^the game is unfinished: (after hand|hand \d+ stops after action)")
    game = replay(record, allow_unfinished=True)
    assert game_record(game, players=record["players"]) == record


def test_an_empty_game() -> None:
    record = game_record(Game(RuleSet.preset("standard"), 3))
    refused(record, r"^the game is unfinished: the record has no hands")
    assert replay(record, allow_unfinished=True).hands == []


# -- loading files and the command -------------------------------------------------------------------


def _write(tmp_path: Path, name: str, data: bytes | str | Record) -> Path:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(json.dumps(data), encoding="utf-8")
    return path


BAD_FILES: list[tuple[str, bytes, str]] = [
    ("bad-json", b'{"format": ', r"not JSON"),
    ("not-utf8", '{"format": "chaodipi-record/1", "players": ["é"]}'.encode("latin-1"), r"not UTF-8 text"),
    ("nan", b'{"seed": NaN}', r"NaN is not a JSON number"),
    ("repeated-key", b'{"winner": 0, "winner": 1}', r"appears twice"),
    ("array", b"[1, 2]", r"a record is a JSON object, not \[1, 2\]"),
    ("deep", b"[" * 100_000 + b"]" * 100_000, r"nested too deeply|not JSON"),
    ("long-number", b'{"seed": ' + b"9" * 5000 + b"}", r"not JSON"),
    ("empty", b"", r"not JSON"),
]


@pytest.mark.parametrize(("name", "data", "pattern"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_are_one_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, pattern: str
) -> None:
    path = _write(tmp_path, f"{name}.json", data)
    assert main(["replay", "--quiet", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}: "), captured.err
    assert re.search(pattern, lines[0]), lines[0]


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nosuch.json"
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err == f"{path}: cannot read the file: No such file or directory\n"
    assert main(["replay", str(tmp_path)]) == 1  # a folder
    assert capsys.readouterr().err.startswith(f"{tmp_path}: cannot read the file: ")


def test_a_file_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "big.json", fresh("standard"))
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(RecordError, match="larger than 1000 bytes"):
        load_record(path)


def test_a_tampered_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = fresh("kangqi")
    record["hands"][-1]["result"]["points"] += 5
    path = _write(tmp_path, "tampered.json", record)
    assert main(["replay", "--quiet", str(path)]) == 1
    err = capsys.readouterr().err
    assert re.fullmatch(rf"{re.escape(str(path))}: hand \d+: result\.points: the record says .*\n", err), err


def test_unfinished_files_need_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = fresh("anchao")
    mid = _write(tmp_path, "mid.json", _prefix(full, 2, 30))
    between = _write(tmp_path, "between.json", _prefix(full, 3, None))
    assert main(["replay", "--quiet", str(mid), str(between)]) == 1
    lines = capsys.readouterr().err.splitlines()
    err = [line for line in lines if not line.startswith("position 局面")]
    assert err[0].startswith(f"{mid}: the game is unfinished: hand 3 stops after action 30 (")
    assert err[1].startswith(f"{between}: the game is unfinished: after hand 3 (")
    assert lines[1].startswith("position 局面 before it: rules=anchao;")  # where mid stops, in play: a bug report's
    assert main(["replay", "--quiet", "--allow-unfinished", str(mid), str(between)]) == 0
    printed = capsys.readouterr().out.splitlines()
    out = [line for line in printed if not line.startswith("position 局面")]
    assert printed[1].startswith("position 局面 where it stops: rules=anchao;")
    assert out[0].startswith(f"{mid}: replayed 3 hands; every action is legal and every result agrees; ")
    assert "the game is unfinished: hand 3 stops after action 30 (" in out[0]
    assert "the game is unfinished: after hand 3 (" in out[1]
    assert main(["replay", "--allow-unfinished", str(mid)]) == 0  # with the log of the hands
    assert "Hand 3" in capsys.readouterr().out


def test_good_and_bad_files_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, "good.json", fresh("standard"))
    bad = _write(tmp_path, "bad.json", b"{")
    assert main(["replay", "--quiet", str(good), str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{good}: replayed ") and captured.err.startswith(f"{bad}: not JSON")
    assert "the game is unfinished" not in captured.out


# -- fuzzing ----------------------------------------------------------------------------------------

FUZZ_PRESETS = ("standard", "kangqi")


@functools.cache
def _paths(preset: str) -> tuple[tuple[Any, ...], ...]:
    """Every node of the record, as the keys that lead to it."""

    def walk(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        yield path
        if isinstance(node, dict):
            for key, value in node.items():
                yield from walk(value, (*path, key))
        elif isinstance(node, list):
            for n, value in enumerate(node):
                yield from walk(value, (*path, n))

    return tuple(walk(fresh(preset), ()))


def _mutated(node: Any, path: tuple[Any, ...], op: str, value: Any) -> Any:
    """``node`` with the node at ``path`` replaced, deleted or given a sibling (copied along the path only)."""
    if not path:
        return value if op == "replace" else node
    out = copy.copy(node)
    key, rest = path[0], path[1:]
    if rest:
        out[key] = _mutated(node[key], rest, op, value)
    elif op == "replace":
        out[key] = value
    elif op == "delete":
        del out[key]
    elif isinstance(out, list):
        out.insert(key, value)
    else:
        out[f"junk{len(out)}"] = value
    return out


PLAUSIBLE = st.sampled_from(
    [0, 1, 2, 3, 4, -1, 7, 100, 108, None, True, False, "", "x", "As", "BJ BJ", "5h 5h", "nt", "redeal", "bid",
     "play", "close", "pass", [], {}, [0, 0], {"a": "close"}, {"a": "pass", "p": 1}, 1.0, NAN,
     {"level": "2", "circle": 1}]
)  # fmt: skip
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | PLAUSIBLE
    | st.builds(pow, st.just(10), st.just(5000)),  # HUGE: a number too long to print
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _check_fuzzed(original: Record, mutated: Any, allow: bool) -> None:
    try:
        game = replay(mutated, allow_unfinished=allow)
    except RecordError:
        return
    # accepted: the record is exactly the replayed game's (the rules may be written another way)
    assert isinstance(mutated, dict)
    again = game_record(game, players=mutated.get("players", original["players"]))
    assert again["rules"] == RuleSet.from_spec(mutated["rules"]).to_spec()
    assert {k: v for k, v in again.items() if k != "rules"} == {
        k: v for k, v in {**mutated, "players": again["players"]}.items() if k != "rules"
    }


@settings(max_examples=120, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), preset=st.sampled_from(FUZZ_PRESETS), op=st.sampled_from(["replace", "delete", "insert"]))
def test_fuzz_record_tree(data: st.DataObject, preset: str, op: str) -> None:
    original = fresh(preset)
    path = data.draw(st.sampled_from(_paths(preset)), label="path")
    value = data.draw(JSON_VALUES, label="value")
    allow = data.draw(st.booleans(), label="allow_unfinished")
    _check_fuzzed(original, _mutated(original, path, op, value), allow)


@settings(max_examples=60, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    preset=st.sampled_from(FUZZ_PRESETS),
    field=st.sampled_from(["p", "at", "cards", "choose", "a", "swap", "duplicate", "delete"]),
)
def test_fuzz_actions(data: st.DataObject, preset: str, field: str) -> None:
    """Well-typed but wrong actions reach the engine: it refuses them with a reason, or the record still agrees."""
    original = fresh(preset)
    record = fresh(preset)
    h = data.draw(st.integers(0, len(record["hands"]) - 1), label="hand")
    acts = record["hands"][h]["actions"]
    k = data.draw(st.integers(0, len(acts) - 1), label="action")
    cards = sorted({a["cards"] for a in acts if "cards" in a})
    if field == "p":
        acts[k]["p"] = data.draw(st.integers(0, 3))
    elif field == "at":
        acts[k]["at"] = data.draw(st.integers(0, 108))
    elif field == "cards":
        acts[k]["cards"] = data.draw(st.sampled_from(cards))
    elif field == "choose":
        acts[k]["choose"] = data.draw(st.sampled_from(["s", "h", "c", "d", "nt", "NT", "x"]))
    elif field == "a":
        acts[k]["a"] = data.draw(st.sampled_from(["bid", "close", "bury", "fry", "pass", "show_red5", "play"]))
    elif field == "swap":
        j = data.draw(st.integers(0, len(acts) - 1))
        acts[k], acts[j] = acts[j], acts[k]
    elif field == "duplicate":
        acts.insert(k, dict(acts[k]))
    else:
        del acts[k]
    _check_fuzzed(original, record, data.draw(st.booleans()))


@settings(max_examples=60, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), op=st.sampled_from(["replace", "delete", "insert"]))
def test_fuzz_record_text(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, op: str) -> None:
    """Edits of the file's bytes: load_record and replay answer RecordError or a game, nothing else."""
    text = _original("standard").encode("utf-8")
    at = data.draw(st.integers(0, len(text) - 1), label="at")
    junk = data.draw(st.binary(min_size=1, max_size=4) | st.sampled_from([b"{", b"]", b'"', b",", b"9" * 20]))
    size = data.draw(st.integers(1, 20), label="size")
    edited = {
        "replace": text[:at] + junk + text[at + len(junk) :],
        "delete": text[:at] + text[at + size :],
        "insert": text[:at] + junk + text[at:],
    }[op]
    path = tmp_path_factory.mktemp("fuzz") / "record.json"
    path.write_bytes(edited)
    try:
        game = replay(load_record(path))
    except RecordError:
        return
    assert game.over
