"""The follow rule and the leads as they were before issue 24, on lists of cards: the oracle of the bit masks.

Issue 24 moved the engine's card sets to bit masks (:mod:`chaodipi.masks`). This module keeps the list-based
code of commit e271dbb, frozen, so that tests/test_masks.py can check that the new code answers every question
as the old one did: the same follow checks (legal or not, and the same reason), the same legal follows, the same
single-unit leads in the same order. It is test code: nothing in src/ imports it.
"""

# ruff: noqa
# mypy: ignore-errors

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from chaodipi.cards import Card, Rank, Suit
from chaodipi.phrases import Phrase, say
from chaodipi.play import ThrowResult
from chaodipi.rules import ThrowFailPlay, TrumpFtkFollow
from chaodipi.trump import EFFECTIVE_SUITS, TRUMP, TrumpOrder
from chaodipi.units import Format, Unit, UnitKind, count_cards, decompose, ftk_suits


def pair_runs(pairs: Iterable[Card], trump_order: TrumpOrder, suit: str) -> list[list[tuple[Card, int]]]:
    """Maximal runs of adjacent pairs on the tractor chains of ``suit`` (RULES §4.1).

    Each run is a list of (card, tractor value), low to high. A run of length 1 is
    a lone pair. An ace may end one run and start another (ace-low and ace-high):
    callers that use both must not use the ace twice.
    """
    have = set(pairs)
    runs: list[list[tuple[Card, int]]] = []
    for chain in trump_order.chains[suit]:
        run: list[tuple[Card, int]] = []
        for card, value in chain:
            if card in have and not (run and run[0][0] is card):
                run.append((card, value))
                continue
            if len(run) > 0:
                runs.append(run)
            run = [(card, value)] if card in have else []
        if run:
            runs.append(run)
    return runs




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


