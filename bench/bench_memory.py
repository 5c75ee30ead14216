"""Memory per finished hand and per stored game, and the engine's caches (issue 13).

Three figures, for the ``standard`` preset, with :mod:`tracemalloc`:

* per hand: ``--hands`` (200) random hands (the random policy of ``chaodipi simulate``, games
  from seed 1 on, as in ``bench_hands.py``) are played to their settlement and kept in a list;
  what a finished hand retains is the traced memory that is freed when that list is dropped,
  divided by the number of hands (so what the hands share, the caches among it, is not counted);
* per stored game: whole games of :func:`chaodipi.simulate.simulate_game` (seeds 1 to ``--games``):
  the record (:func:`chaodipi.record.game_record`) as compact UTF-8 JSON and gzip'd, and the
  memory the finished :class:`~chaodipi.game.Game` retains (freed when it is dropped), per game
  and per hand in it;
* caches: after ``--cache-hands`` (2,000, then twice as many) further random hands, the size of
  every ``functools.lru_cache`` in chaodipi's modules and of every cache a
  :class:`~chaodipi.trump.TrumpOrder` holds (its ``*_cache`` dicts, summed over the orders alive),
  with the bound the code declares, and the process's resident memory then (with no hand held).
  The caches are read without tracemalloc, which slows the engine about ninefold.

``bench_compare.py`` runs the same measurement (:func:`measure`) on an earlier commit and on
this tree. The numbers are deterministic for a given tree: the same seeds play the same hands.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import random
import statistics
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chaodipi.game import Game
from chaodipi.hand import Hand, Phase
from chaodipi.record import game_record
from chaodipi.rules import RuleSet
from chaodipi.simulate import RandomPolicy, play_hand, simulate_game

PRESET = "standard"


def settled_hands(rules: RuleSet, first_seed: int = 1, policy_seed: str = PRESET) -> Iterator[Hand]:
    """Random hands played to their settlement, game after game from ``first_seed`` on (redeals are skipped)."""
    policy = RandomPolicy(random.Random(policy_seed))
    seed = first_seed
    while True:
        game = Game(rules, seed)
        while not game.over:
            hand = game.new_hand()
            play_hand(hand, policy)
            game.finish_hand()
            if hand.phase == Phase.OVER:
                yield hand
        seed += 1


def rss() -> int | None:
    """This process's resident memory (Linux), after a full collection; None where it cannot be read."""
    gc.collect()
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def traced() -> int:
    """The memory tracemalloc traces now, after a full collection."""
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def hand_memory(n: int) -> dict[str, float]:
    """Bytes a finished hand retains on its own (freed when the hands are dropped), averaged over ``n`` hands."""
    rules = RuleSet.preset(PRESET)
    hands: list[Hand] = []
    for hand in settled_hands(rules):
        hands.append(hand)
        if len(hands) == n:
            break
    held = traced()
    actions = sum(len(h.actions) for h in hands)
    del hands, hand
    freed = held - traced()
    return {"hands": n, "bytes/hand": freed / n, "actions/hand": actions / n}


def game_memory(seeds: int) -> dict[str, float]:
    """Per game of ``simulate_game`` (seeds 1..``seeds``): record bytes (JSON, gzip'd) and retained bytes."""
    rules = RuleSet.preset(PRESET)
    json_bytes: list[int] = []
    gz_bytes: list[int] = []
    retained: list[int] = []
    hands: list[int] = []
    for seed in range(1, seeds + 1):
        game = simulate_game(rules, seed)
        text = json.dumps(game_record(game), ensure_ascii=False, separators=(",", ":")).encode()
        json_bytes.append(len(text))
        gz_bytes.append(len(gzip.compress(text, mtime=0)))
        hands.append(len(game.hands))
        del text
        held = traced()
        del game
        retained.append(held - traced())
    n_hands = sum(hands)
    return {
        "games": seeds,
        "hands/game": n_hands / seeds,
        "record bytes/game": statistics.fmean(json_bytes),
        "record gzip bytes/game": statistics.fmean(gz_bytes),
        "retained bytes/game": statistics.fmean(retained),
        "record bytes/hand": sum(json_bytes) / n_hands,
        "record gzip bytes/hand": sum(gz_bytes) / n_hands,
        "retained bytes/hand in game": sum(retained) / n_hands,
    }


