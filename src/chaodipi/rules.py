"""Rule options and the six presets (RULES §15).

Every difference between the source documents is a named option of
:class:`RuleSet`; each source is a preset built from them. A house rule is a
preset plus overrides:

>>> rules = RuleSet.from_spec({"preset": "standard", "set": {"ace_low_tractor": "no"}})
>>> rules.ace_low_tractor, rules.name
(False, 'standard+')
>>> RuleSet.preset("anchao").fry_visibility
<FryVisibility.DARK: 'dark'>
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import re
import reprlib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import NoneType
from typing import Any

from chaodipi.cards import CardError, Rank

__all__ = [
    "INT_OPTION_RANGES",
    "INT_OPTION_STEPS",
    "OPTION_NEEDS",
    "PRESETS",
    "PRESET_NAMES",
    "BidOrder",
    "FryTurns",
    "FryVisibility",
    "JackRule",
    "KittyMultiplier",
    "LevelTable",
    "NoBidTrump",
    "RuleError",
    "RuleSet",
    "Shangtian",
    "ThrowFailPlay",
    "TractorSkipLevel",
    "TrumpFtkFollow",
]


class RuleError(ValueError):
    """An unknown preset or option, or a bad option value."""


class NoBidTrump(StrEnum):
    """How trump is chosen from the kitty when nobody bids (RULES §9.5)."""

    FIRST_LEVEL_CARD = "first_level_card"
    FIRST_CARD = "first_card"
    HIGHEST_CARD = "highest_card"


class FryVisibility(StrEnum):
    """明炒 open or 暗炒 dark bids and fries (RULES §10.5)."""

    OPEN = "open"
    DARK = "dark"


class FryTurns(StrEnum):
    """Who is asked to fry next (RULES §10.3)."""

    DEALER_FIRST = "dealer_first"
    ROTATE = "rotate"


class TractorSkipLevel(StrEnum):
    """Whether the level rank's gap is bridged in tractors (空心连对, RULES §4.1)."""

    NONE = "none"
    SIDE = "side"
    ALL = "all"


class TrumpFtkFollow(StrEnum):
    """What a follower owes to a trump 5·10·K lead (逼大主, RULES §6.2)."""

    FTK_ELSE_TOP = "ftk_else_top"
    TOP = "top"


class ThrowFailPlay(StrEnum):
    """What a failed throw must lead instead (RULES §5.2)."""

    FAILING_UNIT = "failing_unit"
    SMALLEST_CARD = "smallest_card"


class KittyMultiplier(StrEnum):
    """Kou di multiplier (RULES §8)."""

    LINEAR = "linear"
    EXPONENTIAL = "exponential"


class LevelTable(StrEnum):
    """Level change at the end of a hand (RULES §11.2)."""

    STEP10 = "step10"
    STEP20 = "step20"
    INSTITUTE = "institute"


class Shangtian(StrEnum):
    """上天入地 by 5·10·K in the last trick (RULES §11.5)."""

    NONE = "none"
    PURE = "pure"
    CONTAINS = "contains"
    CONTEST = "contest"


class JackRule(StrEnum):
    """J到底 (RULES §11.5)."""

    NONE = "none"
    MINGCHAO = "mingchao"
    CONTEST = "contest"


#: Tokens of a bid order, low to high. "single" is always lowest and implicit.
BID_TOKENS = ("d", "c", "h", "s", "SJ", "BJ", "5h", "LB")


