"""The actions a seat chooses from, as a list: what the environment's action index and the learned bot score.

A play is a set of cards, so an action is listed as a :class:`Choice` — its kind, its cards and, for a 5h 5h bid,
the trump it names — and the environment gives each listed choice as a card-count vector (the DouZero
representation, :mod:`chaodipi.rl.encode`). The list is a pure function of the seat's
:class:`~chaodipi.hand.View` (and, while burying, of the cards picked so far), so the environment, the learned
bot and the tests all list the same choices in the same order:

- **bidding** (during the deal and the countdown): ``wait`` (no bid now), then every bid the view lists;
- **frying** (炒底): every fry, then ``pass``;
- **burying** (埋底): one card at a time — each distinct card of the hand not yet picked; the eighth pick buries
  the eight (the environment keeps the picks; a burial of 8 cards out of 33 is far too many to list whole);
- **showing 5h 5h** against a flag hand (RULES §11.5): ``show``, then ``wait``;
- **leading**: every single unit (single, pair, tractor, 5·10·K) the view lists, then the throws (甩牌) the rules
  bot's card counting says cannot fail (every unit top against every unseen card) — a throw of any cards of a suit
  is legal, but they are too many to list;
- **following**: every legal follow, the rules bot's candidates first; when there are more than ``limit``, the
  first ``limit`` of that order (the rules bot's candidates always among them).

>>> import random
>>> from chaodipi.cards import shuffled_deck
>>> from chaodipi.hand import Hand
>>> from chaodipi.rules import RuleSet
>>> hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
>>> hand.deal_all()
>>> [c.kind for c in choices(hand.view(0))][:1]
['wait']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

from chaodipi.bots.knowledge import Knowledge
from chaodipi.bots.rules_bot import ranked_plays
from chaodipi.cards import Card
from chaodipi.hand import Action, Phase, View

__all__ = ["CHOICE_KINDS", "CHOOSE", "Choice", "burial_left", "choices", "ranked_choices", "rules_first"]

#: The kinds of listed action, in the order of the environment's one-hot action features.
CHOICE_KINDS = ("wait", "bid", "fry", "pass", "bury", "lead", "throw", "follow", "show")
#: What a 5h 5h bid may name (the ``choose`` of a bid), in the order of the action features.
CHOOSE = ("s", "h", "c", "d", "nt")

_INDEX = attrgetter("index")


@dataclass(frozen=True, slots=True)
class Choice:
    """One listed action: ``kind`` (one of :data:`CHOICE_KINDS`), its ``cards`` and a bid's ``choose``."""

    kind: str
    cards: tuple[Card, ...] = ()
    choose: str | None = None

    def action(self, seat: int) -> Action | None:
        """The engine's action for this choice (None: ``wait``; a ``bury`` pick is not an action by itself)."""
        if self.kind == "wait":
            return None
        if self.kind == "bid":
            return Action.bid(seat, self.cards, self.choose)
        if self.kind == "fry":
            return Action.fry(seat, self.cards, self.choose)
        if self.kind == "pass":
            return Action.pass_fry(seat)
        if self.kind == "show":
            return Action.show_red5(seat)
        if self.kind == "bury":
            raise ValueError("a burial pick is one card of eight: the environment buries the eight together")
        return Action.play(seat, self.cards)


def _key(cards: Sequence[Card]) -> tuple[int, ...]:
    return tuple(sorted(c.index for c in cards))


def burial_left(view: View, picked: Sequence[Card]) -> list[Card]:
    """The distinct cards of the hand that may still be picked for the burial, in the hand's order."""
    left = {c: 0 for c in view.hand}
    for c in view.hand:
        left[c] += 1
    for c in picked:
        left[c] -= 1
    return [c for c, n in left.items() if n > 0]


def _ranked(view: View, know: Knowledge) -> list[tuple[float, tuple[Card, ...]]]:
    """The rules bot's plays for the view, scored, best first (it plays the first)."""
    assert view.dealer is not None
    pool = know.unseen_cards()
    return ranked_plays(
        view.hand, view.seat, know.trump_order, view.rules, view.dealer, view.current_trick, pool, know.voids
    )


def _plays(view: View, limit: int, know: Knowledge | None) -> list[Choice]:
    legal = view.legal
    if not view.current_trick:
        out = [Choice("lead", lead) for lead in legal.leads]
        if legal.can_throw and legal.throw_groups:
            ranked = _ranked(view, know or Knowledge.from_view(view))
            singles = {_key(lead) for lead in legal.leads}
            out.extend(Choice("throw", tuple(sorted(p, key=_INDEX))) for _, p in ranked if _key(p) not in singles)
        return out
    follows = legal.follows
    if len(follows) <= limit and not legal.more_follows:
        return [Choice("follow", p) for p in follows]
    # too many to list: the rules bot's candidates first, then the engine's order
    ranked = _ranked(view, know or Knowledge.from_view(view))
    seen: set[tuple[int, ...]] = set()
    out = []
    for play in [p for _, p in ranked] + list(follows):
        key = _key(play)
        if key not in seen:
            seen.add(key)
            out.append(Choice("follow", tuple(play)))
            if len(out) == limit:
                break
    return out


def choices(
    view: View,
    picked: Sequence[Card] = (),
    *,
    limit: int = 128,
    red5: bool = False,
    know: Knowledge | None = None,
) -> list[Choice]:
    """What ``view``'s seat chooses from now, in a fixed order (see the module docstring); empty when it has
    nothing to decide. ``picked``: the cards picked so far for the burial. At most ``limit`` plays are listed.
    With ``red5``, the seat is offered to show 5h 5h before the flag hand's first card (the driver asks this
    apart from the turn, RULES §11.5): ``show`` or ``wait``. ``know``: the view's card counting, when the caller
    has it already (:meth:`Knowledge.from_view <chaodipi.bots.knowledge.Knowledge.from_view>`)."""
    legal = view.legal
    if red5:
        return [Choice("show"), Choice("wait")] if legal.show_red5 else []
    phase = view.phase
    if phase in (Phase.DEAL, Phase.COUNTDOWN):
        if not legal.bids:
            return []
        return [Choice("wait")] + [Choice("bid", b.cards, b.choose) for b in legal.bids]
    if phase == Phase.FRY and (legal.fries or legal.can_pass):
        return [Choice("fry", f.cards, f.choose) for f in legal.fries] + [Choice("pass")]
    if phase == Phase.BURY and legal.bury:
        return [Choice("bury", (c,)) for c in burial_left(view, picked)]
    if phase == Phase.PLAY and (legal.leads or legal.follows):
        return _plays(view, limit, know)
    return []


def ranked_choices(view: View, listed: Sequence[Choice], know: Knowledge, count: int) -> list[tuple[float, Choice]]:
    """Of the listed plays, the rules bot's best ``count`` with its scores, best first (its ranking of the plays it
    considers: :func:`~chaodipi.bots.rules_bot.ranked_plays`); listed plays it does not consider are left out."""
    ranked = _ranked(view, know)
    by_key = {_key(c.cards): c for c in listed}
    out: list[tuple[float, Choice]] = []
    for score, play in ranked:
        choice = by_key.pop(_key(play), None)
        if choice is not None:
            out.append((score, choice))
            if len(out) == count:
                break
    return out


def rules_first(view: View, listed: Sequence[Choice], know: Knowledge, count: int) -> list[Choice]:
    """Of the listed plays, the rules bot's best ``count``, best first (:func:`ranked_choices` without the scores);
    the learned bot chooses among them, its training labels them."""
    return [c for _, c in ranked_choices(view, listed, know, count)]
