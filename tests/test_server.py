"""The game server (issue 11) end to end: real WebSocket clients against a server on a free port.

Each test runs on SQLite and on the run's PostgreSQL (tests/conftest.py's ``db_url``: a schema
of its own). The clients are :class:`server_helpers.Client`: they know only docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chaodipi._build import engine_build
from chaodipi.record import game_record, replay
from chaodipi.rules import PRESET_NAMES
from chaodipi.server.store import Store
from chaodipi.view import SPECTATOR, Phase
from server_helpers import FAST, QUICK_DECLARE, Client, audit, join, new_table, running_server


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def four_players(base: str, table: int) -> list[Client]:
    """Four guests take the table's seats and connect."""
    clients = []
    for name in ("东", "南", "西", "北"):
        _, token = await join(base, table, name)
        clients.append(Client(base, table, token))
    for c in clients:
        await c.connect()
    return clients


def over(c: Client) -> bool:
    return c.view is not None and c.view["phase"] in ("over", "redeal")


# -- a whole hand with four people ---------------------------------------------------------------


def test_four_clients_play_a_whole_hand(db_url: str) -> None:
    async def main() -> None:
        async with running_server(db_url, **FAST) as base:
            table = await new_table(base, "standard", seed=11, name="四人")
            clients = await four_players(base, table)
            await asyncio.gather(
                *(c.play(until=lambda c: c.game is not None and c.game["hands"] >= 2) for c in clients)
            )
            for c in clients:
                assert not [e for e in c.errors if e["code"] != "stale"], c.errors
            # every client saw the same public history of the first hand; the store replays to the same game
            store = Store(db_url)
            game = store.rebuild(table)
            first = game.hands[0]
            assert first.phase in (Phase.OVER, Phase.REDEAL)
            settled = [m for m in clients[0].messages if m.get("hand") == 1 and m["type"] == "update"][-1]
            assert settled["view"]["phase"] == first.phase.value
            record = game_record(game)
            replay(record, allow_unfinished=True)
            store.close()
            for c in clients:
                await c.close()

    run(main())


# -- bad and stale messages ------------------------------------------------------------------------------


async def _one_seat_table(base: str, rules: Any = "standard", seed: int = 5) -> tuple[int, Client]:
    table = await new_table(base, rules, bots={"1": "rules", "2": "rules", "3": "rules"}, seed=seed)
    _, token = await join(base, table, "player", 0)
    client = Client(base, table, token)
    await client.connect()
    return table, client


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
MESSAGES = st.one_of(
    st.text(max_size=200),
    JSON.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["act", "auto", "leave2", "hello", "again", "x"])},
        optional={"seq": JSON | st.integers(), "action": JSON, "on": JSON, "id": JSON},
    ).map(json.dumps),
    st.fixed_dictionaries(
        {
            "type": st.just("act"),
            "seq": st.integers(-5, 10_000),
            "action": st.fixed_dictionaries(
                {"a": st.sampled_from(["bid", "play", "bury", "fry", "pass", "close", "show_red5", "leavex"])},
                optional={"cards": st.text(max_size=30) | st.just("Ah Ah"), "p": st.integers(-1, 5), "at": JSON},
            ),
        }
    ).map(json.dumps),
)


