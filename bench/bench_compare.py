"""This tree's speed and memory beside an earlier commit's, in one run, on one core (issue 13).

The earlier commit (``--base``, by default ``ebd3bd4``, the last one before the speed work) is
checked out in a temporary ``git worktree`` (removed at the end, also after an error or Ctrl+C);
"now" is the working tree this script is in (its ``src/``, with whatever changes it has). Every
measurement is a subprocess of this interpreter with ``PYTHONPATH=<tree>/src`` (which checks
that it imported chaodipi from there), pinned to one CPU; within each round the two trees
alternate (base first in odd rounds, now first in even ones) and the table shows the median of
the rounds. The workloads are this folder's code and use only the API both trees have, so both
play the same hands (the same seeds; ``PYTHONHASHSEED=0``) as far as the code behaves the same.

Workloads (``standard`` preset):

* ``random``: random complete hands through the bare engine, as ``bench_hands.py`` plays them
  (:class:`~chaodipi.simulate.RandomPolicy`, games from seed 1 on); hands/s and decisions/s
  (a decision is an action applied, ``len(hand.actions)``).
* ``bots``: four :class:`~chaodipi.bots.random_bot.RandomBot` through
  :func:`chaodipi.bots.base.run_hand`, a :meth:`Hand.view <chaodipi.hand.Hand.view>` per decision.
* ``rules-bots``: the same with four :class:`~chaodipi.bots.rules_bot.RulesBot`.
* ``views``: the server's load: the hands of ``random`` with, after every card dealt and every
  action, the view of each of the four seats built (the driver's ``after``); views/s and hands/s.
* ``playouts``: rules-policy playouts from a position (``Position.in_play(...).hand()``;
  ``Hand.in_play`` before issue 19), as ``bench_bots.py`` measures them (the search bot's unit of work).
* ``memory``: ``bench_memory.py``'s figures (bytes per finished hand, per stored game, cache
  sizes); measured once per tree, not per round (they do not vary with the machine's load).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from bench_common import FAST_PYTHON, compiled_build, cpu_model, pin

HERE = Path(__file__).resolve().parent
NOW_TREE = HERE.parent
DEFAULT_BASE = "ebd3bd4"
PRESET = "standard"
TIMED = ["random", "bots", "rules-bots", "views", "playouts"]
WORKLOADS = [*TIMED, "memory"]
#: per timed workload: (count in the result, unit shown), the rates reported
RATES: dict[str, list[tuple[str, str]]] = {
    "random": [("hands", "hands/s"), ("decisions", "decisions/s")],
    "bots": [("hands", "hands/s"), ("decisions", "decisions/s")],
    "rules-bots": [("hands", "hands/s"), ("decisions", "decisions/s")],
    "views": [("views", "views/s"), ("hands", "hands/s")],
    "playouts": [("playouts", "playouts/s")],
}
#: the tree argument of a measurement of the compiled build (make fast's venv, a third column when it is there)
COMPILED = "compiled"
#: the decisions of the first hands played, compared between the trees ("the same hands?")
FINGERPRINT = 30


# --- measuring (runs in a subprocess, chaodipi from the tree under test) ----------------------


def tally(hands: Iterator[Any]) -> dict[str, Any]:
    """Hands and decisions of the hands as they are played (a timed iterator), and the first hands' decisions."""
    count = decisions = 0
    first: list[int] = []
    start = time.perf_counter()
    for hand in hands:
        count += 1
        decisions += len(hand.actions)
        if count <= FINGERPRINT:
            first.append(len(hand.actions))
    return {"hands": count, "decisions": decisions, "seconds": time.perf_counter() - start, "first": first}


def measure_random(seconds: float) -> dict[str, Any]:
    from bench_hands import random_hands  # the hands bench_hands.py measures, from this folder

    return tally(random_hands(PRESET, seconds))


def measure_bots(seconds: float, make_bot: Callable[[int], Any]) -> dict[str, Any]:
    """Hands of four bots (``make_bot(seat)``) through the bots' driver, games from seed 1 on."""
    from bench_hands import settled_hands

    from chaodipi.bots.base import run_hand

    bots = [make_bot(seat) for seat in range(4)]
    return tally(settled_hands(PRESET, seconds, lambda hand: run_hand(hand, bots)))


