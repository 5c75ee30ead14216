"""A hand's log: the players' actions and the events they cause, and who may see each event.

A hand keeps one log (:attr:`chaodipi.hand.Hand.log`) of :class:`Action` and :class:`Event`
records in the order they happened; the list of actions (what a record stores), the bid
history and each seat's events are all read from it. Every kind of action is an
:class:`ActionKind` and every kind of event an :class:`EventKind`. Who sees which event is
said in one place, beside the seats' views: :mod:`chaodipi.observe`.

>>> from chaodipi.cards import parse_cards
>>> a = Action.bid(1, parse_cards("8h 8h"), at=37)
>>> a.to_json()
{'a': 'bid', 'p': 1, 'cards': '8h 8h', 'at': 37}
>>> Action.from_json(a.to_json()) == a
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeGuard

try:  # the marks of the optional compiled build (make fast); the pure-Python install does without them
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - mypy (a dev dependency) brings mypy_extensions
    from chaodipi._build import mypyc_attr

from chaodipi.cards import Card, CardError, format_cards, parse_cards
from chaodipi.phrases import Phrase, PhrasedError, notes_from_json, notes_to_json

__all__ = [
    "Action",
    "ActionError",
    "ActionKind",
    "Event",
    "EventData",
    "EventKind",
    "IllegalActionError",
    "KouDi",
    "Left",
    "Named",
    "Penalised",
    "Penalty",
    "Settled",
    "ShownBid",
    "ThrowFailed",
    "TrickWon",
    "TrumpSet",
    "checked_seat",
    "is_seat",
]


class IllegalActionError(PhrasedError):
    """An action that the rules do not allow now; the message says why (``phrase``: the reason as data)."""


class ActionError(IllegalActionError):
    """An action that is not well formed (an unknown kind, a player who is not a seat, bad cards)."""


class ActionKind(StrEnum):
    """What a player does (RULES §9–§11)."""

    BID = "bid"  # declare 亮主 or override 反主, during the deal and its countdown
    CLOSE = "close"  # the countdown ends (the table's clock, not a player)
    BURY = "bury"  # bury 8 cards 扣底
    FRY = "fry"  # fry 炒底: override after the burial, take the kitty and bury again
    PASS = "pass"  # decline to fry
    PLAY = "play"  # lead, throw or follow
    SHOW_RED5 = "show_red5"  # show 5h 5h against a flag hand (RULES §11.5)
    LEAVE = "leave"  # leave the game in progress 逃跑; a bot plays on for the seat (RULES §13)
    PENALTY = "penalty"  # a referee's penalty 罚 against a team (RULES §14.4): no player's action


#: Actions made by a player (every kind but ``close`` and the referee's ``penalty``).
PLAYER_ACTIONS = frozenset(ActionKind) - {ActionKind.CLOSE, ActionKind.PENALTY}
#: The most points one penalty may take (RULES §14.4: 10 to 80 in seed 004's schedule, "and more" for a hidden
#: holding, up to the game): a bound that keeps p a small number.
MAX_PENALTY_POINTS = 1000
#: The most levels one penalty may take (罚级): a whole game's climb.
MAX_PENALTY_LEVELS = 12
_OFFENCE = re.compile(r"[a-z][a-z0-9_]{0,31}")


def is_seat(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a seat: a whole number 0..3 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3


def checked_seat(value: object) -> int:
    """``value`` as a seat, or :class:`IllegalActionError` saying it is none (a bool is not a seat either).

    >>> checked_seat(2)
    2
    >>> checked_seat(True)
    Traceback (most recent call last):
    ...
    chaodipi.log.IllegalActionError: a player is a seat 0..3, not True
    """
    if not is_seat(value):
        raise IllegalActionError(f"a player is a seat 0..3, not {value!r}")
    return value


def _seat(value: object, what: str) -> int:
    if not is_seat(value):
        raise ActionError(f"{what} must be a seat 0..3, not {value!r}")
    return value


#: The fields of a referee's penalty as a record's line writes them (beside ``"a": "penalty"``).
PENALTY_LINE_FIELDS = ("team", "offence", "points", "levels", "warning", "game_lost")


def _check_penalty(fields: dict[str, object]) -> None:
    """Raise :class:`ActionError`, in words, unless these are a penalty's fields (:class:`Penalty`)."""
    team, offence = fields["team"], fields["offence"]
    if isinstance(team, bool) or team not in (0, 1):
        raise ActionError(f"a penalty's team is 0 (seats 0 and 2) or 1 (seats 1 and 3), not {team!r}")
    if not isinstance(offence, str) or not _OFFENCE.fullmatch(offence):
        raise ActionError(
            f"a penalty's offence is a short key of lower-case letters, digits and _ (revoke), not {offence!r}"
        )
    for name, most in (("points", MAX_PENALTY_POINTS), ("levels", MAX_PENALTY_LEVELS)):
        value = fields[name]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
            raise ActionError(f"a penalty's {name} is a whole number from 0 to {most}, not {value!r}")
    points = fields["points"]
    assert isinstance(points, int)
    if points % 5:
        raise ActionError(f"a penalty's points are a multiple of 5, as p is (RULES §11.1), not {points}")
    for name in ("warning", "game_lost"):
        if not isinstance(fields[name], bool):
            raise ActionError(f"a penalty's {name} is true or false, not {fields[name]!r}")
    if not (points or fields["levels"] or fields["warning"] or fields["game_lost"]):
        raise ActionError("a penalty is a warning, points, levels or the game lost: this one gives none")


