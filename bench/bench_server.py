"""Game-server load: many concurrent tables on loopback, one WebSocket player each (``make bench``).

With ``--servers N`` (N > 1, PostgreSQL and Redis) the server is a platform of N ``chaodipi serve``
processes on one fresh schema and one Redis (issue 22): the tables are made through each process's
lobby in turn (placed by the platform on the least loaded process), each client connects to the
process that runs its table (``--route owner``, as a load balancer routing by table would) or to
another (``--route any``: relayed through Redis), and the figures add up every process's (the
latency is the worst process's; the CPU is all of theirs).

``chaodipi serve`` runs in its own process on a free port with a fresh database (a temporary
SQLite file, or a fresh schema of the PostgreSQL database named by ``--db``, dropped after),
its timers set by ``--pace`` (see ``PACES``). This process's client workers create
``--tables`` tables through the lobby, evenly over ``--ramp`` seconds, each with the rules bot
in seats 1, 2 and 3 and a guest in seat 0, and open one WebSocket per table
(``tests/server_helpers.Client``); every client plays seat 0 by the rules policy, takes its
seat back from 托管, and starts the next game when one ends. Once every table runs and
``--warmup`` seconds have passed, the measured window of ``--seconds`` begins. Reported:

* accepted actions per second (bots' and players' alike) and players' actions per second,
  from the deltas of the server's ``GET /api/stats`` over the window;
* the server's latency percentiles from ``GET /api/stats``: the time from a player's action
  being read off the socket to its broadcast being queued. The server keeps its latest
  100,000 samples since it started, so these include the ramp-up unless the window alone
  filled them (the report says how many of the samples are the window's);
* the client-side round trip over the window: from sending an action to receiving the first
  update whose sequence number moved past the one the action answered;
* the server's CPU (its process and any children) over the window: per cent of one core and
  milliseconds per table per second; the client workers' CPU and the whole machine's, so a
  reader sees whether the load generator or the machine was the limit.

The lobby limits each client address to 120 changes a minute, so the workers spread their
lobby requests over several loopback source addresses (127.0.x.y: all of 127/8 reaches the
server on Linux).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from chaodipi.bots import make_bot  # noqa: E402
from server_helpers import Client  # noqa: E402

#: The decisions a view's ``legal`` offers to its seat (``show_red5`` alone is not one).
DECISIONS = frozenset({"bids", "fries", "pass", "bury", "leads", "follows"})
#: The timers of each ``--pace``. ``real``: the server's default deal (120 ms a card) and bot (700 ms)
#: pace, a player who answers as quickly as a bot, and only the waits shortened (the pause between
#: hands, 5 s by default, and the time limits: a 1.25 s countdown instead of 5 s). ``fast``: a
#: stress test, some ten times the actions per table.
PACES: dict[str, dict[str, Any]] = {
    "real": {"deal_ms": 120, "bot_delay_ms": 700, "hand_pause_ms": 1000, "time_scale": 0.25, "think_ms": 700},
    "fast": {"deal_ms": 20, "bot_delay_ms": 50, "hand_pause_ms": 200, "time_scale": 0.2, "think_ms": 0},
}
#: The table's bots: the rules bot in seats 1, 2 and 3 (the client plays seat 0).
BOTS = {"1": "rules", "2": "rules", "3": "rules"}
#: Seconds a client waits for the next game after asking for it before it asks again.
AGAIN_RETRY_S = 2.0
#: Lobby changes per source address: the server allows 120 a minute, each table takes two.
TABLES_PER_ADDRESS = 50


# -- the server ----------------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Database:
    """The server's database for one run: a temporary SQLite file or a fresh PostgreSQL schema."""

    url: str  # what the server is given
    kind: str
    cleanup: Any = None

    def close(self) -> None:
        if self.cleanup is not None:
            self.cleanup()
            self.cleanup = None


