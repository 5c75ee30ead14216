"""An event 比赛 of pairs as an append-only log, and the state that replaying it gives (RULES §14).

Everything an organiser or a referee does to an event is one :class:`Entry` of its log (who, when,
what): create it, register a pair, withdraw one, forbid a pairing, add a referee, pair a round,
publish it, start it, undo it, record a game, enter a table's result, give a penalty. An
:class:`Event` is built by applying the entries in order, and nothing else: the rounds, results,
penalties and standings are functions of the log, so that they can always be recomputed from it
(the store keeps the standings it computed beside the log, and the tests check that the two agree).

A pairing's reasons are part of the ``pair`` entry: the draw is computed once (:meth:`Event.plan_round`,
from the event's seed) and logged, so that replaying a log never depends on the pairing code of the
day it is replayed.

>>> ev = Event.replay([])
>>> ev.apply("create", {"name": "Spring cup", "preset": "contest2021", "format": "swiss",
...                     "online": False, "seed": 1, "swiss_rounds": 1}, by="ann").op
'create'
>>> for name in ("Red", "Blue", "Green"):
...     _ = ev.apply("add_pair", {"name": name, "players": ["x " + name, "y " + name]}, by="ann")
>>> _ = ev.apply("pair", ev.plan_round(), by="ann")
>>> [(p.a, p.b) for p in ev.rounds[0].pairings]  # three pairs: one bye
[(1, 3), (2, None)]
>>> _ = ev.apply("publish", {"round": 1}, by="ann")
>>> _ = ev.apply("start", {"round": 1}, by="ann")
>>> _ = ev.apply("result", {"round": 1, "table": 1, "games": [
...     {"winner": "a", "a": {"level": "A"}, "b": {"level": "9"}}]}, by="ann")
>>> [(s.pair, s.points, s.margin) for s in ev.standings()]  # the bye: a win with the round's median margin
[(2, 2, 5), (1, 2, 5), (3, 0, -5)]
>>> ev.status
'finished'
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from chaodipi.levels import Progress, SettlementError
from chaodipi.names import fold_name
from chaodipi.rules import RuleError, RuleSet
from chaodipi.tournament.pairing import Entrant, PairingError, knockout_draw, swiss_round

__all__ = [
    "MARGIN_CAP",
    "PENALTIES",
    "PENALTY_FIELDS",
    "Entry",
    "Event",
    "EventError",
    "EventOptions",
    "Format",
    "GameResult",
    "Pair",
    "Pairing",
    "Penalty",
    "Player",
    "Round",
    "Standing",
]

#: A game's level margin is capped at this many levels (RULES §14.3).
MARGIN_CAP = 12
#: Points of the score table (RULES §14.3): a game won, a game lost.
WIN_POINTS, LOSS_POINTS = 2, 0
MAX_PAIRS = 1024
#: The fields of a ``penalty`` entry.
PENALTY_FIELDS = frozenset(
    {"round", "table", "pair", "offence", "cards", "points", "levels", "warning", "game_lost", "game", "note"}
)


class EventError(ValueError):
    """An organiser's or referee's request that the event cannot take (it changes nothing)."""


class Format(StrEnum):
    """How an event is played (RULES §14.3)."""

    KNOCKOUT = "knockout"  # 淘汰赛: the loser is out
    SWISS = "swiss"  # 瑞士制: every pair plays every round
    CITY = "city"  # seed 001's plan: knockout in sessions until ``swiss_from`` pairs remain, then Swiss


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- reading requests ------------------------------------------------------------------------------


def _int(data: Mapping[str, Any], name: str, low: int, high: int, default: int | None = None) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EventError(f"{name!r} is a whole number from {low} to {high}, not {value!r}")
    return value


def _bool(data: Mapping[str, Any], name: str, default: bool) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        raise EventError(f"{name!r} is true or false, not {value!r}")
    return value


def _text(data: Mapping[str, Any], name: str, most: int, *, default: str | None = None, empty: bool = True) -> str:
    value = data.get(name, default)
    if not isinstance(value, str) or len(value.strip()) > most or not value.isprintable():
        raise EventError(f"{name!r} is printable text of at most {most} characters")
    value = value.strip()
    if not value and not empty:
        raise EventError(f"{name!r} may not be empty")
    return value


def _only(data: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise EventError(f"unknown field {extra[0]!r}: the fields are {', '.join(sorted(allowed))}")


def _side(value: object, name: str = "pair") -> int:
    if value not in ("a", "b"):
        raise EventError(f"{name!r} is 'a' (the pairing's first pair) or 'b', not {value!r}")
    return 0 if value == "a" else 1


# -- the parts of an event ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventOptions:
    """What an organiser chooses when creating an event (RULES §14)."""

    name: str
    preset: Any  # a rules spec (a preset's name, or {"preset": …, "set": {…}}), as RuleSet.from_spec reads it
    format: Format
    online: bool = True  # games at the server's tables (or at physical tables, results entered by a referee)
    draw: str = "random"  # "random" or "seeded" (the order of registration is the seeding)
    seed: int = 0
    game_minutes: int = 50  # the game limit of RULES §14.2 (0: none)
    unlimited_from: int = 8  # rounds of at most this many pairs have no game limit (quarter-finals on)
    best_of_three_from: int = 4  # knockout rounds of at most this many pairs are best-of-three (semis, final)
    swiss_from: int = 20  # the city plan's knockout stops at the first round that leaves at most this many
    swiss_rounds: int = 3
    session_tables: int = 30  # a knockout session has at most this many tables (60 pairs)
    watchers: bool = True  # spectators at the online tables

    FIELDS = frozenset(
        {
            "name",
            "preset",
            "format",
            "online",
            "draw",
            "seed",
            "game_minutes",
            "unlimited_from",
            "best_of_three_from",
            "swiss_from",
            "swiss_rounds",
            "session_tables",
            "watchers",
        }
    )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EventOptions:
        """Read and check an organiser's options; every field but ``name`` has a default."""
        if not isinstance(data, Mapping):
            raise EventError("an event's options are a JSON object")
        _only(data, set(cls.FIELDS))
        preset = data.get("preset", "contest2021")
        try:
            RuleSet.from_spec(preset)
        except RuleError as exc:
            raise EventError(f"preset: {exc}") from None
        fmt = data.get("format", "knockout")
        if fmt not in tuple(Format):
            raise EventError(f"'format' is knockout, swiss or city, not {fmt!r}")
        draw = data.get("draw", "random")
        if draw not in ("random", "seeded"):
            raise EventError(f"'draw' is random or seeded, not {draw!r}")
        return cls(
            name=_text(data, "name", 80, empty=False),
            preset=preset,
            format=Format(fmt),
            online=_bool(data, "online", True),
            draw=draw,
            seed=_int(data, "seed", 0, 2**62, 0),
            game_minutes=_int(data, "game_minutes", 0, 600, 50),
            unlimited_from=_int(data, "unlimited_from", 0, MAX_PAIRS, 8),
            best_of_three_from=_int(data, "best_of_three_from", 0, MAX_PAIRS, 4),
            swiss_from=_int(data, "swiss_from", 2, MAX_PAIRS, 20),
            swiss_rounds=_int(data, "swiss_rounds", 1, 20, 3),
            session_tables=_int(data, "session_tables", 1, 500, 30),
            watchers=_bool(data, "watchers", True),
        )

    def to_json(self) -> dict[str, Any]:
        """The options as :meth:`from_json` reads them."""
        return {
            "name": self.name,
            "preset": self.preset,
            "format": self.format.value,
            "online": self.online,
            "draw": self.draw,
            "seed": self.seed,
            "game_minutes": self.game_minutes,
            "unlimited_from": self.unlimited_from,
            "best_of_three_from": self.best_of_three_from,
            "swiss_from": self.swiss_from,
            "swiss_rounds": self.swiss_rounds,
            "session_tables": self.session_tables,
            "watchers": self.watchers,
        }

    @property
    def rules(self) -> RuleSet:
        """The event's rules."""
        return RuleSet.from_spec(self.preset)


