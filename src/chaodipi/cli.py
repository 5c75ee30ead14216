"""The ``chaodipi`` command: ``referee``, ``demo`` and friends.

Every numeric option is checked when the command line is read (a usage error, exit status 2):
counts (``--deals``, ``--games``, ``--hands``, ``--jobs``) are whole numbers of at least 1, seeds
whole numbers of at least 0 (Python's generator would take -5 for 5), ``--budget`` a positive
number of seconds and ``--level`` a rank 2..A. ``arena`` and ``simulate`` draw a progress bar on
stderr when it is a terminal and :mod:`rich` is installed (the ``tui`` extra); otherwise (piped,
as into ``tee``) they write a plain line on stderr at each tenth of the work, and at most a minute
apart, with no control characters.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from chaodipi.cards import SUITS, CardError, Rank, Suit, format_cards, shuffled_deck
from chaodipi.hand import Hand, Phase
from chaodipi.levels import Progress as Level
from chaodipi.play import check_throw
from chaodipi.position import Position, PositionError
from chaodipi.record import SEAT_NAMES, RecordError, describe_game, game_record, load_record, replay
from chaodipi.referee import run_lines
from chaodipi.rules import PRESET_NAMES, RuleError, RuleSet
from chaodipi.simulate import simulate_game
from chaodipi.tournament.cli import add_parser as tournament_parser
from chaodipi.trump import EFFECTIVE_SUITS, TrumpOrder, suit_words, trump_words
from chaodipi.units import UnitKind, decompose

if TYPE_CHECKING:
    from rich.progress import Progress


class CommandError(Exception):
    """A command could not do its work (a folder it cannot write, say); :func:`main` prints
    ``chaodipi: <reason>`` once and exits with status 2."""


# -- checked option values: argparse prints "argument --deals: ..." with the usage, exit status 2


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"must be a whole number, at least {least}, not {text!r}")
    return value


def count_option(text: str) -> int:
    """A count option (``--deals``, ``--games``, ``--hands``, ``--jobs``): a whole number, at least 1.

    >>> count_option("3")
    3
    >>> count_option("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a whole number, at least 1, not '0'
    """
    return _whole(text, 1)


def seed_option(text: str) -> int:
    """A seed: a whole number, at least 0 (``random.Random`` would take -5 for 5, so negatives are refused).

    >>> seed_option("0")
    0
    >>> seed_option("-1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a whole number, at least 0, not '-1'
    """
    return _whole(text, 0)


def seconds_option(text: str) -> float:
    """A time budget: a positive, finite number of seconds.

    >>> seconds_option("0.25")
    0.25
    >>> seconds_option("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a number of seconds greater than 0, such as 0.25, not '0'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds greater than 0, such as 0.25, not {text!r}")
    return value


def level_option(text: str) -> Rank:
    """A level: a rank 2..A, written ``2``..``9``, ``T`` or ``10``, ``J``, ``Q``, ``K`` or ``A``.

    >>> level_option("10").symbol
    'T'
    """
    try:
        return Rank.parse(text)
    except CardError:
        raise argparse.ArgumentTypeError(
            f"must be a level from 2 to A (2..9, T or 10, J, Q, K, A), not {text!r}"
        ) from None


# -- progress: a bar on a terminal (rich is optional), plain lines otherwise


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a stand-in without isatty, or a closed stream
        return False


def _rich_progress(unit: str) -> Progress | None:
    """A rich progress bar for stderr, or None when stderr is no terminal or rich is missing."""
    if not _isatty(sys.stderr):  # piped: no bar, whatever FORCE_COLOR or TTY_COMPATIBLE say
        return None
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:  # the tui extra is not installed
        return None
    console = Console(stderr=True)  # rich honours NO_COLOR and TERM=dumb by itself
    if not console.is_interactive:
        return None
    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit, markup=False),
        TextColumn("{task.fields[note]}", markup=False),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=console,
        transient=True,  # the result follows; the finished bar would only repeat it
        # Lines printed on a terminal stdout meanwhile go above the bar; a file or pipe gets them untouched.
        redirect_stdout=_isatty(sys.stdout),
    )


#: where no bar is drawn, the longest wait between two progress lines, in seconds
PLAIN_PROGRESS_EVERY = 60.0


