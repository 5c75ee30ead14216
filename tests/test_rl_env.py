"""The learning environment (chaodipi.rl, issue 25): PettingZoo's API, seeds, legal actions, hidden information.

PettingZoo's own checks (``api_test``, ``seed_test``) run for every preset; then property tests over random
episodes: every listed action is one the engine takes, the 108 cards stay 108, a hand's rewards are equal
between team-mates and opposite between the teams; an observation is a function of the seat's view alone
(twin deals that look the same from one seat give that seat the same observations), and it never counts a
card the seat may not see. The engine's hand (``env._hand``) is the tests' oracle.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the rl extra (pip install 'chaodipi[rl]') is not installed")
pytest.importorskip("gymnasium", reason="the rl extra (pip install 'chaodipi[rl]') is not installed")
pytest.importorskip("pettingzoo", reason="the rl extra (pip install 'chaodipi[rl]') is not installed")

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import numpy.typing as npt
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import chaodipi.rl
import chaodipi.rl.aec as aec
from chaodipi.cards import Card, Rank, Suit, shuffled_deck
from chaodipi.game import Game
from chaodipi.hand import Action, Hand, Phase
from chaodipi.position import Position
from chaodipi.rl import ChaoDiPiEnv, EnvError, raw_env
from chaodipi.rl.choices import CHOICE_KINDS, CHOOSE, Choice, choices
from chaodipi.rl.encode import ACTION_SIZE, CARDS, STATE_PARTS, STATE_SIZE, encode_actions, encode_state
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.settlement import Progress
from test_simulation import _allowed

AGENTS = [f"seat_{s}" for s in range(4)]
FLAG_PRESETS = [p for p in PRESET_NAMES if RuleSet.preset(p).flag]
#: PettingZoo's api_test warns that a Dict observation space is not a Box: the action mask makes it a Dict.
PZ_WARNINGS = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]
_OFFSET = {}
_at = 0
for _name, _n in STATE_PARTS:
    _OFFSET[_name] = (_at, _at + _n)
    _at += _n
del _at, _name, _n
CARD_PARTS = ("hand", "picked", "kitty", "played", "trick", "bid")

Obs = dict[str, npt.NDArray[Any]]


def part(obs: Obs, name: str) -> npt.NDArray[Any]:
    """One named slice of the state vector (encode.STATE_PARTS)."""
    lo, hi = _OFFSET[name]
    return obs["observation"][lo:hi]


def counts(cards: Sequence[Card]) -> npt.NDArray[np.float32]:
    out = np.zeros(CARDS, dtype=np.float32)
    for c in cards:
        out[c.index] += 1
    return out


def hand_of(env: ChaoDiPiEnv) -> Hand:
    """The engine's hand behind the environment (the tests' oracle)."""
    hand = env._hand
    assert hand is not None
    return hand


def choice_key(c: Choice) -> tuple[str, tuple[int, ...], str | None]:
    """A listed action by its content (kind, cards, named trump), not its index."""
    return (c.kind, tuple(sorted(x.index for x in c.cards)), c.choose)


def finished(env: ChaoDiPiEnv) -> bool:
    return not env.agents or any(env.terminations.values()) or any(env.truncations.values())


def finish(env: ChaoDiPiEnv) -> None:
    """Step the finished agents out (PettingZoo's dead steps) until no agent is left."""
    for agent in env.agent_iter():
        assert env.terminations[agent] or env.truncations[agent]
        env.step(None)


def flag_game(rules: RuleSet, seed: int) -> Game:
    """A game whose team 0 stands at flag (扛旗) and deals: its first hand is a flag hand. (A function, not a
    subclass: in the compiled build Game is a compiled class, which Python classes cannot inherit from.)"""
    game = Game(rules, seed)
    game.progress[0] = Progress(rules.circles, None)
    game.next_dealer = 2 * (seed % 2)
    return game


@contextmanager
def flag_games() -> Iterator[None]:
    with mock.patch.object(aec, "Game", flag_game):
        yield


# -- PettingZoo's own checks ------------------------------------------------------------------------
@pytest.mark.filterwarnings(*PZ_WARNINGS)
@pytest.mark.parametrize("dealer", ["random", None], ids=["dealer-random", "dealer-bid"])
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_api_test_passes_for_every_preset_in_hand_mode(preset: str, dealer: str | None) -> None:
    api_test(chaodipi.rl.env(preset, dealer=dealer), num_cycles=400)


@pytest.mark.filterwarnings(*PZ_WARNINGS)
@pytest.mark.parametrize("preset", ["standard", "anchao"])
def test_api_test_passes_in_game_mode(preset: str) -> None:
    api_test(chaodipi.rl.env(preset, mode="game", max_hands=3), num_cycles=400)


@pytest.mark.filterwarnings(*PZ_WARNINGS)
@pytest.mark.parametrize("preset", FLAG_PRESETS)
def test_api_test_passes_in_a_flag_hand(preset: str) -> None:
    with flag_games():
        api_test(chaodipi.rl.env(preset, mode="game", max_hands=1), num_cycles=400)


@pytest.mark.parametrize(
    ("preset", "kwargs"),
    [("standard", {}), ("mingchao", {"reward": "win"}), ("kangqi", {"mode": "game", "max_hands": 2})],
)
def test_seed_test_passes(preset: str, kwargs: dict[str, Any]) -> None:
    seed_test(lambda: chaodipi.rl.env(preset, **kwargs), num_cycles=400)


# -- seeds ------------------------------------------------------------------------------------------
def trajectory(env: Any, seed: int | None, choose: int) -> list[tuple[str, Obs, float]]:
    """One episode from ``reset(seed=seed)``: each step's agent, observation and reward, actions by ``choose``."""
    env.reset(seed=seed)
    rng = random.Random(choose)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs, reward))
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return out


