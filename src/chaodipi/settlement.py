"""End of a hand: levels, credits, special endings and the end of the game (RULES §11).

:func:`settle` takes the scoring side's total ``p`` (RULES §11.1) and both sides'
progress (circle, level) and says who holds the table next hand, where each side
stands, whether the next hand is a flag hand (扛旗) and whether the game is won.
Both sides are named by their role in the hand being settled: ``dealer`` is the
side that dealt it (庄家方), ``scoring`` the side that collected points (抓分方).

>>> from chaodipi.rules import RuleSet
>>> s = settle(RuleSet.preset("standard"), 35, Progress.parse("9"), Progress.parse("5"))
>>> s.table, s.dealer.level_text, s.scoring.level_text, s.game_winner
(<Side.DEALER: 'dealer'>, 'A', '5', None)
>>> s = settle(RuleSet.preset("mingchao"), 40, Progress.parse("9"), Progress.parse("5"))
>>> s.dealer.level_text, s.credits
('J', (4, -4))
>>> settle(RuleSet.preset("kangqi"), 70, Progress.parse("A"), Progress.parse("5")).to_json()["next_hand"]
'flag'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

try:  # the marks of the optional compiled build (make fast); the pure-Python install does without them
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - mypy (a dev dependency) brings mypy_extensions
    from chaodipi._build import mypyc_attr

from chaodipi.cards import Card, CardError, Rank, Suit, format_cards, parse_cards
from chaodipi.levels import FLAG, Progress, SettlementError, Side, format_level, parse_level
from chaodipi.phrases import Phrase, Value, say
from chaodipi.rules import JackRule, LevelTable, RuleSet, Shangtian
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder
from chaodipi.units import ftk_suits

__all__ = [
    "FLAG",
    "NORMAL_THRESHOLD",
    "LastTrick",
    "NextHand",
    "Progress",
    "Settlement",
    "SettlementError",
    "Side",
    "SpecialEnding",
    "contains_ftk",
    "format_level",
    "is_pure_ftk",
    "level_change",
    "parse_level",
    "settle",
]

#: The scoring side's threshold in a normal hand (RULES §11.2).
NORMAL_THRESHOLD = 80


class NextHand(StrEnum):
    """What kind of hand is played next: a normal hand or a flag hand 扛旗 (RULES §11.6)."""

    NORMAL = "normal"
    FLAG = "flag"


class SpecialEnding(StrEnum):
    """The special ending (RULES §11.5) that decided a hand, if any."""

    SHANGTIAN_FTK = "shangtian_ftk"  # 上天入地 by 5·10·K in the last trick
    SHANGTIAN_RED5 = "shangtian_red5"  # 上天入地 by a double 5h bid
    JACK = "jack"  # J到底


# -- the last trick -------------------------------------------------------------


# Not a native class in the compiled build (make fast): its constructor takes any values and checks them here.
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class LastTrick:
    """The last trick of a hand, as far as the special endings need it (RULES §8, §11.5).

    ``winner`` is the side that won it, ``lead`` the cards led, ``winning_play`` the play that won
    (the lead itself when the leader won).
    """

    winner: Side
    lead: tuple[Card, ...]
    winning_play: tuple[Card, ...]

    def __post_init__(self) -> None:
        # The fields as given (the compiled build would check self.winner and the others against their types first).
        winner, lead, winning_play = (object.__getattribute__(self, n) for n in ("winner", "lead", "winning_play"))
        lead, winning_play = tuple(lead), tuple(winning_play)
        object.__setattr__(self, "winner", Side.parse(winner))
        object.__setattr__(self, "lead", lead)
        object.__setattr__(self, "winning_play", winning_play)
        for name, cards in (("lead", lead), ("winning play", winning_play)):
            if not cards:
                raise SettlementError(f"the last trick's {name} has no cards")
            if not all(isinstance(c, Card) for c in cards):
                raise SettlementError(f"the last trick's {name} must be cards, not {cards!r}")
            over = sorted((c for c, n in Counter(cards).items() if n > 2), key=lambda c: c.index)
            if over:
                raise SettlementError(
                    f"the last trick's {name} needs a third copy of {format_cards(over)}; the game has two"
                )
        if len(self.lead) != len(self.winning_play):
            raise SettlementError(
                f"the winning play has {len(self.winning_play)} cards but the lead has {len(self.lead)}: "
                "every play of a trick has as many cards as the lead"
            )

    @classmethod
    def parse(cls, winner: object, lead: str | Iterable[str], winning_play: str | Iterable[str]) -> LastTrick:
        """Build from texts: ``LastTrick.parse("scoring", "5s Ts Ks", "5s Ts Ks")``."""
        try:
            return cls(Side.parse(winner), tuple(parse_cards(lead)), tuple(parse_cards(winning_play)))
        except CardError as e:
            raise SettlementError(f"the last trick: {e}") from None

    @classmethod
    def from_json(cls, obj: object) -> LastTrick:
        """Read ``{"winner": "scoring", "lead": "…", "winning_play": "…"}`` as in docs/referee.md."""
        if not isinstance(obj, Mapping):
            raise SettlementError(f'last_trick must be {{"winner", "lead", "winning_play"}}, not {obj!r}')
        missing = [k for k in ("winner", "winning_play") if k not in obj]
        if missing:
            raise SettlementError(f"last_trick needs {', '.join(missing)}")
        # A lead left out is taken to be the winning play itself (the leader won).
        return cls.parse(obj["winner"], obj.get("lead") or obj["winning_play"], obj["winning_play"])

    @property
    def leader_won(self) -> bool:
        """Whether the lead itself won (the winning play is the lead's cards)."""
        return Counter(self.lead) == Counter(self.winning_play)


def _ftk_suits(cards: Sequence[Card], trump: TrumpOrder | None, *, as_lead: bool) -> list[Suit]:
    """The natural suits X for which ``cards`` include ``5X TX KX`` of one effective suit (RULES §4.2)."""
    present = set(cards)
    if trump is None:
        candidates: set[Suit] = set(Suit)
    else:
        candidates = {x for e in EFFECTIVE_SUITS for x in ftk_suits(trump, e, lead=as_lead)}
    return [
        x for x in Suit if x in candidates and all(Card.of(r, x) in present for r in (Rank.FIVE, Rank.TEN, Rank.KING))
    ]


def contains_ftk(cards: Sequence[Card], trump: TrumpOrder | None = None, *, as_lead: bool = False) -> bool:
    """Whether ``cards`` include an FTK 5·10·K: ``5X TX KX`` of one natural suit, all of one effective suit.

    Without ``trump`` only the natural suit and the ranks are checked. ``as_lead``: the cards are
    a lead, where ``5h Th Kh`` is a heart FTK when the leader may use 5h so (RULES §4.2).

    >>> from chaodipi.rules import RuleSet
    >>> to = TrumpOrder.of(RuleSet.preset("standard"), Rank.TWO, Suit.SPADES)
    >>> contains_ftk(parse_cards("5h Th Kh"), to), contains_ftk(parse_cards("5h Th Kh"), to, as_lead=True)
    (False, True)
    """
    return bool(_ftk_suits(cards, trump, as_lead=as_lead))


def is_pure_ftk(cards: Sequence[Card], trump: TrumpOrder | None = None, *, as_lead: bool = False) -> bool:
    """Whether ``cards`` are exactly one 3-card FTK (no other cards, not an FTK pair)."""
    return len(cards) == 3 and contains_ftk(cards, trump, as_lead=as_lead)


# -- the level table --------------------------------------------------------------


def _check_points(points: object) -> int:
    if isinstance(points, bool) or not isinstance(points, int):
        raise SettlementError(f"points must be a whole number, not {points!r}")
    if points % 5:
        raise SettlementError(f"points must be a multiple of 5, not {points}")
    return points


def level_change(rules: RuleSet, points: int, threshold: int = NORMAL_THRESHOLD) -> tuple[Side, int]:
    """Who holds the table and the nominal gain in levels, from the level table (RULES §11.2).

    ``threshold`` is 80 in a normal hand; in a flag hand (``rules.flag_threshold``, 100) the table
    is read at ``points - (threshold - 80)`` (RULES §11.6: "what the level table gives for p − 20").
    With ``institute`` and p ≤ 0 the dealer side goes straight to A; the nominal gain reported here
    is then that of ``step10`` (used for credits only).

    >>> from chaodipi.rules import RuleSet
    >>> level_change(RuleSet.preset("standard"), 0), level_change(RuleSet.preset("standard"), 125)
    ((<Side.DEALER: 'dealer'>, 9), (<Side.SCORING: 'scoring'>, 4))
    >>> level_change(RuleSet.preset("contest2021"), -5)
    (<Side.DEALER: 'dealer'>, 5)
    """
    p = _check_points(points) - (threshold - NORMAL_THRESHOLD)
    if rules.level_table == LevelTable.STEP20:
        if p >= NORMAL_THRESHOLD:
            return Side.SCORING, (p - NORMAL_THRESHOLD) // 20
        return Side.DEALER, (75 - p) // 20 + 1
    # step10, and institute (the same for p >= 5)
    if p >= NORMAL_THRESHOLD:
        return Side.SCORING, (p - NORMAL_THRESHOLD) // 10
    if p >= 10:
        return Side.DEALER, 8 - p // 10
    if p == 5:
        return Side.DEALER, 8
    if p == 0:
        return Side.DEALER, 9  # 大光
    return Side.DEALER, 10 + (-p - 5) // 10  # −5..−10 → 10, −15..−20 → 11, …


def _straight_to_ace(rules: RuleSet, points: int, threshold: int) -> bool:
    """RULES §11.2 ``institute``: p ≤ 0 sends the dealer side straight to A."""
    return rules.level_table == LevelTable.INSTITUTE and points - (threshold - NORMAL_THRESHOLD) <= 0


# -- the result ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of a hand (RULES §11).

    ``dealer`` and ``scoring`` are the two sides after the hand, named by their role in the
    hand just settled; ``table`` says which of them is the dealer side next hand. ``credits``
    is (dealer side, scoring side) or None when the ``credits`` option is off. ``gainer`` and
    ``nominal_gain`` are what the level table said before must-play stops and special endings;
    ``special`` names the special ending applied; ``events`` explain it all in words for logs.
    """

    table: Side
    dealer: Progress
    scoring: Progress
    next_hand: NextHand
    game_winner: Side | None
    credits: tuple[int, int] | None
    points: int
    threshold: int
    gainer: Side
    nominal_gain: int
    special: SpecialEnding | None = None
    events: tuple[Phrase, ...] = field(default_factory=tuple)

    def side(self, side: Side) -> Progress:
        """The progress of one side after the hand."""
        return self.dealer if side is Side.DEALER else self.scoring

    def to_json(self) -> dict[str, object]:
        """The ``settle`` answer of docs/referee.md (``credits`` only with the credits option)."""
        out: dict[str, object] = {
            "table": self.table.value,
            "dealer": self.dealer.to_json(),
            "scoring": self.scoring.to_json(),
            "next_hand": self.next_hand.value,
            "game_winner": None if self.game_winner is None else self.game_winner.value,
        }
        if self.credits is not None:
            out["credits"] = {"dealer": self.credits[0], "scoring": self.credits[1]}
        return out


class _Work:
    """The mutable state of one settlement while it is being worked out."""

    def __init__(self, rules: RuleSet, dealer: Progress, scoring: Progress) -> None:
        self.rules = rules
        self.prog = {Side.DEALER: dealer, Side.SCORING: scoring}
        self.before = dict(self.prog)
        self.table = Side.DEALER
        self.game_winner: Side | None = None
        self.special: SpecialEnding | None = None
        self.shangtian_winner: Side | None = None
        self.events: list[Phrase] = []

    def note(self, code: str, **values: Value) -> None:
        """Add one line to the settlement's explanation (its ``events``): the phrase ``code`` with ``values``."""
        self.events.append(say(code, **values))

    def advance(self, side: Side, steps: int, *, may_leave: bool, start: Progress | None = None) -> bool:
        """Advance ``side`` by ``steps`` levels one at a time, stopping at must-play levels (RULES §11.3).

        ``may_leave``: the side kept the table as dealer at its level, so it may leave a must-play
        level. Returns True when the side passed A (only a dealer keeping the table at A in the
        last circle does).
        """
        rules = self.rules
        prog = self.prog[side] if start is None else start
        if prog.level is None:
            self.prog[side] = prog
            if steps:
                self.note("note.flag_still", side=side.value)
            return False
        level, circle = prog.level, prog.circle
        passed = False
        for i in range(steps):
            if rules.is_must_play(level, circle) and not (i == 0 and may_leave):
                self.note("note.must_play", side=side.value, level=level.symbol)
                break
            if level == Rank.ACE:
                if circle < rules.circles:
                    circle, level = circle + 1, Rank.TWO  # RULES §11.3: on into the next circle
                    self.note("note.next_circle", side=side.value, circle=circle)
                else:
                    passed = True
                    break
            else:
                level = Rank(level + 1)
        self.prog[side] = Progress(circle, level)
        return passed

    def send_to_ace(self, side: Side) -> None:
        """上天: straight to A of the last circle, ignoring must-play stops (a flag side stays at flag)."""
        if self.prog[side].level is None:
            self.note("note.flag_stays", side=side.value)
            return
        self.prog[side] = Progress(self.rules.circles, Rank.ACE)
        self.note("note.to_ace", side=side.value)

    def send_to_two(self, side: Side) -> None:
        """入地: back to level 2 of circle 1 (a side at flag is never moved down, RULES §11.5)."""
        if self.prog[side].level is None:
            self.note("note.flag_not_down", side=side.value)
            return
        self.prog[side] = Progress(1, Rank.TWO)
        self.note("note.to_two", side=side.value)

    def pass_ace(self) -> None:
        """The dealer side kept the table at A in the last circle: it has passed A (过A, RULES §11.3)."""
        if self.rules.flag:
            self.prog[Side.DEALER] = Progress(self.rules.circles, None)
            self.note("note.pass_ace_flag")
        else:
            self.game_winner = Side.DEALER
            self.note("note.pass_ace_wins")

    def was_at_last_ace(self, side: Side) -> bool:
        """Whether ``side`` stood at A of the last circle before this settlement."""
        prog = self.before[side]
        return prog.level == Rank.ACE and prog.circle >= self.rules.circles


def _validate(rules: RuleSet, name: str, prog: Progress) -> Progress:
    if not isinstance(prog, Progress):
        raise SettlementError(f"the {name} side must be a Progress, not {prog!r}")
    if prog.circle > rules.circles:
        raise SettlementError(
            f"the {name} side is in circle {prog.circle}, but these rules play {rules.circles} circle(s)"
        )
    if prog.level is None:
        if not rules.flag:
            raise SettlementError(f"the {name} side is at flag, but these rules have no flag hand (扛旗)")
        # A flag side passed A in the last circle; the circle given for it does not matter.
        return Progress(rules.circles, None)
    return prog


def _pair_of(cards: Sequence[Card], rank: Rank, *, single_ok: bool) -> bool:
    """Whether ``cards`` are a single card of ``rank`` (when allowed) or a pair of identical twins of it."""
    if single_ok and len(cards) == 1:
        return cards[0].rank == rank
    return len(cards) == 2 and cards[0] is cards[1] and cards[0].rank == rank


def settle(
    rules: RuleSet,
    points: object,  # (object: checked below, also in the compiled build, which would refuse a non-int first)
    dealer: Progress,
    scoring: Progress,
    *,
    flag_failures: object = 0,
    last_trick: LastTrick | None = None,
    double_red5: object = None,
    trump: TrumpOrder | None = None,
) -> Settlement:
    """Settle a hand (RULES §11): who holds the table next, both sides' levels, credits and game end.

    ``points``: the scoring side's total p (RULES §11.1). ``dealer``/``scoring``: both sides'
    progress before the hand; a dealer side at ``flag`` makes this a flag hand (扛旗).
    ``flag_failures``: flag hands the dealer side lost in a row before this one. ``last_trick``:
    for 上天入地 by FTK and J到底. ``double_red5``: the side of the last ``5h 5h`` bid (in a flag
    hand: the scoring side showed ``5h 5h``). ``trump``: the hand's trump order, used to tell
    whether three cards ``5X TX KX`` are of one effective suit; without it only the natural suit
    and ranks are checked.

    >>> from chaodipi.rules import RuleSet
    >>> s = settle(RuleSet.preset("kangqi"), 30, Progress.parse("7"), Progress.parse("Q"),
    ...            last_trick=LastTrick.parse("scoring", "5s Ts Ks", "5s Ts Ks"))
    >>> s.table, s.dealer.level_text, s.scoring.level_text, s.credits
    (<Side.SCORING: 'scoring'>, '2', 'A', (-16, 16))
    """
    points = _check_points(points)
    dealer = _validate(rules, "dealer", dealer)
    scoring = _validate(rules, "scoring", scoring)
    if isinstance(flag_failures, bool) or not isinstance(flag_failures, int) or flag_failures < 0:
        raise SettlementError(f"flag_failures must be a whole number from 0, not {flag_failures!r}")
    if last_trick is not None and not isinstance(last_trick, LastTrick):
        raise SettlementError(f"last_trick must be a LastTrick, not {last_trick!r}")
    if double_red5 is not None:
        double_red5 = Side.parse(double_red5)
    if trump is not None and not isinstance(trump, TrumpOrder):
        raise SettlementError(f"trump must be a TrumpOrder, not {trump!r}")

    flag_hand = dealer.is_flag
    threshold = rules.flag_threshold if flag_hand else NORMAL_THRESHOLD
    gainer, gain = level_change(rules, points, threshold)
    w = _Work(rules, dealer, scoring)
    w.table = gainer
    if gainer is Side.DEALER:
        w.note("note.table_keep", points=points, threshold=threshold, gain=gain)
    else:
        w.note("note.table_take", points=points, threshold=threshold, gain=gain)

    if flag_hand:
        _settle_flag_hand(w, points, gain, flag_failures=flag_failures, double_red5=double_red5)
        if last_trick is not None:
            w.note("note.flag_no_ending")
    elif not (
        _ftk_ending(w, points, gainer, gain, last_trick, trump)
        or _red5_ending(w, gainer, double_red5)
        or _jack_ending(w, gainer, gain, last_trick)
    ):
        _normal(w, points, threshold, gainer, gain)

    credits = _credits(w, gainer, gain)
    table_prog = w.prog[w.table]
    next_hand = NextHand.FLAG if w.game_winner is None and table_prog.is_flag else NextHand.NORMAL
    return Settlement(
        table=w.table,
        dealer=w.prog[Side.DEALER],
        scoring=w.prog[Side.SCORING],
        next_hand=next_hand,
        game_winner=w.game_winner,
        credits=credits,
        points=points,
        threshold=threshold,
        gainer=gainer,
        nominal_gain=gain,
        special=w.special,
        events=tuple(w.events),
    )


def _normal(w: _Work, points: int, threshold: int, gainer: Side, gain: int) -> None:
    """RULES §11.2–§11.3: apply the level table's result."""
    if gainer is Side.SCORING:
        w.advance(Side.SCORING, gain, may_leave=False)
        return
    _dealer_keeps(w, points, threshold, gain, start=None)


def _dealer_keeps(w: _Work, points: int, threshold: int, gain: int, *, start: Progress | None) -> None:
    """The dealer side keeps the table and gains ``gain`` from ``start`` (its own level when None)."""
    prog = w.prog[Side.DEALER] if start is None else start
    if _straight_to_ace(w.rules, points, threshold) and prog.level is not None and prog.level < Rank.ACE:
        # RULES §11.2 institute: p ≤ 0 → straight to A, ignoring must-play stops.
        w.prog[Side.DEALER] = Progress(prog.circle, Rank.ACE)
        w.note("note.institute_zero")
        return
    if w.advance(Side.DEALER, gain, may_leave=start is None, start=start):
        w.pass_ace()


def _ftk_ending(
    w: _Work, points: int, gainer: Side, gain: int, last_trick: LastTrick | None, trump: TrumpOrder | None
) -> bool:
    """RULES §11.5 上天入地 by FTK. Returns True when it applied."""
    rules = w.rules
    if last_trick is None or rules.shangtian == Shangtian.NONE or not rules.ftk:
        return False
    cards, as_lead = last_trick.winning_play, last_trick.leader_won
    if rules.shangtian == Shangtian.PURE:
        if not is_pure_ftk(cards, trump, as_lead=as_lead):
            return False
        winner = last_trick.winner
        w.note("note.ftk_last", winner=winner.value)
    else:
        if last_trick.winner is not Side.SCORING or not contains_ftk(cards, trump, as_lead=as_lead):
            return False
        winner = Side.SCORING
        w.note("note.ftk_koudi")
    w.special = SpecialEnding.SHANGTIAN_FTK
    w.shangtian_winner = winner
    if rules.shangtian == Shangtian.CONTEST:
        # RULES §11.5 contest: the dealer side goes back to 2; p decides the table and the gains.
        w.send_to_two(Side.DEALER)
        w.table = gainer
        if gainer is Side.SCORING:
            w.advance(Side.SCORING, gain, may_leave=False)
        else:
            w.note("note.keep_from_two")
            _dealer_keeps(w, points, NORMAL_THRESHOLD, gain, start=w.prog[Side.DEALER])
        return True
    _heaven_and_earth(w, winner)
    return True


def _heaven_and_earth(w: _Work, winner: Side) -> None:
    """上天入地: the winner straight to A and holds the table, the loser back to 2 (RULES §11.5)."""
    w.send_to_two(winner.other)
    w.table = winner
    if winner is Side.DEALER and w.was_at_last_ace(Side.DEALER):
        w.pass_ace()  # it kept the table as dealer at A
        return
    w.send_to_ace(winner)


def _red5_ending(w: _Work, gainer: Side, double_red5: Side | None) -> bool:
    """RULES §11.5 上天入地 by a double 5h bid in a normal hand. Returns True when it applied."""
    if double_red5 is None or not w.rules.double_red5:
        return False
    winner = gainer  # the bidding side wins big if it wins the hand, else the other side does
    w.note("note.red5_won" if double_red5 is gainer else "note.red5_lost", side=double_red5.value)
    w.special = SpecialEnding.SHANGTIAN_RED5
    w.shangtian_winner = winner
    _heaven_and_earth(w, winner)
    return True


def _jack_ending(w: _Work, gainer: Side, gain: int, last_trick: LastTrick | None) -> bool:
    """RULES §11.5 J到底. Returns True when it applied."""
    rules = w.rules
    level = w.prog[Side.DEALER].level
    if last_trick is None or rules.jack_rule == JackRule.NONE or last_trick.winner is not Side.SCORING:
        return False
    cards = last_trick.winning_play
    circle = w.prog[Side.DEALER].circle
    if rules.jack_rule == JackRule.MINGCHAO:
        if gainer is not Side.SCORING:
            return False
        if level == Rank.JACK and _pair_of(cards, Rank.JACK, single_ok=True):
            drop = Rank.TWO
        elif level == Rank.ACE and _pair_of(cards, Rank.ACE, single_ok=False):
            drop = Rank.JACK
        else:
            return False
        w.special = SpecialEnding.JACK
        w.note("note.jack_last", cards=tuple(cards), drop=drop.symbol)
        w.prog[Side.DEALER] = Progress(circle, drop)
        w.advance(Side.SCORING, gain, may_leave=False)
        return True
    # contest2021 rules 11, 12: whatever p is
    if level == Rank.JACK and _pair_of(cards, Rank.JACK, single_ok=True):
        drop = Rank.TWO
    elif level == Rank.ACE and _pair_of(cards, Rank.ACE, single_ok=True):
        drop = Rank.JACK
    else:
        return False
    w.special = SpecialEnding.JACK
    w.note("note.jack_koudi", cards=tuple(cards), drop=drop.symbol)
    w.prog[Side.DEALER] = Progress(circle, drop)
    if gainer is Side.SCORING:
        w.advance(Side.SCORING, gain, may_leave=False)
    elif drop == Rank.TWO:
        w.note("note.keep_from_two")
        w.advance(Side.DEALER, gain, may_leave=False)
    else:
        w.note("note.keep_plays_j")
    return True


def _settle_flag_hand(w: _Work, points: int, gain: int, *, flag_failures: int, double_red5: Side | None) -> None:
    """RULES §11.6 the flag hand 扛旗 (and the flag-hand double 5h rule of §11.5)."""
    rules = w.rules
    if w.table is Side.DEALER:
        w.game_winner = Side.DEALER
        w.note("note.flag_won")
        return
    w.note("note.flag_failed")
    if double_red5 is Side.SCORING and rules.double_red5:
        w.special = SpecialEnding.SHANGTIAN_RED5
        w.shangtian_winner = Side.SCORING
        w.note("note.flag_red5")
        w.prog[Side.DEALER] = Progress(rules.circles, Rank.ACE)
        if w.was_at_last_ace(Side.SCORING):
            w.prog[Side.SCORING] = Progress(rules.circles, None)
            w.note("note.scoring_to_flag")
        else:
            w.send_to_ace(Side.SCORING)
        return
    if double_red5 is not None and rules.double_red5:
        w.note("note.flag_red5_nothing")
    w.advance(Side.SCORING, gain, may_leave=False)
    limit = rules.flag_fail_limit
    if limit is not None and flag_failures + 1 >= limit:
        w.prog[Side.DEALER] = Progress(rules.circles, Rank.ACE)
        w.note("note.flag_back", count=flag_failures + 1)


def _credits(w: _Work, gainer: Side, gain: int) -> tuple[int, int] | None:
    """RULES §11.4 credits 积分 (dealer side, scoring side), from the nominal gains."""
    rules = w.rules
    if not rules.credits:
        return None
    dealer = gain if gainer is Side.DEALER else -(gain + 1)
    winner = w.shangtian_winner
    if winner is not None and rules.shangtian_credits is not None:
        normal = dealer if winner is Side.DEALER else -dealer
        amount = max(rules.shangtian_credits, normal)
        dealer = amount if winner is Side.DEALER else -amount
    return dealer, -dealer