def test_bad_and_stale_messages_are_refused_and_change_nothing(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/fuzz.db"
    slow = {**FAST, "time_scale": 100.0, "bot_delay_ms": 50, "rate_per_s": 1e6, "rate_burst": 10**6}

    async def main() -> None:
        async with running_server(url, **slow) as base:
            table, client = await _one_seat_table(base)
            # the declaring countdown (long time limits): nothing changes by itself once the bots have bid
            await client.wait(lambda c: c.view is not None and c.view["phase"] == "countdown")
            await asyncio.sleep(0.5)
            before_seq, before_view = client.seq, json.dumps(client.view, sort_keys=True)

            @settings(
                max_examples=150,
                deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
            )
            @given(MESSAGES)
            def fuzz(message: str) -> None:
                if '"type": "leave"' in message or '"type":"leave"' in message:
                    return
                asyncio.run_coroutine_threadsafe(client.ws.send(message), loop).result(5)

            loop = asyncio.get_running_loop()
            await asyncio.to_thread(fuzz)
            # a stale action: the right move, but naming an old sequence number
            view = client.engine_view()
            assert view is not None
            await client.send({"type": "act", "seq": client.seq + 1, "action": {"a": "pass"}})
            await client.send({"type": "act", "seq": "x", "id": "shape"})  # refused for its shape, id echoed
            await client.send({"type": "ping", "id": "done"})
            await client.wait(lambda c: any(m.get("type") == "pong" and m.get("id") == "done" for m in c.messages))
            assert client.seq == before_seq
            assert json.dumps(client.view, sort_keys=True) == before_view
            assert client.closed is None
            codes = {e["code"] for e in client.errors}
            assert "stale" in codes and "malformed" in codes
            shape = [e for e in client.errors if e.get("id") == "shape"]
            assert shape and shape[0]["code"] == "malformed"
            # replies come in the order of the messages: the refusal before the pong
            order = [m.get("id") for m in client.messages if m.get("id") in ("shape", "done")]
            assert order == ["shape", "done"]
            for e in client.errors:
                assert isinstance(e["message"], str) and e["message"]
            store = Store(url)
            assert store.info(table).last_seq == before_seq
            store.close()
            await client.close()

    run(main())


def test_a_message_too_large_closes_the_connection_and_a_flood_is_limited(tmp_path: Any) -> None:
    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path}/db.db", **{**FAST, "time_scale": 100.0}) as base:
            table, client = await _one_seat_table(base)
            for _ in range(60):  # a burst of 40 passes, the rest are refused
                await client.send({"type": "ping"})
            await client.wait(lambda c: any(e["code"] == "rate" for e in c.errors))
            assert client.closed is None
            flooder = Client(base, table, client.token)  # a second connection of the seat keeps flooding
            await flooder.connect()
            for _ in range(300):
                if flooder.closed:
                    break
                with contextlib.suppress(Exception):
                    await flooder.send({"type": "ping"})
            await flooder.wait(lambda c: c.closed is not None)
            assert flooder.closed is not None and flooder.closed[0] == 4429
            await asyncio.sleep(1)
            await client.send({"type": "ping", "id": "x" * 10_000})
            await client.wait(lambda c: c.closed is not None)
            assert client.closed is not None and client.closed[0] == 1009
            await client.close()

    run(main())


def test_hello_with_a_wrong_token_is_refused(tmp_path: Any) -> None:
    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path}/db.db", **FAST) as base:
            table, client = await _one_seat_table(base)
            intruder = Client(base, table, "not-a-token")
            welcome = await intruder.connect()
            assert welcome["type"] == "error" and welcome["code"] == "unknown_token"
            await intruder.wait(lambda c: c.closed is not None)
            assert intruder.closed is not None and intruder.closed[0] == 4401
            await client.close()

    run(main())


# -- hidden information: every message of whole games, every preset ----------------------------------------


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_no_message_shows_a_hidden_card(db_url: str, preset: str) -> None:
    if "postgresql" in db_url and preset not in ("anchao", "institute2023"):
        pytest.skip("PostgreSQL runs the dark and the unordered presets; SQLite runs them all")

    async def main() -> None:
        async with running_server(db_url, **FAST) as base:
            table = await new_table(base, preset, seed=21)
            watcher = Client(base, table, None, watch=True)  # a spectator sees what every player sees, no more
            welcome = await watcher.connect()
            assert welcome["seat"] is None and welcome["watching"] is True
            clients = await four_players(base, table)
            await asyncio.gather(
                *(
                    c.play(until=lambda c: c.game is not None and (c.game["over"] or c.game["hands"] > 12), timeout=240)
                    for c in clients
                )
            )
            store = Store(db_url)
            total = sum(audit(store, table, c.seat, c.messages) for c in clients)
            assert total > 200
            assert audit(store, table, SPECTATOR, watcher.messages) > 50
            store.close()
            for c in [*clients, watcher]:
                await c.close()

    run(main())