def same(a: list[tuple[str, Obs, float]], b: list[tuple[str, Obs, float]]) -> bool:
    return len(a) == len(b) and all(
        x[0] == y[0] and x[2] == y[2] and all(np.array_equal(x[1][k], y[1][k]) for k in x[1])
        for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize("preset", ["standard", "anchao"])
def test_the_same_seed_and_actions_give_the_same_episode(preset: str) -> None:
    first = trajectory(chaodipi.rl.env(preset), 11, choose=3)
    again = trajectory(chaodipi.rl.env(preset), 11, choose=3)
    assert len(first) > 50 and same(first, again)
    assert not same(first, trajectory(chaodipi.rl.env(preset), 11, choose=4))  # other actions, other episode
    assert not same(first, trajectory(chaodipi.rl.env(preset), 12, choose=3))  # another seed, another deal


def test_seeds_make_the_deal_and_the_dealer() -> None:
    def deal(env: ChaoDiPiEnv, seed: int | None) -> tuple[tuple[Card, ...], int | None]:
        env.reset(seed=seed)
        return hand_of(env).deck, hand_of(env).dealer

    env = raw_env("standard")
    deals = {seed: deal(env, seed) for seed in range(12)}
    assert len({d for d, _ in deals.values()}) == 12  # every seed its own deal
    assert {dealer for _, dealer in deals.values()} == {0, 1, 2, 3}  # the dealer drawn from the seed
    assert deal(raw_env("standard"), 5) == deals[5]
    # a reset without a seed goes on from the previous one; the first, from seed 0
    env.reset(seed=5)
    later = [deal(env, None) for _ in range(3)]
    other = raw_env("standard")
    other.reset(seed=5)
    assert [deal(other, None) for _ in range(3)] == later and len(set(later)) == 3
    assert deal(raw_env("standard"), None) == deals[0]
    # a fixed dealer; None: the first hand of a game, decided by bidding
    for d in range(4):
        env = raw_env("standard", dealer=d)
        assert deal(env, 3)[1] == d and hand_of(env).first_seat == d
        obs = env.observe(env.agent_selection)
        rel = (d - int(env.agent_selection[-1])) % 4
        assert part(obs, "dealer").tolist() == [1.0 if i == rel else 0.0 for i in range(5)]
    env = raw_env("standard", dealer=None)
    assert deal(env, 3)[1] is None and hand_of(env).first_hand


# -- every listed action is legal; cards and rewards ------------------------------------------------
def check_cards(hand: Hand) -> None:
    """The 108 cards are all somewhere: undealt, in a hand, in the kitty, played."""
    where: Counter[Card] = Counter(hand.deck[hand.dealt : hand.deal_size])
    for held in hand.hands:
        where.update(held)
    where.update(hand.kitty if hand.dealt == hand.deal_size else hand.deck[hand.deal_size :])
    for t in hand.tricks:
        for _, cards in t.plays:
            where.update(cards)
    for _, cards in hand.current:
        where.update(cards)
    assert sum(where.values()) == 108 and where == Counter(c for c in Card.ALL for _ in (0, 1))


def check_observation(env: ChaoDiPiEnv, agent: str) -> None:
    """``agent``'s observation counts no card it may not see, and lists actions only when it is to act."""
    hand = hand_of(env)
    seat = AGENTS.index(agent)
    obs = env.observe(agent)
    assert env.observation_space(agent).contains(obs)
    acting = agent == env.agent_selection and not finished(env)
    view = hand.view(seat, legal=False)
    allowed = _allowed(hand, seat) | view.cards_seen()
    assert view.cards_seen() <= _allowed(hand, seat) | set(view.kitty or ())
    for name in CARD_PARTS:
        seen = {Card.ALL[i] for i in np.flatnonzero(part(obs, name)) % CARDS}
        assert seen <= allowed, f"{agent} observes {name} cards it may not see: {seen - allowed}"
    assert np.array_equal(part(obs, "hand"), counts(hand.hands[seat]))
    if view.kitty is None:
        assert not part(obs, "kitty").any()
    else:
        assert hand.kitty_holder == seat or hand.phase == Phase.OVER
        assert np.array_equal(part(obs, "kitty"), counts(view.kitty))
    played = part(obs, "played").reshape(4, CARDS).sum(axis=0)
    assert np.all(part(obs, "unseen") + part(obs, "hand") + played + part(obs, "kitty") <= 2)
    assert np.all(part(obs, "picked") <= part(obs, "hand"))
    if acting:
        n = len(env._listed)
        assert 0 < n <= env.max_actions
        assert obs["action_mask"].tolist() == [1] * n + [0] * (env.max_actions - n)
        assert np.array_equal(obs["actions"], encode_actions(env._listed, env.max_actions))
        assert np.array_equal(part(obs, "picked"), counts(env._picked))
    else:
        assert not obs["action_mask"].any() and not obs["actions"].any() and not part(obs, "picked").any()


def play_episode(
    env: ChaoDiPiEnv, seed: int, rng: random.Random, check: Callable[[ChaoDiPiEnv], None] = lambda e: None
) -> tuple[dict[str, float], int, dict[str, dict[str, Any]]]:
    """Play ``env`` from ``reset(seed)`` with random listed actions, checking each against the engine;
    the rewards summed per agent, the number of steps and the last infos."""
    env.reset(seed=seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    steps = 0
    while not finished(env):
        agent = env.agent_selection
        obs, *_ = env.last()
        check(env)
        hand = hand_of(env)
        seat = AGENTS.index(agent)
        mask = obs["action_mask"]
        assert mask.any() and env._listed, f"{agent} is to act with nothing listed"
        index = rng.choice(np.flatnonzero(mask).tolist())
        choice = env._listed[index]
        before = len(hand.actions)
        env.step(index)
        steps += 1
        for a, r in env.rewards.items():
            totals[a] += r
        action = None if choice.kind in ("wait", "bury") else choice.action(seat)
        if action is not None and env._hand is hand:  # the engine took this very action
            taken = hand.actions[before:]
            assert any(
                t.kind == action.kind and t.player == seat and Counter(t.cards) == Counter(action.cards) for t in taken
            ), f"{choice} is not in the engine's log: {taken}"
        if env._hand is hand:
            check_cards(hand)
    assert env._hand is not None and env._hand.phase == Phase.OVER
    check(env)
    infos = dict(env.infos)
    finish(env)
    assert not env.agents
    return totals, steps, infos


def check_rewards(totals: dict[str, float], kind: str, hands: int) -> None:
    """Team-mates get the same reward and the two teams opposite ones; ``win``: ±1 a hand."""
    r0, r1, r2, r3 = (totals[a] for a in AGENTS)
    assert r0 == r2 and r1 == r3 and r0 == pytest.approx(-r1)
    if kind == "win" and hands == 1:
        assert {r0, r1} == {1.0, -1.0}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESET_NAMES),
    seed=st.integers(0, 2**31),
    reward=st.sampled_from(["win", "margin", "both"]),
    dealer=st.sampled_from(["random", None, 0, 1, 2, 3]),
    max_actions=st.sampled_from([8, 24, 128]),
)
def test_every_listed_action_is_legal_and_the_hand_ends_with_zero_sum_rewards(
    preset: str, seed: int, reward: str, dealer: int | str | None, max_actions: int
) -> None:
    env = raw_env(preset, reward=reward, dealer=dealer, max_actions=max_actions)
    totals, steps, infos = play_episode(env, seed, random.Random(seed))
    note(f"{steps} steps, rewards {totals}")
    check_rewards(totals, reward, 1)
    hand = hand_of(env)
    assert hand.result is not None
    for seat, agent in enumerate(AGENTS):
        expected, won, margin = aec.hand_reward(hand, seat, reward)
        assert totals[agent] == pytest.approx(expected)
        assert infos[agent] == {"won": won, "margin": margin, "points": hand.result.points}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**31), reward=st.sampled_from(["win", "both"]))
