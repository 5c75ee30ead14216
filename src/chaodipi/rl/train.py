"""Training the learned bot (``chaodipi train``): self-play data labelled by play-outs, then a network fitted to them.

The network scores a (state, action) pair by the reward its side can expect after that action (a Q-function,
as DouZero's Deep Monte Carlo learns one for Dou Dizhu). Its labels are Monte Carlo returns, made cheaper to learn
from by comparing actions on the same deal:

- Four players play self-play hands: the rules bot (or, with ``--start`` and in later rounds, the network of the
  round before), each play replaced with probability ``epsilon`` by a uniformly random listed action so that the
  hands also reach positions the rules bot would not.
- At a play chosen with probability ``label_rate``, the rules bot's best ``top`` candidates and ``extra`` other
  listed actions are each played out to the end of the hand, in the true deal, by the rules policy
  (:func:`chaodipi.bots.search_bot.rollout`), and each (state, action, utility) is recorded: the utility is the
  seat's (±1 for the hand won or lost, plus the point margin ÷ 100). The true deal is read only to label; the
  state is the seat's view alone, so the network learns what an action is worth given what the seat knows.
  Several actions labelled on one deal share its luck, so their differences are learned with far less noise
  than one return per play (plain DMC here learned the deals, not the plays: docs/bots.md).
- The network is fitted by mean squared error, with the weights of the epoch with the lowest held-out loss kept.

Hands are dealt as the arena deals them (level 2, deal ``i``'s dealer is seat ``i`` mod 4) from the seed; the
batches of hands run in ``jobs`` processes, or on a Ray cluster (``ray``: :func:`chaodipi.cluster.run_batches`),
with the same data either way. Needs the ``learn`` extra (torch; Ray only with ``--ray``).
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from chaodipi.bots.knowledge import Knowledge
from chaodipi.bots.rules_bot import RulesBot, ranked_plays
from chaodipi.bots.search_bot import rollout
from chaodipi.cards import Card, shuffled_deck
from chaodipi.driver import run_hand
from chaodipi.hand import Action, Hand, Phase, View
from chaodipi.rl.choices import Choice, choices
from chaodipi.rl.encode import ACTION_SIZE, STATE_SIZE, encode_actions, encode_state
from chaodipi.rl.learned import QNet
from chaodipi.rules import RuleSet

__all__ = ["Batch", "GenTask", "generate", "main", "train_net"]


@dataclass(frozen=True)
class GenTask:
    """One batch of self-play hands: deals ``first`` … ``first + hands - 1`` of ``seed``; ``weights``: the players'
    network as ``.npz`` bytes (None: the rules bot); ``epsilon``, ``label_rate``, ``top``, ``extra``: see the
    module docstring."""

    preset: str
    seed: int
    first: int
    hands: int
    epsilon: float = 0.1
    weights: bytes | None = None
    label_rate: float = 0.25
    top: int = 3
    extra: int = 2


@dataclass
class Batch:
    """Self-play records: states (n × STATE_SIZE), action rows (n × ACTION_SIZE), rewards (n), and hands won."""

    states: npt.NDArray[np.float16]
    actions: npt.NDArray[np.int8]
    rewards: npt.NDArray[np.float32]
    hands: int


def _key(cards: Sequence[Card]) -> tuple[int, ...]:
    return tuple(sorted(c.index for c in cards))


class _Players:
    """The four players of one self-play hand: they decide from views; at some plays they label candidates."""

    def __init__(self, task: GenTask, deal: int, net: QNet | None) -> None:
        self.task = task
        self.net = net
        self.rng = random.Random(f"train:{task.seed}:{deal}")
        self.bots = [RulesBot(task.seed * 1000 + deal * 4 + s) for s in range(4)]
        self.states: list[npt.NDArray[np.float32]] = []
        self.rows: list[npt.NDArray[np.int8]] = []
        self.rewards: list[float] = []

    def decide(self, hand: Hand, seat: int) -> Action | None:
        """The seat's action: the rules bot's outside the plays; a play by the players' policy."""
        view = hand.view(seat)
        if view.phase != Phase.PLAY or view.legal.show_red5 or view.to_act != seat:
            return self.bots[seat].act(view)
        know = Knowledge.from_view(view)
        listed = choices(view, know=know)
        if len(listed) > 1 and self.rng.random() < self.task.label_rate:
            self._label(hand, view, know, listed)
        if self.rng.random() < self.task.epsilon:
            choice = listed[self.rng.randrange(len(listed))]
        elif self.net is not None and len(listed) > 1:
            choice = listed[int(np.argmax(self.net.scores(encode_state(view, know=know), encode_actions(listed))))]
        else:
            act = self.bots[seat].act(view)
            assert act is not None
            return act
        act = choice.action(seat)
        assert act is not None
        return act

    def _label(self, hand: Hand, view: View, know: Knowledge, listed: list[Choice]) -> None:
        """Play each candidate out in the true deal with the rules policy and record its utility for the seat:
        the rules bot's best ``top`` plays and ``extra`` other listed ones, all on the same deal."""
        assert view.dealer is not None
        pool = [c for c, n in know.unseen.items() for _ in range(n)]
        ranked = ranked_plays(
            view.hand, view.seat, know.trump_order, view.rules, view.dealer, view.current_trick, pool, know.voids
        )
        by_key = {_key(c.cards): c for c in listed}
        picked = [by_key[k] for k in (_key(p) for _, p in ranked) if k in by_key][: self.task.top]
        others = [c for c in listed if c not in picked]
        picked += self.rng.sample(others, min(self.task.extra, len(others)))
        state = encode_state(view, know=know)
        hands = [list(h) for h in hand.hands]
        for choice in picked:
            self.states.append(state)
            self.rows.append(encode_actions([choice])[0])
            self.rewards.append(rollout(view, hand.trump_order, hands, hand.kitty, choice.cards))


