"""Bids 亮主 and overrides 反主 during the deal, and the strength test of a fry 炒底 (RULES §9.2, §9.3, §10.2).

A :class:`Bid` is what one player shows at one moment: one level card, or a pair.
:class:`Bidding` holds the bids of one hand at one level and follows the
operation style of the engine: :meth:`Bidding.check` (a reason, or None),
:meth:`Bidding.can` (a bool) and :meth:`Bidding.apply` (does it, returns the
new :class:`StandingBid`, and leaves the state as it was when the bid is not
allowed). :func:`evaluate_bids` answers the referee's ``bids`` question.

Trump is written ``Suit | None`` where None is no-trump (NT, 无主). A 5h 5h bid
names its trump with ``choose`` (a :class:`~chaodipi.cards.Suit` or ``"nt"``).

>>> from chaodipi.rules import RuleSet
>>> b = Bidding(RuleSet.preset("standard"), Rank.EIGHT)
>>> b.apply(Bid.parse(0, "8s")).trump
<Suit.SPADES: 's'>
>>> b.check(Bid.parse(1, "8d 8d")) is None      # any pair outranks a single
True
>>> b.apply(Bid.parse(1, "8h 8h")).token
'h'
>>> reason = b.check(Bid.parse(2, "8d 8d"))
>>> reason.code, str(reason)
('bid.weaker', "8d 8d is not stronger than player 1's standing 8h 8h (the bid order: D<C<H<S<SJ<BJ<5h)")
>>> b.apply(Bid.parse(3, "5h 5h", "nt")).trump is None
True
>>> evaluate_bids(RuleSet.preset("anchao"), Rank.EIGHT,
...               [Bid.parse(0, "8c"), Bid.parse(1, "8s 8s"), Bid.parse(0, "8c 8c")]).to_json()
{'valid': [True, True, True], 'trump': 'c', 'bidder': 0}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, NamedTuple, TypeAlias

try:  # the marks of the optional compiled build (make fast); the pure-Python install does without them
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - mypy (a dev dependency) brings mypy_extensions
    from chaodipi._build import mypyc_attr

from chaodipi.cards import SUITS, Card, CardError, Rank, Suit, check_copies, format_cards, parse_cards
from chaodipi.log import IllegalActionError
from chaodipi.phrases import Phrase, say
from chaodipi.rules import NoBidTrump, RuleSet
from chaodipi.trump import trump_text, trump_words

__all__ = [
    "NT",
    "Bid",
    "BidError",
    "BidKind",
    "BidRequestError",
    "BidShape",
    "Bidding",
    "BidsOutcome",
    "Choice",
    "FirstSingle",
    "IllegalBidError",
    "StandingBid",
    "classify_bid",
    "evaluate_bids",
    "kitty_trump",
    "kitty_trump_turned",
    "parse_choice",
]

#: The no-trump choice of a 5h 5h bid, as written in requests.
NT: Literal["nt"] = "nt"

#: What a 5h 5h bidder names: a suit or no-trump.
Choice: TypeAlias = Suit | Literal["nt"]

_RED5 = Card.of(Rank.FIVE, Suit.HEARTS)


class BidError(IllegalActionError):
    """A bid that cannot be made, or a request that does not describe a bid.

    An :class:`~chaodipi.log.IllegalActionError`: a hand refuses such a bid with this error as it is.
    """


class IllegalBidError(BidError):
    """A well-formed bid that the rules do not allow now (its reason says why)."""


class BidRequestError(BidError):
    """A request that is not a bid at all: a bad player, a bad or missing ``choose``."""


class BidKind(StrEnum):
    """The kinds of bid of RULES §9.2."""

    SINGLE = "single"  # one level card: 亮主, only as the first bid of the hand
    PAIR = "pair"  # a pair of identical level cards of a suit
    JOKER_PAIR = "joker_pair"  # SJ SJ or BJ BJ: no-trump 无将
    RED5_PAIR = "red5_pair"  # 5h 5h: any suit or no-trump
    LOOKBACK = "lookback"  # 回头望 / 钩回: the first single bidder shows the pair


def parse_choice(text: object) -> Choice:
    """Read the ``choose`` of a 5h 5h bid: ``"s"``, ``"h"``, ``"c"``, ``"d"`` or ``"nt"`` (case-insensitive).

    >>> parse_choice("NT"), parse_choice("h")
    ('nt', <Suit.HEARTS: 'h'>)
    """
    if isinstance(text, Suit):
        return text
    if isinstance(text, str):
        key = text.strip().lower()
        if key == NT:
            return NT
        for suit in SUITS:
            if suit.value == key:
                return suit
    raise BidRequestError(say("bid.choose", text=repr(text)))


# Not a native class in the compiled build (make fast): its constructor takes any values and checks them here.
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Bid:
    """The cards one player shows at one moment, and for 5h 5h the trump they name.

    Reinforcing a single or a look-back shows the whole pair (the card shown
    before and its twin), as in docs/referee.md.
    """

    player: int
    cards: tuple[Card, ...]
    choose: Choice | None = None

    def __post_init__(self) -> None:
        # The fields as given (the compiled build would check self.player and the others against their types first).
        player, given, choose = (object.__getattribute__(self, name) for name in ("player", "cards", "choose"))
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player <= 3:
            raise BidRequestError(f"a bid's player must be a seat 0..3, not {player!r}")
        cards = tuple(given)
        if not all(isinstance(c, Card) for c in cards):
            raise BidRequestError(f"a bid's cards must be cards, not {given!r}")
        object.__setattr__(self, "cards", cards)
        if choose is not None:
            object.__setattr__(self, "choose", parse_choice(choose))

    @classmethod
    def parse(cls, player: int, cards_text: str | Iterable[str], choose_text: str | None = None) -> Bid:
        """Read a bid from card notation (RULES §1) and an optional ``choose``.

        >>> Bid.parse(2, "5h 5h", "nt")
        Bid(player=2, cards=(Card('5h'), Card('5h')), choose='nt')
        """
        choose = None if choose_text is None else parse_choice(choose_text)
        return cls(player, tuple(parse_cards(cards_text)), choose)

    def __str__(self) -> str:
        extra = "" if self.choose is None else f" ({self.choose})"
        return f"player {self.player}: {format_cards(self.cards)}{extra}"


class BidShape(NamedTuple):
    """What a set of shown cards is as a bid: its kind, the trump it names, its strength token."""

    kind: BidKind
    trump: Suit | None
    token: str


def classify_bid(cards: Sequence[Card], level: Rank, choose: Choice | None = None) -> BidShape:
    """Read cards as a bid at ``level`` (RULES §9.2), apart from whether it is allowed now.

    Raises :class:`IllegalBidError` for cards that are no bid (three cards, a
    lone joker, two different level cards…), and :class:`BidRequestError`
    for 5h 5h without ``choose`` or ``choose`` on any other bid.

    >>> classify_bid(parse_cards("8c 8c"), Rank.EIGHT)
    BidShape(kind=<BidKind.PAIR: 'pair'>, trump=<Suit.CLUBS: 'c'>, token='c')
    >>> classify_bid(parse_cards("5h"), Rank.FIVE).trump      # at level 5, 5h is a heart level card
    <Suit.HEARTS: 'h'>
    """
    shape = _shape(tuple(cards), level)
    if shape.kind is BidKind.RED5_PAIR:
        if choose is None:
            raise BidRequestError(say("bid.red5_choose"))
        choice = parse_choice(choose)
        return BidShape(BidKind.RED5_PAIR, choice if isinstance(choice, Suit) else None, "5h")
    if choose is not None:
        raise BidRequestError(say("bid.no_choose", cards=tuple(cards)))
    return shape


def _shape(cards: tuple[Card, ...], level: Rank) -> BidShape:
    if len(cards) == 1:
        (card,) = cards
        # RULES §9.2: a single is a level card of a suit; at level 5 that includes 5h.
        if card.rank == level and card.suit is not None:
            return BidShape(BidKind.SINGLE, card.suit, "single")
        if card.suit is None or card is _RED5:
            raise IllegalBidError(say("bid.alone", cards=cards))
        raise IllegalBidError(say("bid.not_level", cards=cards, level=level.symbol))
    if len(cards) == 2:
        a, b = cards
        if a is not b:
            if a.rank == level and b.rank == level and a.suit is not None and b.suit is not None:
                raise IllegalBidError(say("bid.two_levels", cards=cards))
            raise IllegalBidError(say("bid.not_pair", cards=cards))
        # RULES §9.2: 5h 5h is the top bid at every level, also at level 5.
        if a is _RED5:
            return BidShape(BidKind.RED5_PAIR, None, "5h")
        if a.suit is None:
            return BidShape(BidKind.JOKER_PAIR, None, str(a))
        if a.rank == level:
            return BidShape(BidKind.PAIR, a.suit, a.suit.value)
        raise IllegalBidError(say("bid.pair_not_level", cards=cards, level=level.symbol))
    if not cards:
        raise IllegalBidError(say("bid.none"))
    raise IllegalBidError(say("bid.too_many", cards=cards))


@dataclass(frozen=True, slots=True)
class StandingBid:
    """The bid that stands: who made it, its kind, the trump (None: no-trump), its strength token, its cards."""

    player: int
    kind: BidKind
    trump: Suit | None
    token: str
    cards: tuple[Card, ...]

    @property
    def trump_text(self) -> str:
        """The trump as written in requests (``"s"``…``"d"``, ``"nt"``)."""
        return trump_text(self.trump)

    def describe(self) -> str:
        """The bid in words, for reasons."""
        what = {
            BidKind.SINGLE: f"{trump_words(self.trump, chinese=False)} single",
            BidKind.PAIR: f"{trump_words(self.trump, chinese=False)} pair",
            BidKind.JOKER_PAIR: f"{self.token} pair (no-trump)",
            BidKind.RED5_PAIR: f"5h pair ({trump_words(self.trump, chinese=False)})",
            BidKind.LOOKBACK: f"look-back to {trump_words(self.trump, chinese=False)}",
        }[self.kind]
        return f"{what} of player {self.player}"


class FirstSingle(NamedTuple):
    """Who made the hand's first bid with a single card, and the card (the look-back's pair is its twin)."""

    player: int
    card: Card


# Not a native class in the compiled build (make fast): its constructor takes any values and checks them here.
@mypyc_attr(native_class=False)
@dataclass(slots=True)
class Bidding:
    """The bids of one hand at one level (RULES §9.2–9.3), and the fries after the burial (§10.2).

    Build it with the rule set and the hand's level; offer bids in the order
    they are made. Invalid bids change nothing; :meth:`offer` records them in
    :attr:`history` as void, :meth:`apply` raises instead.
    """

    rules: RuleSet
    level: Rank
    _standing: StandingBid | None = field(default=None, init=False)
    _first_single: FirstSingle | None = field(default=None, init=False)
    _reinforced: bool = field(default=False, init=False)
    _history: list[tuple[Bid, bool]] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        level = object.__getattribute__(self, "level")  # as given (compiled, self.level is checked as a Rank first)
        if not isinstance(level, Rank) or not Rank.TWO <= level <= Rank.ACE:
            raise BidRequestError(f"the level of a hand is 2..A, not {level!r}")

    # -- state ------------------------------------------------------------
    @property
    def standing(self) -> StandingBid | None:
        """The bid that stands now, or None if no valid bid was made."""
        return self._standing

    @property
    def first_single(self) -> FirstSingle | None:
        """Who made the hand's first bid with a single card (None if the first bid was a pair, or none yet)."""
        return self._first_single

    @property
    def history(self) -> list[tuple[Bid, bool]]:
        """Every bid offered, in order, with whether it was valid when made (a copy)."""
        return list(self._history)

    @property
    def trump(self) -> Suit | None:
        """The trump of the standing bid (None is no-trump); raises if nobody bid: ask :attr:`standing` first."""
        if self._standing is None:
            raise BidError("nobody has made a valid bid, so the bids name no trump")
        return self._standing.trump

    # -- the one rule -----------------------------------------------------
    def _resolve(self, bid: Bid, *, fry: bool, dark: bool = False) -> StandingBid | Phrase:
        """The standing bid that ``bid`` would make, or the reason it is not allowed. Raises on bad requests."""
        try:
            shape = classify_bid(bid.cards, self.level, bid.choose)
        except IllegalBidError as exc:
            return exc.phrase or Phrase.text(str(exc))
        standing = self._standing
        order = self.rules.bid_order

        if shape.kind is BidKind.SINGLE:
            if fry:
                return say("fry.single")
            if standing is not None:
                return say("bid.single_not_first", standing_player=standing.player, standing_cards=standing.cards)
            return StandingBid(bid.player, shape.kind, shape.trump, shape.token, bid.cards)

        if standing is None:
            if fry:
                return say("fry.nobody_bid")
            return StandingBid(bid.player, shape.kind, shape.trump, shape.token, bid.cards)

        first = self._first_single
        if bid.player == standing.player:
            # RULES §9.3: 自保 — the twin of one's own single, shown before anyone overrides.
            if standing.kind is BidKind.SINGLE and bid.cards == (standing.cards[0],) * 2:
                if fry:
                    return say("fry.reinforce")
                return StandingBid(bid.player, shape.kind, shape.trump, shape.token, bid.cards)
            if not (dark and fry):
                return say("bid.own_standing", player=bid.player)
            # RULES §10.5: a dark fryer cannot know their bid still stands; the fry is judged by strength alone

        # RULES §9.2: look-back 回头望/钩回 — the first single bidder shows the pair after another's override.
        # A 5h 5h pair is always the 5h bid with a free choice, never a look-back; a reinforced single is
        # already a shown pair and keeps no look-back (seed 001 rule 8).
        if (
            self.rules.lookback
            and shape.kind is BidKind.PAIR
            and first is not None
            and not self._reinforced
            and first.player == bid.player
            and bid.cards == (first.card, first.card)
        ):
            if order.unordered or order.rank("LB") > order.rank(standing.token):
                return StandingBid(bid.player, BidKind.LOOKBACK, shape.trump, "LB", bid.cards)
            return self._weaker("bid.lookback_weaker", bid, standing)

        # RULES §9.3: an override must be strictly stronger; with `unordered` any pair overrides.
        if order.unordered or order.rank(shape.token) > order.rank(standing.token):
            return StandingBid(bid.player, shape.kind, shape.trump, shape.token, bid.cards)
        return self._weaker("bid.weaker", bid, standing)

    def _weaker(self, code: str, bid: Bid, standing: StandingBid) -> Phrase:
        """Why ``bid`` does not override ``standing``: not stronger in the rules' bid order."""
        order = str(self.rules.bid_order)
        return say(
            code, cards=bid.cards, standing_player=standing.player, standing_cards=standing.cards, bid_order=order
        )

    # -- operations -------------------------------------------------------
    def check(self, bid: Bid, *, fry: bool = False) -> Phrase | None:
        """None if ``bid`` is allowed now, else the reason in words.

        With ``fry=True`` the bid is judged as a fry 炒底 (RULES §10.2): it must
        override the standing bid, so singles and reinforcements are refused.
        In dark bidding (``fry_visibility=dark``) a bid refused here is void and
        changes nothing (RULES §9.3); a refused dark *fry* is a failed fry, whose
        penalty is the caller's to apply (RULES §10.5).
        Raises :class:`BidRequestError` if the bid is not a well-formed request.
        """
        result = self._resolve(bid, fry=fry)
        return result if isinstance(result, Phrase) else None

    def can(self, bid: Bid, *, fry: bool = False) -> bool:
        """Whether ``bid`` is allowed now (see :meth:`check`)."""
        return self.check(bid, fry=fry) is None

    def check_override(self, bid: Bid) -> Phrase | None:
        """None if ``bid`` would fry: override the standing bid as RULES §10.2 requires; else the reason."""
        return self.check(bid, fry=True)

    def can_override(self, bid: Bid) -> bool:
        """Whether ``bid`` would fry (see :meth:`check_override`)."""
        return self.check_override(bid) is None

    def apply(self, bid: Bid, *, fry: bool = False) -> StandingBid:
        """Make ``bid``: it becomes the standing bid, and is logged in :attr:`history`.

        Raises :class:`IllegalBidError` with the reason if it is not allowed, and
        then the state is as it was (nothing is logged).
        """
        result = self._resolve(bid, fry=fry)
        if isinstance(result, Phrase):
            raise IllegalBidError(result)
        self._commit(bid, result)
        return result

    def offer(self, bid: Bid, *, fry: bool = False, dark: bool = False) -> bool:
        """Make ``bid`` if it is allowed, else log it as void; return whether it was valid (RULES §9.3)."""
        result = self._resolve(bid, fry=fry, dark=dark)
        if isinstance(result, Phrase):
            self._history.append((bid, False))
            return False
        self._commit(bid, result)
        return True

    def _commit(self, bid: Bid, new: StandingBid) -> None:
        old = self._standing
        if old is None and new.kind is BidKind.SINGLE:
            self._first_single = FirstSingle(bid.player, bid.cards[0])
        if old is not None and old.kind is BidKind.SINGLE and old.player == new.player:
            self._reinforced = True
        self._standing = new
        self._history.append((bid, True))


