"""The RLCard-style adapter (chaodipi.rl.rlcard): RLCard's ``Env`` interface over the AEC environment.

The AEC environment is the oracle: the same seed and action ids give the same seats to act, the same observations
and the same rewards through both; the legal action ids are the mask's. A state shows no card its seat may not
see (the hand's history says which it may: test_simulation's ``_allowed``), and other seats' hidden decisions
(``wait``, burial picks, dark bids) are not in its record. RLCard agents are duck-typed: a copy of RLCard 1.x's
``RandomAgent`` here, RLCard's own when it is installed.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the rl extra (pip install 'chaodipi[rl]') is not installed")
pytest.importorskip("gymnasium", reason="the rl extra (pip install 'chaodipi[rl]') is not installed")
pytest.importorskip("pettingzoo", reason="the rl extra (pip install 'chaodipi[rl]') is not installed")

import random
from collections import Counter, OrderedDict
from typing import Any

import numpy as np

import chaodipi.rl
import chaodipi.rl.aec as aec
from chaodipi.cards import Card, parse_cards
from chaodipi.hand import Phase
from chaodipi.rl import EnvError, RLCardEnv, raw_env, rlcard_env
from chaodipi.rl.choices import Choice
from chaodipi.rl.encode import ACTION_SIZE, CARDS, STATE_SIZE, encode_actions
from chaodipi.rl.rlcard import PUBLIC_KINDS, State, describe
from test_rl_env import AGENTS, CARD_PARTS, hand_of, part
from test_simulation import _allowed


class RandomAgent:
    """RLCard 1.x's ``rlcard.agents.RandomAgent``, as it reads a state (``legal_actions``, ``raw_legal_actions``),
    with its own generator so that the tests are reproducible."""

    use_raw = False

    def __init__(self, num_actions: int, seed: int = 0) -> None:
        self.num_actions = num_actions
        self.rng = np.random.default_rng(seed)

    def step(self, state: State) -> int:
        return int(self.rng.choice(list(state["legal_actions"].keys())))

    def eval_step(self, state: State) -> tuple[int, dict[str, Any]]:
        probs = [0.0] * self.num_actions
        for i in state["legal_actions"]:
            probs[i] = 1 / len(state["legal_actions"])
        keys = list(state["legal_actions"].keys())
        info = {"probs": {state["raw_legal_actions"][i]: probs[keys[i]] for i in range(len(keys))}}
        return self.step(state), info


class RawAgent:
    """An agent that acts by raw action (``use_raw``), as RLCard's human and rule agents do."""

    use_raw = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def step(self, state: State) -> str:
        return self.rng.choice(state["raw_legal_actions"])

    def eval_step(self, state: State) -> tuple[str, dict[str, Any]]:
        return self.step(state), {}


def text(choice: Choice) -> str:
    """A listed choice as the adapter writes it: kind, cards in card order, a bid's trump."""
    cards = " ".join(str(c) for c in sorted(choice.cards, key=lambda c: c.index))
    return " ".join(w for w in (choice.kind, cards, f"({choice.choose})" if choice.choose else "") if w)


def play(env: RLCardEnv, rng: random.Random, check: Any = lambda env, state: None) -> list[tuple[int, int]]:
    """Play ``env`` from ``reset()`` with random legal ids to its end: each step's seat and action id."""
    state, seat = env.reset()
    steps = []
    while not env.is_over():
        check(env, state)
        action = rng.choice(list(state["legal_actions"]))
        steps.append((seat, action))
        state, seat = env.step(action)
    check(env, state)
    return steps