def make_database(url: str | None, tmp: Path) -> Database:
    """A fresh database: ``url`` None gives a SQLite file in ``tmp``; a PostgreSQL URL gets a new schema."""
    if url is None:
        return Database(f"sqlite:///{tmp / 'bench.db'}", "sqlite")
    if not url.startswith("postgresql"):
        return Database(url, url.split(":", 1)[0])  # used as it is: the caller made it fresh
    import psycopg

    schema = f"bench_{secrets.token_hex(4)}"
    parts = urlsplit(url)
    plain = urlunsplit(("postgresql", parts.netloc, parts.path, parts.query, ""))
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')

    def drop() -> None:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')

    option = "options=" + quote(f"-csearch_path={schema}", safe="")
    query = f"{parts.query}&{option}" if parts.query else option
    return Database(urlunsplit((parts.scheme, parts.netloc, parts.path, query, "")), f"postgresql ({schema})", drop)


def server_command(args: argparse.Namespace, port: int, db: str) -> list[str]:
    """``chaodipi serve`` with the run's timers (under cProfile with ``--profile``)."""
    cmd = [sys.executable]
    if args.profile:
        cmd += ["-m", "cProfile", "-o", args.profile]
    return [
        *cmd,
        *["-m", "chaodipi.cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db],
        *["--owner", f"bench:{port}", "--deal-ms", str(args.deal_ms), "--bot-delay-ms", str(args.bot_delay_ms)],
        *["--hand-pause-ms", str(args.hand_pause_ms), "--time-scale", str(args.time_scale)],
        *(["--redis", args.redis] if args.servers > 1 else []),
        *(["--lease", str(args.lease)] if args.lease else []),
    ]


def wait_until_up(base: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{base}/api/health", timeout=2) as r:
            if r.status == 200:
                return
        time.sleep(0.1)
    raise SystemExit(f"the server did not come up in {timeout} s:\n{log.read_text()[-3000:]}")


def get_stats(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/stats", timeout=30) as r:
        return dict(json.loads(r.read()))


def processes() -> dict[int, tuple[int, float, str]]:
    """Every process: pid → (parent pid, CPU seconds of it and its waited-for children, command name)."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = text[text.rindex(")") + 2 :].split()
        ticks = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        out[int(entry)] = (int(fields[1]), ticks / tick, text[text.index("(") + 1 : text.rindex(")")])
    return out


def tree_cpu(roots: list[int], procs: dict[int, tuple[int, float, str]]) -> float:
    """CPU seconds used by ``roots`` and their live descendants (and their waited-for children)."""
    total, todo = 0.0, list(roots)
    while todo:
        pid = todo.pop()
        total += procs[pid][1] if pid in procs else 0.0
        todo.extend(p for p, (parent, _, _) in procs.items() if parent == pid)
    return total


def postgres_roots(procs: dict[int, tuple[int, float, str]]) -> list[int]:
    """The PostgreSQL servers running on this machine (a ``postgres`` process whose parent is not one)."""
    return [
        pid
        for pid, (parent, _, name) in procs.items()
        if name == "postgres" and procs.get(parent, (0, 0.0, ""))[2] != "postgres"
    ]


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    tick = os.sysconf("SC_CLK_TCK")
    return (total - idle) / tick, total / tick


# -- the client workers --------------------------------------------------------------------------


@dataclass
class ClientCounts:
    sent: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    games: int = 0
    autos: int = 0
    autos_in_window: int = 0
    messages: int = 0
    again_retries: int = 0
    bytes: int = 0
    reconnects: int = 0  # sockets closed by the server with "reconnect" (a table moving between processes)
    rtts: list[float] = field(default_factory=list)


class BenchClient(Client):
    """seat 0 of one table, played by the rules policy; times each action's round trip."""

    def __init__(self, base: str, table: int, token: str, counts: ClientCounts, think_s: float) -> None:
        super().__init__(base, table, token, record=False)
        self.counts = counts
        self.think_s = think_s
        self.measuring = False
        self.sent_at: float | None = None
        self.sent_seq = 0
        self.auto = False  # the server's bot plays for this seat (托管): its time ran out

    def received(self, raw: str | bytes) -> None:
        """Count the messages and their (uncompressed) size while measuring."""
        if self.measuring:
            self.counts.messages += 1
            self.counts.bytes += len(raw)

    def _take(self, msg: dict[str, Any]) -> None:
        super()._take(msg)
        kind = msg.get("type")
        if self.sent_at is not None:
            if kind == "update" and int(msg.get("seq", 0)) > self.sent_seq:
                if self.measuring:
                    self.counts.rtts.append(time.perf_counter() - self.sent_at)
                self.sent_at = None
            elif kind == "error":
                self.sent_at = None
        if kind == "error" and self.measuring:
            code = str(msg.get("code"))
            self.counts.errors[code] = self.counts.errors.get(code, 0) + 1
        if kind in ("welcome", "seats") and 0 <= self.seat < len(self.seats) and self.seats[self.seat]:
            auto = bool(self.seats[self.seat].get("auto"))
            if auto and not self.auto:
                self.counts.autos += 1
                if self.measuring:
                    self.counts.autos_in_window += 1
            self.auto = auto

    def my_move(self) -> bool:
        view = self.view
        return view is not None and not DECISIONS.isdisjoint(view.get("legal") or ())

    async def send_action(self, action: Any) -> None:
        self.sent_seq = self.seq
        self.sent_at = time.perf_counter()
        if self.measuring:
            self.counts.sent += 1
        await self.act(action)

    async def run(self, stop: asyncio.Event, seed: int) -> None:
        """Answer every decision the view offers until ``stop``; start the next game when one ends."""
        policy = make_bot("rules", seed)
        answered: tuple[int, int, int] | None = None
        again_for: int | None = None
        again_at = 0.0
        auto_off_at: int | None = None
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            if self.closed is not None:
                if self.closed[0] not in RECONNECT:
                    raise RuntimeError(f"table {self.table}: connection closed {self.closed}")
                self.counts.reconnects += 1  # (as the browser client does: the table moved between processes)
                await connect_retrying(self, resume=True)
                answered = None
            self.changed.clear()
            game = self.game or {}
            over = bool(game.get("over"))
            key = (self.hand, self.seq, len(self.events))
            if self.auto and auto_off_at != self.seq:
                # The player is back: take the seat over from the bot (an action would race it).
                auto_off_at = self.seq
                await self.send({"type": "auto", "on": False})
            elif over and again_for != game.get("number"):
                again_for, again_at = game.get("number"), loop.time()
                if self.measuring:
                    self.counts.games += 1
                await self.send({"type": "again"})
            elif over and loop.time() - again_at > AGAIN_RETRY_S:
                # No next game: the server refused the "again" (it had not yet stored that the game
                # ended; see docs/benchmarks.md). A ping first makes the table's task store it.
                again_at = loop.time()
                self.counts.again_retries += 1
                await self.send({"type": "ping"})
                await self.send({"type": "again"})
            elif key != answered and self.my_move():
                if self.think_s > 0:
                    await asyncio.sleep(self.think_s)
                    if (self.hand, self.seq, len(self.events)) != key:
                        continue  # the table moved on meanwhile: look again
                answered = key
                view = self.engine_view()
                action = policy.act(view) if view is not None else None
                if action is not None:
                    await self.send_action(action)
                continue
            if over:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), AGAIN_RETRY_S)
            else:
                await self.changed.wait()


class Router:
    """Which process a table's client connects to: the one that runs it (``owner``: as a load balancer that routes
    by table would), or the next one after the process whose lobby made it (``any``: mostly relayed)."""

    def __init__(self, bases: list[str], route: str, db_url: str) -> None:
        self.bases = bases
        self.route = route
        self.conn: Any = None
        if route == "owner" and len(bases) > 1:
            import psycopg

            self.conn = psycopg.connect(db_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)

    def lobby(self, n: int) -> str:
        """The process whose lobby makes the ``n``-th table (round robin)."""
        return self.bases[n % len(self.bases)]

    def socket(self, n: int, table: int) -> str:
        """The process the ``n``-th table's client connects to."""
        if len(self.bases) == 1:
            return self.bases[0]
        if self.route == "owner":
            row = self.conn.execute("SELECT owner FROM tables WHERE id = %s", (table,)).fetchone()
            port = str(row[0]).rsplit(":", 1)[-1]
            return next(b for b in self.bases if b.endswith(f":{port}"))
        return self.bases[(n + 1) % len(self.bases)]


#: Close codes after which a client reconnects (docs/protocol.md): the table moved, the server restarts, try again.
RECONNECT = frozenset({4409, 1012, 1013})


async def connect_retrying(client: BenchClient, *, resume: bool = False) -> None:
    """Connect (say hello), again after a close that says to reconnect, up to ten times."""
    import websockets

    for attempt in range(10):
        try:
            await client.connect(resume=resume)
            return
        except websockets.ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code not in RECONNECT or attempt == 9:
                raise
            client.counts.reconnects += 1
            await asyncio.sleep(0.2 * (attempt + 1))


async def _tables(
    router: Router,
    address: str,
    count: int,
    start: float,
    step: float,
    think_s: float,
    counts: ClientCounts,
    stop: asyncio.Event,
    players: list[tuple[BenchClient, asyncio.Task[None]]],
) -> None:
    """``count`` tables made from ``address``, one every ``step`` seconds from ``start`` (the loop's clock),
    each with the rules bot in seats 1-3 and a guest in seat 0 whose client connects and plays at once."""
    loop = asyncio.get_running_loop()
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(transport=transport, timeout=60) as http:
        for n in range(count):
            await asyncio.sleep(max(0.0, start + n * step - loop.time()))
            base = router.lobby(n)
            r = await http.post(f"{base}/api/tables", json={"name": "bench", "bots": BOTS})
            if r.status_code != 201:
                raise RuntimeError(f"POST /api/tables from {address}: {r.status_code} {r.text}")
            table = int(r.json()["id"])
            r = await http.post(f"{base}/api/tables/{table}/seats", json={"name": "bench", "seat": 0})
            if r.status_code != 201:
                raise RuntimeError(f"POST /api/tables/{table}/seats from {address}: {r.status_code} {r.text}")
            client = BenchClient(router.socket(n, table), table, str(r.json()["token"]), counts, think_s)
            await connect_retrying(client)
            players.append((client, loop.create_task(client.run(stop, seed=table))))


async def _worker(
    router: Router, worker: int, procs: int, tables: int, ramp_s: float, think_s: float, events: dict[str, Any]
) -> dict[str, Any]:
    counts = ClientCounts()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    players: list[tuple[BenchClient, asyncio.Task[None]]] = []
    batches = [min(TABLES_PER_ADDRESS, tables - i) for i in range(0, tables, TABLES_PER_ADDRESS)]
    interval = ramp_s / max(1, tables)  # between two of this worker's tables: the batches take turns
    start = loop.time() + worker * interval / procs
    await asyncio.gather(
        *(
            _tables(
                router,
                f"127.0.{worker + 1}.{n + 2}",
                size,
                start + n * interval,
                len(batches) * interval,
                think_s,
                counts,
                stop,
                players,
            )
            for n, size in enumerate(batches)
        )
    )
    clients = [c for c, _ in players]
    events["ready"].put(worker)

    async def until(flag: Any) -> None:
        while not flag.is_set():
            for _, p in players:
                if p.done():
                    p.result()  # a client that failed fails the run
            await asyncio.sleep(0.05)

    await until(events["start"])
    cpu0 = time.process_time()
    for c in clients:
        c.measuring = True
    await until(events["stop"])
    cpu = time.process_time() - cpu0
    for c in clients:
        c.measuring = False
    stop.set()
    for c in clients:
        c.changed.set()
    await asyncio.gather(*(p for _, p in players), return_exceptions=True)
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return {
        "cpu_s": cpu,
        "sent": counts.sent,
        "errors": counts.errors,
        "games": counts.games,
        "again_retries": counts.again_retries,
        "autos": counts.autos,
        "autos_in_window": counts.autos_in_window,
        "messages": counts.messages,
        "bytes": counts.bytes,
        "rtts": counts.rtts,
        "reconnects": counts.reconnects,
    }


def worker_main(
    bases: list[str], db_url: str, worker: int, args: argparse.Namespace, tables: int, events: dict[str, Any], out: Any
) -> None:
    """A client process: its share of the tables, played until the coordinator says stop."""
    try:
        router = Router(bases, args.route, db_url)
        run = _worker(router, worker, args.procs, tables, args.ramp, args.think_ms / 1000, events)
        out.put((worker, asyncio.run(run)))
    except BaseException as exc:
        out.put((worker, {"error": f"{type(exc).__name__}: {exc}"}))
        raise


# -- the run -------------------------------------------------------------------------------------


def pct(samples: list[float], q: float) -> float | None:
    """The ``q`` quantile in milliseconds, picked as the server's ``/api/stats`` picks it."""
    if not samples:
        return None
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="chaodipi-bench-"))
    db = make_database(args.db, tmp)
    if args.servers > 1 and not db.kind.startswith("postgresql"):
        raise SystemExit("several server processes (--servers) need PostgreSQL (--db postgresql+psycopg://…)")
    ports = [free_port() for _ in range(args.servers)]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    log = Path(args.server_log).resolve() if args.server_log else tmp / "server.log"
    logs = [log if k == 0 else log.with_name(f"{log.stem}-{k}{log.suffix}") for k in range(args.servers)]
    servers = []
    for port, path in zip(ports, logs, strict=True):
        cmd = server_command(args, port, db.url)
        say(f"server: {' '.join(cmd)}")
        servers.append(subprocess.Popen(cmd, stdout=path.open("wb"), stderr=subprocess.STDOUT, cwd=tmp))
    ctx = multiprocessing.get_context("spawn")
    workers: list[Any] = []
    try:
        for base, server, path in zip(bases, servers, logs, strict=True):
            wait_until_up(base, server, path)
        events = {"ready": ctx.Queue(), "start": ctx.Event(), "stop": ctx.Event()}
        results = ctx.Queue()
        shares = [args.tables // args.procs + (w < args.tables % args.procs) for w in range(args.procs)]
        ramp0 = time.monotonic()
        for w, share in enumerate(shares):
            p = ctx.Process(target=worker_main, args=(bases, db.url, w, args, share, events, results))
            p.start()
            workers.append(p)
        for _ in workers:
            while True:
                with contextlib.suppress(Exception):
                    events["ready"].get(timeout=1)
                    break
                if any(s.poll() is not None for s in servers) or any(p.exitcode not in (None, 0) for p in workers):
                    why = []
                    with contextlib.suppress(Exception):
                        while True:
                            why.append(str(results.get(timeout=2)[1].get("error")))
                    raise SystemExit(
                        f"a process failed during the ramp-up: {'; '.join(why)}\nserver log:\n{log.read_text()[-3000:]}"
                    )
        ramp = time.monotonic() - ramp0
        say(f"{args.tables} tables running after {ramp:.1f} s; warming up for {args.warmup:g} s")
        time.sleep(args.warmup)
        local_pg = db.kind.startswith("postgresql") and urlsplit(db.url).hostname in ("127.0.0.1", "localhost", "::1")
        p0 = processes()
        pg = postgres_roots(p0) if local_pg else []
        s0, mach0, t0 = [get_stats(b) for b in bases], machine_cpu(), time.monotonic()
        pids = [s.pid for s in servers]
        cpu0, db0 = tree_cpu(pids, p0), tree_cpu(pg, p0)
        events["start"].set()
        say(f"measuring for {args.seconds:g} s")
        time.sleep(args.seconds)
        s1, mach1, t1 = [get_stats(b) for b in bases], machine_cpu(), time.monotonic()
        p1 = processes()
        cpu1, db1 = tree_cpu(pids, p1), tree_cpu(pg, p1)
        held = [int(get_stats(b)["tables"]) for b in bases]
        events["stop"].set()
        answers = dict(results.get(timeout=120) for _ in workers)
        for p in workers:
            p.join(30)
    finally:
        for p in workers:
            if p.is_alive():
                p.kill()
        for server in servers:
            server.send_signal(signal.SIGINT)
        for server in servers:
            try:
                server.wait(120)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        db.close()
    failed = [f"worker {w}: {a['error']}" for w, a in answers.items() if "error" in a]
    if failed:
        raise SystemExit("\n".join(failed))
    server_log = "".join(path.read_text(errors="replace") for path in logs)
    shutil.rmtree(tmp, ignore_errors=True)
    window = t1 - t0
    rtts = [r for a in answers.values() for r in a["rtts"]]
    client_cpu = sum(a["cpu_s"] for a in answers.values())
    server_cpu = cpu1 - cpu0
    accepted = sum(b["accepted"] - a["accepted"] for a, b in zip(s0, s1, strict=True))
    players = sum(b["player_actions"] - a["player_actions"] for a, b in zip(s0, s1, strict=True))
    # each process's latencies; the platform's is its worst process's (a table is as slow as its process)
    worst = max(s1, key=lambda s: s["latency_ms"]["p95"] or 0)
    messages = sum(a["messages"] for a in answers.values())
    return {
        "database": db.kind,
        "tables": args.tables,
        "connections": sum(int(s.get("connections") or 0) for s in s1),
        "servers": args.servers,
        "route": args.route if args.servers > 1 else None,
        "tables_per_server": held,
        "timers": {
            "deal_ms": args.deal_ms,
            "bot_delay_ms": args.bot_delay_ms,
            "hand_pause_ms": args.hand_pause_ms,
            "time_scale": args.time_scale,
            "think_ms": args.think_ms,
        },
        "pace": args.pace,
        "ramp_up_s": round(ramp, 1),
        "window_s": round(window, 2),
        "accepted_per_s": round(accepted / window, 1),
        "player_actions_per_s": round(players / window, 1),
        "server_latency_ms": worst["latency_ms"],
        "server_latency_p95_ms_each": [s["latency_ms"]["p95"] for s in s1],
        "server_latency_samples": sum(s["player_actions"] for s in s1),
        "server_latency_samples_in_window": min(players, 100_000),
        "client_round_trip_ms": {q: pct(rtts, v) for q, v in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99))}
        | {"max": pct(rtts, 1.0), "samples": len(rtts)},
        "messages_received_per_s": round(messages / window, 1),
        "message_bytes_mean": round(sum(a["bytes"] for a in answers.values()) / max(1, messages)),
        "client_actions_sent": sum(a["sent"] for a in answers.values()),
        "client_errors": {
            code: sum(a["errors"].get(code, 0) for a in answers.values())
            for code in sorted({c for a in answers.values() for c in a["errors"]})
        },
        "games_finished": sum(a["games"] for a in answers.values()),
        "reconnects": sum(a["reconnects"] for a in answers.values()),
        "again_refused": sum(a["again_retries"] for a in answers.values()),
        "auto_play_started": sum(a["autos"] for a in answers.values()),
        "auto_play_started_in_window": sum(a["autos_in_window"] for a in answers.values()),
        "server_cpu_percent": round(100 * server_cpu / window, 1),
        "server_cpu_ms_per_table_s": round(1000 * server_cpu / window / args.tables, 2),
        "server_cpu_ms_per_action": round(1000 * server_cpu / accepted, 3) if accepted else None,
        "database_cpu_percent": round(100 * (db1 - db0) / window, 1) if pg else None,
        "client_processes": args.procs,
        "client_cpu_percent": round(100 * client_cpu / window, 1),
        "machine_cpu_percent": round(100 * (mach1[0] - mach0[0]) / (mach1[1] - mach0[1]), 1),
        "cores": os.cpu_count(),
        "server_log_warnings": sum(" WARNING " in line for line in server_log.splitlines()),
        "server_log_errors": sum(" ERROR " in line for line in server_log.splitlines()),
    }


