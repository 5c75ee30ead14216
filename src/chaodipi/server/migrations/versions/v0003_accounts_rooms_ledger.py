"""Accounts and their sessions, rooms, seats held by accounts, the games' players, the credits ledger,
ratings, spectators and chat (issue 21).

A database with games in it upgrades in place: every existing table gets its room from its rules
(``anchao``, ``kangqi`` or ``mingchao`` when they are that preset unchanged, ``house`` otherwise),
spectators allowed and no delay; every existing seat is a guest's or a bot's (no account); the
players of every game already started are written to ``game_players`` from the seats. Nothing of
what was stored changes: its games replay as before.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROOMS = ("anchao", "kangqi", "mingchao")


def _room(rules_text: str) -> str:
    try:
        spec = json.loads(rules_text)
    except ValueError:
        return "house"
    if isinstance(spec, dict) and not spec.get("set") and set(spec) <= {"preset", "set"}:
        spec = spec.get("preset")
    return spec if isinstance(spec, str) and spec in ROOMS else "house"


def upgrade() -> None:
    """Create the new tables, add the new columns, and fill them in for what is stored."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(24), nullable=False),
        sa.Column("username_key", sa.String(24), nullable=False, unique=True),  # NFKC, case-folded
        sa.Column("kind", sa.String(8), nullable=False, server_default="person"),  # person | bot
        sa.Column("password_hash", sa.String(255), nullable=True),  # argon2id; None for a bot
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('person', 'bot')", name="ck_accounts_kind"),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),  # SHA-256 of the cookie's token, never the token
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_account", "sessions", ["account_id"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("room", sa.String(16), nullable=False, server_default="house"))
        batch.add_column(sa.Column("watchers", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("watch_delay", sa.Integer(), nullable=False, server_default="0"))
        batch.create_check_constraint("ck_tables_room", "room IN ('anchao', 'kangqi', 'mingchao', 'house')")
        batch.create_check_constraint("ck_tables_watch_delay", "watch_delay BETWEEN 0 AND 5")
    with op.batch_alter_table("seats") as batch:
        batch.add_column(
            sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id", name="fk_seats_account"), nullable=True)
        )
    op.create_index("ix_tables_room", "tables", ["room", "status"])
    op.create_table(
        "game_players",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.SmallInteger(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("bot", sa.String(16), nullable=True),  # the bot that sat there from the start
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("winner", sa.Boolean(), nullable=True),  # this seat's side won; None while the game goes on
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("seat BETWEEN 0 AND 3", name="ck_game_players_seat"),
    )
    op.create_index("ix_game_players_account", "game_players", ["account_id", "started_at"])
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game", sa.Integer(), nullable=False),
        sa.Column("hand", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("key", sa.String(96), nullable=False, unique=True),  # its cause: never two rows for one
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("reason IN ('hand', 'escape', 'game', 'dark_fry')", name="ck_ledger_reason"),
    )
    op.create_index("ix_ledger_account", "ledger", ["account_id", "id"])
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("room", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),  # mu - 3 sigma, what is shown and sorted by
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_room", "ratings", ["room", "ordinal"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(96), nullable=False, unique=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=True),  # None: a spectator
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("phrase", sa.String(32), nullable=True),  # a quick phrase's code (the text is then empty)
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_chat_table", "chat", ["table_id", "id"])

    # What is stored already: rooms from the rules, and the players of every game begun.
    bind = op.get_bind()
    tables = sa.table("tables", sa.column("id", sa.Integer), sa.column("rules", sa.Text), sa.column("room", sa.String))
    for table_id, rules in bind.execute(sa.select(tables.c.id, tables.c.rules)).all():
        room = _room(rules)
        if room != "house":
            bind.execute(sa.update(tables).where(tables.c.id == table_id).values(room=room))
    now = datetime.now(UTC)
    rows = bind.execute(
        sa.text("SELECT DISTINCT h.table_id, h.game, t.room FROM hands h JOIN tables t ON t.id = h.table_id")
    ).all()
    seats = {
        (r[0], r[1]): (r[2], r[3], r[4])
        for r in bind.execute(sa.text("SELECT table_id, seat, kind, name, bot FROM seats")).all()
    }
    players = sa.table(
        "game_players",
        *(sa.column(c) for c in ("table_id", "game", "seat", "account_id", "name", "bot", "room", "started_at")),
    )
    for table_id, game, room in rows:
        for seat in range(4):
            kind, name, bot = seats.get((table_id, seat), ("bot", f"seat {seat}", "rules"))
            bind.execute(
                sa.insert(players).values(
                    table_id=table_id,
                    game=game,
                    seat=seat,
                    account_id=None,
                    name=name,
                    bot=bot if kind == "bot" else None,
                    room=room,
                    started_at=now,
                )
            )


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_index("ix_chat_table", "chat")
    op.drop_table("chat")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_room", "ratings")
    op.drop_table("ratings")
    op.drop_index("ix_ledger_account", "ledger")
    op.drop_table("ledger")
    op.drop_index("ix_game_players_account", "game_players")
    op.drop_table("game_players")
    op.drop_index("ix_tables_room", "tables")
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint("fk_seats_account", type_="foreignkey")
        batch.drop_column("account_id")
    with op.batch_alter_table("tables") as batch:
        batch.drop_constraint("ck_tables_watch_delay", type_="check")
        batch.drop_constraint("ck_tables_room", type_="check")
        for column in ("watch_delay", "watchers", "room"):
            batch.drop_column(column)
    op.drop_index("ix_sessions_account", "sessions")
    op.drop_table("sessions")
    op.drop_table("accounts")
