"""Game records: a JSON document with the rules, each hand's deal and every action (docs/record-format.md).

:func:`game_record` writes one from a played :class:`~chaodipi.game.Game`;
:func:`replay` rebuilds the game from a record and proves it: every action is re-checked
against the rules and every stored field (hand numbers, first seats, dealers, results,
the winner, the final levels and credits) is compared with the recomputed game. The
first thing that does not agree stops the replay with a :class:`RecordError` naming the
hand and action, or the field. :func:`describe_game` prints a game hand by hand.

A record of format 2 stores every hand's deal (:func:`format_deal`), so any program can
replay it; the seed is then only informative. Format 1 records (no deals) are still
read: their hands are dealt again from the seed with Python's ``random``.

The seed is written as a JSON integer when it is smaller than 2**53 in size and as its decimal
digits otherwise (:func:`seed_to_json`): a JavaScript number holds larger whole numbers only
approximately. :func:`seed_from_json` reads both. :func:`parse_json` reads the JSON of a record
file (or any JSON document the project reads) and says what is wrong with it in words.

>>> from chaodipi.simulate import simulate_game
>>> record = game_record(simulate_game(RuleSet.preset("standard"), 1))
>>> record["format"], record["hands"][0]["deal"][:12]
('chaodipi-record/2', '8hKs6sAd7s9d')
>>> record["seed"] += 1  # informative only: the stored deals drive the replay
>>> replay(record).winner == record["winner"]
True
>>> record["hands"][0]["deal"] = "5h" * 108
>>> replay(record)
Traceback (most recent call last):
...
chaodipi.record.RecordError: hand 1: deal: not two decks (each card twice): 5h 108 times, 2s 0 times, …
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from chaodipi.cards import Card, format_cards
from chaodipi.game import MAX_HANDS, Game
from chaodipi.hand import Action, Hand, Phase
from chaodipi.log import EventData, Left, Named, TrickWon, TrumpSet
from chaodipi.rules import RuleSet
from chaodipi.trump import trump_words

__all__ = [
    "FORMAT",
    "FORMATS",
    "JSON_SAFE_INT",
    "MAX_ACTIONS_PER_HAND",
    "MAX_NUMBER_DIGITS",
    "MAX_RECORD_BYTES",
    "SEAT_NAMES",
    "JSONTextError",
    "RecordError",
    "describe_game",
    "format_deal",
    "game_record",
    "load_record",
    "parse_deal",
    "parse_json",
    "replay",
    "result_json",
    "seed_from_json",
    "seed_to_json",
    "unfinished_at",
]

FORMAT = "chaodipi-record/2"  # the format game_record writes: every hand carries its deal
FORMAT_1 = "chaodipi-record/1"  # the first format: no deals, the seed's shuffles deal every hand
FORMATS = (FORMAT_1, FORMAT)  # the formats replay reads
SEAT_NAMES = ("南 South", "东 East", "北 North", "西 West")

#: A bound on a hand's actions, far above what the rules allow (at most 108 plays, and
#: bids, fries, burials and passes that must each outrank or answer an earlier one).
MAX_ACTIONS_PER_HAND = 1000
#: A bound on a record file: a game of MAX_HANDS hands is well under it.
MAX_RECORD_BYTES = 64 * 1024 * 1024
#: Whole numbers at least this large in size are written as decimal text: a JavaScript number (a
#: double) holds every whole number below 2**53 exactly, and larger ones only approximately.
JSON_SAFE_INT = 2**53
#: The most digits a number in a JSON document may have (a 64-bit seed has 19 or 20).
MAX_NUMBER_DIGITS = 100

RECORD_KEYS = ("format", "rules", "seed", "players", "hands", "winner", "levels", "credits", "time_up")
OPTIONAL_KEYS = ("players", "time_up")  # the keys a record may leave out
HAND_KEYS = ("number", "first_seat", "dealer", "deal", "actions", "result")
HAND_KEYS_1 = ("number", "first_seat", "dealer", "actions", "result")  # format 1: no deal
# each action kind: the fields it must have and the fields it may have
ACTION_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "bid": (frozenset({"a", "p", "cards", "at"}), frozenset({"choose"})),
    "close": (frozenset({"a"}), frozenset()),
    "bury": (frozenset({"a", "p", "cards"}), frozenset()),
    "fry": (frozenset({"a", "p", "cards"}), frozenset({"choose"})),
    "pass": (frozenset({"a", "p"}), frozenset()),
    "show_red5": (frozenset({"a", "p"}), frozenset()),
    "play": (frozenset({"a", "p", "cards"}), frozenset()),
    "leave": (frozenset({"a", "p"}), frozenset()),
    "penalty": (frozenset({"a", "team", "offence"}), frozenset({"points", "levels", "warning", "game_lost"})),
}
DEAL_SIZE = 108
CARD_CODES = {str(c): c for c in Card.ALL}  # the 54 cards as the engine writes them, 2 characters each


class RecordError(ValueError):
    """A record that cannot be read or does not replay."""


class JSONTextError(ValueError):
    """A JSON document that cannot be read: not UTF-8, not JSON, or a number too long; the words say where."""


def seed_to_json(seed: int) -> int | str:
    """A seed as JSON carries it: the number below 2**53 in size, else its decimal digits.

    >>> seed_to_json(7), seed_to_json(2479999172460754900), seed_to_json(-(2**53))
    (7, '2479999172460754900', '-9007199254740992')
    """
    return seed if -JSON_SAFE_INT < seed < JSON_SAFE_INT else str(seed)


_BIG_DECIMAL = re.compile(rf"-?[1-9][0-9]{{15,{MAX_NUMBER_DIGITS - 1}}}")


def seed_from_json(value: object) -> int:
    """A record's seed as :func:`seed_to_json` writes it: a whole number, or the decimal digits of a
    seed of 2**53 or more in size (no sign but ``-``, no leading zero); :class:`RecordError` otherwise.

    >>> seed_from_json(5), seed_from_json("2479999172460754900")
    (5, 2479999172460754900)
    >>> seed_from_json("12")
    Traceback (most recent call last):
    ...
    chaodipi.record.RecordError: a whole number, not "12" (as text only from 2**53 on: "2479999172460754900")
    """
    if _is_int(value):
        assert isinstance(value, int)
        return value
    if isinstance(value, str) and _BIG_DECIMAL.fullmatch(value) and abs(int(value)) >= JSON_SAFE_INT:
        return int(value)
    raise RecordError(f'a whole number, not {_brief(value)} (as text only from 2**53 on: "2479999172460754900")')


def format_deal(cards: Sequence[Card]) -> str:
    """A deal as a record stores it: the cards in dealing order, 2 characters each, no separator.

    >>> from chaodipi.cards import deck
    >>> text = format_deal(deck())
    >>> len(text), text[:12], text[-4:]
    (216, '2s2s3s3s4s4s', 'BJBJ')
    >>> parse_deal(text) == deck()
    True
    """
    return "".join(str(c) for c in cards)


def parse_deal(text: object) -> list[Card]:
    """Read a stored deal: 108 cards, 2 characters each as the engine writes them, every card twice.

    Raises :class:`RecordError` saying what is wrong (the caller names the hand).

    >>> parse_deal("5h" * 108)
    Traceback (most recent call last):
    ...
    chaodipi.record.RecordError: not two decks (each card twice): 5h 108 times, 2s 0 times, …
    """
    if not isinstance(text, str):
        raise RecordError(f"{DEAL_SIZE} cards in dealing order, one text of 2-character codes, not {_brief(text)}")
    if len(text) != 2 * DEAL_SIZE:
        raise RecordError(f"{len(text)} characters, not {2 * DEAL_SIZE} ({DEAL_SIZE} cards of 2 characters each)")
    cards: list[Card] = []
    for k in range(DEAL_SIZE):
        code = text[2 * k : 2 * k + 2]
        card = CARD_CODES.get(code)
        if card is None:
            raise RecordError(
                f"card {k + 1} ({_brief(code)}) is not a card as the engine writes it: a rank 2-9, T, J, Q, K "
                "or A then a suit s, h, c or d, or SJ, BJ"
            )
        cards.append(card)
    counts = Counter(cards)
    wrong = [c for c in Card.ALL if counts[c] != 2]
    if wrong:
        listed = ", ".join(f"{c} {_times(counts[c])}" for c in sorted(wrong, key=lambda c: -counts[c])[:2])
        more = ", …" if len(wrong) > 2 else ""
        raise RecordError(f"not two decks (each card twice): {listed}{more}")
    return cards


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def hand_record(number: int, hand: Hand) -> dict[str, Any]:
    """One hand of a record (no ``result`` while the hand is not over)."""
    out: dict[str, Any] = {
        "number": number,
        "first_seat": hand.first_seat,
        "dealer": hand.dealer,
        "deal": format_deal(hand.deck),
        "actions": [a.to_json() for a in hand.actions],
    }
    result = result_json(hand)
    if result is not None:
        out["result"] = result
    return out


def result_json(hand: Hand) -> Any:
    """A hand's ``result`` as a record stores it: ``"redeal"``, the settled result, ``{"game_lost": team}`` for a
    hand that a penalty's game lost ended (RULES §14.4), or None while the hand is not over."""
    if hand.phase == Phase.REDEAL:
        return "redeal"
    if hand.lost_by is not None:
        return {"game_lost": hand.lost_by}
    return None if hand.result is None else hand.result.to_json()


