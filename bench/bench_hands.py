"""Complete random hands per second on one core, per preset (``make bench``).

Each hand is dealt, bid, buried, fried and played to its settlement through the hand's
operation API by the random policy of ``chaodipi simulate`` (every action checked by the
engine). Games are played from seed 1 on until the time is up.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Iterator

from chaodipi.game import Game
from chaodipi.hand import Hand, Phase
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.simulate import RandomPolicy, play_hand


def settled_hands(preset: str, seconds: float, play: Callable[[Hand], object]) -> Iterator[Hand]:
    """Hands played to their end by ``play``, game after game from seed 1, for ``seconds``: those that were settled."""
    rules = RuleSet.preset(preset)
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        seed += 1
        game = Game(rules, seed)
        while not game.over and time.perf_counter() - start < seconds:
            hand = game.new_hand()
            play(hand)
            game.finish_hand()
            if hand.phase == Phase.OVER:
                yield hand


def random_hands(preset: str, seconds: float) -> Iterator[Hand]:
    """Hands of random legal play (``chaodipi simulate``'s policy), as :func:`settled_hands` plays them."""
    policy = RandomPolicy(random.Random(preset))
    return settled_hands(preset, seconds, lambda hand: play_hand(hand, policy))


def hands_per_second(preset: str, seconds: float) -> tuple[float, int]:
    start = time.perf_counter()
    hands = sum(1 for _ in random_hands(preset, seconds))
    return hands / (time.perf_counter() - start), hands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--preset", action="append", choices=PRESET_NAMES)
    args = ap.parse_args()
    for preset in args.preset or PRESET_NAMES:
        rate, n = hands_per_second(preset, args.seconds)
        print(f"{preset:14} {rate:8.0f} hands/s  ({n} hands)")


if __name__ == "__main__":
    main()
