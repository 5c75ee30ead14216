"""This tree's speed and memory beside an earlier commit's, in one run, on one core (issues 13 and 24).

The earlier commit (``--base``, by default ``e271dbb``, the last one before issue 24's card sets as
bit masks; issue 13 compared with ``ebd3bd4``, the last one before the speed work) is checked out in
a temporary ``git worktree`` (removed at the end, also after an error or Ctrl+C); "now" is the
working tree this script is in (its ``src/``, with whatever changes it has), and, when ``make fast``
has made ``.venv-fast``, this tree's compiled build as a third column. Every measurement is a
subprocess of this interpreter (the compiled build's: of that venv's) with ``PYTHONPATH=<tree>/src``
(which checks that it imported chaodipi from there), pinned to one CPU; within each round the trees
alternate (base first in odd rounds, now first in even ones) and the table shows the median of the
rounds. The workloads are this folder's code and use only the API both trees have, so both play the
same hands (the same seeds; ``PYTHONHASHSEED=0``) as far as the code behaves the same.

Workloads (``standard`` preset; ``--workload``/``--only`` picks some, e.g. ``--only search,table-cpu``):

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
* ``search``: the search bot (:class:`~chaodipi.bots.search_bot.SearchBot`, its defaults: 0.25 s per
  decision, at most 40 sampled deals, 5 candidates raced) on fixed positions: four rules bots play
  games from seed 1 on, and at every ``SEARCH_STRIDE``-th play a fresh ``SearchBot(seed=k)`` decides on
  that view (its action is not played: the rules bot's is, so both trees see the same positions) until
  ``--seconds`` ÷ budget decisions (at least ``SEARCH_MIN``) have searched (a decision with one
  candidate, or in the last trick, makes no playout and is not counted). Reported: playouts per
  decision (the time budget's, or the 40 deals' cap, whichever ends the search first) and playouts/s
  while searching. The playouts are counted at ``SearchBot._rollout`` (pure Python); the compiled
  bot's calls cannot be hooked, so there they are counted from the outcome lists the bot averages
  with ``statistics.fmean`` (the pure trees count both ways and check that the two agree).
* ``table-cpu``: the game server's CPU per accepted action, ``bench_table_cpu.py``'s workload (8
  ``standard`` tables at once in one event loop on a fake clock, one whole game each, SQLite, the
  process's CPU per accepted action, dealing included); it takes as long as it takes (``--seconds``
  does not apply). Lower is better: its ratios are base ÷ now (and base ÷ compiled).
* ``memory``: ``bench_memory.py``'s figures (bytes per finished hand, per stored game, cache
  sizes); measured once per tree, not per round (they do not vary with the machine's load).
"""

from __future__ import annotations

import argparse
import contextlib
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
DEFAULT_BASE = "e271dbb"
PRESET = "standard"
TIMED = ["random", "bots", "rules-bots", "views", "playouts", "search", "table-cpu"]
WORKLOADS = [*TIMED, "memory"]
#: per timed workload, the figures reported: (numerator, denominator in the result, unit shown)
RATES: dict[str, list[tuple[str, str, str]]] = {
    "random": [("hands", "seconds", "hands/s"), ("decisions", "seconds", "decisions/s")],
    "bots": [("hands", "seconds", "hands/s"), ("decisions", "seconds", "decisions/s")],
    "rules-bots": [("hands", "seconds", "hands/s"), ("decisions", "seconds", "decisions/s")],
    "views": [("views", "seconds", "views/s"), ("hands", "seconds", "hands/s")],
    "playouts": [("playouts", "seconds", "playouts/s")],
    "search": [
        ("playouts", "decisions", "playouts per decision (0.25 s budget)"),
        ("playouts", "seconds", "playouts/s while searching"),
    ],
    "table-cpu": [("cpu_ms", "actions", "CPU ms per accepted action (base÷now)")],
}
#: the workloads whose figure is better lower (a cost): their ratios are base ÷ now
LOWER_IS_BETTER = {"table-cpu"}
#: what a workload's "first" fingerprint lists (default: the decisions of the first hands)
FINGERPRINTS = {"search": "positions searched"}
#: the tree argument of a measurement of the compiled build (make fast's venv, a third column when it is there)
COMPILED = "compiled"
#: the decisions of the first hands played, compared between the trees ("the same hands?")
FINGERPRINT = 30
#: search: the search bot decides at every SEARCH_STRIDE-th play of the rules bots' hands, at least SEARCH_MIN times
SEARCH_STRIDE = 7
SEARCH_MIN = 4
#: table-cpu: bench_table_cpu.py's defaults (8 tables, one game each, SQLite)
TABLE_CPU = {"db": None, "tables": 8, "games": 1, "rules": PRESET, "seed": 11}


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


