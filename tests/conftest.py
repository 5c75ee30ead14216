"""Shared helpers for the engine tests."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from chaodipi.cards import Card, Rank, parse_cards
from chaodipi.hand import Hand, TrustedChecks
from chaodipi.rules import RuleSet
from chaodipi.settlement import Progress
from chaodipi.trump import TrumpOrder, parse_trump

# The tests run the trusted playout path in its debug mode: every play it skips checking is checked
# after all, and an illegal one fails loudly (TrustedPlayError). Servers the tests start inherit it.
TrustedChecks.on = True
os.environ["CHAODIPI_CHECK_TRUSTED"] = "1"

#: ``make soak`` sets CHAODIPI_SOAK=1: the slow tests then run their full counts.
SOAK = os.environ.get("CHAODIPI_SOAK", "") not in ("", "0")


#: ``make unit-fast`` sets CHAODIPI_EXPECT_COMPILED=1: the run is meant for the mypyc build (make fast).
EXPECT_COMPILED = os.environ.get("CHAODIPI_EXPECT_COMPILED", "") not in ("", "0")


def pytest_sessionstart(session: pytest.Session) -> None:
    """In a run meant for the compiled build, stop at once if the engine imported is the pure Python one.

    (Under pytest's default import mode a test path inside ``src/`` puts ``src/`` first on sys.path, and the
    pure sources would be tested instead of the compiled package.)
    """
    if not EXPECT_COMPILED:
        return
    import importlib
    import importlib.machinery

    pure = []
    for name in ("cards", "trump", "units", "play", "trick", "log", "referee", "bots.search_bot", "hand", "game"):
        module = importlib.import_module(f"chaodipi.{name}")
        if not str(module.__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            pure.append(f"chaodipi.{name} from {module.__file__}")
    if pure:
        raise pytest.UsageError("CHAODIPI_EXPECT_COMPILED=1, but not compiled: " + "; ".join(pure))


def soak(quick: int, full: int) -> int:
    """A soak test's count: ``quick`` in ``make test``, ``full`` in ``make soak``."""
    return full if SOAK else quick


def order(rules: str | RuleSet | dict[str, object], level: str, trump: str) -> TrumpOrder:
    """A TrumpOrder from referee-style arguments: order("standard", "8", "s")."""
    rs = RuleSet.from_spec(rules)
    flag, suit = parse_trump(trump)
    if flag:
        return TrumpOrder.of(rs, None, None)
    return TrumpOrder.of(rs, Rank.parse(level), suit)


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def deck_for(
    hands: dict[int, str], kitty: str = "", *, first_seat: int = 0, seed: int = 0, flag: bool = False
) -> list[Card]:
    """A 108-card dealing order that gives each seat the named cards (the rest filled at random)."""
    import random

    per = 27 if flag else 25
    want = {s: parse_cards(t) for s, t in hands.items()}
    pool = [c for c in Card.ALL for _ in (0, 1)]
    for cards in [*want.values(), parse_cards(kitty)]:
        for c in cards:
            pool.remove(c)
    random.Random(seed).shuffle(pool)
    full = {}
    for s in range(4):
        got = list(want.get(s, []))
        while len(got) < per:
            got.append(pool.pop())
        full[s] = got
    rest_kitty = parse_cards(kitty) + pool
    deck: list[Card] = []
    for i in range(per * 4):
        seat = (first_seat + i) % 4
        deck.append(full[seat][i // 4])
    return deck + rest_kitty


def new_hand(
    preset: str | dict[str, object],
    hands: dict[int, str],
    kitty: str = "",
    *,
    dealer: int | None = 0,
    first_seat: int = 0,
    level: Rank = Rank.TWO,
    scoring: Rank | None = None,
    flag: bool = False,
    flag_failures: int = 0,
) -> Hand:
    """A hand whose seats are dealt the named cards (and the kitty ends with ``kitty``'s cards first).

    ``scoring`` is the scoring side's level (the dealer side's ``level`` when left out, or 2 in a
    flag hand); ``flag`` makes the dealer side's level ``flag`` (扛旗).
    """
    rules = RuleSet.from_spec(preset)
    deck = deck_for(hands, kitty, first_seat=first_seat, flag=flag)
    return Hand(
        rules,
        deck,
        first_seat=first_seat,
        dealer=dealer,
        dealer_progress=Progress(rules.circles if flag else 1, None if flag else level),
        scoring_progress=Progress(1, scoring or (Rank.TWO if flag else level)),
        flag_failures=flag_failures,
    )


#: The server's storage and end-to-end tests run on PostgreSQL too when this names one (``.ci/run`` sets it).
PG_URL = os.environ.get("CHAODIPI_TEST_PG", "")
#: The databases a server test runs on: SQLite always; PostgreSQL when CHAODIPI_TEST_PG is set (else skipped).
DATABASES = [
    "sqlite",
    pytest.param(
        "postgresql",
        marks=pytest.mark.skipif(
            not PG_URL, reason="PostgreSQL tests run only when CHAODIPI_TEST_PG holds a postgresql+psycopg:// URL"
        ),
    ),
]


@contextlib.contextmanager
def pg_schema(prefix: str = "t") -> Iterator[str]:
    """A fresh PostgreSQL schema in the CHAODIPI_TEST_PG database, dropped afterwards; yields its name."""
    from sqlalchemy import create_engine, text

    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    admin = create_engine(PG_URL)
    with admin.begin() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield schema
    finally:
        with admin.begin() as c:
            c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database: an SQLite file, or a PostgreSQL schema of the test's own (dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/chaodipi.db"
        return
    with pg_schema() as schema:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
