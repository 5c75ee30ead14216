"""A seat at a table as the server keeps it: who sits there, the bot that plays for it, 托管, its connections.

:meth:`SeatState.to_json` is the one JSON shape of a seat, in the lobby's list and at the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from chaodipi.server.store import SeatKind, StoredSeat

__all__ = ["Peer", "SeatState"]


class Peer(Protocol):
    """A client connection as a table sees it: which seat (:data:`~chaodipi.view.SPECTATOR` for a spectator),
    what it has been sent, who is logged in on it, and a way to send."""

    seat: int
    account: tuple[int, str] | None  # the logged-in account (id, username), None for a guest
    hand_sent: int  # the hand whose events it holds
    events_sent: int  # how many of that hand's events (as its seat sees them) it holds

    def send(self, text: str) -> None:
        """Queue a message (a client that cannot keep up is dropped)."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Close the connection after what is queued."""
        ...


@dataclass(slots=True)
class SeatState:
    """A taken seat: who sits there, the bot that plays for it, 托管, and its connections."""

    kind: SeatKind
    name: str
    bot: str
    token_hash: str | None
    auto: bool = False
    peers: list[Peer] = field(default_factory=list)
    account_id: int | None = None  # the account that holds the seat (its name is the seat's name)

    @classmethod
    def stored(cls, seat: StoredSeat) -> SeatState:
        """A seat as the database keeps it (no connection: the table is not running here)."""
        return cls(seat.kind, seat.name, seat.bot, seat.token_hash, seat.auto, account_id=seat.account_id)

    def to_json(self, seat: int) -> dict[str, Any]:
        """The one public form of a seat, in the lobby and at the table: nothing about the token."""
        return {
            "seat": seat,
            "kind": self.kind.value,
            "name": self.name,
            "bot": self.bot if self.kind is SeatKind.BOT else None,
            "auto": self.auto,
            "connected": bool(self.peers) or self.kind is SeatKind.BOT,
            "account": self.name if self.account_id is not None and self.kind is SeatKind.PLAYER else None,
        }