def generate(task: GenTask) -> Batch:
    """Play the task's hands and return their labelled records (module-level: it runs in other processes)."""
    rules = RuleSet.preset(task.preset)
    net = QNet.load(io.BytesIO(task.weights)) if task.weights is not None else None
    states: list[npt.NDArray[np.float32]] = []
    rows: list[npt.NDArray[np.int8]] = []
    rewards: list[float] = []
    for deal in range(task.first, task.first + task.hands):
        players = _Players(task, deal, net)
        deck = shuffled_deck(random.Random(f"{task.seed}:{deal}"))
        run_hand(Hand(rules, deck, first_seat=deal % 4, dealer=deal % 4), [players.decide] * 4)
        states.extend(players.states)
        rows.extend(players.rows)
        rewards.extend(players.rewards)
    return Batch(
        np.asarray(states, dtype=np.float16).reshape(-1, STATE_SIZE),
        np.asarray(rows, dtype=np.int8).reshape(-1, ACTION_SIZE),
        np.asarray(rewards, dtype=np.float32),
        task.hands,
    )


def _merge(batches: Sequence[Batch]) -> Batch:
    return Batch(
        np.concatenate([b.states for b in batches]),
        np.concatenate([b.actions for b in batches]),
        np.concatenate([b.rewards for b in batches]),
        sum(b.hands for b in batches),
    )


def self_play(
    preset: str,
    seed: int,
    hands: int,
    *,
    epsilon: float,
    weights: bytes | None,
    label_rate: float = 0.25,
    jobs: int = 1,
    ray: str | None = None,
    batch: int = 50,
    first: int = 0,
) -> Batch:
    """``hands`` self-play hands in batches of ``batch``, over ``jobs`` processes or a Ray cluster."""
    from chaodipi.cluster import run_batches

    tasks = [
        GenTask(preset, seed, start, min(batch, first + hands - start), epsilon, weights, label_rate)
        for start in range(first, first + hands, batch)
    ]
    return _merge(run_batches(generate, tasks, jobs=jobs, ray=ray))


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SystemExit("training needs torch: pip install 'chaodipi[learn]' (see docs/bots.md)") from None
    return torch


