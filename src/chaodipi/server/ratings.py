"""Ratings per room, for partnerships: openskill's Weng-Lin model (Plackett-Luce) rates ``[[a, c], [b, d]]``.

Each account (bots have accounts of kind ``bot``, so that a new player can see how strong each bot
is) has a rating (μ, σ) in each room, starting at openskill's (25, 25/3); it is shown and ranked
as its **ordinal** μ − 3σ, a value the player is very likely above. A finished game updates the
ratings of its four players at once, in the transaction of the action that ends it, and writes a
``rating_changes`` row per player whose unique key is the game: a game is rated once.

Decision: who is rated is who sat down when the game began (``game_players``). A guest (no
account) counts as a new player and is not stored. A player who left the game 逃跑 is rated at
once, as if their side had lost, whatever the bot that plays on for them does; their partner gets
the game's real result when it ends.

>>> a, b = new_rating(), new_rating()
>>> after = rate([[a, b], [new_rating(), new_rating()]], winner=0)
>>> after[0][0].mu > 25 > after[1][0].mu, round(after[0][0].ordinal, 2)
(True, 2.43)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Boolean, DateTime, Float, Integer, String, column, func, insert, select, table, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from chaodipi.server.ledger import PAGE, LedgerRow, _insert_ignoring
from chaodipi.server.store import Base

__all__ = [
    "SORTS",
    "Rating",
    "RatingChangeRow",
    "RatingRow",
    "bot_account",
    "leaderboard",
    "new_rating",
    "rate",
    "rate_game",
    "ratings_of",
]

_MODEL = PlackettLuce()
#: How a leaderboard may be sorted.
SORTS = ("rating", "credits", "games", "winrate")


@dataclass(frozen=True, slots=True)
class Rating:
    """A rating: mean skill μ and its uncertainty σ."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """μ − 3σ: what is shown and ranked (a player is about 99.7 % sure to be above it)."""
        return self.mu - 3 * self.sigma


def new_rating() -> Rating:
    """A new player's rating: openskill's (25, 25/3)."""
    r = _MODEL.rating()
    return Rating(float(r.mu), float(r.sigma))


def rate(teams: Sequence[Sequence[Rating]], winner: int) -> list[list[Rating]]:
    """The ratings of two teams after a game that team ``winner`` (0 or 1) won."""
    model_teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in teams]
    ranks = [0.0, 1.0] if winner == 0 else [1.0, 0.0]
    out = _MODEL.rate(model_teams, ranks=ranks)
    return [[Rating(float(r.mu), float(r.sigma)) for r in team] for team in out]


class RatingRow(Base):
    """An account's rating in a room, with its games and wins there."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    room: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingChangeRow(Base):
    """One game's change to one account's rating (``key``: the game and the account, unique)."""

    __tablename__ = "rating_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(96), unique=True)
    account_id: Mapped[int] = mapped_column(Integer)
    room: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[int] = mapped_column(Integer)
    game: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


def rate_game(
    connection: Connection,
    table_id: int,
    game: int,
    room: str,
    accounts: Sequence[int | None],
    winner: int,
    *,
    escaped: Collection[int] = (),
    only: Collection[int] | None = None,
) -> int:
    """Rate game ``game`` of the table once (again: nothing changes); returns how many ratings moved.

    ``accounts``: each seat's account when the game began (None: a guest, rated as new and not kept);
    ``winner``: the winning team (seats 0 and 2 are team 0); ``escaped``: seats whose player left the game;
    ``only``: rate these seats alone (a player who leaves is rated at once, the others when the game ends).
    """
    keys = {
        seat: f"game:{table_id}:{game}:{account}"
        for seat, account in enumerate(accounts)
        if account is not None and (only is None or seat in only)
    }
    if not keys:
        return 0
    before: list[Rating] = []
    rows: list[Any] = []
    for account in accounts:
        row = None
        if account is not None:
            row = connection.execute(
                select(RatingRow.mu, RatingRow.sigma, RatingRow.games, RatingRow.wins).where(
                    RatingRow.account_id == account, RatingRow.room == room
                )
            ).first()
        rows.append(row)
        before.append(new_rating() if row is None else Rating(row.mu, row.sigma))
    teams = [[before[0], before[2]], [before[1], before[3]]]
    played = rate(teams, winner)
    lost = {team: rate(teams, 1 - team) for team in {seat % 2 for seat in escaped}}  # what a leaver is given
    now = datetime.now(UTC)
    moved = 0
    done: set[int | None] = set()  # (one bot account may sit in several seats: it is rated once a game)
    for seat, account in enumerate(accounts):
        if seat not in keys or account in done:
            continue
        done.add(account)
        team, place = seat % 2, seat // 2
        won = team == winner and seat not in escaped
        after = lost[team][team][place] if seat in escaped else played[team][place]
        change = {
            "key": keys[seat],
            "account_id": account,
            "room": room,
            "table_id": table_id,
            "game": game,
            "won": won,
            "mu_before": before[seat].mu,
            "sigma_before": before[seat].sigma,
            "mu_after": after.mu,
            "sigma_after": after.sigma,
            "created_at": now,
        }
        if _insert_ignoring(connection, RatingChangeRow, [change], "key") == 0:
            continue  # rated already (its key is there): once only
        values = {"mu": after.mu, "sigma": after.sigma, "ordinal": after.ordinal, "updated_at": now}
        old = rows[seat]
        if old is None:
            connection.execute(
                insert(RatingRow).values(account_id=account, room=room, games=1, wins=int(won), **values)
            )
        else:
            connection.execute(
                update(RatingRow)
                .where(RatingRow.account_id == account, RatingRow.room == room)
                .values(games=old.games + 1, wins=old.wins + int(won), **values)
            )
        moved += 1
    return moved


