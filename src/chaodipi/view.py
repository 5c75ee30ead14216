"""What one player may know at one moment, and what they may do: :class:`View` and :class:`Legal`.

:meth:`chaodipi.hand.Hand.view` builds a view for a seat; it is all that a player, a bot or
the server's client is ever shown (RULES: hidden information stays hidden). Views hold
cards as :class:`~chaodipi.cards.Card` objects and legal actions as typed objects; JSON is
made only at the edge, by :meth:`View.to_json`, and read back by :meth:`View.from_json`.

>>> from chaodipi.cards import parse_cards
>>> legal = Legal(bids=(BidOption(tuple(parse_cards("8h"))),))
>>> legal.to_json()
{'bids': [{'cards': '8h'}]}
>>> Legal.from_json(legal.to_json()) == legal
True
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from chaodipi.cards import Card, CardError, Rank, Suit, format_cards, parse_cards
from chaodipi.levels import Progress, SettlementError, Side, seat_side
from chaodipi.log import Action, ActionError, Event, is_seat
from chaodipi.phrases import Phrase, notes_from_json, notes_to_json
from chaodipi.rules import RuleError, RuleSet
from chaodipi.settlement import NORMAL_THRESHOLD
from chaodipi.trump import TrumpOrder

__all__ = [
    "CARD_POINTS",
    "TEAMS",
    "BidEntry",
    "BidOption",
    "Legal",
    "Outcome",
    "Phase",
    "TrickRecord",
    "View",
    "hand_threshold",
]

#: The points of each card that has any (RULES §1: 5 → 5, 10 and K → 10), by card text: a view's ``card_points``.
CARD_POINTS: dict[str, int] = {str(c): c.points for c in Card.ALL if c.points}

#: The team of each seat, as a game numbers them (:func:`chaodipi.game.team_of`): seats 0 and 2, 1 and 3 are partners.
TEAMS: tuple[int, int, int, int] = (0, 1, 0, 1)
#: The viewer who holds no seat: a spectator 观战者 sees what the table shows every player (the cards
#: played, the bids as the rules show them, the points) and no hand, kitty or dark card
#: (:meth:`Hand.view(SPECTATOR) <chaodipi.hand.Hand.view>`); on the wire its ``seat`` is null.
SPECTATOR = 4


def hand_threshold(rules: RuleSet, *, flag: bool) -> int:
    """The points at which the scoring side takes the table: 80, or ``rules.flag_threshold`` in a flag hand
    (RULES §11.2, §11.6). A view's ``threshold`` and the hand's are this.

    >>> from chaodipi.rules import RuleSet
    >>> hand_threshold(RuleSet.preset("kangqi"), flag=False), hand_threshold(RuleSet.preset("kangqi"), flag=True)
    (80, 100)
    """
    return rules.flag_threshold if flag else NORMAL_THRESHOLD


@lru_cache(maxsize=256)
def _trump_cards(order: TrumpOrder) -> tuple[Card, ...]:
    """Every distinct card that is trump in ``order``, strongest first (as a hand is sorted)."""
    return tuple(order.sorted(c for c in Card.ALL if order.is_trump(c)))


class Phase(StrEnum):
    """Where a hand stands."""

    DEAL = "deal"
    COUNTDOWN = "countdown"
    BURY = "bury"
    FRY = "fry"
    PLAY = "play"
    OVER = "over"
    REDEAL = "redeal"


def _cards_json(cards: tuple[Card, ...]) -> str:
    return format_cards(cards)


def _read_cards(value: object) -> tuple[Card, ...]:
    if not isinstance(value, str):
        raise ActionError(f"cards must be a text like 'Ah Ah Kh', not {value!r}")
    try:
        return tuple(parse_cards(value))
    except CardError as exc:
        raise ActionError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """A finished trick: the leader, the four plays in play order, the winner and the points."""

    leader: int
    plays: tuple[tuple[int, tuple[Card, ...]], ...]
    winner: int
    points: int

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"leader": 0, "plays": [[0, "Ah"], …], "winner": 2, "points": 10}``."""
        return {
            "leader": self.leader,
            "plays": [[p, _cards_json(c)] for p, c in self.plays],
            "winner": self.winner,
            "points": self.points,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> TrickRecord:
        """Read :meth:`to_json`'s form; bad card text raises :class:`~chaodipi.log.ActionError`."""
        plays = tuple((int(p), _read_cards(c)) for p, c in obj["plays"])
        return cls(int(obj["leader"]), plays, int(obj["winner"]), int(obj["points"]))


@dataclass(frozen=True, slots=True)
class BidOption:
    """A bid or fry a player may make now: the cards to show and, for 5h 5h, the trump it names."""

    cards: tuple[Card, ...]
    choose: str | None = None

    def action(self, seat: int, *, fry: bool = False) -> Action:
        """The action that makes this bid (or fry)."""
        return Action.fry(seat, self.cards, self.choose) if fry else Action.bid(seat, self.cards, self.choose)

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"cards": "5h 5h", "choose": "s"}`` (``choose`` only when set)."""
        out: dict[str, Any] = {"cards": _cards_json(self.cards)}
        if self.choose is not None:
            out["choose"] = self.choose
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> BidOption:
        """Read :meth:`to_json`'s form; bad card text raises :class:`~chaodipi.log.ActionError`."""
        return cls(_read_cards(obj["cards"]), obj.get("choose"))


