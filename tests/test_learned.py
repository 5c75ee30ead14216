"""The learned bot (issue 25): it plays legal hands from its view alone with the shipped weights (numpy only),
its numpy network is the trained torch network, and ``chaodipi train`` makes weights it can play with.

The tests that train need torch (the ``learn`` extra, ``make test-learn``); without it they are skipped.
"""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the learned bot needs numpy (pip install 'chaodipi[rl]')")

from chaodipi.arena import run_arena  # noqa: E402
from chaodipi.bots import BotError, DecisionTimer, make_bot, run_hand  # noqa: E402
from chaodipi.bots.knowledge import Knowledge  # noqa: E402
from chaodipi.cards import (  # noqa: E402
    Rank,
    Suit,
    shuffled_deck,
)
from chaodipi.cli import main as cli_main  # noqa: E402
from chaodipi.hand import Hand, Phase  # noqa: E402
from chaodipi.position import Position  # noqa: E402
from chaodipi.rl.choices import choices, ranked_choices, rules_first  # noqa: E402
from chaodipi.rl.encode import (  # noqa: E402
    ACTION_SIZE,
    HINT_FEATURES,
    HINT_RANKS,
    HINT_SIZE,
    STATE_SIZE,
    encode_actions,
    encode_hints,
    encode_state,
)
from chaodipi.rl.learned import (  # noqa: E402
    CANDIDATES,
    WEIGHTS_VARIABLE,
    LearnedBot,
    QNet,
    WeightsError,
    candidates,
)
from chaodipi.rl.train import Batch, GenTask, decisions, generate, load_batch, save_batch, self_play  # noqa: E402
from chaodipi.rules import PRESET_NAMES, RuleSet  # noqa: E402
from chaodipi.settlement import Progress  # noqa: E402
from chaodipi.trick import trick_state  # noqa: E402


def _hand(seed: int, preset: str = "standard") -> Hand:
    return Hand(RuleSet.preset(preset), shuffled_deck(random.Random(seed)), first_seat=seed % 4, dealer=seed % 4)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_learned_bot_plays_legal_hands_in_every_preset(preset: str) -> None:
    bots = [make_bot("learned", seed=s) if s % 2 == 0 else make_bot("rules", seed=s) for s in range(4)]
    hand = run_hand(_hand(11, preset), bots)  # the driver refuses any illegal action (BotError)
    assert hand.phase in (Phase.OVER, Phase.REDEAL)


def test_learned_bot_is_deterministic() -> None:
    first = run_hand(_hand(5), [make_bot("learned", s) if s % 2 else make_bot("rules", s) for s in range(4)])
    second = run_hand(_hand(5), [make_bot("learned", s) if s % 2 else make_bot("rules", s) for s in range(4)])
    assert first.actions == second.actions


def test_same_view_same_decision_whatever_the_hidden_cards() -> None:
    """Two positions that look the same from seat 0 but differ in every other seat's cards: same play."""
    rules = RuleSet.preset("standard")
    deck = shuffled_deck(random.Random(8))
    mine, rest = deck[:12], deck[12:56]
    other = list(rest)
    random.Random(1).shuffle(other)
    decisions = []
    for cards in (rest, other):
        hand = Position.in_play(
            rules,
            hands=[mine, cards[0:12], cards[12:24], cards[24:36]],
            kitty=cards[36:44],
            dealer=1,
            trump=Suit.HEARTS,
            leader=0,
            dealer_progress=Progress(1, Rank.SEVEN),
            captured=(0, 30),
        ).hand()
        action = LearnedBot(4).act(hand.view(0))
        assert action is not None
        decisions.append(action.cards)
    assert decisions[0] == decisions[1]


def test_learned_bot_decides_by_the_network_in_the_play_phase() -> None:
    hand = _hand(3)
    rules = [make_bot("rules", s) for s in range(4)]
    run_hand(hand, rules, timer=None)
    # replay to the first lead and compare the bot's lead with the network's best score
    replay = hand.restart()
    for action in hand.actions:
        if replay.phase == Phase.PLAY:
            break
        replay.apply(action)
    seat = replay.to_act()
    assert seat is not None
    view = replay.view(seat)
    bot = LearnedBot(0)
    know = Knowledge.from_view(view)
    listed, hints = candidates(view, know, choices(view), CANDIDATES)
    assert listed == rules_first(view, choices(view), know, CANDIDATES) and len(listed) > 1
    scores = bot.net.scores(encode_state(view), encode_actions(listed), hints)
    assert scores.shape == (len(listed),)
    act = bot.act(view)
    assert act is not None and act.cards is not None
    best = listed[int(np.argmax(scores))]
    assert sorted(c.index for c in act.cards) == sorted(c.index for c in best.cards)


