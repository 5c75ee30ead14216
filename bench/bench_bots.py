"""Rules-bot playouts per second on one core (``make bench``): the search bot's unit of work.

The search bot judges a candidate by playing the hand out with the rules policy in a sampled
deal. This measures those playouts: seeded deals of the ``standard`` preset are dealt into
four 25-card hands and a kitty (random level and trump, random dealer), and the rules policy
plays every trick from the first lead to the settlement (``rules_bot.play_out``, the search
bot's own playout) from a position (``Position.in_play(...).hand()``; ``Hand.in_play`` in a tree from
before issue 19, so that bench_compare.py can measure both), each play checked by the engine.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from chaodipi.bots.rules_bot import play_out
from chaodipi.cards import Rank, Suit, shuffled_deck
from chaodipi.hand import Hand

try:  # issue 19: positions are made by chaodipi.position; an older tree (bench_compare.py's base) has Hand.in_play
    from chaodipi.position import Position

    def _in_play(rules: RuleSet, **kw: Any) -> Hand:
        return Position.in_play(rules, **kw).hand()

except ImportError:  # pragma: no cover - the older tree

    def _in_play(rules: RuleSet, **kw: Any) -> Hand:
        return Hand.in_play(rules, **kw)  # type: ignore[attr-defined, no-any-return]


from chaodipi.rules import RuleSet
from chaodipi.settlement import Progress
from chaodipi.trump import TrumpOrder


def playouts_per_second(seconds: float) -> tuple[float, int]:
    rules = RuleSet.preset("standard")
    rng = random.Random(2026)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        deck = shuffled_deck(rng)
        level = Rank(rng.randint(2, 14))
        trump = rng.choice([*Suit, None])
        dealer = rng.randrange(4)
        hand = _in_play(
            rules,
            hands=[deck[25 * s : 25 * s + 25] for s in range(4)],
            kitty=deck[100:],
            dealer=dealer,
            trump=trump,
            leader=dealer,
            dealer_progress=Progress(1, level),
        )
        play_out(hand, TrumpOrder.of(rules, level, trump))
        done += 1
    return done / (time.perf_counter() - start), done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    rate, n = playouts_per_second(args.seconds)
    print(f"rules-policy playouts {rate:8.0f} /s  ({n} playouts of 25 tricks)")


if __name__ == "__main__":
    main()
