"""How the server paces and limits its tables (:class:`ServerConfig`), and what it measures of them (:class:`Stats`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ServerConfig", "Stats"]


@dataclass(slots=True)
class ServerConfig:
    """How the server paces and limits its tables (the rules' time limits come from each table's rules)."""

    owner: str = "local"  # this process's name in the tables' ``owner`` column
    deal_ms: int = 120  # between two cards of the deal
    bot_delay_ms: int = 700  # a bot's pause before it acts, so that people can follow
    hand_pause_ms: int = 15000  # the longest pause between a hand's end and the next deal (ready ends it sooner)
    time_scale: float = 1.0  # multiplies every decision's time limit (tests and the benchmark shorten them)
    lease_s: float = 8.0  # how long a claim on a table lasts without renewal (renewed every quarter of it)
    redis: str | None = None  # a platform of several processes on one PostgreSQL database shares this Redis
    rate_per_s: float = 20.0  # messages a connection may send per second, on average
    rate_burst: int = 40  # … and in a burst
    send_queue: int = 256  # messages waiting for a slow client before it is dropped
    hello_timeout_s: float = 10.0
    bot_workers: int = 2
    # ``chaodipi serve``'s HTTP limits (server/serve.py): a slow client cannot hold a connection for ever
    head_timeout_s: float = 10.0  # a request's line and headers arrive within this
    body_timeout_s: float = 30.0  # … and its body within this after them
    max_connections: int = 1000  # open at once, HTTP and WebSocket together (never above the open-file limit)
    trick_pause_ms: int = 1500  # a finished trick stays in the middle before the next lead (bots wait for it)
    # a client that has heard nothing for this long pings the table, and after twice this reconnects (the welcome's
    # ``pace.keepalive_ms`` tells it): a relay that stopped forwarding cannot leave it waiting for ever
    keepalive_s: float = 10.0
    # accounts (server/accounts.py): rate limits in the ``limits`` library's notation
    login_limit: str = "10/minute"  # logins per client address
    login_name_limit: str = "5/minute"  # … and per username
    register_limit: str = "5/hour"  # registrations per client address
    failed_login_limit: str = "5/15minutes"  # failed logins per username before every login for it is refused
    failed_login_delay_s: float = 0.5  # a failed login's answer waits this long times the failures (at most 3 s)
    allowed_origins: tuple[str, ...] = ()  # other origins (scheme://host[:port]) whose pages may write to this server
    # the proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (addresses, networks, or "*" for any);
    # none by default: a request's address (which the rate limits count) is its connection's
    forwarded_allow_ips: tuple[str, ...] = ()
    chat_limit: str = "5/10second"  # chat lines one speaker may say (the ``limits`` library's notation)


@dataclass(slots=True)
class Stats:
    """What the server measures of its tables: accepted actions, and the time from a player's action
    arriving to its broadcast being queued for every connection (the latest 100,000)."""

    accepted: int = 0
    latencies: deque[float] = field(default_factory=lambda: deque(maxlen=100_000))

    def to_json(self) -> dict[str, Any]:
        """Counts and the p50, p95 and p99 latency in milliseconds (None before any player action)."""
        ordered = sorted(self.latencies)

        def pct(q: float) -> float | None:
            if not ordered:
                return None
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)

        return {
            "accepted": self.accepted,
            "player_actions": len(ordered),
            "latency_ms": {"p50": pct(0.50), "p95": pct(0.95), "p99": pct(0.99), "max": pct(1.0)},
        }
