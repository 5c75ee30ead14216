"""A referee's penalty reaches the game in progress at an online table (RULES §14.4, issue 37): through the table
(an action of the hand's log, stored, then told to every seat and spectator at once, with the offence and the
amount), and through the event's online table (``POST /api/events/{id}/penalties``), whose result does not take it
a second time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from chaodipi.cli import main as cli_main
from chaodipi.log import IllegalActionError, Penalty
from chaodipi.server.store import Store
from chaodipi.server.table import TableError
from chaodipi.tournament.event import Event, EventError
from chaodipi.tournament.store import EventStore
from chaodipi.view import Phase
from server_helpers import Client, running_server
from test_table import Setup, run
from test_tournament_online import QUIET, account

BOT = {"name": "rules bot", "account": None, "bot": "rules"}


def _updates_with(peer_sent: list[dict[str, Any]], kind: str) -> list[int]:
    return [i for i, m in enumerate(peer_sent) if m["type"] == "update" and any(e["e"] == kind for e in m["events"])]


def test_a_penalty_at_the_table_is_stored_then_told_at_once_and_settles_and_replays(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        peer = await s.connect()
        s.table.seats[0].auto = True  # 托管: the bots play every seat
        # a later hand, in play, with a team above level 2 (so that levels off show)
        await s.until(
            lambda: (
                s.table.game is not None
                and len(s.table.game.history) >= 1
                and max(p.climbed for p in s.table.game.progress) > 0
                and s.table._hand() is not None
                and s.table._hand().phase is Phase.PLAY
                and len(s.table._hand().tricks) >= 1
            )
        )
        game, hand = s.table.game, s.table._hand()
        assert game is not None and hand is not None and hand.dealer is not None
        team = 0 if game.progress[0].climbed > 0 else 1
        before = game.progress[team]
        seq = s.table.seq
        answer = await s.table.penalize(s.table.game_number, Penalty(team, "disturbing", points=10, levels=1))
        assert answer == {"table": s.table_id, "game": s.table.game_number, "hand": s.table.hand_number, "seq": seq + 1}
        # stored before anyone heard of it
        assert s.store.load(s.table_id).hands[-1].actions[-1].action.penalty == Penalty(team, "disturbing", 10, 1)
        # Ann's update carries it, with p and the game's levels changed at once
        told = _updates_with(peer.sent, "penalty")
        assert len(told) == 1
        msg = peer.sent[told[0]]
        prev = next(m for m in reversed(peer.sent[: told[0]]) if m["type"] == "update" and m["view"])
        sign = 1 if hand.dealer % 2 == team else -1
        (event,) = [e for e in msg["events"] if e["e"] == "penalty"]
        assert event["team"] == team and event["offence"] == "disturbing" and event["levels"] == 1
        assert event["points"] == 10 * sign
        assert msg["view"]["points"] - prev["view"]["points"] == 10 * sign
        assert msg["game"]["levels"][team] == before.lowered(1).to_json() != before.to_json()
        assert msg["seq"] == seq + 1
        # the hand settles from that p, and the levels come off after it
        await s.until(lambda: s.table.hand_settled)
        res = hand.result
        assert res is not None and (f"penalty against team {team} (disturbing)", 10 * sign) in res.adjustments
        after = res.settlement.dealer if hand.dealer % 2 == team else res.settlement.scoring
        assert game.progress[team] == after.lowered(1)
        assert s.store.rebuild(s.table_id).progress == game.progress  # the stored log replays it
        # a game lost ends the game at once, won by the other team, and its outcome is stored
        await s.until(lambda: s.table._hand() is not None and s.table._hand().phase is Phase.PLAY)
        await s.table.penalize(s.table.game_number, Penalty(team, "secret_agreement", game_lost=True))
        assert peer.last("update")["game"]["over"] is True and peer.last("update")["game"]["winner"] == 1 - team
        (outcome,) = s.store.game_outcomes(s.table_id)
        assert outcome.winner == 1 - team
        with pytest.raises(TableError, match="is not being played") as caught:
            await s.table.penalize(s.table.game_number, Penalty(team, "other", warning=True))
        assert caught.value.status == 404

    run(test, tmp_path)


def test_between_hands_a_penalty_starts_the_next_hand_as_its_first_action(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        await s.connect()
        s.table.seats[0].auto = True
        await s.until(
            lambda: s.table.pause_due is not None and s.table.game is not None and s.table.game.next_dealer is not None
        )
        number = s.table.hand_number
        await s.table.penalize(s.table.game_number, Penalty(1, "slow_bury", warning=True))
        hand = s.table._hand()
        assert (
            s.table.hand_number == number + 1
            and hand is not None
            and hand.penalties == [Penalty(1, "slow_bury", warning=True)]
        )
        assert hand.dealt == 0  # nothing else happened in it yet

    run(test, tmp_path)


def test_the_engine_refuses_a_points_penalty_before_the_first_dealer_in_words(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        await s.connect()
        await s.until(lambda: s.table._hand() is not None and s.table._hand().phase is Phase.DEAL)
        seq = s.table.seq
        with pytest.raises(IllegalActionError, match="give the points once the dealer is"):
            await s.table.penalize(s.table.game_number, Penalty(0, "exposed", points=10))
        assert s.table.seq == seq and s.store.load(s.table_id).info.last_seq == seq  # nothing stored

    run(test, tmp_path)


def _event_with_an_online_game(live: bool) -> Event:
    """A final of two pairs at online table 7: pair a (team 0) lost 3 levels by a penalty, then won at 9 v 5."""
    ev = Event.replay([])
    ev.apply("create", {"name": "Cup", "preset": "standard", "format": "knockout", "online": True, "seed": 1,
                        "best_of_three_from": 0}, by="org")  # fmt: skip
    for name in ("Red", "Blue"):
        ev.apply("add_pair", {"name": name, "players": [BOT, BOT]}, by="org")
    ev.apply("pair", ev.plan_round(), by="org")
    ev.apply("publish", {"round": 1}, by="org")
    ev.apply("start", {"round": 1, "tables": {"1": {"online_table": 7, "a_team": 0}}}, by="org")
    penalty: dict[str, Any] = {"round": 1, "table": 1, "pair": "a", "offence": "disturbing", "levels": 3}
    if live:
        penalty["live"] = {"table": 7, "game": 1, "hand": 4, "seq": 300}
    ev.apply("penalty", penalty, by="ref")
    ev.apply("game", {"round": 1, "table": 1, "game": 1, "winner": "a", "a": {"level": "9"}, "b": {"level": "5"}},
             by="server")  # fmt: skip
    return ev


def test_the_event_does_not_take_a_live_penalty_s_levels_again() -> None:
    live, after = _event_with_an_online_game(live=True), _event_with_an_online_game(live=False)
    assert live.penalties[-1].live and not after.penalties[-1].live
    margins = {s.pair: s.margin for s in live.standings()}
    assert margins[live.rounds[0].pairings[0].a] == 4  # 9 v 5: the game's own levels, which hold the penalty
    margins = {s.pair: s.margin for s in after.standings()}
    assert margins[after.rounds[0].pairings[0].a] == 1  # a penalty entered afterwards: 9 − 3 v 5, as before
    with pytest.raises(EventError, match="only the server marks"):
        phys = Event.replay([])
        phys.apply("create", {"name": "P", "preset": "standard", "format": "knockout", "online": False, "seed": 1,
                              "best_of_three_from": 0}, by="org")  # fmt: skip
        for name in ("Red", "Blue"):
            phys.apply("add_pair", {"name": name, "players": ["x " + name, "y " + name]}, by="org")
        phys.apply("pair", phys.plan_round(), by="org")
        phys.apply("publish", {"round": 1}, by="org")
        phys.apply("start", {"round": 1}, by="org")
        phys.apply("penalty", {"round": 1, "table": 1, "pair": "a", "offence": "other", "warning": True, "live": {}},
                   by="ref")  # fmt: skip


def test_a_referee_s_penalty_reaches_the_online_game_and_counts_once(tmp_path: Path) -> None:
    async def main() -> None:
        apps: list[Any] = []
        async with running_server(f"sqlite:///{tmp_path / 't.db'}", apps=apps, **QUIET) as base:
            org = await account(base, "organiser")
            alice, bob = await account(base, "alice"), await account(base, "bob")
            body = {"name": "Live cup", "format": "knockout", "online": True, "seed": 4, "best_of_three_from": 0}
            eid = (await org.post("/api/events", json=body)).json()["id"]
            csv = "name,player1,player2\nHumans,alice,bob\nBots,bot:rules,bot:rules\n"
            assert (await org.post(f"/api/events/{eid}/pairs/import", json={"csv": csv})).json()["added"] == 2
            assert (await org.post(f"/api/events/{eid}/rounds", json={})).status_code == 201
            assert (await org.post(f"/api/events/{eid}/rounds/1/publish", json={})).status_code == 200
            assert (await org.post(f"/api/events/{eid}/rounds/1/start", json={})).status_code == 200
            pairing = (await org.get(f"/api/events/{eid}")).json()["rounds"][0]["pairings"][0]
            table, humans = pairing["online_table"], "a" if pairing["a"] == 1 else "b"
            bots = "b" if humans == "a" else "a"
            clients = []
            for http in (alice, bob):
                r = await http.post(f"/api/tables/{table}/seats", json={})
                assert r.status_code == 201, r.text
                clients.append(Client(base, table, r.json()["token"]))
            watcher = Client(base, table, None, watch=True)
            for c in (*clients, watcher):
                await c.connect()
            ann = clients[0]
            team = ann.seat % 2
            await ann.wait(lambda c: c.view is not None and c.view["phase"] in ("bury", "fry", "play"), timeout=60)
            penalties = f"/api/events/{eid}/penalties"
            at = {"round": 1, "table": 1}
            r = await org.post(penalties, json={**at, "pair": humans, "offence": "revoke", "cards": 2})
            assert r.status_code == 200 and r.json()["live"] is True, r.text
            for c in (*clients, watcher):  # players and spectators see it, with the offence and the amount
                await c.wait(lambda c: any(e["e"] == "penalty" for e in c.events), timeout=5)
            dealer = ann.view["dealer"] if ann.view else None
            sign = 1 if dealer is not None and dealer % 2 == team else -1
            (event,) = [e for e in ann.events if e["e"] == "penalty"]
            assert event == {**event, "team": team, "offence": "revoke", "points": 20 * sign}
            told = _updates_with(ann.messages, "penalty")[0]
            prev = next(m for m in reversed(ann.messages[:told]) if m["type"] in ("update", "welcome") and m["view"])
            assert ann.messages[told]["view"]["points"] - prev["view"]["points"] == 20 * sign
            # a refused penalty reaches nothing and is not logged
            r = await org.post(penalties, json={**at, "pair": humans, "offence": "other", "points": 7})
            assert r.status_code == 409 and "multiple of 5" in r.json()["error"], r.text
            r = await org.post(penalties, json={**at, "pair": humans, "offence": "other", "warning": True, "live": {}})
            assert r.status_code == 409 and "live" in r.json()["error"]
            # the game lost: over at once for the other pair
            r = await org.post(penalties, json={**at, "pair": bots, "offence": "other", "game_lost": True})
            assert r.status_code == 200 and r.json()["live"] is True, r.text
            await ann.wait(lambda c: bool(c.game and c.game["over"]), timeout=5)
            assert ann.game is not None and ann.game["winner"] == team
            # the server's listener of the game's end (and the catch-up) must add nothing: the tie is decided
            running = apps[0].state.server.tables[table]
            await asyncio.gather(*running.listening)
            await apps[0].state.events.catch_up()
            ev = (await org.get(f"/api/events/{eid}")).json()
            result = ev["rounds"][0]["pairings"][0]
            assert [g["lost_by_penalty"] for g in result["games"]] == [True]
            assert result["result"]["winner"] == humans
            assert [p["live"] for p in ev["penalties"]] == [True, True]
            log = (await org.get(f"/api/events/{eid}/log")).json()["entries"]
            assert [e["op"] for e in log].count("game") == 0  # the tie was decided by the penalty, once
            assert all("live" in e["data"] for e in log if e["op"] == "penalty")
            for c in (*clients, watcher):
                await c.close()
            for c in (org, alice, bob):
                await c.aclose()

    asyncio.run(main())


def test_the_command_line_leaves_a_game_in_progress_to_the_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'e.db'}"
    store = Store(url)
    store.migrate()
    events = EventStore(store)
    eid = events.create({"name": "Cup", "preset": "standard", "format": "knockout", "online": True, "seed": 1,
                         "best_of_three_from": 0}, (None, "org"))  # fmt: skip
    for name in ("Red", "Blue"):
        events.append(eid, "add_pair", {"name": name, "players": [BOT, BOT]}, by="org")
    events.append(eid, "pair", events.current(eid).plan_round(), by="org")
    events.append(eid, "publish", {"round": 1}, by="org")
    events.append(eid, "start", {"round": 1, "tables": {"1": {"online_table": 7, "a_team": 0}}}, by="org")
    args = ["tournament", "--db", url, "penalty", str(eid), "1", "1", "a", "revoke"]
    assert cli_main(args) != 0
    assert "reaches it only through the server" in capsys.readouterr().err
    assert events.current(eid).penalties == []  # not logged: it could not reach the game
    events.append(eid, "game", {"round": 1, "table": 1, "game": 1, "winner": "a", "a": {"level": "9"},
                                "b": {"level": "5"}}, by="server")  # fmt: skip
    assert cli_main([*args, "--levels", "2"]) == 0  # the game is over: the event applies it to the result
    given = events.current(eid).penalties[-1]
    assert given.levels == 2 and not given.live
    store.close()
