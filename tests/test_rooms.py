"""Rooms, quick join, a player's page and the leaderboards through a real server (uvicorn, httpx, websockets)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from server_helpers import FAST, Client, running_server


async def register(http: httpx.AsyncClient, name: str, password: str = "correct horse", **extra: Any) -> str:
    """Register ``name`` on ``http`` (its cookie jar keeps the session); returns the CSRF token."""
    me = (await http.get("/api/me")).json()
    answer = await http.post(
        "/api/register",
        json={"username": name, "password": password, **extra},
        headers={"X-CSRF-Token": me["csrf"]},
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["csrf"])


async def until(check: Any, timeout: float = 120) -> Any:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError("not reached in time")


def test_rooms_quick_join_an_escape_in_the_ledger_and_the_leaderboard(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/rooms.db"

    async def main() -> None:
        async with running_server(url, **FAST) as base, httpx.AsyncClient(base_url=base) as http:
            rooms = (await http.get("/api/rooms")).json()["rooms"]
            assert [r["room"] for r in rooms] == ["anchao", "kangqi", "mingchao", "house"]
            assert rooms[0]["name"] == "暗炒房" and rooms[0]["credits"] is True and rooms[3]["rules"] is None
            assert rooms[0]["describe"]["fry_visibility"] == "dark"
            csrf = await register(http, "张三")
            headers = {"X-CSRF-Token": csrf}
            # two guests quick-join the flag room: the same open table
            async with httpx.AsyncClient(base_url=base) as guest:
                a = (await guest.post("/api/rooms/kangqi/quick", json={"name": "甲"})).json()
                b = (await guest.post("/api/rooms/kangqi/quick", json={"name": "乙"})).json()
                assert a["table"] == b["table"] and a["seat"] != b["seat"] and a["token"] and b["token"]
                assert (await guest.post("/api/rooms/house/quick", json={"name": "丙"})).status_code == 404
            # 张三 quick-joins the dark room with bots: the game starts at once
            joined = await http.post("/api/rooms/anchao/quick", json={"bots": True}, headers=headers)
            assert joined.status_code == 201, joined.text
            table, seat = joined.json()["table"], joined.json()["seat"]
            summary = (await http.get(f"/api/tables/{table}")).json()
            assert summary["room"] == "anchao" and summary["seats"][seat]["account"] == "张三"
            assert summary["seats"][seat]["name"] == "张三" and summary["watch"] is True
            again = await http.post("/api/rooms/anchao/quick", json={}, headers=headers)
            assert again.status_code == 201 and again.json()["table"] != table  # never twice at one table
            # his browser's WebSocket needs no token: his session cookie says whose seat it is
            cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
            player = Client(base, table, None, Cookie=cookie, Origin=base)
            welcome = await player.connect()
            assert welcome["type"] == "welcome" and welcome["seat"] == seat and welcome["room"] == "anchao"

            def his_turn_mid_hand(c: Client) -> bool:  # the table waits for him, two tricks into a hand
                turn = c.deadline is not None and c.deadline.get("seat") == c.seat and c.deadline["kind"] == "play"
                return turn and c.view is not None and c.view["phase"] == "play" and len(c.view["tricks"]) >= 2

            await player.play(until=his_turn_mid_hand, timeout=120)
            await player.send({"type": "leave"})  # 逃跑 mid-hand
            await player.wait(lambda c: c.closed is not None)
            assert any(m["type"] == "left" and m["escaped"] for m in player.messages)

            async def escape_posted() -> dict[str, Any] | None:
                page = (await http.get("/api/players/张三")).json()
                rows = [r for r in page["ledger"]["rows"] if r["reason"] == "escape"]
                return page if rows else None

            page = await until(escape_posted)
            escape = next(r for r in page["ledger"]["rows"] if r["reason"] == "escape")
            assert escape["amount"] <= -15 and escape["table"] == table and escape["room"] == "anchao"
            assert page["credits"]["anchao"] == sum(r["amount"] for r in page["ledger"]["rows"])
            assert page["games"]["rows"][0]["table"] == table

            async def rated() -> dict[str, Any] | None:
                board = (await http.get("/api/rooms/anchao/leaderboard")).json()
                return board if any(r["username"] == "张三" for r in board["rows"]) else None

            board = await until(rated)  # he left: his game is lost, and rated so, at once
            me = next(r for r in board["rows"] if r["username"] == "张三")
            assert me["games"] == 1 and me["wins"] == 0 and me["credits"] == page["credits"]["anchao"]
            assert me["ordinal"] < 0  # a new player's 0, after a loss

            async def game_over() -> dict[str, Any] | None:  # the bots play the game to its end: all are rated
                board = (await http.get("/api/rooms/anchao/leaderboard")).json()
                return board if any(r["kind"] == "bot" and r["username"] == "rules" for r in board["rows"]) else None

            board = await until(game_over, timeout=240)
            assert next(r for r in board["rows"] if r["username"] == "张三")["games"] == 1  # rated once
            by_credits = (await http.get("/api/rooms/anchao/leaderboard?sort=credits")).json()
            assert by_credits["sort"] == "credits" and by_credits["pages"] == 1
            page = (await http.get("/api/players/张三")).json()
            game = page["games"]["rows"][0]
            assert game["won"] is False  # left: lost, whatever the bot did after
            assert game["replay"] == f"/replay/{table}/1"
            assert (await http.get(game["replay"])).status_code == 200  # the replay viewer's page
            assert (await http.get(f"/api/tables/{table}/games/1/replay")).status_code == 200
            for bad in ("/api/rooms/nowhere/leaderboard", "/api/players/nobody"):
                assert (await http.get(bad)).status_code == 404
            assert (await http.get("/api/rooms/anchao/leaderboard?sort=luck")).status_code == 400

    asyncio.run(main())


@pytest.mark.parametrize("delay", [0, 1])
def test_a_table_made_with_spectator_options_says_so(tmp_path: Any, delay: int) -> None:
    url = f"sqlite:///{tmp_path}/watch.db"

    async def main() -> None:
        async with running_server(url, **FAST) as base, httpx.AsyncClient(base_url=base) as http:
            made = await http.post("/api/tables", json={"rules": "mingchao", "watch": delay == 0, "watch_delay": delay})
            assert made.status_code == 201, made.text
            t = made.json()
            assert (t["watch"], t["watch_delay"], t["watchers"], t["room"]) == (delay == 0, delay, 0, "mingchao")
            bad = await http.post("/api/tables", json={"rules": "mingchao", "watch_delay": 9})
            assert bad.status_code == 400

    asyncio.run(main())
