"""炒地皮 as a PettingZoo AEC environment: four agents, one per seat, a whole hand or a whole game.

``chaodipi.rl.env(preset="standard")`` returns it wrapped as PettingZoo's own environments are
(:func:`env`); :class:`ChaoDiPiEnv` is the raw environment. Agents are ``seat_0`` … ``seat_3``; ``seat_0`` and
``seat_2`` are one team.

**Turns** follow the engine's one driver (:func:`chaodipi.driver.run_hand`): during the deal the seat that was
just dealt a card acts whenever it could bid (``wait`` or a bid); at the countdown each seat that could bid, in
seat order; then whoever the hand waits for (burial, fry, play); before a flag hand's first card each scoring
seat that may show 5h 5h. A burial is eight turns of the burier, one card each (:mod:`chaodipi.rl.choices`).

**Observations** are dicts: ``observation`` (:data:`~chaodipi.rl.encode.STATE_SIZE` floats: the seat's view,
:mod:`chaodipi.rl.encode`), ``actions`` (``max_actions`` rows of :data:`~chaodipi.rl.encode.ACTION_SIZE`: each
listed action as a card-count vector with its kind — the DouZero representation, for a network that scores
(state, action) pairs) and ``action_mask`` (1 for each listed action). The action is the index of a listed
action. Only the agent to act has actions listed; an observation is made from
:meth:`Hand.view(seat) <chaodipi.hand.Hand.view>` and nothing else, so it holds no card the seat may not see.

**Rewards** come at the end of each hand, to all four agents: for each seat's side, +1 if it won the hand (the
dealer side keeps the table, or the scoring side takes it) and -1 if it lost (``reward="win"``), or the point
margin — points beyond the threshold in the side's favour — divided by 100 (``reward="margin"``), or the sum of
the two (``reward="both"``, the default). A redealt hand (nobody bid) gives nothing and is dealt again.
``infos[agent]`` holds, after a hand, ``won``, ``margin`` and ``points``.

**Episodes**: ``mode="hand"`` (the default) ends after one hand (level 2, a dealer drawn from the seed, or
``dealer=`` a seat; ``dealer=None`` for the first hand of a game, decided by bidding); ``mode="game"`` plays a
:class:`~chaodipi.game.Game` to its end, or is truncated after ``max_hands`` hands.

**Seeds**: ``reset(seed=n)`` makes every deal and dealer from ``n``; a reset without a seed goes on from the
previous one (the first, from seed 0): the same seeds and actions give the same episode.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from chaodipi.bots.knowledge import Knowledge
from chaodipi.cards import Card, shuffled_deck
from chaodipi.game import MAX_HANDS, Game
from chaodipi.hand import Action, Hand, Phase, View
from chaodipi.log import IllegalActionError
from chaodipi.rl.choices import Choice, choices
from chaodipi.rl.encode import ACTION_SIZE, STATE_SIZE, encode_actions, encode_state
from chaodipi.rules import RuleSet
from chaodipi.settlement import Side
from chaodipi.view import SPECTATOR

__all__ = ["ChaoDiPiEnv", "EnvError", "env", "hand_reward", "raw_env"]

AGENTS = tuple(f"seat_{s}" for s in range(4))
REWARDS = ("win", "margin", "both")
MODES = ("hand", "game")


class EnvError(ValueError):
    """A bad environment option, or an action the environment cannot take (not listed, or out of turn)."""


def hand_reward(hand: Hand, seat: int, kind: str = "both") -> tuple[float, bool, float]:
    """``seat``'s reward for a finished hand (see the module docstring), whether its side won, and its margin."""
    res = hand.result
    if res is None or hand.dealer is None:
        raise EnvError("the hand has no result yet")
    dealer_side = (seat - hand.dealer) % 2 == 0
    won = (res.settlement.table is Side.DEALER) == dealer_side
    margin = float(hand.threshold - res.points if dealer_side else res.points - hand.threshold)
    win = 1.0 if won else -1.0
    reward = win if kind == "win" else margin / 100.0 if kind == "margin" else win + margin / 100.0
    return reward, won, margin