@dataclass(frozen=True, slots=True)
class BidOrder:
    """Strength of bids, low to high (RULES §9.3), or ``unordered`` (无大小顺序).

    ``tokens`` lists every bid of :data:`BID_TOKENS` once (``LB``, the look-back, may be
    left out), or is empty for ``unordered``; anything else is refused when built:

    >>> BidOrder.parse("D<C<H<S<SJ<BJ<5h<LB").rank("LB") > BidOrder.parse("D<C<H<S<SJ<BJ<5h<LB").rank("5h")
    True
    >>> BidOrder(("d", "c"))
    Traceback (most recent call last):
    ...
    chaodipi.rules.RuleError: option bid_order must list every bid; missing h, s, SJ, BJ, 5h
    """

    tokens: tuple[str, ...]  # empty tuple: unordered

    def __post_init__(self) -> None:
        if not isinstance(self.tokens, tuple):
            raise RuleError(f"option bid_order: tokens must be a tuple of bids, not {_show(self.tokens)}")
        seen: set[str] = set()
        for token in self.tokens:
            if not isinstance(token, str) or token not in BID_TOKENS:
                raise RuleError(f"option bid_order: unknown bid {_show(token)}; use D, C, H, S, SJ, BJ, 5h, LB")
            if token in seen:
                raise RuleError(f"option bid_order: {_show(token)} is listed twice")
            seen.add(token)
        missing = [t for t in BID_TOKENS[:-1] if t not in seen]
        if self.tokens and missing:
            raise RuleError(f"option bid_order must list every bid; missing {', '.join(missing)}")

    @property
    def unordered(self) -> bool:
        """Whether bids have no strength order (无大小顺序): ``tokens`` is empty."""
        return not self.tokens

    def rank(self, token: str) -> int:
        """Strength of a bid token; higher is stronger. ``single`` is 0."""
        if token == "single":
            return 0
        if token == "LB" and "LB" not in self.tokens:
            return len(self.tokens) + 1  # a look-back outside the order outranks all
        return self.tokens.index(token) + 1

    @classmethod
    def parse(cls, value: object) -> BidOrder:
        """``"unordered"``, or bids low to high as a text (``"D<C<H<S<SJ<BJ<5h"``) or a list of texts."""
        if isinstance(value, BidOrder):
            return value
        if isinstance(value, str):
            text = value.strip()
            if text.lower() == "unordered":
                return cls(())
            parts = [p.strip() for p in text.replace(">", "<").split("<") if p.strip()]
        elif isinstance(value, (list, tuple)) and all(isinstance(p, str) for p in value):
            parts = [p.strip() for p in value]
        else:
            raise RuleError(
                f"option bid_order must be 'unordered' or a list like 'D<C<H<S<SJ<BJ<5h', not {_show(value)}"
            )
        norm: list[str] = []
        for p in parts:
            key = {"SINGLE": "single", "LOOKBACK": "LB", "5H": "5h", "SJ": "SJ", "BJ": "BJ", "LB": "LB"}.get(
                p.upper(), p.lower()
            )
            if key == "single":
                continue
            if key not in BID_TOKENS:
                raise RuleError(f"option bid_order: unknown bid {_show(p)}; use D, C, H, S, SJ, BJ, 5h, LB")
            if key in norm:
                raise RuleError(f"option bid_order: {_show(p)} is listed twice")
            norm.append(key)
        if not norm:  # an empty list is not "unordered": that must be said in words
            raise RuleError(f"option bid_order must list every bid; missing {', '.join(BID_TOKENS[:-1])}")
        return cls(tuple(norm))

    def __str__(self) -> str:
        if self.unordered:
            return "unordered"
        return "<".join(t.upper() if t in "dchs" else t for t in self.tokens)


#: The range (inclusive) of each whole-number option: wide enough for every preset and house
#: rule, narrow enough that every answer comes in bounded time (``circles`` drives loops).
#: Every field typed ``int`` or ``int | None`` must have an entry (checked at import).
INT_OPTION_RANGES: dict[str, tuple[int, int]] = {
    "dark_fry_penalty": (0, 1000),
    "throw_penalty_per_card": (0, 1000),
    "circles": (1, 10),
    "flag_threshold": (0, 1000),
    "flag_fail_limit": (0, 1000),
    "shangtian_credits": (0, 1000),
    "escape_penalty": (0, 1000),
    "declare_seconds": (0, 3600),
    "bury_seconds": (0, 3600),
    "play_seconds": (0, 3600),
    "fry_seconds": (0, 3600),
}

#: Whole-number options that must be a multiple of a step: the flag threshold goes by 5s (RULES §11.6).
INT_OPTION_STEPS: dict[str, int] = {"flag_threshold": 5}

#: A yes/no option that only a rule set with another one on may have on: an FTK pair is two FTKs (RULES §4).
OPTION_NEEDS: dict[str, str] = {"ftk_pair": "ftk"}

#: Words a spec may use for yes and no (RULES §15 writes yes, no and – in its table).
_YES_WORDS = frozenset({"yes", "true", "on"})
_NO_WORDS = frozenset({"no", "false", "off", "-", "–"})
#: Words a spec may use for "not set" in an optional number, or for an enum's ``none``.
_NONE_WORDS = frozenset({"-", "–", "no", "none", ""})
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 8