def ratings_of(connection: Connection, account_id: int) -> list[dict[str, Any]]:
    """An account's rating in each room it played in."""
    return [
        {
            "room": r.room,
            "mu": round(r.mu, 3),
            "sigma": round(r.sigma, 3),
            "ordinal": round(r.ordinal, 3),
            "games": r.games,
            "wins": r.wins,
        }
        for r in connection.execute(
            select(RatingRow).where(RatingRow.account_id == account_id).order_by(RatingRow.room)
        )
    ]


_ACCOUNTS = table(
    "accounts",
    column("id", Integer),
    column("username", String),
    column("username_key", String),
    column("kind", String),
    column("password_hash", String),
    column("created_at", DateTime),
)


def bot_account(connection: Connection, bot: str) -> int:
    """The account a bot is rated under (made the first time): kind ``bot``, no password, so nobody logs in
    as it; its key ``bot:<name>`` is one no person's name can have (``:`` is not allowed in names)."""
    key = f"bot:{bot}"
    found = connection.scalar(select(_ACCOUNTS.c.id).where(_ACCOUNTS.c.username_key == key))
    if found is not None:
        return int(found)
    try:
        with connection.begin_nested():  # (another table may make it at the same moment: then that one stands)
            connection.execute(
                insert(_ACCOUNTS).values(
                    username=bot, username_key=key, kind="bot", password_hash=None, created_at=datetime.now(UTC)
                )
            )
    except IntegrityError:
        pass
    return int(connection.scalar(select(_ACCOUNTS.c.id).where(_ACCOUNTS.c.username_key == key)) or 0)


def leaderboard(connection: Connection, room: str, sort: str = "rating", page: int = 1) -> dict[str, Any]:
    """One page of a room's leaderboard: every account rated there, by rating (ordinal), credits, games or win rate.

    Credits are the sums of the ledger's rows in that room (bots have none: None).
    """
    credits = (
        select(LedgerRow.account_id.label("account_id"), func.sum(LedgerRow.amount).label("credits"))
        .where(LedgerRow.room == room)
        .group_by(LedgerRow.account_id)
        .subquery()
    )
    win_rate = RatingRow.wins * 1.0 / func.nullif(RatingRow.games, 0)
    orders: dict[str, list[Any]] = {
        "rating": [RatingRow.ordinal.desc()],
        "credits": [func.coalesce(credits.c.credits, 0).desc(), RatingRow.ordinal.desc()],
        "games": [RatingRow.games.desc(), RatingRow.ordinal.desc()],
        "winrate": [func.coalesce(win_rate, 0).desc(), RatingRow.games.desc(), RatingRow.ordinal.desc()],
    }
    order = orders[sort]
    base = (
        select(
            _ACCOUNTS.c.username,
            _ACCOUNTS.c.kind,
            RatingRow.mu,
            RatingRow.sigma,
            RatingRow.ordinal,
            RatingRow.games,
            RatingRow.wins,
            credits.c.credits,
        )
        .join(_ACCOUNTS, _ACCOUNTS.c.id == RatingRow.account_id)
        .outerjoin(credits, credits.c.account_id == RatingRow.account_id)
        .where(RatingRow.room == room)
    )
    total = int(connection.scalar(select(func.count()).select_from(RatingRow).where(RatingRow.room == room)) or 0)
    rows = connection.execute(base.order_by(*order, _ACCOUNTS.c.username).limit(PAGE).offset((page - 1) * PAGE)).all()
    return {
        "room": room,
        "sort": sort,
        "page": page,
        "pages": max(1, -(-total // PAGE)),
        "total": total,
        "rows": [
            {
                "rank": (page - 1) * PAGE + k,
                "username": r.username,
                "kind": r.kind,
                "ordinal": round(r.ordinal, 3),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "games": r.games,
                "wins": r.wins,
                "win_rate": round(r.wins / r.games, 4) if r.games else None,
                "credits": None if r.kind == "bot" else int(r.credits or 0),
            }
            for k, r in enumerate(rows, 1)
        ],
    }
