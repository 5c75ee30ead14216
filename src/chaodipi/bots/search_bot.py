"""The ``search`` bot: determinized search over the rules bot's candidate plays.

At each play the bot samples the hidden cards consistently with everything its view shows
(its own hand, the cards played, the voids players showed, its own burial), plays every
candidate out to the end of the hand in each sampled world with the ``rules`` policy, and
chooses the best average outcome (levels won or lost, then the point margin). It never sees
the hidden cards: it is built from its :class:`~chaodipi.hand.View` alone. Bids, burial and
frying are the rules bot's. A time budget per decision and a seed make it reproducible for a
given budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from chaodipi.bots.knowledge import Knowledge, order_of_view
from chaodipi.bots.rules_bot import RulesBot, choose_bury, choose_play, holds_last_trick, ranked_plays
from chaodipi.cards import Card, Rank, parse_cards
from chaodipi.hand import Action, Hand, Phase, View
from chaodipi.settlement import Progress
from chaodipi.trump import TrumpOrder

__all__ = ["SearchBot", "sample_world"]

Play = tuple[Card, ...]


def sample_world(know: Knowledge, view: View, rng: random.Random) -> tuple[list[list[Card]], list[Card]] | None:
    """Deal the unseen cards to the other seats (and the kitty) consistently with the shown voids.

    Returns the four hands (the bot's own as it is) and the kitty, or None if no consistent
    deal was found quickly.
    """
    sizes = list(view.hand_sizes)
    kitty_known = view.kitty is not None
    kitty_size = 0 if (view.level == "flag" or kitty_known) else 8
    pool = [c for c, n in know.unseen.items() for _ in range(n)]
    seats = [s for s in range(4) if s != view.seat]
    need = {s: sizes[s] for s in seats}
    if sum(need.values()) + kitty_size != len(pool):
        return None
    eff = know.to.eff
    for attempt in range(30):
        rng.shuffle(pool)

        # most constrained cards first: those few seats may hold
        strict = attempt < 25  # the last tries ignore the voids rather than fail

        def eligible(c: Card, strict: bool = strict) -> list[int]:
            e = eff[c.index]
            return [s for s in seats if not strict or e not in know.voids[s]]

        order = sorted(pool, key=lambda c: len(eligible(c)))
        left = dict(need)
        kitty_left = kitty_size
        hands: dict[int, list[Card]] = {s: [] for s in seats}
        kitty: list[Card] = []
        ok = True
        for c in order:
            options = [s for s in eligible(c) if left[s] > 0]
            weights = [left[s] for s in options]
            if kitty_left:
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
    return None


class SearchBot:
    """Determinized search (see the module docstring)."""

    name = "search"

    def __init__(self, seed: int = 0, budget: float = 0.25, samples: float = 40, candidates: float = 4) -> None:
        self.rng = random.Random(seed)
        self.rules_bot = RulesBot(seed)
        self.budget = float(budget)
        self.max_samples = int(samples)
        self.max_candidates = int(candidates)
        self.bury_budget = min(0.8, 3 * self.budget)

    def act(self, view: View) -> Action | None:
        if view.phase == Phase.BURY and view.dealer is not None and view.level != "flag":
            return self._bury(view)
        if view.phase == Phase.COUNTDOWN and view.dealer is not None and view.legal.get("bids"):
            return self._countdown_bid(view)
        if view.phase != Phase.PLAY:
            return self.rules_bot.act(view)
        know = Knowledge.from_view(view)
        pool = [c for c, n in know.unseen.items() for _ in range(n)]
        assert view.dealer is not None
        ranked = ranked_plays(
            view.hand, view.seat, know.to, view.rules, view.dealer, view.current_trick, pool, know.voids
        )
        cands = [p for _, p in ranked[: self.max_candidates]]
        if len(cands) == 1 or sum(view.hand_sizes) <= 4:
            return Action("play", view.seat, cands[0])
        deadline = time.perf_counter() + self.budget
        totals = [0.0] * len(cands)
        runs = 0
        for _ in range(self.max_samples):
            world = sample_world(know, view, self.rng)
            if world is None:
                break
            hands, kitty = world
            values = [self._rollout(view, know.to, hands, kitty, cand) for cand in cands]
            for i, v in enumerate(values):
                totals[i] += v
            runs += 1
            if time.perf_counter() > deadline:
                break
        if runs == 0:
            return Action("play", view.seat, cands[0])
        # ties go to the rules bot's own order
        best = max(range(len(cands)), key=lambda i: (round(totals[i] / runs, 6), -i))
        return Action("play", view.seat, cands[best])

    def _countdown_bid(self, view: View) -> Action | None:
        """At the countdown, with the whole hand known: bid, or not, as sampled deals say is best.

        Each option (no bid — the standing trump, or no-trump if none —, or a legal bid) is played
        out on sampled deals: the dealer takes the kitty and buries as the rules bot does, then
        the rules policy plays the hand.
        """
        assert view.dealer is not None
        options: list[Action | None] = [None]
        seen_trumps: set[str | None] = {view.trump}
        for b in view.legal.get("bids", []):
            cards = tuple(parse_cards(str(b["cards"])))
            choose = b.get("choose")
            action = Action("bid", view.seat, cards, None if choose is None else str(choose))
            trump = _bid_trump(view, action)
            if trump not in seen_trumps:
                seen_trumps.add(trump)
                options.append(action)
        if len(options) == 1:
            return None
        dealer = view.dealer
        orders = [
            order_of_view(replace(view, trump=(view.trump if o is None else _bid_trump(view, o)) or "nt"))
            for o in options
        ]

        def score(i: int, others: list[list[Card]], rest: list[Card]) -> float:
            to = orders[i]
            dealt = [list(view.hand) if s == view.seat else list(others[(s - view.seat - 1) % 4]) for s in range(4)]
            pick = dealt[dealer] + rest[:8]
            bury = choose_bury(pick, to, own_side_holds=holds_last_trick(pick, to))
            for c in bury:
                pick.remove(c)
            dealt[dealer] = pick
            return self._rollout(view, to, dealt, list(bury), None)

        return options[self._best_on_sampled_deals(view.hand, len(options), score)]

    def _bury(self, view: View) -> Action:
        """Try a few burials (more or fewer points, voiding harder) and keep the best on sampled deals."""
        to = order_of_view(view) if view.trump is not None else order_of_view(replace(view, trump="nt"))
        hand = list(view.hand)
        cands: list[Play] = []
        holds = holds_last_trick(hand, to)
        for pw, vw in ((None, 1.5), (12.0, 1.5), (-12.0, 1.5), (12.0, 4.0), (-12.0, 4.0)):
            bury = tuple(
                sorted(
                    choose_bury(hand, to, own_side_holds=holds, point_weight=pw, void_weight=vw), key=lambda c: c.index
                )
            )
            if bury not in cands:
                cands.append(bury)
        if len(cands) == 1:
            return Action("bury", view.seat, cands[0])
        kept = []
        for bury in cands:
            mine = list(hand)
            for c in bury:
                mine.remove(c)
            kept.append(mine)

        def score(i: int, others: list[list[Card]], rest: list[Card]) -> float:
            hands = [kept[i] if s == view.seat else others[(s - view.seat - 1) % 4] for s in range(4)]
            return self._rollout(view, to, hands, list(cands[i]), None)

        return Action("bury", view.seat, cands[self._best_on_sampled_deals(hand, len(cands), score)])

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
        self, view: View, to: TrumpOrder, hands: list[list[Card]], kitty: list[Card], cand: Play | None
    ) -> float:
        """Play the hand out with the rules policy (from ``cand``, or from the first lead after a burial)."""
        rules = view.rules
        assert view.dealer is not None
        level = None if view.level == "flag" else Rank.parse(view.level)
        current: tuple[tuple[int, Play], ...] = ()
        points = 0
        if cand is None:
            leader = view.dealer
        else:
            leader = view.current_trick[0][0] if view.current_trick else view.seat
            current, points = view.current_trick, view.points
        hand = Hand.in_play(
            rules,
            hands=hands,
            kitty=kitty,
            dealer=view.dealer,
            trump=to.trump,
            leader=leader,
            dealer_progress=Progress(rules.circles if level is None else 1, level),
            captured=(0, points),
            current=current,
        )
        if cand is not None:
            hand.play(view.seat, cand)
        while hand.phase == Phase.PLAY:
            seat = hand.to_act()
            assert seat is not None
            others = [c for s in range(4) if s != seat for c in hand.hands[s]]
            hand.play(seat, choose_play(hand.hands[seat], seat, to, rules, view.dealer, hand.current, others))
        assert hand.result is not None
        return _utility(view, hand.result.points)


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
