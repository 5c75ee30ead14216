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

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from chaodipi.cards import CardError, Rank

__all__ = [
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

    >>> BidOrder.parse("D<C<H<S<SJ<BJ<5h<LB").rank("LB") > BidOrder.parse("D<C<H<S<SJ<BJ<5h<LB").rank("5h")
    True
    """

    tokens: tuple[str, ...]  # empty tuple: unordered

    @property
    def unordered(self) -> bool:
        return not self.tokens

    @property
    def has_lookback(self) -> bool:
        return "LB" in self.tokens

    def rank(self, token: str) -> int:
        """Strength of a bid token; higher is stronger. ``single`` is 0."""
        if token == "single":
            return 0
        if token == "LB" and "LB" not in self.tokens:
            return len(self.tokens) + 1  # a look-back outside the order outranks all
        return self.tokens.index(token) + 1

    @classmethod
    def parse(cls, value: object) -> BidOrder:
        if isinstance(value, BidOrder):
            return value
        if isinstance(value, str):
            text = value.strip()
            if text.lower() == "unordered":
                return cls(())
            parts = [p.strip() for p in text.replace(">", "<").split("<") if p.strip()]
        elif isinstance(value, (list, tuple)):
            parts = [str(p).strip() for p in value]
        else:
            raise RuleError(f"bid_order must be 'unordered' or a list like 'D<C<H<S<SJ<BJ<5h', not {value!r}")
        norm: list[str] = []
        for p in parts:
            key = {"SINGLE": "single", "LOOKBACK": "LB", "5H": "5h", "SJ": "SJ", "BJ": "BJ", "LB": "LB"}.get(
                p.upper(), p.lower()
            )
            if key == "single":
                continue
            if key not in BID_TOKENS:
                raise RuleError(f"bid_order: unknown bid {p!r}; use D, C, H, S, SJ, BJ, 5h, LB")
            if key in norm:
                raise RuleError(f"bid_order: {p!r} is listed twice")
            norm.append(key)
        missing = [t for t in BID_TOKENS[:-1] if t not in norm]
        if missing:
            raise RuleError(f"bid_order must list every bid; missing {', '.join(missing)}")
        return cls(tuple(norm))

    def __str__(self) -> str:
        if self.unordered:
            return "unordered"
        return "<".join(t.upper() if t in "dchs" else t for t in self.tokens)


def _parse_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("yes", "true", "on", "1"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("no", "false", "off", "0", "-", "–"):
        return False
    raise RuleError(f"option {name} takes yes or no, not {value!r}")


def _parse_optional_int(name: str, value: object, *, minimum: int = 0) -> int | None:
    if (
        value is None
        or value is False
        or (isinstance(value, str) and value.strip().lower() in ("-", "–", "no", "none", ""))
    ):
        return None
    if isinstance(value, bool):
        raise RuleError(f"option {name} takes a number or no, not {value!r}")
    try:
        n = int(str(value).strip().removesuffix("s"))
    except ValueError:
        raise RuleError(f"option {name} takes a number or no, not {value!r}") from None
    if n < minimum:
        raise RuleError(f"option {name} must be at least {minimum}, not {n}")
    return n


def _parse_int(name: str, value: object, *, minimum: int = 0) -> int:
    n = _parse_optional_int(name, value, minimum=minimum)
    if n is None:
        raise RuleError(f"option {name} takes a number, not {value!r}")
    return n


def _parse_must_play(value: object) -> tuple[Rank, ...]:
    if value is None or value is False:
        return ()
    if isinstance(value, str):
        text = value.replace("(last circle)", "").replace("、", ",")
        items: list[object] = [p for p in text.replace(",", " ").split() if p]
        if text.strip().lower() in ("no", "none", "-", "–"):
            items = []
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise RuleError(f"option must_play takes levels like 'J, A', not {value!r}")
    try:
        ranks = sorted({Rank.parse(str(i)) for i in items})
    except CardError as exc:
        raise RuleError(f"option must_play: {exc}") from None
    return tuple(ranks)


def _enum(name: str, cls: type[StrEnum], value: object) -> Any:
    if isinstance(value, bool) and cls in (Shangtian, JackRule) and value is False:
        return cls("none")
    if isinstance(value, str):
        key = value.strip().lower()
        if key in ("no", "-", "–") and cls in (Shangtian, JackRule):
            key = "none"
        try:
            return cls(key)
        except ValueError:
            pass
    raise RuleError(f"option {name} takes one of {', '.join(m.value for m in cls)}, not {value!r}")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every option of RULES §15 as a typed field. Build with :meth:`preset` or :meth:`from_spec`."""

    name: str = "custom"
    bid_order: BidOrder = field(default_factory=lambda: BidOrder.parse("D<C<H<S<SJ<BJ<5h"))
    lookback: bool = False
    no_bid_trump: NoBidTrump = NoBidTrump.FIRST_LEVEL_CARD
    fry: bool = True
    fry_visibility: FryVisibility = FryVisibility.OPEN
    fry_turns: FryTurns = FryTurns.ROTATE
    dark_fry_penalty: int | None = None
    tractor_skip_level: TractorSkipLevel = TractorSkipLevel.NONE
    trump_level_links: bool = False
    ace_low_tractor: bool = True
    ftk: bool = True
    ftk_pair: bool = True
    heart5_in_ftk: bool = True
    trump_ftk_follow: TrumpFtkFollow = TrumpFtkFollow.FTK_ELSE_TOP
    ftk_must_follow: bool = True
    throw_fail_play: ThrowFailPlay = ThrowFailPlay.FAILING_UNIT
    throw_penalty_per_card: int = 10
    kitty_multiplier: KittyMultiplier = KittyMultiplier.LINEAR
    level_table: LevelTable = LevelTable.STEP10
    must_play: tuple[Rank, ...] = (Rank.ACE,)
    circles: int = 1
    flag: bool = False
    flag_threshold: int = 100
    flag_fail_limit: int | None = None
    shangtian: Shangtian = Shangtian.PURE
    shangtian_credits: int | None = None
    double_red5: bool = False
    jack_rule: JackRule = JackRule.NONE
    red5_bonus: bool = False
    credits: bool = False
    escape_penalty: int | None = None
    declare_seconds: int = 5
    bury_seconds: int = 60
    play_seconds: int = 15
    fry_seconds: int = 5

    # -- validation -------------------------------------------------------
    def __post_init__(self) -> None:
        if self.circles < 1:
            raise RuleError(f"option circles must be at least 1, not {self.circles}")
        if self.throw_penalty_per_card < 0:
            raise RuleError("option throw_penalty_per_card cannot be negative")
        if self.flag_threshold < 0 or self.flag_threshold % 5:
            raise RuleError(f"option flag_threshold must be a non-negative multiple of 5, not {self.flag_threshold}")
        if self.ftk_pair and not self.ftk:
            object.__setattr__(self, "ftk_pair", False)

    # -- construction -----------------------------------------------------
    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The names of all options (every field except ``name``)."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name != "name")

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """One of the six presets by name (case-insensitive)."""
        if not isinstance(name, str) or name.strip().lower() not in PRESETS:
            raise RuleError(f"unknown preset {name!r}; the presets are {', '.join(PRESET_NAMES)}")
        return PRESETS[name.strip().lower()]

    def with_options(self, options: Mapping[str, object]) -> RuleSet:
        """This rule set with some options changed (a house rule)."""
        if not isinstance(options, Mapping):
            raise RuleError(f"options must be an object of option names and values, not {options!r}")
        changes: dict[str, Any] = {}
        for key, value in options.items():
            changes[key] = _convert_option(key, value)
        if not changes:
            return self
        return dataclasses.replace(self, name=self.name if self.name.endswith("+") else self.name + "+", **changes)

    @classmethod
    def from_spec(cls, spec: object) -> RuleSet:
        """A preset name, or ``{"preset": NAME, "set": {OPTION: VALUE}}`` as in REFEREE.md."""
        if isinstance(spec, RuleSet):
            return spec
        if isinstance(spec, str):
            return cls.preset(spec)
        if isinstance(spec, Mapping):
            unknown = set(spec) - {"preset", "set"}
            if unknown:
                raise RuleError(f"rules: unknown key(s) {', '.join(sorted(map(str, unknown)))}; use preset and set")
            base = cls.preset(str(spec.get("preset", "standard")))
            overrides = spec.get("set", {})
            if overrides is None:
                return base
            return base.with_options(overrides)
        raise RuleError(f"rules must be a preset name or {{'preset': ..., 'set': {{...}}}}, not {spec!r}")

    def to_spec(self) -> dict[str, object]:
        """``{"preset": NAME, "set": {OPTION: VALUE}}``: the preset this came from and what differs from it.

        >>> RuleSet.from_spec({"preset": "kangqi", "set": {"flag": "no"}}).to_spec()
        {'preset': 'kangqi', 'set': {'flag': False}}
        """
        base_name = self.name.rstrip("+")
        if base_name not in PRESETS:
            base_name = "standard"
        base = PRESETS[base_name].describe()
        mine = self.describe()
        return {"preset": base_name, "set": {k: v for k, v in mine.items() if k != "name" and v != base[k]}}

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


_ENUMS: dict[str, type[StrEnum]] = {
    "no_bid_trump": NoBidTrump,
    "fry_visibility": FryVisibility,
    "fry_turns": FryTurns,
    "tractor_skip_level": TractorSkipLevel,
    "trump_ftk_follow": TrumpFtkFollow,
    "throw_fail_play": ThrowFailPlay,
    "kitty_multiplier": KittyMultiplier,
    "level_table": LevelTable,
    "shangtian": Shangtian,
    "jack_rule": JackRule,
}
_BOOLS = {
    "lookback",
    "fry",
    "trump_level_links",
    "ace_low_tractor",
    "ftk",
    "ftk_pair",
    "heart5_in_ftk",
    "ftk_must_follow",
    "flag",
    "double_red5",
    "red5_bonus",
    "credits",
}
_OPT_INTS = {"dark_fry_penalty", "flag_fail_limit", "shangtian_credits", "escape_penalty"}
_INTS = {
    "throw_penalty_per_card",
    "circles",
    "flag_threshold",
    "declare_seconds",
    "bury_seconds",
    "play_seconds",
    "fry_seconds",
}


def _convert_option(key: object, value: object) -> Any:
    if not isinstance(key, str) or key == "name" or key not in RuleSet.option_names():
        raise RuleError(f"unknown option {key!r}; the options are {', '.join(RuleSet.option_names())}")
    if key == "bid_order":
        return BidOrder.parse(value)
    if key == "must_play":
        return _parse_must_play(value)
    if key in _ENUMS:
        return _enum(key, _ENUMS[key], value)
    if key in _BOOLS:
        return _parse_bool(key, value)
    if key in _OPT_INTS:
        return _parse_optional_int(key, value)
    if key in _INTS:
        return _parse_int(key, value, minimum=1 if key == "circles" else 0)
    raise RuleError(f"option {key} cannot be set")  # pragma: no cover


def _make(name: str, **options: object) -> RuleSet:
    return dataclasses.replace(RuleSet(), name=name, **{k: _convert_option(k, v) for k, v in options.items()})


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
