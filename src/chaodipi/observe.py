"""Who sees what: the visibility of every event, and each seat's view of a hand (RULES §10.5, §13).

A seat is shown :class:`~chaodipi.view.View` and nothing else: its own cards, the public events
and what its own actions revealed to it. This module is the one place that says so:

- :class:`Visibility` and :func:`visibility`: who sees an event of each kind (public, the event's
  own player, or every seat but without the cards while bids are dark);
- :func:`seen_by`: an event as one seat sees it;
- :class:`SeatViews`: what a hand shows its seats: the events each seat has seen, the trump it
  knows (:meth:`SeatViews.known_trump`), the bids as it may see them (:meth:`SeatViews.bid_entries`),
  what it may do (:meth:`SeatViews.legal`) and its view (:meth:`SeatViews.view`), with the work
  kept between calls. :class:`~chaodipi.hand.Hand` is a ``SeatViews``: the state machine and its
  operations live in hand.py, what each seat may see of them here.

>>> from chaodipi.cards import parse_cards
>>> ev = Event(EventKind.BID, 1, tuple(parse_cards("8h 8h")), valid=True)
>>> visibility(EventKind.BID), visibility(EventKind.DEALT), visibility(EventKind.TRICK)
(<Visibility.DARK_CARDS: 'dark_cards'>, <Visibility.OWN: 'own'>, <Visibility.PUBLIC: 'public'>)
>>> seen_by(ev, 2, dark=True)  # a dark bid: the others see only that it was made
Event(kind=<EventKind.BID: 'bid'>, player=1, cards=(), points=0, detail='', valid=None, data=None)
>>> seen_by(ev, 1, dark=True).cards  # its maker sees its cards, not whether it stands
(Card('8h'), Card('8h'))
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, NamedTuple

from chaodipi.bidding import Bid, Bidding, StandingBid, classify_bid, parse_choice
from chaodipi.cards import Card, Rank, Suit
from chaodipi.leads import LeadChoices
from chaodipi.levels import Progress
from chaodipi.log import Action, ActionKind, Event, EventKind, checked_seat
from chaodipi.masks import CardMasks, masks_of
from chaodipi.outcome import Escape, HandResult
from chaodipi.play import FollowRule
from chaodipi.rules import FryVisibility, RuleSet
from chaodipi.trick import TrickState
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder, trump_text
from chaodipi.view import SPECTATOR, BidEntry, BidOption, Legal, Phase, TrickRecord, View

__all__ = ["HIDDEN_KINDS", "KITTY_SIZE", "BidRecord", "SeatViews", "Visibility", "seen_by", "visibility"]

KITTY_SIZE = 8  # the kitty 底牌: 8 cards (RULES §1)


# -- who sees an event ---------------------------------------------------------------------
class Visibility(StrEnum):
    """Who sees an event."""

    PUBLIC = "public"  # every player sees all of it
    OWN = "own"  # only the event's player (the cards dealt to them, the kitty they pick up, their burial)
    DARK_CARDS = "dark_cards"  # every player sees it; in dark games only its player sees its cards (RULES §10.5)


_VISIBILITY: dict[EventKind, Visibility] = {
    EventKind.DEALT: Visibility.OWN,
    EventKind.KITTY_TAKEN: Visibility.OWN,
    EventKind.BURIED: Visibility.OWN,
    EventKind.BID: Visibility.DARK_CARDS,
    EventKind.FRIED: Visibility.DARK_CARDS,
}

#: The kinds of event that not every player sees in full (all the others are public).
#: The kinds of event that not every player sees in full (all the others are public).
HIDDEN_KINDS = frozenset(_VISIBILITY)


def visibility(kind: EventKind) -> Visibility:
    """Who sees events of this kind (the one place that says so)."""
    return _VISIBILITY.get(kind, Visibility.PUBLIC)


def seen_by(event: Event, seat: int, *, dark: bool) -> Event | None:
    """``event`` as ``seat`` sees it: all of it, only that it happened, or nothing (None).

    ``dark``: whether the hand's bids and fries are dark 暗炒 and frying is not over (RULES §10.5).
    """
    vis = _VISIBILITY.get(event.kind, Visibility.PUBLIC)
    if vis is Visibility.PUBLIC:
        return event
    if vis is Visibility.OWN:
        return event if event.player == seat else None
    if not dark:
        return event
    if event.player == seat:  # one's own dark bid: its cards, but not whether it stands
        if event.valid is None:
            return event
        return Event(event.kind, event.player, event.cards, detail=event.detail, data=event.data)
    return Event(event.kind, event.player)


class BidRecord(NamedTuple):
    """A bid or fry in a hand's history: who, the bid, whether it stood when made, whether a fry."""

    player: int
    bid: Bid
    valid: bool
    fry: bool