@dataclass(frozen=True, slots=True)
class Penalty:
    """A referee's penalty 罚 against one team (RULES §14.4), as the hand's log records it.

    ``team``: the offending team (0: seats 0 and 2, 南北; 1: seats 1 and 3, 东西). ``offence``: what it is for,
    a short key (the event's schedule: ``revoke``, ``slow_bury``, ``other`` …). ``points`` X: taken against
    the offending side in the current hand's p (a scoring side p −= X, a dealer side p += X; a multiple of 5,
    as p is, §11.1). ``levels`` 罚级: the offending side's progress goes down that many levels (never below
    level 2). ``game_lost``: the game ends at once, won by the other team. ``warning``: shown, changes nothing.
    At least one of them is given; what is wrong is said in words (:class:`ActionError`).

    >>> Penalty(1, "revoke", points=20).to_json()
    {'team': 1, 'offence': 'revoke', 'points': 20}
    >>> Penalty(0, "other")
    Traceback (most recent call last):
    ...
    chaodipi.log.ActionError: a penalty is a warning, points, levels or the game lost: this one gives none
    """

    team: int
    offence: str = "other"
    points: int = 0
    levels: int = 0
    warning: bool = False
    game_lost: bool = False

    def __post_init__(self) -> None:
        _check_penalty({name: getattr(self, name) for name in PENALTY_LINE_FIELDS})

    def to_json(self) -> dict[str, Any]:
        """``{"team": 1, "offence": "revoke", "points": 20}``: the team and offence, then what it gives (the
        others, 0 or false, left out)."""
        out: dict[str, Any] = {"team": self.team, "offence": self.offence}
        for name in PENALTY_LINE_FIELDS[2:]:
            value = getattr(self, name)
            if value:
                out[name] = value
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Penalty:
        """Read :meth:`to_json`'s fields (the others of ``obj`` are the caller's); :class:`ActionError` if wrong."""
        for name in ("team", "offence"):
            if name not in obj:
                raise ActionError(f"a penalty needs its {name!r} ({obj!r})")
        defaults: dict[str, object] = {"points": 0, "levels": 0, "warning": False, "game_lost": False}
        _check_penalty({name: obj.get(name, defaults.get(name)) for name in PENALTY_LINE_FIELDS})  # (before the
        # compiled build's typed fields would refuse a wrong type without words)
        return cls(
            obj["team"],
            obj["offence"],
            obj.get("points", 0),
            obj.get("levels", 0),
            obj.get("warning", False),
            obj.get("game_lost", False),
        )