@dataclass(frozen=True, slots=True)
class BidsOutcome:
    """The answer to a sequence of bids: each bid's validity, and the bid that stands (None: no valid bid)."""

    valid: tuple[bool, ...]
    standing: StandingBid | None

    @property
    def trump(self) -> Suit | None:
        """The resulting trump (None is no-trump); raises if no valid bid was made: check :attr:`standing`."""
        if self.standing is None:
            raise BidError("no valid bid was made, so the bids name no trump")
        return self.standing.trump

    @property
    def bidder(self) -> int | None:
        """The player whose bid stands, or None if no valid bid was made."""
        return None if self.standing is None else self.standing.player

    def to_json(self) -> dict[str, object]:
        """The referee's answer: ``{"valid": [...], "trump": "s"|…|"nt"|None, "bidder": p|None}``."""
        st = self.standing
        return {
            "valid": list(self.valid),
            "trump": None if st is None else st.trump_text,
            "bidder": None if st is None else st.player,
        }


def evaluate_bids(rules: RuleSet, level: Rank, bids: Sequence[Bid]) -> BidsOutcome:
    """The referee's ``bids`` operation: replay bids made during the deal (RULES §9.2–9.3).

    Raises :class:`~chaodipi.cards.CardError` if the bids together need a third
    copy of a card (a player's later bid may re-show the cards of their earlier
    ones), and :class:`BidRequestError` for a malformed bid.
    """
    per_player: dict[int, Counter[Card]] = {}
    for bid in bids:
        seen = per_player.setdefault(bid.player, Counter())
        for card, n in Counter(bid.cards).items():
            seen[card] = max(seen[card], n)
    try:
        check_copies(*(list(c.elements()) for c in per_player.values()))
    except CardError as exc:
        raise CardError(f"{exc} (counting each player's cards once across their bids)") from None
    bidding = Bidding(rules, level)
    valid = tuple(bidding.offer(bid) for bid in bids)
    return BidsOutcome(valid, bidding.standing)


