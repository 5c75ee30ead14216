"""Training the learned bot (``chaodipi train``): self-play data labelled by play-outs, then a network fitted to them.

The network scores a (state, action) pair by the reward its side can expect after that action (a Q-function,
as DouZero's Deep Monte Carlo learns one for Dou Dizhu). Its labels are Monte Carlo returns, made cheaper to learn
from by comparing actions on the same deal:

- Four players play self-play hands: the rules bot (or, with ``--start`` and in later rounds, the network of the
  round before), each play replaced with probability ``epsilon`` by a uniformly random listed action so that the
  hands also reach positions the rules bot would not.
- At a play chosen with probability ``label_rate``, the rules bot's best ``top`` candidates and ``extra`` other
  listed actions are each played out to the end of the hand, in the true deal, by the rules policy
  (:func:`chaodipi.bots.search_bot.rollout`), and each (state, action, the rules bot's hints on it, utility) is
  recorded (``chaodipi train`` labels every play, the best three, no others: ``--label-rate 1 --top 3 --extra
  0``): the utility is the
  seat's (±1 for the hand won or lost, plus the point margin ÷ 100). The true deal is read only to label; the
  state is the seat's view alone, so the network learns what an action is worth given what the seat knows.
  Several actions labelled on one deal share its luck, so their differences are learned with far less noise
  than one return per play (plain DMC here learned the deals, not the plays: docs/bots.md).
- With ``teacher="search"`` (``--teacher search``) the labels come from the search bot instead: at every play with
  a choice, the rules bot's best ``top`` plays are weighed over ``samples`` deals sampled from the seat's view
  (:meth:`chaodipi.bots.search_bot.SearchBot.weigh_plays`), and the seat plays the search bot's choice.
- The network's scores of each decision's candidates are fitted (:func:`train_net`): each less the rules bot's
  best's, to the labels' differences (``loss="advantage"``, mean squared error; ``chaodipi train``'s default), or
  as a softmax over them, by cross-entropy to :func:`targets` (``loss="choice"``: the candidates with the best
  label, and with ``imitate`` the rules bot's choice), with the weights of the epoch with the lowest held-out
  loss kept.

Hands are dealt as the arena deals them (level 2, deal ``i``'s dealer is seat ``i`` mod 4) from the seed; the
batches of hands run in ``jobs`` processes, or on a Ray cluster (``ray``: :func:`chaodipi.cluster.run_batches`),
with the same data either way. Fitting needs the ``learn`` extra (torch; Ray only with ``--ray``); making the data
(``chaodipi train`` without ``--out``) does not, so the compiled build can make it (``make train``).
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
from chaodipi.bots.rules_bot import RulesBot
from chaodipi.bots.search_bot import SearchBot, best_weighed, rollout
from chaodipi.cards import shuffled_deck
from chaodipi.driver import run_hand
from chaodipi.hand import Action, Hand, Phase, View
from chaodipi.rl.choices import Choice, choices, ranked_choices
from chaodipi.rl.encode import ACTION_SIZE, HINT_SIZE, STATE_SIZE, encode_actions, encode_hints, encode_state
from chaodipi.rl.learned import QNet, candidates
from chaodipi.rules import RuleSet

__all__ = [
    "LOSSES",
    "TEACHERS",
    "Batch",
    "GenTask",
    "decisions",
    "generate",
    "load_batch",
    "main",
    "save_batch",
    "targets",
    "train_net",
]


@dataclass(frozen=True)
class GenTask:
    """One batch of self-play hands: deals ``first`` … ``first + hands - 1`` of ``seed``; ``weights``: the players'
    network as ``.npz`` bytes (None: the rules bot); ``epsilon``, ``label_rate``, ``top``, ``extra``: see the
    module docstring. ``teacher="search"``: every play is labelled by the search bot instead, with ``samples``
    sampled deals (:class:`_Players`)."""

    preset: str
    seed: int
    first: int
    hands: int
    epsilon: float = 0.1
    weights: bytes | None = None
    label_rate: float = 0.25
    top: int = 3
    extra: int = 2
    teacher: str = "playout"
    samples: int = 40


@dataclass
class Batch:
    """Self-play records: states (n × STATE_SIZE), action rows (n × ACTION_SIZE), rewards (n), the hands played,
    and the rules bot's hints on each action (n × HINT_SIZE; None in records saved before there were hints)."""

    states: npt.NDArray[np.float16]
    actions: npt.NDArray[np.int8]
    rewards: npt.NDArray[np.float32]
    hands: int
    hints: npt.NDArray[np.float16] | None = None


