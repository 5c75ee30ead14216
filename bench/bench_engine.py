"""Engine speed on random deals of a preset, on one core (``make bench``).

Builds a fixed set of situations from seeded random deals (a lead taken from the
leader's hand — a unit or a throw of one suit — and the three other hands), then
times each operation over all of them and prints operations per second.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Callable
from typing import Any

from chaodipi.cards import SUITS, Card, Rank, shuffled_deck
from chaodipi.leads import unit_leads
from chaodipi.play import FollowRule, check_follow, check_throw
from chaodipi.rules import RuleSet
from chaodipi.trick import resolve_trick
from chaodipi.trump import TrumpOrder

Situation = tuple[TrumpOrder, list[Card], list[list[Card]], list[list[Card]]]


def make_situations(preset: str, n: int, seed: int) -> list[Situation]:
    rules = RuleSet.preset(preset)
    rng = random.Random(seed)
    out: list[Situation] = []
    while len(out) < n:
        level = Rank(rng.randint(2, 14))
        trump = rng.choice([*SUITS, None])
        trump_order = TrumpOrder.of(rules, level, trump)
        cards = shuffled_deck(rng)
        hands = [cards[i:100:4] for i in range(4)]
        leads = unit_leads(hands[0], trump_order)
        if rng.random() < 0.2:  # a throw: two or three units of one suit
            suit = rng.choice(leads).suit
            same = [u for u in leads if u.suit == suit]
            picked: list[Card] = []
            for u in rng.sample(same, min(len(same), rng.randint(2, 3))):
                if all(picked.count(c) + u.cards.count(c) <= hands[0].count(c) for c in u.cards):
                    picked.extend(u.cards)
            lead = picked
        else:
            lead = list(rng.choice(leads).cards)
        others = hands[1:]
        plays = [lead]
        for h in others:
            plays.append(list(next(FollowRule(lead, h, trump_order).legal_plays())))
        out.append((trump_order, lead, others, plays))
    return out


def rate(fn: Callable[[], int], seconds: float) -> float:
    done = 0
    start = time.perf_counter()
    while True:
        done += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--preset", default="standard")
    ap.add_argument("--situations", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sits = make_situations(args.preset, args.situations, args.seed)

    def follow_checks() -> int:
        for trump_order, lead, others, plays in sits:
            for h, p in zip(others, plays[1:], strict=True):
                check_follow(lead, h, p, trump_order)
        return 3 * len(sits)

    def generations() -> int:
        for trump_order, lead, others, _ in sits:
            for h in others:
                for _p in FollowRule(lead, h, trump_order).legal_plays():
                    break
        return 3 * len(sits)

    def tricks() -> int:
        for trump_order, _, _, plays in sits:
            resolve_trick(plays, trump_order)
        return len(sits)

    def throws() -> int:
        for trump_order, lead, others, _ in sits:
            check_throw(lead, others, trump_order)
        return len(sits)

    results: dict[str, Any] = {
        "preset": args.preset,
        "situations": len(sits),
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "follow checks/s": round(rate(follow_checks, args.seconds)),
        "legal-follow generations (first play)/s": round(rate(generations, args.seconds)),
        "trick resolutions/s": round(rate(tricks, args.seconds)),
        "throw checks/s": round(rate(throws, args.seconds)),
    }
    if args.json:
        print(json.dumps(results))
    else:
        for k, v in results.items():
            print(f"{k:42} {v}")


if __name__ == "__main__":
    main()
