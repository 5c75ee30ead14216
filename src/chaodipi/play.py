"""Leading, throwing, following (RULES §5, §6).

The follow rules are one piece of logic, :class:`FollowRule`: built from the
lead and the follower's hand, it both checks a play (saying why it is illegal)
and generates every legal play, so the two agree by construction.

>>> from chaodipi.cards import parse_cards, Rank, Suit
>>> from chaodipi.rules import RuleSet
>>> from chaodipi.trump import TrumpOrder
>>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
>>> rule = FollowRule(parse_cards("9h 9h Th Th"), parse_cards("3h 3h 4h 4h 7h 7h Kc"), to)
>>> str(rule.check(parse_cards("3h 3h 7h 7h")))
'you hold a tractor in hearts and must play it (跟拖拉机): 7h 7h 4h 4h 3h 3h'
>>> [" ".join(map(str, p)) for p in rule.legal_plays()]
['4h 4h 3h 3h']
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from chaodipi.cards import Card, Rank
from chaodipi.masks import CardMasks, masks_of, missing
from chaodipi.phrases import Phrase, say
from chaodipi.rules import ThrowFailPlay, TrumpFtkFollow
from chaodipi.trump import EFFECTIVE_SUITS, TRUMP, TrumpOrder
from chaodipi.units import Format, Unit, UnitKind, count_cards, decompose, ftk_suits, pair_runs_of

__all__ = [
    "FollowRule",
    "ThrowResult",
    "check_follow",
    "check_throw",
    "tractor_match",
    "unit_beaten",
    "unit_beaten_by",
]


# -- tractor matching (RULES §6.4, T) ---------------------------------------------


@lru_cache(maxsize=4096)
def _best_match(runs: tuple[int, ...], leads: tuple[int, ...]) -> int:
    """Most pairs matched when lead tractors ``leads`` are covered by pieces (≥2 pairs) of ``runs``."""
    if not leads or not runs:
        return 0
    first, rest = leads[0], leads[1:]
    best = _best_match(runs, rest)  # leave this lead tractor unmatched
    for i, r in enumerate(runs):
        if i and runs[i - 1] == r:
            continue
        for p in range(2, min(first, r) + 1):
            left = [*runs[:i], *runs[i + 1 :]]
            if r - p >= 2:
                left.append(r - p)
            value = p + _best_match(tuple(sorted(left, reverse=True)), rest)
            best = max(best, value)
    return best


def _run_length_variants(twos: int, trump_order: TrumpOrder, suit: str) -> list[tuple[int, ...]]:
    """Run lengths of the pairs in ``twos``; when an ace could sit at both ends, one variant per end."""
    runs = pair_runs_of(twos, trump_order, suit)
    lengths = [len(r) for r in runs if len(r) >= 2]
    seen: dict[Card, list[int]] = {}
    for i, run in enumerate(runs):
        for card, _ in run:
            seen.setdefault(card, []).append(i)
    shared = [(card, idx) for card, idx in seen.items() if len(idx) > 1]
    if not shared:
        return [tuple(sorted(lengths, reverse=True))]
    card, (a, b) = shared[0][0], shared[0][1][:2]
    variants = []
    for drop in (a, b):
        ls = []
        for i, run in enumerate(runs):
            n = len(run) - (1 if i == drop else 0)
            if n >= 2:
                ls.append(n)
        variants.append(tuple(sorted(ls, reverse=True)))
    return variants


def tractor_match(pairs: Sequence[Card], lead_tractors: tuple[int, ...], trump_order: TrumpOrder, suit: str) -> int:
    """``T`` of RULES §6.4: pairs placed in tractors that match the lead's tractors."""
    twos = 0
    for c in pairs:
        twos |= 1 << c.index
    return tractor_match_of(twos, lead_tractors, trump_order, suit)


def tractor_match_of(twos: int, lead_tractors: tuple[int, ...], trump_order: TrumpOrder, suit: str) -> int:
    """:func:`tractor_match` of the pairs whose bits are set in ``twos`` (:mod:`chaodipi.masks`)."""
    if not lead_tractors or not twos & (twos - 1):  # (no tractor led, or fewer than two pairs)
        return 0
    return max(_best_match(v, lead_tractors) for v in _run_length_variants(twos, trump_order, suit))


