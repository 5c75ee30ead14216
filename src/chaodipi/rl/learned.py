"""The ``learned`` bot: a small network scores (state, play) pairs and the best-scored play is made.

The network (:class:`QNet`, weights in ``chaodipi/rl/weights/learned.npz``) reads the seat's state vector, one
listed action's row and the rules bot's hints on that action (:mod:`chaodipi.rl.encode`: its rank, its score gap,
whether it takes the trick, its points, …) and gives a score; the bot makes the play it scores highest of the
rules bot's best three (:func:`candidates`: scoring every listed play lost far more, docs/bots.md). It was
trained on self-play: each of the rules bot's best three plays played out to the end of the hand in the true
deal, and the network fitted to how much better or worse each did than the rules bot's best
(:mod:`chaodipi.rl.train`; figures in docs/bots.md). It is evaluated here with numpy alone — torch is needed only
to train — so ``--bot learned`` runs wherever numpy is (a dependency of the server). The bids, the burial and the
fries are the rules bot's. Weights without hints (a first layer of state + action inputs only) still load and
play.

Only the view is read: the state vector, the listed actions and the hints are functions of it
(:mod:`chaodipi.rl.choices`).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO

import numpy as np
import numpy.typing as npt

from chaodipi.bots.knowledge import Knowledge
from chaodipi.bots.rules_bot import RulesBot
from chaodipi.hand import Action, Phase, View
from chaodipi.rl.choices import Choice, choices, ranked_choices
from chaodipi.rl.encode import ACTION_SIZE, HINT_SIZE, STATE_SIZE, encode_actions, encode_hints, encode_state

__all__ = ["CANDIDATES", "DEFAULT_WEIGHTS", "WEIGHTS_VARIABLE", "LearnedBot", "QNet", "WeightsError", "candidates"]

#: The shipped weights (package data).
DEFAULT_WEIGHTS = "learned.npz"
#: An environment variable naming other weights for every learned bot made without ``weights`` (``chaodipi arena
#: --weights``; processes the arena starts inherit it).
WEIGHTS_VARIABLE = "CHAODIPI_LEARNED_WEIGHTS"

Array = npt.NDArray[np.float32]


class WeightsError(ValueError):
    """A weights file that is missing or does not fit the network (wrong sizes)."""


@dataclass(frozen=True)
class QNet:
    """A multilayer perceptron on ``[state, action]`` or ``[state, action, hints]``: ``layers`` are (weight, bias)
    pairs, ReLU between them. Whether it reads the rules bot's hints (:func:`~chaodipi.rl.encode.encode_hints`) is
    told by the first layer's size (:attr:`hinted`).

    The first layer's weight is split into its state part and its action part, so that the state's share is
    computed once per decision and each listed action adds only its own.
    """

    layers: tuple[tuple[Array, Array], ...]

    @classmethod
    def load(cls, path: str | Path | IO[bytes] | None = None) -> QNet:
        """Weights from an ``.npz`` file (``w0``, ``b0``, ``w1``, …; ``w0`` is inputs × outputs); None: the shipped."""
        try:
            if path is None:
                source = resources.files("chaodipi.rl").joinpath("weights", DEFAULT_WEIGHTS)
                with source.open("rb") as fh:
                    data = dict(np.load(fh))
            else:
                with np.load(path) as npz:
                    data = dict(npz)
        except (OSError, ValueError) as exc:
            raise WeightsError(f"cannot read the learned bot's weights ({path or DEFAULT_WEIGHTS}): {exc}") from None
        layers = []
        i = 0
        while f"w{i}" in data:
            layers.append((data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32)))
            i += 1
        inputs = STATE_SIZE + ACTION_SIZE
        if not layers or layers[0][0].shape[0] not in (inputs, inputs + HINT_SIZE) or layers[-1][0].shape[1] != 1:
            raise WeightsError(
                f"the weights do not fit: the first layer takes {inputs} inputs (state {STATE_SIZE} + action"
                f" {ACTION_SIZE}) or {inputs + HINT_SIZE} (and hints {HINT_SIZE}), and the last gives 1 value"
            )
        return cls(tuple(layers))

    @property
    def hinted(self) -> bool:
        """Whether the network reads the rules bot's hints beside each action."""
        return bool(self.layers[0][0].shape[0] == STATE_SIZE + ACTION_SIZE + HINT_SIZE)

    def scores(self, state: Array, actions: npt.NDArray[np.int8], hints: Array | None = None) -> Array:
        """The score of each action row in ``actions`` (k × ACTION_SIZE) from ``state``; ``hints`` (k × HINT_SIZE):
        the rules bot's view of each, which a :attr:`hinted` network needs and any other ignores."""
        w0, b0 = self.layers[0]
        h = state @ w0[:STATE_SIZE] + b0
        own = actions.astype(np.float32) @ w0[STATE_SIZE : STATE_SIZE + ACTION_SIZE]
        if self.hinted:
            if hints is None:
                raise ValueError("this network reads the rules bot's hints beside each action: pass hints")
            own += hints @ w0[STATE_SIZE + ACTION_SIZE :]
        x = np.maximum(own + h, 0.0)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers[1:], start=1):
            x = x @ w + b
            if i < last:
                x = np.maximum(x, 0.0)
        out: Array = x[:, 0]
        return out


_LOADED: dict[str, QNet] = {}


def _default_net() -> QNet:
    """The shipped network, or the one :data:`WEIGHTS_VARIABLE` names; read once per process."""
    path = os.environ.get(WEIGHTS_VARIABLE, "")
    if path not in _LOADED:
        _LOADED[path] = QNet.load(path or None)
    return _LOADED[path]


#: How many of the rules bot's best plays the learned bot chooses from (None: every listed play).
CANDIDATES = 3


def candidates(view: View, know: Knowledge, listed: list[Choice], count: int | None) -> tuple[list[Choice], Array]:
    """The plays the learned bot chooses from — the rules bot's best ``count`` of ``listed`` (None: all of them) —
    and their hints (:func:`~chaodipi.rl.encode.encode_hints`). Self-play training calls it too."""
    ranked = ranked_choices(view, listed, know, count or len(listed))
    if count and ranked:
        listed = [c for _, c in ranked]
    return listed, encode_hints(listed, ranked, view, know)


class LearnedBot:
    """Plays the candidate the network scores highest — of the rules bot's best :data:`CANDIDATES` plays, or of
    every listed play with ``candidates=None`` — and bids, buries and fries as the rules bot does."""

    name = "learned"

    def __init__(
        self,
        seed: int = 0,
        *,
        net: QNet | None = None,
        weights: str | Path | None = None,
        candidates: int | None = CANDIDATES,
    ) -> None:
        self.net = net if net is not None else (QNet.load(weights) if weights is not None else _default_net())
        self.candidates = candidates
        self.rules = RulesBot(seed)
        self.rng = random.Random(seed)

    def act(self, view: View) -> Action | None:
        """The best-scored play in the play phase; otherwise the rules bot's action."""
        if view.phase != Phase.PLAY or view.legal.show_red5 or view.to_act != view.seat:
            return self.rules.act(view)
        know = Knowledge.from_view(view)
        listed = choices(view, know=know)
        if len(listed) == 1:
            return listed[0].action(view.seat)
        listed, hints = candidates(view, know, listed, self.candidates)
        if len(listed) == 1:
            return listed[0].action(view.seat)
        scores = self.net.scores(encode_state(view, know=know), encode_actions(listed), hints)
        return listed[int(np.argmax(scores))].action(view.seat)
