"""Never lose a game: ``chaodipi serve`` killed with SIGKILL mid-hand, started again, and the hand goes on.

The server runs as a real process (``python -m chaodipi.cli serve``); the test kills it without
warning in the middle of a hand, starts it again on the same database, reconnects the player
and plays the hand to its end. Every action a client saw was stored before it was sent; the
hand ends with the settlement that its record replays to; a deadline running at the kill is
extended by the time the server was down.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from chaodipi.record import game_record, replay
from chaodipi.server.store import Store
from server_helpers import QUICK_DECLARE, Client, ServerProcess, free_port, join, new_table


def test_sigkill_mid_hand_then_restart_and_the_hand_ends_as_its_record_says(db_url: str) -> None:
    server = ServerProcess(
        db_url,
        free_port(),
        *("--deal-ms", "2", "--bot-delay-ms", "40", "--hand-pause-ms", "600000", "--trick-pause-ms", "0"),
        *("--time-scale", "50"),
    )
    server.start()
    try:

        async def before_kill() -> tuple[int, Client, list[Any]]:
            table = await new_table(server.base, QUICK_DECLARE, bots={"1": "rules", "2": "rules", "3": "rules"}, seed=8)
            _, token = await join(server.base, table, "坚持", 0)
            client = Client(server.base, table, token)
            await client.connect()
            await client.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 4)
            await asyncio.sleep(0.1)  # the bots move on: some actions are stored but maybe not all sent
            server.kill()  # no warning, no clean shutdown
            await client.wait(lambda c: c.closed is not None, timeout=10)
            return table, client, list(Store(db_url).load(table).hands[0].actions)

        table, client, stored_before = asyncio.run(before_kill())
        store = Store(db_url)
        assert store.info(table).last_seq >= client.seq  # every action a client saw was stored first
        assert client.view is not None and client.view["phase"] == "play"
        server.start()

        async def after_restart() -> Client:
            welcome = await client.connect(resume=True)
            assert welcome["type"] == "welcome" and welcome["seat"] == 0
            assert welcome["view"]["phase"] == "play"
            await client.play(until=lambda c: c.view is not None and c.view["phase"] == "over", timeout=120)
            return client

        asyncio.run(after_restart())
        stored = store.load(table).hands[0].actions
        assert stored[: len(stored_before)] == tuple(stored_before)  # what was stored stays, in order
        game = store.rebuild(table)
        assert len(game.history) == 1
        result = game.history[0].result
        assert result is not None
        # the record of the game so far replays to the same settlement the players were told
        record = game_record(game)
        replayed = replay(record, allow_unfinished=True)
        assert [p.to_json() for p in replayed.progress] == client.game["levels"]  # type: ignore[index]
        settled = [e for e in client.events if e["e"] == "settled"]
        assert (
            settled
            and settled[-1].get("detail")
            == next(e for e in game.hands[0].iter_events() if e.kind.value == "settled").detail
        )
        assert record["hands"][0]["result"] == result.to_json()
        store.close()
    finally:
        server.stop()


def test_a_deadline_running_at_the_kill_is_extended_by_the_downtime(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/chaodipi.db"
    limits = {"declare_seconds": 0, "play_seconds": 30, "bury_seconds": 30, "fry_seconds": 30}
    rules = {"preset": "standard", "set": limits}
    pace = ("--deal-ms", "0", "--bot-delay-ms", "0", "--hand-pause-ms", "600000", "--trick-pause-ms", "0")
    server = ServerProcess(url, free_port(), *pace)
    server.start()
    try:

        async def until_my_turn() -> tuple[int, Client, float]:
            table = await new_table(server.base, rules, bots={"1": "rules", "2": "rules", "3": "rules"}, seed=3)
            _, token = await join(server.base, table, "等待", 0)
            client = Client(server.base, table, token)
            await client.connect()
            # the player never acts: wait until the table waits on seat 0
            await client.wait(
                lambda c: c.deadline is not None and c.deadline["seat"] == 0,
                timeout=30,
            )
            assert client.deadline is not None
            seen = time.monotonic()
            remaining = client.deadline["ms"] / 1000
            await asyncio.sleep(0.5)
            server.kill()
            left_at_kill = remaining - (time.monotonic() - seen)
            return table, client, left_at_kill

        _, client, left_at_kill = asyncio.run(until_my_turn())
        time.sleep(4)  # the server is down
        server.start()

        async def back() -> dict[str, Any]:
            welcome = await client.connect(resume=True)
            await client.close()
            return welcome

        welcome = asyncio.run(back())
        assert welcome["deadline"]["seat"] == 0
        # without the extension 4 s (and the restart's time) would have been lost; with it, at most the time to restart
        assert welcome["deadline"]["ms"] / 1000 > left_at_kill - 1.5, (welcome["deadline"], left_at_kill)
        assert welcome["deadline"]["ms"] / 1000 <= 30
    finally:
        server.stop()