def _checked_action(
    kind: object, player: object, cards: object, choose: object, at: object, penalty: object = None
) -> ActionKind:
    """The kind of the action made of these fields; :class:`ActionError` if they do not make one."""
    if type(kind) is not ActionKind:
        try:
            kind = ActionKind(kind)  # type: ignore[arg-type]  # any value: a wrong one is an ActionError
        except ValueError:
            kinds = ", ".join(ActionKind)
            raise ActionError(f"unknown action {kind!r}; the actions are {kinds}") from None
    if kind is ActionKind.PENALTY:
        if player is not None or cards or choose is not None or at is not None:
            raise ActionError("a penalty (RULES §14.4) is the referee's: it names a team, no player, cards or trump")
        if not isinstance(penalty, Penalty):
            raise ActionError(
                f"a penalty action carries its penalty (team, offence, points, levels …), not {penalty!r}"
            )
        return kind
    if penalty is not None:
        raise ActionError(f"only a penalty action carries a penalty, not a {kind} action")
    if kind in PLAYER_ACTIONS:
        _seat(player, f"the player of a {kind} action")
    elif player is not None:
        raise ActionError("the end of the countdown has no player")
    if type(cards) is not tuple:
        raise ActionError(f"an action's cards must be a tuple of cards, not {cards!r}")
    if kind is ActionKind.LEAVE and (cards or choose is not None or at is not None):
        raise ActionError("leaving (逃跑) shows no cards and names no trump: a leave has only its player")
    if choose is not None and not isinstance(choose, str):
        raise ActionError(f"an action's choice must be a text (s, h, c, d or nt), not {choose!r}")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int) or at < 0):
        raise ActionError(f"an action's 'at' must be a number of cards dealt, not {at!r}")
    return kind


# Not a native class in the compiled build (make fast): its constructor takes any values and checks them here.
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Action:
    """A player's action, as recorded: enough to replay it.

    ``player`` is the seat (None only for ``close``); ``cards`` the cards shown, buried or
    played; ``choose`` the trump named with a 5h 5h bid or fry (``s``, ``h``, ``c``, ``d``,
    ``nt``); ``at`` the number of cards dealt when a bid was made (None: now); ``penalty`` only in a referee's
    ``penalty`` action (RULES §14.4), which has no player.
    """

    kind: ActionKind
    player: int | None = None
    cards: tuple[Card, ...] = ()
    choose: str | None = None
    at: int | None = None
    penalty: Penalty | None = None

    def __post_init__(self) -> None:
        # The fields as given (the compiled build would check self.kind and the others against their types first).
        names = ("kind", "player", "cards", "choose", "at", "penalty")
        given = [object.__getattribute__(self, name) for name in names]
        kind = _checked_action(*given)
        if kind is not given[0]:
            object.__setattr__(self, "kind", kind)

    # -- constructors ---------------------------------------------------------------------
    @classmethod
    def made(cls, kind: ActionKind, player: int | None, cards: tuple[Card, ...] = ()) -> Action:
        """An action the engine makes itself from parts it has checked: not checked again.

        (The hand records its plays this way on the hot path of playouts; every other action,
        a player's or a record's, is built by the checking constructor.)
        """
        action = object.__new__(cls)
        put = object.__setattr__  # (the fields one by one: a frozen class)
        put(action, "kind", kind)
        put(action, "player", player)
        put(action, "cards", cards)
        put(action, "choose", None)
        put(action, "at", None)
        put(action, "penalty", None)
        return action

    @classmethod
    def bid(cls, player: int, cards: Sequence[Card], choose: str | None = None, *, at: int | None = None) -> Action:
        """A bid of ``cards`` (``choose``: the trump named with 5h 5h)."""
        return cls(ActionKind.BID, player, tuple(cards), choose, at)

    @classmethod
    def close(cls) -> Action:
        """The end of the declaring countdown."""
        return cls(ActionKind.CLOSE)

    @classmethod
    def bury(cls, player: int, cards: Sequence[Card]) -> Action:
        """Bury ``cards`` (8) as the kitty."""
        return cls(ActionKind.BURY, player, tuple(cards))

    @classmethod
    def fry(cls, player: int, cards: Sequence[Card], choose: str | None = None) -> Action:
        """Fry with ``cards``."""
        return cls(ActionKind.FRY, player, tuple(cards), choose)

    @classmethod
    def pass_fry(cls, player: int) -> Action:
        """Decline to fry."""
        return cls(ActionKind.PASS, player)

    @classmethod
    def play(cls, player: int, cards: Sequence[Card]) -> Action:
        """Lead, throw or follow with ``cards``."""
        return cls(ActionKind.PLAY, player, tuple(cards))

    @classmethod
    def show_red5(cls, player: int) -> Action:
        """Show 5h 5h against a flag hand."""
        return cls(ActionKind.SHOW_RED5, player)

    @classmethod
    def leave(cls, player: int) -> Action:
        """Leave the game in progress (逃跑, RULES §13): ``{"a": "leave", "p": 2}``.

        >>> Action.leave(2).to_json()
        {'a': 'leave', 'p': 2}
        """
        return cls(ActionKind.LEAVE, player)

    @classmethod
    def penalize(cls, penalty: Penalty) -> Action:
        """A referee's penalty (RULES §14.4): ``{"a": "penalty", "team": 1, "offence": "revoke", "points": 20}``.

        >>> Action.penalize(Penalty(0, "disturbing", levels=1)).to_json()
        {'a': 'penalty', 'team': 0, 'offence': 'disturbing', 'levels': 1}
        """
        return cls(ActionKind.PENALTY, penalty=penalty)

    # -- JSON -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The record form: ``{"a": kind, "p": player, "cards": "…", "choose": …, "at": n}`` (empty fields left out)."""
        out: dict[str, Any] = {"a": self.kind.value}
        if self.player is not None:
            out["p"] = self.player
        if self.cards:
            out["cards"] = format_cards(self.cards)
        if self.choose is not None:
            out["choose"] = self.choose
        if self.at is not None:
            out["at"] = self.at
        if self.penalty is not None:
            out.update(self.penalty.to_json())
        return out

    @classmethod
    def from_json(cls, obj: object) -> Action:
        """Read :meth:`to_json`'s form; :class:`ActionError` says what is wrong."""
        if not isinstance(obj, dict) or not isinstance(obj.get("a"), str):
            raise ActionError(f"an action must be an object with 'a', not {obj!r}")
        if obj["a"] == ActionKind.PENALTY.value:
            extra = set(obj) - {"a", *PENALTY_LINE_FIELDS}
            if extra:
                raise ActionError(
                    f"a penalty has the fields a, {', '.join(PENALTY_LINE_FIELDS)}, not {', '.join(sorted(extra))}"
                )
            return cls.penalize(Penalty.from_json(obj))
        extra = set(obj) - {"a", "p", "cards", "choose", "at"}
        if extra:
            raise ActionError(f"an action has the fields a, p, cards, choose and at, not {', '.join(sorted(extra))}")
        cards = obj.get("cards", "")
        if not isinstance(cards, str):
            raise ActionError(f"an action's cards must be a text like 'Ah Ah Kh', not {cards!r}")
        try:
            parsed = tuple(parse_cards(cards))
        except CardError as exc:
            raise ActionError(str(exc)) from None
        return cls(obj["a"], obj.get("p"), parsed, obj.get("choose"), obj.get("at"))  # (which checks them)


