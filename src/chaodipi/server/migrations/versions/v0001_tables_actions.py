"""Tables, their hands' deals and their accepted actions.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``tables``, ``hands`` and ``actions``."""
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.CheckConstraint("status IN ('waiting', 'playing', 'finished')", name="ck_tables_status"),
        sa.CheckConstraint("last_seq >= 0", name="ck_tables_last_seq"),
        sa.CheckConstraint("hand_number >= 0", name="ck_tables_hand_number"),
    )
    op.create_table(
        "hands",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("number", sa.Integer(), primary_key=True),
        sa.Column("first_seat", sa.SmallInteger(), nullable=False),
        sa.Column("deal", sa.String(216), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("first_seat BETWEEN 0 AND 3", name="ck_hands_first_seat"),
        sa.CheckConstraint("number >= 1", name="ck_hands_number"),
    )
    op.create_table(
        "actions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id", "hand_number"], ["hands.table_id", "hands.number"], name="fk_actions_hand", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("table_id", "seq", name="uq_actions_table_seq"),
        sa.CheckConstraint("seq >= 1", name="ck_actions_seq"),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("actions")
    op.drop_table("hands")
    op.drop_table("tables")
