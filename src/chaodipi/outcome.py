"""The end of a hand: what a seat that left pays, and the hand's result (RULES §11, §13).

:func:`hand_result` works the result out from the finished hand's parts, a pure function:
the last trick decides 抠底 (kou di, RULES §11.1) and 保红5 (RULES §11.7), the scoring side's
total ``p`` is its trick points plus the kitty's and every adjustment, and
:func:`~chaodipi.settlement.settle` reads the level table at ``p``. :class:`HandResult` keeps it
all, for the ``settled`` event, the seats' views (:meth:`HandResult.outcome`) and the record.
A seat that left (逃跑) is an :class:`Escape` while the hand goes on and an
:class:`EscapePenalty` once it is settled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chaodipi.cards import Card, points_of
from chaodipi.levels import Progress, Side, seat_side
from chaodipi.phrases import Phrase, say
from chaodipi.rules import RuleSet
from chaodipi.settlement import LastTrick, Settlement, settle
from chaodipi.trick import kitty_multiplier
from chaodipi.trump import FIVE_HEARTS, TrumpOrder
from chaodipi.units import decompose
from chaodipi.view import Outcome, TrickRecord

__all__ = [
    "RED5_PENALTY",
    "Escape",
    "EscapePenalty",
    "HandResult",
    "escape_penalty",
    "hand_result",
    "penalty_words",
]

RED5_PENALTY = 50  # RULES §11.7: 逼红5 / 保红5, per 5h


# -- leaving a game in progress 逃跑 (RULES §13) ------------------------------------------


@dataclass(frozen=True, slots=True)
class Escape:
    """A seat that left the hand (逃跑, RULES §13), and how the hand stood when it left.

    ``card_played``: whether any card had been played (a finished trick, or a card of the
    current one). ``points``: the scoring side's points so far, its captured trick points plus
    the adjustments so far (what p would be now, without kitty points). ``reached`` (the rule
    book's ``t``): whether ``points`` reached the threshold at which the scoring side takes the
    table (80; in a flag hand the option ``flag_threshold``, RULES §11.2, §11.6).
    """

    player: int
    card_played: bool
    points: int
    reached: bool


@dataclass(frozen=True, slots=True)
class EscapePenalty:
    """What a seat that left pays, worked out when the hand is settled (RULES §13).

    ``side``: the leaver's side in the hand; ``card_played`` and ``reached`` (``t``) as in its
    :class:`Escape`; ``normal_loss``: the credits its side loses in the hand's settlement (0 when
    the side gains, or without the ``credits`` option); ``penalty``: the credits it is charged
    (:func:`escape_penalty`); ``charged``: whether the penalty replaces the seat's share of its
    side's credits (a card had been played and the rules set an ``escape_penalty``).
    """

    player: int
    side: Side
    card_played: bool
    reached: bool
    normal_loss: int
    penalty: int
    charged: bool

    def to_json(self) -> dict[str, Any]:
        """The record form: ``{"player": 2, "penalty": 15}``."""
        return {"player": self.player, "penalty": self.penalty}


def escape_penalty(rules: RuleSet, side: Side, *, card_played: bool, reached: bool, side_credits: int | None) -> int:
    """The credits a seat that left pays (逃跑, RULES §13), with P = ``rules.escape_penalty``.

    No penalty without the option (P None) or before the first card. Otherwise, with ``reached``
    the rule book's ``t`` and the normal loss max(0, −``side_credits``) (0 when the rules keep no
    credits, ``side_credits`` None): a dealer-side leaver pays exactly P if not ``t``, else
    max(P, normal loss); a scoring-side leaver pays max(P, normal loss) if not ``t``, else exactly P.

    >>> anchao = RuleSet.preset("anchao")
    >>> escape_penalty(anchao, Side.DEALER, card_played=True, reached=False, side_credits=-20)
    15
    >>> escape_penalty(anchao, Side.DEALER, card_played=True, reached=True, side_credits=-20)
    20
    >>> escape_penalty(anchao, Side.SCORING, card_played=False, reached=False, side_credits=-20)
    0
    """
    penalty = rules.escape_penalty
    if penalty is None or not card_played:
        return 0
    loss = max(0, -side_credits) if side_credits is not None else 0
    at_least = reached if side is Side.DEALER else not reached
    return max(penalty, loss) if at_least else penalty


def penalty_words(rules: RuleSet, side: Side | None, *, card_played: bool, reached: bool) -> str:
    """The penalty a leaver faces, in words, as the table is told when it leaves."""
    penalty = rules.escape_penalty
    if not card_played:
        return "no penalty before the first card"
    if penalty is None:
        return "these rules set no penalty"
    assert side is not None  # a card has been played: the dealer is known
    if reached if side is Side.DEALER else not reached:
        return f"penalty at least {penalty} credits (the hand's normal loss if larger)"
    return f"penalty {penalty} credits"


# -- the result --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandResult:
    """The end of a hand: the scoring side's total p and its parts, and the settlement (RULES §11.1)."""

    dealer: int
    trick_points: int  # points the scoring side won in tricks
    dealer_trick_points: int  # points the dealer side captured (they do not count)
    kitty_points: int
    kou_di: int  # kitty points × multiplier, when the scoring side won the last trick
    multiplier: int
    adjustments: tuple[tuple[str, int], ...]  # throw penalties, dark fries, red 5s
    points: int  # p
    settlement: Settlement
    escapes: tuple[EscapePenalty, ...] = field(default_factory=tuple)  # seats that left (RULES §13)

    def seat_credits(self) -> tuple[int, int, int, int] | None:
        """Each seat's credits 积分 from this hand (RULES §11.4, §13), None without the credits option.

        A seat gets its side's credits; a seat that left after the first card pays its escape
        penalty instead (its side keeps the hand's normal credits: a bot played it out).
        :meth:`Game.finish_hand <chaodipi.game.Game.finish_hand>` and the server's credits ledger
        both take them from here.
        """
        credits = self.settlement.credits
        if credits is None:
            return None
        charged = {e.player: e.penalty for e in self.escapes if e.charged}
        out = [
            -charged[seat] if seat in charged else credits[0 if seat_side(seat, self.dealer) is Side.DEALER else 1]
            for seat in range(4)
        ]
        return (out[0], out[1], out[2], out[3])

    def escaped(self, seat: int) -> bool:
        """Whether ``seat`` left this hand and pays its escape penalty (RULES §13)."""
        return any(e.player == seat and e.charged for e in self.escapes)

    def notes(self) -> tuple[Phrase, ...]:
        """The settlement explained line by line, then what each seat that left pays (the ``settled`` event)."""
        notes = list(self.settlement.events)
        for e in self.escapes:
            if e.charged:
                notes.append(say("note.escape_pays", player=e.player, penalty=e.penalty))
            else:
                notes.append(say("note.escape_free", player=e.player))
        return tuple(notes)

    def outcome(self, before: tuple[Progress, Progress]) -> Outcome:
        """What every seat is shown of the result once the hand is over (``View.result``);
        ``before``: the dealer side's and the scoring side's progress before the hand."""
        s = self.settlement
        return Outcome(
            points=self.points,
            threshold=s.threshold,
            trick_points=self.trick_points,
            kitty_points=self.kitty_points,
            kou_di=self.kou_di,
            multiplier=self.multiplier,
            adjustments=self.adjustments,
            gainer=s.gainer,
            nominal_gain=s.nominal_gain,
            special=None if s.special is None else s.special.value,
            before=before,
            after=(s.dealer, s.scoring),
            table=s.table,
            next_hand=s.next_hand.value,
            game_winner=s.game_winner,
            credits=s.credits,
            escapes=tuple((e.player, e.penalty if e.charged else 0) for e in self.escapes),
            notes=self.notes(),
        )

    def to_json(self) -> dict[str, Any]:
        """The record form of the result (docs/record-format.md); ``escapes`` only when a seat left."""
        out: dict[str, Any] = {
            "dealer": self.dealer,
            "points": self.points,
            "trick_points": self.trick_points,
            "kou_di": self.kou_di,
            "multiplier": self.multiplier,
            "adjustments": [list(a) for a in self.adjustments],
            "settlement": self.settlement.to_json(),
        }
        if self.escapes:
            out["escapes"] = [e.to_json() for e in self.escapes]
        return out


