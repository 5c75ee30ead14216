"""The credits ledger 积分账: every credit change of an account is one row, and a balance is their sum.

A row says who (an account), how much, where (room, table, game, hand), why (``hand``: a hand's
credits by the rules, RULES §11.4; ``escape``: the penalty for leaving a game in progress 逃跑,
RULES §13) and its cause as a unique ``key``, so that a cause is posted once whatever happens:
:func:`post` skips a key already there, and settling a game again posts nothing new. There is no
stored balance that could drift from the rows: :func:`balances` adds them up.

The rows of a hand are written by the table in the same transaction as the action that ends the
hand (:meth:`Store.append <chaodipi.server.store.Store.append>`'s ``also``), so a stored hand and its
credits are never apart. The players of each game (``game_players``: who sat in each seat when it
began, and whether their side won) are kept here too: a player's list of games reads them.

The engine says what each seat's credits are (:meth:`HandResult.seat_credits
<chaodipi.outcome.HandResult.seat_credits>`); the ledger only says whose they are:

>>> from chaodipi.outcome import HandResult
>>> postings = hand_postings(7, 1, 3, "anchao", [11, None, 12, 13], (2, -2, 2, -15), left={3}, escaped={3})
>>> [(p.account_id, p.amount, p.reason, p.key) for p in postings]
[(11, 2, 'hand', 'hand:7:1:3:0'), (12, 2, 'hand', 'hand:7:1:3:2'), (13, -15, 'escape', 'hand:7:1:3:3')]

A player who left before the first card pays nothing and gets nothing of the hand (RULES §13):

>>> [(p.account_id, p.amount) for p in hand_postings(7, 1, 3, "anchao", [11, 10, 12, 13], (2, -2, 2, -2), left={3})]
[(11, 2), (10, -2), (12, 2)]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, DateTime, Integer, SmallInteger, String, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from chaodipi.server.store import Base

__all__ = [
    "PAGE",
    "REASONS",
    "GamePlayerRow",
    "LedgerRow",
    "Posting",
    "balances",
    "finish_game",
    "games_of",
    "hand_postings",
    "ledger_of",
    "left_game",
    "post",
    "start_game",
]

#: Why a row was posted (the ``reason`` column).
REASONS = ("hand", "escape", "game", "dark_fry")
#: Rows of a player's page at a time.
PAGE = 20


class GamePlayerRow(Base):
    """Who sat in a seat when a game began (an account, a guest's name, a bot) and whether their side won."""

    __tablename__ = "game_players"

    table_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(32))
    bot: Mapped[str | None] = mapped_column(String(16), nullable=True)
    room: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    winner: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LedgerRow(Base):
    """One credit change of one account, and its cause (``key``, unique)."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(Integer)
    amount: Mapped[int] = mapped_column(Integer)
    room: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[int] = mapped_column(Integer)
    game: Mapped[int] = mapped_column(Integer)
    hand: Mapped[int | None] = mapped_column(Integer, nullable=True)
    reason: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(96), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True, slots=True)
class Posting:
    """A row to post: who, how much, where, why, and the key of its cause."""

    account_id: int
    amount: int
    room: str
    table_id: int
    game: int
    hand: int | None
    reason: str
    key: str


def hand_postings(
    table_id: int,
    game: int,
    hand: int,
    room: str,
    accounts: Sequence[int | None],
    credits: Sequence[int],
    *,
    left: Collection[int] = (),
    escaped: Collection[int] = (),
) -> list[Posting]:
    """The rows of hand ``hand``: each seat's credits (``credits``, from the engine) posted to the account that
    held the seat for the hand (``accounts``; None: a guest or a bot, nothing posted). A seat in ``left`` (its
    player left during the hand, 逃跑) gets only its penalty, as ``escape``, when it pays one (in ``escaped``:
    a card had been played, RULES §13), and no row otherwise: the bot played the hand for its side, and none
    of that side's credits are the leaver's. A seat whose credits are 0 gets no row: nothing changed."""
    out = []
    for seat in range(4):
        account, amount = accounts[seat], credits[seat]
        if account is None or amount == 0 or (seat in left and seat not in escaped):
            continue
        reason = "escape" if seat in escaped else "hand"
        out.append(
            Posting(account, amount, room, table_id, game, hand, reason, f"hand:{table_id}:{game}:{hand}:{seat}")
        )
    return out


def _insert_ignoring(connection: Connection, model: type[Base], rows: list[dict[str, Any]], key: str) -> int:
    """Insert ``rows``, skipping each whose ``key`` column is there already; returns how many went in."""
    if not rows:
        return 0
    dialect = connection.dialect.name
    column = getattr(model, key)
    if dialect in ("postgresql", "sqlite"):
        # The rows that went in are counted by what RETURNING gives back: a driver's rowcount is -1 for a
        # statement with RETURNING (psycopg 3 under SQLAlchemy 2.1, which adds one for the primary key).
        dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        stmt: Any = dialect_insert(model).on_conflict_do_nothing(index_elements=[key]).returning(column)
        return sum(len(connection.execute(stmt, row).all()) for row in rows)
    # any other database: look first (the unique key still guards a race)
    there = set(connection.scalars(select(column).where(column.in_([r[key] for r in rows]))))
    rows = [r for r in rows if r[key] not in there]
    stmt = insert(model)
    added = 0
    for row in rows:
        added += connection.execute(stmt, row).rowcount
    return added


def post(connection: Connection, postings: Iterable[Posting]) -> int:
    """Write ``postings`` in the caller's transaction, each cause at most once; returns how many were new."""
    now = datetime.now(UTC)
    rows = [
        {
            "account_id": p.account_id,
            "amount": p.amount,
            "room": p.room,
            "table_id": p.table_id,
            "game": p.game,
            "hand": p.hand,
            "reason": p.reason,
            "key": p.key,
            "created_at": now,
        }
        for p in postings
    ]
    return _insert_ignoring(connection, LedgerRow, rows, "key")


