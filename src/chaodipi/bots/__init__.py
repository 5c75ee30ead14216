"""Bots: ``random``, ``rules`` and ``search``, all behind one interface (:class:`~chaodipi.bots.base.Bot`)."""

from __future__ import annotations

from chaodipi.bots.base import Bot, BotError, DecisionTimer, run_hand
from chaodipi.bots.random_bot import RandomBot
from chaodipi.bots.rules_bot import RulesBot

__all__ = ["BOT_NAMES", "Bot", "BotError", "DecisionTimer", "make_bot", "run_hand"]

BOT_NAMES = ("random", "rules", "search")


def make_bot(name: str, seed: int = 0, **options: float) -> Bot:
    """A bot by name, seeded."""
    if name == "random":
        return RandomBot(seed)
    if name == "rules":
        return RulesBot(seed)
    if name == "search":
        from chaodipi.bots.search_bot import SearchBot

        return SearchBot(seed, **options)
    raise BotError(f"unknown bot {name!r}; the bots are {', '.join(BOT_NAMES)}")