def replay(preset: str, seed: int, steps: list[tuple[int, int]], **options: Any) -> dict[str, float]:
    """The same action ids through the AEC environment: each agent's rewards summed."""
    env = raw_env(preset, **options)
    env.reset(seed=seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    for seat, action in steps:
        assert env.agent_selection == AGENTS[seat]
        env.step(action)
        for agent, reward in env.rewards.items():
            totals[agent] += reward
    assert all(env.terminations.values()) or all(env.truncations.values())
    return totals


# -- one hand, against the AEC environment ----------------------------------------------------------
@pytest.mark.parametrize(
    ("preset", "seed", "options"),
    [("standard", 3, {}), ("anchao", 8, {"reward": "win", "dealer": None}), ("kangqi", 5, {"reward": "margin"})],
)
def test_a_random_hand_ends_with_the_aec_environments_rewards(preset: str, seed: int, options: dict[str, Any]) -> None:
    env = rlcard_env(preset, seed=seed, **options)
    steps = play(env, random.Random(seed))
    assert env.is_over() and len(steps) == env.timestep > 50
    hand = hand_of(env.aec)
    assert hand.phase == Phase.OVER and hand.result is not None
    payoffs = env.get_payoffs()
    totals = replay(preset, seed, steps, **options)
    assert payoffs.tolist() == [totals[a] for a in AGENTS]
    kind = options.get("reward", "both")
    assert payoffs.tolist() == pytest.approx([aec.hand_reward(hand, s, kind)[0] for s in range(4)])
    assert payoffs[0] == payoffs[2] and payoffs[1] == payoffs[3] and payoffs[0] == pytest.approx(-payoffs[1])
    if kind == "win":
        assert sorted(payoffs.tolist()) == [-1.0, -1.0, 1.0, 1.0]
    with pytest.raises(EnvError, match=r"the episode is over: call reset\(\)"):
        env.step(0)


def test_game_mode_sums_the_rewards_of_its_hands() -> None:
    env = rlcard_env("standard", seed=4, mode="game", max_hands=2, reward="win")
    steps = play(env, random.Random(4))
    assert all(env.aec.truncations.values()) or all(env.aec.terminations.values())
    totals = replay("standard", 4, steps, mode="game", max_hands=2, reward="win")
    assert env.get_payoffs().tolist() == [totals[a] for a in AGENTS]
    assert abs(env.get_payoffs()[0]) in (0.0, 2.0)  # two hands of ±1 each


# -- seeds ------------------------------------------------------------------------------------------
def episode(env: RLCardEnv, choose: int) -> list[tuple[Any, ...]]:
    """One episode from ``reset()``, each state as comparable values, actions by ``random.Random(choose)``."""
    out: list[tuple[Any, ...]] = []

    def keep(env: RLCardEnv, state: State) -> None:
        out.append(
            (
                env.get_player_id(),
                state["obs"].tobytes(),
                [(i, row.tobytes()) for i, row in state["legal_actions"].items()],
                state["raw_legal_actions"],
                state["raw_obs"],
                state["action_record"],
            )
        )

    play(env, random.Random(choose), keep)
    out.append((env.get_payoffs().tolist(),))
    return out


def test_the_same_seed_and_actions_give_the_same_episode() -> None:
    first = episode(rlcard_env("standard", seed=11), choose=3)
    assert len(first) > 50
    assert episode(rlcard_env("standard", seed=11), choose=3) == first
    assert RLCardEnv({"seed": 11}).reset()[0]["raw_obs"] == first[0][4]  # the config as rlcard.make takes it
    other, _ = rlcard_env("standard", seed=12).reset()
    assert other["raw_obs"]["hand"] != first[0][4]["hand"] or other["obs"].tobytes() != first[0][1]


def test_resets_go_on_from_the_seed_and_seed_starts_again() -> None:
    def deal(env: RLCardEnv) -> tuple[Card, ...]:
        env.reset()
        return hand_of(env.aec).deck

    env = rlcard_env("standard", seed=5)
    deals = [deal(env) for _ in range(3)]
    assert len(set(deals)) == 3
    again = rlcard_env("standard", seed=5)
    assert [deal(again) for _ in range(3)] == deals
    assert again.seed(5) == 5 and deal(again) == deals[0]  # seed() deals the next reset from the seed
    first = raw_env("standard")
    first.reset(seed=0)
    assert deal(rlcard_env("standard")) == hand_of(first).deck  # no seed: the AEC environment's first (seed 0)
    with pytest.raises(EnvError, match="a seed is an int or None, not 'x'"):
        env.seed("x")  # type: ignore[arg-type]


# -- states: legal actions, shapes -------------------------------------------------------------------
def check_legal(env: RLCardEnv, state: State) -> None:
    """The legal ids are the AEC mask's true entries, with its rows; the text describes the listed choices."""
    seat = env.get_player_id()
    agent = AGENTS[seat]
    obs = env.aec.observe(agent)
    legal = state["legal_actions"]
    assert isinstance(legal, OrderedDict)
    assert list(legal) == np.flatnonzero(obs["action_mask"]).tolist()
    assert state["obs"].shape == (STATE_SIZE,) and np.array_equal(state["obs"], obs["observation"])
    if env.is_over():
        assert not legal and not state["raw_legal_actions"]
        return
    assert list(legal) == list(range(len(env.aec._listed)))
    for i, row in legal.items():
        assert row.shape == (ACTION_SIZE,) and np.array_equal(row, obs["actions"][i])
        assert np.array_equal(env.get_action_feature(i), row)
    assert state["raw_legal_actions"] == [text(c) for c in env.aec._listed]
    assert list(env.get_state(seat)["legal_actions"]) == list(legal)
    for other in range(4):
        if other != seat:
            theirs = env.get_state(other)
            assert not theirs["legal_actions"] and not theirs["raw_legal_actions"]


def test_legal_actions_are_the_masks_true_entries() -> None:
    seed = 2
    env = rlcard_env("institute2023", seed=seed)
    assert (env.num_players, env.num_actions) == (4, 128)
    assert env.state_shape == [[STATE_SIZE]] * 4 and env.action_shape == [[ACTION_SIZE]] * 4
    play(env, random.Random(seed), check_legal)
    assert rlcard_env(max_actions=24).num_actions == 24


def test_the_adapter_is_exported_as_the_environment_is() -> None:
    assert chaodipi.rl.RLCardEnv is RLCardEnv and chaodipi.rl.rlcard_env is rlcard_env
    assert {"RLCardEnv", "rlcard_env"} <= set(chaodipi.rl.__all__)


def test_describe_reads_the_rows_back() -> None:
    five, ace = Card.parse("5h"), Card.parse("As")
    listed = [Choice("wait"), Choice("bid", (five, five), "nt"), Choice("bury", (ace,)), Choice("follow", (ace, five))]
    rows = encode_actions(listed)
    assert describe(rows) == ["wait", "bid 5h 5h (nt)", "bury As", "follow As 5h"]
    assert describe(rows) == [text(c) for c in listed]
    assert describe(rows[:0]) == []


# -- run() and RLCard agents ------------------------------------------------------------------------
def check_trajectories(env: RLCardEnv, trajectories: list[list[Any]], payoffs: Any, raw: bool) -> None:
    assert len(trajectories) == 4 and env.is_over()
    for seat, trajectory in enumerate(trajectories):
        assert len(trajectory) % 2 == 1 and len(trajectory) >= 3, f"seat {seat} never acted"
        states, actions = trajectory[0::2], trajectory[1::2]
        assert all(isinstance(s, dict) and set(s) == State.__required_keys__ for s in states)
        for state, action in zip(states, actions, strict=False):
            legal = state["raw_legal_actions"] if raw else list(state["legal_actions"])
            assert action in legal
        assert not states[-1]["legal_actions"]  # the final state: nothing more to do
    assert payoffs.tolist() == env.get_payoffs().tolist()
    assert payoffs[0] == payoffs[2] and payoffs[1] == payoffs[3] and payoffs[0] == pytest.approx(-payoffs[1])


@pytest.mark.parametrize("is_training", [False, True])
def test_run_gives_a_trajectory_for_each_of_the_four_players(is_training: bool) -> None:
    env = rlcard_env("standard", seed=6)
    with pytest.raises(EnvError, match=r"call set_agents\(\) with four agents first"):
        env.run()
    with pytest.raises(EnvError, match="set_agents takes 4 agents, one per seat, not 3"):
        env.set_agents([RandomAgent(env.num_actions)] * 3)
    env.set_agents([RandomAgent(env.num_actions, seed=s) for s in range(4)])
    trajectories, payoffs = env.run(is_training=is_training)
    check_trajectories(env, trajectories, payoffs, raw=False)


def test_raw_agents_act_by_their_raw_actions() -> None:
    env = rlcard_env("mingchao", seed=9)
    env.set_agents([RawAgent(seed=s) for s in range(4)])
    trajectories, payoffs = env.run(is_training=True)
    check_trajectories(env, trajectories, payoffs, raw=True)
    assert {action.split(" ")[0] for _, action, _ in env._record} >= {"bury", "lead", "follow"}


def test_rlcards_own_random_agent_plays_a_hand() -> None:
    agents = pytest.importorskip("rlcard.agents", reason="RLCard is not installed (it is not a dependency)")
    env = rlcard_env("standard", seed=10)
    env.set_agents([agents.RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    for is_training in (False, True):
        trajectories, payoffs = env.run(is_training=is_training)
        check_trajectories(env, trajectories, payoffs, raw=False)


# -- errors -----------------------------------------------------------------------------------------
def test_bad_actions_are_refused_with_a_typed_error_and_change_nothing() -> None:
    env = rlcard_env("standard", seed=2)
    for call in (lambda: env.step(0), env.get_player_id, lambda: env.get_state(0), env.get_perfect_information):
        with pytest.raises(EnvError, match=r"call reset\(\) first"):
            call()
    assert not env.is_over()
    state, seat = env.reset()
    n = len(state["legal_actions"])
    before = (env.timestep, seat, state["obs"].tobytes(), list(state["legal_actions"]), hand_of(env.aec).dealt)
    refused = {
        n: rf"seat {seat} has {n} legal actions, ids 0..{n - 1}: not {n}",
        127: "not 127",
        500: "not 500",
        -1: "not -1",
    }
    for action, words in refused.items():
        with pytest.raises(EnvError, match=words):
            env.step(action)
    for bad in (None, "x", "0", 1.5, np.float64(0), True, np.bool_(False), [0]):
        with pytest.raises(EnvError, match=r"an action is the id of a legal action \(an int\), not"):
            env.step(bad)
    with pytest.raises(EnvError, match=rf"seat {seat} has no legal action 'bid 3x'"):
        env.step("bid 3x", raw_action=True)
    with pytest.raises(EnvError, match=rf"seat {seat} has no legal action 0"):
        env.step(0, raw_action=True)  # raw actions are the texts
    with pytest.raises(EnvError, match="is not the id of a legal action"):
        env.get_action_feature(n)
    for player in (4, -1, "0", 1.0):
        with pytest.raises(EnvError, match=r"a player id is a seat 0\.\.3"):
            env.get_state(player)  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match="step_back is not supported"):
        env.step_back()
    assert isinstance(EnvError("x"), ValueError)
    assert (env.timestep, env.get_player_id(), env.get_state(seat)["obs"].tobytes()) == before[:3]
    assert (list(env.get_state(seat)["legal_actions"]), hand_of(env.aec).dealt) == before[3:]
    env.step(np.int64(0))  # a numpy integer is an id (RLCard's RandomAgent gives one)
    assert env.timestep == 1


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"game_num_players": 4}, "unknown config key 'game_num_players': the keys are seed, allow_step_back"),
        ({"allow_step_back": True}, "step_back is not supported: allow_step_back must be False"),
        ({"preset": "nosuch"}, "unknown preset 'nosuch'"),
        ({"reward": "points"}, "reward is one of win, margin, both, not 'points'"),
        ({"seed": 1.5}, "a seed is an int or None, not 1.5"),
    ],
)
def test_bad_configs_are_refused_with_words(config: dict[str, Any], words: str) -> None:
    with pytest.raises(EnvError) as err:
        RLCardEnv(config)
    assert words in str(err.value)
    assert RLCardEnv({"allow_step_back": False, "seed": None}).allow_step_back is False


