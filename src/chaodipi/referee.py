"""The referee: single rule questions as JSON requests (docs/referee.md).

:func:`answer` takes one request dict and returns one answer dict; it never
raises for bad input, answering ``{"error": "..."}`` in words instead.
:func:`answer_line` does the same for one line of JSON Lines, text in and text
out, and ``chaodipi referee`` is a thin wrapper around it (:func:`read_lines`,
:func:`run_lines`): one answer per non-blank line, written as soon as its line
has been read.

>>> answer({"op": "trick", "rules": "standard", "level": "2", "trump": "s",
...         "plays": ["3h", "3h", "4d", "6d"], "id": 7})
{'winner': 0, 'points': 0, 'id': 7}
>>> answer({"op": "classify", "rules": "nope", "level": "2", "trump": "s", "cards": "Ah"})["error"]
"unknown preset 'nope'; the presets are standard, anchao, kangqi, mingchao, contest2021, institute2023"
>>> answer_line('{"op": "kitty", "id": NaN}')
'{"error": "NaN is not a JSON number: numbers in a request must be finite"}'

Limits (README, "The referee"): a line holds at most :data:`MAX_LINE_BYTES` bytes,
nests arrays and objects at most :data:`MAX_DEPTH` deep and writes each number with
at most :data:`MAX_NUMBER_CHARS` characters; ``settle``'s ``points`` lie within
±:data:`MAX_POINTS` and its ``flag_failures`` within 0..:data:`MAX_FLAG_FAILURES`;
whole-number rule options lie within :data:`chaodipi.rules.INT_OPTION_RANGES`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any

from chaodipi.bidding import Bid, BidError, BidRequestError, IllegalBidError, classify_bid, evaluate_bids, parse_choice
from chaodipi.cards import Card, CardError, Rank, Suit, check_copies, format_cards, parse_cards, points_of
from chaodipi.play import FollowRule, check_throw
from chaodipi.rules import INT_OPTION_RANGES, PRESET_NAMES, RuleError, RuleSet
from chaodipi.settlement import LastTrick, Progress, SettlementError, Side, settle
from chaodipi.trick import kitty_multiplier, resolve_trick
from chaodipi.trump import TrumpError, TrumpOrder, parse_trump, trump_text
from chaodipi.units import Format, PlayError, decompose

__all__ = [
    "INTERNAL_ERROR",
    "MAX_DEPTH",
    "MAX_FLAG_FAILURES",
    "MAX_LINE_BYTES",
    "MAX_NUMBER_CHARS",
    "MAX_POINTS",
    "LineError",
    "RefereeError",
    "answer",
    "answer_line",
    "parse_line",
    "read_lines",
    "run_lines",
]

#: The longest line, in UTF-8 bytes without its line end (``\n`` or ``\r\n``). A longer line is
#: answered with an error, and the command reads and drops the rest of it without storing it.
MAX_LINE_BYTES = 64 * 1024
#: How deep arrays and objects may nest in a request (a request itself needs 3: ``rules.set.OPTION``).
MAX_DEPTH = 32
#: The most characters a number in a request may be written with (a 64-bit id needs 20).
MAX_NUMBER_CHARS = 100
#: ``settle``: the largest ``points`` either way (kou di with the exponential multiplier and a
#: 12-pair tractor reaches 80 × 2**24, about 1.3e9).
MAX_POINTS = 10**10
#: ``settle``: the largest ``flag_failures`` (the option ``flag_fail_limit`` is at most 1000 too).
MAX_FLAG_FAILURES = INT_OPTION_RANGES["flag_fail_limit"][1]
#: How every answer to a request that broke the referee begins: that is a bug, never bad input.
INTERNAL_ERROR = "internal error"


class RefereeError(ValueError):
    """A request that cannot be answered; the message says what is wrong, in words."""


class LineError(RefereeError):
    """A line that is not one JSON request: blank, too long, not UTF-8 or not JSON, nested too
    deep, or holding a number JSON Lines cannot carry (NaN, Infinity, too many digits)."""


#: The errors that mean bad input; any other exception is a bug and answered as an internal error.
_INPUT_ERRORS = (RefereeError, CardError, RuleError, TrumpError, PlayError, BidError, SettlementError)

Request = Mapping[str, Any]


def _show(value: object) -> str:
    """A value as messages show it: ``null``, ``true``, ``false`` as in JSON, others as Python writes them."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- reading a line -------------------------------------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*+"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _nesting(text: str) -> int:
    """How deep arrays and objects nest in JSON text (brackets inside strings do not count).

    >>> _nesting('{"a": [[1], "]]"]}')
    3
    """
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _number_text(text: str) -> None:
    if len(text) > MAX_NUMBER_CHARS:
        raise LineError(
            f"a number in the line is written with {len(text)} characters; "
            f"numbers in a request have at most {MAX_NUMBER_CHARS}"
        )


