"""A game across hands, and matches of several games (RULES §2, §11, §12).

A :class:`Game` owns the seeded generator that shuffles every hand, the two teams'
progress (circle and level), the dealer rotation, flag-hand failures, credits and the
end of the game. Team 0 is seats 0 and 2 (南北), team 1 seats 1 and 3 (东西).

>>> from chaodipi.rules import RuleSet
>>> game = Game(RuleSet.preset("standard"), seed=7)
>>> hand = game.new_hand()
>>> hand.dealer is None, hand.level
(True, <Rank.TWO: 2>)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from chaodipi.cards import Rank, shuffled_deck
from chaodipi.hand import Hand, HandResult, IllegalActionError, Phase
from chaodipi.levels import Progress, Side
from chaodipi.rules import RuleSet

__all__ = ["Game", "GameError", "Match", "team_of"]

MAX_HANDS = 2000  # a safety stop for a game that cannot end (it never binds under the presets)


class GameError(ValueError):
    """A game-level request that cannot be done now."""


def team_of(seat: int) -> int:
    """The team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


@dataclass(slots=True)
class HandSummary:
    """What a finished hand meant for the game."""

    number: int
    dealer: int | None
    result: HandResult | None  # None for a redeal
    levels_after: tuple[Progress, Progress]


class Game:
    """A game 一局: hands from level 2 until a side passes A, wins the flag hand or completes its circles."""

    def __init__(self, rules: RuleSet, seed: int) -> None:
        self.rules = rules
        self.seed = seed
        self.rng = random.Random(seed)
        self.progress: list[Progress] = [Progress(1, Rank.TWO), Progress(1, Rank.TWO)]
        self.credits = [0, 0]
        self.flag_failures = [0, 0]
        self.next_dealer: int | None = None  # None: the first hand, decided by bidding
        self.hands: list[Hand] = []
        self.history: list[HandSummary] = []
        self.winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def current(self) -> Hand | None:
        return self.hands[-1] if self.hands else None

    def new_hand(self) -> Hand:
        """Shuffle and start the next hand (the previous one must be over)."""
        if self.over:
            raise GameError("the game is over")
        cur = self.current
        if cur is not None and cur.phase not in (Phase.OVER, Phase.REDEAL):
            raise GameError("the current hand is not over")
        if len(self.hands) >= MAX_HANDS:
            raise GameError(f"the game has reached {MAX_HANDS} hands")
        deck = shuffled_deck(self.rng)
        if self.next_dealer is None:
            first_seat = self.rng.randrange(4)  # the first hand starts at a random seat (seed 001)
            hand = Hand(
                self.rules,
                deck,
                first_seat=first_seat,
                dealer=None,
                dealer_progress=self.progress[0],
                scoring_progress=self.progress[1],
            )
        else:
            d = self.next_dealer
            hand = Hand(
                self.rules,
                deck,
                first_seat=d,
                dealer=d,
                dealer_progress=self.progress[team_of(d)],
                scoring_progress=self.progress[1 - team_of(d)],
                flag_failures=self.flag_failures[team_of(d)],
            )
        self.hands.append(hand)
        return hand

    def finish_hand(self) -> HandSummary:
        """Apply the current hand's result to the game (dealer rotation, levels, credits, game end)."""
        hand = self.current
        if hand is None or hand.phase not in (Phase.OVER, Phase.REDEAL):
            raise GameError("no finished hand to apply")
        if hand.phase == Phase.REDEAL:
            summary = HandSummary(len(self.hands), None, None, (self.progress[0], self.progress[1]))
            self.history.append(summary)
            return summary
        assert hand.result is not None and hand.dealer is not None
        res = hand.result.settlement
        d = hand.dealer
        dteam, steam = team_of(d), 1 - team_of(d)
        self.progress[dteam] = res.dealer
        self.progress[steam] = res.scoring
        if hand.flag:
            self.flag_failures[dteam] = 0 if res.table is Side.DEALER else self.flag_failures[dteam] + 1
            if res.dealer.level is not None:
                self.flag_failures[dteam] = 0  # sent back to A: a new run of flag hands starts later
        if res.credits is not None:
            self.credits[dteam] += res.credits[0]
            self.credits[steam] += res.credits[1]
        # Decision (RULES §2): keeping the table passes the deal to the partner; losing it, to the next seat.
        self.next_dealer = (d + 2) % 4 if res.table is Side.DEALER else (d + 1) % 4
        if res.game_winner is not None:
            self.winner = dteam if res.game_winner is Side.DEALER else steam
        summary = HandSummary(len(self.hands), d, hand.result, (self.progress[0], self.progress[1]))
        self.history.append(summary)
        return summary

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "winner": self.winner,
            "levels": [p.to_json() for p in self.progress],
            "credits": list(self.credits) if self.rules.credits else None,
            "hands": len(self.hands),
        }


@dataclass(slots=True)
class Match:
    """A match: a fixed number of games, or best-of-N (RULES §12). Game i is seeded from the match seed."""

    rules: RuleSet
    seed: int
    games: int = 1
    best_of: int | None = None
    played: list[Game] = field(default_factory=list)

    def game_seed(self, i: int) -> int:
        return self.seed * 1000 + i

    def wins(self) -> tuple[int, int]:
        w = [0, 0]
        for g in self.played:
            if g.winner is not None:
                w[g.winner] += 1
        return (w[0], w[1])

    @property
    def over(self) -> bool:
        if self.played and not self.played[-1].over:
            return False
        if self.best_of is not None:
            need = self.best_of // 2 + 1
            return max(self.wins()) >= need or len(self.played) >= self.best_of
        return len(self.played) >= self.games

    @property
    def winner(self) -> int | None:
        if not self.over:
            return None
        a, b = self.wins()
        return None if a == b else (0 if a > b else 1)

    def next_game(self) -> Game:
        if self.over:
            raise IllegalActionError("the match is over")
        g = Game(self.rules, self.game_seed(len(self.played)))
        self.played.append(g)
        return g
