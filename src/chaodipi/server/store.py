"""Event-sourced storage of tables: their rules, each hand's deal and every accepted action.

A table's state is its rules and seed, the deal of each hand it started (the 108 cards in
dealing order, as a record stores them: :func:`chaodipi.record.format_deal`) and the actions
the engine accepted, numbered 1, 2, … per table. :meth:`Store.rebuild` replays them through
the engine (:meth:`Game.new_hand(deck=, first_seat=) <chaodipi.game.Game.new_hand>` and
:meth:`Hand.apply <chaodipi.hand.Hand.apply>`), so nothing depends on Python's ``random``,
and :meth:`Store.finished_record` writes a finished game as a record that
:func:`chaodipi.record.replay` accepts.

Writes are optimistic: :meth:`Store.append` names the sequence number it expects the table
to be at, and in one transaction moves the table's ``last_seq`` on only if it still is there
(a conditional ``UPDATE``), then inserts the action; the unique ``(table_id, seq)`` constraint
backs that up. The loser of a race gets :class:`StaleSequenceError` and changes nothing.

Storage goes through SQLAlchemy 2 (an embedded SQLite file by default, PostgreSQL with a
``postgresql+psycopg://`` URL); :func:`migrate` brings a database's schema to the newest
Alembic revision (configured in code: no ``alembic.ini``).

>>> store = Store("sqlite://")  # in memory, for the example
>>> store.migrate()
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.game import Game
>>> from chaodipi.record import format_deal
>>> game = Game(RuleSet.preset("standard"), seed=5)
>>> table = store.create_table(game.rules, game.seed)
>>> hand = game.new_hand()
>>> store.record_hand_start(table, 1, format_deal(hand.deck), hand.first_seat)
>>> hand.apply(Action.close()).kind  # deals every card, closes the countdown: nobody bid
<EventKind.REDEAL: 'redeal'>
>>> store.append(table, 0, 1, hand.actions[-1])
1
>>> store.append(table, 0, 1, hand.actions[-1])
Traceback (most recent call last):
...
chaodipi.server.store.StaleSequenceError: table 1 is at action 1, not 0: another action took number 1
>>> store.rebuild(table).current.phase
<Phase.REDEAL: 'redeal'>
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    and_,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, Connection, Dialect, Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from chaodipi.cards import Card
from chaodipi.game import Game
from chaodipi.hand import Phase
from chaodipi.levels import Progress
from chaodipi.log import Action, is_seat
from chaodipi.record import RecordError, format_deal, game_record, parse_deal, unfinished_at
from chaodipi.rules import RuleSet
from chaodipi.server import faults

__all__ = [
    "DEFAULT_URL",
    "FENCES",
    "MAX_GAME_MINUTES",
    "MAX_WATCH_DELAY",
    "ROOMS",
    "Append",
    "Base",
    "Fence",
    "GameOutcome",
    "NotOwnerError",
    "ReservedSeat",
    "SeatKind",
    "SeatTakenError",
    "SessionLimits",
    "StaleSequenceError",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "StoredAction",
    "StoredHand",
    "StoredSeat",
    "StoredTable",
    "TableInfo",
    "TableStatus",
    "UnknownTableError",
    "game_seed",
    "mark_time_up",
    "migrate",
    "outage_words",
    "record_outcome",
    "room_of",
    "unavailable",
]

#: The platform's rooms (RULES §15's online presets, each unchanged), then ``house``: every other table.
ROOMS = ("anchao", "kangqi", "mingchao", "house")
#: The most whole tricks spectators may be kept behind.
MAX_WATCH_DELAY = 5
#: The longest game time limit a table may have, in minutes (RULES §14.2's ``game_minutes``; 0: none).
MAX_GAME_MINUTES = 600
#: Where the server keeps its tables unless told otherwise: an SQLite file in the working directory.
DEFAULT_URL = "sqlite:///chaodipi.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
T = TypeVar("T")
SEED_RANGE = (-(2**63), 2**63 - 1)  # a BIGINT column


class StoreError(ValueError):
    """A storage request that cannot be done, or stored data that does not replay."""


class UnknownTableError(StoreError):
    """No table has this id."""


class StaleSequenceError(StoreError):
    """An append named a sequence number the table has moved past (or not reached): another writer won."""


class NotOwnerError(StaleSequenceError):
    """Another server process owns the table now (its lease ran out and was taken)."""


class SeatTakenError(StoreError):
    """The seat is taken (or, for a change to a seat, not taken)."""


class StoreUnavailable(StoreError):
    """The database did not answer the request (a lost connection, a restart, a lock waited for too long): nothing
    was changed that was not committed; try again (the lobby answers 503)."""


#: What SQLAlchemy raises when the database cannot be reached or a session was cut (each driver's own errors are
#: added by :func:`unavailable`, for the statements an append runs on the driver's cursor).
_UNAVAILABLE: tuple[type[BaseException], ...] = (
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.PendingRollbackError,
    sa_exc.TimeoutError,
    sa_exc.DisconnectionError,
)


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached or cut the session (rather than refusing a write):
    a lost or killed connection, a restart, a lock waited for too long, a transaction ended for being idle."""
    if isinstance(exc, (StoreUnavailable, *_UNAVAILABLE)):
        return True
    if isinstance(exc, sa_exc.DBAPIError):
        return bool(exc.connection_invalidated) or (exc.orig is not None and unavailable(exc.orig))
    # the driver's own (an append's statements run on its cursor): psycopg's and sqlite3's classes
    return any(
        c.__name__ in _DRIVER_UNAVAILABLE and c.__module__.startswith(("psycopg", "sqlite3")) for c in type(exc).__mro__
    )


def outage_words(exc: BaseException) -> str:
    """An outage's error in one line for the log (its class and its first line, at most 200 characters), without
    the driver's traceback."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:200] if lines else ''}"


#: The driver's errors (psycopg's, sqlite3's) that say the session was cut or a lock not had, by class name.
_DRIVER_UNAVAILABLE = ("OperationalError", "InterfaceError", "IdleInTransactionSessionTimeout", "IdleSessionTimeout")


class SeatKind(StrEnum):
    """Who sits in a seat."""

    PLAYER = "player"
    BOT = "bot"


def room_of(rules: RuleSet) -> str:
    """The room a table with these rules belongs to: a room's preset unchanged, or ``house``.

    >>> room_of(RuleSet.preset("anchao")), room_of(RuleSet.from_spec({"preset": "anchao", "set": {"circles": 1}}))
    ('anchao', 'house')
    >>> room_of(RuleSet.preset("standard"))
    'house'
    """
    spec: object = rules.to_spec()
    if isinstance(spec, dict) and not spec.get("set"):
        spec = spec.get("preset")
    return spec if isinstance(spec, str) and spec in ROOMS[:3] else "house"


def game_seed(seed: int, game: int) -> int:
    """The seed of game ``game`` (1, 2, …) at a table seeded ``seed``: the table's seed, then the next ones (64-bit).

    >>> game_seed(7, 1), game_seed(7, 3), game_seed(2**63 - 1, 2)
    (7, 9, -9223372036854775808)
    """
    return (seed + game - 1 + 2**63) % 2**64 - 2**63


class TableStatus(StrEnum):
    """Where a table is: waiting for players, playing a game, or finished."""

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"


def _now() -> datetime:
    return datetime.now(UTC)


# -- the schema (the Alembic revisions create it; these models read and write it) -------------


class Base(DeclarativeBase):
    """The server's models."""