class EventKind(StrEnum):
    """What happened in a hand."""

    DEALT = "dealt"
    BID = "bid"
    CLOSED = "closed"
    REDEAL = "redeal"
    KITTY_TRUMP = "kitty_trump"
    KITTY_TAKEN = "kitty_taken"
    BURIED = "buried"
    FRIED = "fried"
    PASSED = "passed"
    FRY_FAILED = "fry_failed"
    FRYING_OVER = "frying_over"
    RED5_SHOWN = "red5_shown"
    PLAYED = "played"
    THROW_FAILED = "throw_failed"
    FORCED_RED5 = "forced_red5"
    TRICK = "trick"
    BID_SHOWN = "bid_shown"
    KEPT_RED5 = "kept_red5"
    KOU_DI = "kou_di"
    KITTY_SHOWN = "kitty_shown"
    LEFT = "left"  # a player left the game in progress 逃跑 (RULES §13); public
    PENALTY = "penalty"  # a referee's penalty (RULES §14.4): its points change p at once; public
    SETTLED = "settled"


# -- what an event says beyond its cards and points: one typed payload per kind that has one ----------------
@dataclass(frozen=True, slots=True)
class Named:
    """A bid or fry of 5h 5h names the trump 叫主 (``bid``, ``fried``): ``s``, ``h``, ``c``, ``d`` or ``nt``."""

    choose: str

    def to_json(self) -> dict[str, Any]:
        """``{"choose": "s"}``."""
        return {"choose": self.choose}


@dataclass(frozen=True, slots=True)
class ShownBid:
    """One bid or fry of the hand as all are shown when frying ends in a dark game (RULES §10.5)."""

    player: int
    fry: bool
    cards: tuple[Card, ...]
    valid: bool

    def to_json(self) -> dict[str, Any]:
        """``{"player": 1, "fry": false, "cards": "8h 8h", "valid": true}``."""
        return {"player": self.player, "fry": self.fry, "cards": format_cards(self.cards), "valid": self.valid}