def test_game_mode_plays_hands_until_truncated(preset: str, seed: int, reward: str) -> None:
    env = raw_env(preset, mode="game", reward=reward, max_hands=2)
    env.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    hands: set[int] = set()
    while not finished(env):
        hands.add(id(hand_of(env)))
        env.step(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()))
        for a, r in env.rewards.items():
            totals[a] += r
    game = env._game
    assert game is not None
    played = [h for h in game.hands if h.phase == Phase.OVER]
    assert len(played) == 2 or game.over
    assert all(env.truncations.values()) != game.over and all(env.terminations.values()) == game.over
    check_rewards(totals, reward, len(played))
    if reward == "win":
        assert abs(totals["seat_0"]) in ({0.0, 2.0} if len(played) == 2 else {1.0})
    finish(env)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(FLAG_PRESETS), seed=st.integers(0, 2**31))
def test_a_flag_hand_is_played_with_legal_actions_and_hidden_cards(preset: str, seed: int) -> None:
    with flag_games():
        env = raw_env(preset, mode="game", reward="win", max_hands=1)
        totals, _, _ = play_episode(
            env, seed, random.Random(seed), check=lambda e: check_observation(e, e.agent_selection)
        )
    assert hand_of(env).flag
    check_rewards(totals, "win", 1)


