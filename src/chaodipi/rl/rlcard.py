"""炒地皮 with RLCard's interface: :class:`RLCardEnv`, an adapter over the PettingZoo environment.

`RLCard <https://rlcard.org>`_ (1.x) drives its games through ``rlcard.envs.Env``: ``reset()`` and
``step(action)`` return ``(state, player_id)``, ``run()`` plays a whole episode with the agents given to
``set_agents`` and returns the trajectories and the payoffs. :class:`RLCardEnv` has that interface, duck-typed
(RLCard is not a dependency: nothing here imports it), so RLCard's agents — ``RandomAgent``, or a DMC-style
agent that scores ``state["legal_actions"]``'s feature vectors — play 炒地皮 unchanged. It holds no rule and
no game state of its own: every step is a step of :class:`~chaodipi.rl.aec.ChaoDiPiEnv` (the options, the
turns, the listed actions, the rewards and the seeds are that environment's), and a state is made from that
environment's observation and the seat's :class:`~chaodipi.hand.View`, nothing else.

**Players** are the seats 0 … 3 (``seat_0`` … ``seat_3``); 0 and 2 are one team.

**Actions** are the indices of the listed actions, the AEC environment's action: ids ``0 … n-1`` of the
``num_actions`` (``max_actions``) of its ``action_mask``. ``step(action, raw_action=True)`` takes one of
``state["raw_legal_actions"]`` instead.

**A state** (:class:`State`), for one seat:

- ``obs``: the seat's state vector (:data:`~chaodipi.rl.encode.STATE_SIZE` float32, :mod:`chaodipi.rl.encode`);
- ``legal_actions``: an ``OrderedDict`` from each legal action id to its feature vector — the listed action's
  row of :data:`~chaodipi.rl.encode.ACTION_SIZE` small integers (its cards as 54 counts, its kind, the trump a
  5h 5h bid names), as RLCard's Dou Dizhu gives a DMC agent its actions' cards; empty for a seat not to act;
- ``raw_legal_actions``: the same actions as text, in the same order (``"wait"``, ``"bid 8h"``,
  ``"bid 5h 5h (nt)"``, ``"bury 7s"``, ``"lead 9c 9c"``, ``"follow 3d"``, ``"pass"``, ``"show"``: the kind, the
  cards, a bid's trump), read back from the rows;
- ``raw_obs``: the seat's view as a small dict of text (:func:`raw_view`): phase, level, trump, dealer, its hand,
  its burial picks, the kitty when it may see it, the bids as it may see them, the trick in progress, points;
- ``action_record``: ``(player_id, raw action)`` for every action since ``reset`` that the seat may know of:
  its own, and every seat's plays (cards played face up). Other seats' bids, fries, passes, burial picks and
  ``wait`` are left out — a ``wait`` would tell that the seat could have bid; the bids the seat may see are in
  ``raw_obs`` and ``obs``, as the engine's visibility rule shows them.

Nothing in a state comes from another seat's hidden cards: ``obs`` and ``legal_actions`` are the AEC
environment's observation of that seat (tested for hidden information in ``tests/test_rl_env.py``), ``raw_obs``
is read from ``Hand.view(seat)``. :meth:`RLCardEnv.get_perfect_information` gives only what a spectator sees.

**Payoffs** (:meth:`RLCardEnv.get_payoffs`): per seat, the sum of the AEC environment's rewards since ``reset``
(with ``mode="hand"``, the hand's reward: ``reward="win"`` ±1, ``"margin"`` the point margin ÷ 100, ``"both"``
their sum, :func:`~chaodipi.rl.aec.hand_reward`). Team-mates get the same payoff, the two teams opposite ones.

**Seeds**: ``config["seed"]`` (or :meth:`RLCardEnv.seed`) seeds the next ``reset``; the resets after it go on from
it, as the AEC environment's ``reset()`` without a seed does: the same seed and actions give the same episodes.
``step_back`` is not supported (``allow_step_back`` must be False).

>>> env = rlcard_env("standard", seed=1)
>>> state, player = env.reset()
>>> env.num_players, env.num_actions, env.state_shape[player], env.action_shape[player]
(4, 128, [948], [68])
>>> sorted(state)
['action_record', 'legal_actions', 'obs', 'raw_legal_actions', 'raw_obs']
>>> list(state["legal_actions"])[:2], state["raw_legal_actions"][:2]
([0, 1], ['wait', 'bid 2c'])
>>> state, player = env.step(0)  # wait
>>> state, player = env.step(state["raw_legal_actions"][0], raw_action=True)

A whole episode with an agent per seat, as RLCard's own agents are (``step``, ``eval_step``, ``use_raw``):

>>> class First:
...     use_raw = False
...     def step(self, state):
...         return next(iter(state["legal_actions"]))
...     def eval_step(self, state):
...         return self.step(state), {}
>>> env.set_agents([First() for _ in range(4)])
>>> trajectories, payoffs = env.run()
>>> env.is_over(), len(trajectories), payoffs.tolist()
(True, 4, [2.2, -2.2, 2.2, -2.2])
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, SupportsIndex, TypedDict

import numpy as np
import numpy.typing as npt

from chaodipi.cards import Card, format_cards
from chaodipi.hand import View
from chaodipi.rl.aec import AGENTS, ChaoDiPiEnv, EnvError, raw_env
from chaodipi.rl.choices import CHOICE_KINDS, CHOOSE
from chaodipi.rl.encode import ACTION_SIZE, CARDS, STATE_OFFSETS, STATE_SIZE
from chaodipi.view import SPECTATOR

__all__ = ["CONFIG_KEYS", "PUBLIC_KINDS", "RLCardEnv", "State", "describe", "raw_view", "rlcard_env"]

#: The keys of an :class:`RLCardEnv`'s config: RLCard's own two, then the AEC environment's options.
CONFIG_KEYS = ("seed", "allow_step_back", "preset", "rules", "mode", "reward", "dealer", "max_actions", "max_hands")
#: The kinds of listed action whose cards every seat sees: the plays (RULES: cards are played face up).
PUBLIC_KINDS = frozenset({"lead", "throw", "follow"})


_PICKED = STATE_OFFSETS["picked"]
_CARD_TEXT = [str(c) for c in Card.ALL]


class State(TypedDict):
    """One seat's state, as RLCard's environments give it (see the module docstring)."""

    obs: npt.NDArray[np.float32]
    legal_actions: OrderedDict[int, npt.NDArray[np.int8]]
    raw_obs: dict[str, Any]
    raw_legal_actions: list[str]
    action_record: list[tuple[int, str]]


def _cards(counts: npt.NDArray[Any]) -> tuple[Card, ...]:
    """The cards a vector of 54 counts holds, in card order."""
    return tuple(Card.ALL[i] for i in np.flatnonzero(counts) for _ in range(int(counts[i])))


def describe(rows: npt.NDArray[np.int8]) -> list[str]:
    """Listed actions' rows (:func:`~chaodipi.rl.encode.encode_actions`) as text, one per row: the kind, the
    cards (in card order) and the trump a bid names, e.g. ``"bid 5h 5h (nt)"``; the same row, the same text.

    >>> from chaodipi.cards import parse_cards
    >>> from chaodipi.rl.choices import Choice
    >>> from chaodipi.rl.encode import encode_actions
    >>> describe(encode_actions([Choice("wait"), Choice("bid", tuple(parse_cards("5h 5h")), "nt")]))
    ['wait', 'bid 5h 5h (nt)']
    """
    kinds = rows[:, CARDS : CARDS + len(CHOICE_KINDS)].argmax(axis=1).tolist()
    words = [[CHOICE_KINDS[k]] for k in kinds]
    at, card = np.nonzero(rows[:, :CARDS])
    for i, c, n in zip(at.tolist(), card.tolist(), rows[at, card].tolist(), strict=True):
        words[i].extend([_CARD_TEXT[c]] * n)
    named = rows[:, CARDS + len(CHOICE_KINDS) :]
    for i in np.flatnonzero(named.any(axis=1)).tolist():
        words[i].append(f"({CHOOSE[int(named[i].argmax())]})")
    return [" ".join(w) for w in words]


def raw_view(view: View, picked: Sequence[Card] = ()) -> dict[str, Any]:
    """A view as a small dict of text, for people and rule-based agents (a state's ``raw_obs``): only what the
    view shows (``picked``: the seat's own burial picks so far). A spectator's view has ``seat`` None."""
    return {
        "seat": None if view.seat == SPECTATOR else view.seat,
        "phase": view.phase.value,
        "level": view.level,
        "trump": view.trump,
        "dealer": view.dealer,
        "hand": format_cards(view.hand),
        "picked": format_cards(picked),
        "kitty": None if view.kitty is None else format_cards(view.kitty),
        "bids": [b.to_json() for b in view.bids],
        "current_trick": [[seat, format_cards(cards)] for seat, cards in view.current_trick],
        "tricks": len(view.tricks),
        "points": view.points,
        "threshold": view.threshold,
        "hand_sizes": list(view.hand_sizes),
        "to_act": view.to_act,
        "winning": view.winning,
    }


def _int(value: object, what: str) -> int:
    """``value`` as an int (a numpy integer is one; a bool, a float or a string is not), or EnvError."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, SupportsIndex):
        raise EnvError(f"{what}, not {value!r}")
    return operator.index(value)


class RLCardEnv:
    """炒地皮 with RLCard's ``Env`` interface, over :class:`~chaodipi.rl.aec.ChaoDiPiEnv` (see the module
    docstring). ``config``: ``seed`` (int or None), ``allow_step_back`` (False: not supported), and the AEC
    environment's options (``preset``, ``rules``, ``mode``, ``reward``, ``dealer``, ``max_actions``,
    ``max_hands``); a bad one raises :class:`~chaodipi.rl.aec.EnvError`."""

    name = "chaodipi"
    allow_step_back = False

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        config = dict(config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise EnvError(f"unknown config key {', '.join(map(repr, unknown))}: the keys are {', '.join(CONFIG_KEYS)}")
        if config.pop("allow_step_back", False):
            raise EnvError("step_back is not supported: allow_step_back must be False")
        seed = config.pop("seed", None)
        preset = config.pop("preset", "standard")
        #: The AEC environment every step goes through: the one source of the game.
        self.aec: ChaoDiPiEnv = raw_env(preset, **config)
        self.num_players = len(AGENTS)
        self.num_actions = self.aec.max_actions
        self.state_shape = [[STATE_SIZE] for _ in range(self.num_players)]
        self.action_shape = [[ACTION_SIZE] for _ in range(self.num_players)]
        self.agents: list[Any] = []
        self.timestep = 0
        self._seed: int | None = None
        self._started = False
        self._current: State | None = None
        self._texts: dict[int, str] = {}  # the current seat's legal actions, id → text (kept apart from its state)
        self._record: list[tuple[int, str, bool]] = []  # (seat, raw action, public): every action since reset
        self._payoffs = np.zeros(self.num_players, dtype=np.float64)
        self.seed(seed)

    # -- RLCard's interface ---------------------------------------------------------------------------

    def seed(self, seed: int | None = None) -> int | None:
        """Deal the next ``reset`` from ``seed`` (None: go on from the previous deals; the first, from seed 0)."""
        self._seed = None if seed is None else _int(seed, "a seed is an int or None")
        return self._seed

    def reset(self) -> tuple[State, int]:
        """Start an episode (a hand, or a game with ``mode="game"``): the first state and the seat to act."""
        self.aec.reset(seed=self._seed)
        self._seed = None
        self._started = True
        self.timestep = 0
        self._record = []
        self._payoffs = np.zeros(self.num_players, dtype=np.float64)
        return self._decision()

    def step(self, action: object, raw_action: bool = False) -> tuple[State, int]:
        """Take the current seat's legal action ``action`` (an id of ``state["legal_actions"]``, or with
        ``raw_action`` one of ``state["raw_legal_actions"]``): the next state and the seat to act. An action
        that is not legal raises :class:`~chaodipi.rl.aec.EnvError` and changes nothing."""
        if self.is_over():
            raise EnvError("the episode is over: call reset()")
        seat = self.get_player_id()
        texts = self._texts
        if raw_action:
            index = next((i for i, text in texts.items() if text == action), None)
            if index is None:
                raise EnvError(f"seat {seat} has no legal action {action!r}: it has {', '.join(texts.values())}")
        else:
            index = _int(action, "an action is the id of a legal action (an int)")
            if index not in texts:
                raise EnvError(f"seat {seat} has {len(texts)} legal actions, ids 0..{len(texts) - 1}: not {index}")
        text = texts[index]
        self.aec.step(index)
        self.timestep += 1
        self._record.append((seat, text, text.split(" ", 1)[0] in PUBLIC_KINDS))
        for s, agent in enumerate(AGENTS):
            self._payoffs[s] += self.aec.rewards[agent]
        return self._decision()

    def step_back(self) -> tuple[State, int]:
        """Not supported: the engine takes no action back."""
        raise NotImplementedError("step_back is not supported by the chaodipi environment")

    def set_agents(self, agents: Sequence[Any]) -> None:
        """The four agents :meth:`run` plays with, one per seat: RLCard's (``step``, ``eval_step``, ``use_raw``)."""
        if len(agents) != self.num_players:
            raise EnvError(f"set_agents takes {self.num_players} agents, one per seat, not {len(agents)}")
        self.agents = list(agents)

    def run(self, is_training: bool = False) -> tuple[list[list[Any]], npt.NDArray[np.float64]]:
        """Play an episode with the agents of :meth:`set_agents` (``agent.step(state)`` when training, else
        ``agent.eval_step(state)``, which returns the action and an info dict), as RLCard's ``Env.run`` does: each
        seat's trajectory alternates its states and its actions and ends with its final state; and the payoffs."""
        if not self.agents:
            raise EnvError("call set_agents() with four agents first")
        trajectories: list[list[Any]] = [[] for _ in range(self.num_players)]
        state, seat = self.reset()
        trajectories[seat].append(state)
        while not self.is_over():
            agent = self.agents[seat]
            action = agent.step(state) if is_training else agent.eval_step(state)[0]
            state, next_seat = self.step(action, bool(getattr(agent, "use_raw", False)))
            trajectories[seat].append(action)
            seat = next_seat
            if not self.is_over():
                trajectories[seat].append(state)
        for s in range(self.num_players):
            trajectories[s].append(self.get_state(s))
        return trajectories, self.get_payoffs()

    def is_over(self) -> bool:
        """Whether the episode has ended (the hand, or the game, is over, or the game was cut at ``max_hands``)."""
        if not self._started:
            return False
        return any(self.aec.terminations.values()) or any(self.aec.truncations.values())

    def get_player_id(self) -> int:
        """The seat to act (after the end, the seat that acted last)."""
        self._require_current()
        return AGENTS.index(self.aec.agent_selection)

    def get_state(self, player_id: int) -> State:
        """What seat ``player_id`` sees now (see the module docstring); only the seat to act has legal actions."""
        seat = _int(player_id, "a player id is a seat 0..3")
        if not 0 <= seat < self.num_players:
            raise EnvError(f"a player id is a seat 0..3, not {seat}")
        current = self._require_current()
        if seat == self.get_player_id() and not self.is_over():
            return current
        return self._state(seat)

    def get_payoffs(self) -> npt.NDArray[np.float64]:
        """Each seat's payoff: the sum of the AEC environment's rewards since ``reset`` (see the module docstring)."""
        return self._payoffs.copy()

    def get_perfect_information(self) -> dict[str, Any]:
        """For debugging: the table as a spectator sees it (:func:`raw_view`), and the seat to act. Unlike
        RLCard's games it shows no hidden card — no hand, no kitty before the hand is over."""
        self._require_current()
        out = raw_view(self.aec._require_hand().view(SPECTATOR, legal=False))
        out["current_player"] = self.get_player_id()
        return out

    def get_action_feature(self, action: object) -> npt.NDArray[np.int8]:
        """The feature vector of the current seat's legal action ``action`` (its row in ``legal_actions``)."""
        legal = self._require_current()["legal_actions"]
        index = _int(action, "an action is the id of a legal action (an int)")
        if index not in legal:
            raise EnvError(f"{index} is not the id of a legal action: the ids are 0..{len(legal) - 1}")
        return legal[index]

    # -- states ---------------------------------------------------------------------------------------

    def _require_current(self) -> State:
        if self._current is None:
            raise EnvError("call reset() first")
        return self._current

    def _decision(self) -> tuple[State, int]:
        """The state of the seat to act, kept until the next step (``step`` reads its legal actions)."""
        seat = AGENTS.index(self.aec.agent_selection)
        self._current = state = self._state(seat)
        self._texts = dict(zip(state["legal_actions"], state["raw_legal_actions"], strict=True))
        return state, seat

    def _state(self, seat: int) -> State:
        obs = self.aec.observe(AGENTS[seat])
        ids = np.flatnonzero(obs["action_mask"]).tolist()
        rows = obs["actions"][ids]
        picked = _cards(obs["observation"][_PICKED : _PICKED + CARDS])
        # the seat's view, as the AEC environment's observe() takes it: the one it made for the decision, if the
        # seat is to act (only the seat to act has actions listed), else the engine's view of the seat
        view = self.aec._current_view() if ids else self.aec._require_hand().view(seat, legal=False)
        return {
            "obs": obs["observation"],
            "legal_actions": OrderedDict(zip(ids, rows, strict=True)),
            "raw_obs": raw_view(view, picked),
            "raw_legal_actions": describe(rows),
            "action_record": [(s, text) for s, text, public in self._record if public or s == seat],
        }


def rlcard_env(preset: str = "standard", *, seed: int | None = None, **options: Any) -> RLCardEnv:
    """An :class:`RLCardEnv` of ``preset``, as ``rlcard.make("chaodipi", config={"seed": seed, ...})`` would
    make it; ``options``: the AEC environment's (``mode``, ``reward``, ``dealer``, ``max_actions``, …)."""
    return RLCardEnv({"preset": preset, "seed": seed, **options})