#: how self-play plays are labelled: by play-outs in the true deal, or by the search bot
TEACHERS = ("playout", "search")

#: the search teacher's time limit per decision: far above what ``samples`` deals take, so that its labels depend
#: on the seed alone, not on the machine's speed
_TEACHER_BUDGET = 60.0


class _Players:
    """The four players of one self-play hand: they decide from views; at some plays they label candidates.

    With the search teacher, every play with a choice (but in the last trick) is labelled by the search bot's
    weighing (:meth:`~chaodipi.bots.search_bot.SearchBot.weigh_plays`) of the rules bot's best ``top`` plays over
    ``samples`` deals sampled from the seat's view (no true deal: the labels are the averages the search bot
    decides by, not one deal's luck), and the seat plays the search bot's choice.
    """

    def __init__(self, task: GenTask, deal: int, net: QNet | None) -> None:
        self.task = task
        self.net = net
        self.rng = random.Random(f"train:{task.seed}:{deal}")
        seeds = [task.seed * 1000 + deal * 4 + s for s in range(4)]
        self.bots = [RulesBot(seed) for seed in seeds]
        self.teachers = (
            [SearchBot(seed, budget=_TEACHER_BUDGET, samples=task.samples) for seed in seeds]
            if task.teacher == "search"
            else None
        )
        self.states: list[npt.NDArray[np.float32]] = []
        self.rows: list[npt.NDArray[np.int8]] = []
        self.hints: list[npt.NDArray[np.float32]] = []
        self.rewards: list[float] = []

    def decide(self, hand: Hand, seat: int) -> Action | None:
        """The seat's action: the rules bot's outside the plays; a play by the players' policy."""
        view = hand.view(seat)
        if view.phase != Phase.PLAY or view.legal.show_red5 or view.to_act != seat:
            return self.bots[seat].act(view)
        know = Knowledge.from_view(view)
        listed = choices(view, know=know)
        taught: Choice | None = None
        if self.teachers is not None:
            if len(listed) > 1:
                taught = self._teach(self.teachers[seat], view, know, listed)
        elif len(listed) > 1 and self.rng.random() < self.task.label_rate:
            self._label(hand, view, know, listed)
        if self.rng.random() < self.task.epsilon:
            choice = listed[self.rng.randrange(len(listed))]
        elif taught is not None:
            choice = taught
        elif self.net is not None and len(listed) > 1:
            state = encode_state(view, know=know)
            scores = self.net.scores(state, encode_actions(listed), candidates(view, know, listed, None)[1])
            choice = listed[int(np.argmax(scores))]
        else:
            act = self.bots[seat].act(view)
            assert act is not None
            return act
        act = choice.action(seat)
        assert act is not None
        return act

    def _teach(self, teacher: SearchBot, view: View, know: Knowledge, listed: list[Choice]) -> Choice | None:
        """Record the search bot's mean utility for each of the rules bot's best ``top`` plays; its choice."""
        ranked = ranked_choices(view, listed, know, self.task.top)
        picked = [c for _, c in ranked]
        if len(picked) < 2:
            return picked[0] if picked else None
        means, active = teacher.weigh_plays(view, know, [c.cards for c in picked])
        if not active:
            return None
        self._record(view, know, picked, ranked, means)
        return picked[best_weighed(means, active)]

    def _record(
        self, view: View, know: Knowledge, picked: list[Choice], ranked: list[tuple[float, Choice]], labels: list[float]
    ) -> None:
        """Record one decision: each candidate's (state, action row, hints, label), consecutive."""
        state = encode_state(view, know=know)
        self.states.extend([state] * len(picked))
        self.rows.extend(encode_actions(picked))
        self.hints.extend(encode_hints(picked, ranked, view, know))
        self.rewards.extend(labels)

    def _label(self, hand: Hand, view: View, know: Knowledge, listed: list[Choice]) -> None:
        """Play each candidate out in the true deal with the rules policy and record its utility for the seat:
        the rules bot's best ``top`` plays and ``extra`` other listed ones, all on the same deal."""
        ranked = ranked_choices(view, listed, know, self.task.top)
        picked = [c for _, c in ranked]
        others = [c for c in listed if c not in picked]
        picked += self.rng.sample(others, min(self.task.extra, len(others)))
        hands = [list(h) for h in hand.hands]
        utilities = [rollout(view, hand.trump_order, hands, hand.kitty, c.cards) for c in picked]
        self._record(view, know, picked, ranked, utilities)


