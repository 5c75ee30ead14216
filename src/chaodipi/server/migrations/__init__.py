"""Alembic migrations of the server's database (run by :func:`chaodipi.server.store.migrate`)."""