# --- the engine's caches ----------------------------------------------------------------------


def lru_caches() -> dict[str, tuple[int, int | None]]:
    """Every ``functools.lru_cache`` found in chaodipi's loaded modules: name → (entries, maxsize)."""
    found: dict[str, tuple[int, int | None]] = {}
    seen: set[int] = set()
    for modname, module in sorted(sys.modules.items()):
        if not modname.startswith("chaodipi") or module is None:
            continue
        for name, obj in sorted(vars(module).items()):
            info = getattr(obj, "cache_info", None)
            if not callable(info) or id(obj) in seen or getattr(obj, "__module__", None) != modname:
                continue
            seen.add(id(obj))
            ci = info()
            found[f"{modname.removeprefix('chaodipi.')}.{name}"] = (ci.currsize, ci.maxsize)
    return found


def order_caches() -> tuple[int, dict[str, tuple[int, int]]]:
    """The TrumpOrders alive and their ``*_cache`` containers: name → (entries summed, largest in one order)."""
    from chaodipi.trump import TrumpOrder

    orders = [o for o in gc.get_objects() if isinstance(o, TrumpOrder)]
    names = sorted(
        {n for cls in type.mro(TrumpOrder) for n in getattr(cls, "__slots__", ()) if "cache" in n}
        | {n for o in orders[:1] for n in getattr(o, "__dict__", {}) if "cache" in n}
    )
    sizes: dict[str, tuple[int, int]] = {}
    for name in names:
        lens = [len(getattr(o, name)) for o in orders if hasattr(o, name)]
        sizes[name] = (sum(lens), max(lens, default=0))
    return len(orders), sizes


def declared_bounds() -> dict[str, str]:
    """What the code says bounds each TrumpOrder cache (read from the modules where it is declared)."""
    from chaodipi import trump, units

    per_order = getattr(units, "_FORMAT_CACHE_SIZE", None)
    orders = trump._cached.cache_info().maxsize if hasattr(trump, "_cached") else None
    suits = len(getattr(trump, "EFFECTIVE_SUITS", ())) or None
    bounds = {
        "format_cache": f"≤{per_order:,} in all orders (cleared when full)" if per_order else "?",
        "ftk_cache": f"≤{2 * suits}/order (effective suit × lead)" if suits else "?",
        "unit_cache": "2/order (each card's single and pair, 54 each)",
    }
    if orders:
        bounds["orders"] = f"≤{orders} cached (lru)"
    return bounds


def cache_growth(steps: int, per_step: int) -> list[dict[str, Any]]:
    """The caches' sizes after about ``per_step``, 2×``per_step``, … random hands (games from seed 10,001 on).

    Each reading is taken between games, with no game or hand held, once the count is reached.
    """
    rules = RuleSet.preset(PRESET)
    policy = RandomPolicy(random.Random("caches"))
    out: list[dict[str, Any]] = []
    played = 0
    seed = 10_000
    for step in range(1, steps + 1):
        while played < step * per_step:
            seed += 1
            game = Game(rules, seed)
            while not game.over:
                hand = game.new_hand()
                play_hand(hand, policy)
                game.finish_hand()
                played += hand.phase == Phase.OVER
            del game, hand
        n_orders, orders = order_caches()
        out.append(
            {
                "hands": played,
                "target": step * per_step,
                "process RSS bytes": rss(),
                "TrumpOrders alive": n_orders,
                "order caches": {k: {"entries": v[0], "largest": v[1]} for k, v in orders.items()},
                "lru caches": {k: {"entries": v[0], "maxsize": v[1]} for k, v in lru_caches().items()},
            }
        )
    return out