# -- following (RULES §6) ------------------------------------------------------------


def _multiset_combinations(counts: Sequence[tuple[Card, int]], k: int) -> Iterator[tuple[Card, ...]]:
    """Distinct sub-multisets of size ``k``."""
    if k == 0:
        yield ()
        return
    if not counts:
        return
    remaining = sum(n for _, n in counts)
    if remaining < k:
        return
    (card, n), rest = counts[0], counts[1:]
    for take in range(min(n, k), -1, -1):
        for tail in _multiset_combinations(rest, k - take):
            yield (card,) * take + tail


class FollowRule:
    """What a follower owes to a lead: the check and the generator of legal follows (RULES §6).

    ``lead`` is the lead as played (it must be a valid lead); ``hand`` the
    follower's whole hand before playing; ``masks``, if the caller keeps them, the same hand as
    bit masks (:mod:`chaodipi.masks`), which the rule reads its questions from: how many cards of
    the led suit, which pairs, which tractors.
    """

    __slots__ = (
        "_hand",
        "_hand_counts",
        "_ones",
        "_s1",
        "_s2",
        "_suit_cards",
        "_twos",
        "best",
        "fixed",
        "k",
        "lead",
        "n",
        "n_suit",
        "pairs_cap",
        "suit",
        "top_required",
        "trump_order",
    )

    def __init__(
        self,
        lead: Sequence[Card] | Format,
        hand: Sequence[Card],
        trump_order: TrumpOrder,
        masks: CardMasks | None = None,
    ) -> None:
        self.trump_order = trump_order
        self.lead = lead if isinstance(lead, Format) else decompose(lead, trump_order, lead=True)
        self.n = self.lead.size
        self.suit = suit = self.lead.suit
        self._hand = tuple(hand)  # (as it was: the caller may change its list later)
        ones, twos = masks if masks is not None else masks_of(self._hand)
        self._ones, self._twos = ones, twos
        mask = trump_order.suit_mask[suit]
        s1, s2 = ones & mask, twos & mask
        self._s1, self._s2 = s1, s2
        self.n_suit = s1.bit_count() + s2.bit_count()
        self._hand_counts: dict[Card, int] | None = None  # (counted when first asked for)
        self._suit_cards: list[Card] | None = None  # (listed when first asked for)
        self.k = min(self.n, self.n_suit)
        self.pairs_cap = self.lead.pair_count
        self.fixed: dict[Card, int] = {}
        self.top_required: list[int] | None = None
        self.best = (0, 0)
        if self.k == self.n_suit or self.n == 1:
            return  # the whole suit must be played, or a single led: no duty but the suit's (RULES §6.1)
        if self.lead.has_ftk:
            if suit == TRUMP:
                self._init_trump_ftk()
                return
            if trump_order.rules.ftk_must_follow:
                self.fixed = self._ftk_duty()
        self.best = self._best_tp()

    @property
    def suit_cards(self) -> list[Card]:
        """The follower's cards of the led suit, in the order of the hand (read it, do not change it)."""
        cards = self._suit_cards
        if cards is None:
            effective, suit = self.trump_order.effective, self.suit
            cards = self._suit_cards = [c for c in self._hand if effective[c.index] == suit]
        return cards

    @property
    def hand_counts(self) -> dict[Card, int]:
        """The follower's whole hand, counted (the check and the free cards read it; the suit parts do not)."""
        counts = self._hand_counts
        if counts is None:
            counts = self._hand_counts = count_cards(self._hand)
        return counts

    # RULES §6.2 and §6.3: which FTK cards the follower must include
    def _ftk_duty(self) -> dict[Card, int]:
        counts = count_cards(self.suit_cards)
        fixed: dict[Card, int] = {}
        room = self.k
        for x in ftk_suits(self.trump_order, self.suit):
            trio = [Card.of(r, x) for r in (Rank.FIVE, Rank.TEN, Rank.KING)]

            def held(trio: list[Card] = trio) -> int:
                return min(counts.get(c, 0) - fixed.get(c, 0) for c in trio)

            wants = [2] * self.lead.ftk_pair_count + [1] * self.lead.ftk_count
            for want in wants:
                h = held()
                take = 2 if want == 2 and h >= 2 and room >= 6 else 1 if h >= 1 and room >= 3 else 0
                for c in trio:
                    fixed[c] = fixed.get(c, 0) + take
                room -= 3 * take
            break  # one natural suit per effective suit can make FTKs
        return {c: n for c, n in fixed.items() if n}

    def _init_trump_ftk(self) -> None:
        order = self.trump_order.order
        required: list[int] = []
        if self.trump_order.rules.trump_ftk_follow == TrumpFtkFollow.FTK_ELSE_TOP:
            self.fixed = self._ftk_duty()
            for c, n in self.fixed.items():
                required.extend([order[c.index]] * n)
        rest = list(self.suit_cards)
        for c, n in self.fixed.items():
            for _ in range(n):
                rest.remove(c)
        rest.sort(key=lambda c: -order[c.index])
        required.extend(order[c.index] for c in rest[: self.k - len(required)])
        self.top_required = sorted(required, reverse=True)

    def _t(self, twos: int) -> int:
        """``T`` of RULES §6.4 for the led suit's pairs in ``twos``."""
        return tractor_match_of(twos, self.lead.tractor_lengths, self.trump_order, self.suit)

    def _best_tp(self) -> tuple[int, int]:
        s2 = self._s2
        t_best, p_best = self._t(s2), min(s2.bit_count(), self.pairs_cap)
        if not self.fixed:
            return (t_best, p_best)
        # With FTK cards fixed the room left may bind: search the pair sets (rare: FTK leads only).
        pairs = [c for b, c in self.trump_order.ranked[self.suit] if s2 & b]
        room = self.k - sum(self.fixed.values())
        cost = {c: 2 - self.fixed.get(c, 0) for c in pairs}
        free = [c for c in pairs if cost[c] == 0]
        others = sorted((c for c in pairs if cost[c] > 0), key=lambda c: cost[c])
        best = (0, 0)
        for size in range(len(others), -1, -1):
            for combo in itertools.combinations(others, size):
                if sum(cost[c] for c in combo) > room:
                    continue
                q = free + list(combo)
                tp = (
                    tractor_match(q, self.lead.tractor_lengths, self.trump_order, self.suit),
                    min(len(q), self.pairs_cap),
                )
                best = max(best, tp)
                if best == (t_best, p_best):
                    return best
        return best

    # -- the check ----------------------------------------------------------------
    def check(self, play: Sequence[Card]) -> Phrase | None:
        """None if ``play`` is a legal follow, else the reason (its English is ``str(reason)``).

        The reason names the cards the follower must include: the led suit's cards when too few
        were played, the 5·10·K, the highest trumps, the pairs or tractors held.
        """
        n = self.n
        if len(play) != n:
            return say("follow.count", n=n, played=len(play))
        miss = missing(self._ones, self._twos, play)
        if miss:
            return say("follow.not_held", cards=tuple(c for c in dict.fromkeys(play) if miss >> c.index & 1))
        p1, p2 = masks_of(play)
        mask = self.trump_order.suit_mask[self.suit]
        q1, q2 = p1 & mask, p2 & mask
        if q1.bit_count() + q2.bit_count() != self.k:
            held = tuple(self.suit_cards)
            played = q1.bit_count() + q2.bit_count()
            if self.k == self.n_suit and self.k < n:
                return say("follow.all_suit", suit=self.suit, held=len(held), cards=held)
            return say("follow.suit", suit=self.suit, need=self.k, played=played, held=len(held), cards=held)
        if self.k == self.n_suit or n == 1:
            return None
        if self.fixed or self.top_required is not None:
            effective = self.trump_order.effective
            suit_part = [c for c in play if effective[c.index] == self.suit]
            sc = count_cards(suit_part)
            fixed = tuple(c for c, m in self.fixed.items() for _ in range(m))
            if self.top_required is not None:
                for c, m in self.fixed.items():
                    if sc.get(c, 0) < m:
                        return say("follow.trump_ftk", cards=fixed)
                got = sorted((self.trump_order.order[c.index] for c in suit_part), reverse=True)
                if got != self.top_required:
                    return say("follow.top_trumps", cards=self._top_cards())
                return None
            for c, m in self.fixed.items():
                if sc.get(c, 0) < m:
                    return say("follow.ftk", suit=self.suit, cards=fixed)
        if self._t(q2) < self.best[0]:
            return say("follow.tractor", suit=self.suit, cards=self._pair_cards())
        if min(q2.bit_count(), self.pairs_cap) < self.best[1]:
            return say("follow.pairs", suit=self.suit, count=self.best[1], cards=self._pair_cards())
        return None

    def _top_cards(self) -> tuple[Card, ...]:
        """The trumps a trump 5·10·K lead asks for (调大主): the 5·10·K owed, then the highest."""
        order = self.trump_order.order
        need = list(self.top_required or ())
        rest = sorted(self.suit_cards, key=lambda c: -order[c.index])
        out: list[Card] = []
        for c in rest:
            value = order[c.index]
            if value in need:
                need.remove(value)
                out.append(c)
        return tuple(out)

    def _pair_cards(self) -> tuple[Card, ...]:
        """The pairs the follower holds in the led suit, highest first (each card twice)."""
        s2 = self._s2
        return tuple(c for b, c in self.trump_order.ranked[self.suit] if s2 & b for _ in (0, 1))

    # -- the generator --------------------------------------------------------------
    def suit_parts(self) -> Iterator[tuple[Card, ...]]:
        """Every legal choice of the cards of the led suit (as distinct multisets)."""
        if self.k == self.n_suit:
            yield tuple(self.suit_cards)
            return
        if self.n == 1:  # a single led: any card of the suit, strongest first
            s1 = self._s1
            for b, c in self.trump_order.ranked[self.suit]:
                if s1 & b:
                    yield (c,)
            return
        if self.top_required is not None:
            order = self.trump_order.order
            counts = count_cards(self.suit_cards)
            fixed: list[Card] = [c for c, m in self.fixed.items() for _ in range(m)]
            rest = dict(counts)
            for c in fixed:
                rest[c] -= 1
            need = sorted(self.top_required, reverse=True)
            for c in fixed:
                need.remove(order[c.index])
            # group the remaining need by order value; choose among equal cards
            by_order: dict[int, list[tuple[Card, int]]] = {}
            for c, m in rest.items():
                if m:
                    by_order.setdefault(order[c.index], []).append((c, m))
            choices: list[list[tuple[Card, ...]]] = []
            for value in sorted(set(need), reverse=True):
                want = need.count(value)
                pool = sorted(by_order.get(value, []), key=lambda cm: cm[0].index)
                choices.append(list(_multiset_combinations(pool, want)))
            for combo in itertools.product(*choices):
                yield tuple(fixed) + tuple(c for part in combo for c in part)
            return
        fixed_counts = self.fixed
        ranked = self.trump_order.ranked[self.suit]  # (strongest first, with each card's bit)
        s1, s2 = self._s1, self._s2
        pairs = [(b, c) for b, c in ranked if s2 & b]
        t_best, p_best = self.best
        tractors = bool(self.lead.tractor_lengths)
        k = self.k
        for size in range(len(pairs), -1, -1):
            if 2 * size > k:
                continue
            if min(size, self.pairs_cap) < p_best:
                break
            for q in itertools.combinations(pairs, size):
                chosen = 0
                for b, _ in q:
                    chosen |= b
                if (self._t(chosen) if tractors else 0) != t_best:
                    continue
                must: list[Card] = []
                if fixed_counts:
                    if any(m >= 2 and not chosen >> c.index & 1 for c, m in fixed_counts.items()):
                        continue
                    must = [c for c, m in fixed_counts.items() if not chosen >> c.index & 1 for _ in range(m)]
                    for c in must:
                        chosen |= 1 << c.index
                left = k - 2 * size - len(must)
                if left < 0:
                    continue
                singles = [c for b, c in ranked if s1 & b and not chosen & b]
                base = tuple(c for _, c in q for _ in range(2)) + tuple(must)
                for extra in itertools.combinations(singles, left):
                    yield base + extra

    def min_count(self, card: Card) -> int:
        """The fewest copies of ``card`` that any legal follow contains (逼红5 asks this of 5h, RULES §11.7)."""
        have = self.hand_counts.get(card, 0)
        if not have:
            return 0
        if self.trump_order.effective[card.index] == self.suit:
            return min(part.count(card) for part in self.suit_parts())
        # a card of another suit is forced only when the other free cards cannot fill the play
        free_n = self.n - self.k
        others = sum(m for c, m in self.hand_counts.items() if self.trump_order.effective[c.index] != self.suit)
        return max(0, free_n - (others - have))

    def legal_plays(self) -> Iterator[tuple[Card, ...]]:
        """Every legal follow (distinct multisets): suit part, then free cards if short of the suit."""
        free_n = self.n - self.k
        effective = self.trump_order.effective
        position = self.trump_order.sort_position
        others = sorted(
            ((c, m) for c, m in self.hand_counts.items() if effective[c.index] != self.suit),
            key=lambda cm: position[cm[0]],
        )
        for part in self.suit_parts():
            if free_n == 0:
                yield part
            else:
                for extra in _multiset_combinations(others, free_n):
                    yield part + extra


