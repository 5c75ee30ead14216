"""The WebSocket protocol's messages: what a client may send, checked for shape, and what the server sends.

docs/protocol.md is the reference a client author reads; this module is its one
implementation on the server side. A client message is one JSON object with a ``type``:

``hello``   the first message on a connection: the seat's resume token, and where the client
            stands (``seq``, ``hand``, ``events``) when it reconnects;
``act``     an action (``{"a": "play", "cards": "Ah Ah"}`` …) answering sequence number ``seq``;
``auto``    托管 on or off;  ``leave``: leave the table (逃跑 during a game);
``again``   start the next game once one is over;  ``ping``: a keep-alive;
``chat``    a line to the table: ``text`` (1 to 200 characters) or a quick ``phrase`` (:data:`CHAT_PHRASES`).

A spectator's hello is ``{"type": "hello", "watch": true}``; a logged-in player's may leave out
the token (the seat their account holds is theirs).

Anything else, or a message of the wrong shape, is refused with a :class:`ProtocolError`
that says in words what is wrong; the connection stays open and nothing changes. Text that is
not valid Unicode (a lone surrogate such as ``"\\ud800"``, which JSON can spell but UTF-8 cannot
carry back) is refused too, wherever it is in the message, so nothing the server echoes can fail
to be sent.

Seeds travel as :func:`~chaodipi.record.seed_to_json` writes them (a number below 2**53 in size,
else its decimal digits as text); :func:`lobby_seed` reads the seed of ``POST /api/tables``.

>>> act = parse_client('{"type": "act", "seq": 4, "action": {"a": "pass"}}', seat=2)
>>> act.seq, act.action, act.ref
(4, Action(kind=<ActionKind.PASS: 'pass'>, player=2, cards=(), choose=None, at=None, penalty=None), None)
>>> parse_client('{"type": "act", "seq": 4, "action": {"a": "pass", "p": 1}}', seat=2)
Traceback (most recent call last):
...
chaodipi.server.protocol.ProtocolError: you sit in seat 2, not seat 1
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request

from chaodipi.log import Action, ActionError, ActionKind
from chaodipi.record import JSON_SAFE_INT, JSONTextError, parse_json
from chaodipi.view import SPECTATOR

__all__ = [
    "CHAT_PHRASES",
    "MAX_CHAT",
    "MAX_MESSAGE_BYTES",
    "SEED_MAX",
    "SEED_MIN",
    "WATCHING",
    "Act",
    "Again",
    "Auto",
    "Chat",
    "ClientMessage",
    "Hello",
    "Leave",
    "Ping",
    "ProtocolError",
    "Ready",
    "dumps",
    "loads",
    "lobby_seed",
    "not_unicode",
    "parse_client",
    "parse_hello",
    "read_object",
]

#: The largest client message the server reads (bytes of UTF-8 text); a longer one closes the connection.
MAX_MESSAGE_BYTES = 4096
#: The largest client reference (``id``) echoed back in replies.
MAX_REF = 64
#: Sequence numbers, hand numbers and event counts are whole numbers below this.
MAX_NUMBER = 2**31
#: A table's seed fits 64 bits, signed (the store's BIGINT column).
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1

#: The client messages only a seat may send, and what a spectator who sends one is told (``watching``).
_SEATED = frozenset({"act", "auto", "leave", "again", "ready"})
WATCHING = "a spectator cannot act at the table: only chat and ping"
_SURROGATE = re.compile("[\ud800-\udfff]")
_SEED_TEXT = re.compile(r"-?[0-9]{1,19}")


class ProtocolError(ValueError):
    """A client message the server cannot take: not JSON, not an object, a wrong field; ``code`` names the kind."""

    def __init__(self, message: str, code: str = "malformed", ref: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.ref = ref  # the message's ``id``, when it had a readable one


@dataclass(frozen=True, slots=True)
class Hello:
    """Who the client is (its resume token; None: a spectator, or the seat of the logged-in account)
    and, when it reconnects, the last state it saw."""

    token: str | None
    seq: int | None = None
    hand: int | None = None
    events: int | None = None
    watch: bool = False


#: The longest chat line (characters).
MAX_CHAT = 200
#: The quick phrases a chat line may be instead of text (the page words them in the reader's language).
CHAT_PHRASES = ("hello", "good_luck", "nice", "thanks", "sorry", "hurry", "oops", "gg")


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat line: text, or a quick phrase's code."""

    text: str
    phrase: str | None = None
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Act:
    """An action for the client's seat, answering the table at sequence number ``seq``."""

    seq: int
    action: Action
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Auto:
    """托管 on (a bot plays for the seat) or off."""

    on: bool
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave the table: before a game a free seat; during one 逃跑 (RULES §13), and a bot takes the seat."""

    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Again:
    """Start the table's next game (all four seats taken, the last game over)."""

    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Ready:
    """Between two hands of a game: this player has seen the settlement; deal the next hand once all have."""

    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Ping:
    """A keep-alive; the server answers ``pong``."""

    ref: str | None = None