def kitty_trump(rules: RuleSet, level: Rank, kitty: Sequence[Card]) -> Suit | None:
    """Trump when nobody bids in a later hand, read from the kitty (RULES §9.5, option ``no_bid_trump``).

    Returns the suit, or None for no-trump.

    >>> from chaodipi.rules import RuleSet
    >>> kitty = parse_cards("3c SJ 8d 4h 5h 6s 7s 9c")
    >>> presets = ("standard", "contest2021", "institute2023")
    >>> [trump_text(kitty_trump(RuleSet.preset(p), Rank.EIGHT, kitty)) for p in presets]
    ['nt', 'c', 'd']
    """
    return kitty_trump_turned(rules, level, kitty)[0]


def kitty_trump_turned(rules: RuleSet, level: Rank, kitty: Sequence[Card]) -> tuple[Suit | None, int]:
    """The kitty's trump (RULES §9.5) and how many of its cards, in order, the table sees turned up.

    The cards are turned up to the one that decides; all eight only when the decision needed
    all eight (no level card with ``highest_card``, or ``first_level_card``'s fallback).

    >>> from chaodipi.rules import RuleSet
    >>> kitty = parse_cards("3c SJ 8d 4h 5h 6s 7s 9c")
    >>> presets = ("standard", "contest2021", "institute2023")
    >>> [kitty_trump_turned(RuleSet.preset(p), Rank.EIGHT, kitty)[1] for p in presets]
    [2, 1, 3]
    >>> kitty_trump_turned(RuleSet.preset("institute2023"), Rank.JACK, kitty)
    (<Suit.HEARTS: 'h'>, 8)
    """
    if not kitty:
        raise BidRequestError("the kitty is empty")
    mode = rules.no_bid_trump

    def suit_of(card: Card) -> Suit | None:
        if card.suit is None:
            return None  # a joker: no-trump
        return card.suit  # 5h gives hearts, like any heart

    if mode == NoBidTrump.FIRST_CARD:
        return suit_of(kitty[0]), 1
    for k, card in enumerate(kitty, 1):
        if card.suit is not None and card.rank == level:
            return card.suit, k
        if mode == NoBidTrump.FIRST_LEVEL_CARD and card.suit is None:
            return None, k

    # highest_card, and first_level_card's fallback (Decision): 5h, BJ, SJ, then rank A high; ties: first.
    def strength(card: Card) -> int:
        if card is _RED5:
            return 100
        return int(card.rank)

    best = max(kitty, key=strength)  # max() keeps the first of equal cards
    return suit_of(best), len(kitty)
