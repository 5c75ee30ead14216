"""What the server sends: one frozen class per kind of message, each with its wire form (docs/protocol.md).

A table builds every message it sends from these classes, and what a seat is shown of the hand
comes from :meth:`Hand.view <chaodipi.hand.Hand.view>` alone (the table fills :class:`TableState`
from it). ``text()`` is the JSON that goes on the wire.

>>> ErrorReply(12, "stale", "the table is at sequence number 12, not 11", "a1").text()
'{"type":"error","seq":12,"code":"stale","message":"the table is at sequence number 12, not 11","id":"a1"}'
>>> Pong(3).to_json()
{'type': 'pong', 'seq': 3}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chaodipi.phrases import Phrase
from chaodipi.server.protocol import dumps
from chaodipi.view import TEAMS

__all__ = ["ChatLine", "ErrorReply", "Left", "Pong", "Seats", "ServerMessage", "TableState", "Update", "Welcome"]


class _Sent:
    """A message the server sends: ``to_json()`` its fields, ``text()`` the JSON that goes on the wire."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        """The message as a JSON object."""
        raise NotImplementedError

    def text(self) -> str:
        """The wire form: compact JSON."""
        return dumps(self.to_json())


@dataclass(frozen=True, slots=True)
class TableState:
    """Where the table stands, as one seat sees it: the part ``welcome`` and ``update`` share.

    ``view`` is the seat's :meth:`View.to_json <chaodipi.view.View.to_json>` without its events and
    rules (None between games); ``events`` those of the seat's events from number ``events_from`` on.
    """

    seq: int
    hand: int
    game: dict[str, Any] | None
    deadline: dict[str, Any] | None
    view: dict[str, Any] | None
    events_from: int
    events: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        """The shared fields."""
        return {
            "seq": self.seq,
            "hand": self.hand,
            "game": self.game,
            "deadline": self.deadline,
            "view": self.view,
            "events_from": self.events_from,
            "events": self.events,
        }


@dataclass(frozen=True, slots=True)
class Welcome(_Sent):
    """The answer to a ``hello``: the table, the seat, the rules, the seats and their teams, the table's state.

    ``teams`` (the engine's :data:`~chaodipi.view.TEAMS`) lets a client colour the seats before any hand's view;
    ``pace`` is the server's pacing in milliseconds (``deal_ms``, ``bot_delay_ms``, ``trick_pause_ms``), when given.
    A spectator's welcome has ``seat`` None and ``watching`` (with ``watch_delay``, the whole tricks it is
    kept behind); ``chat`` is the table's latest chat lines, oldest first.
    """

    table: int
    name: str
    seat: int | None
    rules: object
    status: str
    resumed: bool
    seats: list[dict[str, Any] | None]
    state: TableState
    teams: tuple[int, ...] = TEAMS
    pace: dict[str, int] | None = None
    chat: tuple[dict[str, Any], ...] = ()
    watch_delay: int | None = None  # set for a spectator
    room: str = "house"

    def to_json(self) -> dict[str, Any]:
        """``{"type": "welcome", "table", "name", "seat", "seq", "rules", "status", "resumed", "seats", …}``."""
        out: dict[str, Any] = {
            "type": "welcome",
            "table": self.table,
            "name": self.name,
            "seat": self.seat,
            "seq": self.state.seq,
            "rules": self.rules,
            "status": self.status,
            "resumed": self.resumed,
            "seats": self.seats,
            "teams": list(self.teams),
            "room": self.room,
            "chat": list(self.chat),
        }
        if self.watch_delay is not None:
            out["watching"] = True
            out["watch_delay"] = self.watch_delay
        if self.pace is not None:
            out["pace"] = dict(self.pace)
        out.update(self.state.to_json())
        return out


@dataclass(frozen=True, slots=True)
class Update(_Sent):
    """The table changed: its state as the seat sees it, with the events the connection has not had."""

    state: TableState

    def to_json(self) -> dict[str, Any]:
        """``{"type": "update", "seq", "hand", "game", "deadline", "view", "events_from", "events"}``."""
        return {"type": "update", **self.state.to_json()}


@dataclass(frozen=True, slots=True)
class Seats(_Sent):
    """Who sits where changed (a seat taken, a connection, 托管 on or off)."""

    seq: int
    seats: list[dict[str, Any] | None]
    teams: tuple[int, ...] = TEAMS

    def to_json(self) -> dict[str, Any]:
        """``{"type": "seats", "seq", "seats", "teams"}``: ``teams``, each seat's team (partners sit opposite)."""
        return {"type": "seats", "seq": self.seq, "seats": self.seats, "teams": list(self.teams)}


@dataclass(frozen=True, slots=True)
class Left(_Sent):
    """The seat was left (``escaped``: during a game, 逃跑); the connection is closed after it."""

    seq: int
    seat: int
    escaped: bool

    def to_json(self) -> dict[str, Any]:
        """``{"type": "left", "seq", "seat", "escaped"}``."""
        return {"type": "left", "seq": self.seq, "seat": self.seat, "escaped": self.escaped}


@dataclass(frozen=True, slots=True)
class Pong(_Sent):
    """The answer to a ``ping``."""

    seq: int
    ref: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"type": "pong", "seq"}``, with the ping's ``id``."""
        out: dict[str, Any] = {"type": "pong", "seq": self.seq}
        if self.ref is not None:
            out["id"] = self.ref
        return out


@dataclass(frozen=True, slots=True)
class ErrorReply(_Sent):
    """A refused message: the table's sequence number, a code and the reason in words, the message's ``id``,
    and for an action the rules refuse, the ``reason`` as data (a :class:`~chaodipi.phrases.Phrase`)."""

    seq: int
    code: str
    message: str
    ref: str | None = None
    reason: Phrase | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"type": "error", "seq", "code", "message"}``, with ``id`` when the message had one and
        ``reason`` (``{"code": "follow.suit", "suit": "h", …}``) when the engine gave one."""
        out: dict[str, Any] = {"type": "error", "seq": self.seq, "code": self.code, "message": self.message}
        if self.ref is not None:
            out["id"] = self.ref
        if self.reason is not None:
            out["reason"] = self.reason.to_json()
        return out


@dataclass(frozen=True, slots=True)
class ChatLine(_Sent):
    """A chat line said at the table, to every seat and spectator (``line``: its stored form, text as text)."""

    seq: int
    line: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """``{"type": "chat", "seq", "line": {"id", "seat", "name", "account", "text", "phrase", "at"}}``."""
        return {"type": "chat", "seq": self.seq, "line": dict(self.line)}


#: Every kind of message the server sends.
ServerMessage = Welcome | Update | Seats | Left | Pong | ErrorReply | ChatLine