@dataclass(frozen=True, slots=True)
class TrumpSet:
    """The trump is settled (``kitty_trump``: turned up from the kitty, RULES §9.4; ``frying_over``, §10.5).

    ``trump``: ``s``, ``h``, ``c``, ``d`` or ``nt``; ``bids``: in a dark game whose bids are shown as
    frying ends, every bid and fry of the hand with whether it stood (empty otherwise).
    """

    trump: str
    bids: tuple[ShownBid, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"trump": "s"}``, with ``"bids": [...]`` when they are shown."""
        out: dict[str, Any] = {"trump": self.trump}
        if self.bids:
            out["bids"] = [b.to_json() for b in self.bids]
        return out


@dataclass(frozen=True, slots=True)
class ThrowFailed:
    """A throw 甩牌 that failed (RULES §6.4): ``forced``, what the player must lead instead."""

    forced: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"forced": "Ah"}``."""
        return {"forced": format_cards(self.forced)}


@dataclass(frozen=True, slots=True)
class TrickWon:
    """A finished trick (``trick``): ``won``, the points in it, whichever side took them (RULES §7)."""

    won: int

    def to_json(self) -> dict[str, Any]:
        """``{"won": 25}``."""
        return {"won": self.won}


@dataclass(frozen=True, slots=True)
class KouDi:
    """抠底 (``kou_di``, RULES §11.1): the kitty's points count ``multiplier`` times."""

    multiplier: int

    def to_json(self) -> dict[str, Any]:
        """``{"multiplier": 4}``."""
        return {"multiplier": self.multiplier}


@dataclass(frozen=True, slots=True)
class Left:
    """A player left the game 逃跑 (``left``, RULES §13): ``penalty``, what it costs, in words."""

    penalty: str

    def to_json(self) -> dict[str, Any]:
        """``{"penalty": "no penalty before the first card"}``."""
        return {"penalty": self.penalty}


@dataclass(frozen=True, slots=True)
class Penalised:
    """A referee's penalty (``penalty``, RULES §14.4): against ``team`` for ``offence``; the event's ``points`` are
    its change to the scoring side's p (−X against the scoring side, +X against the dealer side); ``levels`` come
    off the team's progress, ``game_lost`` ends the game, ``warning`` changes nothing."""

    team: int
    offence: str
    levels: int = 0
    warning: bool = False
    game_lost: bool = False

    def to_json(self) -> dict[str, Any]:
        """``{"team": 1, "offence": "revoke"}``, and ``"levels": 2``, ``"warning": true``, ``"game_lost": true``
        when given."""
        out: dict[str, Any] = {"team": self.team, "offence": self.offence}
        if self.levels:
            out["levels"] = self.levels
        if self.warning:
            out["warning"] = True
        if self.game_lost:
            out["game_lost"] = True
        return out