# -- reconnection, timers, leaving ---------------------------------------------------------------------------


def test_reconnecting_mid_hand_restores_the_exact_view(db_url: str) -> None:
    async def main() -> None:
        async with running_server(db_url, **{**FAST, "bot_delay_ms": 5, "time_scale": 100.0}) as base:
            table, client = await _one_seat_table(base, QUICK_DECLARE, seed=8)
            await client.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 3)
            await client.close()
            await asyncio.sleep(0.1)
            # back with where it stood: only the missed events come
            welcome = await client.connect(resume=True)
            assert welcome["resumed"] is True
            assert welcome["events_from"] > 0
            fresh = Client(base, table, client.token)
            full = await fresh.connect()
            assert full["resumed"] is False and full["events_from"] == 0
            assert client.engine_view() == fresh.engine_view()
            assert client.events == fresh.events
            await client.play(until=over)
            await client.close()
            await fresh.close()

    run(main())


def test_a_timer_expiry_plays_for_the_player_until_they_act_again(db_url: str) -> None:
    async def main() -> None:
        async with running_server(db_url, **{**FAST, "time_scale": 0.02}) as base:
            table, client = await _one_seat_table(base, "standard", seed=4)
            # the player does nothing: the hand still ends, 托管 playing for seat 0
            await client.wait(lambda c: c.seats[0] is not None and c.seats[0]["auto"], timeout=30)
            await client.wait(over, timeout=60)
            assert (client.view is not None and client.view["hand_sizes"] == [0, 0, 0, 0]) or client.view[
                "phase"
            ] == "redeal"
            await client.send({"type": "act", "seq": 0, "action": {"a": "pass"}})  # any act: the player is back
            await client.wait(lambda c: c.seats[0] is not None and not c.seats[0]["auto"])
            assert client.errors[-1]["code"] == "stale"  # (the act itself was stale, and refused)
            await client.send({"type": "auto", "on": True})
            await client.wait(lambda c: c.seats[0] is not None and c.seats[0]["auto"])
            await client.send({"type": "auto", "on": False})
            await client.wait(lambda c: c.seats[0] is not None and not c.seats[0]["auto"])
            store = Store(db_url)
            assert store.seats(table)[0].auto is False
            store.close()
            await client.close()

    run(main())


def test_leaving_mid_hand_charges_the_escape_penalty_and_a_bot_plays_on(db_url: str) -> None:
    async def main() -> None:
        async with running_server(db_url, **{**FAST, "time_scale": 100.0}) as base:
            table, client = await _one_seat_table(base, QUICK_DECLARE, seed=8)
            await client.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 2)
            await client.send({"type": "leave"})
            await client.wait(lambda c: c.closed is not None)
            assert any(m["type"] == "left" and m["escaped"] for m in client.messages)
            store = Store(db_url)
            assert store.seats(table)[0].kind.value == "bot"
            for _ in range(200):
                game = store.rebuild(table)
                if game.history:
                    break
                await asyncio.sleep(0.05)
            result = game.history[0].result
            assert result is not None
            escapes = result.to_json().get("escapes")
            assert escapes and escapes[0]["player"] == 0 and escapes[0]["penalty"] >= 15
            assert any(a.kind.value == "leave" for a in game.hands[0].actions)
            store.close()

    run(main())


# -- the lobby ------------------------------------------------------------------------------------------------


