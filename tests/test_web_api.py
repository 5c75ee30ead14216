"""The server's side of the browser client (issue 12): the pages and their files, `ready` between
hands, the settlement in the view (`view.result`), and replays frame by frame.

The browser itself is driven in tests/test_browser.py; these tests need no browser.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx

from chaodipi.game import Game
from chaodipi.log import ActionKind
from chaodipi.record import game_record, load_record, replay
from chaodipi.rules import RuleSet
from chaodipi.server.replay import MAX_RECORD_BYTES, replay_frames
from chaodipi.simulate import simulate_game
from chaodipi.view import Outcome, Phase, View
from chaodipi.web import INDEX, STATIC
from server_helpers import FAST, Client, join, new_table, running_server

GOLDEN = Path(__file__).parent / "golden"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- the pages and their files ----------------------------------------------------------------------


def test_every_page_path_serves_the_client_with_a_strict_content_policy(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            running_server(f"sqlite:///{tmp_path / 't.db'}", **FAST) as base,
            httpx.AsyncClient(base_url=base) as http,
        ):
            for path in ("/", "/t/1", "/t/999", "/replay", "/replay/3/2"):
                r = await http.get(path)
                assert r.status_code == 200, path
                assert r.headers["content-type"].startswith("text/html")
                assert r.text == INDEX.read_text(encoding="utf-8")
                csp = r.headers["content-security-policy"]
                assert "default-src 'self'" in csp and "object-src 'none'" in csp
            for path in ("/static/js/main.js", "/static/css/app.css", "/static/i18n/zh.js", "/static/favicon.svg"):
                r = await http.get(path)
                assert r.status_code == 200, path
                assert r.headers["cache-control"] == "no-cache"
            js = await http.get("/static/js/main.js")
            assert "javascript" in js.headers["content-type"]
            assert (await http.get("/static/../server/app.py")).status_code == 404
            assert (await http.get("/static/js/nothing.js")).status_code == 404
            assert (await http.get("/tables")).status_code == 404

    run(main())


EXTERNAL = re.compile(
    r"""(?:src|href|action)\s*=\s*["']\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|"""
    r"""(?:from|import)\s*\(?\s*["']\s*(?:https?:)?//|fetch\(\s*["']\s*(?:https?:)?//|@import\s+["']?(?:https?:)?//""",
    re.IGNORECASE,
)


def test_no_file_of_the_client_loads_anything_from_another_site() -> None:
    files = [p for p in STATIC.rglob("*") if p.is_file()]
    assert len(files) >= 8
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not EXTERNAL.search(text), f"{path.relative_to(STATIC)} loads something from another site"


def _catalogue(lang: str) -> dict[str, str]:
    """The keys and texts of a language's catalogue (a JS module: ``export default {"key": "text", ...}``)."""
    # the page's words, and the engine's phrases in their own file (i18n.js merges the two)
    text = "".join(
        (STATIC / "i18n" / name).read_text(encoding="utf-8") for name in (f"{lang}.js", f"phrases-{lang}.js")
    )
    pairs = re.findall(r'^\s*"([^"\n]+)"\s*:\s*("(?:[^"\\\n]|\\.)*"|`[^`]*`)\s*,?\s*$', text, re.MULTILINE)
    return {key: value for key, value in pairs}


def test_both_catalogues_have_the_same_strings_and_every_string_used_is_in_them() -> None:
    zh, en = _catalogue("zh"), _catalogue("en")
    assert len(zh) >= 150
    assert set(zh) == set(en), (
        f"only in zh: {sorted(set(zh) - set(en))[:10]}; only in en: {sorted(set(en) - set(zh))[:10]}"
    )
    assert not [k for k, v in zh.items() if v in ('""', "``")], "an empty Chinese string"
    used: set[str] = set()
    for path in (STATIC / "js").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"""\bt\(\s*["']([a-zA-Z0-9_.-]+)["']\s*[,)]""", text))  # whole keys, not prefixes
    missing = sorted(k for k in used if k not in zh)
    assert not missing, f"strings used but not in the catalogues: {missing[:20]}"
    # Chinese first: the Chinese catalogue is Chinese (most texts hold a CJK character)
    cjk = sum(1 for v in zh.values() if re.search(r"[\u4e00-\u9fff]", v))
    assert cjk > 0.7 * len(zh)