def _show(value: object) -> str:
    """``value`` for a message: its repr, shortened when long."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _show_int(value)
    return _REPR.repr(value)


def _show_int(n: int) -> str:
    """``n`` in digits, or its size when it is too long to print (Python refuses > 4300 digits)."""
    if n.bit_length() <= 4000:
        return str(n)
    return f"a number of about {int(n.bit_length() * 0.30103)} digits"


def _check_range(name: str, n: int) -> int:
    low, high = INT_OPTION_RANGES[name]
    if not low <= n <= high:
        raise RuleError(f"option {name} must be from {low} to {high}, not {_show_int(n)}")
    return n


# -- option kinds ------------------------------------------------------------------------------
# Each field's type decides how its value is checked when a RuleSet is built (``check``: the typed
# value, strictly) and how it is read from a spec or house rule (``parse``: JSON and RULES §15's
# words). The table is made from ``dataclasses.fields(RuleSet)`` below, so a new field cannot be
# forgotten: a type with no kind here stops the import.

_Convert = Callable[[str, object], object]


@dataclass(frozen=True, slots=True)
class _OptionKind:
    """How one option's value is checked (typed, at construction) and parsed (from a spec)."""

    check: _Convert
    parse: _Convert


def _check_name(name: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise RuleError(f"{name} must be a non-empty text, not {_show(value)}")
    return value


def _check_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise RuleError(f"option {name} must be True or False, not {_show(value)}")


def _parse_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _YES_WORDS:
        return True
    if isinstance(value, str) and value.strip().lower() in _NO_WORDS:
        return False
    raise RuleError(f"option {name} must be yes or no, not {_show(value)}")


def _read_int(name: str, value: object) -> int | None:
    """A whole number given as a number or in digits (``"15"``, ``"15s"``), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().removesuffix("s").strip()  # "15s": the RULES table's seconds
        if _WHOLE_NUMBER.fullmatch(text):
            digits = len(text.lstrip("+-"))
            if digits > 100:  # out of every range, and Python reads at most 4300 digits
                low, high = INT_OPTION_RANGES[name]
                raise RuleError(f"option {name} must be from {low} to {high}, not a number of {digits} digits")
            return int(text)
    return None


def _int_error(name: str, value: object, absent: str) -> RuleError:
    low, high = INT_OPTION_RANGES[name]
    return RuleError(f"option {name} must be a whole number from {low} to {high}{absent}, not {_show(value)}")


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _int_error(name, value, "")
    return _check_range(name, value)


def _check_optional_int(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _int_error(name, value, " or None")
    return _check_range(name, value)


def _parse_int(name: str, value: object) -> int:
    n = _read_int(name, value)
    if n is None:
        raise _int_error(name, value, "")
    return _check_range(name, n)


def _parse_optional_int(name: str, value: object) -> int | None:
    if value is None or value is False or (isinstance(value, str) and value.strip().lower() in _NONE_WORDS):
        return None
    n = _read_int(name, value)
    if n is None:
        raise _int_error(name, value, " or no")
    return _check_range(name, n)


def _enum_kind(cls: type[StrEnum]) -> _OptionKind:
    allowed = ", ".join(m.value for m in cls)
    has_none = "none" in {m.value for m in cls}

    def refuse(name: str, value: object) -> RuleError:
        return RuleError(f"option {name} must be one of {allowed}, not {_show(value)}")

    def check(name: str, value: object) -> object:
        if isinstance(value, cls):
            return value
        if type(value) is str:  # the exact value of a member, converted to the member
            try:
                return cls(value)
            except ValueError:
                pass
        raise refuse(name, value)

    def parse(name: str, value: object) -> object:
        if isinstance(value, cls):
            return value
        if value is False and has_none:
            return cls("none")
        if isinstance(value, str):
            key = value.strip().lower()
            if key in _NONE_WORDS and has_none:
                key = "none"
            try:
                return cls(key)
            except ValueError:
                pass
        raise refuse(name, value)

    return _OptionKind(check, parse)


def _check_bid_order(name: str, value: object) -> BidOrder:
    if isinstance(value, BidOrder):
        return value  # a BidOrder checks its own tokens when built
    raise RuleError(
        f"option {name} must be a BidOrder (BidOrder.parse('D<C<H<S<SJ<BJ<5h') or BidOrder.parse('unordered')), "
        f"not {_show(value)}"
    )


def _parse_bid_order(name: str, value: object) -> BidOrder:
    return BidOrder.parse(value)


def _check_levels(name: str, value: object) -> tuple[Rank, ...]:
    if not isinstance(value, tuple) or not all(isinstance(r, Rank) and Rank.TWO <= r <= Rank.ACE for r in value):
        raise RuleError(f"option {name} must be a tuple of levels (Rank.TWO to Rank.ACE), not {_show(value)}")
    if any(a >= b for a, b in itertools.pairwise(value)):
        symbols = ", ".join(r.symbol for r in value)
        raise RuleError(f"option {name} must list levels once each from low to high, not ({symbols})")
    return value


def _parse_levels(name: str, value: object) -> tuple[Rank, ...]:
    if value is None or value is False:
        return ()
    items: list[object]
    if isinstance(value, str):
        text = value.replace("(last circle)", "").replace("、", ",")
        items = [p for p in text.replace(",", " ").split() if p]
        if text.strip().lower() in _NONE_WORDS:
            items = []
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise RuleError(f"option {name} takes levels like 'J, A' or ['J', 'A'], not {_show(value)}")
    ranks: set[Rank] = set()
    for item in items:
        if isinstance(item, Rank) and Rank.TWO <= item <= Rank.ACE:
            ranks.add(item)
            continue
        if isinstance(item, int) and not isinstance(item, bool):
            item = str(item)  # 10 as in "10"
        if not isinstance(item, str):
            raise RuleError(f"option {name} takes levels like 'J, A' or ['J', 'A'], not {_show(value)}")
        try:
            ranks.add(Rank.parse(item))
        except CardError as exc:
            raise RuleError(f"option {name}: {exc}") from None
    return tuple(sorted(ranks))


def _kind_of(name: str, hint: object) -> _OptionKind:
    """The kind of the field ``name`` typed ``hint``; a type with no kind is a programming error."""
    if hint is str:
        return _OptionKind(_check_name, _check_name)
    if hint is bool:
        return _OptionKind(_check_bool, _parse_bool)
    optional_int = typing.get_origin(hint) in (types.UnionType, typing.Union) and set(typing.get_args(hint)) == {
        int,
        NoneType,
    }
    if hint is int or optional_int:
        if name not in INT_OPTION_RANGES:
            raise TypeError(f"RuleSet.{name} is a number: give it a range in INT_OPTION_RANGES")
        if hint is int:
            return _OptionKind(_check_int, _parse_int)
        return _OptionKind(_check_optional_int, _parse_optional_int)
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return _enum_kind(hint)
    if hint is BidOrder:
        return _OptionKind(_check_bid_order, _parse_bid_order)
    if typing.get_origin(hint) is tuple and typing.get_args(hint) == (Rank, Ellipsis):
        return _OptionKind(_check_levels, _parse_levels)
    raise TypeError(f"RuleSet.{name}: no option kind for the type {hint!r}")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every option of RULES §15 as a typed field. Build with :meth:`preset` or :meth:`from_spec`.

    Every field is checked when a rule set is built, however it is built (keyword arguments,
    :meth:`with_options`, :meth:`from_spec`, :meth:`preset`); what cannot be honoured is a
    :class:`RuleError` naming the option and what it may be:

    - yes/no options take ``True`` or ``False`` only (not 0, 1 or ``"yes"``);
    - whole-number options take an ``int`` (not a bool) within :data:`INT_OPTION_RANGES`,
      the ``int | None`` ones also ``None`` (not set, ``–`` in RULES §15);
    - enum options take a member, or the member's exact value as a text, which is converted
      to the member (``fry_visibility="dark"`` gives ``FryVisibility.DARK``); no other text;
    - ``bid_order`` takes a :class:`BidOrder`, ``must_play`` a tuple of levels from low to high.

    A spec (:meth:`from_spec`, :meth:`with_options`) is read more freely: RULES §15's words
    (``yes``, ``no``, ``–``, ``"15s"``), any case, bid orders and levels as texts.

    >>> RuleSet(fry_visibility="bogus")
    Traceback (most recent call last):
    ...
    chaodipi.rules.RuleError: option fry_visibility must be one of open, dark, not 'bogus'
    >>> RuleSet(ftk=False, ftk_pair=False).ftk_pair
    False
    """

    name: str = "custom"
    """The preset this came from, ``+`` when it was changed (a house rule); not an option."""
    bid_order: BidOrder = field(default_factory=lambda: BidOrder.parse("D<C<H<S<SJ<BJ<5h"))
    """Strength of bids, low to high, or unordered (RULES §9.3)."""
    lookback: bool = False
    """回头望: the first bidder may override with a pair of their first bid (RULES §9.2)."""
    no_bid_trump: NoBidTrump = NoBidTrump.FIRST_LEVEL_CARD
    """How trump comes from the kitty when nobody bids (RULES §9.5)."""
    fry: bool = True
    """炒底: players may take the kitty by a stronger bid (RULES §10)."""
    fry_visibility: FryVisibility = FryVisibility.OPEN
    """明炒 open or 暗炒 dark bids and fries (RULES §10.5)."""
    fry_turns: FryTurns = FryTurns.ROTATE
    """Who is asked to fry next (RULES §10.3)."""
    dark_fry_penalty: int | None = None
    """Points for a failed dark fry; None: a fry cannot fail (RULES §10.5)."""
    tractor_skip_level: TractorSkipLevel = TractorSkipLevel.NONE
    """空心连对: where the level rank's gap is bridged in tractors (RULES §4.1)."""
    trump_level_links: bool = False
    """A trump-suit level pair takes its natural place in tractors (RULES §4.1)."""
    ace_low_tractor: bool = True
    """``AA22`` is a tractor (RULES §4.1)."""
    ftk: bool = True
    """5·10·K is a unit (RULES §4.2). Switching it off needs ``ftk_pair`` off too (see there)."""
    ftk_pair: bool = True
    """Both 5s, 10s and Ks of a suit are one unit (RULES §4). An FTK pair is two FTKs, so it
    needs ``ftk``: ``ftk_pair=True`` with ``ftk=False`` is a :class:`RuleError`. In a house rule
    (:meth:`with_options`, :meth:`from_spec`) that switches ``ftk`` off and does not name
    ``ftk_pair``, ``ftk_pair`` is derived: it goes off with ``ftk`` (``{"ftk": "no"}`` means no
    5·10·K at all, RULES §4.3)."""
    heart5_in_ftk: bool = True
    """红心5下放: the leader may use ``5h`` in a heart side FTK (RULES §4.2)."""
    trump_ftk_follow: TrumpFtkFollow = TrumpFtkFollow.FTK_ELSE_TOP
    """What a follower owes to a trump FTK lead (逼大主, RULES §6.2)."""
    ftk_must_follow: bool = True
    """跟5·10·K: a held side FTK must follow a side FTK lead (RULES §6.3)."""
    throw_fail_play: ThrowFailPlay = ThrowFailPlay.FAILING_UNIT
    """What a failed throw must lead instead (RULES §5.2)."""
    throw_penalty_per_card: int = 10
    """Points per card of a failed throw (RULES §5.2)."""
    kitty_multiplier: KittyMultiplier = KittyMultiplier.LINEAR
    """Kou di multiplier (RULES §8)."""
    level_table: LevelTable = LevelTable.STEP10
    """Level change at the end of a hand (RULES §11.2)."""
    must_play: tuple[Rank, ...] = (Rank.ACE,)
    """必打 levels, low to high, each once (RULES §11.3); A is must-play in the last circle anyway."""
    circles: int = 1
    """Climbs from 2 to A in a game (RULES §11.3)."""
    flag: bool = False
    """扛旗: the flag hand after passing A (RULES §11.6)."""
    flag_threshold: int = 100
    """Points the scoring side needs in a flag hand; a multiple of 5 (RULES §11.6)."""
    flag_fail_limit: int | None = None
    """Flag hands lost in a row before the flag side goes back to A; None: no limit (RULES §11.6)."""
    shangtian: Shangtian = Shangtian.PURE
    """上天入地 by 5·10·K in the last trick (RULES §11.5)."""
    shangtian_credits: int | None = None
    """Credits for 上天入地 at least; None: the normal credits (RULES §11.4)."""
    double_red5: bool = False
    """上天入地 by double 5h (RULES §11.5)."""
    jack_rule: JackRule = JackRule.NONE
    """J到底 (RULES §11.5)."""
    red5_bonus: bool = False
    """Red-5 rules (RULES §11.7)."""
    credits: bool = False
    """积分 move between the sides (RULES §11.4)."""
    escape_penalty: int | None = None
    """Credits for leaving a game in progress; None: no penalty (RULES §13)."""
    declare_seconds: int = 5
    """Declaring countdown after the deal (RULES §13)."""
    bury_seconds: int = 60
    """Time to bury the kitty (RULES §13)."""
    play_seconds: int = 15
    """Time for each play (RULES §13)."""
    fry_seconds: int = 5
    """Time for each fry question (RULES §13)."""

    # -- validation -------------------------------------------------------
    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            checked = _OPTION_KINDS[f.name].check(f.name, value)
            if checked is not value:  # an enum's value as a text: store the member
                object.__setattr__(self, f.name, checked)
        for name, step in INT_OPTION_STEPS.items():
            if getattr(self, name) % step:
                raise RuleError(f"option {name} must be a multiple of {step}, not {getattr(self, name)}")
        if self.ftk_pair and not self.ftk:
            raise RuleError(
                "option ftk_pair needs ftk: ftk_pair=True with ftk=False cannot be honoured "
                "(an FTK pair is two FTKs); set ftk_pair to False too"
            )

    # -- construction -----------------------------------------------------
    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The names of all options (every field except ``name``)."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name != "name")

    @classmethod
    def option_schema(cls) -> list[dict[str, object]]:
        """Each option's name, kind and allowed values, for a form that edits rules (the lobby's house rules).

        ``kind`` is ``bool``, ``int`` or ``optional_int`` (with ``min`` and ``max``; ``optional_int`` may
        also be null: "no"), ``choice`` (with ``values``), ``bid_order`` or ``levels``. A number may also
        have ``multiple_of`` (:data:`INT_OPTION_STEPS`); an ``optional_int`` has ``when_set``, the value a
        form offers when it is switched on (the first preset's that sets it); a yes/no option ``needs``
        another that must be on for it to be on (:data:`OPTION_NEEDS`: it goes off with that one).

        >>> for option in RuleSet.option_schema()[3:5]:
        ...     print(option)
        {'name': 'fry', 'kind': 'bool'}
        {'name': 'fry_visibility', 'kind': 'choice', 'values': ['open', 'dark']}
        >>> [o for o in RuleSet.option_schema() if o["name"] in ("escape_penalty", "flag_threshold", "ftk_pair")]
        ... # doctest: +NORMALIZE_WHITESPACE
        [{'name': 'ftk_pair', 'kind': 'bool', 'needs': 'ftk'},
         {'name': 'flag_threshold', 'kind': 'int', 'min': 0, 'max': 1000, 'multiple_of': 5},
         {'name': 'escape_penalty', 'kind': 'optional_int', 'min': 0, 'max': 1000, 'when_set': 15}]
        """
        hints = typing.get_type_hints(cls)
        out: list[dict[str, object]] = []
        for f in dataclasses.fields(cls):
            if f.name == "name":
                continue
            hint = hints[f.name]
            entry: dict[str, object] = {"name": f.name}
            if hint is bool:
                entry["kind"] = "bool"
                if f.name in OPTION_NEEDS:
                    entry["needs"] = OPTION_NEEDS[f.name]
            elif f.name in INT_OPTION_RANGES:
                low, high = INT_OPTION_RANGES[f.name]
                entry.update(kind="int" if hint is int else "optional_int", min=low, max=high)
                if f.name in INT_OPTION_STEPS:
                    entry["multiple_of"] = INT_OPTION_STEPS[f.name]
                if hint is not int:
                    entry["when_set"] = next(
                        (v for r in PRESETS.values() if (v := getattr(r, f.name)) is not None), low
                    )
            elif isinstance(hint, type) and issubclass(hint, StrEnum):
                entry.update(kind="choice", values=[m.value for m in hint])
            elif hint is BidOrder:
                entry["kind"] = "bid_order"
            else:
                entry["kind"] = "levels"
            out.append(entry)
        return out

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """One of the six presets by name (case-insensitive)."""
        if not isinstance(name, str) or name.strip().lower() not in PRESETS:
            raise RuleError(f"unknown preset {_show(name)}; the presets are {', '.join(PRESET_NAMES)}")
        return PRESETS[name.strip().lower()]

    def with_options(self, options: Mapping[str, object]) -> RuleSet:
        """This rule set with some options changed (a house rule), values read as in a spec.

        Switching ``ftk`` off without naming ``ftk_pair`` switches ``ftk_pair`` off too (it is
        derived, see :attr:`ftk_pair`); naming both, ``ftk_pair`` on and ``ftk`` off, is an error.

        >>> standard = RuleSet.preset("standard")
        >>> standard.with_options({"ftk": "no"}).ftk_pair
        False
        >>> standard.with_options({"ftk": False, "ftk_pair": True})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        chaodipi.rules.RuleError: option ftk_pair needs ftk: ...; set ftk_pair to False too
        """
        if not isinstance(options, Mapping):
            raise RuleError(f"options must be an object of option names and values, not {_show(options)}")
        changes: dict[str, Any] = {}  # checked when the new rule set is built
        for key, value in options.items():
            changes[key] = _convert_option(key, value)
        if not changes:
            return self
        if changes.get("ftk") is False and "ftk_pair" not in changes:
            changes["ftk_pair"] = False  # derived: no 5·10·K, so no pair of them (RULES §4)
        return dataclasses.replace(self, name=self.name if self.name.endswith("+") else self.name + "+", **changes)

    @classmethod
    def from_spec(cls, spec: object) -> RuleSet:
        """A preset name, or ``{"preset": NAME, "set": {OPTION: VALUE}}`` as in docs/referee.md."""
        if isinstance(spec, RuleSet):
            return spec
        if isinstance(spec, str):
            return cls.preset(spec)
        if isinstance(spec, Mapping):
            unknown = set(spec) - {"preset", "set"}
            if unknown:
                raise RuleError(f"rules: unknown key(s) {', '.join(sorted(map(str, unknown)))}; use preset and set")
            preset = spec.get("preset", "standard")
            if not isinstance(preset, str):
                raise RuleError(f"unknown preset {_show(preset)}; the presets are {', '.join(PRESET_NAMES)}")
            base = cls.preset(preset)
            overrides = spec.get("set", {})
            if overrides is None:
                return base
            return base.with_options(overrides)
        raise RuleError(f"rules must be a preset name or {{'preset': ..., 'set': {{...}}}}, not {_show(spec)}")

    def to_spec(self) -> dict[str, object]:
        """``{"preset": NAME, "set": {OPTION: VALUE}}``: the preset this came from and what differs from it.

        >>> RuleSet.from_spec({"preset": "kangqi", "set": {"flag": "no"}}).to_spec()
        {'preset': 'kangqi', 'set': {'flag': False}}
        """
        base_name, changed = _spec_of(self)
        return {"preset": base_name, "set": {k: copy.copy(v) for k, v in changed}}

    def is_must_play(self, level: Rank, circle: int) -> bool:
        """Whether ``level`` is must-play (必打) in ``circle`` (RULES §11.3)."""
        if level == Rank.ACE:
            return circle >= self.circles
        return level in self.must_play

    def describe(self) -> dict[str, object]:
        """Every option and its value, as plain JSON-ready values."""
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, BidOrder):
                v = str(v)
            elif isinstance(v, tuple):
                v = [r.symbol for r in v]
            elif isinstance(v, StrEnum):
                v = v.value
            out[f.name] = v
        return out


