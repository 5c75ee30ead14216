"""Who may serve a database: one process alone, or a platform of several with Redis, never both (issue 22).

- **SQLite** is served by one process: a second ``chaodipi serve`` on the same file is refused (an
  exclusive ``flock`` on ``<file>.lock``, held for the process's life), and so is ``--redis``.
- **PostgreSQL** is served by one process without Redis, or by any number with Redis (a platform):
  a process alone holds PostgreSQL's exclusive advisory lock of the database's schema, each process
  of a platform holds the shared one; so a lone process never runs beside a platform (both would
  claim the same tables and neither would relay to the other), and the refusal says which to start.
"""

from __future__ import annotations

import hashlib
import os
from typing import IO, Any

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

__all__ = ["ServeRefused", "ServingLock", "namespace"]


class ServeRefused(ValueError):
    """This process may not serve the database as asked: another serves it in a way that excludes it."""


def _identity(connection: Connection) -> str:
    """What names the database the tables are in: PostgreSQL's database and schema."""
    row = connection.execute(text("SELECT current_database(), current_schema()")).one()
    return f"{row[0]}/{row[1]}"


def namespace(engine: Engine) -> str:
    """A short name of the database (PostgreSQL: its database and schema) that prefixes the platform's keys in
    Redis, so that platforms on two databases can share one Redis."""
    if engine.dialect.name != "postgresql":
        return hashlib.sha256(str(engine.url).encode()).hexdigest()[:12]
    with engine.connect() as connection:
        return hashlib.sha256(_identity(connection).encode()).hexdigest()[:12]


class ServingLock:
    """The lock that says how this process serves its database (alone, or in a platform), held until released."""

    def __init__(self, engine: Engine, *, platform: bool) -> None:
        self.engine = engine
        self.platform = platform
        self._file: IO[str] | None = None
        self._connection: Connection | None = None

    def acquire(self) -> ServingLock:
        """Take the lock, or raise :class:`ServeRefused` saying what serves the database already."""
        dialect = self.engine.dialect.name
        if dialect == "sqlite":
            self._sqlite()
        elif dialect == "postgresql":
            self._postgresql()
        return self

    def _sqlite(self) -> None:
        path = self.engine.url.database
        if self.platform:
            raise ServeRefused(
                "several server processes need PostgreSQL: an SQLite database is served by one process, "
                "without --redis (start it with --db postgresql+psycopg://… to run several)"
            )
        if not path or path == ":memory:" or path.startswith("file:"):
            return  # a database in memory belongs to this process alone
        import fcntl

        handle = open(f"{os.path.abspath(path)}.lock", "a+", encoding="utf-8")  # noqa: SIM115 (held open)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise ServeRefused(
                f"another chaodipi server already serves {path}: an SQLite database takes one server process; "
                "to run several, put them on PostgreSQL with Redis (--db postgresql+psycopg://… --redis redis://…)"
            ) from None
        self._file = handle

    def _postgresql(self) -> None:
        connection = self.engine.connect()
        try:
            identity = _identity(connection)
            key = int.from_bytes(hashlib.sha256(f"chaodipi:{identity}".encode()).digest()[:8], "big", signed=True)
            fn = "pg_try_advisory_lock_shared" if self.platform else "pg_try_advisory_lock"
            got = connection.execute(text(f"SELECT {fn}(:key)"), {"key": key}).scalar()
            connection.commit()
        except BaseException:
            connection.close()
            raise
        if not got:
            connection.close()
            if self.platform:
                raise ServeRefused(
                    f"a server without Redis serves {identity} alone: stop it, or start it again with --redis, "
                    "before starting more processes on this database"
                )
            raise ServeRefused(
                f"{identity} is served already (by a platform of processes sharing Redis, or by another server "
                "alone): start this one with the same --redis to join the platform"
            )
        self._connection = connection

    def release(self) -> None:
        """Give the lock up (a process's locks also go when it ends, however it ends)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._connection is not None:
            connection, self._connection = self._connection, None
            try:
                connection.invalidate()  # (the session's lock ends with the session: not back to the pool)
                connection.close()
            except Exception:  # pragma: no cover - the connection is gone: so is its lock
                pass

    def __enter__(self) -> ServingLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()
