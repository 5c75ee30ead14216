"""A game across hands, and matches of several games (RULES §2, §11, §12).

A :class:`Game` owns the seeded generator that shuffles every hand, the two teams'
progress (circle and level), the dealer rotation, flag-hand failures, credits (each team's,
and each seat's, where leaving 逃跑 is charged, RULES §13) and the end of the game.
Team 0 is seats 0 and 2 (南北), team 1 seats 1 and 3 (东西).

>>> from chaodipi.rules import RuleSet
>>> game = Game(RuleSet.preset("standard"), seed=7)
>>> hand = game.new_hand()
>>> hand.dealer is None, hand.level
(True, <Rank.TWO: 2>)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chaodipi.cards import Card, Rank, shuffled_deck
from chaodipi.hand import Hand, IllegalActionError, Phase
from chaodipi.levels import Progress, Side
from chaodipi.log import is_seat
from chaodipi.outcome import HandResult
from chaodipi.rules import RuleSet
from chaodipi.view import TEAMS

__all__ = ["Game", "GameEnd", "GameError", "Match", "side_ahead", "team_of"]

MAX_HANDS = 2000  # a safety stop for a game that cannot end (it never binds under the presets)
TWO_DECKS = sorted(c.index for c in Card.ALL for _ in (0, 1))  # a whole deal's card indexes, sorted


class GameError(ValueError):
    """A game-level request that cannot be done now."""


def team_of(seat: int) -> int:
    """The team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3 (:data:`chaodipi.view.TEAMS`)."""
    return TEAMS[seat]


def side_ahead(
    progress: Sequence[Progress],
    *,
    last_winner: int | None = None,
    holder: int | None = None,
    fallback: int = 0,
) -> int:
    """The side ahead 领先方 (RULES §14.2): the team that wins a game whose time ran out.

    ``progress``: both teams' progress ``[team 0, team 1]``. The team whose progress is higher wins
    (circle, then level; a side at ``flag`` 扛旗, past A, counts above A). If both are equal, the team
    that won the last settled hand (``last_winner``: it held or took the table); if no hand was settled,
    the team that holds the table (``holder``: the dealer side of the hand now or last played); if no
    dealer was ever known, ``fallback``.

    Sides are compared by :attr:`Progress.climbed <chaodipi.levels.Progress.climbed>` (a flag side is at flag only
    in the last circle, past its A).
    Decision: with no dealer ever known (only redeals, or no hand), :class:`Game` gives as ``fallback``
    the team of the seat dealt the first card of the last hand (a seat drawn at random, RULES §9.1),
    and team 0 when no hand was dealt at all.

    >>> from chaodipi.cards import Rank
    >>> side_ahead([Progress(1, Rank.NINE), Progress(2, Rank.THREE)])  # circle first
    1
    >>> side_ahead([Progress(2, Rank.KING), Progress(2, Rank.QUEEN)])  # then level
    0
    >>> side_ahead([Progress(3, None), Progress(3, Rank.ACE)])  # a flag side is above A
    0
    >>> side_ahead([Progress(1, Rank.FIVE), Progress(1, Rank.FIVE)], last_winner=1, holder=0)
    1
    >>> side_ahead([Progress(1, Rank.TWO), Progress(1, Rank.TWO)], holder=0)
    0
    >>> side_ahead([Progress(1, Rank.TWO), Progress(1, Rank.TWO)], fallback=1)
    1
    """
    a, b = progress[0].climbed, progress[1].climbed
    if a != b:
        return 0 if a > b else 1
    for team in (last_winner, holder):
        if team is not None:
            return team
    return fallback


def _levels_off(hand: Hand) -> tuple[int, int]:
    """The levels 罚级 that the referee's penalties in ``hand`` take from team 0 and team 1 (RULES §14.4)."""
    off = [0, 0]
    for penalty in hand.penalties:
        off[penalty.team] += penalty.levels
    return (off[0], off[1])