def game_record(game: Game, *, players: list[str] | None = None) -> dict[str, Any]:
    """The record of a game, finished or not (between hands, write it after :meth:`Game.finish_hand`).

    A game whose time ran out (:meth:`Game.call_time`, RULES §14.2) has ``time_up``: the number of hands
    dealt when it did; other records have no such key."""
    out: dict[str, Any] = {
        "format": FORMAT,
        "rules": game.rules.to_spec(),
        "seed": seed_to_json(game.seed),
        "players": players or ["random"] * 4,
        "hands": [hand_record(i + 1, h) for i, h in enumerate(game.hands)],
        "winner": game.winner,
        "levels": [p.to_json() for p in game.progress],
        "credits": list(game.credits) if game.rules.credits else None,
    }
    if game.time_up is not None:
        out["time_up"] = game.time_up
    return out


def load_record(path: str | Path) -> Any:
    """Read a record file: UTF-8 JSON (a byte-order mark is skipped; no NaN, no repeated keys, no
    number of more than MAX_NUMBER_DIGITS digits), at most MAX_RECORD_BYTES.

    Only the reading is checked here (:func:`parse_json`); :func:`replay` checks what the document says.
    """
    try:
        with Path(path).open("rb") as f:
            raw = f.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"the file is larger than {MAX_RECORD_BYTES} bytes, more than any game's record")
    try:
        return parse_json(raw, what="a record")
    except JSONTextError as exc:
        raise RecordError(str(exc)) from None


