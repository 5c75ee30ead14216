"""Stand-ins for what the optional compiled build (``make fast``, mypyc) reads, when mypy is not installed.

The engine needs nothing outside the standard library: ``mypy_extensions.mypyc_attr`` only marks
classes for mypyc, so without it a mark that does nothing takes its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[T], T]:
    """``mypy_extensions.mypyc_attr``'s stand-in: leaves the class as it is."""

    def mark(cls: T) -> T:
        return cls

    return mark


def engine_build() -> str:
    """Which engine runs: ``"compiled"`` when its modules are the C extensions ``make fast`` builds (mypyc), else
    ``"pure"`` (the pure-Python sources). The compiled build plays exactly as the pure one, about twice as fast.

    >>> engine_build() in ("compiled", "pure")
    True
    """
    import chaodipi.play  # (any engine module: they are built together)

    return "pure" if chaodipi.play.__file__.endswith(".py") else "compiled"