def test_shipped_weights_are_small_and_fit(tmp_path: Path) -> None:
    net = QNet.load()
    assert net.hinted and net.layers[0][0].shape[0] == STATE_SIZE + ACTION_SIZE + HINT_SIZE
    shipped = Path(__file__).resolve().parents[1] / "src" / "chaodipi" / "rl" / "weights" / "learned.npz"
    assert shipped.stat().st_size < 2_000_000
    bad = tmp_path / "bad.npz"
    np.savez(bad, w0=np.zeros((3, 1), np.float32), b0=np.zeros(1, np.float32))
    with pytest.raises(WeightsError, match="do not fit"):
        QNet.load(bad)
    with pytest.raises(WeightsError, match="cannot read"):
        QNet.load(tmp_path / "missing.npz")


def test_arena_plays_the_learned_bot_with_other_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    weights = tmp_path / "w.npz"
    rng = np.random.default_rng(0)
    sizes = [STATE_SIZE + ACTION_SIZE, 8, 1]
    arrays = {}
    for i in range(2):
        arrays[f"w{i}"] = rng.standard_normal((sizes[i], sizes[i + 1])).astype(np.float32)
        arrays[f"b{i}"] = np.zeros(sizes[i + 1], np.float32)
    np.savez(weights, **arrays)
    monkeypatch.setenv(WEIGHTS_VARIABLE, str(weights))
    assert LearnedBot(0).net.layers[0][0].shape == (STATE_SIZE + ACTION_SIZE, 8)
    result = run_arena("learned", "rules", deals=2, seed=3)
    assert result.hands == 4
    assert 0 <= result.a_wins <= 4


def test_arena_command_refuses_bad_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    code = cli_main(["arena", "learned", "rules", "--deals", "1", "--weights", str(bad)])
    assert code != 0
    assert "weights" in capsys.readouterr().err


def test_self_play_labels_candidates_by_play_outs_on_the_same_deal() -> None:
    batch = generate(GenTask("standard", seed=4, first=0, hands=2, label_rate=0.3))
    again = generate(GenTask("standard", seed=4, first=0, hands=2, label_rate=0.3))
    assert batch.states.shape[1] == STATE_SIZE and batch.actions.shape[1] == ACTION_SIZE
    assert len(batch.rewards) == len(batch.states) == len(batch.actions) > 20
    assert np.array_equal(batch.states, again.states) and np.array_equal(batch.rewards, again.rewards)
    # every labelled action is a play: one kind among lead, throw, follow
    kinds = batch.actions[:, 54:63]
    assert (kinds.sum(axis=1) == 1).all() and (kinds[:, [5, 6, 7]].sum(axis=1) == 1).all()
    # candidates of one decision share its state, and differ from each other
    same = [i for i in range(1, len(batch.states)) if np.array_equal(batch.states[i], batch.states[i - 1])]
    assert same and all(not np.array_equal(batch.actions[i], batch.actions[i - 1]) for i in same)
    # a utility is ±1 for the hand plus the point margin ÷ 100
    assert (np.abs(batch.rewards) >= 0.0).all() and (np.abs(batch.rewards) <= 3.5).all()
    assert (batch.rewards > 0).any() and (batch.rewards < 0).any()


def test_search_teacher_labels_every_play_by_the_search_bots_means() -> None:
    task = GenTask("standard", seed=5, first=0, hands=1, epsilon=0.0, teacher="search", samples=3)
    batch, again = generate(task), generate(task)
    # the labels depend on the seed alone (a fixed number of sampled deals, no time limit reached)
    assert np.array_equal(batch.states, again.states) and np.array_equal(batch.rewards, again.rewards)
    rows, mask = decisions(batch.states)
    # every play with a choice (but at the end) is labelled, not a quarter of them: dozens in one hand
    assert len(rows) > 30 and (mask.sum(axis=1) >= 2).all() and (mask.sum(axis=1) <= 3).all()
    # a label is a mean of utilities (±1 and the margin ÷ 100), over the deals the candidate was played out on
    assert (np.abs(batch.rewards) <= 3.5).all() and len(set(batch.rewards.tolist())) > 10
    playout = generate(GenTask("standard", seed=5, first=0, hands=1, epsilon=0.0))
    assert len(decisions(playout.states)[0]) < len(rows)