def measure_views(seconds: float) -> dict[str, Any]:
    """The hands of ``random`` (same seeds, same policy), every seat's view built after each card and action."""
    import random

    from bench_hands import settled_hands

    from chaodipi import simulate
    from chaodipi.driver import run_hand
    from chaodipi.hand import Hand

    policy = simulate.RandomPolicy(random.Random(PRESET))  # as bench_hands.random_hands
    views = 0

    def show(hand: Hand) -> None:
        nonlocal views
        for seat in range(4):
            hand.view(seat)
        views += 4

    def play(hand: Hand) -> None:
        run_hand(hand, [policy.decide] * 4, asks=simulate._new_bid_possible, after=show)  # as simulate.play_hand

    start = time.perf_counter()
    hands = sum(1 for _ in settled_hands(PRESET, seconds, play))
    return {"views": views, "hands": hands, "seconds": time.perf_counter() - start}


def measure_playouts(seconds: float) -> dict[str, Any]:
    from bench_bots import playouts_per_second  # bench_bots.py's own measurement, from this folder

    rate, n = playouts_per_second(seconds)
    return {"playouts": n, "seconds": n / rate}


def measure_memory() -> dict[str, Any]:
    from bench_memory import flat, measure

    result = measure()
    return {"flat": flat(result), "full": result}


def worker(what: str, src: str, seconds: float, cpu: int | None) -> None:
    pin(cpu)
    import chaodipi

    where = Path(chaodipi.__file__).resolve()
    if src == COMPILED:
        import chaodipi.play

        if chaodipi.play.__file__.endswith(".py"):
            sys.exit(f"bench_compare: the compiled build's chaodipi.play is {chaodipi.play.__file__}")
    elif not where.is_relative_to(Path(src).resolve()):
        sys.exit(f"bench_compare: chaodipi was imported from {where}, not from {src}")
    if what == "random":
        result = measure_random(seconds)
    elif what == "bots":
        from chaodipi.bots.random_bot import RandomBot

        result = measure_bots(seconds, lambda seat: RandomBot(seed=seat))
    elif what == "rules-bots":
        from chaodipi.bots.rules_bot import RulesBot

        result = measure_bots(seconds, lambda seat: RulesBot(seed=seat))
    elif what == "views":
        result = measure_views(seconds)
    elif what == "playouts":
        result = measure_playouts(seconds)
    elif what == "memory":
        result = measure_memory()
    else:
        sys.exit(f"bench_compare: no workload {what!r}")
    result["chaodipi"] = str(where.parent)
    result["python"] = platform.python_version()
    print(json.dumps(result))


# --- orchestration ---------------------------------------------------------------------------


