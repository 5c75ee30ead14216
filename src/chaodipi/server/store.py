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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    select,
    update,
)
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from chaodipi.cards import Card
from chaodipi.game import Game
from chaodipi.hand import Phase
from chaodipi.log import Action, is_seat
from chaodipi.record import RecordError, format_deal, game_record, parse_deal, unfinished_at
from chaodipi.rules import RuleSet

__all__ = [
    "DEFAULT_URL",
    "Base",
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

#: Where the server keeps its tables unless told otherwise: an SQLite file in the working directory.
DEFAULT_URL = "sqlite:///chaodipi.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
SEED_RANGE = (-(2**63), 2**63 - 1)  # a BIGINT column


class StoreError(ValueError):
    """A storage request that cannot be done, or stored data that does not replay."""


class UnknownTableError(StoreError):
    """No table has this id."""


class StaleSequenceError(StoreError):
    """An append named a sequence number the table has moved past (or not reached): another writer won."""


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


@dataclass(frozen=True, slots=True)
class StoredTable:
    """Everything needed to rebuild a table: its row and its hands."""

    info: TableInfo
    hands: tuple[StoredHand, ...]


# -- migrations -----------------------------------------------------------------------------------


def _engine(url: str | URL | Engine) -> Engine:
    if isinstance(url, Engine):
        return url
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # SQLite checks foreign keys only when asked, per connection.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
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
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    if not isinstance(url, Engine):
        engine.dispose()


# -- the store ------------------------------------------------------------------------------------


class Store:
    """Tables and their accepted actions in one database (a URL, or an engine made by the caller).

    The store keeps no state of its own beyond the engine: two stores on one database see the
    same tables, and a store made after a restart rebuilds every table.
    """

    def __init__(self, url: str | URL | Engine = DEFAULT_URL) -> None:
        self.engine = _engine(url)

    def migrate(self) -> None:
        """Upgrade this store's database to the newest revision."""
        migrate(self.engine)

    def close(self) -> None:
        """Close the engine's pooled connections."""
        self.engine.dispose()

    # -- writing ----------------------------------------------------------------------------------
    def create_table(self, rules: RuleSet, seed: int) -> int:
        """A new table (waiting for players) with these rules and seed; returns its id."""
        if isinstance(seed, bool) or not isinstance(seed, int) or not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
            raise StoreError(f"a table's seed is a whole number that fits 64 bits, not {seed!r}")
        now = _now()
        row = TableRow(
            rules=json.dumps(rules.to_spec(), ensure_ascii=False, sort_keys=True),
            seed=seed,
            status=TableStatus.WAITING.value,
            created_at=now,
            updated_at=now,
            last_seq=0,
            hand_number=0,
        )
        with Session(self.engine) as session, session.begin():
            session.add(row)
            session.flush()
            return row.id

    def record_hand_start(self, table_id: int, hand_number: int, deal: str | Sequence[Card], first_seat: int) -> None:
        """Store the start of hand ``hand_number`` (the next one: 1, 2, …): its deal and first seat.

        ``deal`` is the 108 cards in dealing order, or their 216-character text
        (:func:`chaodipi.record.format_deal`). The table moves to that hand and to ``playing``.
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
            moved = session.connection().execute(
                update(TableRow)
                .where(TableRow.id == table_id, TableRow.hand_number == hand_number - 1)
                .values(hand_number=hand_number, status=TableStatus.PLAYING.value, updated_at=now)
            )
            if moved.rowcount != 1:
                current = self._info(session, table_id).hand_number
                raise StaleSequenceError(
                    f"table {table_id} is at hand {current}: hand {hand_number} cannot start "
                    f"(the next is {current + 1})"
                )
            session.add(
                HandRow(table_id=table_id, number=hand_number, first_seat=first_seat, deal=text, created_at=now)
            )

    def append(self, table_id: int, expected_seq: int, hand_number: int, action: Action) -> int:
        """Store ``action`` as number ``expected_seq + 1`` of the table, in hand ``hand_number``; returns that number.

        One transaction: the table's ``last_seq`` moves from ``expected_seq`` on only if it is
        still there (and the table is in that hand), then the action is inserted. If another
        writer took the number first, :class:`StaleSequenceError` is raised and nothing changes.
        """
        seq = expected_seq + 1
        now = _now()
        text = json.dumps(action.to_json(), ensure_ascii=False, separators=(",", ":"))
        try:
            with Session(self.engine) as session, session.begin():
                moved = session.connection().execute(
                    update(TableRow)
                    .where(
                        TableRow.id == table_id,
                        TableRow.last_seq == expected_seq,
                        TableRow.hand_number == hand_number,
                    )
                    .values(last_seq=seq, updated_at=now)
                    .execution_options(synchronize_session=False)
                )
                if moved.rowcount != 1:
                    info = self._info(session, table_id)
                    if info.last_seq != expected_seq:
                        raise StaleSequenceError(
                            f"table {table_id} is at action {info.last_seq}, not {expected_seq}: "
                            f"another action took number {info.last_seq}"
                            if info.last_seq > expected_seq
                            else f"table {table_id} is at action {info.last_seq}, not {expected_seq}"
                        )
                    raise StaleSequenceError(f"table {table_id} is in hand {info.hand_number}, not hand {hand_number}")
                session.add(ActionRow(table_id=table_id, seq=seq, hand_number=hand_number, action=text, created_at=now))
        except IntegrityError:
            # The conditional update makes this unreachable; the unique (table_id, seq) backs it up.
            raise StaleSequenceError(f"table {table_id}: another action took number {seq}") from None
        return seq

    def set_status(self, table_id: int, status: TableStatus) -> None:
        """Mark a table waiting, playing or finished."""
        status = TableStatus(status)
        with Session(self.engine) as session, session.begin():
            moved = session.connection().execute(
                update(TableRow).where(TableRow.id == table_id).values(status=status.value, updated_at=_now())
            )
            if moved.rowcount != 1:
                raise UnknownTableError(f"no table {table_id}")

    # -- reading ----------------------------------------------------------------------------------
    def list_tables(self, status: TableStatus | None = None) -> list[TableInfo]:
        """Every table (or those with ``status``), oldest first."""
        query = select(TableRow).order_by(TableRow.id)
        if status is not None:
            query = query.where(TableRow.status == TableStatus(status).value)
        with Session(self.engine) as session:
            return [_table_info(row) for row in session.scalars(query)]

    def load(self, table_id: int) -> StoredTable:
        """The table's row, and each hand's deal and actions, as stored (checked: numbers without gaps)."""
        with Session(self.engine) as session:
            info = self._info(session, table_id)
            hands = session.scalars(select(HandRow).where(HandRow.table_id == table_id).order_by(HandRow.number)).all()
            rows = session.scalars(
                select(ActionRow).where(ActionRow.table_id == table_id).order_by(ActionRow.seq)
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
        stored = tuple(StoredHand(h.number, h.first_seat, h.deal, tuple(actions[h.number])) for h in hands)
        return StoredTable(info, stored)

    def rebuild(self, table_id: int) -> Game:
        """The table's game now: its stored deals and actions replayed through the engine.

        Every hand that is over has been applied to the game (:meth:`Game.finish_hand`); the
        last hand may be in progress. A hand in its deal is rebuilt up to its last action (the
        cards dealt after it are the deal's next ones: the caller deals them again).
        """
        stored = self.load(table_id)
        info = stored.info
        game = Game(info.rules, info.seed)
        for h in stored.hands:
            where = f"table {table_id}, hand {h.number}"
            try:
                hand = game.new_hand(deck=parse_deal(h.deal), first_seat=h.first_seat)
            except ValueError as exc:
                raise StoreError(f"{where}: {exc}") from None
            for a in h.actions:
                try:
                    hand.apply(a.action)
                except ValueError as exc:
                    raise StoreError(f"{where}, action {a.seq} ({a.action.to_json()}): {exc}") from None
            if hand.phase in (Phase.OVER, Phase.REDEAL):
                game.finish_hand()
        return game

    def finished_record(self, table_id: int, *, players: list[str] | None = None) -> dict[str, Any]:
        """The record (docs/record-format.md) of the table's finished game, which :func:`~chaodipi.record.replay`
        accepts; :class:`StoreError` while the game is not over."""
        game = self.rebuild(table_id)
        stop = unfinished_at(game)
        if stop is not None:
            raise StoreError(f"table {table_id}: the game is unfinished: {stop}")
        return game_record(game, players=players)

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
    )
