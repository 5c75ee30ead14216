"""A seat's view as arrays: the environment's observation and the learned bot's input.

Everything here is computed from a :class:`~chaodipi.hand.View` (and the seat's own burial picks), so an
observation holds no card the seat may not see. Cards are counted by their dense number
(:attr:`Card.index <chaodipi.cards.Card.index>`, 0..53): a set of cards is a vector of 54 counts, 0, 1 or 2 (two
decks). Seats are relative: 0 is the observing seat, 1 the next in play order, 2 the partner, 3 the previous.

The state vector (:data:`STATE_SIZE` floats, in this order; :data:`STATE_PARTS` names the slices):

====================  ======  ==========================================================================
part                  size    what
====================  ======  ==========================================================================
``hand``              54      the seat's cards
``picked``            54      the cards picked so far for the burial (埋底)
``kitty``             54      the kitty (底牌), when the seat may see it
``unseen``            54      the cards the seat has not seen: 2 of each, less its hand, the plays, the kitty
``played``            4×54    the cards each seat has played in the hand (finished tricks and this one)
``trick``             4×54    the cards each seat has played in the trick in progress
``bid``               4×54    each seat's latest bid or fry the seat may see (dark bids stay hidden)
``bids``              4×3     each seat's bids and fries (count ÷ 4) and hidden bids (0/1)
``voids``             4×5     the effective suits (trump, s, h, c, d) each seat showed void in
``trump``             7       s, h, c, d, nt, flag, not known
``level``             14      2 … A, flag hand
``phase``             7       deal, countdown, bury, fry, play, over, redeal
``dealer``            5       the dealer's relative seat, or not known
``side``              3       the seat's side: dealer side (庄家方), scoring side (抓分方), not known
``sizes``             4       each seat's number of cards ÷ 33
``turn``              4       whose turn it is
``winning``           5       who is winning the trick in progress, or nobody
``scalars``           3       the scoring side's points ÷ 200, the threshold ÷ 200 (both within ±2), tricks ÷ 33
====================  ======  ==========================================================================

Each listed action (:mod:`chaodipi.rl.choices`) is a row of :data:`ACTION_SIZE` small integers: its cards as 54
counts, its kind one-hot (:data:`~chaodipi.rl.choices.CHOICE_KINDS`) and, for a 5h 5h bid, the trump it names
one-hot (:data:`~chaodipi.rl.choices.CHOOSE`).

The learned bot's network may also read, for each candidate play, what the rules bot thinks of it: a row of
:data:`HINT_SIZE` floats (:func:`encode_hints`), its place in the rules bot's ranking (best, second, third, or
lower or not ranked: one-hot), how far below the best the rules bot scores it (log(1 + gap) ÷ 4, at most 1;
1 when not ranked), then what the rules bot's scores are made of (:data:`HINT_FEATURES`: whether the play takes
the trick or stands, its points and cost, the trick's points, …). With them a network learns where to depart
from the rules bot, not how to play from scratch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from chaodipi.bots.knowledge import Knowledge
from chaodipi.bots.rules_bot import card_costs
from chaodipi.cards import Card
from chaodipi.hand import Phase, View
from chaodipi.play import unit_beaten
from chaodipi.rl.choices import CHOICE_KINDS, CHOOSE, Choice
from chaodipi.trick import trick_state
from chaodipi.trump import EFFECTIVE_SUITS, FIVE_HEARTS, TRUMP
from chaodipi.units import decompose

__all__ = [
    "ACTION_SIZE",
    "CARDS",
    "HINT_FEATURES",
    "HINT_RANKS",
    "HINT_SIZE",
    "STATE_OFFSETS",
    "STATE_PARTS",
    "STATE_SIZE",
    "encode_actions",
    "encode_hints",
    "encode_state",
]

CARDS = 54
_TRUMPS = ("s", "h", "c", "d", "nt", "flag")
_LEVELS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "flag")
_PHASES = tuple(Phase)

#: The state vector's parts: (name, size), in order (see the module docstring).
STATE_PARTS: tuple[tuple[str, int], ...] = (
    ("hand", CARDS),
    ("picked", CARDS),
    ("kitty", CARDS),
    ("unseen", CARDS),
    ("played", 4 * CARDS),
    ("trick", 4 * CARDS),
    ("bid", 4 * CARDS),
    ("bids", 4 * 3),
    ("voids", 4 * len(EFFECTIVE_SUITS)),
    ("trump", len(_TRUMPS) + 1),
    ("level", len(_LEVELS)),
    ("phase", len(_PHASES)),
    ("dealer", 5),
    ("side", 3),
    ("sizes", 4),
    ("turn", 4),
    ("winning", 5),
    ("scalars", 3),
)
STATE_SIZE = sum(n for _, n in STATE_PARTS)
#: Where each part of the state vector starts, by name.
STATE_OFFSETS: dict[str, int] = {}
_at = 0
for _name, _n in STATE_PARTS:
    STATE_OFFSETS[_name] = _at
    _at += _n
del _at, _name, _n

#: The size of one listed action's row: 54 card counts, the kind, the trump a bid names.
ACTION_SIZE = CARDS + len(CHOICE_KINDS) + len(CHOOSE)
_KIND = {k: CARDS + i for i, k in enumerate(CHOICE_KINDS)}
_CHOOSE = {c: CARDS + len(CHOICE_KINDS) + i for i, c in enumerate(CHOOSE)}
_SUIT = {s: i for i, s in enumerate(EFFECTIVE_SUITS)}


def _count(out: npt.NDArray[np.float32], at: int, cards: Sequence[Card]) -> None:
    for c in cards:
        out[at + c.index] += 1.0


def encode_state(view: View, picked: Sequence[Card] = (), know: Knowledge | None = None) -> npt.NDArray[np.float32]:
    """The seat's state as :data:`STATE_SIZE` floats (see the module docstring); ``picked``: its burial picks."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    me = view.seat
    know = know or Knowledge.from_view(view)
    _count(out, STATE_OFFSETS["hand"], view.hand)
    _count(out, STATE_OFFSETS["picked"], picked)
    if view.kitty is not None:
        _count(out, STATE_OFFSETS["kitty"], view.kitty)
    unseen = STATE_OFFSETS["unseen"]
    for c, n in know.unseen.items():
        out[unseen + c.index] = n
    played, trick = STATE_OFFSETS["played"], STATE_OFFSETS["trick"]
    for t in view.tricks:
        for seat, cards in t.plays:
            _count(out, played + CARDS * ((seat - me) % 4), cards)
    for seat, cards in view.current_trick:
        rel = CARDS * ((seat - me) % 4)
        _count(out, played + rel, cards)
        _count(out, trick + rel, cards)
    bid, bids = STATE_OFFSETS["bid"], STATE_OFFSETS["bids"]
    latest: dict[int, tuple[Card, ...]] = {}
    for entry in view.bids:
        rel = (entry.player - me) % 4
        out[bids + 3 * rel + (1 if entry.fry else 0)] += 0.25
        if entry.cards is None:
            out[bids + 3 * rel + 2] = 1.0
        else:
            latest[rel] = entry.cards
    for rel, cards in latest.items():
        _count(out, bid + CARDS * rel, cards)
    voids = STATE_OFFSETS["voids"]
    for seat in range(4):
        for suit in know.voids[seat]:
            out[voids + 5 * ((seat - me) % 4) + _SUIT[suit]] = 1.0
    trump = "flag" if view.level == "flag" else view.trump
    out[STATE_OFFSETS["trump"] + (_TRUMPS.index(trump) if trump in _TRUMPS else len(_TRUMPS))] = 1.0
    out[STATE_OFFSETS["level"] + _LEVELS.index(view.level)] = 1.0
    out[STATE_OFFSETS["phase"] + _PHASES.index(view.phase)] = 1.0
    if view.dealer is None:
        out[STATE_OFFSETS["dealer"] + 4] = 1.0
        out[STATE_OFFSETS["side"] + 2] = 1.0
    else:
        rel = (view.dealer - me) % 4
        out[STATE_OFFSETS["dealer"] + rel] = 1.0
        out[STATE_OFFSETS["side"] + rel % 2] = 1.0
    sizes = STATE_OFFSETS["sizes"]
    for seat in range(4):
        out[sizes + (seat - me) % 4] = view.hand_sizes[seat] / 33.0
    if view.to_act is not None:
        out[STATE_OFFSETS["turn"] + (view.to_act - me) % 4] = 1.0
    out[STATE_OFFSETS["winning"] + (4 if view.winning is None else (view.winning - me) % 4)] = 1.0
    scalars = STATE_OFFSETS["scalars"]
    out[scalars] = min(2.0, max(-2.0, view.points / 200.0))  # (penalties may make p negative: 逼红5, dark fries)
    out[scalars + 1] = min(2.0, view.threshold / 200.0)  # (a house rule's flag threshold may be up to 1000)
    out[scalars + 2] = len(view.tricks) / 33.0
    return out