def test_records_carry_the_rules_bots_hints(tmp_path: Path) -> None:
    """Each decision's candidates are recorded best first by the rules bot: their hints say so, and they survive
    a save and a load; records saved before hints existed still load (without them)."""
    batch = generate(GenTask("standard", seed=6, first=0, hands=1, epsilon=0.0, teacher="search", samples=2))
    assert batch.hints is not None and batch.hints.shape == (len(batch.rewards), HINT_SIZE)
    rows, mask = decisions(batch.states)
    for row, m in zip(rows, mask, strict=True):
        ranks = batch.hints[row[m], : HINT_RANKS + 1].astype(np.float32)
        assert np.array_equal(ranks, np.eye(HINT_RANKS + 1, dtype=np.float32)[: int(m.sum())])
        gaps = batch.hints[row[m], HINT_RANKS + 1]
        assert gaps[0] == 0 and (np.diff(gaps.astype(np.float32)) >= 0).all()  # best first: gaps grow
    save_batch(batch, tmp_path / "b.npz")
    again = load_batch(tmp_path / "b.npz")
    assert again.hints is not None and np.array_equal(again.hints, batch.hints)
    old = Batch(batch.states, batch.actions, batch.rewards, batch.hands)
    save_batch(old, tmp_path / "old.npz")
    assert load_batch(tmp_path / "old.npz").hints is None


def test_hints_follow_the_rules_bots_ranking() -> None:
    hand = _hand(9)
    run_hand(hand, [make_bot("rules", s) for s in range(4)], timer=None)
    replay = hand.restart()
    for action in hand.actions:
        if replay.phase == Phase.PLAY and len(replay.current) == 1:
            break
        replay.apply(action)
    seat = replay.to_act()
    assert seat is not None
    view = replay.view(seat)
    know = Knowledge.from_view(view)
    listed = choices(view, know=know)
    ranked = ranked_choices(view, listed, know, len(listed))
    every, hints = candidates(view, know, listed, None)
    assert every == listed and hints.shape == (len(listed), HINT_SIZE)
    for (_, choice), rank in zip(ranked, range(HINT_RANKS), strict=False):
        assert hints[listed.index(choice), rank] == 1.0
    unranked = [i for i, c in enumerate(listed) if c not in [c for _, c in ranked]]
    assert all(hints[i, HINT_RANKS] == 1.0 and hints[i, HINT_RANKS + 1] == 1.0 for i in unranked)


def _decision_where(seed: int, test: Any) -> Any:
    """The first play decision of a rules-bot hand (deal ``seed``) whose view passes ``test``."""
    hand = _hand(seed)
    run_hand(hand, [make_bot("rules", s) for s in range(4)], timer=None)
    replay = hand.restart()
    for action in hand.actions:
        seat = replay.to_act()
        if replay.phase == Phase.PLAY and seat is not None and test(replay.view(seat)):
            return replay.view(seat)
        replay.apply(action)
    raise AssertionError("no such decision")


def test_hints_say_what_the_rules_bot_weighs_a_follow_by() -> None:
    view = _decision_where(12, lambda v: len(v.current_trick) == 3 and len(choices(v)) > 2)
    know = Knowledge.from_view(view)
    listed = choices(view, know=know)
    hints = encode_hints(listed, ranked_choices(view, listed, know, len(listed)), view, know)
    col = {name: HINT_RANKS + 2 + i for i, name in enumerate(HINT_FEATURES)}
    state = trick_state([cards for _, cards in view.current_trick], know.trump_order)
    partner_winning = view.current_trick[state.winner][0] == (view.seat + 2) % 4
    table = sum(c.points for _, cards in view.current_trick for c in cards)
    for choice, row in zip(listed, hints, strict=True):
        assert row[col["stands"]] == float(state.wins_with(choice.cards))
        assert row[col["points"]] == pytest.approx(sum(c.points for c in choice.cards) / 25)
        assert row[col["table"]] == pytest.approx(table / 50)
        assert row[col["last"]] == 1.0 and row[col["partner_winning"]] == float(partner_winning)
        assert row[col["beatable"]] == 0.0  # nobody plays after the last
        kept = sum(c.points for c in view.hand) - sum(c.points for c in choice.cards)
        assert row[col["points_left"]] == pytest.approx(kept / 50)


def test_hints_tell_a_lead_that_stands_from_one_that_does_not() -> None:
    view = _decision_where(14, lambda v: not v.current_trick and len(v.tricks) > 2)
    know = Knowledge.from_view(view)
    listed = choices(view, know=know)
    hints = encode_hints(listed, [], view, know)
    stands = HINT_RANKS + 2 + HINT_FEATURES.index("stands")
    order, unseen = know.trump_order, know.unseen_cards()
    for choice, row in zip(listed, hints, strict=True):
        if len(choice.cards) == 1:  # a single stands when no unseen card of its suit is above it
            card = choice.cards[0]
            suit = order.effective[card.index]
            above = [
                c for c in unseen if order.effective[c.index] == suit and order.order[c.index] > order.order[card.index]
            ]
            assert row[stands] == float(not above), choice
        assert row[HINT_RANKS] == 1.0 and row[HINT_RANKS + 1] == 1.0  # not ranked: nothing was