def test_the_lobby_answers_bad_requests_in_words(tmp_path: Any) -> None:
    async def main() -> None:
        async with (
            running_server(f"sqlite:///{tmp_path}/db.db", **FAST) as base,
            httpx.AsyncClient(base_url=base) as http,
        ):
            health = (await http.get("/api/health")).json()
            assert health["ok"] is True and health["engine"] == engine_build()
            presets = (await http.get("/api/presets")).json()
            assert [p["name"] for p in presets["presets"]] == list(PRESET_NAMES)
            cases = [
                ({"rules": "nonsense"}, 400),
                ({"rules": {"preset": "anchao", "set": {"play_seconds": -1}}}, 400),
                ({"bots": {"7": "rules"}}, 400),
                ({"bots": {"1": "genius"}}, 400),
                ({"seed": "x"}, 400),
                ({"colour": "red"}, 400),
            ]
            for body, status in cases:
                r = await http.post("/api/tables", json=body)
                assert r.status_code == status and r.json()["error"], (body, r.text)
            r = await http.post("/api/tables", content=b"{nope")
            assert r.status_code == 400
            r = await http.post("/api/tables", content=b"[" * 20_000)
            assert r.status_code == 413
            r = await http.post(
                "/api/tables", json={"rules": {"preset": "mingchao"}, "name": "明炒 room", "bots": {"2": "search"}}
            )
            assert r.status_code == 201
            table = r.json()
            assert table["room"] == "mingchao" and table["seats"][2]["kind"] == "bot"
            tid = table["id"]
            r = await http.post(f"/api/tables/{tid}/seats", json={"seat": 2, "name": "x"})
            assert r.status_code == 409 and "taken" in r.json()["error"]
            for bad in ({"name": ""}, {"name": "x", "seat": 1.0}, {"name": "x", "seat": True}, {"name": "\x07"}):
                r = await http.post(f"/api/tables/{tid}/seats", json=bad)
                assert r.status_code == 400, bad
            r = await http.post(f"/api/tables/{tid}/seats", json={"name": "小红"})
            assert r.status_code == 201 and len(r.json()["token"]) >= 30
            token = r.json()["token"]
            listed = (await http.get("/api/tables")).json()["tables"]
            assert listed[0]["id"] == tid and token not in json.dumps(listed)
            store = Store(f"sqlite:///{tmp_path}/db.db")
            seat = store.seats(tid)[r.json()["seat"]]
            assert seat.token_hash is not None and token not in seat.token_hash
            store.close()
            r = await http.post(f"/api/tables/{tid}/leave", json={"token": "wrong"})
            assert r.status_code == 403
            r = await http.post(f"/api/tables/{tid}/leave", json={"token": token})
            assert r.status_code == 200 and r.json()["escaped"] is False
            assert (await http.get("/api/tables/999")).status_code == 404
            assert (await http.get(f"/api/tables/{tid}/games/1/record")).status_code == 409

    run(main())


def test_a_slow_client_is_dropped_not_waited_for() -> None:
    from chaodipi.server.config import ServerConfig
    from chaodipi.server.ws import Connection

    class Socket:
        pass

    async def main() -> None:
        conn = Connection(Socket(), ServerConfig(send_queue=8))  # type: ignore[arg-type]
        for i in range(8):
            conn.send(f"m{i}")
        assert not conn.closed
        conn.send("one too many")
        assert conn.closed
        item = conn.outbox.get_nowait()
        assert item == (4408, "too slow: messages were not read")

    run(main())