def parse_json(text: str | bytes, *, what: str = "a JSON document") -> Any:
    """Read one JSON document strictly, with what is wrong in words (a :class:`JSONTextError`).

    Bytes must be UTF-8; a leading byte-order mark (U+FEFF, which some editors write) is skipped, as
    RFC 8259 allows. ``NaN`` and ``Infinity``, a key repeated in one object, a number of more than
    :data:`MAX_NUMBER_DIGITS` digits or too large for a float, and nesting too deep to read are
    refused. ``what`` names the document in the words (``"a record"``).

    >>> parse_json(b'\\xef\\xbb\\xbf{"seed": 5}')
    {'seed': 5}
    >>> parse_json('{"seed":\\n 1' + '0' * 5000 + '}', what="a record")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chaodipi.record.JSONTextError: not JSON for a record: line 2, column 2: a number of 5001 digits is too long...
    >>> parse_json('{"a": 1,}')
    Traceback (most recent call last):
    ...
    chaodipi.record.JSONTextError: not JSON: line 1, column 9: Expecting property name enclosed in double quotes
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONTextError(f"not UTF-8 text (byte {exc.start}): {what} is a JSON document") from None
    text = text.removeprefix("\ufeff")
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constant,
            parse_int=_json_int,
            parse_float=_json_float,
        )
    except _LongNumber as exc:
        number, reason = exc.args
        line, column = _where(text, number)
        raise JSONTextError(f"not JSON for {what}: line {line}, column {column}: {reason}") from None
    except json.JSONDecodeError as exc:
        msg = "a second byte-order mark (U+FEFF)" if exc.msg.startswith("Unexpected UTF-8 BOM") else exc.msg
        raise JSONTextError(f"not JSON: line {exc.lineno}, column {exc.colno}: {msg}") from None
    except RecursionError:
        raise JSONTextError(f"not {what}: the JSON is nested too deeply") from None
    except ValueError as exc:  # a repeated key, NaN
        raise JSONTextError(f"not JSON: {exc}") from None


class _LongNumber(ValueError):
    """A number that a JSON document of ours may not hold (found by :func:`parse_json`'s hooks):
    ``args`` are the number as written and what is wrong with it."""


def _digits(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _json_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise _LongNumber(text, f"a number of {digits} digits is too long (at most {MAX_NUMBER_DIGITS} digits)")
    return int(text)


def _json_float(text: str) -> float:
    digits = _digits(text)
    if digits > MAX_NUMBER_DIGITS:
        raise _LongNumber(text, f"a number of {digits} digits is too long (at most {MAX_NUMBER_DIGITS} digits)")
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _LongNumber(text, f"the number {_cut(text, 40)} is too large")
    return value


def _where(text: str, token: str) -> tuple[int, int]:
    """The line and column (from 1) of the first number ``token`` in ``text`` (1, 1 if not found)."""
    found = re.search(rf"(?<![0-9.eE+\-]){re.escape(token)}(?![0-9.eE+\-])", text)
    at = found.start() if found else 0
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# -- replaying -------------------------------------------------------------------------


def replay(
    record: object, *, allow_unfinished: bool = False, after: Callable[[int, Hand, Action | None], None] | None = None
) -> Game:
    """Rebuild a game from its record and check every action and every stored field.

    Raises :class:`RecordError` (one message naming the field, or the hand and action) if
    anything does not agree, and for a game that is not over unless ``allow_unfinished``
    (see :func:`unfinished_at`). Work is bounded: at most MAX_HANDS hands of at most
    MAX_ACTIONS_PER_HAND actions are replayed, and each is refused once its hand is over.
    ``after(i, hand, action)`` is called when hand ``i`` starts (``action`` None) and after each
    of its actions is applied (a replay viewer takes its snapshots there).
    """
    fields, rules, hands = _header(record)
    game = Game(rules, seed_from_json(fields["seed"]))
    time_up = fields.get("time_up")
    if time_up == 0:
        game.call_time()  # the time ran out before the first hand
    for i, rec in enumerate(hands, 1):
        if game.over:
            why = "its time ran out" if game.ended_by_time else f"team {game.winner} won"
            raise RecordError(
                f"hand {i}: the game was over after hand {i - 1} ({why}), but the record has {len(hands)} hands"
            )
        hand = _replay_hand(game, i, rec, dealt=fields["format"] == FORMAT, after=after, time_up=time_up == i)
        if hand.phase not in (Phase.OVER, Phase.REDEAL) and i < len(hands):
            raise RecordError(
                f"hand {i} is not over after its {len(hand.actions)} actions ({_stop(hand)}), but hand {i + 1} follows"
            )
    _check_end(fields, game)
    stop = unfinished_at(game)
    if stop is not None and not allow_unfinished:
        raise RecordError(f"the game is unfinished: {stop}; allow_unfinished (--allow-unfinished) accepts it")
    return game


def unfinished_at(game: Game) -> str | None:
    """Where a game that is not over stops, in words (None for a game that is over)."""
    if game.over:
        return None
    hand = game.current
    if hand is None:
        return "the record has no hands"
    n = len(game.hands)
    if hand.phase in (Phase.OVER, Phase.REDEAL):
        levels = ", ".join(f"team {t} at {p}" for t, p in enumerate(game.progress))
        return f"after hand {n} ({levels}) nobody has won yet"
    return f"hand {n} stops after action {len(hand.actions)} ({_stop(hand)})"


def _stop(hand: Hand) -> str:
    """What a hand that is not over waits for."""
    seat = hand.to_act()
    if hand.phase in (Phase.DEAL, Phase.COUNTDOWN):
        return "bidding not closed" if hand.actions else "no action yet"
    if hand.phase == Phase.BURY:
        return f"player {seat} to bury"
    if hand.phase == Phase.FRY:
        return f"player {seat} to fry or pass"
    return f"trick {len(hand.tricks) + 1}: player {seat} to play"


def _header(record: object) -> tuple[dict[str, Any], RuleSet, list[Any]]:
    """The record's fields, its rules and its hands, once the top-level fields have the right shapes."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, not {_brief(record)}")
    if record.get("format") not in FORMATS:
        raise RecordError(
            f"format: not a {FORMAT} record, nor an older {FORMAT_1} one (format {_brief(record.get('format'))})"
        )
    _known_keys("the record", record, RECORD_KEYS)
    for key in RECORD_KEYS:
        if key not in record and key not in OPTIONAL_KEYS:
            raise RecordError(f"{key}: missing (a record has {', '.join(RECORD_KEYS)})")
    spec = record["rules"]
    if not isinstance(spec, str | dict):
        raise RecordError(f"rules: a preset name or {{'preset': ..., 'set': {{...}}}}, not {_brief(spec)}")
    try:
        rules = RuleSet.from_spec(spec)
    except (ValueError, TypeError, RecursionError) as exc:
        raise RecordError(f"rules: {_cut(str(exc).removeprefix('rules: '))}") from None
    try:
        seed_from_json(record["seed"])
    except RecordError as exc:
        raise RecordError(f"seed: {exc}") from None
    players = record.get("players", [])
    if "players" in record and not (
        isinstance(players, list) and len(players) == 4 and all(isinstance(p, str) for p in players)
    ):
        raise RecordError(f"players: a list of 4 texts (one a seat), not {_brief(players)}")
    hands = record["hands"]
    if not isinstance(hands, list):
        raise RecordError(f"hands: a list of hands, not {_brief(hands)}")
    if len(hands) > MAX_HANDS:
        raise RecordError(f"hands: {len(hands)} hands, more than a game may have ({MAX_HANDS})")
    if "time_up" in record:
        time_up = record["time_up"]
        if not _is_int(time_up) or not 0 <= time_up <= len(hands):
            raise RecordError(
                f"time_up: the number of hands dealt when the game's time ran out (0..{len(hands)}), "
                f"not {_brief(time_up)}"
            )
    return record, rules, hands


def _replay_hand(
    game: Game,
    i: int,
    rec: object,
    *,
    dealt: bool,
    after: Callable[[int, Hand, Action | None], None] | None = None,
    time_up: bool = False,
) -> Hand:
    """Replay hand ``i`` of the record into ``game`` (applying it to the game once it is over).

    ``dealt``: the hand stores its deal (format 2); otherwise the seed deals it (format 1). ``time_up``:
    the game's time ran out once this hand was dealt (the record's ``time_up``): it is the game's last.
    """
    if not isinstance(rec, dict):
        raise RecordError(f"hand {i}: a hand is an object, not {_brief(rec)}")
    keys = HAND_KEYS if dealt else HAND_KEYS_1
    _known_keys(f"hand {i}", rec, keys, note="" if dealt else f" (a {FORMAT_1} record stores no deal)")
    for key in keys[:-1]:
        if key not in rec:
            raise RecordError(f"hand {i}: {key} missing")
    number = rec["number"]
    if not _is_int(number) or number != i:
        raise RecordError(f"hand {i}: number: the record says {_brief(number)}, expected {i} (hands count 1, 2, …)")
    actions = rec["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"hand {i}: actions: a list of actions, not {_brief(actions)}")
    if len(actions) > MAX_ACTIONS_PER_HAND:
        raise RecordError(f"hand {i}: {len(actions)} actions, more than a hand can have ({MAX_ACTIONS_PER_HAND})")
    if dealt:
        hand = _new_dealt_hand(game, i, rec["first_seat"], rec["deal"])
    else:
        try:
            hand = game.new_hand()
        except ValueError as exc:  # GameError: cannot happen after the checks above
            raise RecordError(f"hand {i}: {exc}") from None
        _compare(f"hand {i}: first_seat", rec["first_seat"], hand.first_seat, verb="the seed deals from")
    if time_up:
        game.call_time()
    if after is not None:
        after(i, hand, None)
    for k, raw in enumerate(actions, 1):
        if hand.phase in (Phase.OVER, Phase.REDEAL):
            raise RecordError(
                f"hand {i}, action {k}: the hand is over after action {k - 1}, but the record gives {len(actions)}"
            )
        action = _action(i, k, raw)
        try:
            hand.apply(action)
        except ValueError as exc:
            raise RecordError(f"hand {i}, action {k} ({_brief(raw)}): {_cut(str(exc))}") from None
        if after is not None:
            after(i, hand, hand.actions[-1])
    _compare(f"hand {i}: dealer", rec["dealer"], hand.dealer)
    over = hand.phase in (Phase.OVER, Phase.REDEAL)
    if not over:
        if "result" in rec:
            raise RecordError(
                f"hand {i}: the record gives a result, but the hand is not over after its {len(actions)} actions "
                f"({_stop(hand)})"
            )
        return hand
    result = result_json(hand)
    if "result" not in rec:
        raise RecordError(f"hand {i}: result missing: the hand is over after its {len(actions)} actions")
    _compare(f"hand {i}: result", rec["result"], result)
    try:
        game.finish_hand()
    except ValueError as exc:  # GameError: cannot happen for a hand that is over
        raise RecordError(f"hand {i}: {exc}") from None
    return hand


def _new_dealt_hand(game: Game, i: int, first_seat: object, deal: object) -> Hand:
    """Start hand ``i`` from its stored deal: the first seat is the record's while no dealer is
    known (the first hand and its redeals: a random seat), and the dealer's after that."""
    seat = first_seat if isinstance(first_seat, int) and not isinstance(first_seat, bool) else None
    if game.next_dealer is not None:
        _compare(f"hand {i}: first_seat", first_seat, game.next_dealer, verb="the first card goes to the dealer,")
    elif not (isinstance(seat, int) and 0 <= seat <= 3):
        raise RecordError(f"hand {i}: first_seat: the record says {_brief(first_seat)}, not a seat (0..3)")
    try:
        cards = parse_deal(deal)
    except RecordError as exc:
        raise RecordError(f"hand {i}: deal: {exc}") from None
    try:
        return game.new_hand(deck=cards, first_seat=seat)
    except ValueError as exc:  # GameError: cannot happen after the checks above
        raise RecordError(f"hand {i}: {exc}") from None


def _action(i: int, k: int, raw: object) -> Action:
    """Action ``k`` of hand ``i``, once it has its kind's fields, with their types, written as the engine writes it."""
    where = f"hand {i}, action {k}"
    if not isinstance(raw, dict) or not isinstance(raw.get("a"), str) or raw["a"] not in ACTION_FIELDS:
        raise RecordError(
            f"{where}: an action is an object whose 'a' is one of {', '.join(ACTION_FIELDS)}, not {_brief(raw)}"
        )
    need, may = ACTION_FIELDS[raw["a"]]
    for key in raw:
        if key not in need and key not in may:
            raise RecordError(f"{where}: unknown field {_brief(key)} in a {raw['a']} action ({_brief(raw)})")
    for key in need:
        if key not in raw:
            raise RecordError(f"{where}: a {raw['a']} action needs '{key}' ({_brief(raw)})")
    p, at = raw.get("p", 0), raw.get("at", 0)
    if not _is_int(p) or not 0 <= p <= 3:
        raise RecordError(f"{where}: 'p' is a seat 0..3, not {_brief(p)}")
    if not _is_int(at) or not 0 <= at <= DEAL_SIZE:
        raise RecordError(f"{where}: 'at' is a number of cards dealt 0..{DEAL_SIZE}, not {_brief(at)}")
    for key in ("cards", "choose", "offence"):
        if key in raw and not (isinstance(raw[key], str) and raw[key]):
            raise RecordError(f"{where}: '{key}' is a text, not {_brief(raw[key])}")
    try:
        action = Action.from_json(raw)
    except ValueError as exc:
        raise RecordError(f"{where} ({_brief(raw)}): {_cut(str(exc))}") from None
    canonical = action.to_json()
    if _difference(raw, canonical) is not None:
        raise RecordError(f"{where}: {_brief(raw)} is not written as the engine writes it: {_brief(canonical)}")
    return action


def _check_end(record: dict[str, Any], game: Game) -> None:
    """The record's winner, final levels and credits against the replayed game."""
    winner = record["winner"]
    if winner is not None and not (_is_int(winner) and winner in (0, 1)):
        raise RecordError(f"winner: a team (0 or 1) or null, not {_brief(winner)}")
    if winner is not None and not game.over:
        raise RecordError(f"winner: the record says team {winner} won, but {unfinished_at(game)}")
    _compare("winner", winner, game.winner)
    _compare("levels", record["levels"], [p.to_json() for p in game.progress])
    credits = list(game.credits) if game.rules.credits else None
    note = "" if game.rules.credits else " (these rules keep no credits)"
    _compare("credits", record["credits"], credits, note=note)


def _compare(what: str, stored: object, computed: object, *, verb: str = "the replay gives", note: str = "") -> None:
    """Raise unless a stored value is the computed one (as JSON: 1 is not 1.0 nor true)."""
    diff = _difference(stored, computed)
    if diff is not None:
        path, says, gives = diff
        tail = "" if gives is _NOTHING else f", {verb} {_brief(gives)}"
        raise RecordError(f"{what}{path}: {says}{tail}{note}")


_NOTHING = object()  # a difference with no computed value to show (an unknown key)


def _difference(stored: object, computed: object, path: str = "") -> tuple[str, str, object] | None:
    """The first place where ``stored`` differs from ``computed``: (path, what the record says, the
    computed value there), or None if they are the same JSON value.

    The recursion follows ``computed`` (a value the engine built), so its depth is bounded.
    """
    if isinstance(computed, dict):
        if not isinstance(stored, dict):
            return path, f"the record says {_brief(stored)}", computed
        for key in stored:
            if key not in computed:
                return path, f"the record has an unknown key {_brief(key)}", _NOTHING
        for key, value in computed.items():
            if key not in stored:
                return f"{path}.{key}", "missing in the record", value
            diff = _difference(stored[key], value, f"{path}.{key}")
            if diff is not None:
                return diff
        return None
    if isinstance(computed, list | tuple):
        if not isinstance(stored, list | tuple) or len(stored) != len(computed):
            return path, f"the record says {_brief(stored)}", computed
        for n, (s, c) in enumerate(zip(stored, computed, strict=True)):
            diff = _difference(s, c, f"{path}[{n}]")
            if diff is not None:
                return diff
        return None
    if computed is None or isinstance(computed, bool):
        same = stored is computed
    elif isinstance(computed, int):
        same = _is_int(stored) and stored == computed
    else:
        same = type(stored) is type(computed) and stored == computed
    return None if same else (path, f"the record says {_brief(stored)}", computed)


def _known_keys(what: str, obj: dict[Any, Any], keys: tuple[str, ...], *, note: str = "") -> None:
    for key in obj:
        if key not in keys:
            raise RecordError(f"{what}: unknown key {_brief(key)} (the keys are {', '.join(keys)}){note}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _brief(value: object, limit: int = 80) -> str:
    """A short JSON-like text of any value, safe for huge numbers, deep nesting and NaN."""
    if isinstance(value, int) and not -(10**18) < value < 10**18:
        return "a number too large for a record"
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):
        text = f"a {type(value).__name__}"
    return _cut(text, limit)


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _frying_over(data: EventData | None) -> str:
    """The end of frying in words: the trump, and in a dark game whose bids are shown, every bid (RULES §10.5)."""
    if not isinstance(data, TrumpSet):
        return "trump settled"
    bids = "".join(
        f"; {'fry' if b.fry else 'bid'} {b.player}: {format_cards(b.cards)}{'' if b.valid else ' (void)'}"
        for b in data.bids
    )
    return f"trump {data.trump}{bids}"


def _seat(seat: int | None) -> str:
    return "-" if seat is None else f"{SEAT_NAMES[seat]} ({seat})"


def describe_hand(number: int, hand: Hand) -> Iterator[str]:
    """A readable log of one hand, all cards shown (a finished game has no secrets)."""
    level = "flag 扛旗" if hand.flag else hand.level.symbol if hand.level else "?"
    yield f"── Hand {number} 第{number}副 — level 级牌 {level}, first card to {_seat(hand.first_seat)}"
    if hand.phase == Phase.REDEAL:
        yield "   nobody bid: the cards are dealt again (流庄重新发牌)"
        return
    for seat in range(4):
        dealt = [e.cards[0] for e in hand.iter_events() if e.kind == "dealt" and e.player == seat]
        yield f"   {SEAT_NAMES[seat]} dealt: {format_cards(hand.trump_order.sorted(dealt))}"
    trump = "flag: 5h BJ SJ only" if hand.flag else trump_words(hand.trump)
    plays: list[str] = []
    tricks = 0
    for e in hand.iter_events():
        if e.kind == "bid":
            kind = "bid 亮主/反主" if e.valid else "void bid (dark) 无效"
            naming = f" naming {e.data.choose}" if isinstance(e.data, Named) else ""
            yield f"   {kind}: {_seat(e.player)} shows {format_cards(e.cards)}{naming}"
        elif e.kind == "closed":
            yield f"   bidding closed: dealer 庄家 {_seat(e.player)}"
        elif e.kind == "kitty_trump":
            turned = f"trump {e.data.trump} from the kitty" if isinstance(e.data, TrumpSet) else "trump from the kitty"
            yield f"   nobody bid: {turned} (kitty 底牌 {format_cards(e.cards)})"
        elif e.kind == "kitty_taken":
            yield f"   {_seat(e.player)} picks up the kitty 底牌: {format_cards(e.cards)}"
        elif e.kind == "buried":
            yield f"   {_seat(e.player)} buries 扣底: {format_cards(e.cards)}"
        elif e.kind == "fried":
            naming = f" naming {e.data.choose}" if isinstance(e.data, Named) else ""
            yield f"   {_seat(e.player)} fries 炒底 with {format_cards(e.cards)}{naming}"
        elif e.kind == "passed":
            yield f"   {_seat(e.player)} passes"
        elif e.kind == "frying_over":
            yield f"   frying over: {_frying_over(e.data)}"
        elif e.kind == "left":
            penalty = e.data.penalty if isinstance(e.data, Left) else "penalty at the settlement"
            yield f"   {_seat(e.player)} leaves the game 逃跑 ({penalty}); a bot plays on"
        elif e.kind == "played":
            if not plays and tricks == 0:
                yield f"   trump 主: {trump}; order: {hand.trump_order.order_text()}"
            plays.append(f"{SEAT_NAMES[e.player or 0][0]}:{format_cards(e.cards)}")
        elif e.kind == "trick":
            tricks += 1
            won = e.data.won if isinstance(e.data, TrickWon) else 0
            yield f"   trick {tricks:2}: {'  '.join(plays)}  → {SEAT_NAMES[e.player or 0]} wins {won} points"
            plays = []
        elif e.kind not in ("dealt", "settled", "redeal"):
            yield f"   {e.describe()}"
    res = hand.result
    if res is not None:
        s = res.settlement
        yield (
            f"   scoring side 抓分方 total p = {res.points} (tricks {res.trick_points}, kou di 抠底 {res.kou_di}"
            + "".join(f", {why} {d:+d}" for why, d in res.adjustments)
            + ")"
        )
        yield (
            f"   → table 台上: {s.table.value} side; dealer side {s.dealer}, scoring side {s.scoring}"
            + (f"; credits {s.credits}" if s.credits else "")
            + (f"; {'; '.join(map(str, s.events))}" if s.events else "")
        )
        for esc in res.escapes:
            yield f"   逃跑: {_seat(esc.player)} left and pays {esc.penalty} credits"
    if hand.lost_by is not None:
        yield f"   the game is lost by a penalty (RULES §14.4): team {hand.lost_by} loses, the hand is not settled"


def describe_game(game: Game) -> Iterator[str]:
    """The whole game, hand by hand."""
    overrides = json.dumps(game.rules.to_spec()["set"], ensure_ascii=False)
    yield f"炒地皮 game — rules {game.rules.name} {overrides}, seed {game.seed}"
    for i, hand in enumerate(game.hands, 1):
        yield from describe_hand(i, hand)
        summary = game.history[i - 1] if i - 1 < len(game.history) else None
        if summary is not None:
            levels = ", ".join(
                f"team {t} ({'南北' if t == 0 else '东西'}) {p}" for t, p in enumerate(summary.levels_after)
            )
            yield f"   levels after the hand: {levels}"
    if game.winner is not None:
        yield f"Game over: team {game.winner} ({'南北 South-North' if game.winner == 0 else '东西 East-West'}) wins."
