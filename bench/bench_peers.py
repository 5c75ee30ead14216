"""chaodipi's speed beside RLCard's card games, in one run, on one core (issue 13).

What is measured, per engine and loop, is complete games played by uniformly random legal
choices: games per second and decisions (actions applied) per second.

* chaodipi: random complete hands of the standard preset through the bare engine
  (:func:`chaodipi.simulate.play_hand` with :class:`~chaodipi.simulate.RandomPolicy`: deal,
  bids, burial, frying, 25 tricks, settlement; every action checked by the engine), games
  played from seed 1 on as in ``bench_hands.py``. A decision is an action applied to the
  hand (``len(hand.actions)``); a "game" here is one hand. When ``make fast`` has made the
  compiled build (``.venv-fast``), the same hands are measured on it too, a row of their own.
* RLCard (Bridge, UNO, Dou Dizhu, Gin Rummy), two ways each:
  ``core``: the bare game class (``init_game()``, then ``step()`` with a legal action picked
  by a seeded ``random.Random`` until ``is_over()``); a decision is one ``step``.
  ``env``: the usual loop, ``rlcard.make(name, config={'seed': s})`` with ``RandomAgent`` in
  every seat and ``env.run(is_training=False)`` per game; its decisions are the actions in
  the returned trajectories (every entry that is not a state dict), which is one per step.

RLCard runs in its own environment, ``bench/.peers-venv`` (created here with ``python -m venv``
and ``pip install rlcard``); where that cannot be made, the benchmark says why and skips.
Every measurement is a separate subprocess pinned to one CPU; rounds alternate (chaodipi,
then each peer) so the machine's load falls on all alike, and the table shows the median of
the rounds. Only complete games are counted; the clock runs until the game in play ends.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_common import FAST_PYTHON, compiled_build, cpu_model, pin, require_build

HERE = Path(__file__).resolve().parent
PEERS_VENV = HERE / ".peers-venv"
PEER_PYTHON = PEERS_VENV / "bin" / "python"
PEER_GAMES = ["bridge", "uno", "doudizhu", "gin-rummy"]
#: chaodipi's own subjects: the pure-Python install, and the compiled build when ``make fast`` made it
OURS = ["chaodipi", "chaodipi-compiled"]
LOOPS = ["core", "env"]


# --- measuring (runs in a subprocess: chaodipi's venv or the peer venv) ---------------------


def measure_chaodipi(seconds: float) -> dict[str, float]:
    from bench_hands import random_hands  # the hands bench_hands.py measures, from this folder

    games = decisions = 0
    start = time.perf_counter()
    for hand in random_hands("standard", seconds):
        games += 1
        decisions += len(hand.actions)
    elapsed = time.perf_counter() - start
    return {"games": games, "decisions": decisions, "seconds": elapsed}


def measure_rlcard_core(name: str, seconds: float, seed: int) -> dict[str, float]:
    import random
    from collections.abc import Callable

    import numpy as np
    from rlcard.games.bridge.game import BridgeGame
    from rlcard.games.doudizhu.game import DoudizhuGame
    from rlcard.games.gin_rummy.game import GinRummyGame
    from rlcard.games.uno.game import UnoGame

    # The legal actions each game class offers (the RLCard envs read them the same way).
    games_by_name: dict[str, tuple[Callable[[], Any], Callable[[Any], list[Any]]]] = {
        "bridge": (BridgeGame, lambda g: g.judger.get_legal_actions()),
        "uno": (lambda: UnoGame(num_players=2), lambda g: g.get_legal_actions()),  # the env's default
        "doudizhu": (DoudizhuGame, lambda g: g.state["actions"]),
        "gin-rummy": (GinRummyGame, lambda g: g.judge.get_legal_actions()),
    }
    make, legal_actions = games_by_name[name]
    game = make()
    game.np_random = np.random.RandomState(seed)
    rng = random.Random(seed)
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game.init_game()
        while not game.is_over():
            game.step(rng.choice(legal_actions(game)))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"games": games, "decisions": decisions, "seconds": elapsed}


def measure_rlcard_env(name: str, seconds: float, seed: int) -> dict[str, float]:
    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent

    np.random.seed(seed)  # RandomAgent draws from numpy's global generator
    env = rlcard.make(name, config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions)] * env.num_players)
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        trajectories, _ = env.run(is_training=False)
        decisions += sum(1 for t in trajectories for x in t if not isinstance(x, dict))
        games += 1
    elapsed = time.perf_counter() - start
    return {"games": games, "decisions": decisions, "seconds": elapsed}


def worker(what: str, seconds: float, cpu: int | None, seed: int) -> None:
    pin(cpu)
    if what in OURS:
        require_build(what)
        result = measure_chaodipi(seconds)
        result["version"] = platform.python_version()
    else:
        loop, name = what.split(":")
        fn = measure_rlcard_core if loop == "core" else measure_rlcard_env
        result = fn(name, seconds, seed)
        import rlcard

        result["version"] = rlcard.__version__
    print(json.dumps(result))


# --- orchestration ---------------------------------------------------------------------------


def peer_env() -> str | None:
    """Make (once) the peer venv with rlcard; the reason it cannot be had, or None."""
    check = [str(PEER_PYTHON), "-c", "import rlcard, rlcard.agents"]
    if PEER_PYTHON.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return None
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(PEERS_VENV)],
        [str(PEER_PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "rlcard"],
    ]
    print(f"making {PEERS_VENV.relative_to(HERE.parent)} (pip install rlcard) ...", flush=True)
    for cmd in steps:
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"{cmd[2]} {cmd[-1]}: {e}"
        if done.returncode != 0:
            lines = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
            return f"{cmd[2]} {cmd[-1]} failed: {lines[-1] if lines else done.returncode}"
    if subprocess.run(check, capture_output=True).returncode != 0:
        return "rlcard installed but does not import"
    return None


def measure(what: str, seconds: float, cpu: int | None, seed: int, *, script: str = __file__) -> dict[str, Any]:
    """One subject measured in its own process: ``script --worker what`` run by chaodipi's Python (``chaodipi``),
    the compiled build's (``chaodipi-compiled``) or the RLCard venv's (anything else); its last line is JSON."""
    python = {"chaodipi": sys.executable, "chaodipi-compiled": str(FAST_PYTHON)}.get(what, str(PEER_PYTHON))
    cmd = [python, script, "--worker", what, "--seconds", str(seconds), "--seed", str(seed)]
    if cpu is not None:
        cmd += ["--cpu", str(cpu)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0, help="per engine/loop per round")
    ap.add_argument("--seed", type=int, default=2026, help="the RLCard games' seed")
    ap.add_argument("--cpu", type=int, help="the CPU to pin to (default: the highest one allowed)")
    ap.add_argument("--json", metavar="OUT", help="write the numbers to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.seconds, args.cpu, args.seed)
        return

    reason = peer_env()
    if reason is not None:
        print(f"bench_peers: skipped, no RLCard environment ({reason})")
        return
    cpu = args.cpu
    if cpu is None and hasattr(os, "sched_getaffinity"):
        cpu = max(os.sched_getaffinity(0))
    ours = ["chaodipi"]
    if compiled_build():
        ours.append("chaodipi-compiled")
    else:
        print(f"no compiled build ({FAST_PYTHON.parent.parent.name}: make fast makes it): the pure one only")
    subjects = ours + [f"{loop}:{game}" for game in PEER_GAMES for loop in LOOPS]
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in subjects}
    for r in range(args.rounds):
        for s in subjects:
            runs[s].append(measure(s, args.seconds, cpu, args.seed + r))
        print(f"round {r + 1}/{args.rounds} done", flush=True)

    rows: dict[str, dict[str, float]] = {}
    for s, results in runs.items():
        rows[s] = {
            "games/s": statistics.median(x["games"] / x["seconds"] for x in results),
            "decisions/s": statistics.median(x["decisions"] / x["seconds"] for x in results),
            "decisions/game": sum(x["decisions"] for x in results) / max(1, sum(x["games"] for x in results)),
        }
    for row in rows.values():
        for s in ours:
            mine = rows[s]["decisions/s"]
            row[f"{s} ratio"] = mine / row["decisions/s"] if row["decisions/s"] else float("nan")

    facts = {
        "cpu": cpu_model(),
        "pinned to cpu": cpu,
        "python": runs["chaodipi"][0]["version"],
        "rlcard": runs[subjects[len(ours)]][0]["version"],
        "rounds": args.rounds,
        "seconds": args.seconds,
    }
    for k, v in facts.items():
        print(f"{k:14} {v}")
    print()
    heads = {"chaodipi": "pure ÷", "chaodipi-compiled": "compiled ÷"}
    print(
        f"{'engine / loop':28} {'games/s':>10} {'decisions/s':>12} {'decisions/game':>15}"
        + "".join(f" {heads[s]:>11}" for s in ours)
    )
    labels = {"chaodipi": "chaodipi (standard)", "chaodipi-compiled": "chaodipi compiled (make fast)"}
    for s, row in rows.items():
        label = labels.get(s) or f"rlcard {s.split(':')[1]} {s.split(':')[0]}"
        print(
            f"{label:28} {row['games/s']:10.1f} {row['decisions/s']:12.0f} {row['decisions/game']:15.1f}"
            + "".join(f" {row[f'{o} ratio']:10.2f}x" for o in ours)
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": facts, "median": rows, "runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()