def report(r: dict[str, Any]) -> str:
    t = r["timers"]
    s, c = r["server_latency_ms"], r["client_round_trip_ms"]
    lines = [
        f"server load: {r['tables']} tables on {r['database']}, {r['window_s']:.0f} s measured "
        f"(ramp-up {r['ramp_up_s']} s), {r['cores']} cores",
        f"{r['servers']} server process(es)"
        + (f", clients routed to {r['route']}, tables held {r['tables_per_server']}" if r["servers"] > 1 else ""),
        f"{r['pace']} pace: deal {t['deal_ms']} ms, bot delay {t['bot_delay_ms']} ms, "
        f"hand pause {t['hand_pause_ms']} ms, time scale {t['time_scale']:g}, player think {t['think_ms']} ms",
        "",
        f"{'accepted actions':34} {r['accepted_per_s']:10.1f} /s",
        f"{'players actions':34} {r['player_actions_per_s']:10.1f} /s",
        f"{'action to broadcast (server) ms':34} p50 {s['p50']}  p95 {s['p95']}  p99 {s['p99']}  max {s['max']}"
        f"  ({r['server_latency_samples_in_window']} of {r['server_latency_samples']} samples in the window)"
        + (f"; the worst process's; p95 each {r['server_latency_p95_ms_each']}" if r["servers"] > 1 else ""),
        f"{'round trip (client) ms':34} p50 {c['p50']}  p95 {c['p95']}  p99 {c['p99']}  max {c['max']}"
        f"  ({c['samples']} samples)",
        f"{'messages to the clients':34} {r['messages_received_per_s']:10.1f} /s, "
        f"{r['message_bytes_mean']} bytes each on average (uncompressed)",
        f"{'server CPU':34} {r['server_cpu_percent']:10.1f} % of one core",
        f"{'server CPU per table':34} {r['server_cpu_ms_per_table_s']:10.2f} ms per second",
        f"{'server CPU per accepted action':34} {r['server_cpu_ms_per_action']} ms",
        *(
            [f"{'PostgreSQL CPU (this machine)':34} {r['database_cpu_percent']:10.1f} % of one core"]
            if r["database_cpu_percent"] is not None
            else []
        ),
        f"{'client CPU':34} {r['client_cpu_percent']:10.1f} % of one core ({r['client_processes']} process(es))",
        f"{'machine CPU':34} {r['machine_cpu_percent']:10.1f} % of all cores",
        f"{'client errors (by code)':34} {sum(r['client_errors'].values()):10} {r['client_errors'] or ''}",
        f"{'auto-play (托管) started':34} {r['auto_play_started_in_window']:10} in the window, "
        f"{r['auto_play_started']} in all",
        f"{'games ended in the window':34} {r['games_finished']:10} "
        f"(the next game asked for again {r['again_refused']} times in all)",
        f"{'reconnects (a table moved)':34} {r['reconnects']:10}",
        f"{'server log warnings / errors':34} {r['server_log_warnings']} / {r['server_log_errors']}",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=200, help="concurrent tables (200)")
    ap.add_argument("--seconds", type=float, default=60, help="the measured window (60)")
    ap.add_argument("--ramp", type=float, default=60, help="seconds over which the tables are started, evenly (60)")
    ap.add_argument("--warmup", type=float, default=30, help="seconds played after the ramp-up, before measuring (30)")
    ap.add_argument(
        "--db",
        default=None,
        help="a temporary SQLite file when left out; postgresql+psycopg://user@host:port/db: a fresh schema there",
    )
    ap.add_argument(
        "--pace",
        choices=sorted(PACES),
        default="real",
        help="the timers' defaults: 'real' (the server's own deal and bot pace, a player as quick as a bot, "
        "shorter pauses) or 'fast' (a stress test: everything as quick as it goes)",
    )
    ap.add_argument("--deal-ms", type=int, help="between two dealt cards")
    ap.add_argument("--bot-delay-ms", type=int, help="a bot's pause before it acts")
    ap.add_argument("--hand-pause-ms", type=int, help="between a hand's end and the next deal")
    ap.add_argument("--time-scale", type=float, help="multiplies the rules' time limits")
    ap.add_argument("--think-ms", type=int, help="the player's pause before each decision")
    ap.add_argument("--procs", type=int, default=1, help="client processes (1)")
    ap.add_argument(
        "--servers", type=int, default=1, help="server processes, one platform (1; more need --db postgresql and Redis)"
    )
    ap.add_argument(
        "--redis", default="redis://127.0.0.1:6379/0", help="the platform's Redis with --servers above 1 (local)"
    )
    ap.add_argument("--lease", type=float, help="the servers' lease in seconds (their default: 8)")
    ap.add_argument(
        "--route",
        choices=("owner", "any"),
        default="owner",
        help="with several servers, each client connects to the process that runs its table (owner: as a load "
        "balancer routing by table) or to another one (any: relayed through Redis)",
    )
    ap.add_argument("--profile", metavar="FILE", help="run the server under cProfile, writing FILE")
    ap.add_argument("--server-log", metavar="FILE", help="keep the server's log in FILE")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    for name, value in PACES[args.pace].items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.profile:
        args.profile = str(Path(args.profile).resolve())
    result = run(args)
    print(json.dumps(result, indent=2) if args.json else report(result))
    if args.profile:
        import pstats

        stats = pstats.Stats(args.profile, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
