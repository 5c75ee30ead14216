"""The search bot at a server table through whole games with penalties (issue 37): failed throws and failed dark
fries take the scoring side's points below zero, and the search bot still decides every time (the server logs
no traceback and never lets the rules bot decide in its place).

The table runs on a fake clock, as in test_table.py. Its bots are the server's, with two changes for the test
(:class:`PenaltyBots`): the search bot decides in the test's event loop with two samples a decision (from the view's
JSON, as in the worker process), and seat 0's bot is a player who throws whatever it can and fries whenever it
may, so that throws fail (beaten) and dark fries fail (weaker).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from chaodipi.bots import make_bot
from chaodipi.log import Action
from chaodipi.server.bots import BotRunner
from chaodipi.view import Phase, View
from test_table import Setup


def penalty_seeker(view: View, seed: int) -> Action | None:
    """A player who leads the longest throw it holds whenever it leads, and fries with its weakest fry whenever
    asked (a dark fry weaker than the standing one fails); the rules bot's choice otherwise."""
    if view.phase is Phase.PLAY and view.to_act == view.seat and not view.current_trick and view.legal.throw_groups:
        return Action.play(view.seat, max(view.legal.throw_groups, key=len))
    if view.phase is Phase.FRY and view.legal.fries:
        return view.legal.fries[0].action(view.seat, fry=True)
    return make_bot("rules", seed).act(view)


class PenaltyBots(BotRunner):
    """The server's bots, but ``search`` thinks in this event loop on two samples a decision, and ``random`` is the
    :func:`penalty_seeker`; the scoring side's points each search decision saw are kept."""

    def __init__(self) -> None:
        super().__init__(1)
        self.search_points: list[int] = []

    def decide_now(self, name: str, seed: int, view: View) -> Action | None:
        if name == "random":
            return penalty_seeker(view, seed)
        return super().decide_now(name, seed, view)

    async def decide(self, name: str, seed: int, view: View) -> Action | None:
        if name != "search":
            return await super().decide(name, seed, view)
        self.search_points.append(view.points)
        seen = View.from_json(json.loads(json.dumps(view.to_json())))  # (what crosses to the worker)
        return make_bot("search", seed, budget=10.0, samples=2, candidates=3).act(seen)


async def play_until(s: Setup, done: Callable[[], bool], limit: int = 100_000) -> None:
    """Step the table on its fake clock until ``done()``; a search decision under way (a task of its own, as in
    the server) is waited for and handed to the table before the clock moves on."""
    table = s.table
    for _ in range(limit):
        if done():
            return
        for _ in range(1000):
            if not table.queue.empty():
                await table.step(table.queue.get_nowait())
            elif table.thinking:
                await asyncio.sleep(0)  # (the search task runs: it answers without waiting for anything)
            else:
                break
        else:
            raise AssertionError("a search decision never came")
        if done():
            return
        await table.step()
        wake = table.next_wake()
        if wake is not None and not table.thinking and table.queue.empty():
            s.clock.advance(max(0.0, wake - s.clock.now()))
    raise AssertionError("not reached")


@pytest.mark.parametrize(("preset", "seed"), [("anchao", 7), ("standard", 3)])
def test_the_search_bot_plays_whole_games_with_penalties_and_no_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, preset: str, seed: int
) -> None:
    setup = Setup(tmp_path, preset, seed)
    bots = PenaltyBots()
    setup.table.bots = bots

    async def main() -> None:
        await setup.table.restore(timedelta(0))
        await setup.table.take_seat(0, "", "random")
        for seat in (1, 2, 3):
            await setup.table.take_seat(seat, "", "search")
        await play_until(setup, lambda: setup.table.game is not None and setup.table.game.over)

    with caplog.at_level(logging.WARNING, logger="chaodipi"):
        asyncio.run(main())
    setup.store.close()
    game = setup.table.game
    assert game is not None and game.over
    adjustments = [label for h in game.history if h.result is not None for label, _ in h.result.adjustments]
    assert any(label.startswith("failed throw") for label in adjustments)
    if preset == "anchao":  # a dark game: the weaker fries failed
        assert any(label.startswith("failed dark fry") for label in adjustments)
    assert min(bots.search_points) < 0  # the search bot decided with the scoring side's points below zero
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert problems == [], [r.getMessage() for r in problems]