def generate(task: GenTask) -> Batch:
    """Play the task's hands and return their labelled records (module-level: it runs in other processes)."""
    rules = RuleSet.preset(task.preset)
    net = QNet.load(io.BytesIO(task.weights)) if task.weights is not None else None
    states: list[npt.NDArray[np.float32]] = []
    rows: list[npt.NDArray[np.int8]] = []
    hints: list[npt.NDArray[np.float32]] = []
    rewards: list[float] = []
    for deal in range(task.first, task.first + task.hands):
        players = _Players(task, deal, net)
        deck = shuffled_deck(random.Random(f"{task.seed}:{deal}"))
        run_hand(Hand(rules, deck, first_seat=deal % 4, dealer=deal % 4), [players.decide] * 4)
        states.extend(players.states)
        rows.extend(players.rows)
        hints.extend(players.hints)
        rewards.extend(players.rewards)
    return Batch(
        np.asarray(states, dtype=np.float16).reshape(-1, STATE_SIZE),
        np.asarray(rows, dtype=np.int8).reshape(-1, ACTION_SIZE),
        np.asarray(rewards, dtype=np.float32),
        task.hands,
        np.asarray(hints, dtype=np.float16).reshape(-1, HINT_SIZE),
    )


def _merge(batches: Sequence[Batch]) -> Batch:
    """One batch of several (hints kept only when every batch has them); one batch is given back as it is."""
    if len(batches) == 1:
        return batches[0]
    hints = [b.hints for b in batches]
    return Batch(
        np.concatenate([b.states for b in batches]),
        np.concatenate([b.actions for b in batches]),
        np.concatenate([b.rewards for b in batches]),
        sum(b.hands for b in batches),
        None if any(h is None for h in hints) else np.concatenate([h for h in hints if h is not None]),
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
    teacher: str = "playout",
    samples: int = 40,
    top: int = 3,
    extra: int = 2,
) -> Batch:
    """``hands`` self-play hands in batches of ``batch``, over ``jobs`` processes or a Ray cluster."""
    from chaodipi.cluster import run_batches

    if teacher not in TEACHERS:
        raise ValueError(f"the teacher is one of {', '.join(TEACHERS)}, not {teacher!r}")
    tasks = [
        GenTask(
            preset,
            seed,
            start,
            min(batch, first + hands - start),
            epsilon,
            weights,
            label_rate,
            top,
            extra,
            teacher=teacher,
            samples=samples,
        )
        for start in range(first, first + hands, batch)
    ]
    return _merge(run_batches(generate, tasks, jobs=jobs, ray=ray))


