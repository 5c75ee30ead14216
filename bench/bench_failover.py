"""How long a platform takes to take over the tables of a process killed with SIGKILL (issue 22).

Three ``chaodipi serve --redis`` processes on a fresh PostgreSQL schema; six tables (three rules
bots each, playing) made through the lobbies in turn, so that each process runs two. Then the
process that runs the first table is killed with SIGKILL, and the time until every one of its
tables is claimed by another process (the store's ``owner`` and ``epoch``) is measured, for
``--trials`` fresh platforms. The bound is the lease (``--lease``) plus the one-second round in
which the live processes look for tables nobody holds.

    python bench/bench_failover.py --db postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bench_server import make_database  # noqa: E402

from chaodipi.server.store import Store  # noqa: E402
from server_helpers import QUICK_DECLARE, ServerProcess, free_port, new_table  # noqa: E402

BOTS = {"1": "rules", "2": "rules", "3": "rules"}


async def _trial(procs: list[ServerProcess], store: Store) -> tuple[float, int]:
    tables = [await new_table(procs[k % 3].base, QUICK_DECLARE, bots=BOTS, seed=k) for k in range(6)]
    await asyncio.sleep(2)  # (the tables play)
    victim = store.owners([tables[0]])[tables[0]]
    assert victim is not None
    mine = [t for t in tables if (o := store.owners([t])[t]) is not None and o.owner == victim.owner]
    killed = next(p for p in procs if p.owner == victim.owner)
    killed.kill()
    start = time.monotonic()
    while True:
        owners = store.owners(mine)
        if all(o is not None and o.owner != victim.owner and o.epoch > victim.epoch for o in owners.values()):
            return time.monotonic() - start, len(mine)
        if time.monotonic() - start > 120:
            raise SystemExit("the tables were not taken over in 120 s")
        await asyncio.sleep(0.05)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="postgresql+psycopg://…: a fresh schema there for each trial")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    ap.add_argument("--lease", type=float, default=8.0, help="the processes' lease in seconds (their default, 8)")
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    took = []
    for trial in range(args.trials):
        db = make_database(args.db, Path("."))
        extra = ("--redis", args.redis, "--lease", str(args.lease), "--bot-delay-ms", "50", "--deal-ms", "10")
        procs = [ServerProcess(db.url, free_port(), *extra, owner=f"node{k}") for k in range(3)]
        store = Store(db.url)
        try:
            for p in procs:
                p.start()
            seconds, count = asyncio.run(_trial(procs, store))
        finally:
            store.close()
            for p in procs:
                p.stop()
            db.close()
        took.append(seconds)
        print(f"trial {trial + 1}: the killed process's {count} tables taken over {seconds:.2f} s after SIGKILL")
    print(
        f"lease {args.lease:g} s: taken over after {min(took):.2f} to {max(took):.2f} s "
        f"(mean {statistics.mean(took):.2f} s, {len(took)} trials)"
    )


if __name__ == "__main__":
    main()