@dataclass(frozen=True, slots=True)
class Player:
    """One of a pair's two players: an account (its id and username), a bot, or a name (physical events)."""

    name: str
    account: int | None = None
    bot: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"name", "account", "bot"}`` (the account's id)."""
        return {"name": self.name, "account": self.account, "bot": self.bot}

    @classmethod
    def from_json(cls, data: object) -> Player:
        """Read :meth:`to_json`'s form."""
        if not isinstance(data, Mapping):
            raise EventError("a player is {name, account, bot}")
        account = data.get("account")
        bot = data.get("bot")
        if account is not None and (isinstance(account, bool) or not isinstance(account, int)):
            raise EventError("a player's account is an account id")
        if bot is not None and not isinstance(bot, str):
            raise EventError("a player's bot is a bot's name")
        return cls(_text(data, "name", 32, empty=False), account, bot)


@dataclass(slots=True)
class Pair:
    """An entrant: two players who sit opposite (RULES §14.1)."""

    id: int
    name: str
    players: tuple[Player, Player]
    club: str = ""
    withdrawn: bool = False
    out: int | None = None  # the knockout round it lost


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game of a pairing: its winner (0: pair a, 1: pair b) and where both sides ended."""

    winner: int
    progress: tuple[Progress, Progress] | None  # pair a's, pair b's (None: a forfeit or a game lost by penalty)
    by_time: bool = False
    online_game: int | None = None  # the game's number at its online table
    forced: str = ""  # "forfeit" or "penalty": decided without being played to its end

    def margin(self, levels_off: tuple[int, int] = (0, 0)) -> int:
        """The winner's level margin (RULES §14.3), after levels deducted by penalties (never below level 2)."""
        if self.progress is None:
            return 0
        a, b = (max(0, p.climbed - off) for p, off in zip(self.progress, levels_off, strict=True))
        won, lost = (a, b) if self.winner == 0 else (b, a)
        return max(0, min(MARGIN_CAP, won - lost))

    def to_json(self, online_table: int | None = None) -> dict[str, Any]:
        """``{"winner": "a"|"b", "a": progress, "b": progress, "by_time", "forfeit", "replay"}``."""
        replay = None
        if online_table is not None and self.online_game is not None:
            replay = f"/replay/{online_table}/{self.online_game}"
        return {
            "winner": "ab"[self.winner],
            "a": None if self.progress is None else self.progress[0].to_json(),
            "b": None if self.progress is None else self.progress[1].to_json(),
            "by_time": self.by_time,
            "forfeit": self.forced == "forfeit",
            "lost_by_penalty": self.forced == "penalty",
            "replay": replay,
        }


@dataclass(slots=True)
class Pairing:
    """Two pairs at a table for one round (``b`` None: a bye for ``a``), their games and result."""

    table: int
    session: int
    a: int
    b: int | None
    why: str
    online_table: int | None = None
    a_team: int = 0  # the team (0: seats 0 and 2, 1: seats 1 and 3) pair a sits as at the online table
    games: list[GameResult] = field(default_factory=list)  # as recorded (online) or entered (physical)
    forfeit: int | None = None  # the side (0: a, 1: b) that forfeited the tie (RULES §14.1)

    @property
    def pairs(self) -> tuple[int, ...]:
        """The pair ids at this table."""
        return (self.a,) if self.b is None else (self.a, self.b)

    def side_of(self, pair: int) -> int:
        """0 if ``pair`` is this pairing's pair a, 1 if b."""
        if pair == self.a:
            return 0
        if pair == self.b:
            return 1
        raise EventError(f"pair {pair} does not play at table {self.table}")


@dataclass(slots=True)
class Round:
    """A round: its stage, match length and game limit, and its pairings."""

    number: int
    stage: str  # "knockout" or "swiss"
    label: str
    best_of: int
    game_minutes: int
    pairings: list[Pairing]
    status: str = "drawn"  # drawn → published → playing → finished

    def pairing(self, table: object) -> Pairing:
        """The pairing at table ``table`` (1, 2, …)."""
        for p in self.pairings:
            if p.table == table:
                return p
        raise EventError(f"round {self.number} has no table {table!r}")

    def pairing_of(self, pair: int) -> Pairing | None:
        """The pairing ``pair`` plays in this round (None: it does not)."""
        for p in self.pairings:
            if pair in p.pairs:
                return p
        return None


@dataclass(frozen=True, slots=True)
class PenaltyKind:
    """An offence of RULES §14.4's schedule and what it costs."""

    key: str
    en: str
    zh: str
    per_card: int | None = None  # points per card
    points: int | None = None  # fixed points
    warning_first: bool = False  # the first time a warning, later ``points``
    disqualify: bool = False
    custom: bool = False  # the referee chooses: a warning, points, levels or the game lost

    def to_json(self) -> dict[str, Any]:
        """The offence as the penalty form shows it."""
        return {
            "key": self.key,
            "en": self.en,
            "zh": self.zh,
            "per_card": self.per_card,
            "points": self.points,
            "warning_first": self.warning_first,
            "disqualify": self.disqualify,
            "custom": self.custom,
        }


#: RULES §14.4's schedule (seed 004 §6–§7).
PENALTIES: dict[str, PenaltyKind] = {
    k.key: k
    for k in (
        PenaltyKind("exposed", "card played not in the normal way (exposed, dropped)", "出牌不规范（亮牌、掉牌）", 10),
        PenaltyKind("revoke", "revoke found within the trick (吃苍蝇)", "吃苍蝇（有牌不跟）", 10),
        PenaltyKind("failed_throw", "failed throw: the wrong cards", "甩牌失败的错牌", 10),
        PenaltyKind("hidden_holding", "hidden holding found after a further trick (藏牌)", "藏牌", None, 80),
        PenaltyKind("out_of_turn", "out-of-turn play", "未轮到出牌", 10),
        PenaltyKind("kitty_count", "kitty of more or fewer than 8 cards", "底牌不是8张", None, 80),
        PenaltyKind("card_count", "a player's card count wrong", "手牌张数不对", None, 80),
        PenaltyKind("slow_bury", "burying over 60 s", "扣底超过60秒", None, 80, warning_first=True),
        PenaltyKind("overtime", "other overtime", "其他超时", custom=True),
        PenaltyKind("review_tricks", "asking to see earlier tricks (after the first time)", "查看已出的牌", None, 10),
        PenaltyKind("secret_agreement", "secret agreement between partners", "同伴暗约", disqualify=True),
        PenaltyKind("disturbing", "disturbing play (talking, gestures)", "干扰比赛（说话、手势）", custom=True),
        PenaltyKind("other", "other (the referee decides)", "其他（裁判决定）", custom=True),
    )
}


@dataclass(frozen=True, slots=True)
class Penalty:
    """A referee's decision against one pair at one table (RULES §14.4)."""

    id: int
    round: int
    table: int
    pair: int  # the offending pair's id
    offence: str
    cards: int
    points: int  # applied to the current hand's p against the offending side
    levels: int  # deducted from the offending side's progress (never below level 2)
    warning: bool
    game_lost: bool
    game: int  # which game of the pairing (1, 2, 3)
    note: str
    by: str
    at: str
    # given to the game in progress at the pairing's online table (RULES §14.4): its points and levels are in the
    # game's own result already, and count only there (the ``live`` of the entry, which the server writes)
    live: bool = False

    def to_json(self) -> dict[str, Any]:
        """The penalty as the event's pages list it."""
        return {
            "id": self.id,
            "round": self.round,
            "table": self.table,
            "pair": self.pair,
            "offence": self.offence,
            "cards": self.cards,
            "points": self.points,
            "levels": self.levels,
            "warning": self.warning,
            "game_lost": self.game_lost,
            "game": self.game,
            "note": self.note,
            "by": self.by,
            "at": self.at,
            "live": self.live,
        }


@dataclass(frozen=True, slots=True)
class Standing:
    """A pair's line of the standings (RULES §14.3's score table and ranking order)."""

    rank: int
    pair: int
    points: int
    margin: int
    buchholz: int
    played: int
    won: int
    lost: int
    byes: int
    status: str  # "in", "out" or "withdrawn"

    def to_json(self) -> dict[str, Any]:
        """The line as the pages and the CSV export show it."""
        return {
            "rank": self.rank,
            "pair": self.pair,
            "points": self.points,
            "margin": self.margin,
            "buchholz": self.buchholz,
            "played": self.played,
            "won": self.won,
            "lost": self.lost,
            "byes": self.byes,
            "status": self.status,
        }


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of an event's log: number ``seq``, when, who, what (``op``) and its data."""

    seq: int
    at: str
    by: str
    op: str
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """``{"seq", "at", "by", "op", "data"}``."""
        return {"seq": self.seq, "at": self.at, "by": self.by, "op": self.op, "data": self.data}


# -- the event ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Tally:
    points: int = 0
    margin: int = 0
    played: int = 0
    won: int = 0
    lost: int = 0
    byes: int = 0
    opponents: list[int] = field(default_factory=list)  # one per tie played (a bye: the pair itself)
    beat: dict[int, int] = field(default_factory=dict)  # points won against each opponent


class Event:
    """An event: the state its log gives. Build one with :meth:`replay`; change it with :meth:`apply`."""

    OPS = (
        "create",
        "add_pair",
        "withdraw",
        "forbid",
        "referee",
        "pair",
        "publish",
        "start",
        "undo",
        "game",
        "result",
        "correct",
        "penalty",
    )

    def __init__(self) -> None:
        self.options: EventOptions | None = None
        self.organiser = ""
        self.referees: list[str] = []
        self.pairs: dict[int, Pair] = {}
        self.forbidden: set[frozenset[int]] = set()
        self.rounds: list[Round] = []
        self.penalties: list[Penalty] = []
        self.log: list[Entry] = []
        self._fresh = True  # applying a new entry (not replaying the log): the checks added later hold

    @classmethod
    def replay(cls, entries: Sequence[Entry]) -> Event:
        """The event that these log entries make, applied in order (each is checked as when it was made:
        the checks added since, such as a result's winner not behind, hold for new entries only, so that a
        log written before them replays as it was made)."""
        event = cls()
        for entry in entries:
            event._apply(entry.op, entry.data, by=entry.by, at=entry.at, fresh=False)
        return event

    @property
    def opts(self) -> EventOptions:
        """The event's options (an event's first entry creates it)."""
        if self.options is None:
            raise EventError("the event has not been created")
        return self.options

    @property
    def version(self) -> int:
        """How many entries the log holds: every change moves it on."""
        return len(self.log)

    # -- applying entries --------------------------------------------------------------------------
    def apply(self, op: str, data: Mapping[str, Any], *, by: str, at: str | None = None) -> Entry:
        """Check and apply one organiser's or referee's action; returns the log entry it made.

        A refused action raises :class:`EventError` and changes nothing: each operation checks
        everything before it changes anything."""
        return self._apply(op, data, by=by, at=at, fresh=True)

    def _apply(self, op: str, data: Mapping[str, Any], *, by: str, at: str | None, fresh: bool) -> Entry:
        if op not in self.OPS:
            raise EventError(f"unknown operation {op!r}: the operations are {', '.join(self.OPS)}")
        if not isinstance(data, Mapping):
            raise EventError("an operation's data is a JSON object")
        if (op == "create") != (self.options is None):
            raise EventError("an event is created once, before anything else")
        entry = Entry(len(self.log) + 1, at or _now(), by, op, dict(data))
        self._fresh = fresh
        try:
            getattr(self, f"_op_{op}")(entry)
        except EventError:
            # Most operations check everything first; a late refusal (a knockout result that later rounds
            # contradict) puts the event back as its log has it.
            self._restore()
            raise
        self.log.append(entry)
        return entry

    def _restore(self) -> None:
        again = Event.replay(self.log)
        for name in ("options", "organiser", "referees", "pairs", "forbidden", "rounds", "penalties", "log"):
            setattr(self, name, getattr(again, name))

    def _op_create(self, entry: Entry) -> None:
        self.options = EventOptions.from_json(entry.data)
        self.organiser = entry.by

    def _op_add_pair(self, entry: Entry) -> None:
        d = entry.data
        _only(d, {"name", "players", "club"})
        if self.rounds:
            raise EventError("pairs are registered before the first round is paired")
        if len(self.pairs) >= MAX_PAIRS:
            raise EventError(f"an event has at most {MAX_PAIRS} pairs")
        raw = d.get("players")
        if not isinstance(raw, list) or len(raw) != 2:
            raise EventError("a pair is two players")
        players = tuple(Player(p) if isinstance(p, str) and p.strip() else Player.from_json(p) for p in raw)
        assert len(players) == 2
        if self.opts.online and any(p.account is None and p.bot is None for p in players):
            raise EventError("an online event's players are accounts (usernames) or bots ('bot:rules')")
        taken = {p.account for pair in self.pairs.values() for p in pair.players if p.account is not None}
        for p in players:
            if p.account is not None and p.account in taken:
                raise EventError(f"{p.name} is already registered in another pair")
        if players[0].account is not None and players[0].account == players[1].account:
            raise EventError("a pair is two different players")
        if self._fresh:  # one person in one pair: names compared as account names are (NFKC, case folded)
            people = [fold_name(p.name) if p.bot is None else None for p in players]
            if people[0] is not None and people[0] == people[1]:
                raise EventError(f"a pair is two different players, not {players[0].name} twice")
            for p, person in zip(players, people, strict=True):
                other = next((q for q in self.pairs.values() for x in q.players if self._same(x, person)), None)
                if other is not None:
                    raise EventError(f"{p.name} already plays in pair {other.name!r}")
        name = _text(d, "name", 48, default="") or f"{players[0].name} & {players[1].name}"
        same_name = fold_name if self._fresh else str.casefold
        if any(same_name(p.name) == same_name(name) for p in self.pairs.values()):
            raise EventError(f"a pair is already called {name!r}")
        pid = len(self.pairs) + 1
        self.pairs[pid] = Pair(pid, name, (players[0], players[1]), _text(d, "club", 48, default=""))

    @staticmethod
    def _same(player: Player, person: str | None) -> bool:
        """Whether ``player`` is the person whose folded name is ``person`` (None: a bot, never the same)."""
        return person is not None and player.bot is None and fold_name(player.name) == person

    def _pair(self, value: object) -> Pair:
        if isinstance(value, bool) or not isinstance(value, int) or value not in self.pairs:
            raise EventError(f"no pair {value!r} in this event")
        return self.pairs[value]

    def _op_withdraw(self, entry: Entry) -> None:
        _only(entry.data, {"pair"})
        pair = self._pair(entry.data.get("pair"))
        if pair.withdrawn:
            raise EventError(f"{pair.name} has already withdrawn")
        pair.withdrawn = True
        cur = self.rounds[-1] if self.rounds else None
        if cur is not None and cur.status != "finished":
            p = cur.pairing_of(pair.id)
            if p is not None and p.b is not None and self._result(cur, p) is None:
                p.forfeit = p.side_of(pair.id)  # the tie it was to play is lost (RULES §14.1)
        self._settle_rounds()

    def _op_forbid(self, entry: Entry) -> None:
        _only(entry.data, {"a", "b"})
        a, b = self._pair(entry.data.get("a")), self._pair(entry.data.get("b"))
        if a.id == b.id:
            raise EventError("a forbidden pairing is two different pairs")
        self.forbidden.add(frozenset((a.id, b.id)))

    def _op_referee(self, entry: Entry) -> None:
        _only(entry.data, {"username"})
        name = _text(entry.data, "username", 32, empty=False)
        if name == self.organiser or name in self.referees:
            raise EventError(f"{name} is already the organiser or a referee")
        self.referees.append(name)

    def _op_pair(self, entry: Entry) -> None:
        d = entry.data
        _only(d, {"round", "stage", "label", "best_of", "game_minutes", "pairings"})
        plan = self._expect_next()
        number = _int(d, "round", 1, 10_000)
        if number != len(self.rounds) + 1:
            raise EventError(f"the next round is round {len(self.rounds) + 1}, not {number}")
        if d.get("stage") != plan.stage:
            raise EventError(f"round {number} is a {plan.stage} round")
        raw = d.get("pairings")
        if not isinstance(raw, list) or not raw:
            raise EventError("a round's pairings are a non-empty list")
        active = self.active()
        seen: set[int] = set()
        pairings: list[Pairing] = []
        for i, item in enumerate(raw, 1):
            if not isinstance(item, Mapping):
                raise EventError("a pairing is {table, session, a, b, why}")
            a = self._pair(item.get("a")).id
            b = None if item.get("b") is None else self._pair(item.get("b")).id
            for pid in (a,) if b is None else (a, b):
                if pid in seen or pid not in active:
                    raise EventError(f"pair {pid} cannot play twice in a round, nor play once out")
                seen.add(pid)
            why = item.get("why", "")
            pairings.append(Pairing(i, _int(item, "session", 1, 1000, 1), a, b, why if isinstance(why, str) else ""))
        if seen != set(active):
            raise EventError("every pair still in must be paired (or given a bye)")
        self.rounds.append(
            Round(
                number,
                plan.stage,
                plan.label,
                plan.best_of,
                plan.game_minutes,
                pairings,
            )
        )
        self._settle_rounds()

    def _round(self, data: Mapping[str, Any]) -> Round:
        n = data.get("round")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(self.rounds):
            raise EventError(f"no round {n!r} in this event")
        return self.rounds[n - 1]

    def _op_publish(self, entry: Entry) -> None:
        _only(entry.data, {"round"})
        rnd = self._round(entry.data)
        if rnd.status != "drawn":
            raise EventError(f"round {rnd.number} is already published")
        rnd.status = "published"

    def _op_start(self, entry: Entry) -> None:
        _only(entry.data, {"round", "tables"})
        rnd = self._round(entry.data)
        self.check_start(rnd, fresh=self._fresh)
        tables = entry.data.get("tables", {})
        if not isinstance(tables, Mapping):
            raise EventError("'tables' maps a table number to its online table and the team pair a sits as")
        played = [p for p in rnd.pairings if p.b is not None and self._result(rnd, p) is None]
        if self.opts.online:
            if sorted(str(p.table) for p in played) != sorted(tables):
                raise EventError("an online round starts with an online table for each of its ties")
            for p in played:
                spec = tables[str(p.table)]
                if not isinstance(spec, Mapping):
                    raise EventError("a table's start is {online_table, a_team}")
                p.online_table = _int(spec, "online_table", 1, 2**62)
                p.a_team = _int(spec, "a_team", 0, 1)
        elif tables:
            raise EventError("a physical event's rounds open no online tables")
        rnd.status = "playing"
        self._settle_rounds()

    def _op_undo(self, entry: Entry) -> None:
        _only(entry.data, {"round"})
        rnd = self._round(entry.data)
        if rnd is not self.rounds[-1]:
            raise EventError("only the last round's pairing can be undone")
        if rnd.status not in ("drawn", "published"):
            raise EventError(f"round {rnd.number} has started: its pairing can no longer be undone")
        self.rounds.pop()

    def _started(self, data: Mapping[str, Any]) -> tuple[Round, Pairing]:
        rnd = self._round(data)
        pairing = rnd.pairing(data.get("table"))
        if pairing.b is None:
            raise EventError(f"table {pairing.table} of round {rnd.number} is a bye: nothing is played there")
        if rnd.status not in ("playing", "finished"):
            raise EventError(f"round {rnd.number} has not started")
        return rnd, pairing

    def _op_game(self, entry: Entry) -> None:
        d = entry.data
        _only(d, {"round", "table", "game", "winner", "a", "b", "by_time"})
        rnd, pairing = self._started(d)
        number = _int(d, "game", 1, rnd.best_of)
        if pairing.online_table is None:
            raise EventError("games are recorded from online tables; a physical table's result is entered")
        if number != len(pairing.games) + 1:
            raise EventError(f"table {pairing.table}'s next game is game {len(pairing.games) + 1}, not {number}")
        if self._result(rnd, pairing) is not None:
            raise EventError(f"table {pairing.table} of round {rnd.number} is decided")
        pairing.games.append(self._game(d, online_game=number))
        self._settle_rounds()

    def _game(self, d: Mapping[str, Any], online_game: int | None = None) -> GameResult:
        winner = _side(d.get("winner"), "winner")
        try:
            progress = (Progress.from_json(d.get("a")), Progress.from_json(d.get("b")))
        except SettlementError as exc:
            raise EventError(f"a game's final levels: {exc}") from None
        return GameResult(winner, progress, _bool(d, "by_time", False), online_game)

    def _op_result(self, entry: Entry) -> None:
        d = entry.data
        _only(d, {"round", "table", "games", "forfeit"})
        rnd, pairing = self._started(d)
        if self._fresh and self._result(rnd, pairing) is not None:
            how = self._decided_how(rnd, pairing)
            raise EventError(
                f"table {pairing.table} of round {rnd.number} has its result already ({how}):"
                " a referee changes it by a correction, which says why"
            )
        self._enter(rnd, pairing, d)

    def _op_correct(self, entry: Entry) -> None:
        """A referee's correction of a table's result: its games (or forfeit) replace the result's, the
        entry names who made it and why (``reason``); refused once the next round is paired on the old one."""
        d = entry.data
        _only(d, {"round", "table", "games", "forfeit", "reason"})
        reason = d.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise EventError("a correction says why the result is corrected ('reason')")
        _text(d, "reason", 200)
        rnd, pairing = self._started(d)
        if self._result(rnd, pairing) is None:
            raise EventError(f"table {pairing.table} of round {rnd.number} has no result to correct: enter its result")
        if len(self.rounds) > rnd.number:
            raise EventError(
                f"round {rnd.number + 1} is paired on round {rnd.number}'s results: undo round {rnd.number + 1}"
                f" before correcting table {pairing.table}"
            )
        self._enter(rnd, pairing, d)

    def _decided_how(self, rnd: Round, pairing: Pairing) -> str:
        """How a decided tie was decided, in words."""
        res = self._result(rnd, pairing)
        assert res is not None
        if pairing.forfeit is not None:
            return f"pair {'ab'[pairing.forfeit]} forfeited"
        lost = [g for g in res[1] if g.forced == "penalty"]
        if lost:
            return f"pair {'ab'[1 - lost[-1].winner]} lost a game by penalty"
        return f"pair {'ab'[res[0]]} won"

    def _enter(self, rnd: Round, pairing: Pairing, d: Mapping[str, Any]) -> None:
        """Set a table's games or forfeit from a result or a correction, checked (RULES §14.2)."""
        forfeit = None if d.get("forfeit") is None else _side(d.get("forfeit"), "forfeit")
        raw = d.get("games", [])
        if not isinstance(raw, list):
            raise EventError("'games' is a list of games: winner and both pairs' final levels")
        games = [self._game(g) if isinstance(g, Mapping) else self._game({}) for g in raw]
        need = rnd.best_of // 2 + 1
        if forfeit is None:
            wins = [sum(1 for g in games if g.winner == s) for s in (0, 1)]
            if (
                max(wins) != need
                or len(games) > rnd.best_of
                or any(
                    max(sum(1 for g in games[:i] if g.winner == s) for s in (0, 1)) >= need for i in range(len(games))
                )
            ):
                raise EventError(
                    f"a result of round {rnd.number} is the games until a pair has won {need}"
                    + (" (best of three)" if rnd.best_of == 3 else " (one game)")
                )
        elif games:
            raise EventError("a forfeit has no games")
        if self._fresh:
            lost = self._lost_by_penalty(rnd, pairing)
            for number, g in enumerate(games, 1):
                if number in lost and g.winner == lost[number]:
                    raise EventError(
                        f"game {number} of table {pairing.table} was lost by pair {'ab'[lost[number]]} by penalty:"
                        f" its winner is pair {'ab'[1 - lost[number]]}"
                    )
                if number not in lost:
                    _check_winner(g, number)
        pairing.forfeit = forfeit
        before = pairing.games  # (a corrected online game keeps its link to the table's record)
        pairing.games = [
            GameResult(g.winner, g.progress, g.by_time, before[i].online_game if i < len(before) else None)
            for i, g in enumerate(games)
        ]
        self._settle_rounds(reopen=rnd)

    def _op_penalty(self, entry: Entry) -> None:
        d = entry.data
        _only(d, {*PENALTY_FIELDS, "live"})
        rnd, pairing = self._started(d)
        side = _side(d.get("pair"))
        pair_id = pairing.pairs[side]
        kind = PENALTIES.get(str(d.get("offence", "other")))
        if kind is None:
            raise EventError(f"unknown offence {d.get('offence')!r}: the offences are {', '.join(PENALTIES)}")
        cards = _int(d, "cards", 0, 25, 1 if kind.per_card else 0)
        default = 0
        warning_default = False
        if kind.per_card:
            default = kind.per_card * cards
        elif kind.warning_first:
            before = sum(1 for p in self.penalties if p.pair == pair_id and p.offence == kind.key)
            default, warning_default = (kind.points or 0, False) if before else (0, True)
        elif kind.key == "review_tricks":
            default = kind.points or 0
        elif kind.points:
            default = kind.points
        points = _int(d, "points", 0, 1000, default)
        levels = _int(d, "levels", 0, 12, 0)
        warning = _bool(d, "warning", warning_default)
        game_lost = _bool(d, "game_lost", kind.disqualify)
        counted = len(self._games(rnd, pairing))  # the penalty is for the game being played, or the last one
        game = _int(d, "game", 1, rnd.best_of, counted if self._result(rnd, pairing) else counted + 1)
        if not (points or levels or warning or game_lost):
            raise EventError("a penalty is a warning, points, levels or the game lost")
        live = d.get("live")  # where the server gave it to the game in progress: {"table", "game", "hand", "seq"}
        if live is not None and not (isinstance(live, Mapping) and pairing.online_table is not None):
            raise EventError("only the server marks a penalty given at an online table's game in progress ('live')")
        self.penalties.append(
            Penalty(
                len(self.penalties) + 1,
                rnd.number,
                pairing.table,
                pair_id,
                kind.key,
                cards,
                points,
                levels,
                warning,
                game_lost,
                game,
                _text(d, "note", 200, default=""),
                entry.by,
                entry.at,
                live is not None,
            )
        )
        if kind.disqualify and not self.pairs[pair_id].withdrawn:
            self.pairs[pair_id].withdrawn = True
        self._settle_rounds(reopen=rnd)

    # -- results -----------------------------------------------------------------------------------
    def _lost_by_penalty(self, rnd: Round, pairing: Pairing) -> dict[int, int]:
        """The games of the pairing lost by penalty (RULES §14.4): game number → the side that lost it."""
        return {
            p.game: pairing.side_of(p.pair)
            for p in self.penalties
            if p.round == rnd.number and p.table == pairing.table and p.game_lost
        }

    def _games(self, rnd: Round, pairing: Pairing) -> list[GameResult]:
        """The pairing's games as they count: games lost by penalty replace the game they were given in."""
        lost = self._lost_by_penalty(rnd, pairing)
        need = rnd.best_of // 2 + 1
        out: list[GameResult] = []
        for number in range(1, rnd.best_of + 1):
            if max((sum(1 for g in out if g.winner == s) for s in (0, 1)), default=0) >= need:
                break
            if number in lost:
                out.append(GameResult(1 - lost[number], None, forced="penalty"))
            elif number <= len(pairing.games):
                out.append(pairing.games[number - 1])
            else:
                break
        return out

    def _result(self, rnd: Round, pairing: Pairing) -> tuple[int, list[GameResult]] | None:
        """The winning side (0: a, 1: b) and the games that count, once the tie is decided."""
        if pairing.b is None:
            return (0, [])
        if pairing.forfeit is not None:
            return (1 - pairing.forfeit, [GameResult(1 - pairing.forfeit, None, forced="forfeit")])
        games = self._games(rnd, pairing)
        need = rnd.best_of // 2 + 1
        for side in (0, 1):
            if sum(1 for g in games if g.winner == side) >= need:
                return (side, games)
        return None

    def _levels_off(self, rnd: Round, pairing: Pairing, game: int) -> tuple[int, int]:
        off = [0, 0]
        for p in self.penalties:  # (a live penalty's levels are in the online game's final levels already)
            if p.round == rnd.number and p.table == pairing.table and p.game == game and p.levels and not p.live:
                off[pairing.side_of(p.pair)] += p.levels
        return (off[0], off[1])

    def _settle_rounds(self, reopen: Round | None = None) -> None:
        """Mark rounds finished (and knockout losers out) once every tie is decided; ``reopen``: a round
        whose result changed (a corrected result, a penalty), checked against the rounds after it."""
        if reopen is not None and reopen.status == "finished":
            later = [r for r in self.rounds if r.number > reopen.number]
            results = [self._result(reopen, p) for p in reopen.pairings]
            if later and reopen.stage == "knockout":
                winners = {p.pairs[r[0]] for p, r in zip(reopen.pairings, results, strict=True) if r is not None}
                if None in results or any(pid not in winners for pp in later[0].pairings for pid in pp.pairs):
                    raise EventError(
                        f"round {reopen.number}'s knockout result is followed by round {later[0].number}: "
                        "undo that round before changing who went through"
                    )
            if None in results:
                if later:
                    raise EventError(f"round {reopen.number} is followed by round {later[0].number}: it stays decided")
                reopen.status = "playing"
        for rnd in self.rounds:
            if rnd.status == "playing" and all(self._result(rnd, p) is not None for p in rnd.pairings):
                rnd.status = "finished"
        for pair in self.pairs.values():
            pair.out = None
        for rnd in self.rounds:
            if rnd.stage == "knockout" and rnd.status in ("playing", "finished"):  # out once its tie is lost
                for p in rnd.pairings:
                    res = self._result(rnd, p)
                    if res is not None and p.b is not None:
                        self.pairs[p.pairs[1 - res[0]]].out = rnd.number

    # -- what comes next ---------------------------------------------------------------------------
    def active(self) -> list[int]:
        """The pairs still in the event, in registration order (not withdrawn, not knocked out)."""
        return [p.id for p in self.pairs.values() if not p.withdrawn and p.out is None]

    @property
    def status(self) -> str:
        """``registering`` (no round yet), ``running`` or ``finished`` (no further round)."""
        if not self.rounds or self.rounds[0].status == "drawn":
            return "registering"  # (a first round's draft is the organiser's)
        if self.rounds[-1].status != "finished":
            return "running"
        return "finished" if self._next_stage() is None else "running"

    def _next_stage(self) -> str | None:
        opts = self.opts
        n = len(self.active())
        swiss_played = sum(1 for r in self.rounds if r.stage == "swiss")
        if opts.format is Format.KNOCKOUT:
            return "knockout" if n >= 2 else None
        if opts.format is Format.CITY and swiss_played == 0 and n > opts.swiss_from:
            return "knockout"
        return "swiss" if swiss_played < opts.swiss_rounds and n >= 2 else None

    @dataclass(frozen=True, slots=True)
    class _Plan:
        stage: str
        label: str
        best_of: int
        game_minutes: int

    def _expect_next(self) -> Event._Plan:
        if self.rounds and self.rounds[-1].status != "finished":
            raise EventError(f"round {self.rounds[-1].number} is not finished")
        if len(self.active()) < 2:
            raise EventError("an event needs at least two pairs still in to pair a round")
        stage = self._next_stage()
        if stage is None:
            raise EventError("the event is over: no further round")
        opts = self.opts
        n = len(self.active())
        if stage == "knockout":
            label = (
                "Final"
                if n == 2
                else "Semi-final"
                if n <= 4
                else "Quarter-final"
                if n <= 8
                else "Round of 16"
                if n <= 16
                else f"Round {len(self.rounds) + 1}"
            )
            best_of = 3 if opts.best_of_three_from and n <= opts.best_of_three_from else 1
        else:
            label = f"Swiss {sum(1 for r in self.rounds if r.stage == 'swiss') + 1}"
            best_of = 1
        minutes = 0 if n <= opts.unlimited_from else opts.game_minutes
        return Event._Plan(stage, label, best_of, minutes)

    def plan_round(self) -> dict[str, Any]:
        """The next round's pairing as a ``pair`` entry's data (not applied): the draw, from the event's seed."""
        plan = self._expect_next()
        number = len(self.rounds) + 1
        rng = random.Random(f"{self.opts.seed}/round/{number}")
        active = self.active()
        byes = {pid: self._tallies()[pid].byes for pid in active}
        try:
            if plan.stage == "knockout":
                order = self._seeding(active)
                entrants = [Entrant(pid, rank=i, byes=byes[pid]) for i, pid in enumerate(order, 1)]
                sessions = knockout_draw(
                    entrants,
                    rng=rng,
                    seeded=self.opts.draw == "seeded",
                    session_size=2 * self.opts.session_tables,
                )
                pairings = [(s, p) for s, session in enumerate(sessions, 1) for p in session]
            else:
                swiss = [r for r in self.rounds if r.stage == "swiss"]
                table = {s.pair: s for s in self.standings()}
                entrants = [
                    Entrant(pid, table[pid].points, table[pid].margin, table[pid].rank, byes[pid], self.pairs[pid].club)
                    for pid in active
                ]
                ordered = swiss_round(entrants, rng=rng, met=self.met(), forbidden=self.forbidden, first=not swiss)
                pairings = [(1, p) for p in ordered]
        except PairingError as exc:
            raise EventError(f"pairing round {number}: {exc}") from None
        # byes last, then the pairings in order: table numbers follow
        pairings.sort(key=lambda sp: (sp[1].b is None, sp[0]))
        return {
            "round": number,
            "stage": plan.stage,
            "label": plan.label,
            "best_of": plan.best_of,
            "game_minutes": plan.game_minutes,
            "pairings": [
                {"table": i, "session": s, "a": p.a, "b": p.b, "why": p.why} for i, (s, p) in enumerate(pairings, 1)
            ],
        }

    def _seeding(self, active: list[int]) -> list[int]:
        """Knockout seeding: the organiser's order (registration) in round 1, then the previous round's order."""
        if not self.rounds:
            return list(active)
        last = self.rounds[-1]
        order = [pid for p in last.pairings for pid in p.pairs]
        return [pid for pid in order if pid in set(active)] + [pid for pid in active if pid not in order]

    def codes(self, *, staff: bool = False) -> dict[int, str]:
        """Each pair's number in the latest round (a draft only for ``staff``): a1, a2, … in the first knockout
        round, b1, b2, … in the next (seed 001's plan), s1, s2, … in a Swiss round; none before the first."""
        shown = [r for r in self.rounds if staff or r.status != "drawn"]
        if not shown:
            return {}
        rnd = shown[-1]
        knockouts = sum(1 for r in self.rounds[: rnd.number] if r.stage == "knockout")
        letter = chr(ord("a") + (knockouts - 1) % 26) if rnd.stage == "knockout" else "s"
        ids = [pid for p in rnd.pairings for pid in p.pairs]
        return {pid: f"{letter}{n}" for n, pid in enumerate(ids, 1)}

    def met(self) -> dict[frozenset[int], int]:
        """How often each two pairs have met so far (every round)."""
        out: dict[frozenset[int], int] = {}
        for rnd in self.rounds:
            for p in rnd.pairings:
                if p.b is not None:
                    key = frozenset((p.a, p.b))
                    out[key] = out.get(key, 0) + 1
        return out

    # -- standings ---------------------------------------------------------------------------------
    def _ranking_rounds(self) -> list[Round]:
        """The rounds the score table counts: the Swiss rounds once the city plan reaches them, else all."""
        if self.opts.format is Format.CITY and any(r.stage == "swiss" for r in self.rounds):
            return [r for r in self.rounds if r.stage == "swiss"]
        return list(self.rounds)

    def _tallies(self, rounds: Sequence[Round] | None = None) -> dict[int, _Tally]:
        tally = {pid: _Tally() for pid in self.pairs}
        for rnd in self.rounds if rounds is None else rounds:
            decided = [(p, self._result(rnd, p)) for p in rnd.pairings]
            margins = []
            for p, res in decided:
                if res is None or p.b is None:
                    continue
                for number, g in enumerate(res[1], 1):
                    m = g.margin(self._levels_off(rnd, p, number))
                    if g.forced != "forfeit":
                        margins.append(m)
                    for side, pid in enumerate(p.pairs):
                        t = tally[pid]
                        won = g.winner == side
                        t.points += WIN_POINTS if won else LOSS_POINTS
                        t.margin += m if won else -m
                        t.won += won
                        t.lost += not won
                        other = p.pairs[1 - side]
                        t.beat[other] = t.beat.get(other, 0) + (WIN_POINTS if won else LOSS_POINTS)
                for pid in p.pairs:
                    tally[pid].played += 1
                    tally[pid].opponents.append(p.pairs[1 - p.side_of(pid)])
            for p, _ in decided:
                if p.b is None:
                    t = tally[p.a]
                    t.byes += 1
                    t.opponents.append(p.a)
                    if rnd.stage == "swiss" and all(r is not None for _, r in decided):
                        # RULES §14.3: a win with the round's median level margin, rounded down
                        t.points += WIN_POINTS
                        t.won += 1
                        t.margin += _median_down(margins)
        return tally

    def standings(self) -> list[Standing]:
        """Every pair ranked (RULES §14.3): still in before out (a later round lost first), then points,
        level margins, Buchholz, the result between the tied pairs, and a draw from the event's seed."""
        if self.options is None:
            return []
        tally = self._tallies(self._ranking_rounds())
        whole = self._tallies()
        draw = sorted(self.pairs)
        random.Random(f"{self.opts.seed}/draw").shuffle(draw)
        drawn = {pid: i for i, pid in enumerate(draw)}

        def basis(pid: int) -> dict[int, _Tally]:
            """The rounds a pair is ranked on: the whole event once it is out or withdrawn."""
            pair = self.pairs[pid]
            return whole if pair.out is not None or pair.withdrawn else tally

        def counted(pid: int) -> _Tally:
            return basis(pid)[pid]

        def buchholz(pid: int) -> int:  # its opponents' points over the same rounds as its own
            own = basis(pid)
            return sum(own[o].points for o in own[pid].opponents)

        def group(pid: int) -> tuple[int, int]:
            pair = self.pairs[pid]
            if pair.withdrawn:
                return (0, pair.out or 0)
            return (1, pair.out) if pair.out is not None else (2, 0)

        def key(pid: int) -> tuple[Any, ...]:
            t = counted(pid)
            return (group(pid), t.points, t.margin, buchholz(pid))

        ids = sorted(self.pairs, key=key, reverse=True)
        ranked: list[int] = []
        i = 0
        while i < len(ids):  # tied on everything so far: the result between them, then the draw
            j = i
            while j < len(ids) and key(ids[j]) == key(ids[i]):
                j += 1
            tied = tuple(ids[i:j])  # (a list being sorted looks empty to its key: sort a copy's members)
            ranked.extend(sorted(tied, key=lambda pid: (-sum(counted(pid).beat.get(o, 0) for o in tied), drawn[pid])))
            i = j
        out = []
        for rank, pid in enumerate(ranked, 1):
            t = counted(pid)
            pair = self.pairs[pid]
            status = "withdrawn" if pair.withdrawn else "out" if pair.out is not None else "in"
            out.append(Standing(rank, pid, t.points, t.margin, buchholz(pid), t.played, t.won, t.lost, t.byes, status))
        return out

    # -- what the pages see ------------------------------------------------------------------------
    def round_json(self, rnd: Round) -> dict[str, Any]:
        """A round as the pages show it: its pairings, games, results and penalties."""
        pairings = []
        for p in rnd.pairings:
            res = self._result(rnd, p)
            result = None
            if res is not None and p.b is not None:
                winner, games = res
                margins = [0, 0]
                for number, g in enumerate(games, 1):
                    m = g.margin(self._levels_off(rnd, p, number))
                    margins[g.winner] += m
                    margins[1 - g.winner] -= m
                wins = [sum(1 for g in games if g.winner == s) for s in (0, 1)]
                result = {
                    "winner": "ab"[winner],
                    "wins": wins,
                    "points": [WIN_POINTS * w + LOSS_POINTS * (len(games) - w) for w in wins],
                    "margins": margins,
                    "forfeit": p.forfeit is not None,
                }
            elif p.b is None:
                result = {"winner": "a", "wins": [0, 0], "points": [0, 0], "margins": [0, 0], "forfeit": False}
            pairings.append(
                {
                    "table": p.table,
                    "session": p.session,
                    "a": p.a,
                    "b": p.b,
                    "why": p.why,
                    "online_table": p.online_table,
                    "a_team": p.a_team,
                    "games": [g.to_json(p.online_table) for g in self._games(rnd, p)] if p.b is not None else [],
                    "result": result,
                    "penalties": [x.id for x in self.penalties if x.round == rnd.number and x.table == p.table],
                }
            )
        return {
            "number": rnd.number,
            "stage": rnd.stage,
            "label": rnd.label,
            "best_of": rnd.best_of,
            "game_minutes": rnd.game_minutes,
            "status": rnd.status,
            "pairings": pairings,
        }

    def to_json(self, *, staff: bool = False) -> dict[str, Any]:
        """The event as its pages show it; rounds not yet published only to its organiser and referees."""
        opts = self.opts
        codes = self.codes(staff=staff)
        return {
            "name": opts.name,
            "preset": opts.preset,
            "format": opts.format.value,
            "options": opts.to_json(),
            "status": self.status,
            "organiser": self.organiser,
            "referees": list(self.referees),
            "version": self.version,
            "pairs": [
                {
                    "id": p.id,
                    "code": codes.get(p.id, ""),
                    "name": p.name,
                    "players": [{"name": x.name, "account": x.account is not None, "bot": x.bot} for x in p.players],
                    "club": p.club,
                    "withdrawn": p.withdrawn,
                    "out": p.out,
                }
                for p in self.pairs.values()
            ],
            "rounds": [self.round_json(r) for r in self.rounds if staff or r.status != "drawn"],
            "standings": [s.to_json() for s in self.standings()],
            "penalties": [p.to_json() for p in self.penalties],
        }

    def pending_games(self) -> list[tuple[Round, Pairing]]:
        """The online ties being played: started, not decided."""
        return [
            (rnd, p)
            for rnd in self.rounds
            if rnd.status == "playing"
            for p in rnd.pairings
            if p.online_table is not None and self._result(rnd, p) is None
        ]

    def check_start(self, rnd: Round, *, fresh: bool = True) -> None:
        """Raise :class:`EventError` unless round ``rnd`` may start now: published and not yet started (``fresh``
        False, replaying a log written before a round had to be published, a drawn round may start too)."""
        if rnd.status not in ("drawn", "published"):
            raise EventError(f"round {rnd.number} has already started")
        if rnd.status == "drawn" and fresh:
            raise EventError(f"round {rnd.number} is not published: publish its pairings before starting it")

    def decided(self, rnd: Round, pairing: Pairing) -> bool:
        """Whether the tie at this pairing is decided."""
        return self._result(rnd, pairing) is not None

    def check_penalty(self, data: Mapping[str, Any], *, by: str) -> tuple[Penalty, Pairing, bool]:
        """The penalty a ``penalty`` entry of ``data`` would give (checked on a copy: this event does not change;
        :class:`EventError` if refused), its pairing, and whether the game it is for is still to be decided at the
        pairing's online table (a game in progress there, which only the server can reach, RULES §14.4)."""
        trial = Event.replay(self.log)
        trial.apply("penalty", data, by=by)
        given = trial.penalties[-1]
        rnd = self.rounds[given.round - 1]  # (as it stands before the penalty: one of the game lost decides it)
        pairing = rnd.pairing(given.table)
        online = pairing.online_table is not None and given.game > len(pairing.games) and not self.decided(rnd, pairing)
        return given, pairing, online


def _check_winner(game: GameResult, number: int) -> None:
    """RULES §14.2: a game is won by finishing the climb or by being ahead 领先 when its time runs out. A side
    that finished is as far up as a side gets, so either way the winner is not behind the loser (level with
    it, the side that won the last hand or holds the table wins); a winner behind is refused."""
    if game.progress is None:
        return
    won, lost = game.progress[game.winner], game.progress[1 - game.winner]
    if won.climbed < lost.climbed:
        w, other = "ab"[game.winner], "ab"[1 - game.winner]
        raise EventError(
            f"game {number}: pair {w} at {won.level_text} (circle {won.circle}) is behind pair {other} at"
            f" {lost.level_text} (circle {lost.circle}): a game is won by finishing the climb, or by being"
            " ahead when its time runs out (RULES §14.2)"
        )


def _median_down(values: Sequence[int]) -> int:
    """The median, rounded down (the even case: the mean of the middle two, rounded down); 0 for none."""
    if not values:
        return 0
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else math.floor((s[n // 2 - 1] + s[n // 2]) / 2)