@dataclass(frozen=True, slots=True)
class Settled:
    """The hand is settled (``settled``, RULES §11): ``notes``, the settlement line by line."""

    notes: tuple[Phrase, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"notes": ["...", "..."], "note_data": [{"code": ...}, ...]}``: the English, and each as data."""
        return notes_to_json(self.notes)


#: An event's typed payload: what it says beyond player, cards and points (None for most kinds).
EventData = Named | TrumpSet | ThrowFailed | TrickWon | KouDi | Left | Penalised | Settled


def _data_from_json(kind: EventKind, obj: dict[str, Any]) -> EventData | None:
    """The payload that :meth:`Event.to_json` wrote beside the other fields (None when it wrote none)."""
    if kind in (EventKind.BID, EventKind.FRIED):
        choose = obj.get("choose")
        return None if choose is None else Named(_text(choose, "choose"))
    if kind in (EventKind.KITTY_TRUMP, EventKind.FRYING_OVER):
        if "trump" not in obj:
            return None
        bids = obj.get("bids", [])
        if not isinstance(bids, list):
            raise ValueError("bids must be a list")
        return TrumpSet(_text(obj["trump"], "trump"), tuple(_shown_bid(b) for b in bids))
    if kind is EventKind.THROW_FAILED and "forced" in obj:
        return ThrowFailed(tuple(parse_cards(_text(obj["forced"], "forced"))))
    if kind is EventKind.TRICK and "won" in obj:
        return TrickWon(_whole(obj["won"], "won"))
    if kind is EventKind.KOU_DI and "multiplier" in obj:
        return KouDi(_whole(obj["multiplier"], "multiplier"))
    if kind is EventKind.LEFT and "penalty" in obj:
        return Left(_text(obj["penalty"], "penalty"))
    if kind is EventKind.PENALTY and "team" in obj:
        levels, warning, lost = obj.get("levels", 0), obj.get("warning", False), obj.get("game_lost", False)
        if not isinstance(warning, bool) or not isinstance(lost, bool):
            raise ValueError("warning and game_lost must be true or false")
        return Penalised(
            _whole(obj["team"], "team"), _text(obj.get("offence"), "offence"), _whole(levels, "levels"), warning, lost
        )
    if kind is EventKind.SETTLED and ("notes" in obj or "note_data" in obj):
        return Settled(notes_from_json(obj))
    return None


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a text, not {value!r}")
    return value


def _whole(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number, not {value!r}")
    return value


def _shown_bid(obj: object) -> ShownBid:
    if not isinstance(obj, dict):
        raise ValueError(f"a shown bid must be an object, not {obj!r}")
    valid, fry = obj.get("valid"), obj.get("fry")
    if not isinstance(valid, bool) or not isinstance(fry, bool):
        raise ValueError("a shown bid's fry and valid must be true or false")
    return ShownBid(
        _seat(obj.get("player"), "a shown bid's player"),
        fry,
        tuple(parse_cards(_text(obj.get("cards"), "cards"))),
        valid,
    )


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in a hand: an action's effect or a step of the engine.

    ``player`` who, ``cards`` which cards, ``points`` a change to the scoring side's total,
    ``detail`` words for a log (for people: nothing reads them), ``valid`` whether a bid or fry stood
    when it was made (None for other events; hidden in dark games until frying ends, RULES §10.5),
    ``data`` what the event says beyond these, typed (:data:`EventData`: the trump set, the trick's
    points, the cards a failed throw must lead …), for every reader that needs it.
    """

    kind: EventKind
    player: int | None = None
    cards: tuple[Card, ...] = ()
    points: int = 0
    detail: str = ""
    valid: bool | None = None
    data: EventData | None = None

    def describe(self) -> str:
        """One line for a log: ``player 2 played Ah Ah``."""
        who = "" if self.player is None else f"player {self.player} "
        cards = f" {format_cards(self.cards)}" if self.cards else ""
        pts = f" ({self.points:+d})" if self.points else ""
        extra = f": {self.detail}" if self.detail else ""
        return f"{who}{self.kind.value}{cards}{pts}{extra}"

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"e": kind, "p": player, "cards": "…", "points": n, "detail": "…", "valid": b}``,
        and the payload's fields beside them (``"trump": "s"``, ``"won": 25`` …: :data:`EventData`)."""
        out: dict[str, Any] = {"e": self.kind.value}
        if self.player is not None:
            out["p"] = self.player
        if self.cards:
            out["cards"] = format_cards(self.cards)
        if self.points:
            out["points"] = self.points
        if self.detail:
            out["detail"] = self.detail
        if self.valid is not None:
            out["valid"] = self.valid
        if self.data is not None:
            out.update(self.data.to_json())
        return out

    @classmethod
    def from_json(cls, obj: object) -> Event:
        """Read :meth:`to_json`'s form (a client's side of the wire)."""
        if not isinstance(obj, dict):
            raise ActionError(f"an event must be an object, not {obj!r}")
        try:
            kind = EventKind(obj["e"])
            player = obj.get("p")
            if player is not None:
                _seat(player, "an event's player")
            cards = tuple(parse_cards(obj.get("cards", "")))
            points = obj.get("points", 0)
            detail = obj.get("detail", "")
            valid = obj.get("valid")
            if not isinstance(points, int) or not isinstance(detail, str) or valid not in (None, True, False):
                raise ValueError("points, detail or valid of the wrong type")
            data = _data_from_json(kind, obj)
        except (KeyError, ValueError, TypeError) as exc:
            raise ActionError(f"not an event: {obj!r} ({exc})") from None
        return cls(kind, player, cards, points, detail, valid, data)
