"""Events in the server's database: the append-only log of each event, and what it gives (issue 23).

The log (``event_log``: who, when, what) is the event: :meth:`EventStore.load` replays it into an
:class:`~chaodipi.tournament.event.Event`. Beside it the store keeps what the log gives, rewritten in
the transaction that appends each entry: the pairs (``event_pairs``), the pairings and their results
(``event_pairings``), the penalties (``event_penalties``) and the standings (``event_standings``), so
that other programs (a spreadsheet, a report) can read them with SQL, and so that a test can check
that standings recomputed from the log equal the stored ones.

Appends are optimistic, like a table's actions: the entry takes the number after the last one the
writer saw, and the ``(event_id, seq)`` key refuses a second writer that saw the same; the loser
reloads and tries again (several server processes may write to one event).

>>> from chaodipi.server.store import Store
>>> store = Store("sqlite://")
>>> store.migrate()
>>> events = EventStore(store)
>>> eid = events.create({"name": "Club night", "online": False, "format": "swiss"}, (None, "ann"))
>>> events.append(eid, "add_pair", {"name": "Red", "players": ["Li", "Wang"]}, by="ann").version
2
>>> [p.name for p in events.load(eid).pairs.values()]
['Red']
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, DateTime, ForeignKey, Integer, String, Text, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from chaodipi.server.store import Base, Store
from chaodipi.tournament.event import Entry, Event, EventError, Standing

__all__ = ["EventRow", "EventStore", "EventSummary", "UnknownEventError"]


class UnknownEventError(EventError):
    """No event has this id."""


class EventRow(Base):
    """An event: its name and options (JSON), organiser, status and log length (``version``)."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(80))
    format: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text)
    organiser_id: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the account (None: the command line)
    organiser: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))  # registering, running, finished
    version: Mapped[int] = mapped_column(Integer)  # the log's last entry
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EventLogRow(Base):
    """One entry of an event's log: number ``seq`` (1, 2, … with no gap), when, who, what."""

    __tablename__ = "event_log"

    event_id: Mapped[int] = mapped_column(Integer, ForeignKey("events.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[str] = mapped_column(String(40))
    by: Mapped[str] = mapped_column(String(32))
    op: Mapped[str] = mapped_column(String(16))
    data: Mapped[str] = mapped_column(Text)


class EventPairRow(Base):
    """A registered pair, as the log has it now."""

    __tablename__ = "event_pairs"

    event_id: Mapped[int] = mapped_column(Integer, ForeignKey("events.id", ondelete="CASCADE"), primary_key=True)
    pair_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(48))
    club: Mapped[str] = mapped_column(String(48))
    players: Mapped[str] = mapped_column(Text)  # JSON: [{name, account, bot}, …]
    withdrawn: Mapped[bool] = mapped_column(Boolean)
    out_round: Mapped[int | None] = mapped_column(Integer, nullable=True)


class EventPairingRow(Base):
    """A round's pairing at one table: the two pairs, why, its online table and its result (JSON)."""

    __tablename__ = "event_pairings"

    event_id: Mapped[int] = mapped_column(Integer, ForeignKey("events.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    session: Mapped[int] = mapped_column(Integer)
    pair_a: Mapped[int] = mapped_column(Integer)
    pair_b: Mapped[int | None] = mapped_column(Integer, nullable=True)
    why: Mapped[str] = mapped_column(Text)
    online_table: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    status: Mapped[str] = mapped_column(String(16))  # the round's status
    result: Mapped[str] = mapped_column(Text)  # JSON: {games, result}


class EventPenaltyRow(Base):
    """A referee's penalty."""

    __tablename__ = "event_penalties"

    event_id: Mapped[int] = mapped_column(Integer, ForeignKey("events.id", ondelete="CASCADE"), primary_key=True)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)
    pair_id: Mapped[int] = mapped_column(Integer)
    offence: Mapped[str] = mapped_column(String(24))
    cards: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    levels: Mapped[int] = mapped_column(Integer)
    warning: Mapped[bool] = mapped_column(Boolean)
    game_lost: Mapped[bool] = mapped_column(Boolean)
    game: Mapped[int] = mapped_column(Integer)
    note: Mapped[str] = mapped_column(Text)
    by: Mapped[str] = mapped_column(String(32))
    at: Mapped[str] = mapped_column(String(40))


class EventStandingRow(Base):
    """A pair's line of the standings, as the log gives them now."""

    __tablename__ = "event_standings"

    event_id: Mapped[int] = mapped_column(Integer, ForeignKey("events.id", ondelete="CASCADE"), primary_key=True)
    pair_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rank: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    margin: Mapped[int] = mapped_column(Integer)
    buchholz: Mapped[int] = mapped_column(Integer)
    played: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)
    lost: Mapped[int] = mapped_column(Integer)
    byes: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))


