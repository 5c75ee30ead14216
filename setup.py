"""The optional compiled build (issue 13): with CHAODIPI_COMPILE=1, mypyc compiles the engine to C extensions.

pyproject.toml holds all the metadata; this file only adds ``ext_modules``. Without the variable (the default)
nothing is compiled and the install is pure Python, as before. The compiled build needs mypy (which ships
mypyc) at build time: ``make fast`` installs it and builds with ``pip install --no-build-isolation``.
"""

from __future__ import annotations

import os

from setuptools import setup

# The modules compiled, relative to src/chaodipi. Left out, on purpose:
# - __init__.py, bots/__init__.py: only imports and re-exports; nothing to gain.
# - cli.py, arena.py, tui.py: command-line front ends (argparse, terminal I/O), not the engine's hot path.
# - server/, web/: the game server runs on starlette, sqlalchemy and alembic (async code, ORM models);
#   it calls the engine, which is what is compiled.
# - rules.py: RuleSet's options are checked by kinds read from its field types at import
#   (typing.get_type_hints); a mypyc-compiled dataclass keeps only rough annotations (``int | None``
#   becomes ``type``, ``tuple[Rank, ...]`` becomes ``tuple``), so the import fails. The rule set is read
#   once per hand, not in the hot loops, so it stays pure Python.
ENGINE = [
    "cards",
    "masks",
    "phrases",
    "trump",
    "units",
    "play",
    "trick",
    "leads",
    "bidding",
    "settlement",
    "levels",
    "observe",
    "outcome",
    "position",
    "log",
    "view",
    "hand",
    "game",
    "record",
    "driver",
    "simulate",
    "referee",
    "bots/base",
    "bots/random_bot",
    "bots/rules_bot",
    "bots/knowledge",
    "bots/search_bot",
]


def _ext_modules() -> list[object]:
    if os.environ.get("CHAODIPI_COMPILE", "") != "1":
        return []
    from mypyc.build import mypycify  # only the compiled build needs mypy

    # multi_file: one C file per module, so that build_ext's --parallel has something to share out.
    return list(mypycify([f"src/chaodipi/{name}.py" for name in ENGINE], multi_file=True))


ext_modules = _ext_modules()
# build_ext compiles the C files in parallel, one job per core.
setup(ext_modules=ext_modules, options={"build_ext": {"parallel": os.cpu_count() or 1}} if ext_modules else {})