def test_train_refuses_an_unknown_teacher() -> None:
    with pytest.raises(ValueError, match="the teacher is one of playout, search, not 'oracle'"):
        self_play("standard", 1, 1, epsilon=0.0, weights=None, teacher="oracle")


def test_decision_timer_stays_low() -> None:
    """Not a speed test (benchmarks measure speed): the bot makes one network pass per play, no search."""
    timer = DecisionTimer()
    run_hand(_hand(8), [make_bot("learned", s) for s in range(4)], timer)
    assert sum(len(t) for t in timer.times) > 50


def test_unknown_weights_file_named_by_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(WEIGHTS_VARIABLE, str(tmp_path / "nowhere.npz"))
    with pytest.raises(WeightsError):
        LearnedBot(0)
    monkeypatch.delenv(WEIGHTS_VARIABLE)
    assert isinstance(make_bot("learned"), LearnedBot)
    with pytest.raises(BotError):
        make_bot("learnt")


# -- training (torch) -------------------------------------------------------------------------------------


def test_numpy_network_is_the_trained_torch_network() -> None:
    torch = pytest.importorskip("torch", reason="training needs torch: the learn extra (make test-learn)")
    from chaodipi.rl.train import train_net

    data = generate(GenTask("standard", seed=2, first=0, hands=3, label_rate=0.5))
    weights, stats = train_net(data, hidden=(16,), epochs=2, batch_size=64, log=lambda *_: None)
    assert stats["held_loss"] >= 0
    net = QNet.load(io.BytesIO(weights))
    # the same forward pass in torch, from the exported weights
    layers = [(torch.from_numpy(w), torch.from_numpy(b)) for w, b in net.layers]
    assert net.hinted and data.hints is not None
    parts = [data.states[:5], data.actions[:5], data.hints[:5]]
    x = torch.cat([torch.from_numpy(p.astype(np.float32)) for p in parts], 1)
    h = torch.relu(x @ layers[0][0] + layers[0][1])
    want = (h @ layers[1][0] + layers[1][1])[:, 0].numpy()
    got = np.array(
        [
            net.scores(
                data.states[i].astype(np.float32), data.actions[i : i + 1], data.hints[i : i + 1].astype(np.float32)
            )[0]
            for i in range(5)
        ]
    )
    assert np.allclose(got, want, atol=1e-4)


def test_train_command_writes_weights_the_arena_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch", reason="training needs torch: the learn extra (make test-learn)")
    out = tmp_path / "learned.npz"
    code = cli_main(["train", "--hands", "4", "--epochs", "1", "--hidden", "16", "--rounds", "2", "--out", str(out)])
    assert code == 0 and out.stat().st_size > 0
    monkeypatch.setenv(WEIGHTS_VARIABLE, str(out))
    assert run_arena("learned", "rules", deals=1, seed=1).hands == 2


def test_train_command_learns_from_the_search_teacher(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="training needs torch: the learn extra (make test-learn)")
    out = tmp_path / "learned.npz"
    args = ["train", "--teacher", "search", "--samples", "2", "--hands", "2", "--epochs", "1", "--hidden", "16"]
    assert cli_main([*args, "--out", str(out)]) == 0
    assert "2 hands by the search bot" in capsys.readouterr().out
    net = QNet.load(out)
    assert net.hinted
    hints = np.zeros((2, HINT_SIZE), dtype=np.float32)
    assert net.scores(np.zeros(STATE_SIZE, dtype=np.float32), np.zeros((2, ACTION_SIZE)), hints).shape == (2,)
    with pytest.raises(ValueError, match="hints"):
        net.scores(np.zeros(STATE_SIZE, dtype=np.float32), np.zeros((2, ACTION_SIZE)))


def test_train_command_without_out_only_saves_the_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No torch needed: the compiled build (which has none) makes the data, and .venv fits it (make train-search)."""
    data = tmp_path / "d.npz"
    assert cli_main(["train", "--hands", "2", "--label-rate", "0.5", "--save-data", str(data)]) == 0
    assert f"fit it with --data {data}" in capsys.readouterr().out
    saved = load_batch(data)
    assert saved.hands == 2 and saved.hints is not None and len(saved.rewards) > 10


@pytest.mark.parametrize(
    "extra", [[], ["--save-data", "d.npz", "--rounds", "2"], ["--save-data", "d.npz", "--data", "e.npz"]]
)
def test_train_command_without_out_refuses_what_it_cannot_do(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli_main(["train", "--hands", "1", *extra])
    assert "without --out (no fit)" in capsys.readouterr().err


def test_train_command_refuses_no_sampled_deals(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main(["train", "--teacher", "search", "--samples", "0", "--out", "x.npz"])
    assert "--samples is at least 1" in capsys.readouterr().err
