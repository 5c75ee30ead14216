"""Bots: ``random``, ``rules``, ``search`` and ``learned``, all behind one interface (:class:`~chaodipi.bots.base.Bot`).

The ``learned`` bot (:mod:`chaodipi.rl.learned`) needs numpy, which the ``rl`` extra installs.
"""

from __future__ import annotations

from chaodipi.bots.base import Bot, BotError, DecisionTimer, run_hand
from chaodipi.bots.random_bot import RandomBot
from chaodipi.bots.rules_bot import RulesBot

__all__ = ["BOT_NAMES", "Bot", "BotError", "DecisionTimer", "make_bot", "run_hand"]

BOT_NAMES = ("random", "rules", "search", "learned")


def make_bot(name: str, seed: int = 0, **options: float) -> Bot:
    """A bot by name, seeded."""
    if name == "random":
        return RandomBot(seed)
    if name == "rules":
        return RulesBot(seed)
    if name == "search":
        from chaodipi.bots.search_bot import SearchBot

        return SearchBot(seed, **options)
    if name == "learned":
        try:
            from chaodipi.rl.learned import LearnedBot
        except ImportError as exc:
            raise BotError(f"the learned bot needs numpy: pip install 'chaodipi[rl]' ({exc})") from None
        return LearnedBot(seed)
    raise BotError(f"unknown bot {name!r}; the bots are {', '.join(BOT_NAMES)}")