def test_every_rule_option_and_preset_is_described_in_words_in_both_languages() -> None:
    from chaodipi.rules import PRESET_NAMES

    options = [k for k in RuleSet.preset("standard").describe() if k != "name"]
    for lang in ("zh", "en"):
        cat = _catalogue(lang)
        for option in options:
            assert f"opt.{option}.name" in cat and f"opt.{option}.desc" in cat, f"{lang}: option {option}"
        for preset in PRESET_NAMES:
            assert f"preset.{preset}" in cat, f"{lang}: preset {preset}"


# -- the settlement in the view -------------------------------------------------------------------


def test_a_finished_hand_shows_every_seat_its_outcome_and_it_reads_back() -> None:
    game = simulate_game(RuleSet.preset("anchao"), 13)
    for hand in game.hands:
        if hand.result is None:
            assert hand.view(0).result is None  # a redeal has no settlement
            continue
        views = [hand.view(s) for s in range(4)]
        outcome = views[0].result
        assert isinstance(outcome, Outcome)
        assert all(v.result == outcome for v in views)
        res = hand.result
        assert (
            outcome.points == res.points == outcome.trick_points + outcome.kou_di + sum(d for _, d in res.adjustments)
        )
        assert outcome.kou_di == outcome.kitty_points * outcome.multiplier
        assert outcome.after == (res.settlement.dealer, res.settlement.scoring)
        assert outcome.threshold == res.settlement.threshold
        assert "; ".join(map(str, outcome.notes)) in {e.detail for e in hand.iter_events() if e.kind.value == "settled"}
        assert View.from_json(views[1].to_json()) == views[1]
        assert views[1].to_json()["result"]["gainer"] in ("dealer", "scoring")


def test_a_hand_in_play_has_no_outcome_in_its_view() -> None:
    game = Game(RuleSet.preset("standard"), 3)
    hand = game.new_hand()
    assert hand.view(0).result is None
    assert "result" not in hand.view(0).to_json()


# -- replays frame by frame -----------------------------------------------------------------------


def test_the_replay_hook_sees_each_hand_start_and_every_action() -> None:
    record = load_record(GOLDEN / "kangqi-seed7.json")
    calls: list[tuple[int, str | None]] = []
    game = replay(
        record, after=lambda i, hand, action: calls.append((i, None if action is None else action.kind.value))
    )
    assert [c for c in calls if c[1] is None] == [(i, None) for i in range(1, len(game.hands) + 1)]
    assert len(calls) == len(game.hands) + sum(len(h.actions) for h in game.hands)


def test_frames_step_through_every_trick_with_each_seats_view() -> None:
    record = load_record(GOLDEN / "anchao-seed13.json")
    frames = replay_frames(record)
    game = replay(record)
    assert frames["players"] == record.get("players", [f"seat {n}" for n in range(4)])
    assert frames["winner"] == game.winner and len(frames["hands"]) == len(game.hands)
    for hand, out in zip(game.hands, frames["hands"], strict=True):
        steps = [f["step"] for f in out["frames"]]
        if hand.result is None:
            assert out["result"] == "redeal" and steps[-1] == "redeal"
            continue
        assert out["result"] == hand.result.to_json()
        assert steps.count("trick") + steps.count("over") == len(hand.tricks)
        assert steps[-1] == "over" and "bidding" in steps and "bury" in steps
        assert [f["trick"] for f in out["frames"] if f["step"] in ("trick", "over")] == list(
            range(1, len(hand.tricks) + 1)
        )
        assert out["log"] == [e.to_json() for e in hand.iter_events()]
        for frame in out["frames"]:
            assert [v["seat"] for v in frame["views"]] == [0, 1, 2, 3]
            assert all("legal" not in v and "rules" not in v for v in frame["views"])
            # the four hands and the cards played hold the 108 cards, less the kitty while it is buried
            held = sum(len(v["hand"].split()) for v in frame["views"])
            played = sum(len(c.split()) for t in frame["views"][0]["tricks"] for _, c in t["plays"])
            buried = 0 if frame["views"][0]["phase"] == "bury" else 8
            assert held + played + buried == 108, frame["step"]
        last = out["frames"][-1]["views"][0]
        assert last["result"]["points"] == hand.result.points and last["hand"] == ""