@dataclass(frozen=True, slots=True)
class GameEnd:
    """How a game ended: the winning team, whether by its time limit (RULES §14.2), both teams' progress
    at the end, and the hands dealt (redeals included)."""

    winner: int
    by_time: bool
    progress: tuple[Progress, Progress]
    hands: int


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
        self.seat_credits = [0, 0, 0, 0]  # each seat's credits: its team's, but a leaver pays its penalty (RULES §13)
        self.flag_failures = [0, 0]
        self.next_dealer: int | None = None  # None: the first hand, decided by bidding
        self.hands: list[Hand] = []
        self.history: list[HandSummary] = []
        self.winner: int | None = None
        self.time_called = False  # the game's time ran out (RULES §14.2): the hand in progress is its last
        self.time_up: int | None = None  # how many hands had been dealt when the time ran out
        self.ended_by_time = False  # the side ahead won when the time ran out (not by climbing)

    @property
    def over(self) -> bool:
        """Whether a side has won the game."""
        return self.winner is not None

    @property
    def current(self) -> Hand | None:
        """The hand being played (or the last one), None before the first."""
        return self.hands[-1] if self.hands else None

    @property
    def progress_now(self) -> tuple[Progress, Progress]:
        """Both teams' progress as it stands now: :attr:`progress` (after the last applied hand) less the levels
        罚级 that penalties of the hand in progress take (RULES §14.4), which :meth:`finish_hand` takes off for good
        after that hand's settlement (the hand is played at the level it was dealt at)."""
        hand = self.current
        if hand is None or not self._hand_in_progress():
            return (self.progress[0], self.progress[1])
        off = _levels_off(hand)
        return (self.progress[0].lowered(off[0]), self.progress[1].lowered(off[1]))

    def _hand_in_progress(self) -> bool:
        """Whether a hand has been dealt that is not yet applied to the game (:meth:`finish_hand`)."""
        return bool(self.hands) and len(self.history) < len(self.hands)

    def _ahead(self, progress: Sequence[Progress]) -> int:
        """The side ahead now (:func:`side_ahead`), from the hands settled so far and ``progress``."""
        last_winner: int | None = None
        for summary in reversed(self.history):
            if summary.result is not None and summary.dealer is not None:
                dteam = team_of(summary.dealer)
                last_winner = dteam if summary.result.settlement.table is Side.DEALER else 1 - dteam
                break
        holder: int | None = None
        for hand in reversed(self.hands):
            if hand.dealer is not None:
                holder = team_of(hand.dealer)
                break
        fallback = team_of(self.hands[-1].first_seat) if self.hands else 0
        return side_ahead(progress, last_winner=last_winner, holder=holder, fallback=fallback)

    def call_time(self) -> bool:
        """The game's time ran out (RULES §14.2, option ``game_minutes``).

        If no hand is in progress (no hand yet, or the last one is over and applied), the game ends at
        once and the side ahead (:func:`side_ahead`) wins; otherwise the hand in progress is played to
        its end, and :meth:`finish_hand` then ends the game (a hand that wins the game outright is won as
        usual). :attr:`time_up` keeps how many hands had been dealt. Returns whether the game is over now;
        calling it again, or on a game that is over, changes nothing.

        >>> game = Game(RuleSet.preset("standard"), seed=7)
        >>> game.call_time(), game.winner, game.ended_by_time, game.time_up  # no hand yet: over at once
        (True, 0, True, 0)
        >>> game = Game(RuleSet.preset("standard"), seed=7)
        >>> hand = game.new_hand()
        >>> game.call_time(), game.over  # a hand in progress: it is played to its end first
        (False, False)
        """
        if self.over or self.time_called:
            return self.over
        self.time_called = True
        self.time_up = len(self.hands)
        if not self._hand_in_progress():
            self.winner = self._ahead(self.progress)
            self.ended_by_time = True
        return self.over

    @property
    def end(self) -> GameEnd | None:
        """How the game ended (None while it goes on)."""
        if self.winner is None:
            return None
        return GameEnd(self.winner, self.ended_by_time, (self.progress[0], self.progress[1]), len(self.hands))

    def end_after_hand(self) -> GameEnd | None:
        """How the game ends once the current hand, which is over, is applied (:meth:`finish_hand`), or None
        if it goes on: for a writer that stores the game's end with the hand's last action. Changes nothing."""
        hand = self.current
        if self.over or hand is None or not self._hand_in_progress():
            return None
        now = self.progress_now
        if hand.lost_by is not None:  # RULES §14.4: a game lost by a penalty ends it, won by the other team
            return GameEnd(1 - hand.lost_by, False, now, len(self.hands))
        if hand.phase is Phase.REDEAL:
            if not self.time_called:
                return None
            return GameEnd(self._ahead(now), True, now, len(self.hands))
        if hand.phase is not Phase.OVER or hand.result is None or hand.dealer is None:
            return None
        res = hand.result.settlement
        dteam = team_of(hand.dealer)
        after = [res.dealer, res.scoring] if dteam == 0 else [res.scoring, res.dealer]
        off = _levels_off(hand)
        progress = (after[0].lowered(off[0]), after[1].lowered(off[1]))
        if res.game_winner is not None:
            winner = dteam if res.game_winner is Side.DEALER else 1 - dteam
            return GameEnd(winner, False, progress, len(self.hands))
        if not self.time_called:
            return None
        won = dteam if res.table is Side.DEALER else 1 - dteam  # this hand is the last settled one
        return GameEnd(side_ahead(progress, last_winner=won, holder=dteam), True, progress, len(self.hands))

    def new_hand(self, *, deck: Sequence[Card] | None = None, first_seat: object = None) -> Hand:
        """Shuffle and start the next hand (the previous one must be over).

        Without arguments the game's generator shuffles the 108 cards and, while no dealer is
        known (the first hand and its redeals), draws the seat that receives the first card.
        ``deck`` (the 108 cards in dealing order) and ``first_seat`` replace what it drew: a
        record's stored deal is replayed this way (docs/record-format.md). The generator moves
        on as if it had drawn them all the same, so the hands that follow are the ones the
        seed alone would deal. Once a dealer is known the first card goes to the dealer
        (RULES §9.1): a ``first_seat`` that is another seat is refused. A refused hand changes
        nothing.

        >>> from chaodipi.cards import deck as two_decks
        >>> game = Game(RuleSet.preset("standard"), seed=7)
        >>> hand = game.new_hand(deck=two_decks(), first_seat=3)
        >>> hand.first_seat, [str(c) for c in hand.deck[:3]]
        (3, ['2s', '2s', '3s'])
        """
        if self.over:
            raise GameError("the game is over")
        cur = self.current
        if cur is not None and cur.phase not in (Phase.OVER, Phase.REDEAL):
            raise GameError("the current hand is not over")
        if len(self.hands) >= MAX_HANDS:
            raise GameError(f"the game has reached {MAX_HANDS} hands")
        d = self.next_dealer
        seat: int | None = None  # (``first_seat`` is any value a caller gives; a seat once checked)
        if first_seat is not None:
            if not is_seat(first_seat):
                raise GameError(f"the first seat is a seat 0..3, not {first_seat!r}")
            if d is not None and first_seat != d:
                raise GameError(f"the dealer, seat {d}, receives the first card, not seat {first_seat}")
            seat = first_seat
        if deck is not None:
            given: tuple[object, ...] = tuple(deck)  # (read as objects: the compiled build would check each as a Card)
            if not all(isinstance(c, Card) for c in given):
                raise GameError("deck: a hand is dealt the 108 cards of two decks, each card twice")
            deck = tuple(c for c in given if isinstance(c, Card))
            if sorted(c.index for c in deck) != TWO_DECKS:
                raise GameError("deck: a hand is dealt the 108 cards of two decks, each card twice")
        shuffled = shuffled_deck(self.rng)
        if d is None:
            drawn = self.rng.randrange(4)  # the first hand starts at a random seat (seed 001)
            hand = Hand(
                self.rules,
                shuffled if deck is None else deck,
                first_seat=drawn if seat is None else seat,
                dealer=None,
                dealer_progress=self.progress[0],
                scoring_progress=self.progress[1],
            )
        else:
            hand = Hand(
                self.rules,
                shuffled if deck is None else deck,
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
        if len(self.history) >= len(self.hands):
            raise GameError("the current hand is applied already")
        if hand.lost_by is not None:  # RULES §14.4: the game is lost by a penalty; the hand was not settled
            self.progress = list(self.progress_now)
            self.winner = 1 - hand.lost_by
            summary = HandSummary(len(self.hands), hand.dealer, None, (self.progress[0], self.progress[1]))
            self.history.append(summary)
            return summary
        if hand.phase == Phase.REDEAL:
            self.progress = list(self.progress_now)
            summary = HandSummary(len(self.hands), None, None, (self.progress[0], self.progress[1]))
            if self.time_called:  # RULES §14.2: the time ran out during this hand, now over
                self.winner = self._ahead(self.progress)
                self.ended_by_time = True
            self.history.append(summary)
            return summary
        assert hand.result is not None and hand.dealer is not None
        res = hand.result.settlement
        d = hand.dealer
        dteam, steam = team_of(d), 1 - team_of(d)
        off = _levels_off(hand)  # RULES §14.4 罚级: after the hand's settlement, never below level 2
        self.progress[dteam] = res.dealer.lowered(off[dteam])
        self.progress[steam] = res.scoring.lowered(off[steam])
        if hand.flag:
            self.flag_failures[dteam] = 0 if res.table is Side.DEALER else self.flag_failures[dteam] + 1
            if res.dealer.level is not None:
                self.flag_failures[dteam] = 0  # sent back to A: a new run of flag hands starts later
        if res.credits is not None:
            self.credits[dteam] += res.credits[0]
            self.credits[steam] += res.credits[1]
            # Decision (RULES §13): the team keeps the hand's normal credits (a bot played it out);
            # a seat that left after the first card is charged its penalty instead of its share.
            per_seat = hand.result.seat_credits()
            assert per_seat is not None
            for seat in range(4):
                self.seat_credits[seat] += per_seat[seat]
        # Decision (RULES §2): keeping the table passes the deal to the partner; losing it, to the next seat.
        self.next_dealer = (d + 2) % 4 if res.table is Side.DEALER else (d + 1) % 4
        if res.game_winner is not None:
            self.winner = dteam if res.game_winner is Side.DEALER else steam
        summary = HandSummary(len(self.hands), d, hand.result, (self.progress[0], self.progress[1]))
        self.history.append(summary)
        if self.winner is None and self.time_called:  # RULES §14.2: the hand in progress was the last
            self.winner = self._ahead(self.progress)
            self.ended_by_time = True
        return summary

    def to_json(self) -> dict[str, Any]:
        """A summary: seed, winner, both teams' levels, team and seat credits (with the credits option), hands."""
        return {
            "seed": self.seed,
            "winner": self.winner,
            "levels": [p.to_json() for p in self.progress],
            "credits": list(self.credits) if self.rules.credits else None,
            "seat_credits": list(self.seat_credits) if self.rules.credits else None,
            "hands": len(self.hands),
            "time_up": self.time_up,
            "ended_by_time": self.ended_by_time,
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
        """The seed of game ``i`` (0-based), made from the match seed (``seed × 1000 + i``)."""
        return self.seed * 1000 + i

    def wins(self) -> tuple[int, int]:
        """Games won by team 0 and team 1 so far."""
        w = [0, 0]
        for g in self.played:
            if g.winner is not None:
                w[g.winner] += 1
        return (w[0], w[1])

    @property
    def over(self) -> bool:
        """Whether the match is decided: all its games played, or best-of-N won."""
        if self.played and not self.played[-1].over:
            return False
        if self.best_of is not None:
            need = self.best_of // 2 + 1
            return max(self.wins()) >= need or len(self.played) >= self.best_of
        return len(self.played) >= self.games

    @property
    def winner(self) -> int | None:
        """The team that won the match (None while it goes on, or on a tie)."""
        if not self.over:
            return None
        a, b = self.wins()
        return None if a == b else (0 if a > b else 1)

    def next_game(self) -> Game:
        """Start the next game of the match (the previous one must be over)."""
        if self.over:
            raise IllegalActionError("the match is over")
        g = Game(self.rules, self.game_seed(len(self.played)))
        self.played.append(g)
        return g
