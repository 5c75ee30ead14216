"""Schema changes upgrade a database with games in it (issue 21): the stored games still replay.

``tests/data/v0002-games.sqlite`` was made by the code before accounts (schema revision 0002, commit
4bfa161): three tables played by a guest and rules bots through the store — a finished 暗炒 game, a
明炒 game three hands in, and a finished game of the standard preset. The test upgrades a copy to the
newest revision (SQLite, and the run's PostgreSQL, tests/conftest.py's ``postgres_url``: the same rows
are written into a schema at revision 0002 first) and checks that nothing stored was lost, that every game replays, that
each table got its room and the players of its games, and that a server starts on it and plays on.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import MetaData, create_engine, insert, select, text

from chaodipi.record import replay
from chaodipi.server.store import Store, alembic_config, migrate
from chaodipi.view import Phase
from conftest import DATABASES, pg_schema, schema_url

FIXTURE = Path(__file__).parent / "data" / "v0002-games.sqlite"
OLD_TABLES = ("tables", "hands", "actions", "seats")


def _counts(url: str) -> dict[str, int]:
    engine = create_engine(url)
    with engine.connect() as c:
        out = {t: int(c.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()) for t in OLD_TABLES}
    engine.dispose()
    return out


def _old_database(kind: str, request: pytest.FixtureRequest, tmp_path: Path, stack: Any) -> str:
    """A database at revision 0002 holding the fixture's rows; its URL."""
    if kind == "sqlite":
        path = tmp_path / "old.sqlite"
        shutil.copy(FIXTURE, path)
        return f"sqlite:///{path}"
    base = request.getfixturevalue("postgres_url")
    url = schema_url(base, stack.enter_context(pg_schema(base, "mig")))
    engine = create_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0002")
    source = sqlite3.connect(FIXTURE)
    meta = MetaData()
    meta.reflect(engine, only=list(OLD_TABLES))
    with engine.begin() as c:
        for name in OLD_TABLES:
            cursor = source.execute(f"SELECT * FROM {name}")
            columns = [d[0] for d in cursor.description]
            rows = [dict(zip(columns, r, strict=True)) for r in cursor.fetchall()]
            for row in rows:
                for key in ("auto",):
                    if key in row:
                        row[key] = bool(row[key])
            if rows:
                c.execute(insert(meta.tables[name]), rows)
        c.execute(text("SELECT setval(pg_get_serial_sequence('tables', 'id'), (SELECT max(id) FROM tables))"))
        c.execute(text("SELECT setval(pg_get_serial_sequence('actions', 'id'), (SELECT max(id) FROM actions))"))
    engine.dispose()
    return url


@pytest.mark.parametrize("kind", DATABASES)
def test_a_database_with_games_upgrades_and_its_games_still_replay(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    import contextlib

    with contextlib.ExitStack() as stack:
        url = _old_database(kind, request, tmp_path, stack)
        before = _counts(url)
        assert before == {"tables": 3, "hands": 24, "actions": 1748, "seats": 12}
        migrate(url)
        assert _counts(url) == before  # nothing stored was lost (a SQLite table copy must not cascade)
        store = Store(url)
        try:
            infos = {i.id: i for i in store.list_tables()}
            assert {i: infos[i].room for i in infos} == {1: "anchao", 2: "mingchao", 3: "house"}
            assert all(i.watchers and i.watch_delay == 0 for i in infos.values())
            assert all(i.epoch == 0 for i in infos.values())  # (0004: no claim has moved a lease's epoch yet)
            for table_id in (1, 3):  # finished: their records replay to the same result
                record = store.finished_record(table_id)
                game = replay(record)
                assert game.over and record["winner"] == game.winner
            game = store.rebuild(2)  # three hands in: rebuilt where it stood
            assert len(game.hands) == 3 and game.current is not None and game.current.phase is Phase.OVER
            seats = store.seats(1)
            assert seats[0].name == "玩家甲" and seats[0].account_id is None
            with store.engine.connect() as c:
                players = c.execute(text("SELECT table_id, game, seat, name, bot FROM game_players")).all()
                assert len(players) == 12 and {(p[0], p[1]) for p in players} == {(1, 1), (2, 1), (3, 1)}
                version = c.execute(select(text("version_num")).select_from(text("alembic_version"))).scalar_one()
            assert version == _head()
            assert all(i.event_id is None and i.game_minutes == 0 and i.best_of == 1 for i in infos.values())
            assert all(i.game_ends_at is None and i.time_up_game is None for i in infos.values())  # (0005)
            assert store.game_outcomes(1) == [] and store.reserved(1) == {}
            migrate(url)  # a current database is left as it is
            assert _counts(url) == before
        finally:
            store.close()


def _head() -> str:
    """The newest revision of the migrations."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def test_0005_upgrades_a_database_with_games_and_downgrades_again(tmp_path: Path) -> None:
    """Revision 0005 (an event's tables: time limit, best of three, reserved seats, outcomes) on a database with
    tables and games in it: every stored row is kept, the new columns take their defaults; and back to 0004."""
    path = tmp_path / "old.sqlite"
    shutil.copy(FIXTURE, path)
    url = f"sqlite:///{path}"
    before = _counts(url)
    engine = create_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")
    assert _counts(url) == before
    with engine.connect() as c:
        rows = c.execute(text("SELECT event_id, game_minutes, best_of, game_ends_at, time_up_game FROM tables")).all()
        assert [tuple(r) for r in rows] == [(None, 0, 1, None, None)] * 3
        assert c.execute(text("SELECT count(*) FROM table_games")).scalar_one() == 0
        assert c.execute(text("SELECT count(*) FROM reserved_seats")).scalar_one() == 0
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0004")
    assert _counts(url) == before
    with engine.connect() as c:
        columns = {r[1] for r in c.execute(text("PRAGMA table_info(tables)")).all()}
        assert "event_id" not in columns and "game_minutes" not in columns
        names = {r[0] for r in c.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'")).all()}
        assert "table_games" not in names and "reserved_seats" not in names
    engine.dispose()
    migrate(url)  # and up to the newest again
    assert _counts(url) == before


def test_a_server_starts_on_the_upgraded_database_and_plays_on(tmp_path: Path) -> None:
    """The unfinished 明炒 game (table 2) is claimed, rebuilt and carries on under the new code."""
    import asyncio

    import httpx

    from server_helpers import FAST, running_server

    path = tmp_path / "old.sqlite"
    shutil.copy(FIXTURE, path)
    url = f"sqlite:///{path}"

    async def main() -> None:
        async with running_server(url, **FAST) as base, httpx.AsyncClient(base_url=base) as http:
            lobby = (await http.get("/api/rooms")).json()
            rooms = {r["room"]: r for r in lobby["rooms"]}
            assert [t["id"] for t in rooms["mingchao"]["tables"]] == [2]
            for _ in range(400):  # the guest's seat is played by the clock; the game goes on
                table = (await http.get("/api/tables/2")).json()
                if table["hand"] > 3:
                    break
                await asyncio.sleep(0.05)
            assert table["hand"] > 3

    asyncio.run(main())
