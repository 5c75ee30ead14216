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

from chaodipi.bots.knowledge import Knowledge
from chaodipi.bots.rules_bot import RulesBot, choose_play, ranked_plays
from chaodipi.cards import Card, Rank
from chaodipi.hand import Action, Hand, Phase, View
from chaodipi.settlement import Progress, level_change
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

    def __init__(self, seed: int = 0, budget: float = 0.25, samples: float = 24, candidates: float = 6) -> None:
        self.rng = random.Random(seed)
        self.rules_bot = RulesBot(seed)
        self.budget = float(budget)
        self.max_samples = int(samples)
        self.max_candidates = int(candidates)

    def act(self, view: View) -> Action | None:
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

    def _rollout(self, view: View, to: TrumpOrder, hands: list[list[Card]], kitty: list[Card], cand: Play) -> float:
        rules = view.rules
        assert view.dealer is not None
        level = None if view.level == "flag" else Rank.parse(view.level)
        leader = view.current_trick[0][0] if view.current_trick else view.seat
        hand = Hand.in_play(
            rules,
            hands=hands,
            kitty=kitty,
            dealer=view.dealer,
            trump=to.trump,
            leader=leader,
            dealer_progress=Progress(rules.circles if level is None else 1, level),
            captured=(0, view.points),
            current=view.current_trick,
        )
        hand.play(view.seat, cand)
        while hand.phase == Phase.PLAY:
            seat = hand.to_act()
            assert seat is not None
            others = [c for s in range(4) if s != seat for c in hand.hands[s]]
            hand.play(seat, choose_play(hand.hands[seat], seat, to, rules, view.dealer, hand.current, others))
        assert hand.result is not None
        return _utility(view, hand.result.points)


def _utility(view: View, points: int) -> float:
    """Levels for the bot's side (holding the table counts one), then the point margin."""
    rules = view.rules
    assert view.dealer is not None
    threshold = rules.flag_threshold if view.level == "flag" else 80
    side, gain = level_change(rules, points, threshold)
    dealer_side = (view.seat - view.dealer) % 2 == 0
    ours = (side.value == "dealer") == dealer_side
    margin = (points - threshold) / 100.0
    return (gain + 1 if ours else -(gain + 1)) + (-margin if dealer_side else margin)