def test_the_replay_endpoints_answer_frames_and_refuse_bad_records(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            running_server(f"sqlite:///{tmp_path / 't.db'}", **FAST) as base,
            httpx.AsyncClient(base_url=base, timeout=60) as http,
        ):
            golden = (GOLDEN / "kangqi-seed7.json").read_text()
            r = await http.post("/api/replay", content=golden)
            assert r.status_code == 200, r.text
            assert r.json() == json.loads(json.dumps(replay_frames(json.loads(golden))))
            bad = json.loads(golden)
            bad["hands"][0]["actions"][-1]["cards"] = "BJ"
            r = await http.post("/api/replay", json=bad)
            assert r.status_code == 400 and r.json()["error"].startswith("the record does not replay: hand 1")
            assert (await http.post("/api/replay", content=b"[1]")).status_code == 400
            r = await http.post("/api/replay", content=b" " * (MAX_RECORD_BYTES + 1))
            assert r.status_code == 413
            # a table's finished game, by its number
            table = await new_table(base, "standard", seed=4, bots={str(s): "rules" for s in range(4)})
            for _ in range(600):
                info = (await http.get(f"/api/tables/{table}")).json()
                if info["status"] == "finished":
                    break
                await asyncio.sleep(0.05)
            assert info["status"] == "finished"
            r = await http.get(f"/api/tables/{table}/games/1/replay")
            assert r.status_code == 200 and r.headers.get("content-encoding") == "gzip"
            rec = (await http.get(f"/api/tables/{table}/games/1/record")).json()
            assert r.json() == json.loads(json.dumps(replay_frames(rec)))
            assert (await http.get(f"/api/tables/{table}/games/2/replay")).status_code == 409
            assert (await http.get("/api/tables/999/games/1/replay")).status_code == 404

    run(main())


# -- ready between hands ----------------------------------------------------------------------------


async def _partners(base: str, seed: int) -> tuple[Client, Client]:
    """Ann (seat 0) and Bo (seat 2), connected, at a table whose other seats are rules bots."""
    table = await new_table(base, "standard", seed=seed, bots={"1": "rules", "3": "rules"})
    clients = []
    for seat, name in ((0, "Ann"), (2, "Bo")):
        _, token = await join(base, table, name, seat)
        client = Client(base, table, token)
        await client.connect()
        clients.append(client)
    return clients[0], clients[1]


def between(c: Client) -> bool:
    return c.view is not None and c.view["phase"] in ("over", "redeal")


async def _ready_after_a_hand(base: str, seed: int) -> tuple[Client, Client, int]:
    """Ann and Bo play a hand; then Ann says she is ready (Bo does not). Returns them and the hand's number."""
    ann, bo = await _partners(base, seed)
    await asyncio.gather(ann.play(until=between), bo.play(until=between))
    await ann.send({"type": "ready"})
    return ann, bo, ann.hand


def test_ready_deals_the_next_hand_once_every_player_is_ready(tmp_path: Path) -> None:
    async def main() -> None:
        config = {**FAST, "hand_pause_ms": 60_000}
        async with running_server(f"sqlite:///{tmp_path / 't.db'}", **config) as base:
            ann, bo = await _partners(base, 8)
            await ann.send({"type": "ready", "id": "early"})
            await ann.wait(lambda c: any(e.get("id") == "early" for e in c.errors))
            assert ann.errors[-1]["code"] == "illegal" and "between two hands" in ann.errors[-1]["message"]

            await asyncio.gather(ann.play(until=between), bo.play(until=between))
            await ann.wait(lambda c: c.deadline is not None and c.deadline["kind"] == "next")
            assert ann.deadline is not None and ann.deadline["seat"] is None and ann.deadline["ready"] == []
            assert 50_000 < ann.deadline["ms"] <= 60_000
            hand = ann.hand
            assert ann.game is not None
            next_dealer = ann.game["next_dealer"]
            assert next_dealer in range(4)  # the game's rotation, once the hand is settled
            await ann.send({"type": "ready"})
            await bo.wait(lambda c: c.deadline is not None and c.deadline.get("ready") == [0])
            assert bo.hand == hand  # Bo is not ready yet: no new hand
            await bo.send({"type": "ready"})
            await ann.wait(lambda c: c.hand == hand + 1, timeout=10)
            assert ann.view is not None and ann.view["phase"] == "deal"
            assert ann.view["dealer"] == next_dealer
            await ann.close()
            await bo.close()

    run(main())