# -- hidden information -----------------------------------------------------------------------------
def raw_cards(raw: dict[str, Any]) -> Counter[Card]:
    """Every card a raw observation names."""
    texts = [raw["hand"], raw["picked"], raw["kitty"] or ""]
    texts += [b.get("cards", "") for b in raw["bids"]]
    texts += [cards for _, cards in raw["current_trick"]]
    return Counter(c for t in texts for c in parse_cards(t))


def check_hidden(env: RLCardEnv, state: State) -> None:
    """No seat's state shows a card it may not see, nor another seat's hidden decision (every third step, and
    the last: each check makes four states)."""
    if env.timestep % 3 and not env.is_over():
        return
    hand = hand_of(env.aec)
    public = set.intersection(*(_allowed(hand, s) | hand.view(s, legal=False).cards_seen() for s in range(4)))
    for seat in range(4):
        mine = env.get_state(seat)
        allowed = _allowed(hand, seat) | hand.view(seat, legal=False).cards_seen()
        assert np.array_equal(mine["obs"], env.aec.observe(AGENTS[seat])["observation"])
        for name in CARD_PARTS:
            seen = {Card.ALL[i] for i in np.flatnonzero(part({"observation": mine["obs"]}, name)) % CARDS}
            assert seen <= allowed, f"seat {seat}'s obs shows {name} cards it may not see: {seen - allowed}"
        raw = mine["raw_obs"]
        assert raw["seat"] == seat and Counter(parse_cards(raw["hand"])) == Counter(hand.hands[seat])
        assert set(raw_cards(raw)) <= allowed
        if raw["kitty"] is not None:
            assert hand.kitty_holder == seat or hand.phase == Phase.OVER
        for who, action in mine["action_record"]:
            kind, *cards = action.split(" ")
            assert who == seat or kind in PUBLIC_KINDS, f"seat {seat} is told seat {who}'s {action!r}"
            assert set(parse_cards(" ".join(c for c in cards if not c.startswith("(")))) <= allowed
        if seat != env.get_player_id() or env.is_over():
            assert not mine["legal_actions"] and not mine["raw_legal_actions"] and not raw["picked"]
    table = env.get_perfect_information()
    assert table["seat"] is None and table["hand"] == "" and table["current_player"] == env.get_player_id()
    assert set(raw_cards(table)) <= public
    assert table["kitty"] is None or hand.phase == Phase.OVER


def test_no_state_shows_a_card_or_a_decision_its_seat_may_not_see() -> None:
    env = rlcard_env("institute2023", seed=7, dealer=None)  # (dark bids and fries: 暗炒)
    play(env, random.Random(7), check_hidden)
    kinds = {action.split(" ")[0] for _, action, _ in env._record}
    assert {"bury", "lead", "follow"} <= kinds and ("wait" in kinds or "bid" in kinds)