# -- what a hand shows its seats -------------------------------------------------------------
class SeatViews:
    """What a hand shows each seat: the events it saw, the trump it knows, the bids, its legal actions, its view.

    :class:`~chaodipi.hand.Hand` is one: it keeps the state named below and makes the operations
    named below; this class reads them and keeps its work between calls (:attr:`VIEW_CACHES`), each
    piece valid while the hand's log has the length it was made at, since every change is logged.
    """

    #: The attributes that keep the views' work between calls: not state.
    VIEW_CACHES: ClassVar[frozenset[str]] = frozenset(
        {"_seen", "_seen_at", "_legal", "_sorted", "_orders", "_bid_entries_kept", "_bid_records", "_held"}
    )

    # The hand's state that the views read (set by Hand; see there).
    rules: RuleSet
    phase: Phase
    log: list[Action | Event]
    hands: list[list[Card]]
    dealer: int | None
    level: Rank | None
    flag: bool
    kitty: list[Card]
    kitty_holder: int | None
    kitty_trump_used: bool
    trump: Suit | None
    bidding: Bidding | None
    current: list[tuple[int, tuple[Card, ...]]]
    trick: TrickState | None
    tricks: list[TrickRecord]
    captured: list[int]
    adjustments: list[tuple[str, int]]
    escapes: list[Escape]
    result: HandResult | None
    dealer_progress: Progress
    scoring_progress: Progress
    trump_order: TrumpOrder
    trump_revealed: bool
    bid_cards_revealed: bool
    _bid_positions: list[int]  # where the bid and fry events are in the log

    def __init__(self) -> None:
        # each seat's events (seen_by), up to _seen_at; the fifth list is a spectator's (SPECTATOR)
        self._seen: list[list[Event]] = [[], [], [], [], []]
        self._seen_at = [0, 0, 0, 0, 0]
        self._legal: list[tuple[int, int, list[Card], Legal] | None] = [None, None, None, None]
        self._sorted: list[tuple[TrumpOrder, tuple[Card, ...], tuple[Card, ...]] | None] = [None, None, None, None]
        self._orders: dict[Suit | str | None, TrumpOrder] = {}  # _order_known's answers (the level never changes)
        self._bid_records: list[BidRecord] = []  # bid_log, read from the log up to len(_bid_records) bids
        self._bid_entries_kept: list[tuple[tuple[int, bool, bool], tuple[BidEntry, ...]] | None] = [None] * 5
        # each seat's cards as bit masks (held_masks), with the list and the length they were made from
        self._held: list[tuple[list[Card], int, CardMasks] | None] = [None, None, None, None]

    def held_masks(self, seat: int) -> CardMasks:
        """``seat``'s cards as bit masks (:mod:`chaodipi.masks`), kept while ``hands[seat]`` is the same list.

        The hand replaces a seat's list when cards leave it (a play, the burial) and only appends to it
        otherwise (the deal, the kitty), so the list and its length tell whether the masks still hold.
        """
        cards = self.hands[seat]
        kept = self._held[seat]
        if kept is not None and kept[0] is cards and kept[1] == len(cards):
            return kept[2]
        masks = masks_of(cards)
        self._held[seat] = (cards, len(cards), masks)
        return masks

    def _set_held(self, seat: int, cards: list[Card], masks: CardMasks) -> None:
        """Give ``seat`` the cards ``cards``, whose masks the caller worked out."""
        self.hands[seat] = cards
        self._held[seat] = (cards, len(cards), masks)

    # -- the operations the views ask the hand about (Hand makes them) ------------------------
    def to_act(self) -> int | None:
        """Whose action the hand waits for (Hand says)."""
        raise NotImplementedError

    def possible_bids(self, player: object) -> list[BidOption]:
        """The bids ``player`` may make now (Hand says)."""
        raise NotImplementedError

    def _possible_bids_now(self, player: int) -> list[BidOption]:
        raise NotImplementedError

    def possible_fries(self, player: object) -> list[BidOption]:
        """The fries ``player`` may make now (Hand says)."""
        raise NotImplementedError

    def follow_rule(self, player: object) -> FollowRule | None:
        """What ``player`` must follow with now (Hand says)."""
        raise NotImplementedError

    def _follow_rule_now(self, player: int) -> FollowRule:
        raise NotImplementedError

    def can_show_red5(self, player: object) -> bool:
        """Whether ``player`` may show 5h 5h now (Hand says)."""
        raise NotImplementedError

    # -- what the log and the state say, read the same way by the views and the hand -----------

    @property
    def bid_log(self) -> list[BidRecord]:
        """Every bid and fry so far, with whether it stood when made, read from the log."""
        out = self._bid_records
        for k in self._bid_positions[len(out) :]:  # (only the bids logged since the last call are read)
            action, event = self.log[k - 1], self.log[k]
            assert isinstance(action, Action) and isinstance(event, Event) and action.player is not None
            choice = None if action.choose is None else parse_choice(action.choose)
            bid = Bid(action.player, action.cards, choice)
            out.append(BidRecord(action.player, bid, bool(event.valid), action.kind is ActionKind.FRY))
        return list(out)

    @property
    def dark(self) -> bool:
        """Whether bids and fries are dark 暗炒 (RULES §10.5)."""
        return self.rules.fry_visibility == FryVisibility.DARK

    @property
    def points_so_far(self) -> int:
        """The scoring side's points so far: captured trick points and adjustments, no kitty (RULES §11.1)."""
        return self.captured[1] + sum(d for _, d in self.adjustments)

    @property
    def left(self) -> tuple[int, ...]:
        """The seats that left the hand (逃跑, RULES §13), in the order they left."""
        return tuple(e.player for e in self.escapes)

    @property
    def standing(self) -> StandingBid | None:
        """The bid that stands now (None: no bid, or a flag hand); in dark games nobody is told it."""
        return None if self.bidding is None else self.bidding.standing

    # -- the views ---------------------------------------------------------------------------------
    def visible_events(self, seat: object, start: int = 0) -> list[Event]:
        """The events from log entry ``start`` on, as ``seat`` (or a spectator) sees them (:func:`seen_by`)."""
        seat = _viewer(seat)
        if start == 0:
            return list(self._events_seen(seat))
        return self._events_seen_from(seat, start)

    def _events_seen_from(self, seat: int, start: int) -> list[Event]:
        """Each event from log entry ``start`` on, as ``seat`` sees it, read afresh."""
        out: list[Event] = []
        dark = self.dark
        for item in self.log[start:]:
            if isinstance(item, Event):
                if item.kind not in HIDDEN_KINDS:
                    out.append(item)  # public: everyone sees all of it
                    continue
                seen = seen_by(item, seat, dark=dark)
                if seen is not None:
                    out.append(seen)
        return out

    def _events_seen(self, seat: int) -> list[Event]:
        """``seat``'s events, kept up to date: only the entries logged since the last call are read.

        (The log only grows, and what a seat sees of an event depends on the event alone.)
        """
        seen = self._seen[seat]
        n = len(self.log)
        if self._seen_at[seat] < n:
            seen.extend(self._events_seen_from(seat, self._seen_at[seat]))
            self._seen_at[seat] = n
        return seen

    def known_trump(self, seat: object) -> Suit | str | None:
        """The trump ``seat`` knows or assumes now: a suit, None for no-trump, ``"flag"``, or ``"?"``.

        Open games: the standing bid's trump (``"?"`` before any bid). Dark games, before play
        starts, nobody knows the trump (RULES §10.5): ``"?"``, or the trump of the seat's own last
        bid or fry (which it made, not knowing whether it stands). A kitty's trump (§9.5) is public.
        """
        return self._known_trump(checked_seat(seat))

    def _known_trump(self, seat: int) -> Suit | str | None:
        if self.flag:
            return "flag"
        if self.kitty_trump_used or self.phase in (Phase.PLAY, Phase.OVER):
            return self.trump
        if not self.dark:
            return "?" if self.standing is None else self.standing.trump
        own = [bid for player, bid, _, _ in self.bid_log if player == seat]
        if not own:
            return "?"
        assert self.bidding is not None
        return classify_bid(own[-1].cards, self.bidding.level, own[-1].choose).trump

    def _order_known(self, known: Suit | str | None) -> TrumpOrder:
        """The card order for a trump as :meth:`known_trump` gives it (at most six per hand, each made once)."""
        order = self._orders.get(known)
        if order is None:
            order = self._orders[known] = self._order_of(known)
        return order

    def _order_of(self, known: Suit | str | None) -> TrumpOrder:
        if known == "flag" or self.level is None:
            return TrumpOrder.of(self.rules, None, None)
        if known == "?":
            return TrumpOrder.of(self.rules, self.level, None)  # level cards and jokers only
        return TrumpOrder.of(self.rules, self.level, known if isinstance(known, Suit) else None)

    def bid_entries(self, seat: object) -> list[BidEntry]:
        """The bids and fries as ``seat`` may see them (RULES §10.5).

        Dark games: other players' cards and every bid's validity stay hidden until frying ends;
        with ``bid_order=unordered`` only the last fry's cards are shown, after the first trick.
        """
        seat = _viewer(seat)
        key = (len(self._bid_positions), self.trump_revealed, self.bid_cards_revealed)
        kept = self._bid_entries_kept[seat]
        if kept is not None and kept[0] == key:
            return list(kept[1])
        out = self._bid_entries_now(seat)
        self._bid_entries_kept[seat] = (key, tuple(out))
        return out

    def _bid_entries_now(self, seat: int) -> list[BidEntry]:
        unordered = self.rules.bid_order.unordered
        all_shown = not self.dark or (self.trump_revealed and self.bid_cards_revealed and not unordered)
        last_shown = self.dark and unordered and self.trump_revealed and self.bid_cards_revealed
        records = self.bid_log
        out: list[BidEntry] = []
        for k, (player, bid, valid, is_fry) in enumerate(records):
            public = all_shown or (last_shown and k == len(records) - 1)
            if not (public or player == seat):
                out.append(BidEntry(player, is_fry))
                continue
            choose = None if bid.choose is None else str(bid.choose)
            out.append(BidEntry(player, is_fry, bid.cards, choose, valid if public else None))
        return out

    def view(self, seat: object, *, legal: bool = True) -> View:
        """Exactly what ``seat`` may know now (``legal=False`` leaves out the legal actions).

        ``seat`` may be :data:`~chaodipi.view.SPECTATOR`: what every player sees and nothing more
        (no hand, no kitty before the hand is over, no dark bid's cards, no legal actions).

        Its cost follows what changed since the seat's last view: the seat's events are kept up to
        date entry by entry, the sorted hand and the legal actions are made once per decision (and
        the follow rule behind them shared with the check of the play that follows). :meth:`fresh_view`
        builds the same view from the whole log.
        """
        seat = _viewer(seat)
        return self._view(seat, legal=legal and seat != SPECTATOR, fresh=False)

    def fresh_view(self, seat: object, *, legal: bool = True) -> View:
        """:meth:`view` built afresh: the events read from the whole log again, the hand sorted, the bid
        entries and the legal actions (bids, follow rule) worked out again, none of them taken from earlier calls.

        Always equal to :meth:`view` (the tests check it after every step of many hands).
        """
        seat = _viewer(seat)
        return self._view(seat, legal=legal and seat != SPECTATOR, fresh=True)

    def _view(self, seat: int, *, legal: bool, fresh: bool) -> View:
        known = self._known_trump(seat)
        announced = not self.dark or self.kitty_trump_used or self.phase in (Phase.PLAY, Phase.OVER)
        sort_trump = trump_text(known) if known is None or isinstance(known, Suit) else known  # or "flag", "?"
        trump: str | None = None  # None while the seat cannot know it
        if sort_trump == "flag" or (announced and sort_trump != "?"):
            trump = sort_trump
        kitty = tuple(self.kitty) if self.kitty_holder == seat or self.phase == Phase.OVER else None
        order = self._order_known(known)
        if seat == SPECTATOR:
            held: tuple[Card, ...] = ()
            events = tuple(self._events_seen_from(seat, 0) if fresh else self._events_seen(seat))
            moves = Legal()
        elif fresh:
            held = tuple(order.sorted(self.hands[seat]))
            events = tuple(self._events_seen_from(seat, 0))
            moves = self._legal_now(seat, 200, fresh=True) if legal else Legal()
        else:
            held = self._sorted_hand(seat, order)
            events = tuple(self._events_seen(seat))
            moves = self.legal(seat) if legal else Legal()
        return View(
            seat=seat,
            rules=self.rules,
            phase=self.phase,
            dealer=self.dealer,
            level="flag" if self.level is None else self.level.symbol,
            trump=trump,
            hand=held,
            kitty=kitty,
            bids=tuple(self._bid_entries_now(seat) if fresh else self.bid_entries(seat)),
            current_trick=tuple(self.current),
            tricks=tuple(self.tricks),
            points=self.points_so_far,
            to_act=self.to_act(),
            events=events,
            hand_sizes=(len(self.hands[0]), len(self.hands[1]), len(self.hands[2]), len(self.hands[3])),
            legal=moves,
            sort_trump=sort_trump,
            left=self.left,
            result=None if self.result is None else self.result.outcome((self.dealer_progress, self.scoring_progress)),
            winning=self.winning(),
        )

    def _sorted_hand(self, seat: int, order: TrumpOrder) -> tuple[Card, ...]:
        """``seat``'s hand sorted by ``order``, sorted again only when the hand or the order changed."""
        held = tuple(self.hands[seat])
        kept = self._sorted[seat]
        if kept is not None and kept[0] is order and kept[1] == held:
            return kept[2]
        out = tuple(order.sorted(held))
        self._sorted[seat] = (order, held, out)
        return out

    def winning(self) -> int | None:
        """The seat whose play is winning the trick in progress (RULES §7), None when no trick is under way."""
        if self.trick is None:
            return None
        return self.current[self.trick.winner][0]

    def legal(self, seat: object, limit: int = 200) -> Legal:
        """What ``seat`` may do now: bids, fries, burial, leads or follows (follows capped at ``limit``).

        Worked out once per decision: asked again before the hand changes, the same answer is given.
        """
        seat = checked_seat(seat)
        held = self.hands[seat]
        kept = self._legal[seat]
        if kept is not None and kept[0] == len(self.log) and kept[1] == limit and kept[2] is held:
            return kept[3]
        out = self._legal_now(seat, limit)
        self._legal[seat] = (len(self.log), limit, held, out)
        return out

    def _legal_now(self, seat: int, limit: int, *, fresh: bool = False) -> Legal:
        """:meth:`legal` worked out now (``fresh``: with nothing kept from earlier calls, for :meth:`fresh_view`)."""
        show_red5 = self.flag and self.can_show_red5(seat)  # whoever's turn it is (RULES §11.5)
        if self.phase in (Phase.DEAL, Phase.COUNTDOWN):
            bids = self._possible_bids_now(seat) if fresh else self.possible_bids(seat)
            return Legal(bids=tuple(bids), show_red5=show_red5)
        if self.to_act() != seat:
            return Legal(show_red5=show_red5)
        if self.phase == Phase.BURY:
            return Legal(bury=KITTY_SIZE)
        if self.phase == Phase.FRY:
            return Legal(fries=tuple(self.possible_fries(seat)), can_pass=True)
        rule = self._follow_rule_now(seat) if fresh and self.current else self.follow_rule(seat)
        if rule is None:
            choices = LeadChoices(self.hands[seat], self.trump_order, self.held_masks(seat))
            leads = tuple(u.cards for u in choices)
            # a throw is any cards of one effective suit (RULES §5.1): each suit's cards, two or more, strongest first
            rank = self.trump_order.strength_position.__getitem__
            by_suit = choices.suit_counts()
            groups = tuple(
                tuple(c for c in sorted(counts, key=rank) for _ in range(counts[c]))
                for counts in (by_suit.get(suit, {}) for suit in EFFECTIVE_SUITS)
                if sum(counts.values()) >= 2
            )
            return Legal(leads=leads, can_throw=True, throw_groups=groups, show_red5=show_red5)
        follows: list[tuple[Card, ...]] = []
        for play in rule.legal_plays():
            if len(follows) == limit:
                return Legal(follows=tuple(follows), more_follows=True, show_red5=show_red5)
            follows.append(play)
        return Legal(follows=tuple(follows), show_red5=show_red5)


def _viewer(value: object) -> int:
    """A seat 0..3 or :data:`~chaodipi.view.SPECTATOR` (who sees what every player sees, and no more)."""
    return SPECTATOR if value == SPECTATOR and type(value) is int else checked_seat(value)