def measure(hands: int = 200, games: int = 5, cache_hands: int = 2000, cache_steps: int = 2) -> dict[str, Any]:
    """All three, in this process (tracemalloc on for the hands and games; the caches are read without it)."""
    import chaodipi

    tracemalloc.start()
    try:
        result: dict[str, Any] = {"chaodipi": str(Path(chaodipi.__file__).resolve().parent)}
        # Warm the shared state first (orders, caches), so what follows measures the hands and games.
        for _, _ in zip(range(20), settled_hands(RuleSet.preset(PRESET), first_seed=9_001), strict=False):
            pass
        result["hand"] = hand_memory(hands)
        result["game"] = game_memory(games)
    finally:
        tracemalloc.stop()
    result["caches"] = cache_growth(cache_steps, cache_hands) if cache_steps > 0 else []
    result["bounds"] = declared_bounds()
    return result


def flat(result: dict[str, Any]) -> dict[str, float]:
    """The headline numbers of :func:`measure` as label → value (for tables and comparisons)."""
    out = {
        "retained bytes per finished hand": result["hand"]["bytes/hand"],
        "record JSON bytes per game": result["game"]["record bytes/game"],
        "record gzip bytes per game": result["game"]["record gzip bytes/game"],
        "retained bytes per finished game": result["game"]["retained bytes/game"],
    }
    for step in result["caches"]:
        n = step["target"]
        entries = sum(c["entries"] for c in step["order caches"].values())
        entries += sum(c["entries"] for c in step["lru caches"].values())
        out[f"cache entries after ≥{n:,} hands"] = entries
    return out


def report(result: dict[str, Any]) -> None:
    h, g = result["hand"], result["game"]
    print(f"chaodipi       {result['chaodipi']}")
    print(f"python         {sys.version.split()[0]}")
    print()
    print(f"{'per finished hand':34} {'':>14}")
    detail = f"({h['hands']} hands, {h['actions/hand']:.0f} actions each)"
    print(f"  {'retained bytes':32} {h['bytes/hand']:14,.0f}   {detail}")
    print(f"{'per stored game':34}   ({g['games']} games of simulate_game, {g['hands/game']:.1f} hands each)")
    for key in ("record bytes", "record gzip bytes", "retained bytes"):
        per_hand = g[f"{key}/hand" if key != "retained bytes" else "retained bytes/hand in game"]
        print(f"  {key:32} {g[f'{key}/game']:14,.0f}   ({per_hand:,.0f} per hand)")
    if not result["caches"]:
        return
    print()
    steps = result["caches"]
    bounds = result["bounds"]
    head = "".join(f"{'after ' + format(s['hands'], ',') + ' hands':>22}" for s in steps)
    print(f"{'cache':34}{head}   bound")
    print(f"  {'TrumpOrders alive':32}" + "".join(f"{s['TrumpOrders alive']:>22,}" for s in steps), end="")
    print(f"   {bounds.get('orders', '')}")
    for name in steps[-1]["order caches"]:
        cells = "".join(
            f"{format(c['entries'], ',') + ' (max ' + format(c['largest'], ',') + ')':>22}"
            for c in (s["order caches"].get(name, {"entries": 0, "largest": 0}) for s in steps)
        )
        print(f"  {'TrumpOrder.' + name:32}{cells}   {bounds.get(name, '?')}")
    for name, last in steps[-1]["lru caches"].items():
        cells = "".join(f"{s['lru caches'].get(name, {'entries': 0})['entries']:>22,}" for s in steps)
        print(f"  {name:32}{cells}   ≤{last['maxsize']} (lru_cache)")
    cells = "".join(f"{s['process RSS bytes'] or 0:>22,}" for s in steps)
    print(f"  {'process RSS bytes, no hand held':32}{cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=200, help="finished hands kept (default 200)")
    ap.add_argument("--games", type=int, default=5, help="games of simulate_game, seeds 1..N (default 5)")
    ap.add_argument("--cache-hands", type=int, default=2000, help="hands between cache readings (default 2000)")
    ap.add_argument("--cache-steps", type=int, default=2, help="cache readings (default 2: 2,000 and 4,000 hands)")
    ap.add_argument("--json", metavar="OUT", help="write the numbers to this file")
    args = ap.parse_args()
    result = measure(args.hands, args.games, args.cache_hands, args.cache_steps)
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
