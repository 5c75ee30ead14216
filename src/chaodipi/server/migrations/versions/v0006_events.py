"""Tournament events: each event's append-only log, and the pairs, pairings, penalties and standings it
gives (issue 23, chaodipi.tournament.store).

New tables only: a database with tables and games in it upgrades without touching them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _event_id() -> sa.Column[int]:
    return sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id", ondelete="CASCADE"), primary_key=True)


def upgrade() -> None:
    """Create ``events``, ``event_log``, ``event_pairs``, ``event_pairings``, ``event_penalties`` and
    ``event_standings``."""
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("organiser_id", sa.Integer(), nullable=True),
        sa.Column("organiser", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "event_log",
        _event_id(),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("by", sa.String(32), nullable=False),
        sa.Column("op", sa.String(16), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
    )
    op.create_table(
        "event_pairs",
        _event_id(),
        sa.Column("pair_id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(48), nullable=False),
        sa.Column("club", sa.String(48), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.Column("out_round", sa.Integer(), nullable=True),
    )
    op.create_table(
        "event_pairings",
        _event_id(),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("table_no", sa.Integer(), primary_key=True),
        sa.Column("session", sa.Integer(), nullable=False),
        sa.Column("pair_a", sa.Integer(), nullable=False),
        sa.Column("pair_b", sa.Integer(), nullable=True),
        sa.Column("why", sa.Text(), nullable=False),
        sa.Column("online_table", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
    )
    op.create_index("ix_event_pairings_online_table", "event_pairings", ["online_table"])
    op.create_table(
        "event_penalties",
        _event_id(),
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("pair_id", sa.Integer(), nullable=False),
        sa.Column("offence", sa.String(24), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("levels", sa.Integer(), nullable=False),
        sa.Column("warning", sa.Boolean(), nullable=False),
        sa.Column("game_lost", sa.Boolean(), nullable=False),
        sa.Column("game", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("by", sa.String(32), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
    )
    op.create_table(
        "event_standings",
        _event_id(),
        sa.Column("pair_id", sa.Integer(), primary_key=True),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("margin", sa.Integer(), nullable=False),
        sa.Column("buchholz", sa.Integer(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("lost", sa.Integer(), nullable=False),
        sa.Column("byes", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
    )


def downgrade() -> None:
    """Drop the event tables."""
    for name in ("event_standings", "event_penalties", "event_pairings", "event_pairs", "event_log", "events"):
        op.drop_table(name)