def balances(connection: Connection, account_id: int) -> dict[str, int]:
    """An account's credits in each room and in all (``total``): the sums of its rows."""
    sums = connection.execute(
        select(LedgerRow.room, func.sum(LedgerRow.amount))
        .where(LedgerRow.account_id == account_id)
        .group_by(LedgerRow.room)
    ).all()
    out = {room: 0 for room in ("anchao", "kangqi", "mingchao", "house")}
    for room, total in sums:
        out[room] = int(total or 0)
    out["total"] = sum(out.values())
    return out


def _pages(total: int) -> int:
    return max(1, -(-total // PAGE))


def ledger_of(connection: Connection, account_id: int, page: int = 1) -> dict[str, Any]:
    """One page of an account's rows, newest first."""
    total = connection.scalar(select(func.count()).select_from(LedgerRow).where(LedgerRow.account_id == account_id))
    rows = connection.execute(
        select(LedgerRow)
        .where(LedgerRow.account_id == account_id)
        .order_by(LedgerRow.id.desc())
        .limit(PAGE)
        .offset((page - 1) * PAGE)
    ).all()
    return {
        "page": page,
        "pages": _pages(int(total or 0)),
        "total": int(total or 0),
        "rows": [
            {
                "id": r.id,
                "amount": r.amount,
                "room": r.room,
                "table": r.table_id,
                "game": r.game,
                "hand": r.hand,
                "reason": r.reason,
                "at": _iso(r.created_at),
            }
            for r in rows
        ],
    }


def start_game(
    connection: Connection, table_id: int, game: int, room: str, seats: Sequence[tuple[int | None, str, str | None]]
) -> None:
    """Write who sits in each seat as game ``game`` begins: ``(account, name, bot)`` per seat (again: unchanged)."""
    now = datetime.now(UTC)
    rows = [
        {
            "table_id": table_id,
            "game": game,
            "seat": seat,
            "account_id": account,
            "name": name,
            "bot": bot,
            "room": room,
            "started_at": now,
        }
        for seat, (account, name, bot) in enumerate(seats)
    ]
    there = set(
        connection.scalars(
            select(GamePlayerRow.seat).where(GamePlayerRow.table_id == table_id, GamePlayerRow.game == game)
        )
    )
    for row in rows:
        if row["seat"] not in there:
            connection.execute(insert(GamePlayerRow), row)


def game_accounts(connection: Connection, table_id: int, game: int) -> list[int | None]:
    """The account that held each seat as the game began (None: a guest; a bot's account for a bot)."""
    out: list[int | None] = [None, None, None, None]
    for seat, account in connection.execute(
        select(GamePlayerRow.seat, GamePlayerRow.account_id).where(
            GamePlayerRow.table_id == table_id, GamePlayerRow.game == game
        )
    ):
        out[seat] = account
    return out


def set_game_account(connection: Connection, table_id: int, game: int, seat: int, account_id: int, name: str) -> None:
    """A guest's seat became an account's (it registered): its game is the account's from the start."""
    connection.execute(
        update(GamePlayerRow)
        .where(GamePlayerRow.table_id == table_id, GamePlayerRow.game == game, GamePlayerRow.seat == seat)
        .values(account_id=account_id, name=name)
    )


def finish_game(
    connection: Connection, table_id: int, game: int, winner_team: int, *, escaped: Collection[int] = ()
) -> None:
    """Mark game ``game`` over: each seat's side won or lost (the team of seats 0 and 2 is 0); a player who
    left the game (``escaped``) lost it, whatever their side did after."""
    now = datetime.now(UTC)
    for seat in range(4):
        connection.execute(
            update(GamePlayerRow)
            .where(GamePlayerRow.table_id == table_id, GamePlayerRow.game == game, GamePlayerRow.seat == seat)
            .values(winner=(seat % 2) == winner_team and seat not in escaped, finished_at=now)
        )


def left_game(connection: Connection, table_id: int, game: int, seat: int) -> None:
    """The player in ``seat`` left game ``game`` (逃跑): for them it is lost (the game goes on with a bot)."""
    connection.execute(
        update(GamePlayerRow)
        .where(GamePlayerRow.table_id == table_id, GamePlayerRow.game == game, GamePlayerRow.seat == seat)
        .values(winner=False)
    )


def games_of(connection: Connection, account_id: int, page: int = 1) -> dict[str, Any]:
    """One page of the games an account played (newest first), with the four players' names and a replay link."""
    total = connection.scalar(
        select(func.count()).select_from(GamePlayerRow).where(GamePlayerRow.account_id == account_id)
    )
    mine = connection.execute(
        select(GamePlayerRow)
        .where(GamePlayerRow.account_id == account_id)
        .order_by(GamePlayerRow.started_at.desc(), GamePlayerRow.table_id.desc(), GamePlayerRow.game.desc())
        .limit(PAGE)
        .offset((page - 1) * PAGE)
    ).all()
    out = []
    for r in mine:
        names = ["", "", "", ""]
        for seat, name in connection.execute(
            select(GamePlayerRow.seat, GamePlayerRow.name).where(
                GamePlayerRow.table_id == r.table_id, GamePlayerRow.game == r.game
            )
        ):
            names[seat] = name
        out.append(
            {
                "table": r.table_id,
                "game": r.game,
                "room": r.room,
                "seat": r.seat,
                "started_at": _iso(r.started_at),
                "finished_at": _iso(r.finished_at),
                "won": r.winner,
                "players": names,
                "replay": f"/replay/{r.table_id}/{r.game}" if r.finished_at is not None else None,
            }
        )
    return {"page": page, "pages": _pages(int(total or 0)), "total": int(total or 0), "rows": out}


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()