ClientMessage = Act | Auto | Leave | Again | Ready | Ping | Chat


def _refuse_constant(name: str) -> Any:
    raise ProtocolError(f"{name} is not JSON")


def loads(text: str | bytes) -> dict[str, Any]:
    """One client message: strict JSON (no NaN or Infinity), an object, at most :data:`MAX_MESSAGE_BYTES`."""
    size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"a message is at most {MAX_MESSAGE_BYTES} bytes, not {size}", "too_large")
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except ProtocolError:
        raise
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a message is a JSON object with a type, not {type(obj).__name__}")
    bad = not_unicode(obj)
    if bad is not None:
        raise ProtocolError(bad)
    return obj


def not_unicode(obj: object, what: str = "the message") -> str | None:
    """What in a parsed JSON value is not valid Unicode text (a lone surrogate), in words; None if nothing.

    Such text cannot be written as UTF-8, so a reply that echoed it could not be sent.

    >>> not_unicode({"type": "ping", "id": "\\ud800"})
    "'id' is not valid Unicode text: it holds a lone surrogate (\\\\ud800)"
    """
    stack: list[tuple[object, str]] = [(obj, what)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return f"{where} is not valid Unicode text: it holds a lone surrogate ({ascii(found.group())[1:-1]})"
        elif isinstance(item, dict):
            for key, value in item.items():
                name = ascii(key)[1:-1] if _SURROGATE.search(key) else key
                stack.append((key, f"a key of {where}"))
                stack.append((value, f"'{name}'"))
        elif isinstance(item, list):
            stack.extend((value, f"{where}[{n}]") for n, value in enumerate(item))
    return None


def _number(obj: dict[str, Any], key: str, *, required: bool) -> int | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise ProtocolError(f"{key!r} is required: a whole number")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_NUMBER:
        raise ProtocolError(f"{key!r} must be a whole number 0..{MAX_NUMBER - 1}, not {_show(value)}")
    return value


def _ref(obj: dict[str, Any]) -> str | None:
    ref = obj.get("id")
    if ref is None:
        return None
    if not isinstance(ref, str) or len(ref) > MAX_REF:
        raise ProtocolError(f"'id' must be text of at most {MAX_REF} characters")
    return ref


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) or value == value else "NaN"
    if _SURROGATE.search(text):
        text = json.dumps(value)  # escaped: a reply holding a lone surrogate could not be sent
    return text if len(text) <= 40 else text[:37] + "..."


def _only(obj: dict[str, Any], keys: set[str]) -> None:
    unknown = set(obj) - keys - {"type", "id"}
    if unknown:
        raise ProtocolError(f"unknown field(s) {', '.join(sorted(map(str, unknown)))}")


