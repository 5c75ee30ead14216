"""The game server: a client of the engine, one job per module (the engine never imports this package).

- :mod:`~chaodipi.server.store`: event-sourced storage (tables, seats, each hand's deal, every
  accepted action) in SQLite or PostgreSQL through SQLAlchemy 2, with Alembic migrations;
- :mod:`~chaodipi.server.table`: one table, one asyncio task reading one queue: the engine checks an
  action, the store keeps it, then every seat is sent its view;
- :mod:`~chaodipi.server.clock`: the table's time, injected (a fake clock in tests), and deadlines as values;
- :mod:`~chaodipi.server.config`: how tables are paced and limited, and what is measured of them;
- :mod:`~chaodipi.server.protocol` and :mod:`~chaodipi.server.messages`: what a client sends (parsed,
  checked for shape) and what the server sends (one class per kind of message);
- :mod:`~chaodipi.server.autoplay` and :mod:`~chaodipi.server.bots`: bot seats and seats in 托管, their
  turns, the deadline and what happens when it runs out; the bots that decide for them;
- :mod:`~chaodipi.server.seats`: a seat, its one JSON shape, and a connection as a table sees it;
- :mod:`~chaodipi.server.tables`: the tables this process runs, claimed and rebuilt from the store;
  quick join in a room;
- :mod:`~chaodipi.server.accounts`: accounts and sessions, CSRF and Origin checks, rate limits;
- :mod:`~chaodipi.server.ledger` (the credits ledger and the players of each game),
  :mod:`~chaodipi.server.ratings` (ratings per room, leaderboards) and :mod:`~chaodipi.server.chat`;
- :mod:`~chaodipi.server.app` (HTTP: the lobby, with Starlette's exception handlers) and
  :mod:`~chaodipi.server.ws` (the WebSocket endpoint); :mod:`~chaodipi.server.replay`: replays;
  :mod:`~chaodipi.server.serve`: ``chaodipi serve`` under uvicorn.
"""

from __future__ import annotations

from chaodipi.server.store import (
    DEFAULT_URL,
    StaleSequenceError,
    Store,
    StoredAction,
    StoredHand,
    StoredTable,
    StoreError,
    TableInfo,
    TableStatus,
    UnknownTableError,
    migrate,
)

__all__ = [
    "DEFAULT_URL",
    "StaleSequenceError",
    "Store",
    "StoreError",
    "StoredAction",
    "StoredHand",
    "StoredTable",
    "TableInfo",
    "TableStatus",
    "UnknownTableError",
    "migrate",
]
