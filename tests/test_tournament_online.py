"""Online events through the server (issue 23): the HTTP API, tables opened per pairing with reserved
seats, games recorded from the tables, forfeits of pairs that do not come, and a whole simulated
64-pair event in the city contest's plan played by bots from registration to the final standings."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx

from chaodipi.tournament.event import Event
from chaodipi.tournament.service import EventService
from server_helpers import FAST, running_server

PASSWORD = "correct horse battery"
QUIET = {**FAST, "register_limit": "1000/hour", "login_limit": "1000/minute", "login_name_limit": "1000/minute"}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def account(base: str, username: str) -> httpx.AsyncClient:
    """A client logged in as a new account, sending its CSRF token with every request."""
    http = httpx.AsyncClient(base_url=base, timeout=30)
    r = await http.post("/api/register", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text
    http.headers["X-CSRF-Token"] = r.json()["csrf"]
    return http


async def until_round_finished(http: httpx.AsyncClient, eid: int, number: int, timeout: float = 240) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        ev = (await http.get(f"/api/events/{eid}")).json()
        if ev["rounds"][number - 1]["status"] == "finished":
            return dict(ev)
        assert time.monotonic() < end, f"round {number} did not finish: {ev['rounds'][number - 1]}"
        await asyncio.sleep(0.2)


def test_the_api_runs_an_online_round_with_reserved_seats_visibility_and_roles(tmp_path: Path) -> None:
    async def main() -> None:
        apps: list[Any] = []
        # time_scale 0.005: the ten minutes of a no-show are three seconds
        async with running_server(
            f"sqlite:///{tmp_path / 't.db'}", apps=apps, **{**QUIET, "time_scale": 0.005}
        ) as base:
            org = await account(base, "organiser")
            alice, bob, eve = [await account(base, n) for n in ("alice", "bob", "eve")]
            anon = httpx.AsyncClient(base_url=base)
            body = {"name": "Online cup", "format": "knockout", "online": True, "seed": 4, "game_minutes": 1}
            assert (await anon.post("/api/events", json=body)).status_code == 401
            r = await org.post("/api/events", json=body)
            assert r.status_code == 201, r.text
            eid = r.json()["id"]
            csv = (
                "name,player1,player2\nHumans,alice,bob\n"
                "B1,bot:rules,bot:rules\nB2,bot:rules,bot:random\nB3,bot:random,bot:random\n"
            )
            assert (await eve.post(f"/api/events/{eid}/pairs/import", json={"csv": csv})).status_code == 403
            bad = await org.post(f"/api/events/{eid}/pairs/import", json={"csv": "X,alice,nobody_here\n"})
            assert bad.status_code == 409 and "nobody_here" in bad.json()["error"]
            r = await org.post(f"/api/events/{eid}/pairs/import", json={"csv": csv})
            assert r.json()["added"] == 4, r.text
            r = await org.post(f"/api/events/{eid}/rounds", json={})
            assert r.status_code == 201 and r.json()["round"] == 1
            assert (await anon.get(f"/api/events/{eid}")).json()["rounds"] == []  # a draft is the organiser's
            assert len((await org.get(f"/api/events/{eid}")).json()["rounds"]) == 1
            assert (await org.post(f"/api/events/{eid}/rounds/1/publish", json={})).status_code == 200
            ev = (await anon.get(f"/api/events/{eid}")).json()
            assert ev["rounds"][0]["label"] == "Semi-final" and ev["rounds"][0]["best_of"] == 3
            assert (await org.post(f"/api/events/{eid}/rounds/1/start", json={})).status_code == 200
            assert (await org.post(f"/api/events/{eid}/rounds/1/undo", json={})).status_code == 409
            ev = (await anon.get(f"/api/events/{eid}")).json()
            humans = next(p for p in ev["rounds"][0]["pairings"] if 1 in (p["a"], p["b"]))
            table = humans["online_table"]
            assert table is not None
            # the humans' seats are theirs: eve cannot take them
            t = (await anon.get(f"/api/tables/{table}")).json()
            r = await eve.post(f"/api/tables/{table}/seats", json={"name": "eve"})
            assert r.status_code in (403, 409), r.text
            del t
            # alice and bob never come: ten (scaled) minutes on, the server forfeits their tie
            service: EventService = apps[0].state.events
            await asyncio.sleep(3.5)
            await service.catch_up()
            ev = (await anon.get(f"/api/events/{eid}")).json()
            humans = next(p for p in ev["rounds"][0]["pairings"] if 1 in (p["a"], p["b"]))
            assert humans["result"] is not None and humans["result"]["forfeit"]
            assert ev["pairs"][0]["out"] == 1
            # the referee's questions
            q = {"op": "trick", "rules": "standard", "level": "2", "trump": "S", "plays": ["3h", "Ah", "5h", "2c"]}
            r = await anon.post("/api/referee", json=q)
            assert r.status_code == 200 and "winner" in r.text, r.text
            assert (await anon.get("/api/events/penalties")).json()["schedule"][0]["per_card"] == 10
            log = (await anon.get(f"/api/events/{eid}/log")).json()["entries"]
            assert [e["op"] for e in log][:3] == ["create", "add_pair", "add_pair"]
            assert any(e["op"] == "result" and e["by"] == "server" for e in log)
            for c in (org, alice, bob, eve, anon):
                await c.aclose()

    run(main())


def test_a_64_pair_city_event_is_played_online_by_bots_from_registration_to_the_final_standings(tmp_path: Path) -> None:
    """The city contest's plan: 32 knockout tables in two sessions, 16, then three Swiss rounds of 8
    tables; every game at a server table, limited to a (scaled) minute so that it ends by time."""

    async def main() -> None:
        apps: list[Any] = []
        url = f"sqlite:///{tmp_path / 't.db'}"
        async with running_server(url, apps=apps, **{**QUIET, "time_scale": 0.02}) as base:
            org = await account(base, "organiser")
            body = {
                "name": "City cup",
                "format": "city",
                "online": True,
                "seed": 2026,
                "game_minutes": 1,
                "unlimited_from": 0,
                "best_of_three_from": 0,
            }
            eid = (await org.post("/api/events", json=body)).json()["id"]
            rows = "\n".join(f"Pair {i},bot:rules,bot:rules" for i in range(1, 65))
            assert (await org.post(f"/api/events/{eid}/pairs/import", json={"csv": rows})).json()["added"] == 64
            started = time.monotonic()
            number = 0
            while True:
                r = await org.post(f"/api/events/{eid}/rounds", json={})
                if r.status_code == 409 and "over" in r.json()["error"]:
                    break
                assert r.status_code == 201, r.text
                number = r.json()["round"]
                assert (await org.post(f"/api/events/{eid}/rounds/{number}/publish", json={})).status_code == 200
                assert (await org.post(f"/api/events/{eid}/rounds/{number}/start", json={})).status_code == 200
                ev = await until_round_finished(org, eid, number)
            took = time.monotonic() - started
            stages = [(r["stage"], len(r["pairings"])) for r in ev["rounds"]]
            assert stages == [("knockout", 32), ("knockout", 16), ("swiss", 8), ("swiss", 8), ("swiss", 8)]
            assert {p["session"] for p in ev["rounds"][0]["pairings"]} == {1, 2}
            assert ev["status"] == "finished"
            games = [g for r in ev["rounds"] for p in r["pairings"] for g in p["games"]]
            assert len(games) == 32 + 16 + 24 and all(g["replay"] for g in games)
            assert any(g["by_time"] for g in games)  # a game stopped by its limit, the side ahead winning
            standings = ev["standings"]
            assert [s["rank"] for s in standings] == list(range(1, 65))
            assert all(s["status"] == "in" and s["played"] == 3 for s in standings[:16])
            # the stored standings are the log's
            service: EventService = apps[0].state.events
            stored = service.events.stored_standings(eid)
            assert Event.replay(service.events.entries(eid)).standings() == stored
            assert [s.pair for s in stored] == [s["pair"] for s in standings]
            print(f"64-pair city event, 72 online games: {took:.1f} s")
            await org.aclose()

    run(main())


def test_the_api_refuses_a_second_result_and_takes_a_referees_correction_with_its_reason(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path / 't.db'}", **QUIET) as base:
            org, ref = await account(base, "organiser"), await account(base, "referee1")
            body = {"name": "Club cup", "format": "swiss", "online": False, "seed": 2, "swiss_rounds": 2}
            eid = (await org.post("/api/events", json=body)).json()["id"]
            csv = "P1,a1,b1\nP2,a2,b2\nP3,a3,b3\nP4,a4,b4\n"
            assert (await org.post(f"/api/events/{eid}/pairs/import", json={"csv": csv})).json()["added"] == 4
            assert (await org.post(f"/api/events/{eid}/referees", json={"username": "referee1"})).status_code == 200
            assert (await org.post(f"/api/events/{eid}/rounds", json={})).status_code == 201
            r = await org.post(f"/api/events/{eid}/rounds/1/start", json={})
            assert r.status_code == 409 and "not published" in r.json()["error"]
            assert (await org.post(f"/api/events/{eid}/rounds/1/publish", json={})).status_code == 200
            assert (await org.post(f"/api/events/{eid}/rounds/1/start", json={})).status_code == 200
            win = {"winner": "a", "a": {"level": "A"}, "b": {"level": "9"}}
            lose = {"winner": "b", "a": {"level": "9"}, "b": {"level": "A"}}
            r = await ref.post(
                f"/api/events/{eid}/results", json={"round": 1, "table": 1, "games": [lose | {"b": {"level": "8"}}]}
            )
            assert r.status_code == 409 and "behind" in r.json()["error"]
            assert (
                await ref.post(f"/api/events/{eid}/results", json={"round": 1, "table": 1, "games": [win]})
            ).status_code == 200
            r = await ref.post(f"/api/events/{eid}/results", json={"round": 1, "table": 1, "games": [lose]})
            assert r.status_code == 409 and "correction" in r.json()["error"]
            fix = {"round": 1, "table": 1, "games": [lose]}
            r = await ref.post(f"/api/events/{eid}/results/correct", json=fix)
            assert r.status_code == 409 and "why" in r.json()["error"]
            r = await ref.post(f"/api/events/{eid}/results/correct", json={**fix, "reason": "the sides were swapped"})
            assert r.status_code == 200, r.text
            last = (await org.get(f"/api/events/{eid}/log")).json()["entries"][-1]
            assert (last["op"], last["by"], last["data"]["reason"]) == ("correct", "referee1", "the sides were swapped")
            ev = (await org.get(f"/api/events/{eid}")).json()
            assert ev["rounds"][0]["pairings"][0]["result"]["winner"] == "b"
            for c in (org, ref):
                await c.aclose()

    run(main())