def test_5h_5h_is_offered_before_a_flag_hand_and_shown() -> None:
    shown = 0
    with flag_games():
        for seed in range(60):
            env = raw_env("institute2023", mode="game", max_hands=1)
            env.reset(seed=seed)
            while not finished(env) and env._listed[0].kind != "show":
                env.step(0)
            if finished(env):
                continue
            assert [c.kind for c in env._listed] == ["show", "wait"]
            seat = env._seat
            env.step(0)
            assert hand_of(env).red5_player == seat
            shown += 1
    assert shown > 0


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**31), dealer=st.sampled_from(["random", None]))
def test_no_observation_counts_a_card_its_seat_may_not_see(preset: str, seed: int, dealer: str | None) -> None:
    def check(env: ChaoDiPiEnv) -> None:
        for agent in AGENTS:
            check_observation(env, agent)

    play_episode(raw_env(preset, dealer=dealer), seed, random.Random(seed + 1), check)


# -- hidden information: twin deals -----------------------------------------------------------------
def twin_deck(
    deck: Sequence[Card], first_seat: int, seat: int, swaps: int, kitty: bool, rng: random.Random
) -> list[Card]:
    """``deck`` with cards swapped between the positions dealt to the other seats (and the kitty's, with
    ``kitty``): ``seat`` is dealt the same cards at the same moments."""
    others = [i for i in range(100) if (first_seat + i) % 4 != seat] + (list(range(100, 108)) if kitty else [])
    twin = list(deck)
    if swaps >= 50:
        cards = [twin[i] for i in others]
        rng.shuffle(cards)
        for i, c in zip(others, cards, strict=True):
            twin[i] = c
    else:
        for _ in range(swaps):
            i, j = rng.sample(others, 2)
            twin[i], twin[j] = twin[j], twin[i]
    return twin


