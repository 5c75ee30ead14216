"""The arena: two bots on duplicate deals with the teams swapped (``chaodipi arena``).

Every deal is played twice from the same shuffle: once with bot A in seats 0 and 2 and
bot B in seats 1 and 3, then with the seats swapped, so the cards even out. Each deal is a
hand at level 2 with a known dealer (deal i: seat i mod 4), bidding, burial, frying and play
included. Reported: A's hand win rate with its Wilson 95% interval, the mean point margin,
the levels gained, and the time per decision (mean and p95), over K processes or on a Ray
cluster (:mod:`chaodipi.cluster`): the deals go out in batches of consecutive deals, one task
each, and every random choice comes from the seed and the deal number, so the result is the
same (times aside) in one process, over K processes or on Ray, whatever the batch size.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from chaodipi.bots import make_bot, run_hand
from chaodipi.bots.base import DecisionTimer
from chaodipi.cards import shuffled_deck
from chaodipi.cluster import run_batches
from chaodipi.hand import Hand
from chaodipi.rules import RuleSet
from chaodipi.settlement import Side

__all__ = ["ArenaResult", "DealResult", "play_deal", "play_deals", "run_arena", "wilson"]

#: One deal's arguments for :func:`play_deal`: bot A, bot B, the rules, the seed, the deal's number, bot options.
DealTask = tuple[str, str, str, int, int, dict[str, dict[str, float]]]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class DealResult:
    """One deal played twice: A's wins (0..2), A's point margins, A's level gains, decision times by bot."""

    deal: int
    a_wins: int
    margins: list[float]
    levels: list[int]
    times_a: list[float] = field(default_factory=list)
    times_b: list[float] = field(default_factory=list)


def _one_hand(
    rules: RuleSet,
    deal: int,
    seed: int,
    bots_by_seat: Sequence[str],
    a_seats: tuple[int, int],
    options: dict[str, dict[str, float]],
) -> tuple[bool, float, int, list[float], list[float]]:
    deck = shuffled_deck(random.Random(f"{seed}:{deal}"))
    dealer = deal % 4
    bots = [
        make_bot(name, seed=seed * 100_003 + deal * 10 + s, **options.get(name, {}))
        for s, name in enumerate(bots_by_seat)
    ]
    timer = DecisionTimer()
    hand = run_hand(Hand(rules, deck, first_seat=dealer, dealer=dealer), bots, timer)
    assert hand.result is not None
    res = hand.result
    a_dealer = dealer in a_seats
    a_won = (res.settlement.table is Side.DEALER) == a_dealer
    threshold = rules.flag_threshold if hand.flag else 80
    margin = float(threshold - res.points if a_dealer else res.points - threshold)
    gain = res.settlement.nominal_gain
    levels = gain if a_won else -gain
    ta = [t for s in a_seats for t in timer.times[s]]
    tb = [t for s in range(4) if s not in a_seats for t in timer.times[s]]
    return a_won, margin, levels, ta, tb


def play_deal(args: DealTask) -> DealResult:
    """Play deal ``deal`` twice (A in seats 0/2, then in 1/3)."""
    bot_a, bot_b, rules_spec, seed, deal, options = args
    rules = RuleSet.from_spec(rules_spec)
    out = DealResult(deal, 0, [], [])
    for a_seats in ((0, 2), (1, 3)):
        seats = [bot_a if s in a_seats else bot_b for s in range(4)]
        won, margin, levels, ta, tb = _one_hand(rules, deal, seed, seats, a_seats, options)
        out.a_wins += won
        out.margins.append(margin)
        out.levels.append(levels)
        out.times_a.extend(ta)
        out.times_b.extend(tb)
    return out


def play_deals(batch: list[DealTask]) -> list[DealResult]:
    """A batch of deals, one after the other (one task of :func:`run_arena`, in a process or on Ray)."""
    return [play_deal(args) for args in batch]


