"""Chat at a table: lines stored with the table, rate-limited per speaker, always shown as text.

A line is a seat's or a logged-in spectator's: text (one line of at most
:data:`~chaodipi.server.protocol.MAX_CHAT` printable characters, checked by the protocol) or a
quick phrase's code that the page words in the reader's language. The server never interprets a
line; the page puts it in the page as text (``textContent``), never as HTML. Muting a player is
the reader's choice and stays in their page.

>>> limiter = ChatLimiter("2/10second")
>>> [limiter.allow("seat:1") for _ in range(3)], limiter.allow("seat:2")
([True, True, False], True)
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import DateTime, Integer, SmallInteger, String, column, insert, select, table
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from chaodipi.server.store import Base

__all__ = ["RECENT", "ChatLimiter", "ChatRow", "add_line", "recent_lines"]

#: How many of a table's latest lines a new connection is sent.
RECENT = 50


class ChatRow(Base):
    """A chat line of a table: who said it (seat, or None for a spectator; account, name), text or phrase, when."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    account_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(String(400))
    phrase: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ChatLimiter:
    """How often one speaker may chat (a moving window, the ``limits`` library), e.g. ``"5/10second"``."""

    def __init__(self, limit: str) -> None:
        self.limit = parse(limit)
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    def allow(self, speaker: str) -> bool:
        """Whether ``speaker`` (an account or a connection) may say another line now (and count it)."""
        return bool(self.limiter.hit(self.limit, "chat", speaker))


def _line(row: Any, account: str | None) -> dict[str, Any]:
    at = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return {
        "id": row.id,
        "seat": row.seat,
        "name": row.name,
        "account": account,
        "text": row.text,
        "phrase": row.phrase,
        "at": at.isoformat(),
    }


def add_line(
    connection: Connection,
    table_id: int,
    seat: int | None,
    account_id: int | None,
    account: str | None,
    name: str,
    text: str,
    phrase: str | None,
) -> dict[str, Any]:
    """Store a line (in the caller's transaction) and return its wire form."""
    now = datetime.now(UTC)
    values = {
        "table_id": table_id,
        "seat": seat,
        "account_id": account_id,
        "name": name[:32],
        "text": text,
        "phrase": phrase,
        "created_at": now,
    }
    new_id = connection.execute(insert(ChatRow).values(**values).returning(ChatRow.id)).scalar_one()
    return {
        "id": new_id,
        "seat": seat,
        "name": values["name"],
        "account": account,
        "text": text,
        "phrase": phrase,
        "at": now.isoformat(),
    }


def recent_lines(connection: Connection, table_id: int, count: int = RECENT) -> list[dict[str, Any]]:
    """The table's latest ``count`` lines, oldest first (with each speaker's account name, if any)."""
    rows = connection.execute(
        select(ChatRow).where(ChatRow.table_id == table_id).order_by(ChatRow.id.desc()).limit(count)
    ).all()
    ids = {r.account_id for r in rows if r.account_id is not None}
    names: dict[int, str] = {}
    if ids:
        names = dict(
            connection.execute(select(_ACCOUNTS.c.id, _ACCOUNTS.c.username).where(_ACCOUNTS.c.id.in_(ids))).all()
        )
    return [_line(r, None if r.account_id is None else names.get(r.account_id)) for r in reversed(rows)]


_ACCOUNTS = table("accounts", column("id", Integer), column("username", String))