def twin_run(
    preset: str, dealer: int | None, seat: int, seed: int, swaps: int, kitty: bool
) -> tuple[int, set[Phase], str]:
    """Play two environments dealt twin decks for ``seat`` in step: ``seat``'s actions by index, the other
    seats' by content (a choice listed in both), seats asked in one only say ``wait``. While ``seat``'s views
    are equal its observations must be equal. The number of observations compared, the phases seen, and why
    it stopped."""
    me = AGENTS[seat]
    deck = shuffled_deck(random.Random(seed))
    current = [deck]
    rng = random.Random(seed ^ 0x5EED)
    with mock.patch.object(aec, "shuffled_deck", lambda _rng: list(current[0])):
        a = raw_env(preset, dealer=dealer)
        a.reset(seed=seed)
        current[0] = twin_deck(deck, hand_of(a).first_seat, seat, swaps, kitty, rng)
        b = raw_env(preset, dealer=dealer)
        b.reset(seed=seed)
    ha, hb = hand_of(a), hand_of(b)
    assert ha.first_seat == hb.first_seat
    compared, phases = 0, set[Phase]()
    while True:
        if a._hand is not ha or b._hand is not hb:
            return compared, phases, "redealt"
        if finished(a) or finished(b):
            if finished(a) and finished(b) and ha.view(seat) == hb.view(seat):
                assert all(
                    np.array_equal(x, y) for x, y in zip(a.observe(me).values(), b.observe(me).values(), strict=True)
                )
                compared += 1
            return compared, phases, "over"
        ka, kb = (len(ha.log), a._seat), (len(hb.log), b._seat)
        if ka != kb:
            behind = a if ka < kb else b
            assert behind._seat != seat, f"seat {seat} is asked in one twin only: {ka} {kb}"
            waits = [i for i, c in enumerate(behind._listed) if c.kind == "wait"]
            if not waits:
                return compared, phases, f"out of step at {ka} {kb}"
            behind.step(waits[0])
            continue
        if ha.view(seat) != hb.view(seat):
            return compared, phases, f"the views differ in {ha.phase.value}"
        oa, ob = a.observe(me), b.observe(me)
        for key in oa:
            assert np.array_equal(oa[key], ob[key]), f"{me}'s {key} differs between twin deals in {ha.phase.value}"
        compared += 1
        phases.add(ha.phase)
        if a._seat == seat:
            assert a._listed == b._listed
            i = rng.randrange(len(a._listed))
            a.step(i)
            b.step(i)
            continue
        keys_b = {choice_key(c): i for i, c in enumerate(b._listed)}
        common = [(i, keys_b[choice_key(c)]) for i, c in enumerate(a._listed) if choice_key(c) in keys_b]
        if not common:
            return compared, phases, f"no common choice for seat {a._seat} in {ha.phase.value}"
        i, j = rng.choice(common)
        a.step(i)
        b.step(j)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESET_NAMES),
    dealer=st.sampled_from([None, 0, 1, 2, 3]),
    seat=st.integers(0, 3),
    seed=st.integers(0, 2**31),
    swaps=st.sampled_from([1, 2, 4, 8, 50]),
    kitty=st.booleans(),
)
def test_twin_deals_give_a_seat_the_same_observations(
    preset: str, dealer: int | None, seat: int, seed: int, swaps: int, kitty: bool
) -> None:
    compared, phases, why = twin_run(preset, dealer, seat, seed, swaps, kitty)
    note(f"{compared} observations compared, phases {sorted(p.value for p in phases)}, stopped: {why}")
    assert compared > 0