def hand_result(
    rules: RuleSet,
    *,
    dealer: int,
    trump_order: TrumpOrder,
    dealer_progress: Progress,
    scoring_progress: Progress,
    flag_failures: int,
    tricks: Sequence[TrickRecord],
    kitty: Sequence[Card],
    captured: tuple[int, int],
    adjustments: Sequence[tuple[str, int]],
    red5_player: int | None,
    escapes: Sequence[Escape],
) -> HandResult:
    """The result of a finished hand, worked out from its parts (RULES §11.1–§11.7, §13).

    ``tricks``: the hand's tricks, the last one deciding 抠底 and 保红5; ``captured``: the points
    the dealer side and the scoring side took in tricks; ``adjustments``: the changes to ``p`` so far
    (failed throws, failed dark fries, 逼红5), to which a 保红5 bonus is added here; ``red5_player``:
    who bid, fried or showed 5h 5h (for ``double_red5``); ``escapes``: the seats that left.

    >>> from chaodipi.cards import Rank, parse_cards
    >>> rules = RuleSet.preset("standard")
    >>> plays = tuple((p, tuple(parse_cards(c))) for p, c in [(1, "As"), (2, "3s"), (3, "4s"), (0, "6s")])
    >>> at_two = Progress(1, Rank.TWO)
    >>> r = hand_result(
    ...     rules, dealer=0, trump_order=TrumpOrder.of(rules, Rank.TWO, None), dealer_progress=at_two,
    ...     scoring_progress=at_two, flag_failures=0, tricks=[TrickRecord(1, plays, 1, 0)],
    ...     kitty=parse_cards("5c 5d 7c 7d 8c 8d 9c 9d"), captured=(0, 60), adjustments=(),
    ...     red5_player=None, escapes=(),
    ... )
    >>> r.kitty_points, r.multiplier, r.kou_di, r.points  # East won the last trick with a single: 抠底 ×2
    (10, 2, 20, 80)
    """
    last = tricks[-1]
    lead_cards = last.plays[0][1]
    winner_side = seat_side(last.winner, dealer)
    winning_play = next(c for p, c in last.plays if p == last.winner)
    kitty_pts = points_of(kitty)
    mult = kou = 0
    if winner_side is Side.SCORING and kitty:
        mult = kitty_multiplier(decompose(lead_cards, trump_order, lead=True), rules.kitty_multiplier)
        kou = kitty_pts * mult
    changes = list(adjustments)
    # RULES §11.7 保红5: the last lead is the player's last 5h (or pair of 5h)
    if rules.red5_bonus and lead_cards and all(c is FIVE_HEARTS for c in lead_cards):
        leader = last.plays[0][0]
        sign = 1 if seat_side(leader, dealer) is Side.SCORING else -1
        changes.append((f"保红5: player {leader} kept 5h to the end", RED5_PENALTY * len(lead_cards) * sign))
    p = captured[1] + kou + sum(d for _, d in changes)
    red5 = None if not rules.double_red5 or red5_player is None else seat_side(red5_player, dealer)
    settlement = settle(
        rules,
        p,
        dealer_progress,
        scoring_progress,
        flag_failures=flag_failures,
        last_trick=LastTrick(winner_side, tuple(lead_cards), tuple(winning_play)),
        double_red5=red5,
        trump=trump_order,
    )
    return HandResult(
        dealer,
        captured[1],
        captured[0],
        kitty_pts,
        kou,
        mult,
        tuple(changes),
        p,
        settlement,
        tuple(_escape_penalty(rules, dealer, e, settlement) for e in escapes),
    )


def _escape_penalty(rules: RuleSet, dealer: int, escape: Escape, settlement: Settlement) -> EscapePenalty:
    """The penalty of a seat that left, from the hand's settlement (RULES §13, §11.4)."""
    side = seat_side(escape.player, dealer)
    credits = settlement.credits
    side_credits = None if credits is None else credits[0 if side is Side.DEALER else 1]
    penalty = escape_penalty(
        rules, side, card_played=escape.card_played, reached=escape.reached, side_credits=side_credits
    )
    return EscapePenalty(
        escape.player,
        side,
        escape.card_played,
        escape.reached,
        0 if side_credits is None else max(0, -side_credits),
        penalty,
        escape.card_played and rules.escape_penalty is not None,
    )
