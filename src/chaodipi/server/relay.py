"""A client served by a process that does not run its table: its messages relayed through Redis (issue 22).

Any process of a platform answers any client. When a client's WebSocket reaches a process that
does not run its table, that process (the *host*) keeps the socket and relays: the client's hello
and messages go to the table's owner on its channel, and what the table sends the client comes
back on the host's channel (:mod:`chaodipi.server.bus`). The owner sees the client as a
:class:`RemotePeer`, a :class:`~chaodipi.server.seats.Peer` like any other: the table builds every
message from ``Hand.view(seat)`` and checks every action exactly as for a socket of its own.

Why relay rather than send the client to the owner (as Colyseus does): the platform stays behind
one address (a load balancer may send any connection anywhere; no process needs an address of its
own that clients can reach), the browser client is unchanged, and a process that dies costs its
clients one reconnect to any other process. The price is a hop through Redis for relayed clients
(a load balancer that routes by table, e.g. on the path ``/ws/tables/{id}``, avoids most of it).

When the owner changes (it died, or handed its tables over), the host closes the relayed sockets
of that table with 4409 (moved), and the clients reconnect with their tokens, to any process.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict
from typing import Any

from chaodipi.server.bus import Bus
from chaodipi.server.protocol import Hello
from chaodipi.server.seats import Peer
from chaodipi.server.store import Fence

__all__ = ["RemoteLink", "RemotePeer", "hello_from_json"]

_ids = itertools.count(1)


def hello_from_json(data: dict[str, Any]) -> Hello:
    """A hello as relayed (the host parsed and checked it)."""
    return Hello(
        data.get("token"), data.get("seq"), data.get("hand"), data.get("events"), bool(data.get("watch", False))
    )


class RemotePeer:
    """At the table's owner: a client connected to another process (its *host*); sending relays to the host."""

    def __init__(self, bus: Bus, host: str, conn: str, account: tuple[int, str] | None) -> None:
        self.bus = bus
        self.host = host
        self.conn = conn
        self.seat = -1
        self.account = account
        self.hand_sent = -1
        self.events_sent = 0
        self.closed = False

    def send(self, text: str) -> None:
        """Relay a message to the client."""
        if not self.closed:
            self.bus.send(self.host, {"k": "out", "c": self.conn, "x": text})

    def close(self, code: int, reason: str) -> None:
        """Have the host close the client's socket (after what was relayed before)."""
        if not self.closed:
            self.closed = True
            self.bus.send(self.host, {"k": "close", "c": self.conn, "code": code, "r": reason})


class RemoteLink:
    """At the host: one client's socket to a table another process runs, as the WebSocket endpoint talks to a
    table of its own (``connect``, ``raw``, ``disconnect``), its messages sent to the owner through the bus."""

    def __init__(self, bus: Bus, table_id: int, owner: Fence, sockets: dict[str, tuple[Peer, RemoteLink]]) -> None:
        self.bus = bus
        self.id = table_id
        self.owner = owner  # who ran the table when the client came (a change closes the socket: 4409)
        self.seq = 0  # (for a refusal before the owner answered: the owner's replies carry the table's number)
        self.sockets = sockets  # the host's relayed sockets by connection name (the bus's out and close find them)
        self.conn = f"{bus.node}/{next(_ids)}"  # this socket's name on the bus
        self.since = time.monotonic()  # when the hello was relayed (set by connect; the relays' audit waits after it)

    def connect(self, peer: Peer, hello: Hello) -> None:
        """Relay the client's hello: the owner answers with a welcome, or an error and a close."""
        self.sockets[self.conn] = (peer, self)
        self.since = time.monotonic()
        self.bus.send(
            self.owner.owner,
            {"k": "hello", "c": self.conn, "n": self.bus.node, "t": self.id, "h": asdict(hello), "a": peer.account},
        )

    def raw(self, peer: Peer, text: str) -> None:
        """Relay a message as the client sent it (the owner checks it)."""
        self.bus.send(self.owner.owner, {"k": "in", "c": self.conn, "t": self.id, "x": text})

    def disconnect(self, peer: Peer) -> None:
        """The client's socket closed: the owner forgets it (if it said hello)."""
        if self.sockets.pop(self.conn, None) is not None:
            self.bus.send(self.owner.owner, {"k": "bye", "c": self.conn, "t": self.id})
