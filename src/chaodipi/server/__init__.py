"""The game server (issue 11), being built step by step: a client of the engine.

So far it holds the event-sourced storage (:mod:`chaodipi.server.store`): tables, each
hand's deal and every accepted action, in SQLite or PostgreSQL through SQLAlchemy 2 with
Alembic migrations, and the replay that rebuilds a table's :class:`~chaodipi.game.Game`
from them. The rules engine never imports this package.
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
