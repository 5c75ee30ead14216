"""Shared helpers for the engine tests."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chaodipi.cards import Card, Rank, parse_cards
from chaodipi.hand import Hand, TrustedChecks
from chaodipi.rules import RuleSet
from chaodipi.settlement import Progress
from chaodipi.trump import TrumpOrder, parse_trump
from service_helpers import ServiceError, Services

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


#: The databases a server test runs on: SQLite and PostgreSQL (the run's, ``postgres_url``).
DATABASES = ["sqlite", "postgresql"]

_SERVICES = pytest.StashKey[Services]()
#: The xdist controller gives its workers the folder of the run's servers under this key (``workerinput``).
_SERVICES_KEY = "chaodipi_services"


def pytest_configure(config: pytest.Config) -> None:
    """The run's PostgreSQL and Redis (tests/service_helpers.py): the controller (or a run without xdist) makes the
    folder where the first test that needs one finds or starts it, and its xdist workers are given that folder."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        config.stash[_SERVICES] = Services(Path(workerinput[_SERVICES_KEY]), os.environ)
        return
    config.stash[_SERVICES] = Services(Path(tempfile.mkdtemp(prefix="chaodipi-services-")), os.environ)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:  # a terminated run still stops its servers
        signal.signal(signal.SIGTERM, _interrupted)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist) A worker shares the controller's servers."""
    node.workerinput[_SERVICES_KEY] = str(node.config.stash[_SERVICES].folder)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Where the run's PostgreSQL and Redis came from (the controller's summary: after its workers are done)."""
    if getattr(config, "workerinput", None) is None and _SERVICES in config.stash:
        for line in config.stash[_SERVICES].summary():
            terminalreporter.write_line(f"test services: {line}")


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller stops the servers the run started (also after a failure or an interrupt)."""
    if getattr(config, "workerinput", None) is None and _SERVICES in config.stash:
        config.stash[_SERVICES].stop()


def _service_url(request: pytest.FixtureRequest, key: str) -> str:
    try:
        return request.config.stash[_SERVICES].url(key)
    except ServiceError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def postgres_url(request: pytest.FixtureRequest) -> str:
    """The run's PostgreSQL (a ``postgresql+psycopg://`` URL): CHAODIPI_TEST_PG's, the one at 127.0.0.1:5432, or
    one started for the run (tests/service_helpers.py)."""
    return _service_url(request, "postgres")


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> str:
    """The run's Redis: CHAODIPI_TEST_REDIS's, the one at 127.0.0.1:6379, or one started for the run."""
    return _service_url(request, "redis")


def schema_url(base: str, schema: str) -> str:
    """``base``'s URL with ``schema`` first on the search path."""
    return f"{base}?options=-csearch_path%3D{schema}"


@contextlib.contextmanager
def pg_schema(base: str, prefix: str = "t") -> Iterator[str]:
    """A fresh schema in the PostgreSQL database at ``base``, dropped afterwards; yields its name."""
    from sqlalchemy import create_engine, text

    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    admin = create_engine(base)
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
    base = request.getfixturevalue("postgres_url")
    with pg_schema(base) as schema:
        yield schema_url(base, schema)