def check_follow(
    lead: Sequence[Card], hand: Sequence[Card], play: Sequence[Card], trump_order: TrumpOrder
) -> Phrase | None:
    """None if ``play`` legally follows ``lead`` from ``hand``, else the reason (RULES §6)."""
    return FollowRule(lead, hand, trump_order).check(play)


# -- throws (RULES §5) ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThrowResult:
    """Whether a lead stands; if not, what must be led instead and the penalty's card count."""

    ok: bool
    lead: Format
    failed: tuple[Unit, ...] = ()
    forced: tuple[Card, ...] = ()

    @property
    def penalty_cards(self) -> int:
        """Cards in the attempted throw, which the penalty counts (RULES §5.2); 0 when the lead stands."""
        return 0 if self.ok else self.lead.size


def unit_beaten(unit: Unit, hand_suit: Sequence[Card], trump_order: TrumpOrder) -> bool:
    """Whether a hand holds a unit of the same kind that beats ``unit`` (RULES §5.1)."""
    return unit_beaten_by(unit, masks_of(hand_suit), trump_order)


def unit_beaten_by(unit: Unit, held: CardMasks, trump_order: TrumpOrder) -> bool:
    """:func:`unit_beaten` of the cards held as bit masks (:mod:`chaodipi.masks`; other suits' cards are ignored)."""
    kind = unit.kind
    if kind is UnitKind.FTK or kind is UnitKind.FTK_PAIR:
        return False  # an FTK or FTK pair is never beaten inside its suit
    mask = trump_order.suit_mask[unit.suit]
    ones, twos = held[0] & mask, held[1] & mask
    if kind is UnitKind.TRACTOR:
        return any(
            len(run) >= unit.pairs and run[-1][1] > unit.strength for run in pair_runs_of(twos, trump_order, unit.suit)
        )
    top = trump_order.strongest(unit.suit, ones if kind is UnitKind.SINGLE else twos)
    return top is not None and trump_order.order[top.index] > unit.strength


