"""The ``chaodipi`` command: ``referee``, ``demo`` and friends."""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from chaodipi.cards import SUITS, Rank, Suit, format_cards, shuffled_deck
from chaodipi.play import check_throw
from chaodipi.record import RecordError, describe_game, game_record, load_record, replay
from chaodipi.referee import run_lines
from chaodipi.rules import PRESET_NAMES, RuleError, RuleSet
from chaodipi.simulate import simulate_game
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder, suit_words, trump_words
from chaodipi.units import UnitKind, decompose

SEATS = ("南 South", "东 East", "北 North", "西 West")


def _cmd_referee(args: argparse.Namespace) -> int:
    from chaodipi.referee import read_lines

    # Line by line: each answer is written and flushed before the next line is read, so a client
    # can converse; a bad line (too long, not UTF-8, not JSON) gets an error answer and the rest go
    # on. Answers are UTF-8 whatever the locale.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8", newline="\n")
    stdin = getattr(sys.stdin, "buffer", None)  # a text stream put in place of stdin has none
    return run_lines(sys.stdin if stdin is None else read_lines(stdin), sys.stdout)


def _cmd_demo(args: argparse.Namespace) -> int:
    rules = RuleSet.preset(args.preset)
    rng = random.Random(args.seed)
    level = Rank.parse(args.level) if args.level else Rank(rng.randint(2, 14))
    trump: Suit | None
    if args.trump:
        trump = None if args.trump == "nt" else Suit(args.trump)
    else:
        trump = rng.choice([*SUITS, None])
    trump_order = TrumpOrder.of(rules, level, trump)
    cards = shuffled_deck(rng)
    hands = [cards[i:100:4] for i in range(4)]
    kitty = cards[100:]
    print(f"炒地皮 demo — preset {rules.name}, seed {args.seed}")
    print(f"level 级牌 {level.symbol}, trump 主 {trump_words(trump)}")
    print(f"trump order 主牌顺序: {trump_order.order_text()}")
    print(f"kitty 底牌: {format_cards(trump_order.sorted(kitty))}")
    for seat, hand in enumerate(hands):
        print()
        print(f"{SEATS[seat]}: {len(hand)} cards")
        others = [hands[(seat + k) % 4] for k in (1, 2, 3)]
        for suit in EFFECTIVE_SUITS:
            part = trump_order.sorted(trump_order.cards_of_suit(hand, suit))
            if not part:
                continue
            fmt = decompose(part, trump_order, lead=True)
            kinds = {k: sum(1 for u in fmt.units if u.kind == k) for k in UnitKind}
            summary = ", ".join(f"{n} {k.value}" for k, n in kinds.items() if n)
            stands = check_throw(part, others, trump_order)
            verdict = (
                "the whole suit can be thrown"
                if stands.ok and fmt.is_throw
                else (f"top units: {sum(1 for u in fmt.units if u not in stands.failed)}/{len(fmt.units)}")
            )
            print(f"  {suit_words(suit):16} {format_cards(part):60} {summary}; {verdict}")
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    rules = RuleSet.preset(args.preset)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(args.games):
        seed = args.seed + i
        game = simulate_game(rules, seed)
        path = out / f"{rules.name}-seed{seed}.json"
        path.write_text(json.dumps(game_record(game), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{path}: {len(game.hands)} hands, team {game.winner} wins")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from chaodipi.record import unfinished_at

    status = 0
    for name in args.files:
        try:
            game = replay(load_record(name), allow_unfinished=args.allow_unfinished)
        except RecordError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            status = 1
            continue
        if not args.quiet:
            for line in describe_game(game):
                print(line)
        stop = unfinished_at(game)
        print(
            f"{name}: replayed {len(game.hands)} hands; every action is legal and every result agrees"
            + ("" if stop is None else f"; the game is unfinished: {stop}")
        )
    return status


def _cmd_selfplay(args: argparse.Namespace) -> int:
    game = simulate_game(RuleSet.preset(args.preset), args.seed)
    for line in describe_game(game):
        print(line)
    return 0


def _cmd_arena(args: argparse.Namespace) -> int:
    from chaodipi.arena import run_arena
    from chaodipi.bots import BOT_NAMES

    for name in (args.bot_a, args.bot_b):
        if name not in BOT_NAMES:
            raise ValueError(f"unknown bot {name!r}; the bots are {', '.join(BOT_NAMES)}")
    options = {"search": {"budget": args.budget}}
    result = run_arena(
        args.bot_a, args.bot_b, preset=args.preset, deals=args.deals, seed=args.seed, jobs=args.jobs, options=options
    )
    print(result.report())
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from chaodipi.tui import main as play_main

    return play_main(args.preset, args.bot, args.seed, args.hands)


def build_parser() -> argparse.ArgumentParser:
    """The ``chaodipi`` argument parser: referee, demo, simulate, replay, selfplay, arena and play."""
    parser = argparse.ArgumentParser(prog="chaodipi", description="炒地皮 (Chao Di Pi) rules engine and tools")
    sub = parser.add_subparsers(dest="command", required=True)
    ref = sub.add_parser("referee", help="answer rule questions: JSON lines on stdin, answers on stdout")
    ref.set_defaults(func=_cmd_referee)
    demo = sub.add_parser("demo", help="deal a random hand and show the hands, trump order and leads")
    demo.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--level", help="the hand's level (2..A); random if left out")
    demo.add_argument("--trump", choices=["s", "h", "c", "d", "nt"], help="trump suit; random if left out")
    demo.set_defaults(func=_cmd_demo)
    sim = sub.add_parser("simulate", help="play games with random legal actions and write their records")
    sim.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    sim.add_argument("--games", type=int, default=1)
    sim.add_argument("--seed", type=int, default=1, help="game i uses seed + i")
    sim.add_argument("--out", default="records")
    sim.set_defaults(func=_cmd_simulate)
    rep = sub.add_parser("replay", help="re-check a record against the rules and print the game hand by hand")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--quiet", action="store_true", help="only check, print no log")
    rep.add_argument(
        "--allow-unfinished",
        action="store_true",
        help="accept a game that is not over (the record ends mid-hand or between hands) and say where it stops",
    )
    rep.set_defaults(func=_cmd_replay)
    sp = sub.add_parser("selfplay", help="play a game with random legal actions and print its log")
    sp.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    sp.add_argument("--seed", type=int, default=1)
    sp.set_defaults(func=_cmd_selfplay)
    ar = sub.add_parser("arena", help="two bots on duplicate deals with the teams swapped")
    ar.add_argument("bot_a")
    ar.add_argument("bot_b")
    ar.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    ar.add_argument("--deals", type=int, default=100)
    ar.add_argument("--seed", type=int, default=1)
    ar.add_argument("--jobs", type=int, default=1)
    ar.add_argument("--budget", type=float, default=0.25, help="the search bot's seconds per decision")
    ar.set_defaults(func=_cmd_arena)
    pl = sub.add_parser("play", help="play a game in the terminal against three bots")
    pl.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    pl.add_argument("--bot", default="rules", choices=["random", "rules", "search"])
    pl.add_argument("--seed", type=int, default=None)
    pl.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    pl.set_defaults(func=_cmd_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``chaodipi`` command on ``argv`` (the process's arguments when None); return the exit status.

    A bad rule or value prints ``chaodipi: <reason>`` on stderr and gives 2; a closed output pipe
    (``| head``) ends quietly with 0.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (RuleError, ValueError) as exc:
        print(f"chaodipi: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head and the like
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
