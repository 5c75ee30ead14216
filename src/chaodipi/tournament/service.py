"""Online rounds: a table per pairing, opened with the round's limits, and results from the tables' games.

Starting an online round opens one server table per tie (:meth:`EventService.start_round`): the
event's rules, the round's game limit (RULES §14.2) and match length (best-of-three), the seats drawn
(RULES §14.1: which pair sits 南北, which player where) and reserved for the pairs' accounts (bots sit at
once), spectators as the organiser chose. Each game that ends at such a table is written to the table's
outcomes by the table's owner (:meth:`chaodipi.server.store.Store.game_outcomes`), and this service
turns it into the event's ``game`` entry: at once through the server's game listeners, and, for a game
whose listener never ran (a process died between the two), by :meth:`EventService.catch_up`, which
every process runs every few seconds. Entries are idempotent: a game already in the log is skipped.

A referee's penalty at an online table (:meth:`EventService.penalty`, RULES §14.4) reaches the game in progress
there: it is an action of the hand's log (stored, then told to the players and spectators), and the event's entry
says so (``live``), so that the event does not take its levels a second time from the game's result.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from chaodipi.log import IllegalActionError, Penalty
from chaodipi.server.store import GameOutcome
from chaodipi.server.table import TableError
from chaodipi.server.tables import Server
from chaodipi.tournament.event import Event, EventError, Pair, Pairing, Round
from chaodipi.tournament.store import EventStore

__all__ = ["NO_SHOW_MINUTES", "EventService"]

log = logging.getLogger(__name__)

#: A pair not at its table this many minutes after the start forfeits (RULES §14.1, seed 004 §7.3).
NO_SHOW_MINUTES = 10
SYSTEM = "server"  # who the log names for what the server itself records


def _reserved(pair: Pair, seats: tuple[int, int]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for seat, player in zip(seats, pair.players, strict=True):
        if player.bot is not None:
            out[seat] = {"bot": player.bot}
        else:
            out[seat] = {"account": [player.account, player.name]}
    return out


class EventService:
    """The events of one server process: starting online rounds and recording their games."""

    def __init__(self, server: Server, events: EventStore | None = None, *, catch_up_s: float = 5.0) -> None:
        self.server = server
        self.events = events or EventStore(server.store)
        self.catch_up_s = catch_up_s
        self._task: asyncio.Task[None] | None = None
        self._locks: dict[int, asyncio.Lock] = {}
        server.game_listeners.append(self.on_game)

    def start(self) -> None:
        """Run :meth:`catch_up` every few seconds until :meth:`stop`."""
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        """Stop the catch-up loop."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                await self.catch_up()
            except Exception:  # (a database hiccup: the next pass tries again)
                log.exception("events: catching up with the tables failed")
            await asyncio.sleep(self.catch_up_s)

    def _lock(self, event_id: int) -> asyncio.Lock:
        return self._locks.setdefault(event_id, asyncio.Lock())

    async def append(self, event_id: int, op: str, data: dict[str, Any], by: str) -> Event:
        """Append one entry (in the database thread; one writer per event in this process at a time)."""
        async with self._lock(event_id):
            event: Event = await self.server.db_call(self.events.append, event_id, op, data, by=by)
            return event

    # -- a referee's penalty (RULES §14.4) -------------------------------------------------------------------
    async def penalty(self, event_id: int, data: dict[str, Any], by: str) -> Event:
        """Give a penalty: checked by the event first; at an online table whose game it is for is being played, given
        to that game too (an action of the hand's log, stored and told to all before this returns) and logged
        ``live``; otherwise (a physical table, a game over) logged alone, and the event applies it to the result."""
        if "live" in data:
            raise EventError("unknown field 'live': the server marks a penalty given at a game in progress")
        async with self._lock(event_id):
            event: Event = await self.server.db_call(self.events.current, event_id)
            given, pairing, online = event.check_penalty(data, by=by)  # (refused here: nothing reaches the table)
            if online and pairing.online_table is not None:
                team = pairing.a_team if pairing.side_of(given.pair) == 0 else 1 - pairing.a_team
                try:
                    penalty = Penalty(team, given.offence, given.points, given.levels, given.warning, given.game_lost)
                    live = await self.server.table_op(
                        pairing.online_table, "penalty", game=given.game, penalty=penalty.to_json()
                    )
                except TableError as exc:
                    if exc.status != 404:
                        raise EventError(f"table {pairing.online_table}: {exc}") from None
                    live = None  # that game is not being played there now: the event applies it to the result
                except IllegalActionError as exc:
                    raise EventError(f"table {pairing.online_table}: {exc}") from None
                if live is not None:
                    data = {**data, "live": live}
            out: Event = await self.server.db_call(self.events.append, event_id, "penalty", data, by=by)
            return out

    # -- starting a round ------------------------------------------------------------------------------
    async def start_round(self, event_id: int, number: int, by: str) -> Event:
        """Start round ``number``: for an online event open a table per tie still to be played; then log it."""
        async with self._lock(event_id):
            event: Event = await self.server.db_call(self.events.current, event_id)
            if not 1 <= number <= len(event.rounds):
                raise EventError(f"no round {number} in this event")
            rnd = event.rounds[number - 1]
            event.check_start(rnd)  # (before any table is opened; the start entry checks it again)
            tables: dict[str, dict[str, int]] = {}
            if event.opts.online:
                for p in rnd.pairings:
                    if p.b is None or event.decided(rnd, p):
                        continue
                    online, a_team = await self._open_table(event_id, event, rnd, p)
                    tables[str(p.table)] = {"online_table": online, "a_team": a_team}
            out: Event = await self.server.db_call(
                self.events.append, event_id, "start", {"round": number, "tables": tables}, by=by
            )
            return out

    async def _open_table(self, event_id: int, event: Event, rnd: Round, p: Pairing) -> tuple[int, int]:
        """Open the table of one tie: seats drawn from the event's seed (RULES §14.1), reserved for its players."""
        assert p.b is not None
        rng = random.Random(f"{event.opts.seed}/round/{rnd.number}/table/{p.table}")
        a_team = rng.randrange(2)  # the team pair a sits as: seats 0 and 2 (南北) or 1 and 3 (东西)
        seats_a = (a_team, a_team + 2) if rng.randrange(2) == 0 else (a_team + 2, a_team)
        b_team = 1 - a_team
        seats_b = (b_team, b_team + 2) if rng.randrange(2) == 0 else (b_team + 2, b_team)
        reserved = {**_reserved(event.pairs[p.a], seats_a), **_reserved(event.pairs[p.b], seats_b)}
        body = {
            "name": f"{event.opts.name[:40]} · {rnd.label} · {p.table}",
            "rules": event.opts.preset,
            "seed": rng.getrandbits(62),
            "watch": event.opts.watchers,
            "game_minutes": rnd.game_minutes,
            "best_of": rnd.best_of,
            "reserved": [reserved[s] for s in range(4)],
            "event": event_id,
        }
        table_id = await self.server.create_table(body)
        return table_id, a_team

    # -- recording games -------------------------------------------------------------------------------
    async def on_game(self, table_id: int, outcome: GameOutcome) -> None:
        """A game ended at ``table_id`` (the server's game listener): record it in its event, if it has one."""
        where = await self.server.db_call(self.events.event_of_table, table_id)
        if where is None:
            return
        await self._record(where[0], [outcome])

    async def _record(self, event_id: int, outcomes: list[GameOutcome]) -> int:
        """Log the outcomes the event lacks (each at most once); returns how many were logged."""
        logged = 0
        async with self._lock(event_id):
            event: Event = await self.server.db_call(self.events.current, event_id)
            for outcome in sorted(outcomes, key=lambda o: (o.table_id, o.game)):
                found = self._pairing(event, outcome.table_id)
                if found is None:
                    continue
                rnd, p = found
                if outcome.game != len(p.games) + 1 or event.decided(rnd, p):
                    continue  # recorded already (or the tie was decided otherwise: a forfeit, a penalty)
                a, b = outcome.progress[p.a_team], outcome.progress[1 - p.a_team]
                data = {
                    "round": rnd.number,
                    "table": p.table,
                    "game": outcome.game,
                    "winner": "a" if outcome.winner == p.a_team else "b",
                    "a": a.to_json(),
                    "b": b.to_json(),
                    "by_time": outcome.by_time,
                }
                try:
                    event = await self.server.db_call(self.events.append, event_id, "game", data, by=SYSTEM)
                except EventError:
                    log.exception("events: event %s refused table %s's game %s", event_id, p.online_table, outcome.game)
                    continue
                logged += 1
        return logged

    @staticmethod
    def _pairing(event: Event, table_id: int) -> tuple[Round, Pairing] | None:
        for rnd in event.rounds:
            for p in rnd.pairings:
                if p.online_table == table_id:
                    return rnd, p
        return None

    async def catch_up(self) -> int:
        """Record the games of every event's playing tables that the log lacks, and the forfeits of pairs not
        at their table ten minutes after the start; returns how many entries were logged."""
        logged = 0
        for event_id in await self.server.db_call(self.events.playing):
            event: Event = await self.server.db_call(self.events.current, event_id)
            outcomes: list[GameOutcome] = []
            for _rnd, p in event.pending_games():
                assert p.online_table is not None
                outcomes.extend(await self.server.db_call(self.server.store.game_outcomes, p.online_table))
            if outcomes:
                logged += await self._record(event_id, outcomes)
            logged += await self._no_shows(event_id, event)
        return logged

    async def _no_shows(self, event_id: int, event: Event) -> int:
        """Forfeit the ties whose pair did not take its seats within :data:`NO_SHOW_MINUTES` (RULES §14.1)."""
        logged = 0
        scale = self.server.config.time_scale
        now = datetime.now(UTC)
        for rnd, p in event.pending_games():
            started = next(
                (e.at for e in reversed(event.log) if e.op == "start" and e.data.get("round") == rnd.number), None
            )
            if started is None or p.games or p.online_table is None:
                continue
            if now - datetime.fromisoformat(started) < timedelta(minutes=NO_SHOW_MINUTES * scale):
                continue
            seats = await self.server.db_call(self.server.store.seats, p.online_table)
            if len(seats) == 4:
                continue
            teams_missing = {s % 2 for s in range(4) if s not in seats}
            if len(teams_missing) != 1:
                continue  # both pairs absent: the referee decides
            absent = "a" if teams_missing == {p.a_team} else "b"
            try:
                await self.append(
                    event_id, "result", {"round": rnd.number, "table": p.table, "forfeit": absent}, SYSTEM
                )
            except EventError:
                log.exception("events: forfeit at table %s refused", p.online_table)
                continue
            logged += 1
        return logged
