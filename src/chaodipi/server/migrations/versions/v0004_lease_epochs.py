"""Fencing tokens: each table's lease has an epoch, moved on by every claim (issue 22).

A process that claims a table gets the table's next epoch and names it with every write; the store
refuses a write that names an older one, so a process that stalled and lost its lease can never
append another action to the table. Tables already stored start at epoch 0 (adding a column with a
default keeps every row: no table copy on PostgreSQL, nothing cascades on SQLite).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``tables.epoch`` (0 for every table already there)."""
    op.add_column("tables", sa.Column("epoch", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    """Drop ``tables.epoch``."""
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("epoch")