def _run_length_variants(pairs: Sequence[Card], trump_order: TrumpOrder, suit: str) -> list[tuple[int, ...]]:
    """Run lengths of these pairs; when an ace could sit at both ends, one variant per end."""
    runs = pair_runs(pairs, trump_order, suit)
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
    if not lead_tractors or len(pairs) < 2:
        return 0
    return max(_best_match(v, lead_tractors) for v in _run_length_variants(pairs, trump_order, suit))


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
    follower's whole hand before playing.
    """

    __slots__ = (
        "_hand",
        "_hand_counts",
        "best",
        "fixed",
        "k",
        "lead",
        "n",
        "pairs_cap",
        "suit",
        "suit_cards",
        "top_required",
        "trump_order",
    )

    def __init__(self, lead: Sequence[Card] | Format, hand: Sequence[Card], trump_order: TrumpOrder) -> None:
        self.trump_order = trump_order
        self.lead = lead if isinstance(lead, Format) else decompose(lead, trump_order, lead=True)
        self.n = self.lead.size
        self.suit = self.lead.suit
        effective = trump_order.effective
        self._hand = tuple(hand)  # (as it was: the caller may change its list later)
        self._hand_counts: dict[Card, int] | None = None  # (counted when first asked for)
        self.suit_cards = [c for c in hand if effective[c.index] == self.suit]
        self.k = min(self.n, len(self.suit_cards))
        self.pairs_cap = self.lead.pair_count
        self.fixed: dict[Card, int] = {}
        self.top_required: list[int] | None = None
        self.best = (0, 0)
        if self.k == len(self.suit_cards):
            return  # the whole suit must be played: nothing to choose (RULES §6.1)
        if self.suit == TRUMP and self.lead.has_ftk:
            self._init_trump_ftk()
            return
        if self.lead.has_ftk and trump_order.rules.ftk_must_follow:
            self.fixed = self._ftk_duty()
        self.best = self._best_tp()

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

    def _tp(self, counts: dict[Card, int]) -> tuple[int, int]:
        pairs = [c for c, n in counts.items() if n >= 2]
        t = tractor_match(pairs, self.lead.tractor_lengths, self.trump_order, self.suit)
        return (t, min(len(pairs), self.pairs_cap))

    def _best_tp(self) -> tuple[int, int]:
        counts = count_cards(self.suit_cards)
        pairs = [c for c, n in counts.items() if n >= 2]
        t_best = tractor_match(pairs, self.lead.tractor_lengths, self.trump_order, self.suit)
        if not self.fixed:
            return (t_best, min(len(pairs), self.pairs_cap))
        # With FTK cards fixed the room left may bind: search the pair sets (rare: FTK leads only).
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
                if best == (t_best, min(len(pairs), self.pairs_cap)):
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
        pc = count_cards(play)
        missing = [c for c, m in pc.items() if self.hand_counts.get(c, 0) < m]
        if missing:
            return say("follow.not_held", cards=tuple(missing))
        effective = self.trump_order.effective
        suit_part = [c for c in play if effective[c.index] == self.suit]
        if len(suit_part) != self.k:
            held = tuple(self.suit_cards)
            if self.k == len(self.suit_cards) and self.k < n:
                return say("follow.all_suit", suit=self.suit, held=len(held), cards=held)
            return say("follow.suit", suit=self.suit, need=self.k, played=len(suit_part), held=len(held), cards=held)
        if self.k == len(self.suit_cards):
            return None
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
        t, p = self._tp(sc)
        if t < self.best[0]:
            return say("follow.tractor", suit=self.suit, cards=self._pair_cards())
        if p < self.best[1]:
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
        order = self.trump_order.order
        counts = count_cards(self.suit_cards)
        pairs = sorted((c for c, m in counts.items() if m >= 2), key=lambda c: -order[c.index])
        return tuple(c for c in pairs for _ in (0, 1))

    # -- the generator --------------------------------------------------------------
    def suit_parts(self) -> Iterator[tuple[Card, ...]]:
        """Every legal choice of the cards of the led suit (as distinct multisets)."""
        order = self.trump_order.order
        counts = count_cards(self.suit_cards)
        if self.k == len(self.suit_cards):
            yield tuple(self.suit_cards)
            return
        if self.top_required is not None:
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
        pairs = sorted((c for c, m in counts.items() if m >= 2), key=lambda c: -order[c.index])
        for size in range(len(pairs), -1, -1):
            if 2 * size > self.k:
                continue
            if min(size, self.pairs_cap) < self.best[1]:
                break
            for q in itertools.combinations(pairs, size):
                if (
                    tractor_match(q, self.lead.tractor_lengths, self.trump_order, self.suit),
                    min(size, self.pairs_cap),
                ) != self.best:
                    continue
                qset = set(q)
                must = [c for c, m in fixed_counts.items() if c not in qset for _ in range(m)]
                if any(fixed_counts.get(c, 0) >= 2 and c not in qset for c in fixed_counts):
                    continue
                left = self.k - 2 * size - len(must)
                if left < 0:
                    continue
                singles = sorted((c for c in counts if c not in qset and c not in must), key=lambda c: -order[c.index])
                base = tuple(c for c in q for _ in range(2)) + tuple(must)
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



class LeadChoices:
    """:func:`unit_leads` as a lazy sequence: counted at once, each suit's units made when first asked for.

    A policy that picks one lead at random (``choices[rng.randrange(len(choices))]``, as
    ``rng.choice`` does) makes the units of one suit, not of all five.

    >>> from chaodipi.cards import parse_cards
    >>> from chaodipi.rules import RuleSet
    >>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
    >>> leads = LeadChoices(parse_cards("9h 9h Th Th 5c Tc Kc"), to)
    >>> len(leads), str(leads[5]), [str(u) for u in leads.of_suit("c")]
    (9, '5c Tc Kc', ['5c Tc Kc', 'Kc', 'Tc', '5c'])
    """

    __slots__ = ("_built", "_counts", "_ftks", "_hand", "_runs", "_sizes", "_suits", "_trump_order")

    def __init__(self, hand: Sequence[Card], trump_order: TrumpOrder) -> None:
        self._hand = hand
        self._trump_order = trump_order
        effective = trump_order.effective
        by_suit: dict[str, dict[Card, int]] = {}
        for c in hand:  # one pass: each effective suit's cards, counted
            e = effective[c.index]
            counts = by_suit.get(e)
            if counts is None:
                by_suit[e] = {c: 1}
            else:
                counts[c] = counts.get(c, 0) + 1
        self._suits = [suit for suit in EFFECTIVE_SUITS if suit in by_suit]
        self._counts = by_suit
        self._runs: dict[str, list[list[tuple[Card, int]]]] = {}
        self._sizes: list[int] = []
        self._built: dict[str, list[Unit]] = {}
        self._ftks: dict[str, list[list[int]]] = {}
        ftk_pair = trump_order.rules.ftk_pair
        for suit in self._suits:
            counts = by_suit[suit]
            pairs = [c for c, n in counts.items() if n >= 2]
            size = len(pairs) + len(counts)  # the pairs and the singles
            if len(pairs) >= 2:
                runs = [r for r in pair_runs(pairs, trump_order, suit) if len(r) >= 2]
                self._runs[suit] = runs
                size += sum(len(r) * (len(r) - 1) // 2 for r in runs)  # a run of n pairs: n-1 + n-2 + ... + 1
            holdings = self._ftks[suit] = self._ftk_holdings(suit)
            for have in holdings:
                size += (ftk_pair and min(have) >= 2) + (min(have) >= 1)
            self._sizes.append(size)

    def _ftk_holdings(self, suit: str) -> list[list[int]]:
        """For each FTK of ``suit`` (RULES §4.2), how many of its 5, 10 and K the hand holds."""
        effective, counts = self._trump_order.effective, self._counts[suit]
        out = []
        for x in ftk_suits(self._trump_order, suit, lead=True):
            trio = _FTK_TRIOS[x]
            out.append([counts.get(c, 0) if effective[c.index] == suit else self._hand.count(c) for c in trio])
        return out

    def suit_counts(self) -> dict[str, dict[Card, int]]:
        """The hand's cards counted, by effective suit (read it, do not change it)."""
        return self._counts

    def __len__(self) -> int:
        return sum(self._sizes)

    def __getitem__(self, i: int) -> Unit:
        if i < 0:
            i += len(self)
        if i < 0:
            raise IndexError("lead index out of range")
        for suit, size in zip(self._suits, self._sizes, strict=True):
            if i < size:
                return self.of_suit(suit)[i]
            i -= size
        raise IndexError("lead index out of range")

    def __iter__(self) -> Iterator[Unit]:
        for suit in self._suits:
            yield from self.of_suit(suit)

    def of_suit(self, suit: str) -> list[Unit]:
        """The single-unit leads of one effective suit, in :func:`unit_leads`' order (made once)."""
        built = self._built.get(suit)
        if built is not None:
            return built
        out: list[Unit] = []
        counts = self._counts.get(suit)
        if counts is None:
            return out
        trump_order = self._trump_order
        for run in sorted(self._runs.get(suit, ()), key=lambda r: -r[-1][1]):
            for length in range(len(run), 1, -1):
                for start in range(len(run) - length, -1, -1):
                    seg = run[start : start + length]
                    tcards = tuple(c for c, _ in reversed(seg) for _ in range(2))
                    out.append(Unit(UnitKind.TRACTOR, tcards, suit, seg[-1][1]))
        ftk_pair = trump_order.rules.ftk_pair
        for x, have in zip(ftk_suits(trump_order, suit, lead=True), self._ftks[suit], strict=True):
            trio = _FTK_TRIOS[x]
            if ftk_pair and min(have) >= 2:
                out.append(Unit(UnitKind.FTK_PAIR, tuple(c for c in trio for _ in range(2)), suit, 0))
            if min(have) >= 1:
                out.append(Unit(UnitKind.FTK, trio, suit, 0))
        ranked = sorted(counts, key=trump_order.strength_position.__getitem__)
        singles, pairs = _simple_units(trump_order)
        out.extend([pairs[c] for c in ranked if counts[c] >= 2])
        out.extend([singles[c] for c in ranked])
        self._built[suit] = out
        return out