def _json_int(text: str) -> int:
    _number_text(text)
    return int(text)


def _json_float(text: str) -> float:
    _number_text(text)
    value = float(text)
    if not math.isfinite(value):
        raise LineError(f"the number {text} is too large: numbers in a request must be finite")
    return value


def _json_constant(name: str) -> object:
    raise LineError(f"{name} is not a JSON number: numbers in a request must be finite")


def _too_long() -> LineError:
    return LineError(f"the line is longer than {MAX_LINE_BYTES} bytes: a request is one line of at most that")


def parse_line(line: str) -> object:
    """Read one line of JSON Lines as a JSON value, within the limits; raises :class:`LineError` in words.

    The value is not checked as a request (that is :func:`answer`'s work), except that JSON which
    has no place in JSON Lines (``NaN``, ``Infinity``, huge numbers, deep nesting) is refused.

    >>> parse_line('{"op": "trick", "id": 1}')
    {'op': 'trick', 'id': 1}
    >>> parse_line("[" * 40)
    Traceback (most recent call last):
    ...
    chaodipi.referee.LineError: the line nests arrays and objects 40 deep; a request nests them at most 32 deep
    """
    if len(line) > MAX_LINE_BYTES or len(line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
        raise _too_long()
    if not line.strip():
        raise LineError("the line is blank: a request is one JSON object")
    depth = _nesting(line)
    if depth > MAX_DEPTH:
        raise LineError(
            f"the line nests arrays and objects {depth} deep; a request nests them at most {MAX_DEPTH} deep"
        )
    try:
        return json.loads(line, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise LineError(f"the line is not JSON: {exc.msg} at column {exc.colno}") from None


def _path_text(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = part if len(part) <= 40 else part[:37] + "..."
            out += f".{name}" if out else name
    return out or "the request"


def _unwritable(value: object, path: tuple[str | int, ...] = ()) -> str | None:
    """What in ``value`` a JSON line cannot carry, in words: a lone surrogate, NaN or Infinity, a
    huge number, or nesting deeper than :data:`MAX_DEPTH` (which also stops a value that holds itself).

    None when there is nothing; ``path`` names ``value`` in the message.
    """
    stack: list[tuple[object, tuple[str | int, ...]]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, (Mapping, list, tuple)) and len(where) >= MAX_DEPTH:
            return f"{_path_text(where)} nests arrays and objects more than {MAX_DEPTH} deep"
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return (
                    f"{_path_text(where)} holds a lone surrogate ({found.group()!a}), "
                    "which is not a character: texts must be valid Unicode"
                )
        elif isinstance(item, float) and not math.isfinite(item):
            return f"{_path_text(where)} is {item}, not a finite number: JSON has no NaN or Infinity"
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 10**MAX_NUMBER_CHARS:
            return f"{_path_text(where)} is a number of more than {MAX_NUMBER_CHARS} digits"
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return (
                        f"a key in {_path_text(where)} holds a lone surrogate, "
                        "which is not a character: texts must be valid Unicode"
                    )
                stack.append((sub, (*where, key if isinstance(key, str) else repr(key))))
        elif isinstance(item, (list, tuple)):
            stack.extend((sub, (*where, i)) for i, sub in enumerate(item))
    return None


# -- the fields of a request -------------------------------------------------------------------------


def _field(req: Request, name: str) -> object:
    if name not in req:
        raise RefereeError(f"missing field {name!r}")
    return req[name]


def _whole(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RefereeError(f"{name} must be a whole number from {low} to {high}, not {_show(value)}")
    return value


def _card_text(value: object, name: str, *, allow_empty: bool = False) -> list[Card]:
    if not isinstance(value, str):
        raise RefereeError(f"{name} must be a text of cards like 'Ah Ah Kh', not {_show(value)}")
    try:
        cards = parse_cards(value)
    except CardError as exc:
        raise RefereeError(f"{name}: {exc}") from None
    if not cards and not allow_empty:
        raise RefereeError(f"{name} holds no cards")
    return cards


def _cards(req: Request, name: str, *, allow_empty: bool = False) -> list[Card]:
    return _card_text(_field(req, name), name, allow_empty=allow_empty)


def _card_texts(req: Request, name: str, count: int, what: str) -> list[list[Card]]:
    """A list of ``count`` texts of cards, such as ``plays`` or ``others``."""
    raw = _field(req, name)
    if not isinstance(raw, list) or len(raw) != count:
        raise RefereeError(f"{name} must be a list of {what}, each a text of cards, not {_show(raw)}")
    return [_card_text(text, f"{name}[{i}]", allow_empty=True) for i, text in enumerate(raw)]


def _rules(req: Request) -> RuleSet:
    spec = _field(req, "rules")
    if isinstance(spec, Mapping):
        if "preset" in spec and not isinstance(spec["preset"], str):
            raise RefereeError(
                f"rules.preset must be a preset name ({', '.join(PRESET_NAMES)}), not {_show(spec['preset'])}"
            )
        overrides = spec.get("set")
        if overrides is not None and not isinstance(overrides, Mapping):
            raise RefereeError(f"rules.set must be an object of option names and values, not {_show(overrides)}")
    elif not isinstance(spec, str):
        raise RefereeError(
            f'rules must be a preset name or {{"preset": NAME, "set": {{OPTION: VALUE}}}}, not {_show(spec)}'
        )
    return RuleSet.from_spec(spec)


def _level(value: object, name: str = "level") -> Rank:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise RefereeError(f"{name} must be a text like '2', 'T' or 'A', not {_show(value)}")
    try:
        return Rank.parse(value)
    except CardError:
        raise RefereeError(f"{name} must be 2..9, T (or 10), J, Q, K or A, not {_show(value)}") from None


def _trump(value: object) -> tuple[bool, Suit | None]:
    """``trump`` as (flag hand?, suit or None for no-trump)."""
    if not isinstance(value, str):
        raise RefereeError(f"trump must be s, h, c, d, nt or flag, not {_show(value)}")
    return parse_trump(value)


def _order(req: Request, rules: RuleSet) -> TrumpOrder:
    flag, trump = _trump(_field(req, "trump"))
    if flag:
        return TrumpOrder.of(rules, None, None)
    return TrumpOrder.of(rules, _level(_field(req, "level")), trump)


def _lead_format(cards: list[Card], trump_order: TrumpOrder, what: str = "lead") -> Format:
    try:
        return decompose(cards, trump_order, lead=True)
    except PlayError as exc:
        raise RefereeError(f"the {what} is not a valid lead: {exc}") from None


# -- the questions ---------------------------------------------------------------------------------------


def _classify(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    trump_order = _order(req, rules)
    cards = _cards(req, "cards")
    check_copies(cards)
    try:
        fmt = decompose(cards, trump_order, lead=True)
    except PlayError:
        return {"kind": "invalid", "suit": None, "units": []}
    return {
        "kind": fmt.kind,
        "suit": fmt.suit,
        "units": [{"kind": u.kind.value, "cards": format_cards(u.cards)} for u in fmt.units],
    }


def _follow(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    trump_order = _order(req, rules)
    lead, hand, play = _cards(req, "lead"), _cards(req, "hand"), _cards(req, "play")
    check_copies(lead, hand)
    if len(play) != len(lead):
        raise RefereeError(f"the play has {len(play)} cards but the lead has {len(lead)}")
    rest = list(hand)
    for c in play:
        if c not in rest:
            raise RefereeError(f"the play holds {c}, which is not in the hand")
        rest.remove(c)
    rule = FollowRule(_lead_format(lead, trump_order), hand, trump_order)
    reason = rule.check(play)
    return {"legal": True} if reason is None else {"legal": False, "reason": str(reason)}


def _trick(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    trump_order = _order(req, rules)
    plays = _card_texts(req, "plays", 4, "the four plays, the lead first")
    for i, p in enumerate(plays):
        if not p:
            raise RefereeError(f"plays[{i}] holds no cards: every play must hold at least one card")
    check_copies(*plays)
    fmt = _lead_format(plays[0], trump_order)
    for i, p in enumerate(plays[1:], 1):
        if len(p) != len(plays[0]):
            raise RefereeError(f"play {i} has {len(p)} cards but the lead has {len(plays[0])}")
    res = resolve_trick(plays, trump_order, fmt)
    return {"winner": res.winner, "points": res.points}


def _throw(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    trump_order = _order(req, rules)
    lead = _cards(req, "lead")
    others = _card_texts(req, "others", 3, "the other three hands")
    check_copies(lead, *others)
    _lead_format(lead, trump_order)
    res = check_throw(lead, others, trump_order)
    if res.ok:
        return {"ok": True}
    return {
        "ok": False,
        "forced": format_cards(res.forced),
        "penalty_cards": res.penalty_cards,
        "penalty": res.penalty_cards * rules.throw_penalty_per_card,
    }


def _kitty(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    trump_order = _order(req, rules)
    lead, kitty = _cards(req, "lead"), _cards(req, "kitty")
    if len(kitty) != 8:
        raise RefereeError(f"the kitty holds 8 cards, not {len(kitty)}")
    check_copies(lead, kitty)
    fmt = _lead_format(lead, trump_order)
    m = kitty_multiplier(fmt, rules.kitty_multiplier)
    return {"multiplier": m, "points": points_of(kitty) * m}


def _bid(raw: object, i: int, level: Rank) -> Bid:
    where = f"bids[{i}]"
    if not isinstance(raw, Mapping):
        raise RefereeError(f"{where} must be an object with player and cards, not {_show(raw)}")
    for key in ("player", "cards"):
        if key not in raw:
            raise RefereeError(f"{where} must be an object with player and cards; it has no {key}")
    player = _whole(raw["player"], f"{where}.player", 0, 3)
    cards = _card_text(raw["cards"], f"{where}.cards", allow_empty=True)  # no cards: an invalid bid
    choose_raw = raw.get("choose")
    choose = None
    if choose_raw is not None:
        try:
            choose = parse_choice(choose_raw if isinstance(choose_raw, str) else None)
        except BidRequestError:
            raise RefereeError(f"{where}.choose must be s, h, c, d or nt, not {_show(choose_raw)}") from None
    bid = Bid(player, tuple(cards), choose)
    try:
        classify_bid(bid.cards, level, bid.choose)
    except IllegalBidError:
        pass  # cards that make no bid: the answer says the bid is not valid
    except BidRequestError as exc:
        raise RefereeError(f"{where}: {exc}") from None
    return bid


def _bids(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    level = _level(_field(req, "level"))
    raw = _field(req, "bids")
    if not isinstance(raw, list):
        raise RefereeError(f"bids must be a list of {{player, cards, choose?}} objects, not {_show(raw)}")
    outcome = evaluate_bids(rules, level, [_bid(b, i, level) for i, b in enumerate(raw)])
    standing = outcome.standing
    return {
        "valid": list(outcome.valid),
        "trump": None if standing is None else trump_text(standing.trump),
        "bidder": None if standing is None else standing.player,
    }


def _progress(req: Request, name: str) -> Progress:
    raw = _field(req, name)
    if not isinstance(raw, Mapping):
        raise RefereeError(f'{name} must be an object like {{"level": "9", "circle": 1}}, not {_show(raw)}')
    if "level" not in raw:
        raise RefereeError(f"{name} needs its level: {name}.level is missing")
    level = raw["level"]
    if not isinstance(level, str):
        raise RefereeError(f"{name}.level must be a text: 2..9, T (or 10), J, Q, K, A or flag, not {_show(level)}")
    circle = raw.get("circle")
    circle = 1 if circle is None else _whole(circle, f"{name}.circle", 1, INT_OPTION_RANGES["circles"][1])
    try:
        return Progress.parse(level, circle)
    except SettlementError as exc:
        raise RefereeError(f"{name}.level: {exc}") from None


def _side(value: object, name: str, *, optional: bool = False) -> Side:
    try:
        return Side.parse(value if isinstance(value, str) else None)
    except SettlementError:
        choices = "'dealer', 'scoring' or null" if optional else "'dealer' or 'scoring'"
        raise RefereeError(f"{name} must be {choices}, not {_show(value)}") from None


def _last_trick(raw: object) -> LastTrick | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise RefereeError(
            f'last_trick must be an object like {{"winner": "scoring", "lead": "...", "winning_play": "..."}}, '
            f"not {_show(raw)}"
        )
    missing = [k for k in ("winner", "winning_play") if k not in raw]
    if missing:
        raise RefereeError(f"last_trick needs {', '.join(missing)}")
    winner = _side(raw["winner"], "last_trick.winner")
    play = _card_text(raw["winning_play"], "last_trick.winning_play")
    # A lead left out is taken to be the winning play itself (the leader won).
    lead_raw = raw.get("lead")
    lead = play if lead_raw is None or lead_raw == "" else _card_text(lead_raw, "last_trick.lead")
    return LastTrick(winner, tuple(lead), tuple(play))


def _settle(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    points = _whole(_field(req, "points"), "points", -MAX_POINTS, MAX_POINTS)
    dealer = _progress(req, "dealer")
    scoring = _progress(req, "scoring")
    raw_failures = req.get("flag_failures")
    failures = 0 if raw_failures is None else _whole(raw_failures, "flag_failures", 0, MAX_FLAG_FAILURES)
    trump_order: TrumpOrder | None = None
    if req.get("trump") is not None:
        flag, trump = _trump(req["trump"])
        if flag or dealer.level is None:
            trump_order = TrumpOrder.of(rules, None, None)
        else:
            level = dealer.level if req.get("level") is None else _level(req["level"])
            trump_order = TrumpOrder.of(rules, level, trump)
    last = _last_trick(req.get("last_trick"))
    raw_red5 = req.get("double_red5")
    red5 = None if raw_red5 is None else _side(raw_red5, "double_red5", optional=True)
    res = settle(
        rules, points, dealer, scoring, flag_failures=failures, last_trick=last, double_red5=red5, trump=trump_order
    )
    return res.to_json()


OPS: dict[str, Callable[[Request], dict[str, Any]]] = {
    "classify": _classify,
    "follow": _follow,
    "trick": _trick,
    "throw": _throw,
    "kitty": _kitty,
    "bids": _bids,
    "settle": _settle,
}


def _op(req: Request) -> Callable[[Request], dict[str, Any]]:
    ops = ", ".join(OPS)
    if "op" not in req:
        raise RefereeError(f"unknown op: the request has no op; the ops are {ops}")
    op = req["op"]
    if not isinstance(op, str):
        raise RefereeError(f"unknown op: op must be a text, not {_show(op)}; the ops are {ops}")
    if op not in OPS:
        raise RefereeError(f"unknown op {_show(op)}; the ops are {ops}")
    return OPS[op]


def _internal_error(exc: BaseException) -> str:
    return f"{INTERNAL_ERROR}: {type(exc).__name__}: {ascii(str(exc))[:200]} (a bug in chaodipi, not in the request)"


def answer(request: object) -> dict[str, Any]:
    """Answer one referee request (a dict as in docs/referee.md); bad input gives ``{"error": ...}`` in words.

    The request's ``id`` is copied into the answer, unless the id itself cannot be written as JSON.
    """
    has_id = isinstance(request, Mapping) and "id" in request and _unwritable(request["id"], ("id",)) is None
    try:
        if not isinstance(request, Mapping):
            raise RefereeError(f"a request must be a JSON object, not {_show(request)}")
        problem = _unwritable(request)
        if problem is not None:
            raise RefereeError(problem)
        out = _op(request)(request)
    except _INPUT_ERRORS as exc:
        out = {"error": str(exc) or type(exc).__name__}
    except Exception as exc:  # a bug: every kind of bad input is refused above, in words
        out = {"error": _internal_error(exc)}
    if has_id:
        assert isinstance(request, Mapping)
        out["id"] = request["id"]
    return out


# -- JSON Lines --------------------------------------------------------------------------------------------


def answer_line(line: str) -> str:
    """Answer one line of JSON Lines with one line of JSON (without its line end); never raises.

    A blank line gets an error here too (:func:`run_lines` skips blank lines instead).

    >>> answer_line('{"op": "classify", "rules": "standard", "level": "2", "trump": "s", "cards": "Ah Ah"}')
    '{"kind": "pair", "suit": "h", "units": [{"kind": "pair", "cards": "Ah Ah"}]}'
    >>> answer_line("[" * 1000)
    '{"error": "the line nests arrays and objects 1000 deep; a request nests them at most 32 deep"}'
    """
    try:
        try:
            reply = answer(parse_line(line))
        except LineError as exc:
            reply = {"error": str(exc)}
        text = json.dumps(reply, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")  # an answer is UTF-8 text: no lone surrogate may get through
        return text
    except Exception as exc:  # a bug: bad input is answered above, in words
        return json.dumps({"error": _internal_error(exc)})


def read_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The lines of a binary stream without their ``\\n``, each yielded as soon as it has been read.

    A line longer than :data:`MAX_LINE_BYTES` (its line end not counted) is cut to its first
    ``MAX_LINE_BYTES + 2`` bytes and the rest of it is read and dropped in pieces, so memory stays
    bounded whatever comes; :func:`run_lines` then answers it as too long.
    """
    limit = MAX_LINE_BYTES + 2  # room for the line end "\r\n"
    while True:
        chunk = stream.readline(limit)
        if not chunk:
            return
        if chunk.endswith(b"\n"):
            yield chunk[:-1]
            continue
        yield chunk
        rest = chunk
        while rest and not rest.endswith(b"\n"):
            rest = stream.readline(limit)


def _answer_raw(line: str | bytes) -> tuple[str | None, bool]:
    """The answer to one line as read (bytes are UTF-8), and whether the line was JSON at all.

    A blank line gets no answer (None).
    """
    if isinstance(line, bytes):
        line = line.removesuffix(b"\n").removesuffix(b"\r")
        if len(line) > MAX_LINE_BYTES:
            return json.dumps({"error": str(_too_long())}), False
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            error = f"the line is not UTF-8 text (byte {exc.start + 1} cannot be read): JSON Lines are UTF-8"
            return json.dumps({"error": error}), False
    line = line.removesuffix("\n").removesuffix("\r")
    if not line.strip():
        return None, False
    try:
        parse_line(line)
        is_json = True
    except LineError:
        is_json = False
    return answer_line(line), is_json


def run_lines(lines: Iterable[str | bytes], out: IO[str]) -> int:
    """Answer JSON Lines: one answer line per non-blank line, written and flushed before the next line is read.

    ``lines`` are texts, or UTF-8 bytes as :func:`read_lines` gives them (a line that is not UTF-8
    is answered with an error, like any other bad line). Blank lines get no answer. Returns the exit
    status: 0, or 2 when the input is not JSON Lines at all (no line of it was JSON), as docs/referee.md
    says; every line is answered either way.
    """
    answered = any_json = False
    for line in lines:
        reply, is_json = _answer_raw(line)
        if reply is not None:
            out.write(reply + "\n")
            out.flush()
            answered = True
            any_json = any_json or is_json
    return 2 if answered and not any_json else 0
