"""Who wins a trick, its points, and the kou di multiplier (RULES §7, §8).

>>> from chaodipi.cards import parse_cards, Rank, Suit
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.trump import TrumpOrder
>>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
>>> r = resolve_trick([parse_cards(p) for p in ("5c 4c 4c", "9s 7s 7s", "3d 3d 6d", "8s 8s 4s")], to)
>>> r.winner, r.points
(3, 5)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from chaodipi.cards import Card, Rank, points_of
from chaodipi.phrases import say
from chaodipi.rules import KittyMultiplier
from chaodipi.trump import TRUMP, TrumpOrder
from chaodipi.units import Format, PlayError, Unit, UnitKind, count_cards, decompose, ftk_suits, pair_runs

__all__ = ["PlayRole", "TrickResult", "TrickState", "kitty_multiplier", "resolve_trick", "trick_state", "trump_in_key"]


class PlayRole(StrEnum):
    """What a play was in its trick."""

    LEAD = "lead"
    FOLLOW = "follow"  # in suit, not beating the winner
    BEAT = "beat"  # in suit and higher than the winner (single-unit leads only)
    TRUMP_IN = "trump_in"  # 毙
    OVER_TRUMP = "over_trump"  # 盖毙
    DISCARD = "discard"  # 垫


@dataclass(frozen=True, slots=True)
class TrickResult:
    """The winner's index in the plays, the points on the table, and each play's role."""

    winner: int
    points: int
    roles: tuple[PlayRole, ...]
    lead: Format


# Candidate units of a kind inside a multiset of trumps, for trump-in matching.
def _candidates(
    kind: UnitKind, length: int, counts: dict[Card, int], trump_order: TrumpOrder
) -> list[tuple[Card, ...]]:
    if kind == UnitKind.PAIR:
        return [(c, c) for c, n in counts.items() if n >= 2]
    if kind == UnitKind.TRACTOR:
        out: list[tuple[Card, ...]] = []
        pairs = [c for c, n in counts.items() if n >= 2]
        for run in pair_runs(pairs, trump_order, TRUMP):
            for start in range(len(run) - length + 1):
                seg = run[start : start + length]
                out.append(tuple(c for c, _ in seg for _ in range(2)))
        return out
    if kind in (UnitKind.FTK, UnitKind.FTK_PAIR):
        need = 2 if kind == UnitKind.FTK_PAIR else 1
        out = []
        for x in ftk_suits(trump_order, TRUMP):
            trio = [Card.of(r, x) for r in (Rank.FIVE, Rank.TEN, Rank.KING)]
            if all(counts.get(c, 0) >= need for c in trio):
                out.append(tuple(c for c in trio for _ in range(need)))
        return out
    return []


def _unit_key(kind: UnitKind, cards: tuple[Card, ...], trump_order: TrumpOrder) -> int:
    if kind in (UnitKind.FTK, UnitKind.FTK_PAIR):
        return 0
    if kind == UnitKind.TRACTOR:
        pairs = list(dict.fromkeys(cards))
        runs = pair_runs(pairs, trump_order, TRUMP)
        return max(run[-1][1] for run in runs if len(run) == len(pairs))
    return trump_order.order[cards[0].index]


def _feasible(counts: dict[Card, int], needs: list[tuple[UnitKind, int]], trump_order: TrumpOrder) -> bool:
    if not needs:
        return True
    kind, length = needs[0]
    if kind == UnitKind.SINGLE:
        return sum(counts.values()) == len(needs)
    for cand in _candidates(kind, length, counts, trump_order):
        for c in cand:
            counts[c] -= 1
        ok = _feasible(counts, needs[1:], trump_order)
        for c in cand:
            counts[c] += 1
        if ok:
            return True
    return False


def trump_in_key(play: Sequence[Card], lead: Format, trump_order: TrumpOrder) -> int | None:
    """The key of a trump-in (RULES §7), or None if the trumps do not match the lead's format.

    The play must be all trumps and split into units matching the lead's units one
    to one; the key is the highest unit of the lead's primary kind over all matchings.
    """
    if len(play) != lead.size or any(trump_order.effective[c.index] != TRUMP for c in play):
        return None
    if len(play) == 1:
        return trump_order.order[play[0].index]
    needs = list(lead.demands)
    counts = count_cards(play)
    pkind, plen = lead.primary
    if pkind == UnitKind.SINGLE:
        return max(trump_order.order[c.index] for c in play) if _feasible(counts, needs, trump_order) else None
    primary_need = (pkind, plen)
    rest = list(needs)
    rest.remove(primary_need)
    cands = _candidates(pkind, plen, counts, trump_order)
    cands.sort(key=lambda cand: -_unit_key(pkind, cand, trump_order))
    for cand in cands:
        for c in cand:
            counts[c] -= 1
        ok = _feasible(counts, rest, trump_order)
        for c in cand:
            counts[c] += 1
        if ok:
            return _unit_key(pkind, cand, trump_order)
    return None


def _in_suit_beats(play: Sequence[Card], unit: Unit, best: int, trump_order: TrumpOrder) -> tuple[bool, int]:
    """For a single-unit lead: whether an in-suit play is the same kind and strictly higher."""
    try:
        fmt = decompose(play, trump_order, lead=False)
    except PlayError:
        return False, best
    if len(fmt.units) != 1:
        return False, best
    u = fmt.units[0]
    if u.kind != unit.kind or u.pairs != unit.pairs:
        return False, best
    return u.strength > best, u.strength


class TrickState:
    """A trick in progress: who is winning it and by what, so that one more play can be judged alone.

    ``winner`` is the index of the winning play; ``best`` the in-suit strength to beat (for a
    single-unit lead); ``trump_key`` the key of the winning trump-in, -1 while nobody trumped in;
    ``roles`` what each play so far was, the lead's first.
    """

    __slots__ = ("best", "lead", "roles", "single_unit", "trump_key", "trump_order", "winner")

    def __init__(self, lead: Format, trump_order: TrumpOrder) -> None:
        self.lead = lead
        self.trump_order = trump_order
        self.single_unit = len(lead.units) == 1 and lead.units[0].kind not in (UnitKind.FTK, UnitKind.FTK_PAIR)
        self.winner = 0
        self.best = lead.units[0].strength
        self.trump_key = -1
        self.roles = [PlayRole.LEAD]

    def judge(self, play: Sequence[Card]) -> tuple[PlayRole, int]:
        """The role ``play`` would have as the next play, and the strength or key it would win with."""
        fmt = self.lead
        effective = self.trump_order.effective
        suit = fmt.suit
        if (effective[play[0].index] == suit) if len(play) == 1 else all(effective[c.index] == suit for c in play):
            if self.single_unit and self.trump_key < 0:
                unit = fmt.units[0]
                if len(play) == 1 and unit.kind is UnitKind.SINGLE:  # (a single against a single: its order)
                    strength = self.trump_order.order[play[0].index]
                    beats = strength > self.best
                elif len(play) == 2 and unit.kind is UnitKind.PAIR:  # (two cards against a pair: a pair, or nothing)
                    strength = self.trump_order.order[play[0].index]
                    beats = play[0] is play[1] and strength > self.best
                else:
                    beats, strength = _in_suit_beats(play, unit, self.best, self.trump_order)
                if beats:
                    return PlayRole.BEAT, strength
            return PlayRole.FOLLOW, 0
        if suit != TRUMP and all(effective[c.index] == TRUMP for c in play):
            key = trump_in_key(play, fmt, self.trump_order)
            if key is not None and key > self.trump_key:
                return (PlayRole.OVER_TRUMP if self.trump_key >= 0 else PlayRole.TRUMP_IN), key
        return PlayRole.DISCARD, 0

    def wins_with(self, play: Sequence[Card]) -> bool:
        """Whether ``play``, played next, would take the lead of the trick."""
        return self.judge(play)[0] in (PlayRole.BEAT, PlayRole.TRUMP_IN, PlayRole.OVER_TRUMP)

    def add(self, play: Sequence[Card]) -> PlayRole:
        """Play ``play`` next; returns its role."""
        role, value = self.judge(play)
        if role == PlayRole.BEAT:
            self.winner, self.best = len(self.roles), value
        elif role in (PlayRole.TRUMP_IN, PlayRole.OVER_TRUMP):
            self.winner, self.trump_key = len(self.roles), value
        self.roles.append(role)
        return role


def resolve_trick(plays: Sequence[Sequence[Card]], trump_order: TrumpOrder, lead: Format | None = None) -> TrickResult:
    """Who wins the trick and its points (RULES §7). ``plays[0]`` is the lead, taken as standing."""
    state = trick_state(plays, trump_order, lead)
    points = sum(points_of(p) for p in plays)
    return TrickResult(state.winner, points, tuple(state.roles), state.lead)


def trick_state(plays: Sequence[Sequence[Card]], trump_order: TrumpOrder, lead: Format | None = None) -> TrickState:
    """The state of a trick after ``plays`` (``plays[0]`` is the lead), each checked to have the lead's size."""
    if not plays:
        raise PlayError(say("trick.no_lead"))
    fmt = lead if lead is not None else decompose(plays[0], trump_order, lead=True)
    n = fmt.size
    for i, p in enumerate(plays[1:], 1):
        if len(p) != n:
            raise PlayError(say("trick.sizes", play=i, n=len(p), lead=n))
    state = TrickState(fmt, trump_order)
    for p in plays[1:]:
        state.add(p)
    return state


def kitty_multiplier(lead: Format, mode: KittyMultiplier) -> int:
    """The kou di multiplier read from the last trick's lead format (RULES §8)."""
    size = lead.largest_unit_cards
    return 2 * size if mode == KittyMultiplier.LINEAR else 2**size
