"""Alembic's environment: runs the migrations on the connection :func:`chaodipi.server.store.migrate` hands it.

There is no ``alembic.ini``: the store configures Alembic in code and passes an open
connection in ``config.attributes["connection"]``, so the URL (and any connect arguments,
such as a PostgreSQL ``search_path``) are the store's.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from chaodipi.server.store import Base


def run_migrations_online() -> None:
    """Run the migrations in the transaction of the connection the store passed."""
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError(
            "chaodipi's migrations run through chaodipi.server.store.migrate(), which passes a connection"
        )
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


# Alembic runs this file by path (under another module name); imported as a module of the
# package (doctest collection, tools) it has nothing to run.
if __name__ != "chaodipi.server.migrations.env":
    if context.is_offline_mode():
        raise RuntimeError("chaodipi's migrations run online only, through chaodipi.server.store.migrate()")
    run_migrations_online()