@dataclass
class ArenaResult:
    """The arena's totals for bot A against bot B over duplicate deals (:func:`run_arena`).

    ``interval`` is the Wilson 95% interval of A's hand win rate; ``mean_margin`` A's mean point
    margin per hand; ``levels_a`` the levels A gained minus those B gained; ``time_a`` and
    ``time_b`` each bot's seconds per decision as (mean, p95).
    """

    bot_a: str
    bot_b: str
    preset: str
    deals: int
    hands: int
    a_wins: int
    interval: tuple[float, float]
    mean_margin: float
    levels_a: int
    time_a: tuple[float, float]  # mean, p95 seconds per decision
    time_b: tuple[float, float]

    @property
    def win_rate(self) -> float:
        """A's share of the hands won (0.0 when no hand was played)."""
        return self.a_wins / self.hands if self.hands else 0.0

    def report(self) -> str:
        """The result in a few lines of text, as ``chaodipi arena`` prints it."""
        lo, hi = self.interval
        return "\n".join(
            [
                f"{self.bot_a} vs {self.bot_b} — preset {self.preset}, "
                f"{self.deals} duplicate deals ({self.hands} hands)",
                f"  hands won by {self.bot_a}: {self.a_wins}/{self.hands} = {self.win_rate:.1%}"
                f" (Wilson 95%: {lo:.1%} – {hi:.1%})",
                f"  mean point margin for {self.bot_a}: {self.mean_margin:+.1f}",
                f"  levels gained by {self.bot_a} minus {self.bot_b}: {self.levels_a:+d}",
                f"  time per decision: {self.bot_a} mean {self.time_a[0] * 1000:.1f} ms,"
                f" p95 {self.time_a[1] * 1000:.1f} ms; {self.bot_b} mean {self.time_b[0] * 1000:.1f} ms,"
                f" p95 {self.time_b[1] * 1000:.1f} ms",
            ]
        )


def _p95(xs: list[float]) -> tuple[float, float]:
    if not xs:
        return (0.0, 0.0)
    xs = sorted(xs)
    return (statistics.fmean(xs), xs[min(len(xs) - 1, math.ceil(0.95 * len(xs)) - 1)])


def run_arena(
    bot_a: str,
    bot_b: str,
    *,
    preset: str = "standard",
    deals: int = 100,
    seed: int = 1,
    jobs: int = 1,
    options: dict[str, dict[str, float]] | None = None,
    on_progress: Callable[[int, int, int], None] | None = None,
    ray: str | None = None,
    batch: int = 10,
) -> ArenaResult:
    """Play ``deals`` duplicate deals between two bots, spread over ``jobs`` processes or on Ray.

    The deals go out in batches of ``batch`` consecutive deals, one task each
    (:func:`chaodipi.cluster.run_batches`): in this process when ``jobs`` is 1, over ``jobs``
    processes otherwise, or on Ray when ``ray`` is given (``"local"`` starts it here with
    ``jobs`` CPUs; else a running cluster's address, ``HOST:PORT`` or ``auto``). The result is
    the same however the deals are spread (times aside), and so is the progress.

    ``on_progress(hands_done, hands_total, a_wins)``, when given, is called in this process for
    each deal's two hands, in deal order, as each batch comes in (also with ``jobs`` > 1 or on
    Ray), with the running totals: the command line draws its progress bar with it. The arena
    itself draws nothing.

    >>> seen = []
    >>> result = run_arena("random", "random", deals=2, on_progress=lambda *p: seen.append(p))
    >>> [p[:2] for p in seen]
    [(2, 4), (4, 4)]
    >>> seen[-1][2] == result.a_wins
    True
    """
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, not {batch}")
    opts = options or {}
    tasks: list[DealTask] = [(bot_a, bot_b, preset, seed, d, opts) for d in range(deals)]
    batches = [tasks[i : i + batch] for i in range(0, deals, batch)]
    results: list[DealResult] = []
    wins = 0

    def collect(deal_results: list[DealResult]) -> None:
        nonlocal wins
        for r in deal_results:  # each batch as it comes in (in deal order), so that the progress is live
            results.append(r)
            wins += r.a_wins
            if on_progress is not None:
                on_progress(2 * len(results), 2 * deals, wins)

    run_batches(play_deals, batches, jobs=jobs, ray=ray, on_result=collect)
    hands = 2 * len(results)
    margins = [m for r in results for m in r.margins]
    return ArenaResult(
        bot_a,
        bot_b,
        preset,
        deals,
        hands,
        wins,
        wilson(wins, hands),
        statistics.fmean(margins) if margins else 0.0,
        sum(sum(r.levels) for r in results),
        _p95([t for r in results for t in r.times_a]),
        _p95([t for r in results for t in r.times_b]),
    )