def plain_progress(
    description: str,
    total: int,
    unit: str,
    *,
    stream: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[int, str], None]:
    """``update(done, note)`` that writes ``description: done/total unit, note`` as a line on ``stream`` (stderr)
    when the work reaches a new tenth, or when :data:`PLAIN_PROGRESS_EVERY` seconds have passed since the last line:
    a long run piped into a log says how it goes, in a few lines, with no control characters.

    >>> import io
    >>> out, now = io.StringIO(), [0.0]
    >>> update = plain_progress("rules vs search", 40, "hands", stream=out, clock=lambda: now[0])
    >>> for done in range(1, 9):
    ...     update(done, f"note {done}")
    >>> now[0] = 61.0
    >>> update(9, "a minute later")
    >>> print(out.getvalue(), end="")
    rules vs search: 4/40 hands, note 4
    rules vs search: 8/40 hands, note 8
    rules vs search: 9/40 hands, a minute later
    """
    last = {"time": clock(), "tenth": 0}

    def update(done: int, note: str) -> None:
        tenth = done * 10 // total if total > 0 else 10
        now = clock()
        if tenth > last["tenth"] or now - last["time"] >= PLAIN_PROGRESS_EVERY:
            last["time"], last["tenth"] = now, tenth
            line = f"{description}: {done}/{total} {unit}" + (f", {note}" if note else "")
            print(line, file=stream if stream is not None else sys.stderr, flush=True)

    return update


@contextmanager
def progress_bar(description: str, total: int, unit: str) -> Iterator[Callable[[int, str], None]]:
    """Show a progress bar on stderr while the block runs; yield ``update(done, note)``.

    Where no bar can be drawn (stderr piped, or rich missing) ``update`` writes plain lines instead
    (:func:`plain_progress`).
    """
    bar = _rich_progress(unit)
    if bar is None:
        yield plain_progress(description, total, unit)
        return
    task = bar.add_task(description, total=total, note="")
    with bar:
        yield lambda done, note: bar.update(task, completed=done, note=note)


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
    level = args.level if args.level is not None else Rank(rng.randint(2, 14))
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
        print(f"{SEAT_NAMES[seat]}: {len(hand)} cards")
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
    position = Position.in_play(
        rules,
        hands=[trump_order.sorted(h) for h in hands],
        kitty=trump_order.sorted(kitty),
        dealer=0,
        trump=trump,
        leader=0,
        dealer_progress=Level(1, level),
        scoring_progress=Level(1, level),
    )
    print()
    print("position 局面 (chaodipi position reads it back; a bug report pastes it):")
    print(position.text())
    return 0


