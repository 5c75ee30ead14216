"""Rules-bot playouts per second on one core (``make bench``): the search bot's unit of work.

The search bot judges a candidate by playing the hand out with the rules policy in a sampled
deal. This measures those playouts: seeded deals of the ``standard`` preset are dealt into
four 25-card hands and a kitty (random level and trump, random dealer), and the rules policy
plays every trick from the first lead to the settlement (``rules_bot.play_out``, the search
bot's own playout) through ``Hand.in_play``, each play checked by the engine.
"""

from __future__ import annotations

import argparse
import random
import time

from chaodipi.bots.rules_bot import play_out
from chaodipi.cards import Rank, Suit, shuffled_deck
from chaodipi.hand import Hand
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
        hand = Hand.in_play(
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