def git(*args: str, cwd: Path = NOW_TREE) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def measure(what: str, tree: Path | None, seconds: float, cpu: int | None) -> dict[str, Any]:
    """One measurement of ``tree`` (None: the compiled build of this tree, make fast's venv)."""
    src = COMPILED if tree is None else str(tree / "src")
    python = str(FAST_PYTHON) if tree is None else sys.executable
    cmd = [python, str(HERE / "bench_compare.py"), "--worker", what, "--tree", src]
    cmd += ["--seconds", str(seconds)]
    if cpu is not None:
        cmd += ["--cpu", str(cpu)]
    # Only the tree under test on the path (the editable install's src/ comes after it); the same hash seed for all.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONPATH", None)
    if tree is not None:
        env["PYTHONPATH"] = src
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tree or "/")
    if done.returncode != 0:
        raise RuntimeError(f"{what} on {tree} failed ({done.returncode}):\n{done.stderr.strip()}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def describe_now() -> str:
    head = git("log", "-1", "--format=%h %<(60,trunc)%s").rstrip()
    changed = git("status", "--porcelain")
    if not changed:
        return head
    in_src = any(line[3:].startswith("src/") for line in changed.splitlines())
    return f"{head} + dirty ({'src/ changed' if in_src else 'outside src/ only'})"


class Interrupted(Exception):
    pass


def on_term(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"signal {signum}")


def ratio(now: float, base: float) -> float:
    return now / base if base else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default=DEFAULT_BASE, help=f"the commit to compare with (default {DEFAULT_BASE})")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0, help="per workload, tree and round")
    ap.add_argument("--workload", action="append", choices=WORKLOADS, help="only these (repeatable; default all)")
    ap.add_argument("--cpu", type=int, help="the CPU to pin to (default: the highest one allowed)")
    ap.add_argument("--json", metavar="OUT", help="write the numbers to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.tree, args.seconds, args.cpu)
        return

    workloads = [w for w in WORKLOADS if w in (args.workload or WORKLOADS)]
    cpu = args.cpu
    if cpu is None and hasattr(os, "sched_getaffinity"):
        cpu = max(os.sched_getaffinity(0))
    try:
        base_commit = git("rev-parse", "--verify", f"{args.base}^{{commit}}")
    except (OSError, subprocess.CalledProcessError):
        print(f"bench_compare: skipped, {args.base} is not a commit of this repository (or git is missing)")
        return
    facts: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": f"{os.cpu_count()} (pinned to cpu {cpu})",
        "python": platform.python_version(),
        "base": git("log", "-1", "--format=%h %<(60,trunc)%s", base_commit).rstrip(),
        "now": describe_now(),
        "rounds": args.rounds,
        "seconds": args.seconds,
    }

    signal.signal(signal.SIGTERM, on_term)
    tmp = Path(tempfile.mkdtemp(prefix="chaodipi-base-"))
    base_tree = tmp / "base"
    trees: dict[str, Path | None] = {"base": base_tree, "now": NOW_TREE}
    if compiled_build():
        trees["compiled"] = None
        facts["compiled"] = f"{FAST_PYTHON.parent.parent.name} (make fast): this tree, compiled with mypyc"
    else:
        print(f"no compiled build ({FAST_PYTHON.parent.parent.name}; make fast makes it): base and now only")
    sides = list(trees)
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {w: {s: [] for s in sides} for w in workloads}
    try:
        git("worktree", "add", "--detach", str(base_tree), base_commit)
        for r in range(args.rounds):
            order = sides if r % 2 == 0 else sides[::-1]
            for w in workloads:
                if w == "memory" and r > 0:
                    continue
                for side in order:
                    if w == "memory" and side == "compiled":
                        continue  # (tracemalloc sees the Python objects: the compiled classes' sizes differ little)
                    runs[w][side].append(measure(w, trees[side], args.seconds, cpu))
            print(f"round {r + 1}/{args.rounds} done", flush=True)
    except (KeyboardInterrupt, Interrupted) as exc:
        sys.exit(f"bench_compare: interrupted ({str(exc) or 'Ctrl+C'}); the base worktree is removed")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base_tree)], cwd=NOW_TREE, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=NOW_TREE, capture_output=True)

    for side in sides:
        got = [runs[w][side][0]["chaodipi"] for w in workloads if runs[w][side]]
        facts[f"{side} src"] = got[0] if got else "?"  # (checked by the worker)
    rows: list[dict[str, Any]] = []
    for w in workloads:
        if w == "memory":
            base_m, now_m = runs[w]["base"][0]["flat"], runs[w]["now"][0]["flat"]
            for label, b in base_m.items():
                n = now_m.get(label, float("nan"))
                rows.append({"workload": "memory", "unit": label, "base": b, "now": n, "ratio": ratio(n, b)})
            continue
        for count, unit in RATES[w]:
            rates = {s: [x[count] / x["seconds"] for x in runs[w][s]] for s in sides}
            per_round = [ratio(n, b) for b, n in zip(rates["base"], rates["now"], strict=True)]
            b, n = statistics.median(rates["base"]), statistics.median(rates["now"])
            row = {
                "workload": w,
                "unit": unit,
                "base": b,
                "now": n,
                "ratio": ratio(n, b),
                "round ratios": per_round,
                "spread": {s: (max(v) - min(v)) / statistics.median(v) for s, v in rates.items()},
            }
            if "compiled" in rates:
                row["compiled"] = statistics.median(rates["compiled"])
                row["compiled ratio"] = ratio(row["compiled"], b)
            rows.append(row)

    for k, v in facts.items():
        print(f"{k:9} {v}")
    print()
    fast = "compiled" in sides
    head = f"{'workload':11} {'unit':38} {'base':>12} {'now':>12} {'now ÷ base':>11}"
    if fast:
        head += f" {'compiled':>12} {'compiled ÷ base':>16}"
    print(f"{head}  now ÷ base per round (spread base/now)")
    for row in rows:
        extra = ""
        if "round ratios" in row:
            rr = " ".join(f"{x:.2f}" for x in row["round ratios"])
            extra = f"  {rr} (±{row['spread']['base'] / 2:.0%}/±{row['spread']['now'] / 2:.0%})"
        figures = f"{row['base']:12,.0f} {row['now']:12,.0f} {row['ratio']:10.2f}x"
        if fast:
            figures += f" {row['compiled']:12,.0f} {row['compiled ratio']:15.2f}x" if "compiled" in row else " " * 29
        print(f"{row['workload']:11} {row['unit']:38} {figures}{extra}")
    same: list[str] = []
    for w in workloads:
        firsts = [x["first"] for side in sides for x in runs[w][side] if "first" in x]
        if firsts:
            n = min(len(f) for f in firsts)
            same.append(f"{w} {'yes' if len({tuple(f[:n]) for f in firsts}) == 1 else 'NO'} ({n} hands)")
    if same:
        print(f"\nsame play (decisions of the first hands, {' and '.join(sides)}, every round): {', '.join(same)}")
    if args.json:
        out = {"machine": facts, "rows": rows, "runs": runs}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
