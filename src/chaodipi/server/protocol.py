"""The WebSocket protocol's messages: what a client may send, checked for shape, and what the server sends.

docs/protocol.md is the reference a client author reads; this module is its one
implementation on the server side. A client message is one JSON object with a ``type``:

``hello``   the first message on a connection: the seat's resume token, and where the client
            stands (``seq``, ``hand``, ``events``) when it reconnects;
``act``     an action (``{"a": "play", "cards": "Ah Ah"}`` …) answering sequence number ``seq``;
``auto``    托管 on or off;  ``leave``: leave the table (逃跑 during a game);
``again``   start the next game once one is over;  ``ping``: a keep-alive.

Anything else, or a message of the wrong shape, is refused with a :class:`ProtocolError`
that says in words what is wrong; the connection stays open and nothing changes.

>>> parse_client('{"type": "act", "seq": 4, "action": {"a": "pass"}}', seat=2)
Act(seq=4, action=Action(kind=<ActionKind.PASS: 'pass'>, player=2, cards=(), choose=None, at=None), ref=None)
>>> parse_client('{"type": "act", "seq": 4, "action": {"a": "pass", "p": 1}}', seat=2)
Traceback (most recent call last):
...
chaodipi.server.protocol.ProtocolError: you sit in seat 2, not seat 1
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chaodipi.log import Action, ActionError, ActionKind

__all__ = [
    "MAX_MESSAGE_BYTES",
    "Act",
    "Again",
    "Auto",
    "ClientMessage",
    "Hello",
    "Leave",
    "Ping",
    "ProtocolError",
    "Ready",
    "dumps",
    "loads",
    "parse_client",
    "parse_hello",
]

#: The largest client message the server reads (bytes of UTF-8 text); a longer one closes the connection.
MAX_MESSAGE_BYTES = 4096
#: The largest client reference (``id``) echoed back in replies.
MAX_REF = 64
#: Sequence numbers, hand numbers and event counts are whole numbers below this.
MAX_NUMBER = 2**31


class ProtocolError(ValueError):
    """A client message the server cannot take: not JSON, not an object, a wrong field; ``code`` names the kind."""

    def __init__(self, message: str, code: str = "malformed", ref: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.ref = ref  # the message's ``id``, when it had a readable one


@dataclass(frozen=True, slots=True)
class Hello:
    """Who the client is (its resume token) and, when it reconnects, the last state it saw."""

    token: str
    seq: int | None = None
    hand: int | None = None
    events: int | None = None


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


ClientMessage = Act | Auto | Leave | Again | Ready | Ping


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
    return obj


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
    return text if len(text) <= 40 else text[:37] + "..."


def _only(obj: dict[str, Any], keys: set[str]) -> None:
    unknown = set(obj) - keys - {"type", "id"}
    if unknown:
        raise ProtocolError(f"unknown field(s) {', '.join(sorted(map(str, unknown)))}")


def parse_hello(text: str | bytes) -> Hello:
    """The first message of a connection: ``{"type": "hello", "token": ..., "seq"?, "hand"?, "events"?}``."""
    obj = loads(text)
    if obj.get("type") != "hello":
        raise ProtocolError("the first message is a hello with the seat's token", "hello_required")
    _only(obj, {"token", "seq", "hand", "events"})
    token = obj.get("token")
    if not isinstance(token, str) or not 1 <= len(token) <= 128:
        raise ProtocolError("'token' must be the resume token the server gave when you took the seat")
    return Hello(
        token,
        _number(obj, "seq", required=False),
        _number(obj, "hand", required=False),
        _number(obj, "events", required=False),
    )


def parse_client(text: str | bytes, *, seat: int) -> ClientMessage:
    """A message from the client in ``seat``, checked for shape (legality is the engine's to check).

    The :class:`ProtocolError` carries the message's ``id`` when it had a readable one.
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
    if kind == "hello":
        raise ProtocolError("this connection has already said hello")
    raise ProtocolError(
        f"unknown message type {_show(kind)}; the types are act, auto, leave, again, ready, ping", "unknown_type"
    )


def dumps(message: dict[str, Any]) -> str:
    """A server message as compact JSON text."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