class ChaoDiPiEnv(AECEnv):
    """The raw AEC environment (see the module docstring); :func:`env` wraps it."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "chaodipi_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        preset: str = "standard",
        *,
        rules: RuleSet | None = None,
        mode: str = "hand",
        reward: str = "both",
        dealer: int | str | None = "random",
        max_actions: int = 128,
        max_hands: int = 200,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if mode not in MODES:
            raise EnvError(f"mode is one of {', '.join(MODES)}, not {mode!r}")
        if reward not in REWARDS:
            raise EnvError(f"reward is one of {', '.join(REWARDS)}, not {reward!r}")
        if dealer != "random" and dealer is not None and dealer not in (0, 1, 2, 3):
            raise EnvError(f"dealer is a seat 0..3, None (decided by bidding) or 'random', not {dealer!r}")
        if not 1 <= max_hands <= MAX_HANDS:
            raise EnvError(f"max_hands is between 1 and {MAX_HANDS} (a game's limit), not {max_hands}")
        if not 8 <= max_actions <= 200:
            raise EnvError(f"max_actions is between 8 and 200, not {max_actions}")
        if render_mode is not None and render_mode not in ("ansi", "human"):
            raise EnvError(f"render_mode is ansi, human or None, not {render_mode!r}")
        try:
            self.rules = rules if rules is not None else RuleSet.preset(preset)
        except (KeyError, ValueError) as exc:
            raise EnvError(f"unknown preset {preset!r}: {exc}") from None
        self.mode = mode
        self.reward_kind = reward
        self.dealer_option = dealer
        self.max_actions = max_actions
        self.max_hands = max_hands
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(-2.0, 2.0, (STATE_SIZE,), np.float32),
                    "actions": gymnasium.spaces.Box(0, 2, (max_actions, ACTION_SIZE), np.int8),
                    "action_mask": gymnasium.spaces.Box(0, 1, (max_actions,), np.int8),
                }
            )
            for a in AGENTS
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(max_actions) for a in AGENTS}
        self._rng = random.Random(0)
        self._game: Game | None = None
        self._hand: Hand | None = None
        self._hands_played = 0
        self._seat = 0
        self._asking = "turn"
        self._countdown_next = 0
        self._red5_next = 0
        self._picked: list[Card] = []
        self._listed: list[Choice] = []
        self._view: View | None = None
        self._know: Knowledge | None = None

    # -- PettingZoo's interface --------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The observation space of ``agent`` (the same for all four)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """``Discrete(max_actions)``: the index of a listed action."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode: deal a hand (or start a game), from ``seed`` when given."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._hands_played = 0
        self._game = Game(self.rules, self._rng.randrange(2**31)) if self.mode == "game" else None
        self._new_hand()
        self._advance()

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """What ``agent`` sees now; its actions are listed only when it is the agent to act."""
        seat = self._seat_of(agent)
        hand = self._require_hand()
        acting = seat == self._seat and agent in self.agents and not self.terminations[agent]
        view = self._current_view() if acting else hand.view(seat, legal=False)
        picked = self._picked if acting else ()
        mask = np.zeros(self.max_actions, dtype=np.int8)
        if acting:
            listed = self._listed
            mask[: len(listed)] = 1
            rows = encode_actions(listed, self.max_actions)
        else:
            rows = np.zeros((self.max_actions, ACTION_SIZE), dtype=np.int8)
        state = encode_state(view, picked, self._knowledge() if acting else None)
        return {"observation": state, "actions": rows, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Take the listed action at index ``action`` for the agent to act (None only for a finished agent)."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        if action is None:
            raise EnvError(f"{agent} is to act: give the index of a listed action, not None")
        try:
            index = int(action)
        except (TypeError, ValueError):
            raise EnvError(f"an action is the index of a listed action, not {action!r}") from None
        if not 0 <= index < len(self._listed):
            raise EnvError(f"{agent} has {len(self._listed)} listed actions: {index} is not one of them")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        choice = self._listed[index]
        hand = self._require_hand()
        seat = self._seat
        if choice.kind == "bury":
            self._picked.append(choice.cards[0])
            if len(self._picked) < self._current_view().legal.bury:
                self._ask(seat, "turn")
                return
            picked, self._picked = tuple(self._picked), []
            self._apply(hand, Action.bury(seat, picked))
        else:
            act = choice.action(seat)
            if act is not None:
                self._apply(hand, act)
        self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """The table as a spectator sees it (no hidden card), as text; None without a render mode."""
        if self.render_mode is None or self._hand is None:
            return None
        view = self._hand.view(SPECTATOR)
        trick = "  ".join(f"seat {s}: {' '.join(map(str, cards))}" for s, cards in view.current_trick)
        lines = [
            f"{view.phase.value} · level {view.level} · trump {view.trump or '?'} · dealer {view.dealer}"
            f" · points {view.points}",
            f"cards held: {' '.join(map(str, view.hand_sizes))} · to act: {self.agent_selection}",
            f"trick: {trick or '—'}",
        ]
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""

    # -- the hand's progress ------------------------------------------------------------------------

    def _seat_of(self, agent: str) -> int:
        try:
            return AGENTS.index(agent)
        except ValueError:
            raise EnvError(f"the agents are {', '.join(AGENTS)}, not {agent!r}") from None

    def _require_hand(self) -> Hand:
        if self._hand is None:
            raise EnvError("call reset() first")
        return self._hand

    def _current_view(self) -> View:
        if self._view is None:
            self._view = self._require_hand().view(self._seat)
        return self._view

    def _apply(self, hand: Hand, action: Action) -> None:
        try:
            hand.apply(action)
        except IllegalActionError as exc:  # pragma: no cover - every listed action is legal (tested)
            raise EnvError(f"the engine refused {action.kind} {action.to_json()}: {exc}") from None

    def _new_hand(self) -> None:
        self._countdown_next = 0
        self._red5_next = 0
        self._picked = []
        if self._game is not None:
            self._hand = self._game.new_hand()
            return
        deck = shuffled_deck(self._rng)
        if self.dealer_option == "random":
            dealer: int | None = self._rng.randrange(4)
        else:
            dealer = self.dealer_option if isinstance(self.dealer_option, int) else None
        first = dealer if dealer is not None else self._rng.randrange(4)
        self._hand = Hand(self.rules, deck, first_seat=first, dealer=dealer)

    def _knowledge(self) -> Knowledge:
        """The acting seat's card counting, worked out once per decision (the listing and the observation share it)."""
        if self._know is None:
            self._know = Knowledge.from_view(self._current_view())
        return self._know

    def _ask(self, seat: int, asking: str) -> bool:
        """Ask ``seat`` if it has a choice to make now; False when it has none."""
        self._asking = asking
        self._seat = seat
        self._view = None
        self._know = None
        view = self._current_view()
        know = self._knowledge() if view.phase == Phase.PLAY else None
        listed = choices(view, self._picked, limit=self.max_actions, red5=asking == "red5", know=know)
        if not listed:
            return False
        self._listed = listed[: self.max_actions]  # (leads and burial picks may be more: the mask shows these)
        self.agent_selection = AGENTS[seat]
        return True

    def _advance(self) -> None:
        """Deal and apply what needs no decision until a seat has a choice, or the episode ends."""
        while True:
            hand = self._require_hand()
            phase = hand.phase
            if phase == Phase.DEAL:
                ev = hand.deal_card()
                seat = ev.player if ev.player is not None else 0
                if hand.phase == Phase.DEAL and hand.possible_bids(seat) and self._ask(seat, "bid"):
                    return
                continue
            if phase == Phase.COUNTDOWN:
                while self._countdown_next < 4:
                    seat = self._countdown_next
                    self._countdown_next += 1
                    if hand.possible_bids(seat) and self._ask(seat, "bid"):
                        return
                hand.apply(Action.close())
                continue
            if phase in (Phase.OVER, Phase.REDEAL):
                if self._end_of_hand(hand):
                    return
                continue
            if hand.flag and phase == Phase.PLAY and not hand.tricks and not hand.current:
                while self._red5_next < 4:
                    seat = self._red5_next
                    self._red5_next += 1
                    if hand.can_show_red5(seat) and self._ask(seat, "red5"):
                        return
            turn = hand.to_act()
            assert turn is not None
            if self._ask(turn, "turn"):
                return
            raise EnvError(f"seat {turn} is to act in phase {phase.value} but has nothing listed")  # pragma: no cover

    def _end_of_hand(self, hand: Hand) -> bool:
        """Score a finished hand; True when the episode ends with it, False when the next hand is dealt."""
        game = self._game
        if game is not None:
            game.finish_hand()
        if hand.phase == Phase.REDEAL:
            if game is not None and game.over:
                self._finish(truncated=False)
                return True
            self._new_hand()
            return False
        self._hands_played += 1
        for s, a in enumerate(AGENTS):
            reward, won, margin = hand_reward(hand, s, self.reward_kind)
            self.rewards[a] += reward
            self.infos[a] = {"won": won, "margin": margin, "points": hand.result.points if hand.result else 0}
        if game is None or game.over:
            self._finish(truncated=False)
            return True
        if self._hands_played >= self.max_hands:
            self._finish(truncated=True)
            return True
        self._new_hand()
        return False

    def _finish(self, *, truncated: bool) -> None:
        for a in AGENTS:
            if truncated:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
        self._listed = []
        self._view = None
        self._know = None


def raw_env(preset: str = "standard", **kwargs: Any) -> ChaoDiPiEnv:
    """The environment without PettingZoo's wrappers (see :class:`ChaoDiPiEnv` for the options)."""
    return ChaoDiPiEnv(preset, **kwargs)


def env(preset: str = "standard", **kwargs: Any) -> Any:
    """The environment as PettingZoo's own are made: wrapped to refuse out-of-bounds actions and to check
    the order of calls (``reset`` before ``step``).

    >>> e = env("standard")
    >>> e.reset(seed=1)
    >>> obs, reward, terminated, truncated, info = e.last()
    >>> sorted(obs), int(obs["action_mask"].sum()) > 0
    (['action_mask', 'actions', 'observation'], True)
    """
    inner: Any = raw_env(preset, **kwargs)
    inner = wrappers.AssertOutOfBoundsWrapper(inner)
    inner = wrappers.OrderEnforcingWrapper(inner)
    return inner