def test_twin_deals_are_compared_through_the_whole_hand() -> None:
    """The twin runs are not vacuous: over a few fixed deals they reach the play, and some hand its end."""
    runs = [twin_run(p, d, s, seed, 1, False) for p in PRESET_NAMES for seed, (d, s) in enumerate([(0, 0), (1, 2)])]
    assert any(Phase.PLAY in phases for _, phases, _ in runs)
    assert any(Phase.BURY in phases for _, phases, _ in runs)
    assert sum(n for n, _, _ in runs) > 500


# -- errors -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"preset": "nosuch"}, "unknown preset 'nosuch'"),
        ({"mode": "match"}, "mode is one of hand, game, not 'match'"),
        ({"reward": "points"}, "reward is one of win, margin, both, not 'points'"),
        ({"dealer": 4}, "dealer is a seat 0..3, None (decided by bidding) or 'random', not 4"),
        ({"dealer": "north"}, "dealer is a seat 0..3"),
        ({"max_actions": 7}, "max_actions is between 8 and 200, not 7"),
        ({"max_actions": 201}, "max_actions is between 8 and 200, not 201"),
        ({"render_mode": "rgb_array"}, "render_mode is ansi, human or None"),
        ({"max_hands": 0}, "max_hands is between 1 and 2000 (a game's limit), not 0"),
        ({"max_hands": 2001}, "max_hands is between 1 and 2000"),
    ],
)
def test_bad_options_are_refused_with_words(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(EnvError) as err:
        chaodipi.rl.env(**kwargs)
    assert words in str(err.value)
    assert isinstance(err.value, ValueError)


def test_invalid_actions_are_refused_with_words() -> None:
    env = raw_env("standard")
    with pytest.raises(EnvError, match="call reset"):
        env.observe("seat_0")
    env.reset(seed=2)
    agent = env.agent_selection
    n = len(env._listed)
    state = (hand_of(env).dealt, agent, list(env._listed))
    with pytest.raises(EnvError, match=rf"{agent} has {n} listed actions: {n} is not one of them"):
        env.step(n)  # in the action space, but masked
    with pytest.raises(EnvError, match=rf"{agent} has {n} listed actions: 500 is not one of them"):
        env.step(500)  # out of range
    with pytest.raises(EnvError, match=rf"{agent} has {n} listed actions: -1 is not one of them"):
        env.step(-1)
    with pytest.raises(EnvError, match=rf"{agent} is to act: give the index of a listed action, not None"):
        env.step(None)
    with pytest.raises(EnvError, match="an action is the index of a listed action, not 'x'"):
        env.step("x")  # type: ignore[arg-type]
    with pytest.raises(EnvError, match="the agents are seat_0, seat_1, seat_2, seat_3, not 'seat_4'"):
        env.observe("seat_4")
    assert (hand_of(env).dealt, env.agent_selection, env._listed) == state  # nothing changed
    env.step(np.int64(0))  # type: ignore[arg-type]  # a numpy integer is an index too
    # the wrapped environment: PettingZoo's wrapper refuses what is outside the action space first
    wrapped = chaodipi.rl.env("standard")
    with pytest.raises(Exception, match="reset"):
        wrapped.step(0)
    wrapped.reset(seed=2)
    with pytest.raises(AssertionError, match="action is not in action space"):
        wrapped.step(128)
    with pytest.raises(AssertionError, match="action is not in action space"):
        wrapped.step(None)
    with pytest.raises(EnvError, match="listed actions"):
        wrapped.step(127)


def test_no_more_actions_are_listed_than_the_mask_holds() -> None:
    """Leads and burial picks may be more than ``max_actions``: the first ``max_actions`` are listed, no more."""
    cut = 0
    for seed in range(3):
        env = raw_env("standard", max_actions=8)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not finished(env):
            assert 0 < len(env._listed) <= 8
            if env._listed[0].kind != "bury" and len(choices(hand_of(env).view(env._seat), limit=8)) > 8:
                cut += 1
                with pytest.raises(EnvError, match="8 listed actions: 8 is not one of them"):
                    env.step(8)
            env.step(rng.randrange(len(env._listed)))
    assert cut > 0


# -- the burial -------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_burier_picks_eight_cards_in_a_row_and_the_engine_buries_them(preset: str) -> None:
    burials = 0
    for seed in range(3):
        env = raw_env(preset)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not finished(env):
            if env._listed[0].kind != "bury":
                env.step(rng.randrange(len(env._listed)))
                continue
            hand = hand_of(env)
            agent, seat = env.agent_selection, env._seat
            held = Counter(hand.hands[seat])
            assert len(hand.hands[seat]) == 33 and hand.kitty_holder == seat
            picked: list[Card] = []
            for _ in range(8):
                assert env.agent_selection == agent and hand.phase == Phase.BURY
                kinds = {c.kind for c in env._listed}
                assert kinds == {"bury"} and all(len(c.cards) == 1 for c in env._listed)
                left = held - Counter(picked)
                assert sorted(c.cards[0].index for c in env._listed) == sorted(c.index for c in left)
                obs = env.observe(agent)
                assert np.array_equal(part(obs, "picked"), counts(picked))
                assert np.array_equal(part(obs, "hand"), counts(hand.hands[seat]))  # nothing buried yet
                for other in AGENTS:
                    if other != agent:
                        assert not env.observe(other)["action_mask"].any()
                        assert not part(env.observe(other), "picked").any()
                i = rng.randrange(len(env._listed))
                picked.append(env._listed[i].cards[0])
                env.step(i)
            assert Counter(hand.kitty) == Counter(picked) and len(hand.hands[seat]) == 25
            burials += 1
    assert burials >= 3


# -- encode -----------------------------------------------------------------------------------------
def test_the_state_parts_add_up() -> None:
    assert STATE_SIZE == sum(n for _, n in STATE_PARTS) == _OFFSET["scalars"][1]
    assert [n for n, _ in STATE_PARTS][:7] == ["hand", "picked", "kitty", "unseen", "played", "trick", "bid"]
    assert CARDS + len(CHOICE_KINDS) + len(CHOOSE) == ACTION_SIZE
    env = raw_env("standard")
    env.reset(seed=0)
    assert env.observe("seat_0")["observation"].shape == (STATE_SIZE,)
    assert env.observation_spaces["seat_0"]["actions"].shape == (128, ACTION_SIZE)


def check_rows(listed: list[Choice], rows: npt.NDArray[np.int8]) -> None:
    assert rows.shape == (len(listed), ACTION_SIZE) and rows.dtype == np.int8
    for choice, row in zip(listed, rows, strict=True):
        assert np.array_equal(row[:CARDS], counts(choice.cards))
        kinds = row[CARDS : CARDS + len(CHOICE_KINDS)]
        assert kinds.tolist() == [int(k == choice.kind) for k in CHOICE_KINDS]
        named = row[CARDS + len(CHOICE_KINDS) :]
        assert named.tolist() == [int(c == choice.choose) for c in CHOOSE]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_encoded_actions_count_their_cards_and_name_their_kind(preset: str) -> None:
    seen: set[str] = set()
    for seed in range(4):
        env = raw_env(preset)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not finished(env):
            rows = encode_actions(env._listed)
            check_rows(env._listed, rows)
            seen.update(c.kind for c in env._listed)
            # the environment's list is the choices of the seat's own view
            if env._listed[0].kind != "bury":
                view = hand_of(env).view(env._seat)
                assert choices(view, limit=env.max_actions)[: env.max_actions] == env._listed
            env.step(rng.randrange(len(env._listed)))
    assert {"wait", "bid", "bury", "lead", "follow"} <= seen


LEVELS = [Rank(r) for r in range(2, 15)]


@pytest.mark.parametrize("level", [*LEVELS, None], ids=[*(r.symbol for r in LEVELS), "flag"])
def test_every_level_and_any_points_encode_within_the_observation_space(level: Rank | None) -> None:
    rules = RuleSet.preset("kangqi")  # (it has flag hands)
    deck = shuffled_deck(random.Random(7))
    space = raw_env("kangqi").observation_spaces["seat_0"]["observation"]
    progress = Progress(1, level) if level is not None else Progress(rules.circles, None)
    hand = Hand(rules, deck, first_seat=1, dealer=1, dealer_progress=progress)
    hand.deal_all()
    state = encode_state(hand.view(0))
    assert space.contains(state)
    assert part({"observation": state}, "level").tolist() == [
        float(i == [*LEVELS, None].index(level)) for i in range(14)
    ]
    # points made negative by penalties (逼红5, failed dark fries), or far past 200 by others
    hands = [deck[:12], deck[12:24], deck[24:36], deck[36:48]]
    for delta in (-300, -100, 0, 250, 700):
        hand = Position.in_play(
            rules,
            hands=hands,
            kitty=deck[48:56] if level is not None else [],
            dealer=1,
            trump=Suit.HEARTS if level is not None else None,
            leader=0,
            dealer_progress=progress,
            captured=(0, 60),
            adjustments=[("penalty", delta)],
        ).hand()
        view = hand.view(0)
        assert view.points == 60 + delta
        state = encode_state(view)
        assert space.contains(state), f"points {view.points}: {state.min()} … {state.max()}"
        assert part({"observation": state}, "scalars")[0] == pytest.approx(max(-2.0, min(2.0, view.points / 200)))


def test_encode_actions_pads_and_cuts_to_the_rows_asked() -> None:
    hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
    hand.deal_all()
    listed = [Choice("wait"), Choice("bid", (hand.hands[0][0],)), Choice("pass"), Choice("show")]
    rows = encode_actions(listed, 6)
    assert rows.shape == (6, ACTION_SIZE) and not rows[4:].any()
    check_rows(listed, rows[:4])
    assert np.array_equal(encode_actions(listed, 2), rows[:2])
    five = Card.parse("5h")
    check_rows([Choice("bid", (five, five), "nt")], encode_actions([Choice("bid", (five, five), "nt")]))
    state = encode_state(hand.view(0))
    assert state.dtype == np.float32 and np.array_equal(state[:CARDS], counts(hand.hands[0]))


def test_the_action_of_each_choice() -> None:
    five = Card.parse("5h")
    assert Choice("wait").action(1) is None
    assert Choice("pass").action(2) == Action.pass_fry(2)
    assert Choice("show").action(3) == Action.show_red5(3)
    assert Choice("bid", (five, five), "s").action(0) == Action.bid(0, (five, five), "s")
    assert Choice("lead", (five,)).action(0) == Action.play(0, (five,))
    with pytest.raises(ValueError, match="burial pick"):
        Choice("bury", (five,)).action(0)