@dataclass(frozen=True, slots=True)
class BidEntry:
    """One bid or fry of the hand as a seat may see it: ``cards`` and ``choose`` are None while hidden
    from it (others' dark bids), ``valid`` None until the table is told (RULES §10.5)."""

    player: int
    fry: bool
    cards: tuple[Card, ...] | None = None
    choose: str | None = None
    valid: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``player`` and ``fry``, then ``cards``, ``choose`` and ``valid`` when known."""
        out: dict[str, Any] = {"player": self.player, "fry": self.fry}
        if self.cards is not None:
            out["cards"] = _cards_json(self.cards)
        if self.choose is not None:
            out["choose"] = self.choose
        if self.valid is not None:
            out["valid"] = self.valid
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> BidEntry:
        """Read :meth:`to_json`'s form (missing fields are hidden); bad card text raises
        :class:`~chaodipi.log.ActionError`.
        """
        cards = obj.get("cards")
        return cls(
            int(obj["player"]),
            bool(obj["fry"]),
            None if cards is None else _read_cards(cards),
            obj.get("choose"),
            obj.get("valid"),
        )


@dataclass(frozen=True, slots=True)
class Legal:
    """What a seat may do now (empty when it is not its turn and it may not bid).

    ``bids``: bids during the deal and countdown; ``fries`` and ``can_pass``: when asked to fry;
    ``bury``: how many cards to bury (0: none); ``leads`` (every single unit; ``can_throw``: several
    units of one suit may be led together; ``throw_groups``: the seat's cards of each effective suit
    that holds two or more, trumps one group: any cards of one group may be led together, as a throw);
    ``follows`` (capped, ``more_follows`` when there are more); ``show_red5``: 5h 5h may be shown
    against a flag hand.
    """

    bids: tuple[BidOption, ...] = ()
    fries: tuple[BidOption, ...] = ()
    can_pass: bool = False
    bury: int = 0
    leads: tuple[tuple[Card, ...], ...] = ()
    can_throw: bool = False
    throw_groups: tuple[tuple[Card, ...], ...] = ()
    follows: tuple[tuple[Card, ...], ...] = ()
    more_follows: bool = False
    show_red5: bool = False

    @property
    def plays(self) -> tuple[tuple[Card, ...], ...]:
        """The listed plays: follows when following, else single-unit leads."""
        return self.follows or self.leads

    def actions(self, seat: int) -> Iterator[Action]:
        """Every listed action for ``seat`` (a burial and throws are not listed: there are too many)."""
        yield from (b.action(seat) for b in self.bids)
        yield from (f.action(seat, fry=True) for f in self.fries)
        if self.can_pass:
            yield Action.pass_fry(seat)
        yield from (Action.play(seat, p) for p in self.plays)
        if self.show_red5:
            yield Action.show_red5(seat)

    def __bool__(self) -> bool:
        return self != _NOTHING

    def to_json(self) -> dict[str, Any]:
        """Only the fields that say something: ``{"bids": [...], "bury": 8, "follows": ["Ah Ah"], …}``."""
        out: dict[str, Any] = {}
        if self.bids:
            out["bids"] = [b.to_json() for b in self.bids]
        if self.fries or self.can_pass:
            out["fries"] = [f.to_json() for f in self.fries]
        if self.can_pass:
            out["pass"] = True
        if self.bury:
            out["bury"] = self.bury
        if self.leads:
            out["leads"] = [_cards_json(p) for p in self.leads]
        if self.can_throw:
            out["throws"] = True
        if self.throw_groups:
            out["throw_groups"] = [_cards_json(g) for g in self.throw_groups]
        if self.follows:
            out["follows"] = [_cards_json(p) for p in self.follows]
        if self.more_follows:
            out["more"] = True
        if self.show_red5:
            out["show_red5"] = True
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Legal:
        """Read :meth:`to_json`'s form (missing fields mean nothing to do); bad card text raises
        :class:`~chaodipi.log.ActionError`.
        """
        return cls(
            bids=tuple(BidOption.from_json(b) for b in obj.get("bids", [])),
            fries=tuple(BidOption.from_json(b) for b in obj.get("fries", [])),
            can_pass=bool(obj.get("pass", False)),
            bury=int(obj.get("bury", 0)),
            leads=tuple(_read_cards(p) for p in obj.get("leads", [])),
            can_throw=bool(obj.get("throws", False)),
            throw_groups=tuple(_read_cards(g) for g in obj.get("throw_groups", [])),
            follows=tuple(_read_cards(p) for p in obj.get("follows", [])),
            more_follows=bool(obj.get("more", False)),
            show_red5=bool(obj.get("show_red5", False)),
        )


_NOTHING = Legal()


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a hand ended, shown to every seat once it is over (RULES §11): a settlement screen's facts.

    ``points`` is p, the scoring side's total (its ``trick_points``, ``kou_di`` = ``kitty_points`` ×
    ``multiplier`` when it won the last trick 抠底, and the ``adjustments``), against ``threshold``
    (80, or the flag threshold). The level table gave ``nominal_gain`` levels to ``gainer``; the
    ``special`` ending (RULES §11.5: ``shangtian_ftk``, ``shangtian_red5``, ``jack``) may have
    overruled it. ``before`` and ``after`` are (dealer side, scoring side) progress, ``table`` the
    side that is dealer side next hand, ``next_hand`` ``normal`` or ``flag``, ``game_winner`` the
    side that won the game, if the hand ended it. ``credits`` (dealer side, scoring side) with the
    credits option. ``escapes``: (seat, credits it pays) for each seat that left (逃跑, RULES §13).
    ``notes``: the settlement line by line (the ``settled`` event's notes).
    """

    points: int
    threshold: int
    trick_points: int
    kitty_points: int
    kou_di: int
    multiplier: int
    adjustments: tuple[tuple[str, int], ...]
    gainer: Side
    nominal_gain: int
    special: str | None
    before: tuple[Progress, Progress]
    after: tuple[Progress, Progress]
    table: Side
    next_hand: str
    game_winner: Side | None
    credits: tuple[int, int] | None
    escapes: tuple[tuple[int, int], ...] = ()
    notes: tuple[Phrase, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The wire form (``view.result`` in docs/protocol.md)."""
        return {
            "points": self.points,
            "threshold": self.threshold,
            "trick_points": self.trick_points,
            "kitty_points": self.kitty_points,
            "kou_di": self.kou_di,
            "multiplier": self.multiplier,
            "adjustments": [[label, delta] for label, delta in self.adjustments],
            "gainer": self.gainer.value,
            "nominal_gain": self.nominal_gain,
            "special": self.special,
            "before": {"dealer": self.before[0].to_json(), "scoring": self.before[1].to_json()},
            "after": {"dealer": self.after[0].to_json(), "scoring": self.after[1].to_json()},
            "table": self.table.value,
            "next_hand": self.next_hand,
            "game_winner": None if self.game_winner is None else self.game_winner.value,
            "credits": None if self.credits is None else {"dealer": self.credits[0], "scoring": self.credits[1]},
            "escapes": [{"player": p, "penalty": n} for p, n in self.escapes],
            **notes_to_json(self.notes),
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Outcome:
        """Read :meth:`to_json`'s form."""
        try:
            credits = obj["credits"]
            winner = obj["game_winner"]
            return cls(
                points=int(obj["points"]),
                threshold=int(obj["threshold"]),
                trick_points=int(obj["trick_points"]),
                kitty_points=int(obj["kitty_points"]),
                kou_di=int(obj["kou_di"]),
                multiplier=int(obj["multiplier"]),
                adjustments=tuple((str(label), int(delta)) for label, delta in obj["adjustments"]),
                gainer=Side(obj["gainer"]),
                nominal_gain=int(obj["nominal_gain"]),
                special=obj["special"],
                before=(Progress.from_json(obj["before"]["dealer"]), Progress.from_json(obj["before"]["scoring"])),
                after=(Progress.from_json(obj["after"]["dealer"]), Progress.from_json(obj["after"]["scoring"])),
                table=Side(obj["table"]),
                next_hand=str(obj["next_hand"]),
                game_winner=None if winner is None else Side(winner),
                credits=None if credits is None else (int(credits["dealer"]), int(credits["scoring"])),
                escapes=tuple((int(e["player"]), int(e["penalty"])) for e in obj["escapes"]),
                notes=notes_from_json(obj),
            )
        except (KeyError, TypeError, ValueError, SettlementError) as exc:
            raise ActionError(f"not a hand's outcome: {exc}") from None


@dataclass(frozen=True, slots=True)
class View:
    """What one player may know at one moment (RULES: hidden information stays hidden).

    ``trump`` is the trump as the seat knows it (``s``, ``h``, ``c``, ``d``, ``nt``, ``flag``),
    None while hidden from it; ``sort_trump`` the trump its hand is sorted by (in the dark,
    before play, its own last bid's; ``?`` when it knows none). ``kitty`` is shown only to
    whoever holds or last buried it, and to all once the hand is over. ``left``: the seats that
    left the hand (逃跑, RULES §13; a bot plays on for them), public. ``result``: the hand's
    :class:`Outcome`, once it is over (public). ``winning``: the seat whose play is winning the
    trick in progress so far (public: anyone can work it out from the plays), None between tricks.
    """

    seat: int
    rules: RuleSet
    phase: Phase
    dealer: int | None
    level: str
    trump: str | None
    hand: tuple[Card, ...]
    kitty: tuple[Card, ...] | None
    bids: tuple[BidEntry, ...]
    current_trick: tuple[tuple[int, tuple[Card, ...]], ...]
    tricks: tuple[TrickRecord, ...]
    points: int  # the scoring side's points so far (tricks and public adjustments)
    to_act: int | None
    events: tuple[Event, ...]
    hand_sizes: tuple[int, int, int, int] = (0, 0, 0, 0)  # how many cards each seat holds (public)
    legal: Legal = field(default_factory=Legal)
    sort_trump: str = "?"
    left: tuple[int, ...] = ()
    result: Outcome | None = None  # once the hand is over
    winning: int | None = None  # the seat winning the trick in progress (RULES §7), public

    def order(self) -> TrumpOrder:
        """The card order the view's hand is sorted by (never one built on a trump hidden from the seat)."""
        if self.level == "flag" or self.sort_trump == "flag":
            return TrumpOrder.of(self.rules, None, None)
        trump = None if self.sort_trump in ("?", "nt") else Suit(self.sort_trump)
        return TrumpOrder.of(self.rules, Rank.parse(self.level), trump)

    def trump_order(self) -> TrumpOrder:
        """The card order of the trump as the seat knows it (``trump``): while the trump is hidden from it
        or nobody has bid, the order with no trump suit (only jokers, 5h and level cards are trump)."""
        if self.level == "flag" or self.trump == "flag":
            return TrumpOrder.of(self.rules, None, None)
        suit = None if self.trump is None or self.trump == "nt" else Suit(self.trump)
        return TrumpOrder.of(self.rules, Rank.parse(self.level), suit)

    @property
    def trumps(self) -> tuple[Card, ...]:
        """Every distinct card that is trump as the seat knows it (:meth:`trump_order`), strongest first:
        facts about cards in general, none about who holds them."""
        return _trump_cards(self.trump_order())

    @property
    def threshold(self) -> int:
        """The points at which the scoring side takes the table in this hand (:func:`hand_threshold`)."""
        return hand_threshold(self.rules, flag=self.level == "flag")

    @property
    def sides(self) -> tuple[Side, Side, Side, Side] | None:
        """Each seat's side in this hand (dealer side 庄家方 or scoring side 抓分方); None until the dealer is known."""
        if self.dealer is None:
            return None
        d = self.dealer
        return (seat_side(0, d), seat_side(1, d), seat_side(2, d), seat_side(3, d))

    @property
    def partner(self) -> int | None:
        """The seat's partner (the seat across the table, of its team: :data:`TEAMS`); None for a spectator."""
        if self.seat == SPECTATOR:
            return None
        return next(s for s in range(4) if s != self.seat and TEAMS[s] == TEAMS[self.seat])

    def cards_seen(self) -> set[Card]:
        """Every card this view shows (for hidden-information tests)."""
        seen = set(self.hand)
        if self.kitty:
            seen.update(self.kitty)
        for _, cards in self.current_trick:
            seen.update(cards)
        for t in self.tricks:
            for _, cards in t.plays:
                seen.update(cards)
        for e in self.events:
            seen.update(e.cards)
        for b in self.bids:
            seen.update(b.cards or ())
        return seen

    def to_json(self, *, rules: bool = True, events: bool = True) -> dict[str, Any]:
        """The wire form of the view (what the server sends a seat); ``left`` only when a seat left,
        ``result`` only once the hand is over. ``threshold``, ``trumps``, ``card_points``, ``teams``,
        ``sides`` and ``partner`` are worked out from the other fields (:meth:`from_json` reads them back
        from those), so that a client needs no rule to draw the view.

        ``rules=False`` and ``events=False`` leave those two fields out (the server sends the rules once,
        and each connection only the events it has not had)."""
        out: dict[str, Any] = {
            "seat": None if self.seat == SPECTATOR else self.seat,
            "rules": self.rules.to_spec() if rules else None,
            "phase": self.phase.value,
            "dealer": self.dealer,
            "level": self.level,
            "trump": self.trump,
            "sort_trump": self.sort_trump,
            "hand": _cards_json(self.hand),
            "kitty": None if self.kitty is None else _cards_json(self.kitty),
            "bids": [b.to_json() for b in self.bids],
            "current_trick": [[p, _cards_json(c)] for p, c in self.current_trick],
            "tricks": [t.to_json() for t in self.tricks],
            "points": self.points,
            "to_act": self.to_act,
            "events": [e.to_json() for e in self.events] if events else None,
            "hand_sizes": list(self.hand_sizes),
            "legal": self.legal.to_json(),
            "winning": self.winning,
            "threshold": self.threshold,
            "trumps": _cards_json(self.trumps),
            "card_points": dict(CARD_POINTS),
            "teams": list(TEAMS),
            "sides": None if (sides := self.sides) is None else [side.value for side in sides],
            "partner": self.partner,
        }
        if self.left:
            out["left"] = list(self.left)
        if self.result is not None:
            out["result"] = self.result.to_json()
        if not rules:
            del out["rules"]
        if not events:
            del out["events"]
        return out

    @classmethod
    def from_json(cls, obj: object) -> View:
        """Read :meth:`to_json`'s form; :class:`~chaodipi.log.ActionError` if it is not a view."""
        if not isinstance(obj, dict):
            raise ActionError(f"a view must be an object, not {obj!r}")
        try:
            kitty = obj["kitty"]
            sizes = tuple(int(n) for n in obj["hand_sizes"])
            if len(sizes) != 4:
                raise ValueError("hand_sizes must list four seats")
            left = obj.get("left", [])
            if not isinstance(left, list) or not all(is_seat(p) for p in left):
                raise ValueError(f"left must list seats 0..3, not {left!r}")
            return cls(
                seat=SPECTATOR if obj["seat"] is None else int(obj["seat"]),
                rules=RuleSet.from_spec(obj["rules"]),
                phase=Phase(obj["phase"]),
                dealer=obj["dealer"],
                level=str(obj["level"]),
                trump=obj["trump"],
                hand=_read_cards(obj["hand"]),
                kitty=None if kitty is None else _read_cards(kitty),
                bids=tuple(BidEntry.from_json(b) for b in obj["bids"]),
                current_trick=tuple((int(p), _read_cards(c)) for p, c in obj["current_trick"]),
                tricks=tuple(TrickRecord.from_json(t) for t in obj["tricks"]),
                points=int(obj["points"]),
                to_act=obj["to_act"],
                events=tuple(Event.from_json(e) for e in obj["events"]),
                hand_sizes=(sizes[0], sizes[1], sizes[2], sizes[3]),
                legal=Legal.from_json(obj["legal"]),
                sort_trump=str(obj.get("sort_trump", "?")),
                left=tuple(left),
                result=None if obj.get("result") is None else Outcome.from_json(obj["result"]),
                winning=obj.get("winning"),
            )
        except (KeyError, TypeError, ValueError, RuleError) as exc:
            if isinstance(exc, ActionError):
                raise
            raise ActionError(f"not a view: {exc}") from None
