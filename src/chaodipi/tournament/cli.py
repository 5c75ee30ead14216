"""``chaodipi tournament …``: run an event from the command line, on the server's database.

The commands write the same log entries as the organiser's and referee's pages, so that an event can
be run from either or both: create it, register pairs (one by one or from a CSV), pair, publish and
start rounds, enter results and penalties, and print the pairings and standings as tables or CSV.
Online rounds open tables at the game server: start them from the organiser's page (or the HTTP API),
since only a running server can seat players; everything else works on a database with no server.

    chaodipi tournament create "City cup" --format city --physical
    chaodipi tournament import 1 pairs.csv
    chaodipi tournament pair 1 && chaodipi tournament publish 1 1 && chaodipi tournament start 1 1
    chaodipi tournament result 1 1 3 --game a:A:9
    chaodipi tournament correct 1 1 3 --game b:9:A --reason "winner entered wrong"
    chaodipi tournament standings 1
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chaodipi.server.store import DEFAULT_URL, Store
from chaodipi.tournament.event import PENALTIES, Event, EventError
from chaodipi.tournament.store import EventStore

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["add_parser", "run"]


def _store(args: argparse.Namespace) -> EventStore:
    store = Store(args.db)
    store.migrate()
    return EventStore(store)


def _who(args: argparse.Namespace) -> str:
    if args.as_name:
        return str(args.as_name)
    try:
        return getpass.getuser()[:32] or "organiser"
    except (KeyError, OSError):  # (no user name in a bare container)
        return "organiser"


def _player(text: str, store: EventStore, online: bool) -> dict[str, Any]:
    from chaodipi.server.accounts import Accounts
    from chaodipi.tournament.web import player_of

    return player_of(text, Accounts(store.engine), online=online)


def _game(text: str) -> dict[str, Any]:
    """``a:A:9`` (winner, pair a's final level, pair b's), levels optionally ``level@circle`` (``5@2``)."""
    parts = text.split(":")
    if len(parts) != 3:
        raise EventError(f"a game is winner:level_a:level_b, e.g. a:A:9, not {text!r}")

    def side(level: str) -> dict[str, Any]:
        lvl, _, circle = level.partition("@")
        return {"level": lvl, "circle": int(circle) if circle.isdigit() else 1}

    return {"winner": parts[0].strip().lower(), "a": side(parts[1]), "b": side(parts[2])}


def _print_pairings(console: Console, event: Event, number: int | None) -> None:
    from rich.table import Table

    rounds = event.rounds if number is None else [event.rounds[number - 1]] if 0 < number <= len(event.rounds) else []
    if not rounds:
        raise EventError("no such round")
    for rnd in rounds:
        t = Table(title=f"Round {rnd.number}: {rnd.label} ({rnd.status}, best of {rnd.best_of})")
        for col in ("table", "pair a", "pair b", "result", "why"):
            t.add_column(col)
        for p in event.round_json(rnd)["pairings"]:
            a = event.pairs[p["a"]].name
            b = "(bye)" if p["b"] is None else event.pairs[p["b"]].name
            res = p["result"]
            text = ""
            if res is not None and p["b"] is not None:
                winner = event.pairs[p[res["winner"]]].name
                text = f"{winner} {'by forfeit' if res['forfeit'] else '{}-{}'.format(*res['wins'])}"
            t.add_row(str(p["table"]), a, b, text, p["why"])
        console.print(t)


def _print_standings(console: Console, event: Event) -> None:
    from rich.table import Table

    t = Table(title=f"{event.opts.name}: standings ({event.status})")
    for col in ("rank", "pair", "players", "points", "margin", "Buchholz", "played", "won", "lost", "status"):
        t.add_column(col, justify="right" if col not in ("pair", "players", "status") else "left")
    for s in event.standings():
        pair = event.pairs[s.pair]
        players = f"{pair.players[0].name} / {pair.players[1].name}"
        t.add_row(
            str(s.rank), pair.name, players, str(s.points), f"{s.margin:+d}", str(s.buchholz), str(s.played),
            str(s.won), str(s.lost), s.status,
        )  # fmt: skip
    console.print(t)


def run(args: argparse.Namespace) -> int:
    """Run one ``chaodipi tournament`` command; a refused one raises :class:`EventError` (the CLI prints it)."""
    from rich.console import Console
    from rich.table import Table

    from chaodipi.server.accounts import Accounts
    from chaodipi.tournament.web import checked_pairs, csv_pairings, csv_standings

    console = Console(file=sys.stdout, highlight=False, width=None if sys.stdout.isatty() else 120)
    store = _store(args)
    by = _who(args)
    cmd = args.tcommand
    if cmd == "create":
        opts: dict[str, Any] = {"name": args.name, "preset": args.preset, "format": args.format, "online": False}
        opts["online"] = args.online
        for key in ("seed", "game_minutes", "swiss_from", "swiss_rounds", "best_of_three_from", "unlimited_from"):
            if getattr(args, key) is not None:
                opts[key] = getattr(args, key)
        if args.seeded:
            opts["draw"] = "seeded"
        eid = store.create(opts, (None, by))
        console.print(f"event {eid} created: {args.name}")
        return 0
    if cmd == "list":
        t = Table(title="events")
        for col in ("id", "name", "format", "status", "pairs", "round", "organiser"):
            t.add_column(col)
        for line in store.summaries():
            t.add_row(
                str(line.id), line.name, line.format, line.status, str(line.pairs), str(line.round), line.organiser
            )
        console.print(t)
        return 0
    event = store.load(args.event)
    if cmd == "add-pair":
        players = [_player(p, store, event.opts.online) for p in (args.player1, args.player2)]
        event = store.append(
            args.event, "add_pair", {"name": args.name or "", "players": players, "club": args.club}, by=by
        )
        console.print(f"pair {max(event.pairs)} registered: {event.pairs[max(event.pairs)].name}")
    elif cmd == "import":
        pairs = checked_pairs(event, Path(args.file).read_text(encoding="utf-8"), Accounts(store.engine), by)
        for pair in pairs:
            event = store.append(args.event, "add_pair", pair, by=by)
        console.print(f"{len(pairs)} pairs registered ({len(event.pairs)} in all)")
    elif cmd == "withdraw":
        store.append(args.event, "withdraw", {"pair": args.pair}, by=by)
    elif cmd == "forbid":
        store.append(args.event, "forbid", {"a": args.a, "b": args.b}, by=by)
    elif cmd == "pair":
        event = store.append(args.event, "pair", event.plan_round(), by=by)
        _print_pairings(console, event, len(event.rounds))
    elif cmd in ("publish", "undo"):
        store.append(args.event, cmd, {"round": args.round}, by=by)
    elif cmd == "start":
        if event.opts.online:
            raise EventError("an online round opens tables at the game server: start it from the organiser's page")
        store.append(args.event, "start", {"round": args.round}, by=by)
    elif cmd in ("result", "correct"):
        if args.game and args.forfeit:
            raise EventError("a table's result is its games (--game) or a forfeit (--forfeit), not both")
        data: dict[str, Any] = {"round": args.round, "table": args.table, "games": [_game(g) for g in args.game]}
        if args.forfeit:
            data = {"round": args.round, "table": args.table, "forfeit": args.forfeit}
        if cmd == "correct":
            data["reason"] = args.reason
        store.append(args.event, cmd, data, by=by)
    elif cmd == "penalty":
        data = {"round": args.round, "table": args.table, "pair": args.pair, "offence": args.offence, "note": args.note}
        for key in ("cards", "points", "levels", "game"):
            if getattr(args, key) is not None:
                data[key] = getattr(args, key)
        if args.warning:
            data["warning"] = True
        if args.game_lost:
            data["game_lost"] = True
        given, pairing, online = event.check_penalty(data, by=by)
        if online:
            raise EventError(
                f"game {given.game} at online table {pairing.online_table} is being played: a penalty reaches it only "
                f"through the server (the referee's page, or POST /api/events/{args.event}/penalties)"
            )
        event = store.append(args.event, "penalty", data, by=by)
        console.print(json.dumps(event.penalties[-1].to_json(), ensure_ascii=False))
    elif cmd == "pairings":
        _print_pairings(console, event, args.round)
    elif cmd == "standings":
        _print_standings(console, event)
    elif cmd == "export":
        text = csv_standings(event) if args.what == "standings" else csv_pairings(event, args.round)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
    elif cmd == "log":
        for e in event.log:
            console.print(f"{e.seq:>4} {e.at} {e.by:<12} {e.op:<9} {json.dumps(e.data, ensure_ascii=False)}")
    return 0


def add_parser(sub: Any) -> None:
    """Add ``tournament`` and its commands to the ``chaodipi`` command's subparsers."""
    tp = sub.add_parser("tournament", help="run a tournament: pairs, rounds, results, penalties, standings")
    tp.add_argument("--db", default=DEFAULT_URL, help=f"the server's database (default {DEFAULT_URL})")
    tp.add_argument("--as", dest="as_name", default=None, help="the name the log records (default: your login)")
    ts = tp.add_subparsers(dest="tcommand", required=True)
    c = ts.add_parser("create", help="create an event")
    c.add_argument("name")
    c.add_argument("--preset", default="contest2021")
    c.add_argument("--format", choices=("knockout", "swiss", "city"), default="city")
    c.add_argument("--online", action="store_true", help="play at the server's tables (default: physical tables)")
    c.add_argument("--seeded", action="store_true", help="a seeded draw: the order of registration")
    c.add_argument("--seed", type=int)
    c.add_argument("--game-minutes", type=int)
    c.add_argument("--unlimited-from", type=int)
    c.add_argument("--best-of-three-from", type=int)
    c.add_argument("--swiss-from", type=int)
    c.add_argument("--swiss-rounds", type=int)
    ts.add_parser("list", help="list the events")
    a = ts.add_parser("add-pair", help="register a pair")
    a.add_argument("event", type=int)
    a.add_argument("player1")
    a.add_argument("player2")
    a.add_argument("--name", default="")
    a.add_argument("--club", default="")
    i = ts.add_parser("import", help="register pairs from a CSV file (name,player1,player2,club)")
    i.add_argument("event", type=int)
    i.add_argument("file")
    w = ts.add_parser("withdraw", help="withdraw a pair")
    w.add_argument("event", type=int)
    w.add_argument("pair", type=int)
    f = ts.add_parser("forbid", help="keep two pairs apart (team-mates of one club)")
    f.add_argument("event", type=int)
    f.add_argument("a", type=int)
    f.add_argument("b", type=int)
    p = ts.add_parser("pair", help="pair the next round and print it")
    p.add_argument("event", type=int)
    for name, text in (("publish", "publish a round"), ("start", "start a round"), ("undo", "undo a round's pairing")):
        s = ts.add_parser(name, help=text)
        s.add_argument("event", type=int)
        s.add_argument("round", type=int)
    for name, text in (
        ("result", "enter a table's result: --game a:A:9 per game, or --forfeit a|b"),
        ("correct", "correct a table's result (a referee's correction, logged with its --reason)"),
    ):
        r = ts.add_parser(name, help=text)
        r.add_argument("event", type=int)
        r.add_argument("round", type=int)
        r.add_argument("table", type=int)
        r.add_argument("--game", action="append", default=[], help="winner:level_a:level_b (level@circle)")
        r.add_argument("--forfeit", choices=("a", "b"))
        if name == "correct":
            r.add_argument("--reason", required=True, help="why the result is corrected (the log keeps it)")
    pe = ts.add_parser("penalty", help="give a penalty (RULES §14.4)")
    pe.add_argument("event", type=int)
    pe.add_argument("round", type=int)
    pe.add_argument("table", type=int)
    pe.add_argument("pair", choices=("a", "b"))
    pe.add_argument("offence", choices=tuple(PENALTIES))
    pe.add_argument("--cards", type=int)
    pe.add_argument("--points", type=int)
    pe.add_argument("--levels", type=int)
    pe.add_argument("--game", type=int)
    pe.add_argument("--warning", action="store_true")
    pe.add_argument("--game-lost", action="store_true")
    pe.add_argument("--note", default="")
    pr = ts.add_parser("pairings", help="print the pairings")
    pr.add_argument("event", type=int)
    pr.add_argument("--round", type=int)
    st = ts.add_parser("standings", help="print the standings")
    st.add_argument("event", type=int)
    ex = ts.add_parser("export", help="write standings or pairings as CSV")
    ex.add_argument("event", type=int)
    ex.add_argument("what", choices=("standings", "pairings"))
    ex.add_argument("--round", type=int)
    ex.add_argument("-o", "--output")
    lg = ts.add_parser("log", help="print the event's log")
    lg.add_argument("event", type=int)
    tp.set_defaults(func=run)
