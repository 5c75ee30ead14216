"""Fault injection for the platform's fault tests (issue 38): a process that stops itself inside a transaction.

A process stalled (a long pause, a stopped or swapped-out process, a frozen container) in the middle of a
transaction holds its row locks until PostgreSQL ends the transaction
(:class:`~chaodipi.server.store.SessionLimits`). To stop a process exactly there, from outside, its environment
names a file in :data:`STOP_FILE`; when the file exists as a transaction is about to commit (an append of the
tables' actions, ``append``, or a renewal of the leases, ``renew``: the file's text, empty for either), the
process removes the file and stops itself with SIGSTOP, between its statements and its commit. The test sends it
SIGCONT when it wants it to wake. Without the variable (every real deployment) the hook is None: nothing is checked.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

__all__ = ["STOP_FILE", "stop_hook"]

#: The environment variable that names the file (tests only).
STOP_FILE = "CHAODIPI_FAULT_STOP_FILE"


def stop_hook(environ: dict[str, str] | None = None) -> Callable[[str], None] | None:
    """The hook a store calls just before a transaction commits (with ``"append"`` or ``"renew"``): None unless the
    environment names a stop file."""
    name = (os.environ if environ is None else environ).get(STOP_FILE)
    if not name:
        return None
    path = Path(name)

    def stop(where: str) -> None:
        try:
            wanted = path.read_text().strip()
        except OSError:
            return
        if wanted and wanted != where:
            return
        path.unlink(missing_ok=True)
        os.kill(os.getpid(), signal.SIGSTOP)  # (woken by the test's SIGCONT; the commit follows, if still allowed)

    return stop
