"""How long a simulated 64-pair event takes: the city contest's plan, played online by bots (issue 23).

A server in this process (a fresh SQLite file, or ``--db``), an organiser over HTTP registering 64
pairs of rules bots by CSV, then pairing, publishing and starting each round and waiting for its tables
to finish: 32 knockout tables in two sessions, 16, then three Swiss rounds of 8 tables, 72 games.
Bots act at once (no pause between their plays, cards or hands).

    python bench/bench_tournament.py                       # whole games (no game limit)
    python bench/bench_tournament.py --game-minutes 1 --time-scale 0.02   # each game stopped after 1.2 s
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from chaodipi.server.app import create_app
from chaodipi.server.config import ServerConfig


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def bench(db: str, pairs: int, game_minutes: int, time_scale: float, bot: str) -> dict[str, Any]:
    port = free_port()
    config = ServerConfig(
        owner="bench",
        deal_ms=0,
        bot_delay_ms=0,
        hand_pause_ms=0,
        trick_pause_ms=0,
        time_scale=time_scale,
        register_limit="1000/hour",
    )
    app = create_app(db, config)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", log_level="warning"))
    task = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{port}"
    rounds: list[tuple[str, int, float]] = []
    try:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            r = await http.post("/api/register", json={"username": "organiser", "password": "bench password 1"})
            http.headers["X-CSRF-Token"] = r.json()["csrf"]
            body = {
                "name": "Bench cup",
                "format": "city",
                "online": True,
                "seed": 2026,
                "game_minutes": game_minutes,
                "unlimited_from": 0,
                "best_of_three_from": 0,
            }
            eid = (await http.post("/api/events", json=body)).json()["id"]
            rows = "\n".join(f"Pair {i},bot:{bot},bot:{bot}" for i in range(1, pairs + 1))
            await http.post(f"/api/events/{eid}/pairs/import", json={"csv": rows})
            started = time.perf_counter()
            while True:
                r = await http.post(f"/api/events/{eid}/rounds", json={})
                if r.status_code != 201:
                    break
                n = r.json()["round"]
                t0 = time.perf_counter()
                await http.post(f"/api/events/{eid}/rounds/{n}/publish", json={})
                await http.post(f"/api/events/{eid}/rounds/{n}/start", json={})
                while True:
                    ev = (await http.get(f"/api/events/{eid}")).json()
                    rnd = ev["rounds"][n - 1]
                    if rnd["status"] == "finished":
                        break
                    await asyncio.sleep(0.1)
                rounds.append((rnd["label"], len(rnd["pairings"]), time.perf_counter() - t0))
                label, tables, secs = rounds[-1]
                print(f"round {n} {label:<14} {tables:>3} tables {secs:7.1f} s", flush=True)
            took = time.perf_counter() - started
            games = [g for r in ev["rounds"] for p in r["pairings"] for g in p["games"]]
            stats = (await http.get("/api/stats")).json()
    finally:
        server.should_exit = True
        await task
    return {
        "seconds": took,
        "games": len(games),
        "by_time": sum(1 for g in games if g["by_time"]),
        "rounds": rounds,
        "accepted": stats.get("accepted"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--pairs", type=int, default=64)
    parser.add_argument("--game-minutes", type=int, default=0, help="each game's limit (0: whole games)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="multiplies the game limit")
    parser.add_argument("--bot", default="rules", choices=("random", "rules"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
        out = asyncio.run(bench(db, args.pairs, args.game_minutes, args.time_scale, args.bot))
    rate = out["accepted"] / out["seconds"] if out["accepted"] else 0
    print(
        f"{args.pairs} pairs, {len(out['rounds'])} rounds, {out['games']} games ({out['by_time']} stopped by time): "
        f"{out['seconds']:.1f} s; {out['accepted']} actions accepted, {rate:.0f} a second"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