def parse_hello(text: str | bytes) -> Hello:
    """The first message of a connection: ``{"type": "hello", "token"?: ..., "watch"?: true, "seq"?, "hand"?,
    "events"?}``: a seat's resume token, or ``watch`` to look on, or neither for a logged-in account's seat."""
    obj = loads(text)
    if obj.get("type") != "hello":
        raise ProtocolError("the first message is a hello with the seat's token", "hello_required")
    _only(obj, {"token", "seq", "hand", "events", "watch"})
    watch = obj.get("watch", False)
    if not isinstance(watch, bool):
        raise ProtocolError("'watch' must be true or false")
    token = obj.get("token")
    if token is not None and (not isinstance(token, str) or not 1 <= len(token) <= 128):
        raise ProtocolError("'token' must be the resume token the server gave when you took the seat")
    if watch and token is not None:
        raise ProtocolError("a hello either watches or names a seat's token, not both")
    return Hello(
        token,
        _number(obj, "seq", required=False),
        _number(obj, "hand", required=False),
        _number(obj, "events", required=False),
        watch,
    )


def parse_client(text: str | bytes, *, seat: int) -> ClientMessage:
    """A message from the client in ``seat``, checked for shape (legality is the engine's to check).

    A spectator (``seat`` :data:`~chaodipi.view.SPECTATOR`) may only ``chat`` and ``ping``: any other message
    of the protocol is refused ``watching``, before its fields are read (a spectator has no seat to act for).
    The :class:`ProtocolError` carries the message's ``id`` when it had a readable one.

    >>> parse_client('{"type": "act", "seq": 4, "action": {"a": "pass"}}', seat=SPECTATOR)
    Traceback (most recent call last):
    ...
    chaodipi.server.protocol.ProtocolError: a spectator cannot act at the table: only chat and ping
    """
    obj = loads(text)
    raw_ref = obj.get("id")
    try:
        return _parse_object(obj, seat)
    except ProtocolError as exc:
        if exc.ref is None and isinstance(raw_ref, str) and len(raw_ref) <= MAX_REF:
            exc.ref = raw_ref
        raise


def _parse_object(obj: dict[str, Any], seat: int) -> ClientMessage:
    kind = obj.get("type")
    ref = _ref(obj)
    if seat == SPECTATOR and kind in _SEATED:
        raise ProtocolError(WATCHING, "watching")
    if kind == "act":
        _only(obj, {"seq", "action"})
        seq = _number(obj, "seq", required=True)
        assert seq is not None
        raw = obj.get("action")
        if not isinstance(raw, dict):
            raise ProtocolError('\'action\' must be an object such as {"a": "play", "cards": "Ah Ah"}')
        player = raw.get("p", seat)
        if player != seat or isinstance(player, bool):
            raise ProtocolError(f"you sit in seat {seat}, not seat {_show(player)}", "not_your_seat")
        if raw.get("a") == ActionKind.CLOSE.value:
            raise ProtocolError("the countdown is closed by the table's clock, not by a player", "illegal")
        if raw.get("a") == ActionKind.PENALTY.value:
            raise ProtocolError(
                "a penalty is the referee's (RULES §14.4), given through the event, not a player's", "illegal"
            )
        if "at" in raw:
            raise ProtocolError("'at' is the server's to set: a bid is made when it arrives")
        try:
            action = Action.from_json({**raw, "p": seat})
        except ActionError as exc:
            raise ProtocolError(str(exc)) from None
        return Act(seq, action, ref)
    if kind == "auto":
        _only(obj, {"on"})
        on = obj.get("on")
        if not isinstance(on, bool):
            raise ProtocolError("'on' must be true or false")
        return Auto(on, ref)
    if kind == "leave":
        _only(obj, set())
        return Leave(ref)
    if kind == "again":
        _only(obj, set())
        return Again(ref)
    if kind == "ready":
        _only(obj, set())
        return Ready(ref)
    if kind == "ping":
        _only(obj, set())
        return Ping(ref)
    if kind == "chat":
        _only(obj, {"text", "phrase"})
        phrase = obj.get("phrase")
        if phrase is not None:
            if "text" in obj or phrase not in CHAT_PHRASES:
                raise ProtocolError(f"'phrase' is one of {', '.join(CHAT_PHRASES)} (and then no text)", "chat_phrase")
            return Chat("", phrase, ref)
        line = obj.get("text")
        if not isinstance(line, str) or not line.strip():
            raise ProtocolError("'text' is the line to say (1 to 200 characters)", "chat_length")
        line = " ".join(line.split())  # one line: no newlines or runs of spaces
        if len(line) > MAX_CHAT:
            raise ProtocolError(f"a chat line is at most {MAX_CHAT} characters, not {len(line)}", "chat_length")
        if not all(c.isprintable() for c in line):
            raise ProtocolError("a chat line is printable text", "chat_length")
        return Chat(line, None, ref)
    if kind == "hello":
        raise ProtocolError("this connection has already said hello")
    raise ProtocolError(
        f"unknown message type {_show(kind)}; the types are act, auto, leave, again, ready, ping, chat",
        "unknown_type",
    )


