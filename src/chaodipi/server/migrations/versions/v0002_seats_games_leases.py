"""Seats, games after games at one table, stored deadlines and table ownership (leases).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``seats``; a table's name, game number, deadline and owner; each hand's game."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("name", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("game", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("owner", sa.String(64), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_check_constraint("ck_tables_game", "game >= 1")
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("game", sa.Integer(), nullable=False, server_default="1"))
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.SmallInteger(), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("bot", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("auto", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("seat BETWEEN 0 AND 3", name="ck_seats_seat"),
        sa.CheckConstraint("kind IN ('player', 'bot')", name="ck_seats_kind"),
    )
    op.create_index("ix_tables_status", "tables", ["status"])


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_index("ix_tables_status", "tables")
    op.drop_table("seats")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("game")
    with op.batch_alter_table("tables") as batch:
        batch.drop_constraint("ck_tables_game", type_="check")
        for column in ("heartbeat_at", "lease_until", "owner", "deadline_at", "game", "name"):
            batch.drop_column(column)
