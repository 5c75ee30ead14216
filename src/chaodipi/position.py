"""A position notation for a hand in its play phase, as chess has FEN: written down, read back, played on.

A :class:`Position` is everything a hand in play needs to go on exactly: the rules, the dealer,
both sides' levels, the trump, the four hands, the buried kitty, who bid or showed 5h 5h, the
finished tricks, the trick in progress and the adjustments to the scoring side's points so far.
Whose turn it is, who won each trick and the points each side took follow from them, and are
checked when a position is read. Bug reports and tests write positions down; the bots' searches
build the worlds they sample as positions (:meth:`Position.hand` makes the :class:`~chaodipi.hand.Hand`).

The text form is one line of ``key=value`` fields separated by ``; ``, in this order::

    rules=standard; dealer=0; levels=1:2 1:2; failures=0; trump=s; bid=<seat>:<cards> or -; red5=-;
    hands=<N> | <E> | <S> | <W>; kitty=<8 cards>; buried=<seat> or -;
    tricks=<leader>:<play>,<play>,<play>,<play> / …; current=<leader>:<play>,… or -;
    captured=<dealer side> <scoring side> or -; adjust=<±points> <words> | … or -;
    left=<seat> at <points>[ before play], … or -; turn=<seat>

Cards are written as everywhere in chaodipi (``Ah 10s BJ``, :func:`~chaodipi.cards.format_cards`),
each hand in the order the hand holds it (its legal plays are listed in that order, and follows are
capped at 200, so a hand made from the position lists the same ones); ``rules`` is a preset name or
its JSON spec. ``captured`` is given when the earlier tricks are not all known (an endgame, a bot's
sampled world: the cards in no hand, no kitty and no trick were played in tricks before those listed,
and ``captured`` counts all the points taken, the listed tricks' too); when they are all known it is
``-``, what they add up to. ``bid`` is the standing bid, ``buried`` who buried the kitty (the dealer, or the last fryer;
``-``: the dealer), ``left`` the seats that left the hand (逃跑, RULES §13) and the scoring side's
points when they did.

>>> import random
>>> from chaodipi.cards import shuffled_deck
>>> from chaodipi.driver import run_hand
>>> from chaodipi.hand import Hand
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.simulate import RandomPolicy
>>> hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(2)), first_seat=0, dealer=0)
>>> policy = RandomPolicy(random.Random(2))
>>> _ = run_hand(hand, [policy.decide] * 4, until=lambda h: len(h.tricks) == 3)
>>> text = Position.of(hand).text()
>>> text.split("; ")[0:5]
['rules=standard', 'dealer=0', 'levels=1:2 1:2', 'failures=0', 'trump=s']
>>> Position.parse(text).text() == text
True
>>> again = Position.parse(text).hand()
>>> again.view(again.to_act()).legal == hand.view(hand.to_act()).legal
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from chaodipi.bidding import Bid, BidError, classify_bid, parse_choice
from chaodipi.cards import Card, CardError, Rank, Suit, format_cards, parse_cards, points_of
from chaodipi.hand import Hand
from chaodipi.levels import Progress, SettlementError, Side, format_level, parse_level, seat_side
from chaodipi.log import IllegalActionError, is_seat
from chaodipi.outcome import Escape
from chaodipi.rules import RuleError, RuleSet
from chaodipi.trick import trick_state
from chaodipi.trump import FIVE_HEARTS, TrumpError, TrumpOrder, parse_trump, trump_text
from chaodipi.units import PlayError, decompose
from chaodipi.view import Phase, TrickRecord, hand_threshold

__all__ = ["FIELDS", "Position", "PositionError"]

#: The fields of the text form, in order.
FIELDS = (
    "rules",
    "dealer",
    "levels",
    "failures",
    "trump",
    "bid",
    "red5",
    "hands",
    "kitty",
    "buried",
    "tricks",
    "current",
    "captured",
    "adjust",
    "left",
    "turn",
)

Play = tuple[int, tuple[Card, ...]]


class PositionError(ValueError):
    """A position that cannot be read, or that no hand could reach; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Position:
    """A hand in its play phase, written down (see the module's docstring for the text form).

    ``tricks``: the finished tricks, each its plays in play order (the leader first); ``current``:
    the trick in progress; ``captured``: the points the dealer side and the scoring side took, the
    earlier tricks' that the position does not list included (None: all tricks are listed, and it is
    what they add up to); ``adjustments``: changes to the scoring side's points so far (failed
    throws, failed dark fries, 逼红5), each with its words; ``bid``: the standing bid (None: nobody
    bid, or a flag hand), whose trump is ``trump``; ``kitty_holder``: who buried the kitty (None: the
    dealer); ``escapes``: the seats that left (逃跑, RULES §13), each with the points when it left.
    """

    rules: RuleSet
    dealer: int
    dealer_progress: Progress
    scoring_progress: Progress
    trump: str  # s, h, c, d, nt; or "flag" in a flag hand
    hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    kitty: tuple[Card, ...]
    tricks: tuple[tuple[Play, ...], ...] = ()
    current: tuple[Play, ...] = ()
    captured: tuple[int, int] | None = None
    adjustments: tuple[tuple[str, int], ...] = ()
    red5_player: int | None = None
    flag_failures: int = 0
    leader: int | None = None  # who leads the next trick when no trick is known (None: from the tricks)
    bid: Bid | None = None
    kitty_holder: int | None = None
    escapes: tuple[Escape, ...] = ()

    # -- reading a hand -----------------------------------------------------------------------
    @classmethod
    def of(cls, hand: Hand) -> Position:
        """Where ``hand`` stands (in its play phase: between or during tricks)."""
        if hand.phase is not Phase.PLAY or hand.dealer is None:
            raise PositionError(f"a position is of a hand in play, not in phase {hand.phase.value}")
        hands = tuple(tuple(h) for h in hand.hands)  # as held, not sorted: the legal plays come in this order
        tricks = tuple(t.plays for t in hand.tricks)
        standing = hand.standing
        bid = None
        if standing is not None:  # 5h 5h names its trump (RULES §9.2): the choice is the hand's trump
            red5 = standing.cards == (FIVE_HEARTS, FIVE_HEARTS)
            bid = Bid(standing.player, standing.cards, parse_choice(trump_text(hand.trump)) if red5 else None)
        return cls(
            hand.rules,
            hand.dealer,
            hand.dealer_progress,
            hand.scoring_progress,
            "flag" if hand.flag else trump_text(hand.trump),
            (hands[0], hands[1], hands[2], hands[3]),
            tuple(hand.kitty),
            tricks,
            tuple(hand.current),
            (hand.captured[0], hand.captured[1]) if hand.played_out else None,
            tuple(hand.adjustments),
            hand.red5_player,
            hand.flag_failures,
            None if hand.tricks else hand.leader,
            bid,
            hand.kitty_holder,
            tuple(hand.escapes),
        )

    @classmethod
    def in_play(
        cls,
        rules: RuleSet,
        *,
        hands: Sequence[Sequence[Card]],
        kitty: Sequence[Card],
        dealer: int,
        trump: Suit | None,
        leader: int,
        dealer_progress: Progress,
        scoring_progress: Progress | None = None,
        captured: tuple[int, int] = (0, 0),
        flag_failures: int = 0,
        red5_player: int | None = None,
        current: Sequence[tuple[int, Sequence[Card]]] = (),
        adjustments: Sequence[tuple[str, int]] = (),
    ) -> Position:
        """A position whose earlier tricks are not known (an endgame, a bot's sampled world): ``captured``
        the points each side took in them, the cards in no hand, kitty or trick counted as played.

        ``trump``: a suit or None (no-trump; in a flag hand, where the dealer side is at flag, None too).
        """
        flag = dealer_progress.level is None
        held = [tuple(h) for h in hands]
        if len(held) != 4:
            raise PositionError(f"a position has four hands, not {len(held)}")
        taken: tuple[int, int] | None = (captured[0], captured[1])
        if sum(len(h) for h in held) + len(kitty) + sum(len(c) for _, c in current) == 108 and taken == (0, 0):
            taken = None  # no earlier tricks: the position Position.of gives a hand at its first lead
        return cls(
            rules,
            dealer,
            dealer_progress,
            scoring_progress or Progress(1, Rank.TWO),
            "flag" if flag else trump_text(trump),
            (held[0], held[1], held[2], held[3]),
            tuple(kitty),
            (),
            tuple((p, tuple(c)) for p, c in current),
            taken,
            tuple(adjustments),
            red5_player,
            flag_failures,
            leader,
            kitty_holder=None if flag else dealer,
        )

    # -- the hand it is ---------------------------------------------------------------------------
    def hand(self) -> Hand:
        """The hand at this position, ready to play on (its earlier plays are not in its log).

        This is the one place where a hand is made from a position: the checks of :meth:`check`
        first, then the hand's state set as play would have left it.
        """
        leader, records, captured, rest = self._worked_out()
        hand = Hand(
            self.rules,
            self._deck(rest),
            first_seat=self.dealer,
            dealer=self.dealer,
            dealer_progress=self.dealer_progress,
            scoring_progress=self.scoring_progress,
            flag_failures=self.flag_failures,
        )
        order = self._order()
        hand.hands = [list(h) for h in self.hands]
        hand.dealt = hand.deal_size
        hand.kitty = list(self.kitty)
        hand.kitty_holder = None if self.dealer_progress.level is None else self._holder()
        hand.trump = None if self.trump in ("nt", "flag") else parse_trump(self.trump)[1]
        hand.trump_order = order
        hand.played_out = rest
        hand.trump_revealed = hand.bid_cards_revealed = True
        if self.bid is not None and hand.bidding is not None:
            hand.bidding.apply(self.bid)  # the standing bid, as the hand's only one (its trump is checked)
        hand.captured = list(captured)
        hand.red5_player = self.red5_player
        hand.phase = Phase.PLAY
        hand.tricks = list(records)
        hand.leader = leader
        hand.adjustments = list(self.adjustments)
        hand.escapes = list(self.escapes)
        if self.current:
            hand.current = [(p, tuple(c)) for p, c in self.current]
            hand.lead_format = decompose(hand.current[0][1], order, lead=True)
            hand.trick = trick_state([c for _, c in hand.current], order, hand.lead_format)
        return hand

    def check(self) -> None:
        """Raise :class:`PositionError` unless a hand could stand here (cards, sizes, turns, points)."""
        self._worked_out()

    @property
    def turn(self) -> int:
        """The seat to play now."""
        leader = self._worked_out()[0]
        return (leader + len(self.current)) % 4

    def _holder(self) -> int:
        return self.dealer if self.kitty_holder is None else self.kitty_holder

    def _order(self) -> TrumpOrder:
        level = self.dealer_progress.level
        if self.trump == "flag" or level is None:
            if self.trump != "flag" or level is not None:
                raise PositionError("a flag hand (trump=flag) is one whose dealer side is at flag, and only that")
            return TrumpOrder.of(self.rules, None, None)
        try:
            return TrumpOrder.of(self.rules, level, parse_trump(self.trump)[1])
        except TrumpError as exc:
            raise PositionError(f"trump: {exc}") from None

    def _shown(self) -> list[Card]:
        """Every card the position shows: the hands, the kitty, the finished tricks, the trick in progress."""
        played = [c for trick in (*self.tricks, self.current) for _, cards in trick for c in cards]
        return [c for h in self.hands for c in h] + list(self.kitty) + played

    def _deck(self, rest: list[Card]) -> list[Card]:
        """The 108 cards in an order a hand can be made from: those shown, then those played before."""
        return self._shown() + rest

    def _worked_out(self) -> tuple[int, list[TrickRecord], tuple[int, int], list[Card]]:
        """The leader of the trick in progress, the finished tricks judged, the points captured, and the
        cards played before the position when its tricks are not given; :class:`PositionError` if impossible."""
        if not is_seat(self.dealer):
            raise PositionError(f"dealer: a seat 0..3, not {self.dealer!r}")
        if self.red5_player is not None and not is_seat(self.red5_player):
            raise PositionError(f"red5: a seat 0..3 or -, not {self.red5_player!r}")
        flag = self.dealer_progress.level is None
        if len(self.kitty) != (0 if flag else 8):
            kitty = "a flag hand has no kitty (RULES §11.6)" if flag else "the kitty is 8 cards"
            raise PositionError(f"{kitty}, not {len(self.kitty)}")
        order = self._order()
        left = [2] * len(Card.ALL)  # copies of each card not yet seen in the position
        for c in self._shown():
            if not left[c.index]:
                raise PositionError(f"{c} is in the position more than twice")
            left[c.index] -= 1
        rest = [c for c in Card.ALL for _ in range(left[c.index])]
        if self.captured is None and rest:
            raise PositionError(
                f"{len(rest)} of the 108 cards are in no hand, kitty or trick: give captured, "
                "the points taken in the earlier tricks they were played in"
            )
        if self.kitty_holder is not None and (flag or not is_seat(self.kitty_holder)):
            raise PositionError(
                f"buried: a seat 0..3 (- in a flag hand, which has no kitty), not {self.kitty_holder!r}"
            )
        self._check_bid(flag)
        self._check_escapes(flag)
        records: list[TrickRecord] = []
        captured = [0, 0]
        leader = self.leader if self.leader is not None else self.tricks[0][0][0] if self.tricks else self.dealer
        if not rest and leader != self.dealer:  # every trick known: the dealer led the first (RULES §5)
            raise PositionError(f"trick 1 is led by the dealer, player {self.dealer}, not by player {leader}")
        for n, trick in enumerate(self.tricks, 1):
            if len(trick) != 4:
                raise PositionError(f"trick {n} has {len(trick)} plays, not 4")
            if trick[0][0] != leader:
                raise PositionError(f"trick {n} is led by player {trick[0][0]}, but player {leader} leads it")
            winner = self._judge(trick, order, leader, f"trick {n}")
            points = sum(points_of(c) for _, c in trick)
            captured[0 if seat_side(winner, self.dealer) is Side.DEALER else 1] += points
            records.append(TrickRecord(leader, tuple(trick), winner, points))
            leader = winner
        if self.current:
            if self.current[0][0] != leader:
                raise PositionError(f"the trick in progress is led by player {self.current[0][0]}, not {leader}")
            if len(self.current) > 3:
                raise PositionError("a trick in progress has at most 3 plays")
            self._judge(self.current, order, leader, "the trick in progress")
        if self.captured is not None:
            if not rest and tuple(captured) != self.captured:
                raise PositionError(f"captured: the tricks add up to {captured[0]} {captured[1]}, not {self.captured}")
            if any(given < listed for given, listed in zip(self.captured, captured, strict=True)):
                raise PositionError(
                    f"captured: the tricks listed add up to {captured[0]} {captured[1]}, more than {self.captured}"
                )
            captured = list(self.captured)
        sizes = [len(h) for h in self.hands]
        playing = {p for p, _ in self.current}
        lead_size = len(self.current[0][1]) if self.current else 0
        waiting = {sizes[s] for s in range(4) if s not in playing}
        if len(waiting) != 1 or any(sizes[s] != next(iter(waiting)) - lead_size for s in playing):
            raise PositionError(f"hand sizes {sizes} do not fit: the seats yet to play in a trick hold as many cards")
        return leader, records, (captured[0], captured[1]), rest

    def _check_bid(self, flag: bool) -> None:
        bid = self.bid
        if bid is None:
            return
        if flag:
            raise PositionError("bid: a flag hand has no bids (RULES §11.6)")
        level = self.dealer_progress.level
        assert level is not None
        try:
            named = classify_bid(bid.cards, level, bid.choose).trump
        except BidError as exc:
            raise PositionError(f"bid: {exc}") from None
        if trump_text(named) != self.trump:
            raise PositionError(f"bid: {format_cards(bid.cards)} names trump {trump_text(named)}, not {self.trump}")

    def _check_escapes(self, flag: bool) -> None:
        threshold = hand_threshold(self.rules, flag=flag)
        seen: set[int] = set()
        for e in self.escapes:
            if not is_seat(e.player) or e.player in seen:
                raise PositionError(f"left: each seat at most once, a seat 0..3, not {e.player!r}")
            seen.add(e.player)
            if e.reached != (e.points >= threshold):  # t: the points reached the threshold (RULES §13)
                raise PositionError(f"left: player {e.player} left at {e.points} points, threshold {threshold}")

    @staticmethod
    def _judge(plays: Sequence[Play], order: TrumpOrder, leader: int, what: str) -> int:
        for k, (p, _) in enumerate(plays):
            if p != (leader + k) % 4:
                raise PositionError(f"{what}: player {p} plays out of turn")
        try:
            state = trick_state([c for _, c in plays], order)
        except PlayError as exc:
            raise PositionError(f"{what}: {exc}") from None
        return plays[state.winner][0]

    # -- the text form -------------------------------------------------------------------------------
    def text(self) -> str:
        """The one-line text form (:meth:`parse` reads it back)."""
        spec = self.rules.to_spec()
        rules = str(spec["preset"]) if not spec["set"] else json.dumps(spec, separators=(",", ":"), sort_keys=True)

        def level(p: Progress) -> str:
            return f"{p.circle}:{format_level(p.level)}"

        def plays(ps: Sequence[Play]) -> str:
            return f"{ps[0][0]}:" + ",".join(format_cards(c) for _, c in ps) if ps else "-"

        fields = {
            "rules": rules,
            "dealer": str(self.dealer),
            "levels": f"{level(self.dealer_progress)} {level(self.scoring_progress)}",
            "failures": str(self.flag_failures),
            "trump": self.trump,
            "bid": "-" if self.bid is None else f"{self.bid.player}:{format_cards(self.bid.cards)}",
            "red5": "-" if self.red5_player is None else str(self.red5_player),
            "hands": " | ".join(format_cards(h) or "-" for h in self.hands),
            "kitty": format_cards(self.kitty),
            "buried": "-" if self.kitty_holder is None else str(self.kitty_holder),
            "tricks": " / ".join(plays(t) for t in self.tricks) or "-",
            "current": plays(self.current),
            "captured": "-" if self.captured is None else f"{self.captured[0]} {self.captured[1]}",
            "adjust": " | ".join(f"{d:+d} {words}" for words, d in self.adjustments) or "-",
            "left": ", ".join(
                f"{e.player} at {e.points}" + ("" if e.card_played else " before play") for e in self.escapes
            )
            or "-",
            "turn": str(self.turn),
        }
        if self.leader is not None and not self.tricks:
            fields["current"] = plays(self.current) if self.current else f"{self.leader}:"
        return "; ".join(f"{k}={fields[k]}" for k in FIELDS)

    def __str__(self) -> str:
        return self.text()

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read :meth:`text`'s form; :class:`PositionError` says what is wrong with a bad one."""
        if not isinstance(text, str):
            raise PositionError(f"a position is a text, not {type(text).__name__}")
        parts = [p.strip() for p in text.strip().split(";")]
        got: dict[str, str] = {}
        for part in parts:
            key, eq, value = part.partition("=")
            if not eq or key.strip() not in FIELDS:
                raise PositionError(f"{part!r} is not one of the fields {', '.join(FIELDS)} as key=value")
            if key.strip() in got:
                raise PositionError(f"{key.strip()} is given twice")
            got[key.strip()] = value.strip()
        missing = [k for k in FIELDS if k not in got and k != "turn"]
        if missing:
            raise PositionError(f"missing field(s): {', '.join(missing)}")
        try:
            position = cls._read(got)
        except (CardError, RuleError, SettlementError, TrumpError, IllegalActionError, ValueError) as exc:
            if isinstance(exc, PositionError):
                raise
            raise PositionError(str(exc)) from None
        if "turn" in got and got["turn"] != str(position.turn):
            raise PositionError(f"turn: player {position.turn} plays now, not {got['turn']}")
        return position

    @classmethod
    def _read(cls, got: dict[str, str]) -> Position:
        raw = got["rules"]
        rules = RuleSet.from_spec(json.loads(raw) if raw.startswith("{") else raw)
        levels = got["levels"].split()
        if len(levels) != 2:
            raise PositionError("levels: two sides, as circle:level, e.g. 1:2 1:5")
        progress = [_progress(x) for x in levels]
        hands = [tuple(parse_cards(h.strip())) if h.strip() != "-" else () for h in got["hands"].split("|")]
        if len(hands) != 4:
            raise PositionError(f"hands: four hands separated by |, not {len(hands)}")
        tricks = () if got["tricks"] == "-" else tuple(_plays(t) for t in got["tricks"].split("/"))
        current: tuple[Play, ...] = ()
        leader: int | None = None
        if got["current"] != "-":
            seat, _, rest = got["current"].partition(":")
            if not rest.strip():  # "2:": who leads the next trick, nothing played yet
                leader = _seat(seat, "current")
            else:
                current = _plays(got["current"])
                leader = None if tricks else current[0][0]
        captured = None
        if got["captured"] != "-":
            numbers = got["captured"].split()
            if len(numbers) != 2 or not all(n.isdigit() for n in numbers):
                raise PositionError("captured: two whole numbers, the dealer side's points and the scoring side's")
            captured = (int(numbers[0]), int(numbers[1]))
        adjustments: list[tuple[str, int]] = []
        if got["adjust"] != "-":
            for item in got["adjust"].split("|"):
                delta, _, words = item.strip().partition(" ")
                if not delta or delta[0] not in "+-" or not delta[1:].isdigit():
                    raise PositionError(f"adjust: {item.strip()!r} is not ±points and words")
                adjustments.append((words, int(delta)))
        failures = got["failures"]
        if not failures.isdigit():
            raise PositionError(f"failures: a whole number, not {failures!r}")
        trump = got["trump"]
        bid = None
        if got["bid"] != "-":
            seat, colon, cards = got["bid"].partition(":")
            if not colon:
                raise PositionError(f"bid: seat:cards (1:7s 7s) or -, not {got['bid']!r}")
            shown = tuple(parse_cards(cards))
            red5 = shown == (FIVE_HEARTS, FIVE_HEARTS) and trump not in ("flag",)
            bid = Bid(_seat(seat, "bid"), shown, parse_choice(trump) if red5 else None)
        flag = progress[0].level is None
        threshold = hand_threshold(rules, flag=flag)
        escapes = []
        if got["left"] != "-":
            for item in got["left"].split(","):
                seat, at, rest = item.strip().partition(" at ")
                points, _, before = rest.partition(" ")
                if not at or before not in ("", "before play") or not points.lstrip("-").isdigit():
                    raise PositionError(
                        f"left: {item.strip()!r} is not 'seat at points' or 'seat at points before play'"
                    )
                left_at = int(points)
                escapes.append(Escape(_seat(seat, "left"), not before, left_at, left_at >= threshold))
        position = cls(
            rules,
            _seat(got["dealer"], "dealer"),
            progress[0],
            progress[1],
            trump,
            (hands[0], hands[1], hands[2], hands[3]),
            tuple(parse_cards(got["kitty"])),
            tricks,
            current,
            captured,
            tuple(adjustments),
            None if got["red5"] == "-" else _seat(got["red5"], "red5"),
            int(failures),
            leader,
            bid,
            None if got["buried"] == "-" else _seat(got["buried"], "buried"),
            tuple(escapes),
        )
        position.check()
        return position


def _seat(text: str, what: str) -> int:
    text = text.strip()
    if text not in ("0", "1", "2", "3"):
        raise PositionError(f"{what}: a seat 0..3, not {text!r}")
    return int(text)


def _progress(text: str) -> Progress:
    circle, _, level = text.partition(":")
    if not circle.isdigit() or not level:
        raise PositionError(f"levels: {text!r} is not circle:level (e.g. 1:2, 2:A, 1:flag)")
    parsed: Rank | None = parse_level(level)
    return Progress(int(circle), parsed)


def _plays(text: str) -> tuple[Play, ...]:
    seat, colon, rest = text.strip().partition(":")
    if not colon:
        raise PositionError(f"{text.strip()!r} is not leader:play,play,…")
    first = _seat(seat, "a trick's leader")
    out = []
    for k, cards in enumerate(rest.split(",")):
        out.append(((first + k) % 4, tuple(parse_cards(cards.strip()))))
    return tuple(out)