class TableRow(Base):
    """A table: its rules spec (JSON), seed, status, the last accepted action's number and the current hand."""

    __tablename__ = "tables"
    __table_args__ = (
        CheckConstraint("status IN ('waiting', 'playing', 'finished')", name="ck_tables_status"),
        CheckConstraint("last_seq >= 0", name="ck_tables_last_seq"),
        CheckConstraint("hand_number >= 0", name="ck_tables_hand_number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    rules: Mapped[str] = mapped_column(Text)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seq: Mapped[int] = mapped_column(Integer)  # 0 before the first action
    hand_number: Mapped[int] = mapped_column(Integer)  # the hand being played; 0 before the first
    name: Mapped[str] = mapped_column(String(64), default="")
    game: Mapped[int] = mapped_column(Integer, default=1)  # the game being played: 1, 2, … at this table
    deadline_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the server process that runs it
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    room: Mapped[str] = mapped_column(String(16), default="house")  # anchao, kangqi, mingchao or house
    watchers: Mapped[bool] = mapped_column(Boolean, default=True)  # spectators allowed
    watch_delay: Mapped[int] = mapped_column(Integer, default=0)  # how many whole tricks spectators are behind
    epoch: Mapped[int] = mapped_column(Integer, default=0)  # the lease's fencing token: each claim moves it on
    event_id: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the tournament event it belongs to
    game_minutes: Mapped[int] = mapped_column(Integer, default=0)  # each game's time limit (0: none)
    best_of: Mapped[int] = mapped_column(SmallInteger, default=1)  # 1 or 3 games
    game_ends_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    time_up_game: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the game whose time ran out


class ReservedSeatRow(Base):
    """A seat kept, when the table was made, for one account, or given to a bot (an event's table)."""

    __tablename__ = "reserved_seats"

    table_id: Mapped[int] = mapped_column(Integer, ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(32))
    bot: Mapped[str | None] = mapped_column(String(16), nullable=True)


class TableGameRow(Base):
    """A finished game at a table: who won, both teams' progress, whether by time, its hands."""

    __tablename__ = "table_games"

    table_id: Mapped[int] = mapped_column(Integer, ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[int] = mapped_column(Integer, primary_key=True)
    winner: Mapped[int] = mapped_column(SmallInteger)
    level_0: Mapped[str] = mapped_column(String(8))
    circle_0: Mapped[int] = mapped_column(Integer)
    level_1: Mapped[str] = mapped_column(String(8))
    circle_1: Mapped[int] = mapped_column(Integer)
    by_time: Mapped[bool] = mapped_column(Boolean)
    hands: Mapped[int] = mapped_column(Integer)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class HandRow(Base):
    """A hand's start: its 108 cards in dealing order (216 characters) and the seat dealt the first card."""

    __tablename__ = "hands"
    __table_args__ = (
        CheckConstraint("first_seat BETWEEN 0 AND 3", name="ck_hands_first_seat"),
        CheckConstraint("number >= 1", name="ck_hands_number"),
    )

    table_id: Mapped[int] = mapped_column(Integer, ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_seat: Mapped[int] = mapped_column(SmallInteger)
    deal: Mapped[str] = mapped_column(String(216))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    game: Mapped[int] = mapped_column(Integer, default=1)


class ActionRow(Base):
    """An accepted action: number ``seq`` of its table (1, 2, … with no gap), in hand ``hand_number``."""

    __tablename__ = "actions"
    __table_args__ = (
        ForeignKeyConstraint(
            ["table_id", "hand_number"], ["hands.table_id", "hands.number"], name="fk_actions_hand", ondelete="CASCADE"
        ),
        UniqueConstraint("table_id", "seq", name="uq_actions_table_seq"),
        CheckConstraint("seq >= 1", name="ck_actions_seq"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    hand_number: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)  # Action.to_json(), compact
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SeatRow(Base):
    """A taken seat: a player (guest name, hashed resume token) or a bot, and the bot that plays for it."""

    __tablename__ = "seats"
    __table_args__ = (
        CheckConstraint("seat BETWEEN 0 AND 3", name="ck_seats_seat"),
        CheckConstraint("kind IN ('player', 'bot')", name="ck_seats_kind"),
    )

    table_id: Mapped[int] = mapped_column(Integer, ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(32))
    bot: Mapped[str] = mapped_column(String(16))  # a bot seat's strength; a player's 托管 bot
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    auto: Mapped[bool] = mapped_column(Boolean, default=False)  # 托管: the bot plays for the player
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    account_id: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the account that holds the seat


# -- what load returns ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A table's row: rules, seed, status, timestamps, the last action's number and the current hand."""

    id: int
    rules: RuleSet
    seed: int
    status: TableStatus
    created_at: datetime
    updated_at: datetime
    last_seq: int
    hand_number: int
    name: str = ""
    game: int = 1
    deadline_at: datetime | None = None
    owner: str | None = None
    lease_until: datetime | None = None
    heartbeat_at: datetime | None = None
    room: str = "house"
    watchers: bool = True
    watch_delay: int = 0
    epoch: int = 0
    event_id: int | None = None  # the tournament event the table belongs to (None: a lobby table)
    game_minutes: int = 0  # each game's time limit in minutes (RULES §14.2; 0: none)
    best_of: int = 1  # the games the table plays: the first side to win best_of // 2 + 1 wins the match
    game_ends_at: datetime | None = None  # when the current game's time runs out (None: no limit, or no game)
    time_up_game: int | None = None  # the number of the game whose time ran out (None: not the current one's)


@dataclass(frozen=True, slots=True)
class ReservedSeat:
    """A seat an event keeps: for ``account_id`` (named ``name``: only that account may take it), or a ``bot``."""

    seat: int
    account_id: int | None
    name: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game at a table (the ``table_games`` row): the winning team (0: seats 0 and 2), both teams'
    progress at the end, whether the game's time decided it (RULES §14.2), its hands (redeals included)."""

    table_id: int
    game: int
    winner: int
    progress: tuple[Progress, Progress]
    by_time: bool
    hands: int
    finished_at: datetime

    def to_json(self) -> dict[str, Any]:
        """``{"table", "game", "winner", "progress", "by_time", "hands", "finished_at"}`` (progress as
        :meth:`Progress.to_json <chaodipi.levels.Progress.to_json>` gives it, the time in ISO 8601)."""
        return {
            "table": self.table_id,
            "game": self.game,
            "winner": self.winner,
            "progress": [p.to_json() for p in self.progress],
            "by_time": self.by_time,
            "hands": self.hands,
            "finished_at": self.finished_at.isoformat(),
        }


def mark_time_up(connection: Connection, table_id: int, game: int) -> None:
    """Store (in the caller's transaction) that game ``game``'s time ran out (RULES §14.2)."""
    connection.execute(update(TableRow).where(TableRow.id == table_id).values(time_up_game=game))


def record_outcome(connection: Connection, outcome: GameOutcome) -> None:
    """Write a finished game's ``table_games`` row on ``connection`` (in the caller's transaction, which stores
    the game's end); a game already written is left as it is."""
    there = connection.execute(
        select(TableGameRow.game).where(TableGameRow.table_id == outcome.table_id, TableGameRow.game == outcome.game)
    ).first()
    if there is not None:
        return
    a, b = outcome.progress
    connection.execute(
        insert(TableGameRow).values(
            table_id=outcome.table_id,
            game=outcome.game,
            winner=outcome.winner,
            level_0=a.level_text,
            circle_0=a.circle,
            level_1=b.level_text,
            circle_1=b.circle,
            by_time=outcome.by_time,
            hands=outcome.hands,
            finished_at=outcome.finished_at,
        )
    )


@dataclass(frozen=True, slots=True)
class Fence:
    """A process's claim on a table: its name and the lease's epoch (the fencing token it got by claiming).

    A write that names a fence is refused (:class:`NotOwnerError`) unless the table is still owned by
    ``owner`` at ``epoch``: once another process claimed the table (moving its epoch on), a process
    that stalled can write nothing more to it, even under its old name.
    """

    owner: str
    epoch: int


@dataclass(frozen=True, slots=True)
class StoredSeat:
    """A taken seat as stored (``token_hash``: the SHA-256 of a player's resume token, never the token)."""

    seat: int
    kind: SeatKind
    name: str
    bot: str
    token_hash: str | None
    auto: bool
    account_id: int | None = None


@dataclass(frozen=True, slots=True)
class StoredAction:
    """An accepted action and its number."""

    seq: int
    action: Action
    created_at: datetime


@dataclass(frozen=True, slots=True)
class StoredHand:
    """A hand as stored: its number, first seat, deal (216 characters) and actions in order."""

    number: int
    first_seat: int
    deal: str
    actions: tuple[StoredAction, ...]
    game: int = 1


@dataclass(frozen=True, slots=True)
class StoredTable:
    """Everything needed to rebuild a table: its row and its hands."""

    info: TableInfo
    hands: tuple[StoredHand, ...]


# -- appends: the one write of every accepted action ------------------------------------------------

#: The columns an append may be fenced on besides its sequence number and hand: the table's owner.
#: (Issue 22's fencing token, the lease's epoch, is one more entry here: ``"epoch": TableRow.epoch``.)
FENCES: dict[str, Any] = {"owner": TableRow.owner, "epoch": TableRow.epoch}


@dataclass(frozen=True, slots=True)
class Append:
    """An accepted action to store (:meth:`Store.append`'s arguments): number ``expected_seq + 1`` of table
    ``table_id`` in hand ``hand_number``, stored only while the table is at ``expected_seq`` in that hand (and owned
    by ``owner`` when one is named); the table's deadline becomes ``deadline_at``; ``also`` writes what the action
    causes in the same transaction."""

    table_id: int
    expected_seq: int
    hand_number: int
    action: Action
    deadline_at: datetime | None = None
    owner: str | None = None
    epoch: int | None = None
    also: Callable[[Connection], None] | None = None

    def fences(self) -> dict[str, object]:
        """The columns of :data:`FENCES` the table's row must hold these values in, as well (only those named)."""
        out: dict[str, object] = {} if self.owner is None else {"owner": self.owner}
        if self.epoch is not None:
            out["epoch"] = self.epoch  # the lease's fencing token (:class:`Fence`)
        return out


class _DriverStatement:
    """A Core statement compiled once for a dialect, run on the driver's own cursor: an append's statements
    cost the driver's few microseconds, not the SQLAlchemy execution's building, cache key and result."""

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql: str = compiled.string
        self.names: list[str] | None = list(compiled.positiontup) if compiled.positional else None
        self.convert: dict[str, Callable[[Any], Any]] = {}  # (SQLite stores a datetime as SQLAlchemy writes it)
        for name, bind in compiled.binds.items():
            convert = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if convert is not None:
                self.convert[name] = convert

    def run(self, cursor: Any, values: dict[str, Any]) -> int:
        """Execute with ``values`` (by bind name); returns the rows it changed."""
        if self.convert:
            values = {**values, **{name: f(values[name]) for name, f in self.convert.items()}}
        cursor.execute(self.sql, values if self.names is None else [values[n] for n in self.names])
        return int(cursor.rowcount)


def _append_statements(dialect: Dialect, fences: dict[str, object]) -> tuple[_DriverStatement, _DriverStatement | None]:
    """An append's statements for ``dialect``: the conditional ``UPDATE`` of the table's row (its sequence number,
    hand and ``fences``), then the ``INSERT`` of the action; on PostgreSQL one statement (the update a CTE the
    insert selects from: nothing is inserted unless the row moved)."""
    where = [
        TableRow.id == bindparam("table_id"),
        TableRow.last_seq == bindparam("expected"),
        TableRow.hand_number == bindparam("hand"),
        *(FENCES[name] == bindparam(f"fence_{name}") for name in fences),
    ]
    moved = (
        update(TableRow)
        .where(*where)
        .values(last_seq=bindparam("seq"), updated_at=bindparam("now"), deadline_at=bindparam("deadline"))
    )
    columns = ["table_id", "seq", "hand_number", "action", "created_at"]
    if dialect.name == "postgresql":
        row = moved.returning(TableRow.id).cte("moved")
        values = select(
            row.c.id,
            bindparam("seq", type_=Integer),
            bindparam("hand", type_=Integer),
            bindparam("action", type_=Text),
            bindparam("now", type_=DateTime(timezone=True)),
        )
        return _DriverStatement(insert(ActionRow).from_select(columns, values), dialect), None
    add = insert(ActionRow).values(
        table_id=bindparam("table_id"),
        seq=bindparam("seq"),
        hand_number=bindparam("hand"),
        action=bindparam("action"),
        created_at=bindparam("now"),
    )
    return _DriverStatement(moved, dialect), _DriverStatement(add, dialect)


# -- migrations -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How long one of the server's PostgreSQL sessions may hold what it locked, so that a process that stalls (a
    long pause, a stopped or swapped-out process) cannot keep another from a table (issue 38).

    - ``idle_s``: a transaction left open this long with nothing running (``idle_in_transaction_session_timeout``)
      is ended by PostgreSQL, its session closed and its row locks freed: a process stopped between an append's
      statements and its commit loses the append (never told: its commit fails), and whoever claims its tables
      next goes on at once;
    - ``lock_s``: a statement that waits this long for a lock (``lock_timeout``) fails rather than waiting on;
      the caller tries again (the next scan, the next renewal, a reloaded table);
    - ``name``: the sessions' ``application_name`` (the process's owner name), which ``pg_stat_activity`` shows.
    """

    idle_s: float
    lock_s: float
    name: str = "chaodipi"

    @classmethod
    def for_lease(cls, lease_s: float, name: str = "chaodipi") -> SessionLimits:
        """The limits a process with claims of ``lease_s`` runs under: half a lease (1 to 10 s), so that a stalled
        owner's locks are gone before its lease runs out and a take-over never waits for them."""
        bound = min(10.0, max(1.0, lease_s / 2))
        return cls(bound, bound, name)

    def options(self) -> str:
        """The settings as libpq's ``options`` (set at every connection's start)."""
        idle, lock = round(self.idle_s * 1000), round(self.lock_s * 1000)
        return f"-c idle_in_transaction_session_timeout={idle} -c lock_timeout={lock}"


def _engine(url: str | URL | Engine, limits: SessionLimits | None = None) -> Engine:
    if isinstance(url, Engine):
        return url
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        # A connection PostgreSQL closed (a restart, a killed backend, a session ended by the limits) is found
        # when it is taken from the pool (a ping) and replaced, rather than failing the request that took it.
        args: dict[str, Any] = {}
        if limits is not None:  # (after the URL's own options, e.g. its search_path)
            given = parsed.query.get("options", "")
            options = " ".join([*(given if isinstance(given, tuple) else [given]), limits.options()]).strip()
            parsed = parsed.difference_update_query(["options"])
            args = {"options": options, "application_name": limits.name[:63]}
        return create_engine(parsed, pool_pre_ping=True, connect_args=args)
    engine = create_engine(parsed)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # SQLite checks foreign keys only when asked, per connection. Its write-ahead log makes a commit one write
    # and one flush of the log (no journal to write, flush and delete: half the CPU of an append, issue 22),
    # as durable as before (synchronous FULL), and lets readers go on while a write is committed.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


def alembic_config() -> Config:
    """Alembic's configuration for the server's migrations, made in code (there is no ``alembic.ini``)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(url: str | URL | Engine = DEFAULT_URL) -> None:
    """Upgrade the database at ``url`` (or behind an engine) to the newest revision; a current one is left as it is."""
    engine = _engine(url)
    config = alembic_config()
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            # SQLite changes a table by copying it (Alembic's batch mode) and dropping the old one: with
            # foreign keys on, that drop would delete every row that refers to it (ON DELETE CASCADE).
            # The switch works only outside a transaction; the keys are checked once the schema is new.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        with connection.begin():
            if engine.dialect.name == "postgresql":
                # (a migration may wait for another process's, and take its time: the server's limits are lifted)
                connection.execute(text("SET LOCAL lock_timeout = 0"))
                connection.execute(text("SET LOCAL idle_in_transaction_session_timeout = 0"))
                # Several processes of a platform may start at once on a new database: one migrates, the others
                # wait for it (a lock of this schema's, held to the end of the transaction) and find it current.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(hashtextextended('chaodipi-migrate:' || current_schema(), 0))")
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            if sqlite:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise StoreError(f"the migrated database has rows whose foreign key points nowhere: {broken[:5]}")
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()
    if not isinstance(url, Engine):
        engine.dispose()


# -- the store ------------------------------------------------------------------------------------


class Store:
    """Tables and their accepted actions in one database (a URL, or an engine made by the caller).

    The store keeps no state of its own beyond the engine: two stores on one database see the
    same tables, and a store made after a restart rebuilds every table. ``limits`` bound how long
    its PostgreSQL sessions may hold locks (:class:`SessionLimits`: a server's store has them).
    """

    def __init__(self, url: str | URL | Engine = DEFAULT_URL, *, limits: SessionLimits | None = None) -> None:
        self.engine = _engine(url, limits)
        #: Called with ``"append"`` or ``"renew"`` just before such a transaction commits: a test's stall there
        #: (:mod:`chaodipi.server.faults`; None in every real deployment).
        self.before_commit: Callable[[str], None] | None = faults.stop_hook()
        # an append's statements, compiled once for the engine's dialect per set of fences (see Append.fences)
        self._append_statements: dict[tuple[str, ...], tuple[_DriverStatement, _DriverStatement | None]] = {}
        # a broken constraint as SQLAlchemy raises it, and as the driver does (an append's statements run on it)
        self._integrity: tuple[type[Exception], ...] = (IntegrityError, self.engine.dialect.loaded_dbapi.IntegrityError)

    def migrate(self) -> None:
        """Upgrade this store's database to the newest revision."""
        migrate(self.engine)

    def close(self) -> None:
        """Close the engine's pooled connections."""
        self.engine.dispose()

    # -- writing ----------------------------------------------------------------------------------
    def create_table(
        self,
        rules: RuleSet,
        seed: int,
        *,
        name: str = "",
        watchers: bool = True,
        watch_delay: int = 0,
        event_id: int | None = None,
        game_minutes: int = 0,
        best_of: int = 1,
        reserved: Sequence[ReservedSeat] = (),
    ) -> int:
        """A new table (waiting for players) with these rules, seed and name; returns its id.

        Its room is :func:`room_of` its rules; ``watchers``: spectators allowed, ``watch_delay`` whole
        tricks behind (0 to 5). For an event's table: ``event_id`` its tag, ``game_minutes`` each game's time
        limit (0: none), ``best_of`` 1 or 3 games, ``reserved`` the seats kept for accounts or given to bots."""
        if type(game_minutes) is not int or not 0 <= game_minutes <= MAX_GAME_MINUTES:
            raise StoreError(f"a game's time limit is 0 to {MAX_GAME_MINUTES} minutes, not {game_minutes!r}")
        if best_of not in (1, 3) or isinstance(best_of, bool):
            raise StoreError(f"a table plays best of 1 or 3 games, not {best_of!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
            raise StoreError(f"a table's seed is a whole number that fits 64 bits, not {seed!r}")
        if not isinstance(name, str) or len(name) > 64:
            raise StoreError("a table's name is text of at most 64 characters")
        if type(watch_delay) is not int or not 0 <= watch_delay <= MAX_WATCH_DELAY:
            raise StoreError(f"spectators are 0 to {MAX_WATCH_DELAY} whole tricks behind, not {watch_delay!r}")
        now = _now()
        row = TableRow(
            rules=json.dumps(rules.to_spec(), ensure_ascii=False, sort_keys=True),
            seed=seed,
            status=TableStatus.WAITING.value,
            created_at=now,
            updated_at=now,
            last_seq=0,
            hand_number=0,
            name=name,
            game=1,
            room=room_of(rules),
            watchers=bool(watchers),
            watch_delay=watch_delay,
            event_id=event_id,
            game_minutes=game_minutes,
            best_of=best_of,
        )
        try:
            with Session(self.engine) as session, session.begin():
                session.add(row)
                session.flush()
                for r in reserved:
                    session.add(
                        ReservedSeatRow(table_id=row.id, seat=r.seat, account_id=r.account_id, name=r.name, bot=r.bot)
                    )
                session.flush()
                return row.id
        except IntegrityError:
            raise StoreError("a reserved seat names an account that does not exist") from None

    def record_hand_start(
        self,
        table_id: int,
        hand_number: int,
        deal: str | Sequence[Card],
        first_seat: int,
        *,
        deadline_at: datetime | None = None,
        fence: Fence | None = None,
    ) -> None:
        """Store the start of hand ``hand_number`` (the next one: 1, 2, …): its deal and first seat.

        ``deal`` is the 108 cards in dealing order, or their 216-character text
        (:func:`chaodipi.record.format_deal`). The hand belongs to the table's current game;
        the table moves to that hand and to ``playing``, with ``deadline_at`` as its deadline.
        """
        text = deal if isinstance(deal, str) else format_deal(deal)
        try:
            parse_deal(text)
        except RecordError as exc:
            raise StoreError(f"table {table_id}, hand {hand_number}: deal: {exc}") from None
        if not is_seat(first_seat):
            raise StoreError(f"table {table_id}, hand {hand_number}: the first seat is a seat 0..3, not {first_seat!r}")
        now = _now()
        with Session(self.engine) as session, session.begin():
            _fenced(session.connection(), table_id, fence)
            moved = session.connection().execute(
                update(TableRow)
                .where(TableRow.id == table_id, TableRow.hand_number == hand_number - 1)
                .values(
                    hand_number=hand_number,
                    status=TableStatus.PLAYING.value,
                    updated_at=now,
                    deadline_at=deadline_at,
                )
            )
            if moved.rowcount != 1:
                current = self._info(session, table_id).hand_number
                raise StaleSequenceError(
                    f"table {table_id} is at hand {current}: hand {hand_number} cannot start "
                    f"(the next is {current + 1})"
                )
            game = self._info(session, table_id).game
            session.add(
                HandRow(
                    table_id=table_id, number=hand_number, first_seat=first_seat, deal=text, created_at=now, game=game
                )
            )

    def append(
        self,
        table_id: int,
        expected_seq: int,
        hand_number: int,
        action: Action,
        *,
        deadline_at: datetime | None = None,
        owner: str | None = None,
        epoch: int | None = None,
        also: Callable[[Connection], None] | None = None,
    ) -> int:
        """Store ``action`` as number ``expected_seq + 1`` of the table, in hand ``hand_number``; returns that number.

        One transaction: the table's ``last_seq`` moves from ``expected_seq`` on only if it is
        still there (and the table is in that hand, and owned by ``owner`` when one is named, at
        lease ``epoch`` when one is named: the fencing token, :class:`Fence`),
        then the action is inserted; the table's deadline becomes ``deadline_at`` (the next
        decision's). If another writer took the number first, :class:`StaleSequenceError` is
        raised and nothing changes. ``also`` writes what the action causes (the credits ledger's rows,
        ratings) on the same connection, in the same transaction: both are stored, or neither.
        (:meth:`append_batch` stores several tables' actions in one transaction.)
        """
        stored = self.append_batch(
            [
                Append(
                    table_id,
                    expected_seq,
                    hand_number,
                    action,
                    deadline_at=deadline_at,
                    owner=owner,
                    epoch=epoch,
                    also=also,
                )
            ]
        )[0]
        if isinstance(stored, BaseException):
            raise stored
        return stored

    def append_batch(self, appends: Sequence[Append]) -> list[int | Exception]:
        """Store each of ``appends`` (several tables' actions) in one transaction; returns, for each, the number it
        was stored as, or why it was refused (:class:`StaleSequenceError`, :class:`NotOwnerError`, an error of its
        ``also``), in order.

        Each append is checked alone, as :meth:`append` checks it: one that is refused changes nothing, and the
        others are stored. (Its conditional ``UPDATE`` moves no row: nothing was written; an append with
        ``also`` runs in a savepoint of its own. Anything else that fails spoils the transaction: it is rolled
        back and each append is tried again in a transaction of its own.) The statements are SQLAlchemy Core's,
        compiled once and run on the driver's cursor: PostgreSQL checks, moves and inserts in one statement.
        """
        if not appends:
            return []
        # The tables' rows are locked in the order of their ids, as renew() locks them: never a deadlock.
        order = sorted(range(len(appends)), key=lambda k: appends[k].table_id)
        results: list[int | Exception] = [0] * len(appends)
        try:
            with self.engine.begin() as connection:
                cursor = connection.connection.cursor()
                now = _now()
                for k in order:
                    results[k] = self._append_in(connection, cursor, appends[k], now)
                if self.before_commit is not None:
                    self.before_commit("append")
            return results
        except Exception as exc:
            if len(appends) > 1:
                return [self.append_batch([a])[0] for a in appends]
            if isinstance(exc, self._integrity):  # (the conditional update makes it unreachable; the unique key
                # on (table_id, seq) backs it up)
                a = appends[0]
                return [StaleSequenceError(f"table {a.table_id}: another action took number {a.expected_seq + 1}")]
            return [exc]

    def _append_in(self, connection: Connection, cursor: Any, a: Append, now: datetime) -> int | Exception:
        """One append in the caller's transaction: its number, or the refusal (nothing written; the transaction
        goes on). An error of its ``also`` is returned too, its savepoint rolled back; any other error is raised."""
        if a.also is None:
            try:
                return self._append_rows(connection, cursor, a, now)
            except (StaleSequenceError, UnknownTableError) as exc:  # (refused: nothing was written)
                return exc
        try:
            with connection.begin_nested():
                seq = self._append_rows(connection, cursor, a, now)
                a.also(connection)
                return seq
        except self._integrity:
            return StaleSequenceError(f"table {a.table_id}: another action took number {a.expected_seq + 1}")
        except Exception as exc:
            return exc

    def _append_rows(self, connection: Connection, cursor: Any, a: Append, now: datetime) -> int:
        fences = a.fences()
        statements = self._append_statements.get(tuple(fences))
        if statements is None:
            statements = self._append_statements[tuple(fences)] = _append_statements(self.engine.dialect, fences)
        values: dict[str, Any] = {
            "table_id": a.table_id,
            "expected": a.expected_seq,
            "hand": a.hand_number,
            "seq": a.expected_seq + 1,
            "now": now,
            "deadline": a.deadline_at,
            "action": json.dumps(a.action.to_json(), ensure_ascii=False, separators=(",", ":")),
        }
        for name, value in fences.items():
            values[f"fence_{name}"] = value
        first, then = statements
        if first.run(cursor, values) != 1:
            raise self._refusal(connection, a)
        if then is not None and then.run(cursor, values) != 1:
            raise StaleSequenceError(f"table {a.table_id}: action {a.expected_seq + 1} was not stored")
        return a.expected_seq + 1

    def _refusal(self, connection: Connection, a: Append) -> StaleSequenceError | UnknownTableError:
        """Why the table's row did not take the append (read in the append's transaction)."""
        row = connection.execute(
            select(TableRow.last_seq, TableRow.hand_number, TableRow.owner, TableRow.epoch).where(
                TableRow.id == a.table_id
            )
        ).first()
        if row is None:
            return UnknownTableError(f"no table {a.table_id}")
        table_id, expected_seq = a.table_id, a.expected_seq
        if a.owner is not None and row.owner != a.owner:
            return NotOwnerError(f"table {table_id} is run by {row.owner or 'no server'}, not {a.owner}")
        if a.epoch is not None and row.epoch != a.epoch:
            return NotOwnerError(f"table {table_id} was claimed again (epoch {row.epoch}, not {a.epoch})")
        if row.last_seq != expected_seq:
            return StaleSequenceError(
                f"table {table_id} is at action {row.last_seq}, not {expected_seq}: "
                f"another action took number {row.last_seq}"
                if row.last_seq > expected_seq
                else f"table {table_id} is at action {row.last_seq}, not {expected_seq}"
            )
        return StaleSequenceError(f"table {table_id} is in hand {row.hand_number}, not hand {a.hand_number}")

    def write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` on a connection in one transaction (the ledger's, ratings' and chat's writes)."""
        with self.engine.begin() as connection:
            return fn(connection)

    def read(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` on a connection (reads: a player's page, a leaderboard)."""
        with self.engine.connect() as connection:
            return fn(connection)

    def set_status(self, table_id: int, status: TableStatus, *, fence: Fence | None = None) -> None:
        """Mark a table waiting, playing or finished."""
        status = TableStatus(status)
        with Session(self.engine) as session, session.begin():
            _fenced(session.connection(), table_id, fence)
            moved = session.connection().execute(
                update(TableRow).where(TableRow.id == table_id).values(status=status.value, updated_at=_now())
            )
            if moved.rowcount != 1:
                raise UnknownTableError(f"no table {table_id}")

    def set_deadline(self, table_id: int, deadline_at: datetime | None, *, fence: Fence | None = None) -> None:
        """Store the deadline of the decision the table waits for now (None: none)."""
        with Session(self.engine) as session, session.begin():
            _fenced(session.connection(), table_id, fence)
            moved = session.connection().execute(
                update(TableRow).where(TableRow.id == table_id).values(deadline_at=deadline_at)
            )
            if moved.rowcount != 1:
                raise UnknownTableError(f"no table {table_id}")

    def next_game(self, table_id: int, *, fence: Fence | None = None, match: bool = False) -> int:
        """Start the table's next game (the current one must be over: the table finished, or with ``match``,
        the next game of a best-of-three whose last game's outcome is stored); returns its number."""
        with Session(self.engine) as session, session.begin():
            _fenced(session.connection(), table_id, fence)
            info = self._info(session, table_id)
            over = info.status is TableStatus.FINISHED
            if match and not over:
                over = session.get(TableGameRow, (table_id, info.game)) is not None
            if not over:
                raise StoreError(f"table {table_id} is {info.status}: its game is not over")
            session.connection().execute(
                update(TableRow)
                .where(TableRow.id == table_id)
                .values(
                    game=info.game + 1,
                    status=TableStatus.PLAYING.value,
                    updated_at=_now(),
                    deadline_at=None,
                    game_ends_at=None,
                    time_up_game=None,
                )
            )
            return info.game + 1

    def set_game_clock(self, table_id: int, ends_at: datetime | None, *, fence: Fence | None = None) -> None:
        """Store when the current game's time runs out (RULES §14.2; None: no limit)."""
        with Session(self.engine) as session, session.begin():
            _fenced(session.connection(), table_id, fence)
            moved = session.connection().execute(
                update(TableRow).where(TableRow.id == table_id).values(game_ends_at=ends_at)
            )
            if moved.rowcount != 1:
                raise UnknownTableError(f"no table {table_id}")

    def fenced_write(self, table_id: int, fence: Fence | None, fn: Callable[[Connection], T]) -> T:
        """Run ``fn`` in one transaction that is refused (:class:`NotOwnerError`) unless ``fence`` still holds
        the table (as every write of a table is)."""
        with self.engine.begin() as connection:
            _fenced(connection, table_id, fence)
            return fn(connection)

    def reserved(self, table_id: int) -> dict[int, ReservedSeat]:
        """The table's reserved seats, by seat (none for a lobby table)."""
        with Session(self.engine) as session:
            rows = session.scalars(select(ReservedSeatRow).where(ReservedSeatRow.table_id == table_id)).all()
            return {r.seat: ReservedSeat(r.seat, r.account_id, r.name, r.bot) for r in rows}

    def game_outcomes(self, table_id: int) -> list[GameOutcome]:
        """The table's finished games, in order: who won, both teams' progress, by time or not (``table_games``)."""
        query = select(TableGameRow).where(TableGameRow.table_id == table_id).order_by(TableGameRow.game)
        with Session(self.engine) as session:
            return [
                GameOutcome(
                    r.table_id,
                    r.game,
                    int(r.winner),
                    (Progress.parse(r.level_0, r.circle_0), Progress.parse(r.level_1, r.circle_1)),
                    bool(r.by_time),
                    r.hands,
                    _aware(r.finished_at) or r.finished_at,
                )
                for r in session.scalars(query)
            ]

    # -- seats --------------------------------------------------------------------------------------
    def take_seat(
        self,
        table_id: int,
        seat: int,
        kind: SeatKind,
        name: str,
        *,
        bot: str = "rules",
        token_hash: str | None = None,
        account_id: int | None = None,
        fence: Fence | None = None,
    ) -> None:
        """Seat a player (a guest, or ``account_id``'s) or a bot in an empty seat; :class:`SeatTakenError` if taken."""
        if not is_seat(seat):
            raise StoreError(f"a seat is 0..3, not {seat!r}")
        try:
            with Session(self.engine) as session, session.begin():
                self._info(session, table_id)
                _fenced(session.connection(), table_id, fence)
                if session.get(SeatRow, (table_id, seat)) is not None:
                    raise SeatTakenError(f"seat {seat} of table {table_id} is taken")
                session.add(
                    SeatRow(
                        table_id=table_id,
                        seat=seat,
                        kind=SeatKind(kind).value,
                        name=name,
                        bot=bot,
                        token_hash=token_hash,
                        auto=False,
                        joined_at=_now(),
                        account_id=account_id,
                    )
                )
        except IntegrityError:
            raise SeatTakenError(f"seat {seat} of table {table_id} is taken") from None

    def update_seat(
        self,
        table_id: int,
        seat: int,
        *,
        kind: SeatKind | None = None,
        name: str | None = None,
        token_hash: str | bool | None = False,
        auto: bool | None = None,
        account_id: int | bool | None = False,
        fence: Fence | None = None,
    ) -> None:
        """Change a taken seat: who sits there, its name, its token hash and account (False: unchanged), 托管."""
        values: dict[str, Any] = {}
        if kind is not None:
            values["kind"] = SeatKind(kind).value
        if name is not None:
            values["name"] = name
        if token_hash is not False:
            values["token_hash"] = token_hash
        if auto is not None:
            values["auto"] = auto
        if account_id is not False:
            values["account_id"] = account_id
        with Session(self.engine) as session, session.begin():
            _fenced(session.connection(), table_id, fence)
            moved = session.connection().execute(
                update(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat == seat).values(**values)
            )
            if moved.rowcount != 1:
                raise SeatTakenError(f"seat {seat} of table {table_id} is empty")

    def free_seat(self, table_id: int, seat: int, *, fence: Fence | None = None) -> None:
        """Empty a seat (before the game starts)."""
        with Session(self.engine) as session, session.begin():
            _fenced(session.connection(), table_id, fence)
            row = session.get(SeatRow, (table_id, seat))
            if row is None:
                raise SeatTakenError(f"seat {seat} of table {table_id} is empty")
            session.delete(row)

    def seats(self, table_id: int) -> dict[int, StoredSeat]:
        """The table's taken seats, by seat."""
        with Session(self.engine) as session:
            rows = session.scalars(select(SeatRow).where(SeatRow.table_id == table_id)).all()
            return {
                r.seat: StoredSeat(r.seat, SeatKind(r.kind), r.name, r.bot, r.token_hash, bool(r.auto), r.account_id)
                for r in rows
            }

    # -- ownership: one server process runs a table at a time ----------------------------------------
    def claim(self, table_id: int, owner: str, lease: timedelta) -> TableInfo | None:
        """Make ``owner`` the table's owner until now + ``lease`` if no other owner's lease is running.

        Every claim moves the table's epoch on (the fencing token: :class:`Fence`), so that whatever claimed
        it before (another process, or this one before a stall) can write nothing more. Returns the table as
        it was before the claim (its ``owner`` the one before, its ``heartbeat_at`` when that owner was last
        known alive) with the new ``epoch``, or None when another owner holds it.

        A row locked by an unfinished write is skipped (None, as if held: the caller asks again later) rather than
        waited for: a process that stalled in the middle of a write cannot hold the claim up, and its write is
        refused once it wakes (the epoch moved on; :class:`SessionLimits` ends its transaction meanwhile).
        """
        now = _now()
        with self.engine.begin() as connection:
            before = self._info(Session(bind=connection), table_id)
            free = (
                select(TableRow.id)
                .where(
                    TableRow.id == table_id,
                    or_(TableRow.owner.is_(None), TableRow.owner == owner, TableRow.lease_until < now),
                )
                .with_for_update(skip_locked=True)
                .scalar_subquery()
            )
            epoch = connection.execute(
                update(TableRow)
                .where(TableRow.id == free)
                .values(owner=owner, lease_until=now + lease, heartbeat_at=now, epoch=TableRow.epoch + 1)
                .returning(TableRow.epoch)
            ).scalar()
            return None if epoch is None else replace(before, epoch=int(epoch))

    def renew(self, owner: str, lease: timedelta, table_ids: Sequence[int] | None = None) -> dict[int, int]:
        """Extend the lease of every table ``owner`` holds (of those in ``table_ids``, when given: the tables the
        process still runs); returns them, each with its epoch."""
        if table_ids is not None and not table_ids:
            return {}
        now = _now()
        # The rows locked in the order of their ids first, as a batch of appends locks them (Store.append_batch):
        # in the order of a scan, a renewal and a batch could each wait for the other (PostgreSQL breaks that
        # deadlock after a second, failing one of them).
        held = select(TableRow.id).where(TableRow.owner == owner)
        if table_ids is not None:
            held = held.where(TableRow.id.in_(sorted(set(table_ids))))
        held = held.order_by(TableRow.id).with_for_update()
        with self.engine.begin() as connection:
            rows = connection.execute(
                update(TableRow)
                .where(TableRow.id.in_(held.scalar_subquery()))
                .values(lease_until=now + lease, heartbeat_at=now)
                .returning(TableRow.id, TableRow.epoch)
            ).all()
            if self.before_commit is not None:
                self.before_commit("renew")
            return {int(r[0]): int(r[1]) for r in rows}

    def release(self, owner: str, table_id: int | None = None, *, epoch: int | None = None) -> list[int]:
        """Give up ``owner``'s tables (or one of them, claimed at ``epoch`` when given): another process may claim
        them at once. Returns their ids."""
        with self.engine.begin() as connection:
            query = update(TableRow).where(TableRow.owner == owner)
            if table_id is not None:
                query = query.where(TableRow.id == table_id)
            if epoch is not None:
                query = query.where(TableRow.epoch == epoch)
            rows = connection.execute(query.values(owner=None, lease_until=None).returning(TableRow.id)).all()
            return sorted(int(r[0]) for r in rows)

    def orphans(self, limit: int = 100, *, grace: timedelta = timedelta(seconds=3)) -> list[int]:
        """Tables not finished that nobody runs: their lease ran out (the owner died), or was given up (the owner
        stopped), or none was ever taken by a table made more than ``grace`` ago (its placement failed; a new
        table is left that long to the process it was placed on)."""
        now = _now()
        query = (
            select(TableRow.id)
            .where(
                TableRow.status != TableStatus.FINISHED.value,
                or_(
                    TableRow.lease_until < now,
                    and_(TableRow.lease_until.is_(None), or_(TableRow.epoch > 0, TableRow.created_at < now - grace)),
                ),
            )
            .order_by(TableRow.id)
            .limit(limit)
        )
        with self.engine.connect() as connection:
            return [int(r[0]) for r in connection.execute(query)]

    def loads(self) -> dict[str, int]:
        """How many tables not finished each process runs (under a lease that still runs)."""
        query = (
            select(TableRow.owner, func.count())
            .where(
                TableRow.status != TableStatus.FINISHED.value,
                TableRow.owner.is_not(None),
                TableRow.lease_until >= _now(),
            )
            .group_by(TableRow.owner)
        )
        with self.engine.connect() as connection:
            return {str(owner): int(n) for owner, n in connection.execute(query)}

    def owners(self, table_ids: Sequence[int]) -> dict[int, Fence | None]:
        """Who runs each of these tables now, and at which epoch (None: nobody, or a lease that ran out)."""
        if not table_ids:
            return {}
        now = _now()
        query = select(TableRow.id, TableRow.owner, TableRow.epoch, TableRow.lease_until).where(
            TableRow.id.in_(sorted(set(table_ids)))
        )
        with self.engine.connect() as connection:
            out: dict[int, Fence | None] = {}
            for tid, owner, epoch, until in connection.execute(query):
                moment = _aware(until)
                live = owner is not None and moment is not None and moment >= now
                out[int(tid)] = Fence(str(owner), int(epoch)) if live else None
            return out

    # -- reading ----------------------------------------------------------------------------------
    def list_tables(self, status: TableStatus | None = None) -> list[TableInfo]:
        """Every table (or those with ``status``), oldest first."""
        query = select(TableRow).order_by(TableRow.id)
        if status is not None:
            query = query.where(TableRow.status == TableStatus(status).value)
        with Session(self.engine) as session:
            return [_table_info(row) for row in session.scalars(query)]

    def info(self, table_id: int) -> TableInfo:
        """The table's row."""
        with Session(self.engine) as session:
            return self._info(session, table_id)

    def load(self, table_id: int) -> StoredTable:
        """The table's row, and each hand's deal and actions, as stored (checked: numbers without gaps)."""
        with Session(self.engine) as session:
            info = self._info(session, table_id)
            # The row is read first: what a writer adds meanwhile (a later action or hand) is left out,
            # so a table being played is read as it stood at one moment.
            hands = session.scalars(
                select(HandRow)
                .where(HandRow.table_id == table_id, HandRow.number <= info.hand_number)
                .order_by(HandRow.number)
            ).all()
            rows = session.scalars(
                select(ActionRow)
                .where(ActionRow.table_id == table_id, ActionRow.seq <= info.last_seq)
                .order_by(ActionRow.seq)
            ).all()
        actions: dict[int, list[StoredAction]] = {h.number: [] for h in hands}
        for k, row in enumerate(rows, 1):
            if row.seq != k:
                raise StoreError(f"table {table_id}: action {k} is missing (the next stored is {row.seq})")
            try:
                action = Action.from_json(json.loads(row.action))
            except ValueError as exc:
                raise StoreError(f"table {table_id}, action {k}: {exc}") from None
            if row.hand_number not in actions:
                raise StoreError(f"table {table_id}, action {k}: hand {row.hand_number} was never started")
            actions[row.hand_number].append(StoredAction(row.seq, action, row.created_at))
        if len(rows) != info.last_seq:
            raise StoreError(f"table {table_id} says it is at action {info.last_seq}, but {len(rows)} are stored")
        for k, h in enumerate(hands, 1):
            if h.number != k:
                raise StoreError(f"table {table_id}: hand {k} is missing (the next stored is {h.number})")
        stored = tuple(StoredHand(h.number, h.first_seat, h.deal, tuple(actions[h.number]), h.game) for h in hands)
        return StoredTable(info, stored)

    def rebuild(self, table_id: int, game: int | None = None) -> Game:
        """The table's game ``game`` (default: the current one) now: its stored deals and actions replayed.

        Game ``n`` is seeded :func:`game_seed`\\ (table seed, n). Every hand that is over has been
        applied to the game (:meth:`Game.finish_hand`); the last hand may be in progress. A hand
        in its deal is rebuilt up to its last action (the cards dealt after it are the deal's
        next ones: the caller deals them again).
        """
        stored = self.load(table_id)
        info = stored.info
        number = info.game if game is None else game
        if not 1 <= number <= info.game:
            raise StoreError(f"table {table_id} has played games 1 to {info.game}, not game {number}")
        result = Game(info.rules, game_seed(info.seed, number))
        time_up = info.time_up_game == number
        if not time_up and number < info.game:
            with Session(self.engine) as session:
                row = session.get(TableGameRow, (table_id, number))
                time_up = row is not None and bool(row.by_time)
        if time_up and not any(h.game == number for h in stored.hands):
            result.call_time()
        for h in stored.hands:
            if h.game != number:
                continue
            where = f"table {table_id}, hand {h.number}"
            try:
                hand = result.new_hand(deck=parse_deal(h.deal), first_seat=h.first_seat)
            except ValueError as exc:
                raise StoreError(f"{where}: {exc}") from None
            for a in h.actions:
                try:
                    hand.apply(a.action)
                except ValueError as exc:
                    raise StoreError(f"{where}, action {a.seq} ({a.action.to_json()}): {exc}") from None
            last = h is max((x for x in stored.hands if x.game == number), key=lambda x: x.number)
            if time_up and last:
                result.call_time()  # RULES §14.2: the time ran out during (or after) the game's last hand
            if hand.phase in (Phase.OVER, Phase.REDEAL) and not result.over:
                result.finish_hand()
        return result

    def finished_record(
        self, table_id: int, *, game: int | None = None, players: list[str] | None = None
    ) -> dict[str, Any]:
        """The record (docs/record-format.md) of the table's finished game ``game`` (default: the current
        one), which :func:`~chaodipi.record.replay` accepts; :class:`StoreError` while it is not over."""
        played = self.rebuild(table_id, game)
        stop = unfinished_at(played)
        if stop is not None:
            raise StoreError(f"table {table_id}: the game is unfinished: {stop}")
        return game_record(played, players=players)

    def _info(self, session: Session, table_id: int) -> TableInfo:
        row = session.get(TableRow, table_id)
        if row is None:
            raise UnknownTableError(f"no table {table_id}")
        return _table_info(row)


def _table_info(row: TableRow) -> TableInfo:
    return TableInfo(
        id=row.id,
        rules=RuleSet.from_spec(json.loads(row.rules)),
        seed=row.seed,
        status=TableStatus(row.status),
        created_at=row.created_at,
        updated_at=row.updated_at,
        last_seq=row.last_seq,
        hand_number=row.hand_number,
        name=row.name,
        game=row.game,
        deadline_at=_aware(row.deadline_at),
        owner=row.owner,
        lease_until=_aware(row.lease_until),
        heartbeat_at=_aware(row.heartbeat_at),
        room=row.room,
        watchers=bool(row.watchers),
        watch_delay=row.watch_delay,
        epoch=row.epoch,
        event_id=row.event_id,
        game_minutes=row.game_minutes,
        best_of=row.best_of,
        game_ends_at=_aware(row.game_ends_at),
        time_up_game=row.time_up_game,
    )


def _fenced(connection: Connection, table_id: int, fence: Fence | None) -> None:
    """Refuse the write in progress unless ``fence`` still holds the table (nothing to check without one).

    The row is updated (to itself) rather than read, so that on PostgreSQL it stays locked until the
    write commits: a claim that comes meanwhile waits, and a claim that came first is seen."""
    if fence is None:
        return
    moved = connection.execute(
        update(TableRow)
        .where(TableRow.id == table_id, TableRow.owner == fence.owner, TableRow.epoch == fence.epoch)
        .values(epoch=TableRow.epoch)
    )
    if moved.rowcount != 1:
        raise NotOwnerError(f"table {table_id} is no longer run by {fence.owner} at epoch {fence.epoch}")


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive datetimes: they were stored in UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)
