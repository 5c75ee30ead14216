"""The ``search`` bot: determinized search over the rules bot's candidate plays.

At each play the bot samples the hidden cards consistently with everything its view shows
(its own hand, the cards played, the voids players showed, the cards bids showed, its own
burial), keeping of several such worlds the one in which the rules policy best explains the
plays the others made (:class:`Evidence`, :class:`Sampler`), plays the candidates out to the
end of the hand in each sampled world with the ``rules`` policy, and chooses the best average
outcome (winning the hand first, then the point margin). Candidates are raced on the same
deals, so the budget goes to the close choices. The burial, the bid at the countdown and (in
open games) frying are chosen the same way on sampled deals; bids during the deal are the
rules bot's. It never sees the hidden cards: it is built from its :class:`~chaodipi.hand.View`
alone. A time budget per decision and a seed make it reproducible for a given budget.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from chaodipi.bots.knowledge import Knowledge, order_of_view
from chaodipi.bots.rules_bot import RulesBot, choose_bury, holds_last_trick, play_out, ranked_plays
from chaodipi.cards import Card, Rank
from chaodipi.hand import Action, Phase, View
from chaodipi.levels import Side, seat_side
from chaodipi.position import Position
from chaodipi.rules import FryVisibility
from chaodipi.settlement import Progress
from chaodipi.trump import TrumpOrder
from chaodipi.units import PlayError, decompose

__all__ = ["Evidence", "SearchBot", "best_weighed", "points_so_far", "rollout", "sample_world"]

Play = tuple[Card, ...]

#: racing: candidates are compared after this many sampled deals, and dropped when clearly worse
_RACE_FROM = 4
_RACE_Z = 2.0


def _race(active: list[int], values: list[list[float]]) -> list[int]:
    """The candidates still worth sampling: those not clearly worse than the leader.

    Every candidate was played out on the same deals, so they are compared by their paired
    differences with the leader: one is dropped when it trails by more than ``_RACE_Z``
    standard errors, or when it has given exactly the leader's outcome on every deal so far
    (from twice ``_RACE_FROM`` deals: the choice between them does not matter).
    """
    runs = len(values[active[0]])
    if runs < _RACE_FROM or len(active) == 1:
        return active
    leader = max(active, key=lambda i: (statistics.fmean(values[i]), -i))
    keep = [leader]
    for i in active:
        if i == leader:
            continue
        diffs = [a - b for a, b in zip(values[leader], values[i], strict=True)]
        mean = statistics.fmean(diffs)
        se = statistics.stdev(diffs) / math.sqrt(runs)
        if mean > 0 and mean > _RACE_Z * se:
            continue  # clearly worse
        if runs >= 2 * _RACE_FROM and not any(diffs):
            continue  # the same outcome every time
        keep.append(i)
    return sorted(keep)


def sample_world(know: Knowledge, view: View, rng: random.Random) -> tuple[list[list[Card]], list[Card]] | None:
    """Deal the unseen cards to the other seats (and the kitty) consistently with the view.

    Cards a bid showed stay with their bidder (:attr:`Knowledge.shown`), and nobody gets a card
    of a suit it showed void in. Returns the four hands (the bot's own as it is) and the kitty,
    or None if no consistent deal was found quickly.
    """
    sizes = list(view.hand_sizes)
    kitty_known = view.kitty is not None
    kitty_size = 0 if (view.level == "flag" or kitty_known) else 8
    pool = know.unseen_cards()
    seats = [s for s in range(4) if s != view.seat]
    need = {s: sizes[s] for s in seats}
    if sum(need.values()) + kitty_size != len(pool):
        return None
    forced = know.shown
    for c, _, _ in forced:
        pool.remove(c)
    effective = know.trump_order.effective
    for attempt in range(30):
        rng.shuffle(pool)
        strict = attempt < 25  # the last tries ignore the voids rather than fail

        def eligible(c: Card, strict: bool = strict) -> list[int]:
            e = effective[c.index]
            return [s for s in seats if not strict or e not in know.voids[s]]

        # the shown cards first, then the most constrained cards: those few seats may hold
        order: list[tuple[Card, list[int], bool]] = [
            (c, [s] if effective[c.index] not in know.voids[s] else [], k) for c, s, k in forced
        ]
        order.extend(sorted(((c, eligible(c), True) for c in pool), key=lambda x: len(x[1])))
        left = dict(need)
        kitty_left = kitty_size
        hands: dict[int, list[Card]] = {s: [] for s in seats}
        kitty: list[Card] = []
        ok = True
        for c, allowed, kitty_ok in order:
            options = [s for s in allowed if left[s] > 0]
            weights = [left[s] for s in options]
            if kitty_left and kitty_ok:
                options.append(-1)
                weights.append(kitty_left)
            if not options:
                ok = False
                break
            pick = rng.choices(options, weights)[0]
            if pick == -1:
                kitty.append(c)
                kitty_left -= 1
            else:
                hands[pick].append(c)
                left[pick] -= 1
        if ok:
            full = [list(view.hand) if s == view.seat else hands[s] for s in range(4)]
            return full, list(view.kitty) if kitty_known and view.kitty is not None else kitty
        if attempt == 27:
            forced = []  # inconsistent with the shown cards: deal them freely
            pool = know.unseen_cards()
    return None


#: inference from the plays: how much less likely a world is for each play the rules policy would not
#: have made in it (an opponent's, then the partner's), how many recent plays are checked, and how
#: many worlds are drawn at most for one sample
_MISS_OPP = 0.1
_MISS_PARTNER = 0.5
_CHECKS = 30
_TRIES = 6


def _sorted(cards: Play) -> Play:
    return cards if len(cards) == 1 else tuple(sorted(cards, key=lambda c: c.index))


class Evidence:
    """The other seats' plays so far, to judge how likely a sampled world is ("Skat" style inference).

    In a sampled world every earlier position of the hand is known (each seat's hand then is its
    sampled hand plus the cards it played since), so the rules policy's play there can be compared
    with the play actually made. A world in which the policy would have played otherwise is less
    likely (by ``_MISS_OPP`` for an opponent, ``_MISS_PARTNER`` for the partner, whose play the
    policy predicts less well when it is a search bot). Only the last ``_CHECKS`` plays count.
    """

    def __init__(self, view: View, know: Knowledge) -> None:
        assert view.dealer is not None
        self.view = view
        self.trump_order = know.trump_order
        tricks = [t.plays for t in view.tricks]
        if view.current_trick:
            tricks.append(view.current_trick)
        self.tricks = tricks
        # the seat that knows the kitty: the last fryer whose fry stood, else the dealer
        burier = view.dealer
        for b in view.bids:
            if b.fry and b.valid is not False:
                burier = b.player
        self.burier = burier
        # later[t][s]: the cards seat s played in tricks t and after
        later: list[list[list[Card]]] = [[[] for _ in range(4)] for _ in range(len(tricks) + 1)]
        for t in range(len(tricks) - 1, -1, -1):
            for s in range(4):
                later[t][s] = list(later[t + 1][s])
            for seat, cards in tricks[t]:
                later[t][seat].extend(cards)
        self.later = later
        # voids[t]: the voids the plays before trick t showed (as Knowledge.from_view counts them)
        voids: list[list[set[str]]] = [[set(), set(), set(), set()]]
        effective = self.trump_order.effective
        for plays in tricks:
            vs = [set(v) for v in voids[-1]]
            try:
                suit = decompose(plays[0][1], self.trump_order, lead=True).suit
            except PlayError:
                suit = None
            if suit is not None:
                n = len(plays[0][1])
                for seat, cards in plays[1:]:
                    if sum(1 for c in cards if effective[c.index] == suit) < n:
                        vs[seat].add(suit)
            voids.append(vs)
        self.voids = voids
        partner = (view.seat + 2) % 4
        checks: list[tuple[int, int, int, float]] = []  # (trick, position, seat, weight of a miss)
        for t in range(len(tricks) - 1, -1, -1):
            for j in range(len(tricks[t]) - 1, -1, -1):
                seat = tricks[t][j][0]
                if seat == view.seat or seat in view.left:
                    continue
                checks.append((t, j, seat, _MISS_PARTNER if seat == partner else _MISS_OPP))
                if len(checks) >= _CHECKS:
                    break
            if len(checks) >= _CHECKS:
                break
        self.checks = checks

    def consistent(self, hands: list[list[Card]], kitty: list[Card], threshold: float) -> float:
        """The world's likelihood (1 when the policy makes every checked play), stopping below ``threshold``."""
        w = 1.0
        for k in range(len(self.checks)):
            if self.missed(k, hands, kitty):
                w *= self.checks[k][3]
                if w < threshold:
                    return w
        return w

    def missed(self, k: int, hands: list[list[Card]], kitty: list[Card]) -> bool:
        """Whether the rules policy would have played otherwise than check ``k``'s play in this world."""
        view = self.view
        assert view.dealer is not None
        t, j, seat, _ = self.checks[k]
        plays = self.tricks[t]
        later = self.later[t]
        mine = self.trump_order.sorted(hands[seat] + later[seat])  # (ordered as a view orders a hand)
        pool: list[Card] = []
        if j == 0:  # a lead reads what the others may hold and the voids
            for other in range(4):
                if other != seat:
                    pool.extend(hands[other])
                    pool.extend(later[other])
            if seat != self.burier:
                pool.extend(kitty)
        ranked = ranked_plays(
            mine, seat, self.trump_order, view.rules, view.dealer, plays[:j], pool, self.voids[t], best=True
        )
        actual = _sorted(plays[j][1])
        top = ranked[0][0]
        # (plays the policy scores alike are told apart by the hand's order: any of them counts)
        return ranked[0][1] != actual and not any(p == actual and sc >= top - 1e-9 for sc, p in ranked)


World = tuple[list[list[Card]], list[Card]]


class Sampler:
    """Sampled worlds, each the likeliest of ``tries`` drawn by :func:`sample_world` (:class:`Evidence`).

    Each world drawn is judged by how many of the other seats' checked plays the rules policy would
    have made in it; the best one (the first that explains them all) is used. Independent draws keep
    the worlds as varied as plain sampling (a Metropolis chain over card swaps placed the cards
    better but, its worlds being alike, chose worse: see SEARCH_NOTES.md). Without evidence (or with
    nothing to check) every world is a plain :func:`sample_world`.
    """

    def __init__(self, know: Knowledge, view: View, rng: random.Random, evidence: Evidence | None, tries: int) -> None:
        self.know, self.view, self.rng = know, view, rng
        self.evidence = evidence if evidence is not None and evidence.checks else None
        self.tries = tries

    def next(self) -> World | None:
        """The next sampled world (the bot's own hand as it is), or None if none consistent was found."""
        evidence = self.evidence
        if evidence is None:
            return sample_world(self.know, self.view, self.rng)
        best: World | None = None
        best_w = -1.0
        for _ in range(self.tries):
            world = sample_world(self.know, self.view, self.rng)
            if world is None:
                return best
            w = evidence.consistent(world[0], world[1], best_w)
            if w > best_w:
                best, best_w = world, w
                if w >= 1.0:
                    break
        return best


class SearchBot:
    """Determinized search (see the module docstring)."""

    name = "search"

    def __init__(self, seed: int = 0, budget: float = 0.5, samples: float = 100, candidates: float = 5) -> None:
        self.rng = random.Random(seed)
        self.rules_bot = RulesBot(seed)
        self.budget = float(budget)
        self.max_samples = int(samples)
        self.max_candidates = int(candidates)
        self.bury_budget = min(0.8, 3 * self.budget)
        self.tries = _TRIES

    def act(self, view: View) -> Action | None:
        """The search bot's action for the view, within its time budget; it shows 5h 5h when it may.

        Plays race the rules bot's top candidates over sampled deals. Once the dealer is known, the
        burial (not in a flag hand), a bid at the countdown and open fries are judged on sampled
        deals too; the rest (bids during the deal, dark fries) are the rules bot's choice.
        """
        if view.legal.show_red5:
            return Action.show_red5(view.seat)  # showing 5h 5h can only help the scoring side (RULES §11.5)
        if view.phase == Phase.BURY and view.dealer is not None and view.level != "flag":
            return self._bury(view)
        if view.phase == Phase.COUNTDOWN and view.dealer is not None and view.legal.bids:
            return self._declare(view, "bid")
        if (
            view.phase == Phase.FRY
            and view.dealer is not None
            and view.legal.fries
            and view.rules.fry_visibility == FryVisibility.OPEN
        ):
            # dark fries are judged only when frying ends (a weaker one fails): left to the rules bot
            return self._declare(view, "fry")
        if view.phase != Phase.PLAY:
            return self.rules_bot.act(view)
        know = Knowledge.from_view(view)
        pool = know.unseen_cards()
        assert view.dealer is not None
        ranked = ranked_plays(
            view.hand, view.seat, know.trump_order, view.rules, view.dealer, view.current_trick, pool, know.voids
        )
        cands = [p for _, p in ranked[: self.max_candidates]]
        if len(cands) == 1:
            return Action.play(view.seat, cands[0])
        means, active = self.weigh_plays(view, know, cands)
        return Action.play(view.seat, cands[best_weighed(means, active)])

    def weigh_plays(self, view: View, know: Knowledge, cands: Sequence[Play]) -> tuple[list[float], list[int]]:
        """Race the candidate plays over sampled deals, within the budget: each one's mean utility (over the
        deals it was played out on: a candidate dropped from the race has fewer), and the candidates still in
        the race at the end (the bot plays the best of those). No deal sampled, or the last trick (four cards or
        fewer left in all: nothing to weigh): no means, nobody in the race.

        ``chaodipi train --teacher search`` labels the learned bot's self-play with these means.
        """
        if sum(view.hand_sizes) <= 4:
            return [], []
        deadline = time.perf_counter() + self.budget
        values: list[list[float]] = [[] for _ in cands]
        active = list(range(len(cands)))
        sampler = Sampler(know, view, self.rng, Evidence(view, know) if self.tries > 1 else None, self.tries)
        for _ in range(self.max_samples):
            world = sampler.next()
            if world is None:
                break
            hands, kitty = world
            for i in active:
                values[i].append(self._rollout(view, know.trump_order, hands, kitty, cands[i]))
            if time.perf_counter() > deadline:
                break
            active = _race(active, values)
            if len(active) == 1:
                break
        if not values[active[0]]:
            return [], []
        return [statistics.fmean(v) for v in values], active

    def _declare(self, view: View, kind: str) -> Action | None:
        """A countdown bid (``kind="bid"``) or a fry (``kind="fry"``), or not, as sampled deals say is best.

        Each option — none (the standing trump, or no-trump if none), or each legal bid or fry
        naming another trump — is played out on sampled deals of the cards this player has not
        seen: whoever takes the kitty (the dealer after a countdown bid, this player after a fry)
        buries as the rules bot does, then the rules policy plays the hand. ``None`` means no bid;
        for frying it becomes a pass.
        """
        assert view.dealer is not None
        options: list[Action | None] = [None]
        seen_trumps: set[str | None] = {view.trump}
        for b in view.legal.bids if kind == "bid" else view.legal.fries:
            action = b.action(view.seat, fry=kind == "fry")
            trump = _bid_trump(view, action)
            if trump not in seen_trumps:
                seen_trumps.add(trump)
                options.append(action)
        if len(options) > 1:
            orders = [
                order_of_view(replace(view, trump=(view.trump if o is None else _bid_trump(view, o)) or "nt"))
                for o in options
            ]
            # the kitty after the choice: the dealer takes it at the countdown; a fry takes it, a pass leaves it
            takers = [view.dealer if kind == "bid" else (None if o is None else view.seat) for o in options]

            known = list(view.kitty or ())  # the kitty this player buried, when it is still there

            def score(i: int, others: list[list[Card]], rest: list[Card]) -> float:
                trump_order = orders[i]
                dealt = [list(view.hand) if s == view.seat else others[(s - view.seat - 1) % 4] for s in range(4)]
                kitty = known or rest[:8]
                taker = takers[i]
                if taker is None:
                    return self._rollout(view, trump_order, dealt, list(kitty), None)
                pick = dealt[taker] + kitty
                bury = choose_bury(pick, trump_order, own_side_holds=holds_last_trick(pick, trump_order))
                for c in bury:
                    pick.remove(c)
                dealt[taker] = pick
                return self._rollout(view, trump_order, dealt, list(bury), None)

            choice = options[self._best_on_sampled_deals([*view.hand, *known], len(options), score)]
        else:
            choice = None
        if kind == "fry" and choice is None:
            return Action.pass_fry(view.seat)
        return choice

    def _bury(self, view: View) -> Action:
        """Try a few burials (more or fewer points, voiding harder) and keep the best on sampled deals."""
        trump_order = order_of_view(view) if view.trump is not None else order_of_view(replace(view, trump="nt"))
        hand = list(view.hand)
        cands: list[Play] = []
        holds = holds_last_trick(hand, trump_order)
        for pw, vw in ((None, 1.5), (12.0, 1.5), (-12.0, 1.5), (12.0, 4.0), (-12.0, 4.0)):
            bury = tuple(
                sorted(
                    choose_bury(hand, trump_order, own_side_holds=holds, point_weight=pw, void_weight=vw),
                    key=lambda c: c.index,
                )
            )
            if bury not in cands:
                cands.append(bury)
        if len(cands) == 1:
            return Action.bury(view.seat, cands[0])
        kept = []
        for bury in cands:
            mine = list(hand)
            for c in bury:
                mine.remove(c)
            kept.append(mine)

        def score(i: int, others: list[list[Card]], rest: list[Card]) -> float:
            hands = [kept[i] if s == view.seat else others[(s - view.seat - 1) % 4] for s in range(4)]
            return self._rollout(view, trump_order, hands, list(cands[i]), None)

        return Action.bury(view.seat, cands[self._best_on_sampled_deals(hand, len(cands), score)])

    def _best_on_sampled_deals(
        self, own: Sequence[Card], count: int, score: Callable[[int, list[list[Card]], list[Card]], float]
    ) -> int:
        """The option (0..count-1) with the best total score over random deals of the cards ``own`` lacks.

        Each deal gives the three other seats 25 cards each (in play order after the bot) and leaves the
        rest (the kitty, when there is one); every option is scored on the same deals, until the budget.
        """
        unseen = [c for c in Card.ALL for _ in (0, 1)]
        for c in own:
            unseen.remove(c)
        deadline = time.perf_counter() + self.bury_budget
        totals = [0.0] * count
        for _ in range(self.max_samples):
            self.rng.shuffle(unseen)
            others = [unseen[0:25], unseen[25:50], unseen[50:75]]
            for i in range(count):
                totals[i] += score(i, others, unseen[75:])
            if time.perf_counter() > deadline:
                break
        return max(range(count), key=lambda i: (totals[i], -i))

    def _rollout(
        self, view: View, trump_order: TrumpOrder, hands: list[list[Card]], kitty: list[Card], cand: Play | None
    ) -> float:
        """Play the hand out with the rules policy (from ``cand``, or from the first lead after a burial)."""
        return rollout(view, trump_order, hands, kitty, cand)


def best_weighed(means: Sequence[float], active: Sequence[int]) -> int:
    """The candidate :meth:`SearchBot.weigh_plays` found best: the highest mean still in the race, ties going to
    the rules bot's own order (the first); the rules bot's best (0) when no deal was sampled."""
    if not active:
        return 0
    return max(active, key=lambda i: (round(means[i], 6), -i))


def rollout(
    view: View, trump_order: TrumpOrder, hands: Sequence[Sequence[Card]], kitty: Sequence[Card], cand: Play | None
) -> float:
    """The seat's utility (:func:`_utility`) when the hand is played out with the rules policy in the world
    ``hands`` and ``kitty`` (a sampled one, or the true one for the learned bot's training labels), from
    ``cand`` played by the view's seat, or (None) from the first lead after a burial; the points so far
    (:func:`points_so_far`: the tricks' and every adjustment, below zero or not) count as they do in the hand."""
    rules = view.rules
    assert view.dealer is not None
    level = None if view.level == "flag" else Rank.parse(view.level)
    current: tuple[tuple[int, Play], ...] = ()
    if cand is None:
        leader = view.dealer
    else:
        leader = view.current_trick[0][0] if view.current_trick else view.seat
        current = view.current_trick
    captured, adjusted = points_so_far(view)
    hand = Position.in_play(
        rules,
        hands=hands,
        kitty=kitty,
        dealer=view.dealer,
        trump=trump_order.trump,
        leader=leader,
        dealer_progress=Progress(rules.circles if level is None else 1, level),
        captured=captured,
        current=current,
        adjustments=[("the changes so far", adjusted)] if adjusted else [],
    ).hand()
    if cand is not None:
        hand.play_trusted(view.seat, cand)  # one of ranked_plays', legal by construction
    play_out(hand, trump_order)
    assert hand.result is not None
    return _utility(view, hand.result.points)


def points_so_far(view: View) -> tuple[tuple[int, int], int]:
    """The points the dealer side and the scoring side took in the view's finished tricks, and the change to the
    scoring side's points besides them: failed throws, failed dark fries, 逼红5, a referee's penalty (the view's
    ``points`` less its tricks'). The change may take the points below zero; a position holds it as an
    adjustment (``adjust``, docs/position.md), since the points taken in tricks never are.

    >>> from chaodipi.hand import Hand
    >>> from chaodipi.cards import shuffled_deck
    >>> from chaodipi.rules import RuleSet
    >>> hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(1)), first_seat=0, dealer=0)
    >>> hand.adjustments.append(("failed throw by player 1", -20))
    >>> points_so_far(hand.view(1))
    ((0, 0), -20)
    """
    assert view.dealer is not None
    taken = [0, 0]
    for trick in view.tricks:
        taken[0 if seat_side(trick.winner, view.dealer) is Side.DEALER else 1] += trick.points
    return (taken[0], taken[1]), view.points - taken[1]


def _bid_trump(view: View, action: Action) -> str:
    """The trump a bid would name: its suit, or ``nt``."""
    if action.choose is not None:
        return action.choose
    card = action.cards[0]
    return "nt" if card.suit is None else card.suit.value


def _utility(view: View, points: int) -> float:
    """Winning the hand (holding or taking the table) first, then the point margin."""
    rules = view.rules
    assert view.dealer is not None
    threshold = rules.flag_threshold if view.level == "flag" else 80
    dealer_side = (view.seat - view.dealer) % 2 == 0
    margin = (threshold - points) if dealer_side else (points - threshold + 5)
    won = margin > 0
    return (1.0 if won else -1.0) + margin / 100.0