def test_a_finished_game_can_start_again_and_its_record_replays(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/db.db"

    async def main() -> None:
        async with running_server(url, **FAST) as base:
            table, client = await _one_seat_table(base, "standard", seed=5)
            await client.play(until=lambda c: c.game is not None and c.game["over"], timeout=240)
            async with httpx.AsyncClient(base_url=base) as http:
                r = await http.get(f"/api/tables/{table}/games/1/record")
                assert r.status_code == 200
                assert r.json()["players"] == ["player", "rules bot", "rules bot", "rules bot"]
                replay(r.json())
                # the player leaves after the game (no penalty: no game is in progress) and comes back
                await client.send({"type": "leave"})
                await client.wait(lambda c: c.closed is not None)
                assert any(m["type"] == "left" and not m["escaped"] for m in client.messages)
                _, token = await join(base, table, "回来", 0)
            again = Client(base, table, token)
            await again.connect()
            await again.send({"type": "again"})
            await again.wait(lambda c: c.game is not None and c.game["number"] == 2)
            await again.close()

    run(main())


def test_serve_is_a_command() -> None:
    from chaodipi.cli import build_parser

    args = build_parser().parse_args(["serve", "--port", "8123", "--time-scale", "0.5"])
    assert args.port == 8123 and args.time_scale == 0.5 and args.db == "sqlite:///chaodipi.db"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--port", "0"])


def test_a_search_bot_thinks_in_the_process_pool_and_the_table_stays_responsive(tmp_path: Any) -> None:
    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path}/db.db", **{**FAST, "time_scale": 100.0}) as base:
            table = await new_table(base, QUICK_DECLARE, bots={"1": "search", "2": "rules", "3": "search"}, seed=8)
            _, token = await join(base, table, "快", 0)
            client = Client(base, table, token)
            await client.connect()
            playing = asyncio.get_running_loop().create_task(
                client.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 2, timeout=120)
            )
            waits = []
            while not playing.done():
                sent = asyncio.get_running_loop().time()
                ref = f"p{len(waits)}"
                await client.send({"type": "ping", "id": ref})
                await client.wait(lambda c, ref=ref: any(m.get("id") == ref for m in c.messages), timeout=10)
                waits.append(asyncio.get_running_loop().time() - sent)
                await asyncio.sleep(0.05)
            await playing
            plays = [e for e in client.events if e["e"] == "played" and e["p"] in (1, 3)]
            assert len(plays) >= 2  # the search bots played
            assert len(waits) > 10 and sorted(waits)[len(waits) // 2] < 0.1, waits
            await client.close()

    run(main())


def test_learned_bots_play_at_a_table(tmp_path: Any) -> None:
    """The learned bot (issue 25) at a server table: it decides in the process pool from the seat's view."""

    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path}/db.db", **{**FAST, "time_scale": 100.0}) as base:
            table = await new_table(base, QUICK_DECLARE, bots={"1": "learned", "2": "learned", "3": "learned"}, seed=3)
            _, token = await join(base, table, "网", 0)
            client = Client(base, table, token)
            await client.connect()
            await client.play(until=lambda c: c.view is not None and len(c.view["tricks"]) >= 2, timeout=120)
            plays = {e["p"] for e in client.events if e["e"] == "played"}
            assert {1, 2, 3} <= plays
            await client.close()

    run(main())


def test_leaving_between_hands_starts_the_next_hand_with_the_leave(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/db.db"

    async def main() -> None:
        async with running_server(url, **{**FAST, "time_scale": 100.0, "hand_pause_ms": 600_000}) as base:
            table, client = await _one_seat_table(base, QUICK_DECLARE, seed=8)
            await client.play(until=over)
            await client.send({"type": "leave"})
            await client.wait(lambda c: c.closed is not None)
            store = Store(url)
            game = store.rebuild(table)
            assert len(game.hands) == 2 and game.hands[1].actions[0].to_json() == {"a": "leave", "p": 0}
            assert store.seats(table)[0].kind.value == "bot"
            store.close()

    run(main())


def test_again_right_after_a_bot_ends_the_game(tmp_path: Any) -> None:
    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path}/db.db", **FAST) as base:
            _, client = await _one_seat_table(base, "standard", seed=5)
            await client.send({"type": "auto", "on": True})  # the bots play every move, the last one too
            await client.wait(lambda c: c.game is not None and c.game["over"], timeout=120)
            await client.send({"type": "again", "id": "next"})
            await client.wait(lambda c: c.game is not None and c.game["number"] == 2)
            assert not [e for e in client.errors if e.get("id") == "next"]
            await client.close()

    run(main())