#: The ranks the hints tell apart (the rules bot's best, second, third); lower or unranked plays share a fourth.
HINT_RANKS = 3
#: The hints after the rank and the score gap: what the rules bot weighs a play by (module docstring).
HINT_FEATURES = (
    "stands",
    "points",
    "table",
    "cost",
    "trumps",
    "red5",
    "suit_left",
    "ruffable",
    "trumps_left",
    "points_left",
    "beatable",
    "suit_out",
    "partner_void",
    "last",
    "partner_winning",
)
#: The size of one candidate's hints: its rank one-hot (:data:`HINT_RANKS` + 1), its score gap, then
#: :data:`HINT_FEATURES`.
HINT_SIZE = HINT_RANKS + 2 + len(HINT_FEATURES)


def encode_hints(
    listed: Sequence[Choice], ranked: Sequence[tuple[float, Choice]], view: View, know: Knowledge | None = None
) -> npt.NDArray[np.float32]:
    """What the rules bot thinks of each listed play of ``view``'s seat, as rows of :data:`HINT_SIZE` floats.

    ``ranked``: the rules bot's scored plays, best first (:func:`~chaodipi.rl.choices.ranked_choices`). After the
    rank (one-hot) and the score gap come what its scores are made of (:data:`HINT_FEATURES`): whether the play
    stands (a follow: it would take the trick now; a lead: no unseen cards make a unit that beats one of its
    units), its points ÷ 25, the points already in the trick ÷ 50, its cost to the seat
    (:func:`~chaodipi.bots.rules_bot.card_costs`) ÷ 100, the share of trumps in it, its 5h count ÷ 2, the cards of
    its suit the seat keeps after it ÷ 10, whether an opponent has shown void in its suit, the trumps and the points
    the seat keeps after it (÷ 10, ÷ 50), whether a single card that takes the trick may still be beaten by a later
    player (an unseen card above it, or an opponent void in its suit while trumps are out; ½ for more cards), the
    unseen cards of its suit ÷ 20, whether the partner has shown void in its suit, whether the seat plays last to
    the trick, and whether the partner is winning it.
    """
    know = know or Knowledge.from_view(view)
    order = know.trump_order
    effective = order.effective
    costs = card_costs(order)
    out = np.zeros((len(listed), HINT_SIZE), dtype=np.float32)
    place = {c: (i, score) for i, (score, c) in enumerate(ranked)}
    best = ranked[0][0] if ranked else 0.0
    plays = [cards for _, cards in view.current_trick]
    state = trick_state(plays, order) if plays else None
    table = sum(c.points for p in plays for c in p)
    mine = [effective[c.index] for c in view.hand]
    opponents = know.voids[(view.seat + 1) % 4] | know.voids[(view.seat + 3) % 4]
    partner_voids = know.voids[(view.seat + 2) % 4]
    later = [(view.seat + k) % 4 for k in range(1, 4 - len(plays))] if plays else []
    later_voids = set().union(*(know.voids[s] for s in later if (s - view.seat) % 2 == 1)) if later else set()
    unseen_by_suit: dict[str, list[Card]] = {}
    for c in know.unseen_cards():
        unseen_by_suit.setdefault(effective[c.index], []).append(c)
    trumps_out = bool(unseen_by_suit.get(TRUMP))
    my_trumps = mine.count(TRUMP)
    my_points = sum(c.points for c in view.hand)
    last = len(plays) == 3
    partner_winning = view.winning == (view.seat + 2) % 4
    f = HINT_RANKS + 2
    for row, choice in zip(out, listed, strict=True):
        at = place.get(choice)
        if at is None:
            row[HINT_RANKS] = 1.0
            row[HINT_RANKS + 1] = 1.0
        else:
            row[min(at[0], HINT_RANKS)] = 1.0
            row[HINT_RANKS + 1] = min(1.0, float(np.log1p(max(0.0, best - at[1]))) / 4.0)
        cards = choice.cards
        if not cards:
            continue
        suit = effective[cards[0].index]
        out_there = unseen_by_suit.get(suit, [])
        if state is not None:
            row[f] = float(state.wins_with(cards))
        else:
            fmt = decompose(cards, order, lead=True)
            row[f] = float(not any(unit_beaten(u, unseen_by_suit.get(fmt.suit, []), order) for u in fmt.units))
        points = sum(c.points for c in cards)
        trumps = sum(1 for c in cards if effective[c.index] == TRUMP)
        row[f + 1] = points / 25.0
        row[f + 2] = table / 50.0
        row[f + 3] = sum(costs[c.index] for c in cards) / 100.0
        row[f + 4] = trumps / len(cards)
        row[f + 5] = sum(1 for c in cards if c is FIVE_HEARTS) / 2.0
        row[f + 6] = (mine.count(suit) - sum(1 for c in cards if effective[c.index] == suit)) / 10.0
        row[f + 7] = float(suit in opponents)
        row[f + 8] = (my_trumps - trumps) / 10.0
        row[f + 9] = (my_points - points) / 50.0
        if state is not None and row[f] and not last:
            if len(cards) == 1:
                higher = any(order.order[c.index] > order.order[cards[0].index] for c in out_there)
                row[f + 10] = float(higher or (suit != TRUMP and suit in later_voids and trumps_out))
            else:
                row[f + 10] = 0.5
        row[f + 11] = len(out_there) / 20.0
        row[f + 12] = float(suit in partner_voids)
        row[f + 13] = float(last)
        row[f + 14] = float(partner_winning)
    return out


def encode_actions(listed: Sequence[Choice], rows: int | None = None) -> npt.NDArray[np.int8]:
    """The listed actions as rows of :data:`ACTION_SIZE` small integers (see the module docstring).

    ``rows``: the array's number of rows (the environment's fixed size; rows past the list are zeros);
    None: one row per listed action. Actions past ``rows`` are left out.
    """
    n = len(listed) if rows is None else rows
    out = np.zeros((n, ACTION_SIZE), dtype=np.int8)
    for i, choice in enumerate(listed[:n]):
        row = out[i]
        for c in choice.cards:
            row[c.index] += 1
        row[_KIND[choice.kind]] = 1
        if choice.choose is not None and choice.choose in _CHOOSE:
            row[_CHOOSE[choice.choose]] = 1
    return out
