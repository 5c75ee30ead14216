"""Where a side stands in a game: its circle and level, and the two roles of a hand (RULES §2, §11.3).

>>> Progress.parse("10", 2)
Progress(circle=2, level=<Rank.TEN: 10>)
>>> Side.DEALER.other
<Side.SCORING: 'scoring'>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

try:  # the marks of the optional compiled build (make fast); the pure-Python install does without them
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - mypy (a dev dependency) brings mypy_extensions
    from chaodipi._build import mypyc_attr

from chaodipi.cards import CardError, Rank

__all__ = ["FLAG", "Progress", "SettlementError", "Side", "format_level", "parse_level", "seat_side"]

#: The level text of a side that has passed A under the ``flag`` option (扛旗).
FLAG = "flag"


class SettlementError(ValueError):
    """A settlement request that cannot be answered (bad points, level, circle or last trick)."""


class Side(StrEnum):
    """The two roles of a hand: dealer side 庄家方 (台上) and scoring side 抓分方 (台下)."""

    DEALER = "dealer"
    SCORING = "scoring"

    @property
    def other(self) -> Side:
        """The opposite side."""
        return Side.SCORING if self is Side.DEALER else Side.DEALER

    @classmethod
    def parse(cls, text: object) -> Side:
        """Read ``"dealer"`` or ``"scoring"``."""
        if isinstance(text, Side):
            return text
        if isinstance(text, str):
            key = text.strip().lower()
            for side in cls:
                if side.value == key:
                    return side
        raise SettlementError(f"a side must be 'dealer' or 'scoring', not {text!r}")


def parse_level(text: object) -> Rank | None:
    """Read a level: ``"2"``..``"9"``, ``"T"`` (or ``"10"``), ``"J"``, ``"Q"``, ``"K"``, ``"A"``; ``"flag"`` → None.

    >>> parse_level("10"), parse_level("flag")
    (<Rank.TEN: 10>, None)
    """
    if isinstance(text, Rank) and text <= Rank.ACE:
        return text
    if not isinstance(text, str):
        raise SettlementError(f"a level must be written 2..9, T (or 10), J, Q, K, A or flag, not {text!r}")
    if text.strip().lower() == FLAG:
        return None
    try:
        return Rank.parse(text)
    except CardError:
        raise SettlementError(f"{text!r} is not a level: use 2..9, T (or 10), J, Q, K, A or flag") from None


def format_level(level: Rank | None) -> str:
    """A level as docs/referee.md writes it: ``"2"``..``"9"``, ``"T"``, ``"J"``..``"A"``, or ``"flag"``."""
    return FLAG if level is None else level.symbol


# Not a native class in the compiled build (make fast): its constructor takes any values and checks them here.
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Progress:
    """Where a side stands in the game: its circle (1..``rules.circles``) and its level (RULES §2, §11.3).

    ``level`` is None for ``flag``: the side has passed A under the ``flag`` option and has yet
    to win its flag hand (扛旗, RULES §11.6).
    """

    circle: int
    level: Rank | None

    def __post_init__(self) -> None:
        # The fields as given (the compiled build would check self.circle and self.level against their types first).
        circle, level = (object.__getattribute__(self, name) for name in ("circle", "level"))
        if isinstance(circle, bool) or not isinstance(circle, int) or circle < 1:
            raise SettlementError(f"a circle must be a whole number from 1, not {circle!r}")
        if level is not None and (not isinstance(level, Rank) or level > Rank.ACE):
            raise SettlementError(f"a level must be a rank from 2 to A or None (flag), not {level!r}")

    @classmethod
    def parse(cls, level: object, circle: object = 1) -> Progress:
        """Build from a level text (``"9"``, ``"10"``, ``"flag"``…) and a circle.

        >>> Progress.parse("t", 2)
        Progress(circle=2, level=<Rank.TEN: 10>)
        """
        if isinstance(circle, bool) or not isinstance(circle, int):
            raise SettlementError(f"a circle must be a whole number from 1, not {circle!r}")
        return cls(circle, parse_level(level))

    @classmethod
    def from_json(cls, obj: object) -> Progress:
        """Read ``{"level": "9", "circle": 1}`` (``circle`` may be left out: it is 1)."""
        if not isinstance(obj, Mapping):
            raise SettlementError(f'a side must be given as {{"level": ..., "circle": ...}}, not {obj!r}')
        if "level" not in obj:
            raise SettlementError("a side needs its level")
        return cls.parse(obj["level"], obj.get("circle", 1))

    @property
    def climbed(self) -> int:
        """How many levels the side has climbed from level 2 of circle 1: a circle counts 13 levels, a side at
        ``flag`` one level above A (RULES §14.2's side ahead and §14.3's level margin compare sides by it).

        >>> Progress.parse("2").climbed, Progress.parse("A").climbed, Progress.parse("flag").climbed
        (0, 12, 13)
        >>> Progress.parse("5", 2).climbed
        16
        """
        return (self.circle - 1) * 13 + (13 if self.level is None else int(self.level) - 2)

    def lowered(self, levels: int) -> Progress:
        """The side's progress ``levels`` levels down (罚级, RULES §14.4), never below level 2 of the first circle:
        a circle counts 13 levels and ``flag`` one above A, as in :attr:`climbed`.

        >>> Progress.parse("5").lowered(2), Progress.parse("3").lowered(4)
        (Progress(circle=1, level=<Rank.THREE: 3>), Progress(circle=1, level=<Rank.TWO: 2>))
        >>> Progress.parse("flag").lowered(1), Progress.parse("3", 2).lowered(3)
        (Progress(circle=1, level=<Rank.ACE: 14>), Progress(circle=1, level=<Rank.KING: 13>))
        """
        if levels <= 0:
            return self
        left = max(0, self.climbed - levels)
        return Progress(left // 13 + 1, Rank(2 + left % 13))

    @property
    def is_flag(self) -> bool:
        """Whether the side is at ``flag`` (past A, yet to win its flag hand)."""
        return self.level is None

    @property
    def level_text(self) -> str:
        """The level as text: ``"2"``..``"A"`` or ``"flag"``."""
        return format_level(self.level)

    def to_json(self) -> dict[str, object]:
        """``{"level": ..., "circle": ...}`` as in docs/referee.md."""
        return {"level": self.level_text, "circle": self.circle}

    def __str__(self) -> str:
        return f"{self.level_text} (circle {self.circle})"


def seat_side(seat: int, dealer: int) -> Side:
    """The side of a seat in a hand dealt by ``dealer`` (partners sit opposite, RULES §1)."""
    return Side.DEALER if (seat - dealer) % 2 == 0 else Side.SCORING
