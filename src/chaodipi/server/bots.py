"""Bots at the server's tables: seats filled by a bot, and 托管 (a bot playing for a player).

The ``random`` and ``rules`` bots answer in about a millisecond and run in the event loop;
the ``search`` bot thinks for a quarter of a second or more, and the ``learned`` bot evaluates
a network (a few milliseconds, numpy): both run in a process pool, so no table waits for
another's bot. A bot sees the seat's view and nothing else: the view
crosses to the worker process as its JSON form (:meth:`View.to_json`).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from chaodipi.bots import BOT_NAMES, make_bot
from chaodipi.log import Action
from chaodipi.view import View

__all__ = ["BOT_NAMES", "INLINE_BOTS", "BotRunner", "bot_seed"]

#: Bots quick enough to run in the event loop.
INLINE_BOTS = frozenset({"random", "rules"})


def bot_seed(table_seed: int, seq: int, seat: int, dealt: int) -> int:
    """The seed of one decision: the table's seed and where the table stands (a restart decides alike)."""
    return (table_seed * 1_000_003 + seq * 1009 + dealt * 13 + seat) % 2**63


def _decide_in_worker(name: str, seed: int, view_json: str) -> dict[str, Any] | None:
    """In a worker process: the bot's action for the view, as JSON (None: no bid now)."""
    action = make_bot(name, seed).act(View.from_json(json.loads(view_json)))
    return None if action is None else action.to_json()


class BotRunner:
    """Decides for bot seats: inline for the quick bots, in a process pool (made when first needed) for ``search``."""

    def __init__(self, workers: int = 2) -> None:
        self.workers = max(1, workers)
        self._pool: Executor | None = None

    def decide_now(self, name: str, seed: int, view: View) -> Action | None:
        """A quick bot's decision, in the caller's thread."""
        return make_bot(name, seed).act(view)

    async def decide(self, name: str, seed: int, view: View) -> Action | None:
        """Any bot's decision: quick bots at once, ``search`` in the pool (the event loop goes on meanwhile)."""
        if name in INLINE_BOTS:
            return self.decide_now(name, seed, view)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        loop = asyncio.get_running_loop()
        text = json.dumps(view.to_json(), ensure_ascii=False)
        answer = await loop.run_in_executor(self._pool, _decide_in_worker, name, seed, text)
        return None if answer is None else Action.from_json(answer)

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
