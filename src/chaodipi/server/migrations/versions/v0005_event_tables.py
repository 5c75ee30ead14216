"""Tables for events (tournaments, issue 23): a game time limit, best-of-three, reserved seats, an event tag,
and each finished game's outcome.

On ``tables``: ``event_id`` (the tournament event a table belongs to; None for the lobby's tables),
``game_minutes`` (each game's time limit, RULES §14.2; 0: none), ``best_of`` (1 or 3: the games the table
plays), ``game_ends_at`` (when the current game's time runs out; None: no limit or no game yet) and
``time_up_game`` (the number of the game whose time ran out, while it is the current one). New tables:
``reserved_seats`` (a seat kept for an account, or given to a bot, when the table was made) and
``table_games`` (one row per finished game at any table: the winning team, both teams' progress, whether
the time decided it, its hands). Tables already stored get no limit, one game, no event; the finished
games already stored get no ``table_games`` row (their results are in ``game_players``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-10
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns of ``tables`` (defaults for every table there) and create the two new tables."""
    op.add_column("tables", sa.Column("event_id", sa.Integer(), nullable=True))
    op.add_column("tables", sa.Column("game_minutes", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("tables", sa.Column("best_of", sa.SmallInteger(), nullable=False, server_default="1"))
    op.add_column("tables", sa.Column("game_ends_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tables", sa.Column("time_up_game", sa.Integer(), nullable=True))
    op.create_index("ix_tables_event", "tables", ["event_id"])
    op.create_table(
        "reserved_seats",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.SmallInteger(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("name", sa.String(32), nullable=False),  # the account's username, or the bot's seat name
        sa.Column("bot", sa.String(16), nullable=True),  # a bot's name (then no account)
        sa.CheckConstraint("seat BETWEEN 0 AND 3", name="ck_reserved_seats_seat"),
        sa.CheckConstraint("(account_id IS NULL) <> (bot IS NULL)", name="ck_reserved_seats_who"),
    )
    op.create_table(
        "table_games",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.Integer(), primary_key=True),
        sa.Column("winner", sa.SmallInteger(), nullable=False),  # team 0: seats 0 and 2; team 1: seats 1 and 3
        sa.Column("level_0", sa.String(8), nullable=False),  # team 0's level at the end ("2".."A" or "flag")
        sa.Column("circle_0", sa.Integer(), nullable=False),
        sa.Column("level_1", sa.String(8), nullable=False),
        sa.Column("circle_1", sa.Integer(), nullable=False),
        sa.Column("by_time", sa.Boolean(), nullable=False),  # the game's time ran out (RULES §14.2)
        sa.Column("hands", sa.Integer(), nullable=False),  # hands dealt in the game, redeals included
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("winner IN (0, 1)", name="ck_table_games_winner"),
    )


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_table("table_games")
    op.drop_table("reserved_seats")
    op.drop_index("ix_tables_event", "tables")
    with op.batch_alter_table("tables") as batch:
        for column in ("time_up_game", "game_ends_at", "best_of", "game_minutes", "event_id"):
            batch.drop_column(column)
