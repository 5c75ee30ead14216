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
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from chaodipi.bots.knowledge import Knowledge
from chaodipi.cards import Card
from chaodipi.hand import Phase, View
from chaodipi.rl.choices import CHOICE_KINDS, CHOOSE, Choice
from chaodipi.trump import EFFECTIVE_SUITS

__all__ = [
    "ACTION_SIZE",
    "CARDS",
    "STATE_OFFSETS",
    "STATE_PARTS",
    "STATE_SIZE",
    "encode_actions",
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
