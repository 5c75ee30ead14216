"""The browser client: the pages, scripts, styles and images ``chaodipi serve`` serves.

Everything under ``static/`` is plain HTML, CSS and JavaScript modules (no build step): a
fresh clone serves it as it is. ``index.html`` is the one page for every path a person
opens (the lobby ``/``, a table ``/t/{id}``, the replay viewer ``/replay``); the scripts
route by the path. This package holds no Python logic; the server mounts :data:`STATIC`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["INDEX", "STATIC"]

#: The folder of the client's files, served under ``/static/``.
STATIC = Path(__file__).resolve().parent / "static"
#: The page every client path opens.
INDEX = STATIC / "index.html"
