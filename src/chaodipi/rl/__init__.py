"""The learning environment (issue 25): 炒地皮 in PettingZoo's AEC form, and the learned bot.

``chaodipi.rl.env(preset="standard", …)`` returns the environment, as PettingZoo's own environments do
(:mod:`chaodipi.rl.aec`); :mod:`chaodipi.rl.choices` lists the actions a seat chooses from and
:mod:`chaodipi.rl.encode` turns a view and its actions into arrays; ``chaodipi.rl.rlcard_env(…)`` gives the same
environment with RLCard's interface (:mod:`chaodipi.rl.rlcard`). Needs the ``rl`` extra
(``pip install 'chaodipi[rl]'``: PettingZoo, Gymnasium, numpy); the rules engine imports none of this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["ChaoDiPiEnv", "EnvError", "RLCardEnv", "env", "raw_env", "rlcard_env"]

_RLCARD = ("RLCardEnv", "rlcard_env")

if TYPE_CHECKING:
    from chaodipi.rl.aec import ChaoDiPiEnv, EnvError, env, raw_env
    from chaodipi.rl.rlcard import RLCardEnv, rlcard_env


def __getattr__(name: str) -> Any:
    # PettingZoo and Gymnasium are imported with the environment only: the learned bot needs numpy alone.
    if name in _RLCARD:
        from chaodipi.rl import rlcard

        return getattr(rlcard, name)
    if name in __all__:
        from chaodipi.rl import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'chaodipi.rl' has no attribute {name!r}")