class PlayoutCounter:
    """The search bot's playouts in the decisions measured, counted two ways (see the module docstring).

    ``calls``: calls of ``SearchBot._rollout`` (patched on the class: pure Python only). ``lists``: the
    candidates' outcome lists the bot hands to ``statistics.fmean`` (each list's longest length, summed;
    the paired differences it hands to ``statistics.stdev`` too are not outcome lists), which the
    compiled bot looks up on the module at each call as well.
    """

    def __init__(self, search_bot: type) -> None:
        import statistics as stats

        self.calls = 0
        self.lengths: dict[int, int] = {}
        self.diffs: set[int] = set()
        rollout = search_bot._rollout  # type: ignore[attr-defined]
        fmean, stdev = stats.fmean, stats.stdev

        def counted_rollout(bot: Any, *args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return rollout(bot, *args, **kwargs)

        def seen_fmean(data: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(data, list):
                self.lengths[id(data)] = max(len(data), self.lengths.get(id(data), 0))
            return fmean(data, *args, **kwargs)

        def seen_stdev(data: Any, *args: Any, **kwargs: Any) -> Any:
            self.diffs.add(id(data))
            return stdev(data, *args, **kwargs)

        with contextlib.suppress(TypeError, AttributeError):  # (a compiled class: counted by the lists only)
            search_bot._rollout = counted_rollout  # type: ignore[attr-defined]
        stats.fmean, stats.stdev = seen_fmean, seen_stdev

    def start(self) -> None:
        self.calls = 0
        self.lengths.clear()
        self.diffs.clear()

    def by_lists(self) -> int:
        return sum(n for key, n in self.lengths.items() if key not in self.diffs)


def measure_search(seconds: float) -> dict[str, Any]:
    """The search bot's playouts per decision on the rules bots' positions (see the module docstring)."""
    from chaodipi.bots.base import run_hand
    from chaodipi.bots.rules_bot import RulesBot
    from chaodipi.bots.search_bot import SearchBot
    from chaodipi.game import Game
    from chaodipi.hand import Action, Phase, View
    from chaodipi.rules import RuleSet

    budget = SearchBot().budget
    wanted = max(SEARCH_MIN, round(seconds / budget))
    counter = PlayoutCounter(SearchBot)
    positions: list[int] = []
    per_decision: list[int] = []
    disagree = 0
    spent = 0.0
    plays = 0

    class Watched:
        """A rules bot that lets the search bot decide, unplayed, at every SEARCH_STRIDE-th play."""

        name = "watched"

        def __init__(self, seat: int) -> None:
            self.bot = RulesBot(seed=seat)

        def act(self, view: View) -> Action | None:
            nonlocal plays, spent, disagree
            if view.phase == Phase.PLAY and len(positions) < wanted:
                plays += 1
                if plays % SEARCH_STRIDE == 0:
                    counter.start()
                    start = time.perf_counter()
                    SearchBot(seed=plays).act(view)
                    took = time.perf_counter() - start
                    lists = counter.by_lists()
                    n = counter.calls or lists  # (no calls counted: the compiled class)
                    if counter.calls and lists != counter.calls:
                        disagree += 1
                    if n:
                        positions.append(plays)
                        per_decision.append(n)
                        spent += took
            return self.bot.act(view)

    rules = RuleSet.preset(PRESET)
    bots = [Watched(seat) for seat in range(4)]
    seed = 0
    while len(positions) < wanted:
        seed += 1
        game = Game(rules, seed)
        while not game.over and len(positions) < wanted:
            run_hand(game.new_hand(), bots)
            game.finish_hand()
        if plays > 100 * SEARCH_STRIDE * wanted:
            raise RuntimeError(f"search: {len(positions)} of {wanted} decisions counted playouts in {plays} plays")
    return {
        "playouts": sum(per_decision),
        "decisions": len(positions),
        "seconds": spent,
        "budget": budget,
        "per decision": per_decision,
        "counted by": "SearchBot._rollout" if counter.calls else "statistics.fmean lists",
        "counts disagree": disagree,
        "first": positions,
    }


def measure_table_cpu() -> dict[str, Any]:
    import tempfile

    from bench_table_cpu import measure as table_cpu  # bench_table_cpu.py's own measurement, from this folder

    with tempfile.TemporaryDirectory() as tmp:
        result = table_cpu(argparse.Namespace(**TABLE_CPU), Path(tmp))
    actions = result["actions"]
    return {
        "cpu_ms": result["cpu_ms_per_action"] * actions,
        "actions": actions,
        "split_ms": result["split_ms"],
        "messages": result["messages"],
        "wall_s": result["wall_s"],
        "first": [actions],
    }


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
    elif what == "search":
        result = measure_search(seconds)
    elif what == "table-cpu":
        result = measure_table_cpu()
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


def ratio(now: float, base: float, lower_is_better: bool = False) -> float:
    """now ÷ base, or base ÷ now for a cost (so that above 1 is better either way)."""
    if lower_is_better:
        now, base = base, now
    return now / base if base else float("nan")


def figure(value: float, width: int = 12) -> str:
    return f"{value:{width},.0f}" if abs(value) >= 100 else f"{value:{width}.2f}"


def workload_list(text: str) -> list[str]:
    names = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in names if w not in WORKLOADS]
    if unknown:
        raise argparse.ArgumentTypeError(f"no workload {', '.join(unknown)} (choose from {', '.join(WORKLOADS)})")
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default=DEFAULT_BASE, help=f"the commit to compare with (default {DEFAULT_BASE})")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0, help="per workload, tree and round")
    ap.add_argument(
        "--workload",
        "--only",
        action="append",
        type=workload_list,
        help=f"only these (comma-separated and/or repeated; default all: {','.join(WORKLOADS)})",
    )
    ap.add_argument("--cpu", type=int, help="the CPU to pin to (default: the highest one allowed)")
    ap.add_argument("--json", metavar="OUT", help="write the numbers to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.tree, args.seconds, args.cpu)
        return

    chosen = {w for names in args.workload or [WORKLOADS] for w in names}
    workloads = [w for w in WORKLOADS if w in chosen]
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
        low = w in LOWER_IS_BETTER
        for count, per, unit in RATES[w]:
            rates = {s: [x[count] / x[per] for x in runs[w][s]] for s in sides}
            per_round = [ratio(n, b, low) for b, n in zip(rates["base"], rates["now"], strict=True)]
            b, n = statistics.median(rates["base"]), statistics.median(rates["now"])
            row = {
                "workload": w,
                "unit": unit,
                "base": b,
                "now": n,
                "ratio": ratio(n, b, low),
                "round ratios": per_round,
                "spread": {s: (max(v) - min(v)) / statistics.median(v) for s, v in rates.items()},
            }
            if "compiled" in rates:
                row["compiled"] = statistics.median(rates["compiled"])
                row["compiled ratio"] = ratio(row["compiled"], b, low)
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
        figures = f"{figure(row['base'])} {figure(row['now'])} {row['ratio']:10.2f}x"
        if fast:
            figures += f" {figure(row['compiled'])} {row['compiled ratio']:15.2f}x" if "compiled" in row else " " * 29
        print(f"{row['workload']:11} {row['unit']:38} {figures}{extra}")
    for w in workloads:
        if w in LOWER_IS_BETTER:
            print(f"({w}: lower is better, its ratios are base ÷ now{' and base ÷ compiled' if fast else ''})")
    if "table-cpu" in workloads:
        for side in sides:
            splits = [x["split_ms"] for x in runs["table-cpu"][side]]
            parts = "  ".join(f"{k} {statistics.median(s.get(k, 0.0) for s in splits):.3f}" for k in splits[0])
            print(f"table-cpu, {side}: ms of CPU per action, median of the rounds: {parts}")
    if "search" in workloads:
        for side in sides:
            got = runs["search"][side]
            counts = [n for x in got for n in x["per decision"]]
            bad = sum(x["counts disagree"] for x in got)
            check = f", the two counts disagreed in {bad} decisions" if bad else ""
            print(
                f"search, {side}: playouts per decision {min(counts)}-{max(counts)} over {len(counts)} decisions, "
                f"budget {got[0]['budget']} s, counted by {got[0]['counted by']}{check}"
            )
    same: list[str] = []
    for w in workloads:
        firsts = [x["first"] for side in sides for x in runs[w][side] if "first" in x]
        if firsts:
            n = min(len(f) for f in firsts)
            if w == "table-cpu":  # (the counts themselves, the same in every run or not)
                what = " / ".join(f"{a:,}" for a in sorted({f[0] for f in firsts})) + " accepted actions a run"
            else:
                what = f"{n} {FINGERPRINTS.get(w, 'hands')}"
            same.append(f"{w} {'yes' if len({tuple(f[:n]) for f in firsts}) == 1 else 'NO'} ({what})")
    if same:
        print(f"\nsame play (decisions of the first hands, {' and '.join(sides)}, every round): {', '.join(same)}")
    if args.json:
        out = {"machine": facts, "rows": rows, "runs": runs}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