def _cmd_position(args: argparse.Namespace) -> int:
    """Read a position (docs/position.md), say whose turn it is and what they may play."""
    text = args.text if args.text != "-" else sys.stdin.read()
    try:
        position = Position.parse(text)
    except PositionError as exc:
        print(f"chaodipi position: {exc}", file=sys.stderr)
        return 2
    hand = position.hand()
    seat = hand.to_act()
    assert seat is not None
    legal = hand.view(seat).legal
    print(position.text())
    print(f"{SEAT_NAMES[seat]} plays now; trump order 主牌顺序: {hand.trump_order.order_text()}")
    what = "leads" if legal.leads else "follows"
    plays = legal.plays
    shown = ", ".join(format_cards(p) for p in plays[:20]) + (" …" if len(plays) > 20 or legal.more_follows else "")
    print(f"{len(plays)}{'+' if legal.more_follows else ''} legal {what}: {shown}")
    print(f"scoring side 抓分方 so far: {hand.points_so_far} points")
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    rules = RuleSet.preset(args.preset)
    out = Path(args.out)

    def cannot_write(exc: OSError) -> CommandError:
        reason = "it is a file, not a folder" if out.exists() and not out.is_dir() else (exc.strerror or str(exc))
        return CommandError(f"cannot write records to {out}: {reason}")

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise cannot_write(exc) from None
    with progress_bar(f"simulate {rules.name}", args.games, "games written") as update:
        for i in range(args.games):
            game_seed = args.seed + i
            game = simulate_game(rules, game_seed)
            path = out / f"{rules.name}-seed{game_seed}.json"
            try:
                path.write_text(json.dumps(game_record(game), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            except OSError as exc:  # only the record's own writing: a closed stdout is main's business
                raise cannot_write(exc) from None
            print(f"{path}: {len(game.hands)} hands, team {game.winner} wins")
            update(i + 1, "")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from chaodipi.record import unfinished_at

    status = 0
    for name in args.files:
        last: list[Hand] = []  # the hand being replayed: a refused action leaves it as it was before

        def keep(_: int, hand: Hand, __: object, last: list[Hand] = last) -> None:
            last[:] = [hand]

        try:
            game = replay(load_record(name), allow_unfinished=args.allow_unfinished, after=keep)
        except RecordError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            if last and last[0].phase is Phase.PLAY:  # what a bug report pastes (chaodipi position reads it)
                print(f"position 局面 before it: {Position.of(last[0]).text()}", file=sys.stderr)
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
        current = game.current
        if stop is not None and current is not None and current.phase is Phase.PLAY:
            print(f"position 局面 where it stops: {Position.of(current).text()}")
    return status


def _cmd_selfplay(args: argparse.Namespace) -> int:
    game = simulate_game(RuleSet.preset(args.preset), args.seed)
    for line in describe_game(game):
        print(line)
    return 0


def _cmd_arena(args: argparse.Namespace) -> int:
    from chaodipi.arena import run_arena, wilson
    from chaodipi.bots import BOT_NAMES

    for name in (args.bot_a, args.bot_b):
        if name not in BOT_NAMES:
            raise ValueError(f"unknown bot {name!r}; the bots are {', '.join(BOT_NAMES)}")
    options = {"search": {"budget": args.budget}}
    if args.weights:
        from chaodipi.rl.learned import WEIGHTS_VARIABLE, QNet

        QNet.load(args.weights)  # a bad file is refused here, in words, before any deal
        os.environ[WEIGHTS_VARIABLE] = str(Path(args.weights).resolve())  # (the arena's processes inherit it)
    with ExitStack() as stack:
        if args.ray is not None:  # one Ray session for the whole arena (after the environment is set): its size first
            from chaodipi.cluster import cluster_summary, ray_session

            stack.enter_context(ray_session(args.ray, jobs=args.jobs))
            print(cluster_summary(), flush=True)
        with progress_bar(f"{args.bot_a} vs {args.bot_b}", 2 * args.deals, "hands") as update:

            def on_progress(done: int, total: int, a_wins: int) -> None:
                lo, hi = wilson(a_wins, done)
                update(done, f"{args.bot_a} won {a_wins / done:.1%} (Wilson 95%: {lo:.1%}–{hi:.1%})")

            result = run_arena(
                args.bot_a,
                args.bot_b,
                preset=args.preset,
                deals=args.deals,
                seed=args.seed,
                jobs=args.jobs,
                options=options,
                on_progress=on_progress,
                ray=args.ray,
                batch=args.batch,
            )
    print(result.report())
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from chaodipi.rl.train import main as train_main

    return train_main(args.args)


def _cmd_play(args: argparse.Namespace) -> int:
    try:
        from chaodipi.tui import main as play_main
    except ModuleNotFoundError as exc:  # the terminal game's library (rich) is an extra
        raise CommandError(f"chaodipi play needs {exc.name}: pip install 'chaodipi[tui]'") from None
    return play_main(args.preset, args.bot, args.seed, args.hands)


def _version() -> str:
    """``chaodipi 0.1.0 (engine: compiled by mypyc)``: the version, and which engine build runs."""
    from chaodipi import __version__
    from chaodipi._build import engine_build

    return f"chaodipi {__version__} (engine: {_ENGINE_WORDS[engine_build()]})"


_ENGINE_WORDS = {"compiled": "compiled by mypyc", "pure": "pure Python; `make fast` builds the compiled one"}


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        from chaodipi.server.config import ServerConfig
        from chaodipi.server.serve import default_owner, serve
    except ModuleNotFoundError as exc:
        raise CommandError(f"chaodipi serve needs {exc.name}: pip install chaodipi") from None
    config = ServerConfig(
        owner=args.owner or default_owner(args.port),
        deal_ms=args.deal_ms,
        bot_delay_ms=args.bot_delay_ms,
        hand_pause_ms=args.hand_pause_ms,
        trick_pause_ms=args.trick_pause_ms,
        keepalive_s=args.keepalive,
        time_scale=args.time_scale,
        head_timeout_s=args.head_timeout,
        body_timeout_s=args.body_timeout,
        max_connections=args.max_connections,
        allowed_origins=tuple(args.allowed_origin),
        forwarded_allow_ips=args.forwarded_allow_ips,
        redis=args.redis,
        lease_s=args.lease,
    )
    print(_version(), flush=True)
    serve(args.host, args.port, args.db, config)
    return 0


def _origin(text: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") or parts.query:
        raise argparse.ArgumentTypeError(f"an origin is http(s)://host[:port], not {text!r}")
    return f"{parts.scheme}://{parts.netloc}".lower()


def forwarded_ips_option(text: str) -> tuple[str, ...]:
    """``serve --forwarded-allow-ips``: the proxies whose ``X-Forwarded-For`` the server believes, as IP
    addresses or networks separated by commas, or ``*`` for any (only behind a proxy that every client
    must pass).

    >>> forwarded_ips_option("10.0.0.1, 192.168.0.0/16,::1")
    ('10.0.0.1', '192.168.0.0/16', '::1')
    >>> forwarded_ips_option("proxy.example")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be IP addresses or networks separated by commas, or *, not 'proxy.example'
    """
    import ipaddress

    items = tuple(item.strip() for item in text.split(","))
    if items == ("*",):
        return items
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be IP addresses or networks separated by commas, or *, not {text!r}"
            ) from None
    return items


def _port(text: str) -> int:
    value = _whole(text, 1)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 1..65535, not {text!r}")
    return value


def _millis(text: str) -> int:
    return _whole(text, 0)


def _scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0 < value <= 100 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a number above 0 and at most 100, not {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``chaodipi`` argument parser: referee, demo, simulate, replay, selfplay, arena, play and serve."""
    parser = argparse.ArgumentParser(prog="chaodipi", description="炒地皮 (Chao Di Pi) rules engine and tools")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)
    ref = sub.add_parser("referee", help="answer rule questions: JSON lines on stdin, answers on stdout")
    ref.set_defaults(func=_cmd_referee)
    demo = sub.add_parser("demo", help="deal a random hand and show the hands, trump order and leads")
    demo.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    demo.add_argument("--seed", type=seed_option, default=1, help="a whole number, at least 0 (default 1)")
    demo.add_argument("--level", type=level_option, help="the hand's level (2..A); random if left out")
    demo.add_argument("--trump", choices=["s", "h", "c", "d", "nt"], help="trump suit; random if left out")
    demo.set_defaults(func=_cmd_demo)

    pos = sub.add_parser("position", help="read a position (as demo prints it), say whose turn and what is legal")
    pos.add_argument("text", help="the position's one line, in quotes, or - to read it from standard input")
    pos.set_defaults(func=_cmd_position)
    sim = sub.add_parser("simulate", help="play games with random legal actions and write their records")
    sim.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    sim.add_argument("--games", type=count_option, default=1, help="how many games, at least 1 (default 1)")
    sim.add_argument("--seed", type=seed_option, default=1, help="at least 0 (default 1); game i uses seed + i")
    sim.add_argument("--out", default="records", help="the folder to write the records to (default records)")
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
    sp.add_argument("--seed", type=seed_option, default=1, help="a whole number, at least 0 (default 1)")
    sp.set_defaults(func=_cmd_selfplay)
    ar = sub.add_parser("arena", help="two bots on duplicate deals with the teams swapped")
    ar.add_argument("bot_a")
    ar.add_argument("bot_b")
    ar.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    ar.add_argument("--deals", type=count_option, default=100, help="duplicate deals, at least 1 (default 100)")
    ar.add_argument("--seed", type=seed_option, default=1, help="a whole number, at least 0 (default 1)")
    ar.add_argument(
        "--jobs", type=count_option, default=1, help="processes, at least 1 (default 1); with --ray local, Ray's CPUs"
    )
    ar.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run the deals on a Ray cluster: a running cluster's address (HOST:PORT, or auto), or local to start "
        "Ray in this process; the result is the same as without it (needs pip install 'chaodipi[learn]')",
    )
    ar.add_argument(
        "--batch",
        type=count_option,
        default=10,
        help="consecutive deals per task (per process or Ray task), at least 1 (default 10); the result does not "
        "depend on it",
    )
    ar.add_argument(
        "--budget",
        type=seconds_option,
        default=0.5,
        help="the search bot's seconds per decision, above 0 (default 0.5)",
    )
    ar.add_argument(
        "--weights",
        metavar="PATH",
        help="the learned bot's weights (.npz, as `chaodipi train` writes them); default: the shipped ones",
    )
    ar.set_defaults(func=_cmd_arena)
    tr = sub.add_parser(
        "train",
        help="train the learned bot by self-play (needs the learn extra; `chaodipi train --help`)",
        add_help=False,
    )
    tr.add_argument("args", nargs=argparse.REMAINDER)
    tr.set_defaults(func=_cmd_train)
    pl = sub.add_parser("play", help="play a game in the terminal against three bots")
    pl.add_argument("--preset", default="standard", choices=PRESET_NAMES)
    pl.add_argument("--bot", default="rules", choices=["random", "rules", "search", "learned"])
    pl.add_argument("--seed", type=seed_option, default=None, help="a whole number, at least 0; random if left out")
    pl.add_argument("--hands", type=count_option, default=None, help="stop after this many hands (at least 1)")
    pl.set_defaults(func=_cmd_play)
    sv = sub.add_parser(
        "serve",
        help="run the game server: the lobby over HTTP, tables over WebSockets",
        epilog="Limits, so that slow or idle clients cannot use up the server's connections: a request's line "
        "and headers must arrive within --head-timeout seconds, its body within --body-timeout seconds after "
        "them (else 408 and the connection is closed); an idle kept-alive connection closes after 5 s; at most "
        "--max-connections connections are open at once, HTTP and WebSocket together, and never more than the "
        "open-file limit less 100 (one more is answered 503). docs/protocol.md lists every limit.",
    )
    sv.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    sv.add_argument("--port", type=_port, default=8000, help="the port (default 8000)")
    sv.add_argument(
        "--db",
        default="sqlite:///chaodipi.db",
        help="the database URL: an SQLite file (default sqlite:///chaodipi.db) or postgresql+psycopg://…",
    )
    sv.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="join a platform of several server processes on one PostgreSQL database through this Redis "
        "(redis://host:6379/0); without it the process serves its database alone",
    )
    sv.add_argument(
        "--lease",
        type=seconds_option,
        default=8.0,
        help="seconds a process's claim on a table lasts unrenewed: a dead process's tables are taken over "
        "within it (default 8)",
    )
    sv.add_argument("--owner", default=None, help="this process's name in the database (default host:port)")
    sv.add_argument("--deal-ms", type=_millis, default=120, help="milliseconds between two dealt cards (120)")
    sv.add_argument("--bot-delay-ms", type=_millis, default=700, help="a bot's pause before it acts (700)")
    sv.add_argument("--hand-pause-ms", type=_millis, default=15000, help="the longest pause between hands (15000)")
    sv.add_argument(
        "--trick-pause-ms", type=_millis, default=1500, help="a won trick stays shown before the next lead (1500)"
    )
    sv.add_argument(
        "--keepalive",
        type=seconds_option,
        default=10.0,
        metavar="SECONDS",
        help="a client that has heard nothing from its table for this long sends a ping, and after twice this "
        "reconnects; the welcome tells the clients (default 10)",
    )
    sv.add_argument(
        "--time-scale", type=_scale, default=1.0, help="multiplies the rules' time limits (default 1; 0.1 for tests)"
    )
    sv.add_argument(
        "--head-timeout", type=seconds_option, default=10.0, help="seconds for a request's line and headers (10)"
    )
    sv.add_argument(
        "--body-timeout", type=seconds_option, default=30.0, help="seconds for a request's body after them (30)"
    )
    sv.add_argument(
        "--max-connections", type=count_option, default=1000, help="connections open at once, at most (1000)"
    )
    sv.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        type=_origin,
        help="another origin (https://host[:port]) whose pages may write to this server and open its WebSockets; "
        "the server's own origin always may (repeat for more)",
    )
    sv.add_argument(
        "--forwarded-allow-ips",
        type=forwarded_ips_option,
        default=(),
        metavar="IPS",
        help="the reverse proxies (IP addresses or networks, comma-separated; * for any) whose X-Forwarded-For "
        "and X-Forwarded-Proto are believed: a request's address, which the rate limits count, is then the "
        "client's the proxy names (default none: the connection's own address, whatever the headers say)",
    )
    sv.set_defaults(func=_cmd_serve)
    tournament_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``chaodipi`` command on ``argv`` (the process's arguments when None); return the exit status.

    A bad option is a usage error: argparse prints it with the usage and exits with 2. A bad rule
    or value, or a command that cannot do its work, prints ``chaodipi: <reason>`` on stderr once
    and gives 2; a closed output pipe (``| head``) ends quietly with 0, Ctrl-C with 130.
    """
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if getattr(args, "func", None) is _cmd_train:
        args.args = [*extra, *args.args]  # `chaodipi train` reads its own options (chaodipi.rl.train)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.func(args))
    except (CommandError, RuleError, ValueError) as exc:
        print(f"chaodipi: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head and the like
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        return 130


def _silence_stdout() -> None:
    """Point stdout at the null device, so that flushing it at exit does not fail again."""
    with suppress(OSError, ValueError):  # a stand-in stream with no file behind it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
