"""The credits ledger and the ratings (issue 21): what a table posts, once per cause, and what it sums to.

Tables are driven as in test_table.py (fake connections, a fake clock, no waiting). A ledger row is
written in the transaction of the action that ends its hand; a balance is the sum of the rows; posting
or rating a game again changes nothing; ratings move the winners up and the losers (and a player who
left) down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text

from chaodipi.rules import RuleSet
from chaodipi.server import ledger, ratings
from chaodipi.server.ledger import LedgerRow, Posting
from chaodipi.server.ratings import RatingChangeRow, RatingRow
from chaodipi.server.store import SeatKind, Store
from chaodipi.server.table import _Raw
from chaodipi.view import TEAMS, Phase
from test_table import Setup


def add_account(store: Store, name: str) -> int:
    """An account row as registration makes it (the password does not matter here)."""
    with store.engine.begin() as c:
        c.execute(
            text(
                "INSERT INTO accounts (username, username_key, kind, password_hash, created_at) "
                "VALUES (:u, :k, 'person', 'x', :t)"
            ),
            {"u": name, "k": name.casefold(), "t": datetime.now(UTC)},
        )
        return int(
            c.execute(text("SELECT id FROM accounts WHERE username_key = :k"), {"k": name.casefold()}).scalar_one()
        )


class AccountSetup(Setup):
    """Ann, with an account, in seat 0 of a credits room; rules bots elsewhere."""

    def __init__(self, path: Path, rules: str = "anchao", seed: int = 11) -> None:
        super().__init__(path, rules, seed)
        self.ann = add_account(self.store, "Ann")

    async def start(self) -> None:
        await self.table.restore(timedelta(0))
        answer = await self.table.take_seat(0, "ignored", None, (self.ann, "Ann"))
        self.token = answer["token"]
        for seat in (1, 2, 3):
            await self.table.take_seat(seat, "", "rules")

    def rows(self, account: int) -> list[Any]:
        with self.store.engine.connect() as c:
            return list(c.execute(select(LedgerRow).where(LedgerRow.account_id == account).order_by(LedgerRow.id)))

    def game_over(self) -> bool:
        return self.table.game is not None and self.table.game.over


def run(test: Callable[[AccountSetup], Coroutine[Any, Any, None]], tmp_path: Path, **kw: Any) -> None:
    setup = AccountSetup(tmp_path, **kw)

    async def main() -> None:
        await setup.start()
        await test(setup)

    asyncio.run(main())
    setup.store.close()


def test_a_whole_game_posts_each_hand_once_and_the_balance_is_the_seat_credits(tmp_path: Path) -> None:
    async def test(s: AccountSetup) -> None:
        await s.table._set_auto(0, True)  # the bot plays for Ann: the whole game on the fake clock
        await s.until(s.game_over, limit=200_000)
        game = s.table.game
        assert game is not None and game.over
        rows = s.rows(s.ann)
        assert rows and all(r.reason == "hand" and r.room == "anchao" and r.table_id == s.table_id for r in rows)
        assert len({r.key for r in rows}) == len(rows)
        assert sum(r.amount for r in rows) == game.seat_credits[0]
        # each row is that hand's credits for seat 0, as the engine settles them
        by_hand = {r.hand: r.amount for r in rows}
        first = s.table.hand_number - len(game.hands) + 1
        for number, summary in enumerate(game.history, first):
            credits = None if summary.result is None else summary.result.seat_credits()
            expected = 0 if credits is None else credits[0]
            assert by_hand.get(number, 0) == expected
        with s.store.engine.connect() as c:
            assert ledger.balances(c, s.ann)["anchao"] == game.seat_credits[0]
            assert ledger.balances(c, s.ann)["total"] == game.seat_credits[0]
            games = ledger.games_of(c, s.ann)
            assert games["total"] == 1 and games["rows"][0]["won"] == (TEAMS[0] == game.winner)
            assert games["rows"][0]["replay"] == f"/replay/{s.table_id}/1"
            mine = ratings.ratings_of(c, s.ann)
            assert len(mine) == 1 and mine[0]["games"] == 1 and mine[0]["wins"] == int(TEAMS[0] == game.winner)
            # the bots are rated too, under their accounts
            bots = list(c.execute(text("SELECT id FROM accounts WHERE kind = 'bot'")).scalars())
            assert len(bots) == 1  # the three rules bots share one account (one strength)
            board = ratings.leaderboard(c, "anchao")
            assert {r["username"] for r in board["rows"]} == {"Ann", "rules"}
            assert next(r for r in board["rows"] if r["username"] == "rules")["credits"] is None
        # settling again changes nothing: the same postings and the same rating are refused by their keys
        postings = []
        for number, summary in enumerate(game.history, first):
            credits = None if summary.result is None else summary.result.seat_credits()
            if credits is not None:
                postings += ledger.hand_postings(s.table_id, 1, number, "anchao", [s.ann, None, None, None], credits)
        with s.store.engine.begin() as c:
            assert ledger.post(c, postings) == 0
            assert ratings.rate_game(c, s.table_id, 1, "anchao", s.table.game_accounts, game.winner or 0) == 0
        assert s.rows(s.ann) == rows

    run(test, tmp_path)


def test_leaving_mid_hand_posts_the_escape_penalty_and_nothing_after(tmp_path: Path) -> None:
    async def test(s: AccountSetup) -> None:
        peer = await s.connect()
        assert peer.sent[0]["type"] == "welcome"
        await s.table._set_auto(0, True)
        await s.until(lambda: (h := s.table._hand()) is not None and len(h.tricks) >= 2)
        hand_number = s.table.hand_number
        await s.table._leave(0)
        assert s.table.seats[0] is not None and s.table.seats[0].kind is SeatKind.BOT
        await s.until(s.game_over, limit=200_000)
        rows = s.rows(s.ann)
        escape = [r for r in rows if r.reason == "escape"]
        assert len(escape) == 1 and escape[0].hand == hand_number and escape[0].amount <= -15
        assert all(r.hand <= hand_number for r in rows)  # a bot played the rest: nothing more is hers
        game = s.table.game
        assert game is not None
        first = s.table.hand_number - len(game.hands) + 1
        until_she_left = [h for n, h in enumerate(game.history, first) if n <= hand_number and h.result is not None]
        assert sum(r.amount for r in rows) == sum((h.result.seat_credits() or (0,) * 4)[0] for h in until_she_left)
        with s.store.engine.connect() as c:
            change = c.execute(select(RatingChangeRow).where(RatingChangeRow.account_id == s.ann)).one()
            assert change.won is False and change.mu_after < change.mu_before  # left: rated as a loss

    run(test, tmp_path)


def test_leaving_before_the_first_card_posts_nothing_for_that_hand_or_after(tmp_path: Path) -> None:
    """RULES §13: no penalty before the first card, and the hands a bot plays for a leaver are not theirs:
    the leaver's ledger has no row for the hand they left (it once had the side's credits as ``hand``)."""

    async def test(s: AccountSetup) -> None:
        await s.connect()
        await s.until(lambda: (h := s.table._hand()) is not None and h.phase is not Phase.DEAL)
        hand = s.table._hand()
        assert hand is not None and not hand.tricks and hand.phase in (Phase.COUNTDOWN, Phase.BURY, Phase.FRY)
        hand_number = s.table.hand_number
        await s.table._leave(0)
        await s.until(s.game_over, limit=200_000)
        game = s.table.game
        assert game is not None
        first = s.table.hand_number - len(game.hands) + 1
        left = game.history[hand_number - first].result
        assert left is not None and [e.to_json() for e in left.escapes] == [{"player": 0, "penalty": 0}]
        assert not left.escaped(0) and (left.seat_credits() or (0,))[0] != 0  # the seat's side did gain or lose
        assert [(r.hand, r.reason, r.amount) for r in s.rows(s.ann) if r.hand >= hand_number] == []

    run(test, tmp_path)


def test_a_spectator_sees_no_hand_and_is_kept_whole_tricks_behind(tmp_path: Path) -> None:
    setup = AccountSetup(tmp_path)

    async def main() -> None:
        s = setup
        watcher = await s.start_kept_behind(2)
        welcome = watcher.sent[0]
        assert welcome["type"] == "welcome" and welcome["seat"] is None and welcome["watching"] is True
        assert welcome["watch_delay"] == 2
        await s.table._set_auto(0, True)
        await s.until(lambda: (h := s.table._hand()) is not None and len(h.tricks) >= 5)
        hand = s.table._hand()
        assert hand is not None and hand.phase is Phase.PLAY
        last = watcher.last("update")
        assert last["view"]["seat"] is None and last["view"]["hand"] == "" and last["view"]["legal"] == {}
        assert len(last["view"]["tricks"]) == len(hand.tricks) - 2 and last["view"]["current_trick"] == []
        assert last["deadline"] is None  # kept behind: not told whose turn it is now
        await s.until(lambda: (h := s.table._hand()) is not None and h.phase is Phase.OVER)
        assert len(watcher.last("update")["view"]["tricks"]) == len(s.table._hand().tricks)  # over: all shown
        # a spectator cannot act (``watching``, whatever the action, as it comes off the socket), nor chat
        # without an account; it was answered ``malformed`` with the internal seat number 4 for an act
        for raw in (
            '{"type": "act", "id": "a", "seq": 1, "action": {"a": "pass"}}',
            '{"type": "act", "id": "a", "seq": 1, "action": {"a": "play", "cards": "Ah"}}',
            '{"type": "act", "id": "a", "seq": 1, "action": {"a": "play", "cards": "Ah", "p": 0}}',
            '{"type": "act", "id": "a", "seq": 1, "action": {"a": "nonsense"}}',
            '{"type": "auto", "id": "a", "on": true}',
            '{"type": "leave", "id": "a"}',
            '{"type": "ready", "id": "a"}',
            '{"type": "again", "id": "a"}',
        ):
            await s.table.step(_Raw(watcher, raw, s.clock.now()))
            error = watcher.last("error")
            assert (error["code"], error["id"]) == ("watching", "a"), raw
            assert "4" not in error["message"] and "spectator" in error["message"]
        await s.table.step(_Raw(watcher, '{"type": "chat", "id": "c", "text": "hi"}', s.clock.now()))
        assert watcher.last("error")["code"] == "chat_login"
        assert s.table.summary()["watchers"] == 1

    asyncio.run(main())
    setup.store.close()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 3), st.integers(-30, 30), st.integers(0, 12)),
        min_size=1,
        max_size=40,
    ),
    st.integers(1, 4),
)
def test_balances_are_the_sums_of_the_rows_and_a_cause_posts_once(
    entries: list[tuple[int, int, int]], repeats: int
) -> None:
    store = Store("sqlite://")
    store.migrate()
    try:
        table_id = store.create_table(RuleSet.preset("anchao"), 1)
        accounts = [add_account(store, f"p{k}") for k in range(1, 4)]
        postings = [
            Posting(accounts[who - 1], amount, "anchao", table_id, 1, cause, "hand", f"hand:{table_id}:1:{cause}:{who}")
            for who, amount, cause in entries
        ]
        first: dict[str, Posting] = {}
        for p in postings:
            first.setdefault(p.key, p)
        with store.engine.begin() as c:
            for _ in range(repeats):  # the same causes, over and over: each is posted once
                ledger.post(c, postings)
        with store.engine.connect() as c:
            for account in accounts:
                expected = sum(p.amount for p in first.values() if p.account_id == account)
                assert ledger.balances(c, account)["total"] == expected
                assert ledger.ledger_of(c, account)["total"] == sum(
                    1 for p in first.values() if p.account_id == account
                )
    finally:
        store.close()


def test_ratings_move_the_winners_up_and_the_losers_down_and_a_leaver_down() -> None:
    store = Store("sqlite://")
    store.migrate()
    try:
        table_id = store.create_table(RuleSet.preset("kangqi"), 1)
        people = [add_account(store, f"r{k}") for k in range(4)]
        with store.engine.begin() as c:
            assert ratings.rate_game(c, table_id, 1, "kangqi", people, winner=1, escaped={3}) == 4
        with store.engine.connect() as c:
            after = {r.account_id: r for r in c.execute(select(RatingRow))}
            changes = {r.account_id: r for r in c.execute(select(RatingChangeRow))}
        start = ratings.new_rating()
        assert after[people[0]].mu < start.mu and after[people[2]].mu < start.mu  # team 0 lost
        assert after[people[1]].mu > start.mu  # team 1 won
        assert after[people[3]].mu < start.mu and changes[people[3]].won is False  # won, but had left: a loss
        assert all(r.sigma < start.sigma for r in after.values())  # every game makes a rating surer
        assert all(abs(r.ordinal - (r.mu - 3 * r.sigma)) < 1e-9 for r in after.values())
        with store.engine.begin() as c:  # once only
            assert ratings.rate_game(c, table_id, 1, "kangqi", people, winner=1, escaped={3}) == 0
    finally:
        store.close()


def test_a_game_started_by_guests_is_theirs_once_a_seat_is_claimed(tmp_path: Path) -> None:
    async def test(s: Setup) -> None:
        ann = add_account(s.store, "Ann")
        await s.table._set_auto(0, True)
        await s.until(lambda: s.table.game is not None and len(s.table.game.history) >= 2)
        answer = await s.table.claim(s.token, (ann, "Ann"))
        assert answer == {"table": s.table_id, "seat": 0}
        seat = s.store.seats(s.table_id)[0]
        assert seat.account_id == ann and seat.name == "Ann"
        game = s.table.game
        assert game is not None
        with s.store.engine.connect() as c:
            rows = list(c.execute(select(LedgerRow).where(LedgerRow.account_id == ann)))
            claimed = sum((h.result.seat_credits() or (0, 0, 0, 0))[0] for h in game.history if h.result is not None)
            assert sum(r.amount for r in rows) == claimed
            assert ledger.games_of(c, ann)["total"] == 1

    setup = Setup(tmp_path, rules="mingchao")

    async def main() -> None:
        await setup.start()
        await test(setup)

    asyncio.run(main())
    setup.store.close()


def test_a_cause_is_counted_once_on_each_database_and_one_account_in_two_seats_is_rated_once(db_url: str) -> None:
    """The insert that skips a key already there says how many rows went in on SQLite and PostgreSQL alike (a
    driver's rowcount is -1 under RETURNING): the rules bot's one account in seats 1, 2 and 3 is rated once."""
    store = Store(db_url)
    store.migrate()
    try:
        table_id = store.create_table(RuleSet.preset("kangqi"), 1)
        ann = add_account(store, "Ann")
        with store.engine.begin() as c:
            bot = ratings.bot_account(c, "rules")
            assert ratings.rate_game(c, table_id, 1, "kangqi", [ann, bot, bot, bot], winner=1) == 2
            assert ratings.rate_game(c, table_id, 1, "kangqi", [ann, bot, bot, bot], winner=1) == 0
            posting = Posting(ann, 5, "kangqi", table_id, 1, 1, "hand", f"hand:{table_id}:1:1:0")
            assert ledger.post(c, [posting, posting]) == 1
            assert ledger.post(c, [posting]) == 0
        with store.engine.connect() as c:
            assert {r.account_id: r.games for r in c.execute(select(RatingRow))} == {ann: 1, bot: 1}
    finally:
        store.close()