def lobby_seed(value: object) -> int:
    """The ``seed`` of ``POST /api/tables``: a JSON integer below 2**53 in size, or the decimal digits
    of any 64-bit seed as text (``"2479999172460754900"``); a :class:`ProtocolError` in words otherwise.

    A larger JSON integer is refused: a JavaScript client would already have rounded it.

    >>> lobby_seed(7), lobby_seed("2479999172460754900"), lobby_seed("-12")
    (7, 2479999172460754900, -12)
    >>> lobby_seed(2479999172460754900)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chaodipi.server.protocol.ProtocolError: 'seed' 2479999172460754900 is too large to travel as a JSON number...
    """
    if isinstance(value, int) and not isinstance(value, bool):
        if not -JSON_SAFE_INT < value < JSON_SAFE_INT:
            raise ProtocolError(
                f"'seed' {value} is too large to travel as a JSON number (it may have been rounded on the way): "
                f'send it as text, "{value}"'
            )
        return value
    if isinstance(value, str) and _SEED_TEXT.fullmatch(value):
        seed = int(value)
        if SEED_MIN <= seed <= SEED_MAX:
            return seed
        raise ProtocolError(f"'seed' must fit 64 bits ({SEED_MIN}..{SEED_MAX}), not {value}")
    raise ProtocolError(
        "'seed' is a whole number that fits 64 bits: a JSON integer below 2**53 in size, or its decimal digits "
        f'as text ("2479999172460754900"), not {_show(value)}'
    )


def dumps(message: dict[str, Any]) -> str:
    """A server message as compact JSON text, UTF-8 kept (as ``json.dumps`` writes it with ``ensure_ascii=False``
    and ``separators=(",", ":")``), written by orjson in a tenth of the time (issue 22).

    What orjson refuses (a whole number beyond 64 bits, text with a lone surrogate) is written by ``json``
    as before; a float that is not a number is written ``null`` (the server sends none).

    >>> dumps({"type": "chat", "seq": 3, "line": {"name": "安", "text": "好牌", "at": [1, 2.5]}})
    '{"type":"chat","seq":3,"line":{"name":"安","text":"好牌","at":[1,2.5]}}'
    """
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # (orjson.JSONEncodeError is one)
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class BodyError(ValueError):
    """An HTTP request body that cannot be read as a JSON object (too large, cut short, not JSON): its words
    and its HTTP status (413 or 400). The application's exception handlers answer it."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def read_object(request: Request, limit: int, what: str) -> dict[str, Any]:
    """The JSON object a request's body holds, at most ``limit`` bytes (an empty body reads as ``{}``):
    UTF-8 (a byte-order mark skipped), no NaN, no repeated key, every text valid Unicode; :class:`BodyError`."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise BodyError(f"a request body is at most {limit} bytes", 413)
    raw = b""
    try:
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > limit:
                raise BodyError(f"a request body is at most {limit} bytes", 413)
    except ClientDisconnect:  # the client went (or ran out of time, serve.py) before its body was all in
        raise BodyError("the request body did not all arrive") from None
    if not raw:
        return {}
    try:
        body = parse_json(raw, what=what)
    except JSONTextError as exc:
        raise BodyError(f"the body is {exc}") from None
    if not isinstance(body, dict):
        raise BodyError("the body is a JSON object")
    bad = not_unicode(body, "the body")
    if bad is not None:  # a reply that echoed it could not be sent
        raise BodyError(bad)
    return body
