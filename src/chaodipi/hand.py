"""One hand as a state machine: the deal and its bids, the kitty, frying, play and settlement.

RULES §2, §5–§11. The hand follows the engine's operation style (docs/architecture.md, after
pokerkit): for every action ``verify_x`` raises :class:`IllegalActionError` with the
reason or returns the seat it checked, ``can_x`` says yes or no, and ``x`` does it and returns a
frozen record that is also appended to :attr:`Hand.log`. A refused action changes nothing.
:meth:`Hand.apply` is the one dispatcher of typed :class:`~chaodipi.log.Action` records
(bots, replay and the server go through it); the log of actions and events is the one
record of the hand, from which :attr:`Hand.actions`, :attr:`Hand.bid_log` and each seat's
events (:meth:`Hand.visible_events`) are read. :meth:`Hand.view` is all a seat is shown.

Actions, by phase:

- ``DEAL``: :meth:`Hand.deal_card` (a chance step: one card, in play order from the
  first seat), :meth:`Hand.bid` at any moment; after the last card, ``COUNTDOWN``:
  more bids, then :meth:`Hand.close_bidding` (the countdown's end).
- ``BURY``: :meth:`Hand.bury` by whoever holds the kitty (the dealer; after a fry, the fryer).
- ``FRY``: :meth:`Hand.fry` or :meth:`Hand.pass_fry` by the player asked (RULES §10).
- ``PLAY``: :meth:`Hand.play` (leads, throws, follows); in a flag hand the scoring side
  may first :meth:`Hand.show_red5` (RULES §11.5).
- ``OVER`` (settled) or ``REDEAL`` (nobody bid in the first hand).

In every phase before ``OVER`` and ``REDEAL`` a player may :meth:`Hand.leave` the game in
progress (逃跑, RULES §13), once: nothing else changes (a bot plays on for the seat), and the
penalty is worked out when the hand is settled (:class:`EscapePenalty`). A referee may
:meth:`Hand.penalize` a team in the same phases (RULES §14.4): its points change p at once, its levels
come off at the game (:meth:`chaodipi.game.Game.finish_hand`), and a game lost ends the hand here.

A whole hand, step by step (the driver, :func:`chaodipi.driver.run_hand`, does this for bots,
people and the server):

>>> import random
>>> from chaodipi.cards import parse_cards, shuffled_deck
>>> from chaodipi.rules import RuleSet
>>> hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
>>> for _ in range(15):
...     _ = hand.deal_card()
>>> hand.possible_bids(2)
[BidOption(cards=(Card('2c'),), choose=None)]
>>> hand.bid(2, parse_cards("2c")).valid  # 亮主: North declares clubs with a level card
True
>>> hand.can_bid(1, parse_cards("BJ"))  # a joker never declares alone (RULES §9.2)
False
>>> hand.deal_all()
>>> hand.phase, len(hand.hands[0]), len(hand.kitty)
(<Phase.COUNTDOWN: 'countdown'>, 25, 8)
>>> hand.apply(Action.close()).detail  # the countdown ends: the dealer picks up the kitty
'dealer 0'
>>> hand.to_act(), len(hand.hands[0]), hand.view(0).legal.bury
(0, 33, 8)
>>> hand.bury(0, hand.hands[0][:8]).kind  # 扣底
<EventKind.BURIED: 'buried'>
>>> hand.phase, hand.to_act(), hand.view(1).legal.fries  # 炒底: East may fry with its diamond pair
(<Phase.FRY: 'fry'>, 1, (BidOption(cards=(Card('2d'), Card('2d')), choose=None),))
>>> while hand.phase == Phase.FRY:
...     _ = hand.pass_fry(hand.fry_next)
>>> hand.phase, hand.trump, hand.to_act()
(<Phase.PLAY: 'play'>, <Suit.CLUBS: 'c'>, 0)
>>> hand.view(2).hand[:3]  # North's hand, trumps first (5h, jokers, level cards, clubs)
(Card('5h'), Card('SJ'), Card('2c'))
>>> from chaodipi.driver import run_hand
>>> from chaodipi.simulate import RandomPolicy
>>> run_hand(hand, [RandomPolicy(random.Random(1)).decide] * 4).phase
<Phase.OVER: 'over'>
>>> r = hand.result
>>> r.points == r.trick_points + r.kou_di + sum(d for _, d in r.adjustments)
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from typing import ClassVar

from chaodipi.bidding import (
    Bid,
    Bidding,
    BidKind,
    classify_bid,
    kitty_trump_turned,
    parse_choice,
)
from chaodipi.cards import Card, Rank, Suit, format_cards
from chaodipi.levels import Progress, Side, seat_side
from chaodipi.log import (
    Action,
    ActionKind,
    Event,
    EventKind,
    IllegalActionError,
    KouDi,
    Left,
    Named,
    Penalised,
    Penalty,
    Settled,
    ShownBid,
    ThrowFailed,
    TrickWon,
    TrumpSet,
    checked_seat,
)
from chaodipi.masks import add, cards_of, masks_of, missing, without
from chaodipi.observe import KITTY_SIZE, SeatViews
from chaodipi.outcome import RED5_PENALTY, Escape, HandResult, hand_result, penalty_words
from chaodipi.phrases import say
from chaodipi.play import FollowRule, check_throw
from chaodipi.rules import FryTurns, RuleSet
from chaodipi.trick import TrickState
from chaodipi.trump import FIVE_HEARTS, TrumpOrder, trump_text
from chaodipi.units import Format, PlayError, decompose
from chaodipi.view import BidOption, Legal, Phase, TrickRecord, View, hand_threshold

__all__ = [
    "Action",
    "ActionKind",
    "DecisionKind",
    "Event",
    "EventKind",
    "Hand",
    "IllegalActionError",
    "Legal",
    "Pending",
    "Phase",
    "TrickRecord",
    "TrustedChecks",
    "TrustedPlayError",
    "View",
]


class TrustedPlayError(Exception):
    """A play made through the trusted path (:meth:`Hand.play_trusted`) that the rules do not allow.

    Raised only while trusted plays are checked (:class:`TrustedChecks`): it means a bot
    generated an illegal play and called it legal, a bug in the bot, never a player's mistake.
    """


class TrustedChecks:
    """Whether :meth:`Hand.play_trusted` checks each play after all (the debug mode the tests run in).

    Off by default (the point of the trusted path is to skip the check); on when the environment
    variable ``CHAODIPI_CHECK_TRUSTED`` is set to anything but ``0``, or by setting ``on``.
    """

    on: ClassVar[bool] = os.environ.get("CHAODIPI_CHECK_TRUSTED", "") not in ("", "0")


class DecisionKind(StrEnum):
    """What kind of decision a hand waits for (:meth:`Hand.pending`); each has its time limit in the rules."""

    DECLARE = "declare"  # the countdown after the deal: anyone may still bid (RULES §9.3)
    BURY = "bury"  # the kitty's holder buries 扣底 (RULES §10.1)
    FRY = "fry"  # the player asked fries 炒底 or passes (RULES §10)
    PLAY = "play"  # the player on turn leads or follows (RULES §5–§7)


_DECISION_OF = {Phase.BURY: DecisionKind.BURY, Phase.FRY: DecisionKind.FRY, Phase.PLAY: DecisionKind.PLAY}
#: Actions that end no decision: a seat that leaves keeps its turn, a show of 5h 5h is made beside the play.
#: A referee's penalty (RULES §14.4) ends none either (unless it ends the game).
_NO_DECISION = frozenset({ActionKind.LEAVE, ActionKind.SHOW_RED5, ActionKind.PENALTY})


@dataclass(frozen=True, slots=True)
class Pending:
    """The decision a hand waits for: its kind, who must make it, and its time limit by the rules.

    ``seat``: None in the countdown, where nobody is waited for. ``seconds``: the rules' limit
    (``declare_seconds``, ``bury_seconds``, ``fry_seconds``, ``play_seconds``). ``number``: how
    many decisions the hand has seen before this one. ``offered``: the seats that may act now
    besides ``seat`` (in the countdown those holding a bid; in a flag hand those who may show 5h 5h).
    """

    kind: DecisionKind
    seat: int | None
    seconds: int
    number: int
    offered: tuple[int, ...] = ()


def _passes(check: Callable[..., object], *args: object) -> bool:
    """Whether ``check(*args)`` raises no :class:`IllegalActionError` (every ``can_x`` is its ``verify_x``)."""
    try:
        check(*args)
    except IllegalActionError:
        return False
    return True


@lru_cache(maxsize=16)
def _bid_card_mask(level: Rank) -> int:
    """The bits of the cards a bid is made of at ``level``: the level cards, the jokers and 5h (RULES §9.2)."""
    return sum(1 << c.index for c in Card.ALL if c.rank == level or c.suit is None or c is FIVE_HEARTS)


def _named(choose: str | None) -> Named | None:
    """The payload of a bid or fry that names the trump (5h 5h), or None."""
    return None if choose is None else Named(choose)


# -- the hand ----------------------------------------------------------------------------


class Hand(SeatViews):
    """One hand of 炒地皮 from the shuffle to the settlement.

    ``deck``: the 108 cards in dealing order. ``first_seat``: who receives the first card
    (the dealer, or a random seat in the first hand). ``dealer``: None in the first hand
    of a game (the standing bid decides, RULES §9.4). ``dealer_progress`` and
    ``scoring_progress``: where the two sides stand; the hand's level is the dealer
    side's level, and a dealer side at ``flag`` makes this a flag hand (扛旗, RULES §11.6).
    In the first hand both sides are at the same level, so the level is known before
    the dealer is. ``flag_failures``: flag hands the dealer side lost in a row before.
    """

    #: Attributes that keep work between calls (each seat's events, the follow rule, the legal actions,
    #: bids, sorted hands), not state: a hand is the same hand whatever they hold.
    CACHE_FIELDS: ClassVar[frozenset[str]] = SeatViews.VIEW_CACHES | {"_rule", "_bids", "_bid_cards"}

    def __init__(
        self,
        rules: RuleSet,
        deck: Sequence[Card],
        *,
        first_seat: int,
        dealer: int | None,
        dealer_progress: Progress | None = None,
        scoring_progress: Progress | None = None,
        flag_failures: int = 0,
    ) -> None:
        if len(deck) != 108 or sorted(c.index for c in deck) != sorted(c.index for c in Card.ALL for _ in (0, 1)):
            raise IllegalActionError(say("hand.deck"))
        if not 0 <= first_seat <= 3 or (dealer is not None and not 0 <= dealer <= 3):
            raise IllegalActionError(say("hand.seats"))
        self.rules = rules
        self.deck = tuple(deck)
        self.first_seat = first_seat
        self.dealer = dealer
        self.dealer_progress = dealer_progress or Progress(1, Rank.TWO)
        self.scoring_progress = scoring_progress or Progress(1, Rank.TWO)
        if dealer is None and self.dealer_progress.level is None:
            raise IllegalActionError(say("hand.flag_dealer"))
        self.flag_failures = flag_failures
        self.flag = self.dealer_progress.level is None
        self.first_hand = dealer is None  # the standing bid makes the dealer (RULES §9.4)
        self.level: Rank | None = self.dealer_progress.level
        self.hands: list[list[Card]] = [[], [], [], []]
        self.dealt = 0
        self.deal_size = 108 if self.flag else 108 - KITTY_SIZE
        self.kitty: list[Card] = []
        self.kitty_holder: int | None = None
        self.phase = Phase.DEAL
        self.log: list[Action | Event] = []
        self.bidding: Bidding | None = None if self.flag else Bidding(rules, self.level or Rank.TWO)
        self.last_bidder: int | None = None  # the last player to declare or fry, as the table sees it
        self.kitty_trump_used = False
        self.trump: Suit | None = None
        self.trump_order: TrumpOrder = TrumpOrder.of(rules, self.level, None)
        self.red5_player: int | None = None  # who made the last 5h 5h bid or fry, or showed 5h 5h
        self._bid_positions: list[int] = []  # where the bid and fry events are in the log (bid_log reads them)
        # frying
        self.fry_next: int | None = None
        self.fry_passed: set[int] = set()
        self.fries = 0
        # play
        self.leader: int | None = None
        self.current: list[tuple[int, tuple[Card, ...]]] = []
        self.lead_format: Format | None = None
        self.trick: TrickState | None = None  # who is winning the trick in progress (RULES §7), play by play
        self.tricks: list[TrickRecord] = []
        self.captured = [0, 0]  # points captured by the dealer side, by the scoring side
        self.adjustments: list[tuple[str, int]] = []
        self.result: HandResult | None = None
        self.escapes: list[Escape] = []  # seats that left, in order (RULES §13)
        self.penalties: list[Penalty] = []  # the referee's penalties given in this hand, in order (RULES §14.4)
        self.lost_by: int | None = None  # the team that lost the game by a penalty during this hand (it ended here)
        self.played_out: list[Card] = []  # cards played before a position (position.py) whose tricks are not known
        self.trump_revealed = not self.dark
        self.bid_cards_revealed = not self.dark
        if self.flag:
            self.trump_order = TrumpOrder.of(rules, None, None)
        # Work kept between calls (issue 13), each piece valid while the log has the length it was made at:
        # every change of the hand is logged, so a longer log means a new decision. (The views' own: SeatViews.)
        SeatViews.__init__(self)
        self._rule: tuple[int, int, list[Card], FollowRule] | None = None  # (log length, player, hand, rule)
        self._bids: list[tuple[tuple[Phase, int, int], list[Card], list[BidOption]] | None] = [None, None, None, None]
        self._bid_cards = [0, 0, 0, 0]  # level cards, jokers and 5h dealt to each seat: all a bid is made of
        self._decisions = (0, 0)  # (log length, the decisions the log had started by then): pending's number

    # -- helpers -----------------------------------------------------------------------
    def side_of(self, seat: object) -> Side:
        """The side of ``seat`` in this hand (the dealer must be known)."""
        seat = checked_seat(seat)
        assert self.dealer is not None
        return seat_side(seat, self.dealer)

    def _record(self, item: Action | Event) -> None:
        self.log.append(item)

    def _adjust(self, seat: int, points: int, why: str) -> int:
        """``points`` against ``seat``'s side in p, a public adjustment (RULES §5.2, §10.5, §11.7, §14.4): a
        dealer-side offender gives them to the scoring side (p += points), a scoring-side one loses them
        (p −= points). Returns the change to p."""
        delta = points if self.side_of(seat) is Side.DEALER else -points
        self.adjustments.append((why, delta))
        return delta

    @property
    def actions(self) -> list[Action]:
        """The players' actions so far, in order (what a record stores), read from the log."""
        return [item for item in self.log if isinstance(item, Action)]

    @property
    def threshold(self) -> int:
        """The points at which the scoring side takes the table: 80, or ``flag_threshold`` in a flag hand.

        The same threshold :func:`~chaodipi.settlement.settle` reads the level table at (RULES §11.2, §11.6).
        """
        return hand_threshold(self.rules, flag=self.flag)

    def to_act(self) -> int | None:
        """Whose action the hand waits for (None while dealing, in the countdown or when over)."""
        if self.phase == Phase.BURY:
            return self.kitty_holder
        if self.phase == Phase.FRY:
            return self.fry_next
        if self.phase == Phase.PLAY:
            assert self.leader is not None
            return (self.leader + len(self.current)) % 4
        return None

    def pending(self) -> Pending | None:
        """The decision the hand waits for now, or None while dealing, once over and at a redeal.

        The engine's answer to "who must decide, what, and within what time by the rules": in the
        countdown anyone may still bid and nobody is waited for (``seat`` None, RULES §9.3); in the
        other phases :meth:`to_act` decides. A new decision starts with every action but a leave
        (逃跑, RULES §13) or a show of 5h 5h (RULES §11.5), which end none: ``number`` counts them,
        so that a server's clock can tell a new decision from the one it is timing.

        >>> import random
        >>> from chaodipi.cards import shuffled_deck
        >>> hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
        >>> hand.pending() is None  # dealing: a chance step, nobody's decision
        True
        >>> hand.deal_all()
        >>> hand.pending()
        Pending(kind=<DecisionKind.DECLARE: 'declare'>, seat=None, seconds=5, number=0, offered=(0, 1, 2))
        >>> _ = hand.close_bidding()
        >>> hand.pending().kind, hand.pending().seat, hand.pending().seconds, hand.pending().number
        (<DecisionKind.BURY: 'bury'>, 0, 60, 1)
        """
        phase = self.phase
        if phase is Phase.COUNTDOWN:
            kind, seat = DecisionKind.DECLARE, None
        elif phase is Phase.BURY or phase is Phase.FRY or phase is Phase.PLAY:
            kind = _DECISION_OF[phase]
            seat = self.to_act()
        else:
            return None
        counted, number = self._decisions  # (the log only grows: only the entries since the last call are counted)
        if counted < len(self.log):
            number += sum(1 for a in self.log[counted:] if isinstance(a, Action) and a.kind not in _NO_DECISION)
            self._decisions = (len(self.log), number)
        if kind is DecisionKind.DECLARE:
            offered = tuple(s for s in range(4) if self.possible_bids(s))
        elif self.flag and phase is Phase.PLAY:
            offered = tuple(s for s in range(4) if s != seat and self.can_show_red5(s))
        else:
            offered = ()
        return Pending(kind, seat, getattr(self.rules, f"{kind.value}_seconds"), number, offered)

    @staticmethod
    def _holds(hand: Sequence[Card], cards: Sequence[Card]) -> list[Card] | None:
        rest = list(hand)
        for c in cards:
            if c not in rest:
                return None
            rest.remove(c)
        return rest

    # -- the deal (a chance step) -------------------------------------------------------
    def verify_deal_card(self) -> None:
        """Raise unless a card is left to deal (the deal is a chance step, RULES §9.1)."""
        if self.phase != Phase.DEAL:
            raise IllegalActionError(say("deal.phase", phase=self.phase.value))

    def can_deal_card(self) -> bool:
        """Whether a card is left to deal (:meth:`verify_deal_card` says why not)."""
        return _passes(self.verify_deal_card)

    def restart(self) -> Hand:
        """A new hand with this one's start (rules, deal, first seat, dealer, levels), before any card.

        Applying this hand's ``actions`` to it, in order, replays this hand (:meth:`apply` deals the
        cards a bid was made after); a prefix of them gives the hand as it stood then (the server
        shows spectators a hand some tricks behind this way).
        """
        return Hand(
            self.rules,
            self.deck,
            first_seat=self.first_seat,
            dealer=None if self.first_hand else self.dealer,
            dealer_progress=self.dealer_progress,
            scoring_progress=self.scoring_progress,
            flag_failures=self.flag_failures,
        )

    def deal_card(self) -> Event:
        """Deal the next card to the next seat in play order (RULES §9.1)."""
        self.verify_deal_card()
        seat = (self.first_seat + self.dealt) % 4
        card = self.deck[self.dealt]
        held = self.hands[seat]
        held.append(card)
        kept = self._held[seat]
        if kept is not None and kept[0] is held and kept[1] == len(held) - 1:  # (the seat's masks, one card more)
            self._held[seat] = (held, len(held), add(*kept[2], 1 << card.index, 0))
        if card.rank == self.level or card.suit is None or card is FIVE_HEARTS:
            self._bid_cards[seat] += 1
        self.dealt += 1
        ev = Event(EventKind.DEALT, seat, (card,))
        self._record(ev)
        if self.dealt == self.deal_size:
            self.kitty = list(self.deck[self.deal_size :])
            if self.flag:
                self._start_play()
            else:
                self.phase = Phase.COUNTDOWN
        return ev

    def deal_all(self) -> None:
        """Deal every remaining card."""
        while self.phase == Phase.DEAL:
            self.deal_card()

    # -- bids (RULES §9) ----------------------------------------------------------------
    def _make_bid(self, player: int, cards: Sequence[Card], choose: str | None) -> Bid:
        return Bid(player, tuple(cards), None if choose is None else parse_choice(choose))  # (BidError: illegal)

    def verify_bid(self, player: object, cards: Sequence[Card], choose: str | None = None) -> int:
        """Raise unless ``player`` may show ``cards`` as a bid now."""
        player = checked_seat(player)
        self._verify_bid(player, cards, choose, None)
        return player

    def _verify_bid(
        self, player: int, cards: Sequence[Card], choose: str | None, held: Sequence[Card] | None, *, own: bool = False
    ) -> None:
        """:meth:`verify_bid`, with ``held`` the cards the player would hold when bidding (None: now); ``own``: the
        cards are known to be held (the hand's own candidates)."""
        if self.bidding is None:
            raise IllegalActionError(say("bid.flag"))
        if self.phase not in (Phase.DEAL, Phase.COUNTDOWN):
            raise IllegalActionError(say("bid.phase", phase=self.phase.value))
        if not own and not (self._holds_masks(player, cards) if held is None else self._holds(held, cards) is not None):
            raise IllegalActionError(say("not_held", player=player, cards=tuple(cards)))
        bid = self._make_bid(player, cards, choose)
        if self.dark:
            # RULES §9.3: a dark bid that does not outrank is void, not refused; it must still be a bid.
            shape = classify_bid(bid.cards, self.bidding.level, bid.choose)
            if shape.kind == BidKind.SINGLE and self.bidding.standing is not None:
                raise IllegalActionError(say("bid.single_late"))
            self._check_own_dark_bids(player, bid)
            return
        reason = self.bidding.check(bid)
        if reason is not None:
            raise IllegalActionError(reason)

    def _check_own_dark_bids(self, player: int, bid: Bid) -> None:
        """In the dark a player still knows their own bids: one that cannot beat them is refused.

        With ``bid_order=unordered`` the last bid or fry the table saw always stands, so its maker
        may not bid or fry again (不得自反, RULES §10.5), except to reinforce a single (自保, §9.3).
        """
        assert self.bidding is not None
        order = self.rules.bid_order
        level = self.bidding.level
        if order.unordered and self.last_bidder == player:
            last = self.bid_log[-1][1] if self.bid_log else None
            reinforce = last is not None and len(last.cards) == 1 and bid.cards == (last.cards[0], last.cards[0])
            if not reinforce:
                raise IllegalActionError(say("bid.own_last", player=player))
        for p, old, _, _ in self.bid_log:
            if p != player:
                continue
            if order.unordered:
                if old.cards == bid.cards and old.choose == bid.choose:
                    raise IllegalActionError(say("bid.own_repeat", player=player, cards=bid.cards))
                continue
            old_token = classify_bid(old.cards, level, old.choose).token
            new_token = classify_bid(bid.cards, level, bid.choose).token
            reinforce = len(old.cards) == 1 and bid.cards == (old.cards[0], old.cards[0])
            if order.rank(new_token) <= order.rank(old_token) and not reinforce:
                raise IllegalActionError(say("bid.own_weaker", player=player, cards=bid.cards))

    def can_bid(self, player: object, cards: Sequence[Card], choose: str | None = None) -> bool:
        """Whether ``player`` may show ``cards`` as a bid now (:meth:`verify_bid` says why not)."""
        return _passes(self.verify_bid, player, cards, choose)

    def bid(self, player: object, cards: Sequence[Card], choose: str | None = None) -> Event:
        """Declare (亮主) or override (反主) with cards from the hand (RULES §9.2–9.3)."""
        seat = self.verify_bid(player, cards, choose)
        return self._bid(seat, cards, choose)

    def _bid(self, player: int, cards: Sequence[Card], choose: str | None) -> Event:
        assert self.bidding is not None
        bid = self._make_bid(player, cards, choose)
        self._record(Action.bid(player, cards, choose, at=self.dealt))
        valid = self.bidding.offer(bid)
        self.last_bidder = player
        if valid and len(cards) == 2 and cards[0] is FIVE_HEARTS:
            self.red5_player = player
        # RULES §10.5: a dark bid's validity is told to nobody, its maker included, before frying ends
        ev = Event(EventKind.BID, player, tuple(cards), detail=choose or "", valid=valid, data=_named(choose))
        self._bid_positions.append(len(self.log))
        self._record(ev)
        return ev

    def possible_bids(self, player: object) -> list[BidOption]:
        """The bids ``player`` could make now (each 5h 5h once per choice).

        Worked out again only when they may have changed: a bid was made, the deal ended, or the
        player was dealt a card a bid is made of (a level card, a joker, 5h).
        """
        player = checked_seat(player)
        held = self.hands[player]
        key = (self.phase, len(self._bid_positions), self._bid_cards[player])
        kept = self._bids[player]
        if kept is not None and kept[0] == key and kept[1] is held:
            return list(kept[2])
        out = self._possible_bids_now(player)
        self._bids[player] = (key, held, out)
        return list(out)

    def _possible_bids_now(self, player: int) -> list[BidOption]:
        if self.phase not in (Phase.DEAL, Phase.COUNTDOWN) or self.bidding is None:
            return []
        out: list[BidOption] = []
        for cards, choose in self._candidate_bids(player):
            try:
                self._verify_bid(player, cards, choose, None, own=True)
            except IllegalActionError:
                continue
            out.append(BidOption(cards, choose))
        return out

    def _candidate_bids(self, player: int) -> list[tuple[tuple[Card, ...], str | None]]:
        """The bids the cards held make (level cards, jokers, 5h: each card's single and pair), by card index."""
        level = self.bidding.level if self.bidding else Rank.TWO
        out: list[tuple[tuple[Card, ...], str | None]] = []
        ones, twos = self.held_masks(player)
        for c in cards_of(ones & _bid_card_mask(level)):
            n = 2 if twos >> c.index & 1 else 1
            if c is FIVE_HEARTS:
                if n == 2:
                    out.extend(((c, c), ch) for ch in ("s", "h", "c", "d", "nt"))
                if level == Rank.FIVE:
                    out.append(((c,), None))
                continue
            if c.suit is None:
                if n == 2:
                    out.append(((c, c), None))
                continue
            if c.rank == level:
                out.append(((c,), None))
                if n == 2:
                    out.append(((c, c), None))
        return out

    def verify_close_bidding(self) -> None:
        """Raise unless the declaring countdown is running (after the last card, RULES §9.1)."""
        if self.phase != Phase.COUNTDOWN:
            raise IllegalActionError(say("close.phase", phase=self.phase.value))

    def can_close_bidding(self) -> bool:
        """Whether the countdown may end now (:meth:`verify_close_bidding` says why not)."""
        return _passes(self.verify_close_bidding)

    def close_bidding(self) -> Event:
        """The countdown ends: decide the dealer, or redeal, or take trump from the kitty (RULES §9.4–9.5)."""
        self.verify_close_bidding()
        return self._close_bidding()

    def _close_bidding(self) -> Event:
        assert self.bidding is not None
        self._record(Action.close())
        standing = self.bidding.standing
        if standing is None:
            if self.dealer is None:
                self.phase = Phase.REDEAL
                ev = Event(EventKind.REDEAL, detail="nobody bid in the first hand: the cards are dealt again (流庄)")
                self._record(ev)
                return ev
            trump, turned = kitty_trump_turned(self.rules, self.level or Rank.TWO, self.kitty)
            self._set_trump(trump)
            self.kitty_trump_used = True
            # RULES §9.5: the table sees the kitty turned up to the card that decides; the rest stay hidden
            self._record(
                Event(
                    EventKind.KITTY_TRUMP,
                    cards=tuple(self.kitty[:turned]),
                    detail=f"trump {trump_text(self.trump)} from the kitty",
                    data=TrumpSet(trump_text(self.trump)),
                )
            )
        else:
            if self.dealer is None:
                self.dealer = standing.player  # 正主正庄 (RULES §9.4)
            self._set_trump(standing.trump)
        ev = Event(EventKind.CLOSED, self.dealer, detail=f"dealer {self.dealer}")
        self._record(ev)
        self._give_kitty(self.dealer)
        return ev

    def _set_trump(self, trump: Suit | None) -> None:
        """The trump is settled, by the standing bid or the kitty (RULES §9.4, §9.5, §10.5): the card order follows."""
        self.trump = trump
        self.trump_order = TrumpOrder.of(self.rules, self.level, trump)

    # -- kitty and burial (RULES §10.1) ------------------------------------------------
    def _give_kitty(self, seat: int | None) -> None:
        assert seat is not None
        self.hands[seat].extend(self.kitty)
        taken = tuple(self.kitty)
        self.kitty = []
        self.kitty_holder = seat
        self.phase = Phase.BURY
        self._record(Event(EventKind.KITTY_TAKEN, seat, taken))

    def verify_bury(self, player: object, cards: Sequence[Card]) -> int:
        """Raise unless ``player`` holds the kitty now and ``cards`` are 8 of their cards (RULES §10.1)."""
        player = checked_seat(player)
        if self.phase != Phase.BURY:
            raise IllegalActionError(say("bury.phase", phase=self.phase.value))
        if player != self.kitty_holder:
            raise IllegalActionError(say("bury.holder", holder=self.kitty_holder, player=player))
        if len(cards) != KITTY_SIZE:
            raise IllegalActionError(say("bury.count", need=KITTY_SIZE, n=len(cards)))
        if self._holds(self.hands[player], cards) is None:
            raise IllegalActionError(say("not_held", player=player, cards=tuple(cards)))
        return player

    def can_bury(self, player: object, cards: Sequence[Card]) -> bool:
        """Whether ``player`` may bury ``cards`` now (:meth:`verify_bury` says why not)."""
        return _passes(self.verify_bury, player, cards)

    def bury(self, player: object, cards: Sequence[Card]) -> Event:
        """Bury 8 cards as the kitty (扣底)."""
        seat = self.verify_bury(player, cards)
        return self._bury(seat, cards)

    def _bury(self, player: int, cards: Sequence[Card]) -> Event:
        self._record(Action.bury(player, cards))
        rest = self._holds(self.hands[player], cards)
        assert rest is not None
        self.hands[player] = rest
        self.kitty = list(cards)
        ev = Event(EventKind.BURIED, player, tuple(cards))
        self._record(ev)
        if self.kitty_trump_used:
            self._start_play()  # trump from the kitty: nobody may fry (RULES §9.5)
        elif self.rules.fry:
            self.phase = Phase.FRY
            self._next_fry_question(after_fry=self.fries > 0)
            if self.fry_next is None:
                self._end_frying()
        else:
            self._end_frying()
        return ev

    # -- frying (RULES §10) --------------------------------------------------------------
    def standing_holder(self) -> int | None:
        """Whom the table knows to hold the standing bid (RULES §10.3).

        In open games the holder. In dark games: in the first hand, before any fry, the dealer
        (the standing bid made them dealer, §9.4); otherwise the last player who bid or fried as
        the table saw it, since nobody can know whether that bid was void.
        """
        if not self.dark:
            standing = self.standing
            return None if standing is None else standing.player
        if self.first_hand and self.fries == 0:
            return self.dealer
        return self.last_bidder

    def _next_fry_question(self, *, after_fry: bool) -> None:
        """Who is asked next, or None when every player but the holder has passed since the last fry.

        With ``fry_turns=dealer_first`` the dealer is not asked before the first fry (seed 002:
        庄家在第一次有主对也不能炒，要有人炒了才能炒回来), and is asked first after each fry.
        """
        assert self.dealer is not None
        holder = self.standing_holder()
        skip_dealer = self.rules.fry_turns == FryTurns.DEALER_FIRST and self.fries == 0
        if self.fry_next is None or after_fry:
            if self.rules.fry_turns == FryTurns.DEALER_FIRST and after_fry:
                start = self.dealer
            elif self.rules.fry_turns == FryTurns.ROTATE and after_fry:
                start = ((self.last_bidder if self.last_bidder is not None else self.dealer) + 1) % 4
            else:
                start = (self.dealer + 1) % 4
        else:
            start = (self.fry_next + 1) % 4
        for k in range(4):
            seat = (start + k) % 4
            if seat != holder and seat not in self.fry_passed and not (skip_dealer and seat == self.dealer):
                self.fry_next = seat
                return
        self.fry_next = None

    def verify_fry(self, player: object, cards: Sequence[Card], choose: str | None = None) -> int:
        """Raise unless ``player`` is asked to fry and may fry with ``cards`` (RULES §10.2, §10.5)."""
        player = checked_seat(player)
        if self.phase != Phase.FRY:
            raise IllegalActionError(say("fry.phase", phase=self.phase.value))
        if player != self.fry_next:
            raise IllegalActionError(say("fry.turn", turn=self.fry_next, player=player))
        if self._holds(self.hands[player], cards) is None:
            raise IllegalActionError(say("not_held", player=player, cards=tuple(cards)))
        assert self.bidding is not None
        bid = self._make_bid(player, cards, choose)
        if self.dark:
            shape = classify_bid(bid.cards, self.bidding.level, bid.choose)
            if shape.kind == BidKind.SINGLE:
                raise IllegalActionError(say("fry.single"))
            self._check_own_dark_bids(player, bid)
            return player
        reason = self.bidding.check_override(bid)
        if reason is not None:
            raise IllegalActionError(reason)
        return player

    def can_fry(self, player: object, cards: Sequence[Card], choose: str | None = None) -> bool:
        """Whether ``player`` may fry with ``cards`` now (:meth:`verify_fry` says why not)."""
        return _passes(self.verify_fry, player, cards, choose)

    def possible_fries(self, player: object) -> list[BidOption]:
        """The fries ``player`` could make now (each 5h 5h once per choice)."""
        player = checked_seat(player)
        if self.phase != Phase.FRY or player != self.fry_next:
            return []
        return [BidOption(*b) for b in self._candidate_bids(player) if len(b[0]) == 2 and self.can_fry(player, *b)]

    def fry(self, player: object, cards: Sequence[Card], choose: str | None = None) -> Event:
        """Fry 炒底: override the standing bid, take the kitty and bury again (RULES §10.2)."""
        seat = self.verify_fry(player, cards, choose)
        return self._fry(seat, cards, choose)

    def _fry(self, player: int, cards: Sequence[Card], choose: str | None) -> Event:
        assert self.bidding is not None
        bid = self._make_bid(player, cards, choose)
        self._record(Action.fry(player, cards, choose))
        valid = self.bidding.offer(bid, fry=True, dark=self.dark)
        self.fries += 1
        self.last_bidder = player
        self.fry_passed = set()
        if valid and cards[0] is FIVE_HEARTS and len(cards) == 2:
            self.red5_player = player
        ev = Event(EventKind.FRIED, player, tuple(cards), detail=choose or "", valid=valid, data=_named(choose))
        self._bid_positions.append(len(self.log))
        self._record(ev)
        self._give_kitty(player)
        return ev

    def verify_pass_fry(self, player: object) -> int:
        """Raise unless ``player`` is the one asked to fry now."""
        player = checked_seat(player)
        if self.phase != Phase.FRY:
            raise IllegalActionError(say("fry.phase", phase=self.phase.value))
        if player != self.fry_next:
            raise IllegalActionError(say("fry.turn", turn=self.fry_next, player=player))
        return player

    def can_pass_fry(self, player: object) -> bool:
        """Whether ``player`` may decline to fry now (:meth:`verify_pass_fry` says why not)."""
        return _passes(self.verify_pass_fry, player)

    def pass_fry(self, player: object) -> Event:
        """Decline to fry."""
        seat = self.verify_pass_fry(player)
        return self._pass_fry(seat)

    def _pass_fry(self, player: int) -> Event:
        self._record(Action.pass_fry(player))
        self.fry_passed.add(player)
        ev = Event(EventKind.PASSED, player)
        self._record(ev)
        self._next_fry_question(after_fry=False)
        if self.fry_next is None:
            self._end_frying()
        return ev

    def _end_frying(self) -> None:
        """Frying is over: reveal dark bids, count failed fries, set trump (RULES §10.5)."""
        assert self.bidding is not None and self.dealer is not None
        standing = self.bidding.standing
        assert standing is not None
        self._set_trump(standing.trump)
        if self.dark:
            unordered = self.rules.bid_order.unordered
            for player, bid, valid, is_fry in self.bid_log:
                if is_fry and not valid and not unordered:
                    pen = self.rules.dark_fry_penalty or 0
                    delta = self._adjust(player, pen, f"failed dark fry by player {player}")
                    self._record(Event(EventKind.FRY_FAILED, player, bid.cards, delta, "炒底失败"))
            self.trump_revealed = True
            # institute2023: the last fry's cards are shown after the first trick (RULES §10.5)
            self.bid_cards_revealed = not unordered
            shown = tuple(ShownBid(p, f, b.cards, v) for p, b, v, f in self.bid_log) if self.bid_cards_revealed else ()
            history = "; ".join(
                f"{'fry' if f else 'bid'} {p}: {format_cards(b.cards)}{'' if v else ' (void)'}"
                for p, b, v, f in self.bid_log
            )
            self._record(
                Event(
                    EventKind.FRYING_OVER,
                    standing.player,
                    standing.cards if self.bid_cards_revealed else (),
                    detail=f"trump {trump_text(self.trump)}" + (f"; {history}" if self.bid_cards_revealed else ""),
                    data=TrumpSet(trump_text(self.trump), shown),
                )
            )
        else:
            trump = trump_text(self.trump)
            self._record(Event(EventKind.FRYING_OVER, standing.player, detail=f"trump {trump}", data=TrumpSet(trump)))
        self._start_play()

    # -- play (RULES §5–§7) -----------------------------------------------------------------
    def _start_play(self) -> None:
        if self.dealer is None:  # pragma: no cover - a flag hand always has a dealer
            raise IllegalActionError("play needs a dealer")
        self.phase = Phase.PLAY
        self.leader = self.dealer
        self.current = []
        self.lead_format = None
        self.trick = None

    def follow_rule(self, player: object) -> FollowRule | None:
        """The follow rule for ``player`` now (None when they lead).

        One rule per decision: the policy that chooses the follow, the check of the follow and the
        play itself share it (a rule only reads the hand it was made from).
        """
        return self._follow_rule(checked_seat(player))

    def _follow_rule(self, player: int) -> FollowRule | None:
        if not self.current:
            return None
        held = self.hands[player]
        kept = self._rule
        if kept is not None and kept[0] == len(self.log) and kept[1] == player and kept[2] is held:
            return kept[3]
        rule = self._follow_rule_now(player)
        self._rule = (len(self.log), player, held, rule)
        return rule

    def _follow_rule_now(self, player: int) -> FollowRule:
        assert self.lead_format is not None
        return FollowRule(self.lead_format, self.hands[player], self.trump_order, self.held_masks(player))

    def verify_play(self, player: object, cards: Sequence[Card]) -> int:
        """Raise unless ``player`` may play ``cards`` now. A throw that will fail is allowed (RULES §5.2)."""
        return self._verify_play(checked_seat(player), cards)

    def _verify_play(self, player: int, cards: Sequence[Card]) -> int:
        if self.phase != Phase.PLAY:
            raise IllegalActionError(say("play.phase", phase=self.phase.value))
        turn = self.to_act()
        if player != turn:
            raise IllegalActionError(say("play.turn", turn=turn, player=player))
        if not cards:
            raise IllegalActionError(say("play.empty"))
        if not self._holds_masks(player, cards):
            raise IllegalActionError(say("not_held", player=player, cards=tuple(cards)))
        if not self.current:
            self._verify_lead(player, cards, None)
            return player
        rule = self._follow_rule(player)
        assert rule is not None
        reason = rule.check(cards)
        if reason is not None:
            raise IllegalActionError(reason)
        return player

    def _holds_masks(self, player: int, cards: Sequence[Card]) -> bool:
        """Whether ``player`` holds ``cards`` (copies counted), read from the seat's masks."""
        return not missing(*self.held_masks(player), cards)

    def _verify_lead(self, player: int, cards: Sequence[Card], held: Sequence[Card] | None) -> None:
        """Raise unless ``cards`` make a lead (``held``: the cards to hold them in; None: checked already)."""
        if not cards:
            raise IllegalActionError(say("play.empty"))
        if held is not None and self._holds(held, cards) is None:
            raise IllegalActionError(say("not_held", player=player, cards=tuple(cards)))
        try:
            decompose(cards, self.trump_order, lead=True)
        except PlayError as exc:
            raise IllegalActionError(exc.phrase or f"not a lead: {exc}") from None

    def can_play(self, player: object, cards: Sequence[Card]) -> bool:
        """Whether ``player`` may play ``cards`` now (:meth:`verify_play` says why not)."""
        return _passes(self.verify_play, player, cards)

    def play(self, player: object, cards: Sequence[Card]) -> Event:
        """Lead, throw or follow. A failed throw is shown, its penalty counted and the forced play made."""
        seat = self.verify_play(player, cards)
        return self._play(seat, cards)

    def play_trusted(self, player: object, cards: Sequence[Card]) -> Event:
        """:meth:`play` without the check, for plays the engine itself generated as legal.

        The bots' playouts (:func:`chaodipi.bots.rules_bot.play_out`) advance positions
        (:meth:`chaodipi.position.Position.hand`) this way; their plays come from the engine's own
        generators (the follow rule's suit parts, :func:`~chaodipi.leads.unit_leads`). With
        :class:`TrustedChecks` on, as in the tests, each play is checked anyway and an illegal one
        raises :class:`TrustedPlayError`.
        """
        player = checked_seat(player)
        if TrustedChecks.on:
            try:
                self.verify_play(player, cards)
            except IllegalActionError as exc:
                what = f"player {player} {format_cards(cards)}"
                raise TrustedPlayError(f"a trusted play is illegal: {what}: {exc}") from None
        return self._play(player, cards)

    def _play(self, player: int, cards: Sequence[Card], action: Action | None = None) -> Event:
        """Make the play (checked already); ``action``: the play's record when the caller has it."""
        assert self.dealer is not None
        cards = tuple(cards)
        rule = self._follow_rule(player) if self.current and self.rules.red5_bonus and FIVE_HEARTS in cards else None
        self.log.append(action if action is not None else Action.made(ActionKind.PLAY, player, cards))
        if not self.current:
            others = [self.hands[(player + k) % 4] for k in (1, 2, 3)]
            res = check_throw(cards, others, self.trump_order)
            if not res.ok:
                pen = self.rules.throw_penalty_per_card * res.penalty_cards
                delta = self._adjust(player, pen, f"failed throw by player {player}")
                self._record(
                    Event(
                        EventKind.THROW_FAILED,
                        player,
                        cards,
                        delta,
                        f"甩牌失败: must lead {format_cards(res.forced)}",
                        data=ThrowFailed(tuple(res.forced)),
                    )
                )
                cards = res.forced
                self.lead_format = decompose(cards, self.trump_order, lead=True)
            else:
                self.lead_format = res.lead
        elif rule is not None:
            forced = min(rule.min_count(FIVE_HEARTS), cards.count(FIVE_HEARTS))
            if forced:
                delta = self._adjust(player, RED5_PENALTY * forced, f"逼红5: player {player} had to play 5h")
                self._record(Event(EventKind.FORCED_RED5, player, (FIVE_HEARTS,) * forced, delta, "逼红5"))
        rest = self._holds(self.hands[player], cards)
        assert rest is not None
        self._set_held(player, rest, without(*self.held_masks(player), *masks_of(cards)))
        self.current.append((player, cards))
        if self.trick is None:
            assert self.lead_format is not None
            self.trick = TrickState(self.lead_format, self.trump_order)
        else:
            self.trick.add(cards)
        ev = Event(EventKind.PLAYED, player, cards)
        self.log.append(ev)
        if len(self.current) == 4:
            self._finish_trick()
        return ev

    def _finish_trick(self) -> None:
        assert self.trick is not None and self.leader is not None
        winner = self.current[self.trick.winner][0]  # the trick as judged play by play (RULES §7)
        points = sum([c.points for _, play in self.current for c in play])
        side = self.side_of(winner)
        self.captured[0 if side is Side.DEALER else 1] += points
        rec = TrickRecord(self.leader, tuple(self.current), winner, points)
        self.tricks.append(rec)
        scored = points if side is Side.SCORING else 0
        self._record(Event(EventKind.TRICK, winner, (), scored, f"{points} points", data=TrickWon(points)))
        if not self.bid_cards_revealed and len(self.tricks) == 1:
            self.bid_cards_revealed = True
            st = self.standing
            if st is not None:
                self._record(
                    Event(EventKind.BID_SHOWN, st.player, st.cards, detail="the last fry's cards (RULES §10.5)")
                )
        self.leader = winner
        self.current = []
        self.trick = None
        if not self.hands[winner]:
            self._finish_hand()
        else:
            self.lead_format = None

    def _finish_hand(self) -> None:
        """The last trick is over: 抠底 or the kitty shown, 保红5, then the result (outcome.py)."""
        assert self.dealer is not None
        result = hand_result(
            self.rules,
            dealer=self.dealer,
            trump_order=self.trump_order,
            dealer_progress=self.dealer_progress,
            scoring_progress=self.scoring_progress,
            flag_failures=self.flag_failures,
            tricks=self.tricks,
            kitty=self.kitty,
            captured=(self.captured[0], self.captured[1]),
            adjustments=self.adjustments,
            red5_player=self.red5_player,
            escapes=self.escapes,
        )
        last = self.tricks[-1]
        if self.kitty and self.side_of(last.winner) is Side.SCORING:
            kou = Event(EventKind.KOU_DI, last.winner, tuple(self.kitty), result.kou_di, f"抠底 ×{result.multiplier}")
            self._record(replace(kou, data=KouDi(result.multiplier)))
        elif self.kitty:
            self._record(Event(EventKind.KITTY_SHOWN, None, tuple(self.kitty), detail="the dealer side kept the kitty"))
        for _, bonus in result.adjustments[len(self.adjustments) :]:  # 保红5 (RULES §11.7)
            leader, lead_cards = last.plays[0]
            self._record(Event(EventKind.KEPT_RED5, leader, lead_cards, bonus, "保红5"))
        self.adjustments = list(result.adjustments)
        self.result = result
        self.phase = Phase.OVER
        notes = result.notes()
        p = result.points
        self._record(
            Event(EventKind.SETTLED, None, (), 0, "; ".join(map(str, notes)) or f"p = {p}", data=Settled(notes))
        )

    # -- flag hand: showing 5h 5h (RULES §11.5) ----------------------------------------------
    def verify_show_red5(self, player: object) -> int:
        """Raise unless ``player`` may show 5h 5h against the flag hand now (RULES §11.5).

        Each scoring-side player holding both is offered it from the end of the deal until the
        first card is played, whoever's turn it is.
        """
        player = checked_seat(player)
        self._verify_show_red5(player, None)
        return player

    def _verify_show_red5(self, player: int, held: Sequence[Card] | None) -> None:
        if not (self.flag and self.rules.double_red5):
            raise IllegalActionError(say("red5.option"))
        if (held is None and self.phase != Phase.PLAY) or self.tricks or self.current:
            raise IllegalActionError(say("red5.when"))
        if self.side_of(player) is not Side.SCORING:
            raise IllegalActionError(say("red5.side"))
        if (self.hands[player] if held is None else held).count(FIVE_HEARTS) < 2:
            raise IllegalActionError(say("not_held", player=player, cards=(FIVE_HEARTS, FIVE_HEARTS)))
        if self.red5_player is not None:
            raise IllegalActionError(say("red5.again"))

    def can_show_red5(self, player: object) -> bool:
        """Whether ``player`` may show 5h 5h now (:meth:`verify_show_red5` says why not)."""
        return _passes(self.verify_show_red5, player)

    def show_red5(self, player: object) -> Event:
        """Show 5h 5h against the flag hand (RULES §11.5: the flag side fails → it goes back to A)."""
        seat = self.verify_show_red5(player)
        return self._show_red5(seat)

    def _show_red5(self, player: int) -> Event:
        self._record(Action.show_red5(player))
        self.red5_player = player
        ev = Event(EventKind.RED5_SHOWN, player, (FIVE_HEARTS, FIVE_HEARTS))
        self._record(ev)
        return ev

    # -- leaving a game in progress 逃跑 (RULES §13) ------------------------------------------
    def verify_leave(self, player: object) -> int:
        """Raise unless ``player`` may leave the game now: once a hand, in any phase until it is over."""
        player = checked_seat(player)
        if self.phase in (Phase.OVER, Phase.REDEAL):
            state = "over" if self.phase == Phase.OVER else "redealt"
            raise IllegalActionError(say("leave.over", state=state))
        if player in self.left:
            raise IllegalActionError(say("leave.again", player=player))
        return player

    def can_leave(self, player: object) -> bool:
        """Whether ``player`` may leave now (:meth:`verify_leave` says why not)."""
        return _passes(self.verify_leave, player)

    def leave(self, player: object) -> Event:
        """Leave the game in progress (逃跑, RULES §13).

        Nothing else changes: the seat keeps its cards and its turn, and a bot plays on for it.
        The hand notes whether a card had been played and whether the scoring side's points so far
        reach the threshold (:class:`Escape`); the penalty is worked out at the settlement.

        >>> import random
        >>> from chaodipi.cards import shuffled_deck
        >>> hand = Hand(RuleSet.preset("anchao"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
        >>> hand.leave(2).detail
        '逃跑: player 2 left; no penalty before the first card'
        >>> hand.dealt, hand.left, hand.can_leave(2)
        (0, (2,), False)
        """
        seat = self.verify_leave(player)
        return self._leave(seat)

    def _leave(self, player: int) -> Event:
        self._record(Action.leave(player))
        card_played = bool(self.tricks or self.current or self.played_out)  # (played_out: a position's earlier tricks)
        points = self.points_so_far
        reached = points >= self.threshold
        self.escapes.append(Escape(player, card_played, points, reached))
        side = None if self.dealer is None else self.side_of(player)
        words = penalty_words(self.rules, side, card_played=card_played, reached=reached)
        ev = Event(EventKind.LEFT, player, detail=f"逃跑: player {player} left; {words}", data=Left(words))
        self._record(ev)
        return ev

    # -- a referee's penalty 罚 (RULES §14.4) -------------------------------------------------------
    def verify_penalize(self, penalty: object) -> Penalty:
        """Raise unless a referee may give ``penalty`` now: in any phase until the hand is over; points only once
        the sides are known (after bidding in a game's first hand). Returns the penalty checked."""
        if not isinstance(penalty, Penalty):
            raise IllegalActionError(f"a penalty (team, offence, points, levels …), not {penalty!r}")
        if self.phase in (Phase.OVER, Phase.REDEAL):
            raise IllegalActionError(say("penalty.over", state="over" if self.phase == Phase.OVER else "redealt"))
        if penalty.points and self.dealer is None:
            raise IllegalActionError(say("penalty.no_dealer"))
        return penalty

    def can_penalize(self, penalty: object) -> bool:
        """Whether ``penalty`` may be given now (:meth:`verify_penalize` says why not)."""
        return _passes(self.verify_penalize, penalty)

    def penalize(self, penalty: object) -> Event:
        """Give a referee's penalty against a team (RULES §14.4); everyone sees it at once (a public event).

        X points go against the offending side in this hand's p, as a failed throw's do (a public adjustment:
        the scoring side p −= X, the dealer side p += X). Levels 罚级 are kept here and come off the team's
        progress when the game applies the hand (:meth:`chaodipi.game.Game.finish_hand`). A game lost ends the
        hand at once (phase ``OVER``, no result): the game goes to the other team. A warning changes nothing.

        >>> import random
        >>> from chaodipi.cards import shuffled_deck
        >>> hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
        >>> hand.penalize(Penalty(1, "revoke", points=20)).points  # team 1 scores: p −= 20
        -20
        >>> hand.points_so_far, hand.adjustments
        (-20, [('penalty against team 1 (revoke)', -20)])
        >>> hand.penalize(Penalty(0, "disturbing", game_lost=True)).kind, hand.phase, hand.lost_by
        (<EventKind.PENALTY: 'penalty'>, <Phase.OVER: 'over'>, 0)
        """
        return self._penalize(self.verify_penalize(penalty))

    def _penalize(self, penalty: Penalty) -> Event:
        self._record(Action.penalize(penalty))
        self.penalties.append(penalty)
        delta = 0
        if penalty.points:  # (the team's number is one of its seats: team 0 sits at 0 and 2, team 1 at 1 and 3)
            delta = self._adjust(
                penalty.team, penalty.points, f"penalty against team {penalty.team} ({penalty.offence})"
            )
        if penalty.game_lost:
            self.lost_by = penalty.team
            self.phase = Phase.OVER  # the game is over: nothing more is played (no result: it is not settled)
        parts = [
            f"{penalty.points} points" if penalty.points else "",
            f"{penalty.levels} levels" if penalty.levels else "",
        ]
        parts += ["the game lost" if penalty.game_lost else "", "a warning" if penalty.warning else ""]
        words = ", ".join(p for p in parts if p)
        data = Penalised(penalty.team, penalty.offence, penalty.levels, penalty.warning, penalty.game_lost)
        ev = Event(
            EventKind.PENALTY,
            None,
            (),
            delta,
            f"罚 penalty against team {penalty.team} ({penalty.offence}): {words}",
            data=data,
        )
        self._record(ev)
        return ev

    # -- replay ------------------------------------------------------------------------------
    def _held_after(self, player: int, dealt: int) -> list[Card]:
        """The cards ``player`` would hold once ``dealt`` cards are dealt (for checks made ahead)."""
        held = list(self.hands[player])
        held.extend(self.deck[i] for i in range(self.dealt, dealt) if (self.first_seat + i) % 4 == player)
        return held

    def verify_apply(self, action: object) -> int | None:
        """Raise unless :meth:`apply` would accept ``action``; nothing is dealt to find out.

        Returns the seat that acts, as checked (None only for ``close``, the countdown's end, and a referee's
        ``penalty``, which no seat makes).
        """
        if not isinstance(action, Action):
            raise IllegalActionError(say("action.unknown", text=repr(action)))
        kind = action.kind
        if kind is ActionKind.CLOSE:
            if not (self.phase == Phase.DEAL and self.bidding is not None):
                self.verify_close_bidding()  # (during the deal: the rest is dealt, then the countdown ends)
            return None
        if kind is ActionKind.PENALTY:
            self.verify_penalize(action.penalty)  # the referee's, in any phase: nothing is dealt
            return None
        player = checked_seat(action.player)  # (every kind but close has its seat: Action checks it)
        if kind is ActionKind.PLAY and self.phase is Phase.PLAY:  # (most actions are plays)
            self._verify_play(player, action.cards)
        elif kind is ActionKind.BID:
            target = self.dealt if action.at is None else action.at
            if not self.dealt <= target <= self.deal_size or (target > self.dealt and self.phase != Phase.DEAL):
                raise IllegalActionError(
                    say("bid.recorded_after", at=target, dealt=self.dealt, deal_size=self.deal_size)
                )
            held = self._held_after(player, target) if target > self.dealt else None
            self._verify_bid(player, action.cards, action.choose, held)
        elif kind is ActionKind.LEAVE:
            self.verify_leave(player)  # in any phase, the deal included: nothing is dealt
        elif self.phase == Phase.DEAL:
            # only a flag hand goes from the deal straight to play: its lead and the showing of 5h 5h
            held = self._held_after(player, self.deal_size)
            if self.flag and kind is ActionKind.SHOW_RED5:
                self._verify_show_red5(player, held)
            elif self.flag and kind is ActionKind.PLAY:
                if player != self.dealer:
                    raise IllegalActionError(say("play.first_lead", dealer=self.dealer, player=player))
                self._verify_lead(player, action.cards, held)
            else:
                raise IllegalActionError(
                    say("deal.pending", action=kind.value, dealt=self.dealt, deal_size=self.deal_size)
                )
        elif kind is ActionKind.BURY:
            self.verify_bury(player, action.cards)
        elif kind is ActionKind.FRY:
            self.verify_fry(player, action.cards, action.choose)
        elif kind is ActionKind.PASS:
            self.verify_pass_fry(player)
        elif kind is ActionKind.PLAY:
            self.verify_play(player, action.cards)
        else:
            self.verify_show_red5(player)
        return player

    def can_apply(self, action: object) -> bool:
        """Whether :meth:`apply` would accept ``action`` (:meth:`verify_apply` says why not)."""
        return _passes(self.verify_apply, action)

    def apply(self, action: object) -> Event:
        """Make ``action``: the one dispatcher of players' actions (bots, replay, the server).

        A bid is made after dealing up to its ``at`` (now, if None); a leave or a penalty deals nothing; any other
        action first deals the rest of the cards. Atomic: the action is checked first, so a refused action deals
        nothing and changes nothing.
        """
        player = self.verify_apply(action)
        assert isinstance(action, Action)  # (verify_apply refuses anything else)
        kind, cards, choose = action.kind, action.cards, action.choose
        if kind is ActionKind.PENALTY:  # the referee's: nothing is dealt
            assert action.penalty is not None
            return self._penalize(action.penalty)
        if player is None:  # close: the countdown ends, after the rest of the deal
            self.deal_all()
            return self._close_bidding()
        if kind is ActionKind.PLAY and self.phase is Phase.PLAY:  # (most actions are plays)
            return self._play(player, cards, action)
        if kind is ActionKind.BID:
            while action.at is not None and self.dealt < action.at:
                self.deal_card()
            return self._bid(player, cards, choose)
        if kind is ActionKind.LEAVE:
            return self._leave(player)
        self.deal_all()
        if kind is ActionKind.BURY:
            return self._bury(player, cards)
        if kind is ActionKind.FRY:
            return self._fry(player, cards, choose)
        if kind is ActionKind.PASS:
            return self._pass_fry(player)
        if kind is ActionKind.PLAY:
            return self._play(player, cards, action)
        return self._show_red5(player)

    # -- views ---------------------------------------------------------------------------------
    def cards_in_play(self) -> int:
        """All cards: undealt, hands, kitty, the current trick and finished tricks (always 108)."""
        undealt = 108 - self.dealt if self.phase == Phase.DEAL else 0
        n = undealt + sum(len(h) for h in self.hands) + len(self.kitty)
        n += sum(len(c) for _, c in self.current) + sum(len(c) for t in self.tricks for _, c in t.plays)
        return n + len(self.played_out)

    def iter_events(self) -> Iterator[Event]:
        """Every event of the hand, all cards shown (for records of finished games, not for players)."""
        return (e for e in self.log if isinstance(e, Event))
