"""The learning environment's speed beside RLCard's Dou Dizhu environment, on one core (issue 25).

What is measured is the loop a learner runs, with uniformly random legal actions, complete episodes only:

* chaodipi: ``chaodipi.rl.env("standard")`` (hand mode: one hand an episode, PettingZoo's wrappers on), reset
  from ``--seed`` and then without a seed; for each agent ``env.last()`` (the observation: state vector, listed
  actions, mask) and ``env.step`` with an index drawn from the mask by numpy. A step is one ``env.step`` of an
  agent to act (the four steps of the finished agents that end an AEC episode are not counted); a hand is an
  episode. When ``make fast`` has made the compiled build (``.venv-fast``) and it has PettingZoo, the same loop
  is measured there too, a row of its own.
* RLCard: ``rlcard.make("doudizhu", config={"seed": s})``; ``env.reset()``, then ``RandomAgent.step(state)``
  and ``env.step(action)`` until ``env.is_over()``; a step is one ``env.step``, a game is a hand of Dou Dizhu.

RLCard runs in ``bench/.peers-venv``, made as ``bench_peers.py`` makes it (``pip install rlcard``); where it cannot
be made, its row is left out and the reason printed. Every measurement is a subprocess pinned to one CPU; rounds
alternate the subjects so the machine's load falls on all alike; the table shows the median of the rounds, and
in its last columns chaodipi's steps per second divided by each row's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from bench_common import FAST_PYTHON, compiled_build, cpu_model, pin, require_build
from bench_peers import measure as peers_measure
from bench_peers import peer_env

#: chaodipi's subjects: this install, and the compiled build when ``make fast`` made it (with the rl extra)
OURS = ["chaodipi", "chaodipi-compiled"]
PEER = "rlcard-doudizhu"


# --- measuring (runs in a subprocess: chaodipi's venv or the peer venv) ---------------------


def measure_chaodipi(seconds: float, seed: int) -> dict[str, Any]:
    import numpy as np

    import chaodipi.rl

    env = chaodipi.rl.env("standard")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    hands = steps = 0
    start = time.perf_counter()
    while True:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        hands += 1
        if time.perf_counter() - start >= seconds:
            break
        env.reset()
    elapsed = time.perf_counter() - start
    return {"games": hands, "steps": steps, "seconds": elapsed}


def measure_doudizhu(seconds: float, seed: int) -> dict[str, Any]:
    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent

    np.random.seed(seed)  # RandomAgent draws from numpy's global generator
    env = rlcard.make("doudizhu", config={"seed": seed})
    agents = [RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)]
    games = steps = 0
    start = time.perf_counter()
    while True:
        state, player = env.reset()
        while not env.is_over():
            state, player = env.step(agents[player].step(state))
            steps += 1
        games += 1
        if time.perf_counter() - start >= seconds:
            break
    elapsed = time.perf_counter() - start
    return {"games": games, "steps": steps, "seconds": elapsed}


def worker(what: str, seconds: float, cpu: int | None, seed: int) -> None:
    pin(cpu)
    if what in OURS:
        require_build(what)
        result = measure_chaodipi(seconds, seed)
        import pettingzoo

        result["version"] = f"Python {platform.python_version()}, PettingZoo {pettingzoo.__version__}"
    else:
        result = measure_doudizhu(seconds, seed)
        import rlcard

        result["version"] = f"Python {platform.python_version()}, RLCard {rlcard.__version__}"
    print(json.dumps(result))


# --- orchestration ---------------------------------------------------------------------------


def compiled_with_rl() -> str | None:
    """Why the compiled build cannot be measured, or None when it can."""
    if not compiled_build():
        return f"no compiled build ({FAST_PYTHON.parent.parent.name}: make fast makes it)"
    check = [str(FAST_PYTHON), "-c", "import pettingzoo, gymnasium, numpy"]
    if subprocess.run(check, capture_output=True, cwd="/").returncode != 0:
        return f"the compiled build ({FAST_PYTHON.parent.parent.name}) has no PettingZoo (the rl extra)"
    return None


def measure(what: str, seconds: float, cpu: int | None, seed: int) -> dict[str, Any]:
    """One subject measured in its own process, as bench_peers.py measures its subjects."""
    return peers_measure(what, seconds, cpu, seed, script=__file__)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0, help="per subject per round")
    ap.add_argument("--seed", type=int, default=2026, help="the first round's seed (the next rounds add 1)")
    ap.add_argument("--cpu", type=int, help="the CPU to pin to (default: the highest one allowed)")
    ap.add_argument("--json", metavar="OUT", help="write the numbers to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.seconds, args.cpu, args.seed)
        return

    cpu = args.cpu
    if cpu is None and hasattr(os, "sched_getaffinity"):
        cpu = max(os.sched_getaffinity(0))
    subjects = ["chaodipi"]
    reason = compiled_with_rl()
    if reason is None:
        subjects.append("chaodipi-compiled")
    else:
        print(f"{reason}: the pure build only")
    reason = peer_env()
    if reason is None:
        subjects.append(PEER)
    else:
        print(f"no RLCard environment ({reason}): chaodipi alone")
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in subjects}
    for r in range(args.rounds):
        for s in subjects:
            runs[s].append(measure(s, args.seconds, cpu, args.seed + r))
        print(f"round {r + 1}/{args.rounds} done", flush=True)

    rows: dict[str, dict[str, float]] = {}
    for s, results in runs.items():
        rows[s] = {
            "games/s": statistics.median(x["games"] / x["seconds"] for x in results),
            "steps/s": statistics.median(x["steps"] / x["seconds"] for x in results),
            "steps/game": sum(x["steps"] for x in results) / max(1, sum(x["games"] for x in results)),
        }
    facts = {
        "cpu": cpu_model(),
        "pinned to cpu": cpu,
        **{s: runs[s][0]["version"] for s in subjects},
        "rounds": args.rounds,
        "seconds": args.seconds,
    }
    for k, v in facts.items():
        print(f"{k:18} {v}")
    print()
    labels = {
        "chaodipi": "chaodipi.rl standard hand",
        "chaodipi-compiled": "chaodipi.rl, compiled",
        PEER: "RLCard doudizhu env",
    }
    ours = [s for s in OURS if s in rows]
    heads = {"chaodipi": "pure ÷", "chaodipi-compiled": "compiled ÷"}
    print(
        f"{'environment':28} {'episodes/s':>10} {'steps/s':>10} {'steps/episode':>14}"
        + "".join(f" {heads[s]:>11}" for s in ours)
    )
    for s, row in rows.items():
        print(
            f"{labels[s]:28} {row['games/s']:10.1f} {row['steps/s']:10.0f} {row['steps/game']:14.1f}"
            + "".join(f" {rows[o]['steps/s'] / row['steps/s']:10.2f}x" for o in ours)
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": facts, "median": rows, "runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()