def _simple_units(trump_order: TrumpOrder) -> list[dict[Card, Unit]]:
    effective, order = trump_order.effective, trump_order.order
    return [
        {c: Unit(UnitKind.SINGLE, (c,), effective[c.index], order[c.index]) for c in Card.ALL},
        {c: Unit(UnitKind.PAIR, (c, c), effective[c.index], order[c.index]) for c in Card.ALL},
    ]


_FTK_TRIOS: dict[Suit, tuple[Card, Card, Card]] = {
    x: (Card.of(Rank.FIVE, x), Card.of(Rank.TEN, x), Card.of(Rank.KING, x)) for x in Suit
}


def unit_beaten(unit: Unit, hand_suit: Sequence[Card], trump_order: TrumpOrder) -> bool:
    """Whether a hand holds a unit of the same kind that beats ``unit`` (RULES §5.1)."""
    order = trump_order.order
    if unit.kind == UnitKind.SINGLE:
        return any(order[c.index] > unit.strength for c in hand_suit)
    counts = count_cards(hand_suit)
    pairs = [c for c, n in counts.items() if n >= 2]
    if unit.kind == UnitKind.PAIR:
        return any(order[c.index] > unit.strength for c in pairs)
    if unit.kind == UnitKind.TRACTOR:
        return any(
            len(run) >= unit.pairs and run[-1][1] > unit.strength for run in pair_runs(pairs, trump_order, unit.suit)
        )
    return False  # an FTK or FTK pair is never beaten inside its suit


def check_throw(lead: Sequence[Card], others: Sequence[Sequence[Card]], trump_order: TrumpOrder) -> ThrowResult:
    """Check a lead against the other hands (RULES §5.1) and find the forced play if it fails (§5.2)."""
    fmt = decompose(lead, trump_order, lead=True)
    if not fmt.is_throw:
        return ThrowResult(True, fmt)
    effective = trump_order.effective
    hands = [[c for c in h if effective[c.index] == fmt.suit] for h in others]
    failed = tuple(u for u in fmt.units if any(unit_beaten(u, h, trump_order) for h in hands))
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