def save_batch(data: Batch, path: Path) -> None:
    """Write self-play records (``chaodipi train --save-data``)."""
    arrays: dict[str, Any] = {"states": data.states, "actions": data.actions, "rewards": data.rewards}
    if data.hints is not None:
        arrays["hints"] = data.hints
    np.savez(path, hands=data.hands, **arrays)


def load_batch(path: Path) -> Batch:
    """Read records :func:`save_batch` wrote."""
    with np.load(path) as d:
        return Batch(d["states"], d["actions"], d["rewards"], int(d["hands"]), d.get("hints"))


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SystemExit("training needs torch: pip install 'chaodipi[learn]' (see docs/bots.md)") from None
    return torch


def decisions(states: npt.NDArray[np.float16]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The records grouped by decision: the candidates of one decision are consecutive and share its state (the
    first is the rules bot's best). Returns each decision's record numbers (rows padded with 0) and their mask."""
    new = np.ones(len(states), dtype=bool)
    for at in range(1, len(states), 1 << 18):  # (in chunks: a comparison of millions of whole rows is gigabytes)
        end = min(len(states), at + (1 << 18))
        new[at:end] = np.any(states[at:end] != states[at - 1 : end - 1], axis=1)
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, len(states)))
    width = int(sizes.max()) if len(sizes) else 1
    rows = np.zeros((len(starts), width), dtype=np.int64)
    mask = np.zeros((len(starts), width), dtype=bool)
    for k in range(width):
        has = sizes > k
        rows[has, k] = starts[has] + k
        mask[has, k] = True
    return rows, mask


def targets(utilities: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_], imitate: float) -> npt.NDArray[np.float32]:
    """What each decision's candidates should be chosen with: ``imitate`` on the rules bot's best (the first), the
    rest shared by the candidates with the best label (play-out on the true deal, or the search teacher's mean)."""
    u = np.where(mask, utilities, -np.inf)
    best = (u >= u.max(axis=1, keepdims=True) - 1e-6) & mask
    out: npt.NDArray[np.float32] = (best / best.sum(axis=1, keepdims=True) * (1.0 - imitate)).astype(np.float32)
    out[:, 0] += imitate
    return out


#: how the network is fitted (:func:`train_net`): towards the best candidates, or to the labels' differences
LOSSES = ("choice", "advantage")


def train_net(
    data: Batch,
    *,
    hidden: Sequence[int] = (256, 128),
    epochs: int = 3,
    imitate: float = 0.5,
    loss: str = "choice",
    batch_size: int = 512,
    lr: float = 1e-3,
    weight_decay: float = 1e-4,
    seed: int = 0,
    threads: int | None = None,
    log: Any = print,
) -> tuple[bytes, dict[str, float]]:
    """Fit the network's scores of each decision's candidates; returns its ``.npz`` bytes and the kept epoch's
    figures.

    - ``loss="choice"``: the scores, as a softmax over the candidates, are fitted to :func:`targets`
      (cross-entropy).
    - ``loss="advantage"``: each candidate's score less the rules bot's best's (the decision's first) is fitted
      to its label less that one's (mean squared error). A decision's candidates share its deal, so the
      difference keeps what the play changed and drops the deal's luck; its expected value given the view is
      what the play gains over the rules bot's, which the network then picks the best of.

    The last 5% of the decisions (the last hands) are held out, and the weights kept are those of the epoch with
    the lowest held-out loss (early stopping). ``agree`` is how often the network's best candidate is the one
    with the best label; ``gain`` the mean of its label less the rules bot's best's, on the held-out decisions.

    Why not fit the rewards themselves (mean squared error, as DMC does)? Tried first, with the same data: one
    hand's records all carry its luck, the network learned the deals by heart (held-out loss rising from the
    second epoch) and its best-scored plays lost to the rules bot 5 hands in 6 (docs/bots.md).
    """
    if loss not in LOSSES:
        raise ValueError(f"the loss is one of {', '.join(LOSSES)}, not {loss!r}")
    torch = _torch()
    torch.manual_seed(seed)
    if threads is not None:
        torch.set_num_threads(threads)
    rows_np, mask_np = decisions(data.states)
    goal_np = targets(data.rewards[rows_np], mask_np, imitate)
    n = len(rows_np)
    held = max(1, n // 20)
    train_n = n - held
    states = torch.from_numpy(data.states)  # (float16: converted a batch at a time, to keep memory down)
    actions = torch.from_numpy(data.actions)
    hints = None if data.hints is None else torch.from_numpy(data.hints)
    rows, mask, goal = torch.from_numpy(rows_np), torch.from_numpy(mask_np), torch.from_numpy(goal_np)
    labels = torch.from_numpy(np.where(mask_np, data.rewards[rows_np], 0.0).astype(np.float32))
    width = rows.shape[1]
    sizes = [STATE_SIZE + ACTION_SIZE + (0 if hints is None else HINT_SIZE), *hidden, 1]
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    gen = torch.Generator().manual_seed(seed)

    def loss_of(group: Any) -> tuple[Any, Any, Any]:
        """The loss on the decisions ``group``; how many of them the network agrees on, and its summed gain."""
        flat = rows[group].reshape(-1)
        parts = [states[flat].float(), actions[flat].float()]
        if hints is not None:
            parts.append(hints[flat].float())
        x = torch.cat(parts, dim=1)
        on = mask[group]
        scores = model(x).reshape(len(group), width)
        label = labels[group]
        if loss == "advantage":
            miss = (scores - scores[:, :1]) - (label - label[:, :1])
            value = (miss.pow(2) * on).sum(dim=1).mean()
        else:
            value = -(goal[group] * torch.log_softmax(scores.masked_fill(~on, -1e9), dim=1)).sum(dim=1).mean()
        pick = scores.masked_fill(~on, -1e9).argmax(dim=1)
        agree = (pick == label.masked_fill(~on, -1e9).argmax(dim=1)).float().sum()
        gain = (label.gather(1, pick[:, None])[:, 0] - label[:, 0]).sum()
        return value, agree, gain

    stats: dict[str, float] = {}
    best: tuple[float, dict[str, Any]] | None = None
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(train_n, generator=gen)
        total = 0.0
        for start in range(0, train_n, batch_size):
            group = order[start : start + batch_size]
            value, _, _ = loss_of(group)
            opt.zero_grad()
            value.backward()
            opt.step()
            total += float(value.detach()) * len(group)
        model.eval()
        held_loss = agree = gain = 0.0
        with torch.no_grad():
            for start in range(train_n, n, 8192):  # (in chunks: the held-out part of millions of records is large)
                group = torch.arange(start, min(n, start + 8192))
                v, a, g = loss_of(group)
                held_loss += float(v) * len(group)
                agree += float(a)
                gain += float(g)
        held_loss, agree, gain = held_loss / held, agree / held, gain / held
        log(
            f"  epoch {epoch + 1}/{epochs}: train {total / train_n:.4f}, held out {held_loss:.4f},"
            f" agree {agree:.3f}, gain {gain:+.4f}"
        )
        if best is None or held_loss < best[0]:
            best = (held_loss, {k: v.detach().clone() for k, v in model.state_dict().items()})
            stats = {
                "train_loss": total / train_n,
                "held_loss": held_loss,
                "agree": agree,
                "gain": gain,
                "epoch": epoch + 1,
            }
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
    p.add_argument("--label-rate", type=float, default=1.0, help="chance that a play's candidates are labelled (1)")
    p.add_argument("--top", type=int, default=3, help="the rules bot's best plays labelled at a decision (3)")
    p.add_argument("--extra", type=int, default=0, help="other listed plays labelled with them, at random (0)")
    p.add_argument(
        "--loss",
        choices=LOSSES,
        default="advantage",
        help="fit the labels' differences from the rules bot's best (advantage), or choose the best-labelled"
        " (choice, cross-entropy) (advantage)",
    )
    p.add_argument("--epochs", type=int, default=4, help="passes over the data; the best held-out one is kept (4)")
    p.add_argument(
        "--teacher",
        choices=TEACHERS,
        default="playout",
        help="labels: play-outs in the true deal (playout), or the search bot's weighing of every play (search, about"
        " 20 times slower with 16 sampled deals) (playout)",
    )
    p.add_argument("--samples", type=int, default=40, help="the search teacher's sampled deals per play (40)")
    p.add_argument(
        "--imitate",
        type=float,
        help="with --loss choice, the rules bot's best play's share of the targets (0.5 with play-outs, 0 with the"
        " search teacher)",
    )
    p.add_argument("--hidden", default="256,128", help="hidden layer sizes (256,128)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--threads",
        type=int,
        help="torch's threads for the fit (torch's default: one per core; 1 is far faster when other work keeps"
        " the cores busy)",
    )
    p.add_argument("--jobs", type=int, default=1, help="processes for self-play (1)")
    p.add_argument("--ray", metavar="ADDRESS", help="self-play on a Ray cluster (an address, or 'local')")
    p.add_argument("--start", type=Path, help="weights to start from: round 1's players play with them")
    p.add_argument(
        "--out",
        type=Path,
        help="where to write the weights (.npz); without it, one round of self-play is only saved (--save-data),"
        " not fitted: torch is not needed, so a build without it (make fast) can make the data",
    )
    p.add_argument("--save-data", type=Path, help="write each round's self-play records to this .npz (round r: .r.npz)")
    p.add_argument("--data", type=Path, help="round 1 fits these saved records (--save-data) instead of playing")
    args = p.parse_args(argv)
    if args.samples < 1:
        p.error("--samples is at least 1")
    if args.top < 1 or args.extra < 0:
        p.error("--top is at least 1 and --extra at least 0")
    if args.threads is not None and args.threads < 1:
        p.error("--threads is at least 1")
    if args.out is None and (args.save_data is None or args.rounds != 1 or args.data is not None):
        p.error("without --out (no fit), give --save-data, one round and no --data: the self-play data is all it makes")
    imitate = args.imitate if args.imitate is not None else (0.0 if args.teacher == "search" else 0.5)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    weights = args.start.read_bytes() if args.start else None
    kept: list[Batch] = []
    began = time.perf_counter()
    for r in range(args.rounds):
        t = time.perf_counter()
        if r == 0 and args.data is not None:
            data = load_batch(args.data)
        else:
            data = self_play(
                args.preset,
                args.seed + 7919 * r,
                args.hands,
                epsilon=args.epsilon,
                weights=weights,
                label_rate=args.label_rate,
                jobs=args.jobs,
                ray=args.ray,
                teacher=args.teacher,
                samples=args.samples,
                top=args.top,
                extra=args.extra,
            )
        if args.save_data is not None:
            save_batch(data, args.save_data if r == 0 else args.save_data.with_suffix(f".{r + 1}.npz"))
        kept = [*kept, data][-args.keep :]
        players = (
            "the search bot" if args.teacher == "search" else "the rules bot" if weights is None else "the network"
        )
        print(
            f"round {r + 1}: {data.hands} hands by {players}, {len(data.rewards)} actions labelled"
            f" in {time.perf_counter() - t:.0f} s",
            flush=True,
        )
        if args.out is None:
            print(f"wrote the self-play data to {args.save_data}; fit it with --data {args.save_data} --out FILE")
            return 0
        t = time.perf_counter()
        weights, _ = train_net(
            _merge(kept),
            hidden=hidden,
            epochs=args.epochs,
            imitate=imitate,
            loss=args.loss,
            seed=args.seed + r,
            threads=args.threads,
        )
        print(f"round {r + 1}: fitted in {time.perf_counter() - t:.0f} s", flush=True)
        args.out.write_bytes(weights)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) after {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