def check_throw(lead: Sequence[Card], others: Sequence[Sequence[Card]], trump_order: TrumpOrder) -> ThrowResult:
    """Check a lead against the other hands (RULES §5.1) and find the forced play if it fails (§5.2)."""
    fmt = decompose(lead, trump_order, lead=True)
    if not fmt.is_throw:
        return ThrowResult(True, fmt)
    held = [masks_of(h) for h in others]
    failed = tuple(u for u in fmt.units if any(unit_beaten_by(u, h, trump_order) for h in held))
    if not failed:
        return ThrowResult(True, fmt)
    suit_rank = {s: i for i, s in enumerate(EFFECTIVE_SUITS[1:])}

    def natural(c: Card) -> int:
        return suit_rank[c.suit.value] if c.suit else -1

    if trump_order.rules.throw_fail_play == ThrowFailPlay.SMALLEST_CARD:

        def strength(c: Card) -> int:  # a 5h led as a heart (红心5下放) counts as a heart 5
            return (
                int(Rank.FIVE)
                if fmt.suit == "h" and trump_order.effective[c.index] == TRUMP
                else trump_order.order[c.index]
            )

        card = min(fmt.cards, key=lambda c: (strength(c), natural(c)))
        forced: tuple[Card, ...] = (card,)
    else:
        unit = min(
            failed, key=lambda u: (max(trump_order.order[c.index] for c in u.cards), u.size, natural(u.cards[0]))
        )
        forced = unit.cards
    return ThrowResult(False, fmt, failed, forced)