def test_a_player_in_auto_play_or_away_is_not_waited_for(tmp_path: Path) -> None:
    async def main() -> None:
        config = {**FAST, "hand_pause_ms": 60_000}
        async with running_server(f"sqlite:///{tmp_path / 't.db'}", **config) as base:
            ann, bo, hand = await _ready_after_a_hand(base, 9)
            await bo.wait(lambda c: c.deadline is not None and c.deadline.get("ready") == [0])
            await bo.send({"type": "auto", "on": True})  # Bo lets the bot play: nobody waits for Bo
            await ann.wait(lambda c: c.hand == hand + 1, timeout=10)
            await ann.play(until=between)  # Bo's bot plays Bo's cards
            hand = ann.hand
            await ann.send({"type": "ready"})
            await ann.wait(lambda c: c.hand == hand + 1, timeout=10)
            await bo.close()  # away: not waited for either
            await ann.close()

    run(main())


def test_when_the_last_player_not_ready_goes_away_the_next_hand_is_dealt(tmp_path: Path) -> None:
    async def main() -> None:
        config = {**FAST, "hand_pause_ms": 60_000}
        async with running_server(f"sqlite:///{tmp_path / 't.db'}", **config) as base:
            ann, bo, hand = await _ready_after_a_hand(base, 10)
            await ann.wait(lambda c: c.deadline is not None and c.deadline.get("ready") == [0])
            await bo.close()  # Bo's last connection closes before Bo is ready
            await ann.wait(lambda c: c.hand == hand + 1, timeout=10)
            await ann.close()

    run(main())


def test_the_view_outcome_reaches_the_client_at_the_end_of_a_hand(tmp_path: Path) -> None:
    async def main() -> None:
        config = {**FAST, "hand_pause_ms": 60_000}
        async with running_server(f"sqlite:///{tmp_path / 't.db'}", **config) as base:
            table = await new_table(base, "kangqi", seed=7, bots={"1": "rules", "2": "rules", "3": "rules"})
            _, token = await join(base, table, "Ann", 0)
            ann = Client(base, table, token)
            await ann.connect()
            await ann.play(until=lambda c: c.view is not None and c.view["phase"] == "over")
            view = ann.engine_view()
            assert view is not None and view.result is not None and view.phase is Phase.OVER
            settled = [e for e in ann.events if e["e"] == "settled"]
            assert settled and settled[0]["detail"] == "; ".join(map(str, view.result.notes))
            assert settled[0]["note_data"] == [n.to_json() for n in view.result.notes]
            assert view.result.points == view.points + view.result.kou_di
            await ann.close()

    run(main())


def test_record_actions_of_a_game_replay_in_frames_as_the_record_is_played() -> None:
    game = simulate_game(RuleSet.preset("mingchao"), 21)
    record = game_record(game)
    frames = replay_frames(record)
    plays = sum(1 for h in game.hands for a in h.actions if a.kind is ActionKind.PLAY)
    tricks = sum(len(h.tricks) for h in game.hands)
    assert plays == 4 * tricks
    assert sum(1 for h in frames["hands"] for f in h["frames"] if f["step"] in ("trick", "over")) == tricks


def test_the_view_names_the_seat_winning_the_trick_in_progress() -> None:
    from chaodipi.trick import resolve_trick

    game = simulate_game(RuleSet.preset("standard"), 5)
    checks: list[tuple[int | None, int | None]] = []

    def after(i: int, hand: Any, action: Any) -> None:
        if action is None or action.kind is not ActionKind.PLAY:
            return
        view = hand.view(i % 4, legal=False)
        expected = None
        if hand.current:  # the trick so far, judged as a whole by the rules (RULES §7)
            expected = hand.current[resolve_trick([c for _, c in hand.current], hand.trump_order).winner][0]
        checks.append((view.winning, expected))
        assert view.to_json()["winning"] == expected

    replay(game_record(game), after=after)
    assert len(checks) == sum(len(t.plays) for h in game.hands for t in h.tricks)
    assert all(got == want for got, want in checks)
    assert None in {got for got, _ in checks} and len({got for got, _ in checks}) == 5
