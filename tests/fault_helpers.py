"""A platform under faults (issue 38): three ``chaodipi serve --redis`` processes on one PostgreSQL schema and a
Redis of the test's own, bot tables of every room, WebSocket clients on random processes (many relayed), and the
faults: kill -9, SIGSTOP inside a transaction (:mod:`chaodipi.server.faults`), a Redis restart, PostgreSQL backend
kills. :class:`Tally` counts what was told and what was stored, and :func:`check_told` holds every message a client
got to the store: each one must be what the stored actions give (nothing told that was not stored, nothing
changed, no hidden card).

tests/test_faults.py runs a short one on every ``make test``; ``make soak`` a longer one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from sqlalchemy import text

from chaodipi.bots import make_bot
from chaodipi.hand import Hand
from chaodipi.server.faults import STOP_FILE
from chaodipi.server.store import Fence, Store
from chaodipi.view import SPECTATOR, Phase, View
from server_helpers import Replays, ServerProcess, catch_up, free_port, message_cards, terminate
from service_helpers import redis_binary

#: Close codes after which a client of the protocol reconnects (docs/protocol.md); the others end it.
FINAL_CLOSES = (4000, 4400, 4401, 4403, 4404)


class OwnRedis:
    """A Redis of the test's own on a fixed port, that the test can stop and start again (a Redis restart)."""

    def __init__(self) -> None:
        binary = redis_binary()
        if binary is None:
            raise RuntimeError("no redis-server: `make services` installs Debian's redis-server")
        self.binary = str(binary)
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="fault-redis-")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.folder]
        command += ["--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            with contextlib.suppress(OSError), __import__("socket").create_connection(("127.0.0.1", self.port), 0.2):
                return
            time.sleep(0.05)
        raise RuntimeError("the test's Redis did not start")

    def stop(self) -> None:
        terminate(self.proc)
        self.proc = None


def stopped(pid: int) -> bool:
    """Whether the process is stopped (SIGSTOP): its state in /proc is T."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("T", "t")
    except OSError:
        return False


@dataclass
class Tally:
    """What the run counted."""

    told: set[tuple[int, int]] = field(default_factory=set)  # (table, seq) some client was told
    messages: int = 0
    checked: int = 0
    reconnects: int = 0
    closes: dict[int, int] = field(default_factory=dict)
    takeovers: list[tuple[str, float]] = field(default_factory=list)  # (what, seconds until every table moved)
    longest_silence: float = 0.0  # the longest a client waited on a table that moved on without telling it
    stored: int = 0
    lost: int = 0
    duplicated: int = 0
    leaks: int = 0

    def line(self) -> str:
        takeover = max((s for _, s in self.takeovers), default=0.0)
        return (
            f"acknowledged {len(self.told)}, stored {len(self.told) - self.lost}, lost {self.lost}, duplicated "
            f"{self.duplicated}, leaks {self.leaks}; messages {self.messages} (checked against the store "
            f"{self.checked}); reconnects {self.reconnects}, closes {dict(sorted(self.closes.items()))}; longest "
            f"take-over {takeover:.1f} s ({', '.join(f'{w} {s:.1f} s' for w, s in self.takeovers)}); longest "
            f"silence on a moving table {self.longest_silence:.1f} s"
        )


class FaultClient:
    """A client of docs/protocol.md that keeps going: it reconnects (to a random live process, with where it stood)
    after any close but a final one, after a gap, and after hearing nothing for ``2 * keepalive`` seconds (a
    ``ping`` after ``keepalive``); a seated one plays by the rules bot. Every message is kept."""

    def __init__(self, platform: FaultPlatform, table: int, token: str | None, *, keepalive: float) -> None:
        self.platform = platform
        self.table = table
        self.token = token
        self.keepalive = keepalive
        self.messages: list[dict[str, Any]] = []
        self.seq = 0
        self.hand = 0
        self.events: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.rules: Any = None
        self.heard = time.monotonic()
        self.done = False
        self.final: int | None = None
        self.task: asyncio.Task[None] | None = None
        self.policy = make_bot("rules", table)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self.done = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self.task, 5)

    async def _run(self) -> None:
        first = True
        while not self.done:
            base = random.choice(self.platform.live())
            url = base.replace("http://", "ws://") + f"/ws/tables/{self.table}"
            try:
                code = await self._session(url, resume=not first)
            except (OSError, websockets.WebSocketException, TimeoutError):
                code = 1006
            first = False
            self.platform.tally.closes[code] = self.platform.tally.closes.get(code, 0) + 1
            if code in FINAL_CLOSES:
                self.final = code
                return
            self.platform.tally.reconnects += 1
            await asyncio.sleep(0.2)

    async def _session(self, url: str, *, resume: bool) -> int:
        async with websockets.connect(url, max_size=2**24, open_timeout=5, close_timeout=1) as ws:
            hello: dict[str, Any] = {"type": "hello"} if self.token else {"type": "hello", "watch": True}
            if self.token:
                hello["token"] = self.token
            if resume and self.view is not None:
                hello.update(seq=self.seq, hand=self.hand, events=len(self.events))
            await ws.send(json.dumps(hello))
            self.heard = time.monotonic()
            pinged = False
            answered: tuple[int, int, int] | None = None
            while not self.done:  # (a cancellation that wait_for swallows still ends the session here)
                quiet = time.monotonic() - self.heard
                if quiet >= 2 * self.keepalive:
                    await ws.close(4998, "silent")
                    return 4998
                if quiet >= self.keepalive and not pinged:
                    await ws.send(json.dumps({"type": "ping", "id": "k"}))
                    pinged = True
                try:
                    raw = await asyncio.wait_for(ws.recv(), self.keepalive / 4)
                except TimeoutError:
                    continue
                except websockets.ConnectionClosed:
                    return int(ws.close_code or 1006)
                self.heard, pinged = time.monotonic(), False
                msg = json.loads(raw)
                self.messages.append(msg)
                self.platform.tally.messages += 1
                if not self._take(msg):
                    await ws.close(4999, "gap")
                    return 4999
                if self.token and self.view is not None:
                    key = (self.hand, self.seq, len(self.events))
                    if key != answered:
                        answered = key
                        action = self._decide()
                        if action is not None:
                            await ws.send(json.dumps({"type": "act", "seq": self.seq, "action": action}))
            return 1000

    def _take(self, msg: dict[str, Any]) -> bool:
        """Take a message in; False on a gap (events missed: reconnect with where it stood)."""
        kind = msg.get("type")
        if kind == "welcome":
            self.rules = msg["rules"]
            if not msg.get("resumed"):
                self.events, self.hand = [], 0
        if kind in ("welcome", "update"):
            if msg["view"] is not None:
                new_hand = msg["hand"] != self.hand
                expected = 0 if new_hand else len(self.events)
                if msg["events_from"] > expected:
                    return False
                self.events = (self.events if not new_hand else [])[: msg["events_from"]] + msg["events"]
                self.view = msg["view"]
            self.hand = msg["hand"]
            self.seq = int(msg["seq"])
            self.platform.tally.told.add((self.table, self.seq))
        return True

    def _decide(self) -> dict[str, Any] | None:
        assert self.view is not None
        legal = self.view["legal"]
        if not any(legal.get(k) for k in ("bids", "fries", "can_pass", "bury", "leads", "follows")):
            return None
        view = View.from_json({**self.view, "rules": self.rules, "events": self.events})
        action = self.policy.act(view)
        if action is None:
            return None
        body = action.to_json()
        body.pop("p", None)
        body.pop("at", None)
        return body


class FaultPlatform:
    """Three processes of a platform on ``pg_url`` (a schema of the test's own) and a Redis of the test's own."""

    def __init__(self, pg_url: str, folder: Path, *, nodes: int = 3, lease: float = 2.0) -> None:
        self.pg_url = pg_url
        self.lease = lease
        self.redis = OwnRedis()
        self.folder = folder
        self.tally = Tally()
        pace = (
            "--deal-ms",
            "0",
            "--bot-delay-ms",
            "60",
            "--hand-pause-ms",
            "300",
            "--trick-pause-ms",
            "0",
            "--time-scale",
            "0.2",
        )
        self.procs: list[ServerProcess] = []
        for k in range(nodes):
            proc = ServerProcess(
                pg_url, free_port(), "--redis", self.redis.url, "--lease", str(lease), *pace, owner=f"fault{k}"
            )
            proc.env = {**os.environ, STOP_FILE: str(folder / f"stop-fault{k}")}
            proc.stderr = open(folder / f"fault{k}.log", "ab")  # noqa: SIM115 (the process's log, kept open)
            self.procs.append(proc)
        self.store = Store(pg_url)
        self.clients: list[FaultClient] = []
        self.began = time.monotonic()

    def say(self, what: str) -> None:
        """A line of the run's progress (shown with ``pytest -s``)."""
        print(f"  {time.monotonic() - self.began:6.1f} s  {what}", flush=True)

    def __enter__(self) -> FaultPlatform:
        self.redis.start()
        for p in self.procs:  # (started together: their imports and migrations overlap)
            p.launch()
        for p in self.procs:
            p.wait_up()
        return self

    def __exit__(self, *exc: Any) -> None:
        for p in self.procs:
            if p.proc is not None and p.proc.poll() is None:
                with contextlib.suppress(OSError):
                    os.kill(p.proc.pid, signal.SIGCONT)
            p.stop()
            p.stderr.close()
        self.redis.stop()
        self.store.close()

    def live(self) -> list[str]:
        """The processes that answer now (not killed, not stopped)."""
        return [p.base for p in self.procs if p.proc is not None and p.proc.poll() is None and not stopped(p.proc.pid)]

    def owners(self, tables: list[int]) -> dict[int, Fence | None]:
        return self.store.owners(tables)

    def by_owner(self, owner: str) -> ServerProcess:
        return next(p for p in self.procs if p.owner == owner)

    async def open_tables(self, rooms: list[str], seated: int) -> list[int]:
        """A table of each room, its seats the rules bot's but for the first ``seated`` tables' seat 0 (a guest who
        plays); two spectators at each, on different processes (so that some are relayed)."""
        tables = []
        async with httpx.AsyncClient(timeout=10) as http:
            for k, room in enumerate(rooms):
                bots = {str(s): "rules" for s in range(1 if k < seated else 0, 4)}
                base = self.procs[k % len(self.procs)].base
                body = {"rules": room, "bots": bots, "seed": 100 + k} if k >= seated else {"rules": room, "seed": k}
                r = await http.post(f"{base}/api/tables", json=body)
                assert r.status_code == 201, r.text
                table = int(r.json()["id"])
                tables.append(table)
                keepalive = self.lease / 2
                if k < seated:
                    r = await http.post(f"{base}/api/tables/{table}/seats", json={"name": f"客{k}", "seat": 0})
                    assert r.status_code == 201, r.text
                    self.clients.append(FaultClient(self, table, str(r.json()["token"]), keepalive=keepalive))
                    for s in range(1, 4):
                        r = await http.post(f"{base}/api/tables/{table}/seats", json={"bot": "rules", "seat": s})
                        assert r.status_code == 201, r.text
                for _ in range(2):
                    self.clients.append(FaultClient(self, table, None, keepalive=keepalive))
        for c in self.clients:
            c.start()
        return tables

    async def wait_moved(self, tables: list[int], away_from: str, what: str, since: float, limit: float) -> float:
        """Wait until no table of ``tables`` is run by ``away_from`` (a live new owner for each); the seconds since
        ``since`` are recorded as a take-over."""
        while True:
            owners = await asyncio.to_thread(self.owners, tables)
            if all(f is not None and f.owner != away_from for f in owners.values()):
                took = time.monotonic() - since
                self.tally.takeovers.append((what, took))
                return took
            if time.monotonic() - since > limit:
                raise AssertionError(f"{what}: tables still not taken over after {limit:.0f} s: {owners}")
            await asyncio.sleep(0.05)

    async def wait_heard(self, tables: list[int], limit: float) -> None:
        """Wait until every client has been told each of its table's stored actions up to now (none stranded)."""
        stored = {t: (await asyncio.to_thread(self.store.info, t)).last_seq for t in tables}
        start = time.monotonic()
        while True:
            behind = [c for c in self.clients if c.final is None and c.seq < stored[c.table]]
            if not behind:
                return
            waited = time.monotonic() - start
            if waited > limit:
                raise AssertionError(
                    f"{len(behind)} client(s) not told their table's actions {limit:.0f} s on: "
                    + ", ".join(f"table {c.table} at {c.seq} of {stored[c.table]}" for c in behind)
                )
            self.tally.longest_silence = max(self.tally.longest_silence, waited)
            await asyncio.sleep(0.05)

    def kill_backends(self) -> int:
        """Terminate every PostgreSQL backend of the platform's processes (their application_name); returns how many."""
        names = [p.owner for p in self.procs]
        with self.store.engine.begin() as c:
            return len(
                c.execute(
                    text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ANY(:n)"),
                    {"n": names},
                ).all()
            )

    def held_idle_in_transaction(self, owner: str) -> bool:
        with self.store.engine.connect() as c:
            q = "SELECT count(*) FROM pg_stat_activity WHERE application_name = :n AND state = 'idle in transaction'"
            return bool(c.execute(text(q), {"n": owner}).scalar())

    def final_checks(self, tables: list[int]) -> None:
        """Every message held to the store; nothing duplicated; the figures in :attr:`tally`."""
        with self.store.engine.connect() as c:
            self.tally.duplicated = int(
                c.execute(
                    text(
                        "SELECT count(*) FROM (SELECT table_id, seq FROM actions GROUP BY table_id, seq "
                        "HAVING count(*) > 1) d"
                    )
                ).scalar()
                or 0
            )
        stored = {t: self.store.info(t).last_seq for t in tables}
        self.tally.lost = sum(1 for t, s in self.tally.told if s > stored[t])
        by_table: dict[int, list[FaultClient]] = {}
        for client in self.clients:
            by_table.setdefault(client.table, []).append(client)
        for table, clients in by_table.items():
            replays = Replays(self.store, table)
            for client in clients:
                seat = 0 if client.token else SPECTATOR
                checked, leaks = check_told(replays, seat, client.messages)
                self.tally.checked += checked
                self.tally.leaks += leaks


def check_told(replays: Replays, seat: int, messages: list[dict[str, Any]]) -> tuple[int, int]:
    """Hold each state message a client got to the store: the view it was told at ``seq`` must be the view the
    stored actions give at ``seq`` (so it was stored, and not changed), its events what they give, and it may show
    no card the seat may not see. Returns (messages checked, leaks)."""
    checked = leaks = 0
    current: tuple[int, Hand, int] | None = None  # (hand number, hand, actions applied)
    for msg in messages:
        kind = msg.get("type")
        if kind not in ("welcome", "update"):
            leaks += bool(message_cards(msg)) or "hand_cards" in json.dumps(msg)
            continue
        if msg["view"] is None:
            continue
        number = msg["hand"]
        assert number in replays.hands, f"told hand {number}, which was never stored"
        actions = replays.hands[number].actions
        sizes = msg["view"]["hand_sizes"]
        # (a new owner deals on from the last stored action: the cards dealt after it, never stored, are dealt again,
        # and the client gets a whole snapshot: the replay starts again too)
        redealt = current is not None and (current[1].phase is not Phase.DEAL or current[1].dealt > sum(sizes))
        if (
            current is None
            or current[0] != number
            or msg["seq"] < (actions[current[2] - 1].seq if current[2] else 0)
            or (msg["view"]["phase"] == "deal" and redealt)
        ):
            current = (number, replays.fresh(number), 0)
        number, hand, applied = current
        first = actions[0].seq if actions else msg["seq"] + 1
        target = max(0, msg["seq"] - (first - 1))
        assert target <= len(actions), (
            f"told seq {msg['seq']} of hand {number}, but the store holds only up to "
            f"{actions[-1].seq if actions else first - 1}: told before stored"
        )
        applied = catch_up(hand, actions, applied, target, sum(sizes))
        current = (number, hand, applied)
        view = hand.view(seat)
        stored_view = view.to_json(rules=False, events=False)
        assert msg["view"] == stored_view, (
            f"hand {number}, seq {msg['seq']} ({kind}): the view told is not the stored actions' view "
            f"(stored actions from seq {first}: {[a.action.to_json() for a in actions[:3]]}; applied {applied}): "
            + "; ".join(
                f"{k}: told {msg['view'].get(k)!r}, stored {stored_view.get(k)!r}"
                for k in sorted(set(msg["view"]) | set(stored_view))
                if msg["view"].get(k) != stored_view.get(k)
            )
        )
        start = msg["events_from"]
        told = [e.to_json() for e in view.events[start : start + len(msg["events"])]]
        assert msg["events"] == told, f"hand {number}, seq {msg['seq']}: the events told are not the stored ones"
        allowed = view.cards_seen()
        if seat != SPECTATOR:
            allowed |= {c for b in hand.legal(seat).bids for c in b.cards}
        leaks += bool(message_cards(msg) - allowed)
        checked += 1
    return checked, leaks
