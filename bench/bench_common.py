"""What the benchmarks that run one measurement per process share: pinning, the CPU's name, the compiled build."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

#: make fast's venv (the compiled build of this tree), when it has been made
FAST_PYTHON = Path(__file__).resolve().parent.parent / ".venv-fast" / "bin" / "python"


def pin(cpu: int | None) -> None:
    """Run this process on ``cpu`` only (where the system allows it)."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})


def cpu_model() -> str:
    """The CPU's name, as /proc/cpuinfo gives it (else what ``platform`` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def compiled_build() -> bool:
    """Whether ``make fast``'s venv is there, with the engine compiled."""
    check = [str(FAST_PYTHON), "-c", "import chaodipi.play as m, sys; sys.exit(m.__file__.endswith('.py'))"]
    return FAST_PYTHON.exists() and subprocess.run(check, capture_output=True, cwd="/").returncode == 0


def require_build(what: str) -> None:
    """Stop unless the engine imported is the build ``what`` names (``chaodipi-compiled``: the compiled one)."""
    import chaodipi.play

    compiled = not chaodipi.play.__file__.endswith(".py")
    if compiled != (what == "chaodipi-compiled"):
        raise SystemExit(f"{what}: imported {chaodipi.play.__file__}")