@functools.lru_cache(maxsize=256)
def _spec_of(rules: RuleSet) -> tuple[str, tuple[tuple[str, object], ...]]:
    """The preset a rule set came from and the options that differ (a view asks for them on every message)."""
    base_name = rules.name.rstrip("+")
    if base_name not in PRESETS:
        base_name = "standard"
    base = PRESETS[base_name].describe()
    mine = rules.describe()
    return base_name, tuple((k, v) for k, v in mine.items() if k != "name" and v != base[k])


def _option_kinds() -> dict[str, _OptionKind]:
    """Each field's kind, read from its type."""
    hints = typing.get_type_hints(RuleSet)
    kinds = {f.name: _kind_of(f.name, hints[f.name]) for f in dataclasses.fields(RuleSet)}
    numbers = {name for name, kind in kinds.items() if kind.parse in (_parse_int, _parse_optional_int)}
    if numbers != set(INT_OPTION_RANGES):
        raise TypeError(f"INT_OPTION_RANGES names {', '.join(sorted(set(INT_OPTION_RANGES) - numbers))}, not numbers")
    return kinds


_OPTION_KINDS: dict[str, _OptionKind] = _option_kinds()


def _convert_option(key: object, value: object) -> object:
    """The value of option ``key`` read from a spec (JSON, or RULES §15's words)."""
    if not isinstance(key, str) or key == "name" or key not in _OPTION_KINDS:
        raise RuleError(f"unknown option {_show(key)}; the options are {', '.join(RuleSet.option_names())}")
    return _OPTION_KINDS[key].parse(key, value)