@dataclass(frozen=True, slots=True)
class EventSummary:
    """An event's line in the list of events."""

    id: int
    name: str
    format: str
    status: str
    organiser: str
    version: int
    created_at: datetime
    pairs: int
    round: int

    def to_json(self) -> dict[str, Any]:
        """The line as ``GET /api/events`` lists it."""
        return {
            "id": self.id,
            "name": self.name,
            "format": self.format,
            "status": self.status,
            "organiser": self.organiser,
            "version": self.version,
            "created_at": self.created_at.isoformat(),
            "pairs": self.pairs,
            "round": self.round,
        }


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class EventStore:
    """Events on the server's database (:class:`~chaodipi.server.store.Store`'s engine)."""

    RETRIES = 20

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine
        self._cache: dict[int, Event] = {}  # each event as this process last read it (never changed in place)
        self._shown: dict[int, tuple[int, dict[bool, dict[str, Any]]]] = {}  # its pages' JSON at that version
        self._lock = threading.Lock()

    # -- reading -------------------------------------------------------------------------------------
    def entries(self, event_id: int, after: int = 0) -> list[Entry]:
        """The event's log from entry ``after + 1`` on."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(EventLogRow.seq, EventLogRow.at, EventLogRow.by, EventLogRow.op, EventLogRow.data)
                .where(EventLogRow.event_id == event_id, EventLogRow.seq > after)
                .order_by(EventLogRow.seq)
            ).all()
        return [Entry(r.seq, r.at, r.by, r.op, json.loads(r.data)) for r in rows]

    def version(self, event_id: int) -> int:
        """How many entries the event's log holds (:class:`UnknownEventError` for no such event)."""
        with self.engine.connect() as c:
            v = c.execute(select(EventRow.version).where(EventRow.id == event_id)).scalar_one_or_none()
        if v is None:
            raise UnknownEventError(f"no event {event_id}")
        return v

    def current(self, event_id: int) -> Event:
        """The event as its log has it now, shared by this process's readers: do not change it (:meth:`load`
        gives a copy to change). One query (the log's length) when nothing changed since the last call."""
        version = self.version(event_id)
        with self._lock:
            cached = self._cache.get(event_id)
        if cached is not None and cached.version == version:
            return cached
        known = cached.log if cached is not None and cached.version < version else []
        event = Event.replay([*known, *self.entries(event_id, after=len(known))])
        with self._lock:
            self._cache[event_id] = event
            self._shown.pop(event_id, None)
        return event

    def load(self, event_id: int) -> Event:
        """The event as its log has it now: a copy of its own, to apply an entry to."""
        return Event.replay(self.current(event_id).log)

    def shown(self, event_id: int, *, staff: bool) -> tuple[Event, dict[str, Any]]:
        """The event (shared, read-only) and :meth:`Event.to_json` of it, computed once per change and kind
        of reader (the public, or its organiser and referees): a page polling every few seconds costs one query."""
        event = self.current(event_id)
        with self._lock:
            shown = self._shown.setdefault(event_id, (event.version, {}))
            if shown[0] != event.version:
                shown = self._shown[event_id] = (event.version, {})
            body = shown[1].get(staff)
        if body is None:
            body = event.to_json(staff=staff)
            with self._lock:
                shown[1][staff] = body
        return event, body

    def summaries(self) -> list[EventSummary]:
        """Every event, newest first."""
        with self.engine.connect() as c:
            t = EventRow.__table__
            rows = c.execute(select(t).order_by(t.c.id.desc())).all()
            counts: dict[int, int] = {}
            for eid, n in c.execute(select(EventPairRow.event_id, EventPairRow.pair_id)).all():
                counts[eid] = max(counts.get(eid, 0), n)
            rounds: dict[int, int] = {}
            for eid, n in c.execute(select(EventPairingRow.event_id, EventPairingRow.round)).all():
                rounds[eid] = max(rounds.get(eid, 0), n)
        return [
            EventSummary(
                r.id,
                r.name,
                r.format,
                r.status,
                r.organiser,
                r.version,
                r.created_at,
                counts.get(r.id, 0),
                rounds.get(r.id, 0),
            )
            for r in rows
        ]

    def stored_standings(self, event_id: int) -> list[Standing]:
        """The standings as stored beside the log (in rank order)."""
        with self.engine.connect() as c:
            t = EventStandingRow.__table__
            rows = c.execute(select(t).where(t.c.event_id == event_id).order_by(t.c.rank)).all()
            return [
                Standing(r.rank, r.pair_id, r.points, r.margin, r.buchholz, r.played, r.won, r.lost, r.byes, r.status)
                for r in rows
            ]

    def event_of_table(self, online_table: int) -> tuple[int, int, int] | None:
        """(event, round, table number) of the pairing played at this online table, or None."""
        with self.engine.connect() as c:
            row = c.execute(
                select(EventPairingRow.event_id, EventPairingRow.round, EventPairingRow.table_no).where(
                    EventPairingRow.online_table == online_table
                )
            ).first()
        return None if row is None else (row[0], row[1], row[2])

    def playing(self) -> list[int]:
        """The events with a round being played."""
        with self.engine.connect() as c:
            return list(
                c.execute(
                    select(EventPairingRow.event_id).where(EventPairingRow.status == "playing").distinct()
                ).scalars()
            )

    # -- writing -------------------------------------------------------------------------------------
    def create(self, options: Mapping[str, Any], organiser: tuple[int | None, str]) -> int:
        """A new event with these options (:class:`~chaodipi.tournament.event.EventOptions`); returns its id.
        Without a ``seed`` the event gets a random one (its draws are made from it, and it is in its log)."""
        if isinstance(options, Mapping) and "seed" not in options:
            options = {**options, "seed": secrets.randbits(62)}  # the draws' seed, logged with the event
        event = Event()
        entry = event.apply("create", options, by=organiser[1])
        now = datetime.now(UTC)
        with self.engine.begin() as c:
            eid = c.execute(
                insert(EventRow)
                .values(
                    name=event.opts.name,
                    format=event.opts.format.value,
                    options=_json(event.opts.to_json()),
                    organiser_id=organiser[0],
                    organiser=organiser[1],
                    status=event.status,
                    version=0,
                    created_at=now,
                    updated_at=now,
                )
                .returning(EventRow.id)
            ).scalar_one()
            self._write(c, eid, event, entry)
        return int(eid)

    def append(self, event_id: int, op: str, data: Mapping[str, Any], *, by: str) -> Event:
        """Check ``op`` against the event as its log has it now and append it; returns the event after it.

        Raises :class:`EventError` (nothing stored) when the event refuses it."""
        for _ in range(self.RETRIES):
            event = self.load(event_id)
            entry = event.apply(op, data, by=by)
            try:
                with self.engine.begin() as c:
                    self._write(c, event_id, event, entry)
            except IntegrityError:
                continue  # another writer took this number: look again
            return event
        raise EventError(f"event {event_id} is changing too fast: try again")

    def _write(self, c: Connection, event_id: int, event: Event, entry: Entry) -> None:
        """Append ``entry`` and rewrite what the log gives, in the caller's transaction."""
        moved = c.execute(
            update(EventRow)
            .where(EventRow.id == event_id, EventRow.version == entry.seq - 1)
            .values(version=entry.seq, status=event.status, updated_at=datetime.now(UTC))
        ).rowcount
        if moved != 1:
            raise IntegrityError("event version moved", None, ValueError("stale"))
        c.execute(
            insert(EventLogRow).values(
                event_id=event_id, seq=entry.seq, at=entry.at, by=entry.by, op=entry.op, data=_json(entry.data)
            )
        )
        for table in (EventPairRow, EventPairingRow, EventPenaltyRow, EventStandingRow):
            c.execute(delete(table).where(table.event_id == event_id))
        if event.pairs:
            c.execute(
                insert(EventPairRow),
                [
                    {
                        "event_id": event_id,
                        "pair_id": p.id,
                        "name": p.name,
                        "club": p.club,
                        "players": _json([x.to_json() for x in p.players]),
                        "withdrawn": p.withdrawn,
                        "out_round": p.out,
                    }
                    for p in event.pairs.values()
                ],
            )
        rows = []
        for rnd in event.rounds:
            shown = event.round_json(rnd)
            for p, js in zip(rnd.pairings, shown["pairings"], strict=True):
                rows.append(
                    {
                        "event_id": event_id,
                        "round": rnd.number,
                        "table_no": p.table,
                        "session": p.session,
                        "pair_a": p.a,
                        "pair_b": p.b,
                        "why": p.why,
                        "online_table": p.online_table,
                        "status": rnd.status,
                        "result": _json({"games": js["games"], "result": js["result"]}),
                    }
                )
        if rows:
            c.execute(insert(EventPairingRow), rows)
        if event.penalties:
            c.execute(
                insert(EventPenaltyRow),
                [
                    {
                        "event_id": event_id,
                        "id": x.id,
                        "round": x.round,
                        "table_no": x.table,
                        "pair_id": x.pair,
                        "offence": x.offence,
                        "cards": x.cards,
                        "points": x.points,
                        "levels": x.levels,
                        "warning": x.warning,
                        "game_lost": x.game_lost,
                        "game": x.game,
                        "note": x.note,
                        "by": x.by,
                        "at": x.at,
                    }
                    for x in event.penalties
                ],
            )
        standings = event.standings()
        if standings:
            c.execute(
                insert(EventStandingRow),
                [
                    {"event_id": event_id, "pair_id": s.pair, **{k: v for k, v in s.to_json().items() if k != "pair"}}
                    for s in standings
                ],
            )
