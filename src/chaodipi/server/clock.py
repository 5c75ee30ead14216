"""The table's time: a clock that is injected, and deadlines that are values.

A table never reads the time itself. It asks its :class:`Clock`: ``now()``, a monotonic count of
seconds that deadlines and the deal's pace are measured on, and ``wall()``, the date and time a
deadline is stored with (so that a restarted server can tell how long it was down). The server runs
on :class:`LoopClock` (the event loop's time); the table's unit tests run on :class:`FakeClock`,
which stands still until a test moves it, so that a 15-second deadline expires in no time at all.

A :class:`Deadline` is the decision a table waits for (the engine's :meth:`Hand.pending
<chaodipi.hand.Hand.pending>`) and when it runs out, on both clocks.

>>> clock = FakeClock()
>>> d = Deadline.start("play", 2, 15.0, clock, key=(1, 7, "play"))
>>> d.remaining_ms(clock.now())
15000
>>> clock.advance(10)
>>> d.remaining_ms(clock.now()), d.due <= clock.now()
(5000, False)
>>> d.extended(3.0, clock).remaining_ms(clock.now())  # a restart: the time the server was down is given back
8000
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

__all__ = ["Clock", "Deadline", "FakeClock", "LoopClock"]


class Clock(Protocol):
    """Where a table reads the time."""

    def now(self) -> float:
        """Monotonic seconds: what deadlines, the deal's pace and bots' delays are measured on."""
        ...

    def wall(self) -> datetime:
        """The date and time (UTC), stored with a deadline."""
        ...


class LoopClock:
    """The running event loop's time (the clock ``asyncio.timeout_at`` waits on) and the system's date."""

    def now(self) -> float:
        """The event loop's monotonic time."""
        return asyncio.get_running_loop().time()

    def wall(self) -> datetime:
        """The system's date and time, in UTC."""
        return datetime.now(UTC)


class FakeClock:
    """A clock that moves only when told (:meth:`advance`): tests of timeouts that do not wait."""

    def __init__(self, start: float = 1000.0, wall: datetime | None = None) -> None:
        self._now = start
        self._wall = wall or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> float:
        """The fake monotonic time."""
        return self._now

    def wall(self) -> datetime:
        """The fake date and time, moved with :meth:`now`."""
        return self._wall

    def advance(self, seconds: float) -> None:
        """Move both times on by ``seconds``."""
        self._now += seconds
        self._wall += timedelta(seconds=seconds)


@dataclass(frozen=True, slots=True)
class Deadline:
    """The decision a table waits for: whose (None: anyone may still bid), what, and when it runs out.

    ``kind``: the engine's decision kind (declare, bury, fry, play); ``due`` on the clock's
    monotonic time, ``at`` on its wall clock (stored); ``limit`` the whole time given for it;
    ``key`` tells one decision from the next (hand, decision number, kind).
    """

    kind: str
    seat: int | None
    due: float
    at: datetime
    limit: float
    key: tuple[int, int, str]

    @classmethod
    def start(cls, kind: str, seat: int | None, limit: float, clock: Clock, *, key: tuple[int, int, str]) -> Deadline:
        """A decision starting now with ``limit`` seconds."""
        return cls(kind, seat, clock.now() + limit, clock.wall() + timedelta(seconds=limit), limit, key)

    def remaining_ms(self, now: float) -> int:
        """Milliseconds left at monotonic time ``now`` (0 once it has run out)."""
        return max(0, round((self.due - now) * 1000))

    def extended(self, downtime: float, clock: Clock, stored_at: datetime | None = None) -> Deadline:
        """After a restart: the deadline that was stored (``stored_at``, or this one's) moved on by ``downtime``
        seconds, and never beyond the whole limit from now."""
        wall = clock.wall()
        moved = min((stored_at or self.at) + timedelta(seconds=downtime), wall + timedelta(seconds=self.limit))
        remaining = max(0.0, (moved - wall).total_seconds())
        return replace(self, due=clock.now() + remaining, at=moved)

    def to_json(self, now: float) -> dict[str, Any]:
        """``{"seat", "kind", "ms"}``: milliseconds remaining (the wire form, docs/protocol.md)."""
        return {"seat": self.seat, "kind": self.kind, "ms": self.remaining_ms(now)}