def train_net(
    data: Batch,
    *,
    hidden: Sequence[int] = (256, 128),
    epochs: int = 4,
    batch_size: int = 1024,
    lr: float = 1e-3,
    weight_decay: float = 1e-4,
    seed: int = 0,
    log: Any = print,
) -> tuple[bytes, dict[str, float]]:
    """Fit the network to ``data``'s rewards (mean squared error); returns its ``.npz`` bytes and the kept
    epoch's training and held-out losses.

    The last 5% of the records (the last hands: records of one hand share its deal) are held out, and the
    weights kept are those of the epoch with the lowest held-out loss (early stopping): one hand's plays all
    carry its reward, so the network can learn the deals by heart instead of the plays.
    """
    torch = _torch()
    torch.manual_seed(seed)
    n = len(data.rewards)
    held = max(1, n // 20)
    x_state = torch.from_numpy(data.states)  # (float16: converted a batch at a time, to keep memory down)
    x_action = torch.from_numpy(data.actions)
    y = torch.from_numpy(data.rewards)

    def inputs(rows: Any) -> Any:
        return torch.cat([x_state[rows].float(), x_action[rows].float()], dim=1)

    sizes = [STATE_SIZE + ACTION_SIZE, *hidden, 1]
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    gen = torch.Generator().manual_seed(seed)
    train_n = n - held
    stats: dict[str, float] = {}
    best: tuple[float, dict[str, Any]] | None = None
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(train_n, generator=gen)
        total = 0.0
        for start in range(0, train_n, batch_size):
            idx = order[start : start + batch_size]
            pred = model(inputs(idx)).squeeze(1)
            loss = torch.nn.functional.mse_loss(pred, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        model.eval()
        with torch.no_grad():
            pred = model(inputs(slice(train_n, n))).squeeze(1)
            held_loss = float(torch.nn.functional.mse_loss(pred, y[train_n:]))
            base = float(((y[train_n:] - y[:train_n].mean()) ** 2).mean())
        log(
            f"  epoch {epoch + 1}/{epochs}: train {total / train_n:.4f}, held out {held_loss:.4f}"
            f" (predicting the mean: {base:.4f})"
        )
        if best is None or held_loss < best[0]:
            snapshot = {k: v.detach().clone() for k, v in model.state_dict().items()}
            best = (held_loss, snapshot)
            stats = {"train_loss": total / train_n, "held_loss": held_loss, "held_baseline": base, "epoch": epoch + 1}
    assert best is not None
    model.load_state_dict(best[1])
    arrays: dict[str, Any] = {}
    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    for i, m in enumerate(linear):
        arrays[f"w{i}"] = m.weight.detach().numpy().T.astype(np.float16)
        arrays[f"b{i}"] = m.bias.detach().numpy().astype(np.float16)
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    return out.getvalue(), stats


def main(argv: Sequence[str] | None = None) -> int:
    """``chaodipi train``: self-play rounds and fitting, then the weights written to ``--out``."""
    p = argparse.ArgumentParser(prog="chaodipi train", description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="standard")
    p.add_argument("--hands", type=int, default=20000, help="self-play hands per round (20000)")
    p.add_argument("--rounds", type=int, default=1, help="rounds of self-play and fitting (1)")
    p.add_argument("--keep", type=int, default=2, help="rounds of data each fit uses (2)")
    p.add_argument("--epsilon", type=float, default=0.1, help="exploration: chance of a random play (0.1)")
    p.add_argument("--label-rate", type=float, default=0.25, help="chance that a play's candidates are labelled (0.25)")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--hidden", default="256,128", help="hidden layer sizes (256,128)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="processes for self-play (1)")
    p.add_argument("--ray", metavar="ADDRESS", help="self-play on a Ray cluster (an address, or 'local')")
    p.add_argument("--start", type=Path, help="weights to start from: round 1's players play with them")
    p.add_argument("--out", type=Path, required=True, help="where to write the weights (.npz)")
    args = p.parse_args(argv)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    weights = args.start.read_bytes() if args.start else None
    kept: list[Batch] = []
    began = time.perf_counter()
    for r in range(args.rounds):
        t = time.perf_counter()
        data = self_play(
            args.preset,
            args.seed + 7919 * r,
            args.hands,
            epsilon=args.epsilon,
            weights=weights,
            label_rate=args.label_rate,
            jobs=args.jobs,
            ray=args.ray,
        )
        kept = [*kept, data][-args.keep :]
        players = "the rules bot" if weights is None else "the network"
        print(
            f"round {r + 1}: {data.hands} hands by {players}, {len(data.rewards)} actions labelled"
            f" in {time.perf_counter() - t:.0f} s",
            flush=True,
        )
        t = time.perf_counter()
        weights, _ = train_net(_merge(kept), hidden=hidden, epochs=args.epochs, seed=args.seed + r)
        print(f"round {r + 1}: fitted in {time.perf_counter() - t:.0f} s", flush=True)
        args.out.write_bytes(weights)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) after {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