def _make(name: str, **options: object) -> RuleSet:
    """A preset: the defaults with ``options`` (read as in a spec); no option is derived here."""
    values: dict[str, Any] = {k: _convert_option(k, v) for k, v in options.items()}
    return RuleSet(name=name, **values)


_ROOM = dict(
    no_bid_trump="first_level_card",
    fry=True,
    ace_low_tractor=True,
    ftk=True,
    ftk_pair=True,
    level_table="step10",
    credits=True,
    escape_penalty=15,
)

#: The six presets of RULES §15, by name.
PRESETS: dict[str, RuleSet] = {
    "standard": _make(
        "standard",
        bid_order="D<C<H<S<SJ<BJ<5h",
        lookback=False,
        no_bid_trump="first_level_card",
        fry_visibility="open",
        fry_turns="rotate",
        tractor_skip_level="none",
        trump_level_links=True,
        ace_low_tractor=True,
        ftk_pair=True,
        heart5_in_ftk=True,
        level_table="step10",
        must_play="A",
        circles=1,
        flag=False,
        shangtian="pure",
        jack_rule="none",
        red5_bonus=False,
        credits=False,
    ),
    "anchao": _make(
        "anchao",
        bid_order="C<D<S<H<SJ<BJ<5h<LB",
        lookback=True,
        fry_visibility="dark",
        fry_turns="dealer_first",
        dark_fry_penalty=80,
        tractor_skip_level="none",
        heart5_in_ftk=True,
        must_play="A",
        circles=3,
        flag=False,
        shangtian="pure",
        shangtian_credits=16,
        red5_bonus=True,
        **_ROOM,
    ),
    "kangqi": _make(
        "kangqi",
        bid_order="D<C<H<S<SJ<BJ<5h",
        lookback=False,
        fry_visibility="open",
        fry_turns="dealer_first",
        tractor_skip_level="all",
        heart5_in_ftk=False,
        must_play="A",
        flag=True,
        flag_threshold=100,
        shangtian="contains",
        shangtian_credits=16,
        **_ROOM,
    ),
    "mingchao": _make(
        "mingchao",
        bid_order="D<C<H<S<SJ<BJ<5h<LB",
        lookback=True,
        fry_visibility="open",
        fry_turns="dealer_first",
        tractor_skip_level="none",
        heart5_in_ftk=True,
        must_play="J, A",
        flag=False,
        shangtian="contains",
        shangtian_credits=13,
        jack_rule="mingchao",
        **_ROOM,
    ),
    "contest2021": _make(
        "contest2021",
        bid_order="D<C<H<S<SJ<BJ<5h<LB",
        lookback=True,
        no_bid_trump="first_card",
        fry_visibility="open",
        fry_turns="rotate",
        tractor_skip_level="none",
        ace_low_tractor=False,
        ftk_pair=False,
        heart5_in_ftk=True,
        level_table="step20",
        must_play="J, A",
        flag=True,
        flag_threshold=100,
        shangtian="contest",
        jack_rule="contest",
    ),
    "institute2023": _make(
        "institute2023",
        bid_order="unordered",
        lookback=False,
        no_bid_trump="highest_card",
        fry_visibility="dark",
        fry_turns="rotate",
        tractor_skip_level="side",
        ace_low_tractor=False,
        ftk_pair=False,
        heart5_in_ftk=True,
        level_table="institute",
        must_play="A",
        flag=True,
        flag_threshold=100,
        flag_fail_limit=3,
        shangtian="contains",
        double_red5=True,
    ),
}
PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)
