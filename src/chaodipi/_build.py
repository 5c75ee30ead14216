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
