"""The events' HTTP API (``/api/events…``) and the referee's questions (``POST /api/referee``).

Reading is open to everyone (a round not yet published only to the event's organiser and referees);
every change needs a logged-in account: the organiser for registration and pairing, the organiser or
a referee for results and penalties. Each change is one entry of the event's log (who, when, what);
a refused change answers ``{"error": "<words>"}`` with 400, 403, 404 or 409 and changes nothing.
docs/tournaments.md lists the routes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from chaodipi import referee
from chaodipi.server.accounts import Accounts, account_of
from chaodipi.server.bots import BOT_NAMES
from chaodipi.server.protocol import read_object
from chaodipi.server.table import TableError
from chaodipi.server.tables import Server
from chaodipi.tournament.event import PENALTIES, PENALTY_FIELDS, Event, EventError
from chaodipi.tournament.service import EventService
from chaodipi.tournament.store import UnknownEventError

__all__ = ["ROUTES", "checked_pairs", "csv_pairings", "csv_standings", "parse_pairs_csv", "player_of"]

MAX_EVENT_BODY = 64 * 1024  # a CSV of a few hundred pairs
MAX_REFEREE_BODY = 16 * 1024


def _service(request: Request) -> EventService:
    service: EventService = request.app.state.events
    return service


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _event_id(request: Request) -> int:
    raw = str(request.path_params["event_id"])
    if not raw.isdigit() or len(raw) > 12:
        raise UnknownEventError(f"no event {raw}")
    return int(raw)


def _int_param(request: Request, name: str) -> int:
    raw = str(request.path_params[name])
    if not raw.isdigit() or len(raw) > 9:
        raise EventError(f"{name} is a number, not {raw!r}")
    return int(raw)


Handler = Callable[[Request], Awaitable[Response]]


def _answer(handler: Handler, *, write: bool = False) -> Handler:
    """``handler`` with the events' refusals turned into replies (and a lobby write's rate limit)."""

    async def endpoint(request: Request) -> Response:
        server: Server = request.app.state.server
        if write and not server.allow_write(request.client.host if request.client else "?"):
            return _error("too many requests: wait a minute", 429)
        try:
            return await handler(request)
        except UnknownEventError as exc:
            return _error(str(exc), 404)
        except _Forbidden as exc:
            return _error(str(exc), exc.status)
        except EventError as exc:
            return _error(str(exc), 409 if write else 400)
        except TableError as exc:
            return _error(str(exc), exc.status)

    return endpoint


class _Forbidden(EventError):
    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


async def _who(request: Request) -> tuple[int, str]:
    account = await account_of(request)
    if account is None:
        raise _Forbidden("log in to organise or referee an event", 401)
    return account


async def _staff(request: Request, event_id: int, *, organiser: bool) -> tuple[tuple[int, str], Event]:
    """The logged-in account and the event, if the account may change it (its organiser, or a referee)."""
    who = await _who(request)
    service = _service(request)
    event: Event = await service.server.db_call(service.events.current, event_id)
    if who[1] != event.organiser and (organiser or who[1] not in event.referees):
        raise _Forbidden(f"only the event's organiser{'' if organiser else ' or a referee'} may do this")
    return who, event


# -- reading ---------------------------------------------------------------------------------------------


async def list_events(request: Request) -> Response:
    """``GET /api/events``: every event, newest first."""
    service = _service(request)
    rows = await service.server.db_call(service.events.summaries)
    return JSONResponse({"events": [r.to_json() for r in rows]})


async def penalty_schedule(request: Request) -> Response:
    """``GET /api/events/penalties``: RULES §14.4's schedule, for the penalty form."""
    return JSONResponse({"schedule": [k.to_json() for k in PENALTIES.values()]})


async def _viewer(request: Request, event: Event) -> dict[str, bool]:
    account = await account_of(request)
    name = None if account is None else account[1]
    return {"organiser": name == event.organiser, "referee": name is not None and name in event.referees}


async def get_event(request: Request) -> Response:
    """``GET /api/events/{id}``: the event's pairs, rounds, results, penalties and standings."""
    event_id = _event_id(request)
    service = _service(request)
    event, _ = await service.server.db_call(service.events.shown, event_id, staff=False)
    you = await _viewer(request, event)
    if you["organiser"] or you["referee"]:
        event, body = await service.server.db_call(service.events.shown, event_id, staff=True)
    else:
        _, body = await service.server.db_call(service.events.shown, event_id, staff=False)
    return JSONResponse({**body, "id": event_id, "you": you})


async def get_log(request: Request) -> Response:
    """``GET /api/events/{id}/log``: every organiser's and referee's action (who, when, what)."""
    event_id = _event_id(request)
    service = _service(request)
    event: Event = await service.server.db_call(service.events.current, event_id)
    you = await _viewer(request, event)
    staff = you["organiser"] or you["referee"]
    entries = [e.to_json() for e in event.log if staff or e.op not in ("pair", "undo") or _published(event, e.data)]
    return JSONResponse({"entries": entries})


def _published(event: Event, data: dict[str, Any]) -> bool:
    n = data.get("round")
    return isinstance(n, int) and 1 <= n <= len(event.rounds) and event.rounds[n - 1].status != "drawn"


def _pair_label(event: Event, pair_id: int | None) -> str:
    if pair_id is None:
        return "(bye)"
    return event.pairs[pair_id].name


def csv_standings(event: Event) -> str:
    """The standings as CSV: rank, pair, players, club, points, margin, Buchholz, played, won, lost, byes, status."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["rank", "pair", "player1", "player2", "club", "points", "margin", "buchholz", "played", "won",
                "lost", "byes", "status"])  # fmt: skip
    for s in event.standings():
        pair = event.pairs[s.pair]
        w.writerow([s.rank, pair.name, pair.players[0].name, pair.players[1].name, pair.club, s.points, s.margin,
                    s.buchholz, s.played, s.won, s.lost, s.byes, s.status])  # fmt: skip
    return out.getvalue()


def csv_pairings(event: Event, number: int | None = None, *, staff: bool = True) -> str:
    """A round's pairings (every round's without ``number``) as CSV, with each tie's result."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["round", "label", "table", "session", "pair_a", "pair_b", "why", "online_table", "winner",
                "wins_a", "wins_b", "margin_a"])  # fmt: skip
    for rnd in event.rounds:
        if (number is not None and rnd.number != number) or (not staff and rnd.status == "drawn"):
            continue
        for p in event.round_json(rnd)["pairings"]:
            res = p["result"] or {}
            winner = res.get("winner")
            w.writerow([rnd.number, rnd.label, p["table"], p["session"], _pair_label(event, p["a"]),
                        _pair_label(event, p["b"]), p["why"], p["online_table"] or "",
                        "" if winner is None or p["b"] is None else _pair_label(event, p[winner]),
                        *(res.get("wins") or ["", ""]), (res.get("margins") or [""])[0]])  # fmt: skip
    return out.getvalue()


def _csv_response(text: str, filename: str) -> Response:
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"', "X-Content-Type-Options": "nosniff"},
    )


async def export_standings(request: Request) -> Response:
    """``GET /api/events/{id}/standings.csv``."""
    event_id = _event_id(request)
    service = _service(request)
    event: Event = await service.server.db_call(service.events.current, event_id)
    return _csv_response(csv_standings(event), f"event-{event_id}-standings.csv")


async def export_pairings(request: Request) -> Response:
    """``GET /api/events/{id}/pairings.csv[?round=n]``."""
    event_id = _event_id(request)
    service = _service(request)
    event: Event = await service.server.db_call(service.events.current, event_id)
    raw = request.query_params.get("round")
    number = None
    if raw:
        if not raw.isdigit() or len(raw) > 6:
            raise EventError(f"round is a number, not {raw!r}")
        number = int(raw)
    you = await _viewer(request, event)
    text = csv_pairings(event, number, staff=you["organiser"] or you["referee"])
    return _csv_response(text, f"event-{event_id}-pairings.csv")


# -- changing ----------------------------------------------------------------------------------------------


def player_of(text: object, accounts: Accounts | None, *, online: bool) -> dict[str, Any]:
    """A player as a request names it: ``"bot:rules"`` (a bot), an account's username, or (physical
    events) a plain name; blocking (an account lookup)."""
    if not isinstance(text, str) or not text.strip() or len(text.strip()) > 32 or not text.isprintable():
        raise EventError("a player is a username, a name or bot:<bot>, at most 32 characters")
    text = text.strip()
    if text.lower().startswith("bot:"):
        bot = text[4:].strip().lower()
        if bot not in BOT_NAMES:
            raise EventError(f"{bot!r} is not a bot: the bots are {', '.join(BOT_NAMES)}")
        return {"name": f"{bot} bot", "account": None, "bot": bot}
    account = accounts.by_name(text) if accounts is not None else None
    if account is not None:
        return {"name": account.username, "account": account.id, "bot": None}
    if online:
        raise EventError(f"no account is called {text!r}: an online event's players are accounts or bots")
    return {"name": text, "account": None, "bot": None}


#: The columns of a CSV of pairs, in the order a file without a header gives them.
CSV_COLUMNS = ("name", "player1", "player2", "club")


def parse_pairs_csv(text: str) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, str]]]:
    r"""Pairs from CSV text, each with the line of the file it is on, and the lines refused, each with why.

    The file has a header naming ``player1`` and ``player2`` (``name`` and ``club`` optional, no other
    column), or rows of name, player1, player2[, club] without one. A field in no column is refused, not
    dropped (empty ones, as spreadsheets pad rows, are nothing). Blank lines count as the file's lines.
    A file with no pair (empty, or a header alone) or an unreadable one raises :class:`EventError`.

    >>> parse_pairs_csv("name,player1,player2,club\nRed,Li,Wang\n\nBlue,Zhao\nGreen,a,b,c,x\n")[1]
    [(4, 'a pair needs player1 and player2'), (5, "5 fields: 'x' is in no column (name, player1, player2, club)")]
    """
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    records: list[tuple[int, list[str]]] = []
    line = 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                records.append((line, row))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise EventError(f"CSV line {line}: {exc}") from None
    if not records:
        raise EventError("the CSV holds no pairs")
    head = [c.strip().lower() for c in records[0][1]]
    columns = list(CSV_COLUMNS)
    if "player1" in head or "player2" in head:  # a header
        named = [c for c in head if c]
        wrong = [c for c in named if c not in CSV_COLUMNS or named.count(c) > 1]
        missing = [c for c in ("player1", "player2") if c not in head]
        if wrong or missing:
            what = f"unknown or repeated column {wrong[0]!r}" if wrong else f"no column {missing[0]!r}"
            raise EventError(f"CSV line {records[0][0]}: {what}: the columns are {', '.join(CSV_COLUMNS)}")
        columns = head
        records = records[1:]
        if not records:
            raise EventError("the CSV holds no pairs, only its header")
    out: list[tuple[int, dict[str, Any]]] = []
    errors: list[tuple[int, str]] = []
    for line, row in records:
        extra = [c.strip() for i, c in enumerate(row) if c.strip() and (i >= len(columns) or not columns[i])]
        if extra:
            known = ", ".join(c for c in columns if c)
            errors.append((line, f"{len(row)} fields: {extra[0]!r} is in no column ({known})"))
            continue
        cells = {key: row[i].strip() for i, key in enumerate(columns) if key and i < len(row)}
        if not cells.get("player1") or not cells.get("player2"):
            errors.append((line, "a pair needs player1 and player2"))
            continue
        pair = {"name": cells.get("name", ""), "players": [cells["player1"], cells["player2"]]}
        out.append((line, {**pair, "club": cells.get("club", "")}))
    return out, errors


def checked_pairs(event: Event, text: str, accounts: Accounts | None, by: str) -> list[dict[str, Any]]:
    """The ``add_pair`` entries of a CSV of pairs (:func:`parse_pairs_csv`), players looked up
    (:func:`player_of`), each checked against the event as the lines before it leave it (one player in
    one pair, across the file and the pairs registered already): all of them, or :class:`EventError`
    naming every refused line ("CSV line N", the file's lines); blocking (account lookups)."""
    rows, errors = parse_pairs_csv(text)
    trial = Event.replay(event.log)
    pairs = []
    for line, pair in rows:
        try:
            pair["players"] = [player_of(p, accounts, online=event.opts.online) for p in pair["players"]]
            trial.apply("add_pair", pair, by=by)
        except EventError as exc:
            errors.append((line, str(exc)))
            continue
        pairs.append(pair)
    if errors:
        lines = "; ".join(f"CSV line {n}: {why}" for n, why in sorted(errors))
        count = f"{len(errors)} lines of the CSV are" if len(errors) > 1 else "a line of the CSV is"
        raise EventError(f"{count} refused, and no pair is registered: {lines}")
    return pairs


def _accounts(request: Request) -> Accounts | None:
    return getattr(request.app.state, "accounts", None)


async def create_event(request: Request) -> Response:
    """``POST /api/events``: a new event organised by the logged-in account."""
    who = await _who(request)
    body = await read_object(request, MAX_EVENT_BODY, "an event")
    service = _service(request)
    event_id = await service.server.db_call(service.events.create, body, who)
    return JSONResponse({"id": event_id}, status_code=201)


async def _append(request: Request, event_id: int, by: str, op: str, data: dict[str, Any]) -> Event:
    return await _service(request).append(event_id, op, data, by)


async def add_pair(request: Request) -> Response:
    """``POST /api/events/{id}/pairs`` ``{"name", "players": [p1, p2], "club"}``."""
    event_id = _event_id(request)
    who, event = await _staff(request, event_id, organiser=True)
    body = await read_object(request, MAX_EVENT_BODY, "a pair")
    players = body.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise EventError("a pair is two players")
    service = _service(request)
    accounts = _accounts(request)
    body["players"] = [await service.server.db_call(player_of, p, accounts, online=event.opts.online) for p in players]
    event = await _append(request, event_id, who[1], "add_pair", body)
    return JSONResponse({"pair": max(event.pairs), "version": event.version}, status_code=201)


async def import_pairs(request: Request) -> Response:
    """``POST /api/events/{id}/pairs/import`` ``{"csv": text}``: every pair, or none when one is refused."""
    event_id = _event_id(request)
    who, event = await _staff(request, event_id, organiser=True)
    body = await read_object(request, MAX_EVENT_BODY, "a CSV of pairs")
    text = body.get("csv")
    if not isinstance(text, str):
        raise EventError("'csv' is the CSV text")
    service = _service(request)
    pairs = await service.server.db_call(checked_pairs, event, text, _accounts(request), who[1])
    for pair in pairs:
        event = await _append(request, event_id, who[1], "add_pair", pair)
    return JSONResponse({"added": len(pairs), "version": event.version})


def _simple(op: str, *, organiser: bool, fields: set[str], path: tuple[str, ...] = ()) -> Handler:
    """A change that is one entry of the log: its data the request's fields (and numbers from the path)."""

    async def handler(request: Request) -> Response:
        event_id = _event_id(request)
        who, _ = await _staff(request, event_id, organiser=organiser)
        body = await read_object(request, MAX_EVENT_BODY, op)
        unknown = sorted(set(body) - fields)
        if unknown:
            raise EventError(f"unknown field {unknown[0]!r}")
        for name in path:
            body[name] = _int_param(request, name)
        event = await _append(request, event_id, who[1], op, body)
        return JSONResponse({"version": event.version})

    return handler


async def give_penalty(request: Request) -> Response:
    """``POST /api/events/{id}/penalties``: a referee's penalty (RULES §14.4); at an online table it reaches the game
    in progress at once (:meth:`EventService.penalty`)."""
    event_id = _event_id(request)
    who, _ = await _staff(request, event_id, organiser=False)
    body = await read_object(request, MAX_EVENT_BODY, "penalty")
    unknown = sorted(set(body) - PENALTY_FIELDS)
    if unknown:
        raise EventError(f"unknown field {unknown[0]!r}")
    event = await _service(request).penalty(event_id, body, who[1])
    return JSONResponse({"version": event.version, "live": event.penalties[-1].live})


async def pair_round(request: Request) -> Response:
    """``POST /api/events/{id}/rounds``: pair the next round (a draft until published)."""
    event_id = _event_id(request)
    who, event = await _staff(request, event_id, organiser=True)
    await read_object(request, MAX_EVENT_BODY, "a round")
    event = await _append(request, event_id, who[1], "pair", event.plan_round())
    return JSONResponse({"round": len(event.rounds), "version": event.version}, status_code=201)


async def start_round(request: Request) -> Response:
    """``POST /api/events/{id}/rounds/{round}/start``: open the round's online tables."""
    event_id = _event_id(request)
    who, _ = await _staff(request, event_id, organiser=True)
    await read_object(request, MAX_EVENT_BODY, "a round")
    event = await _service(request).start_round(event_id, _int_param(request, "round"), who[1])
    return JSONResponse({"version": event.version})


async def add_referee(request: Request) -> Response:
    """``POST /api/events/{id}/referees`` ``{"username"}``: an account that may enter results and penalties."""
    event_id = _event_id(request)
    who, _ = await _staff(request, event_id, organiser=True)
    body = await read_object(request, MAX_EVENT_BODY, "a referee")
    name = body.get("username")
    accounts = _accounts(request)
    service = _service(request)
    account = (
        None if accounts is None or not isinstance(name, str) else await service.server.db_call(accounts.by_name, name)
    )
    if account is None:
        raise EventError(f"no account is called {name!r}")
    event = await _append(request, event_id, who[1], "referee", {"username": account.username})
    return JSONResponse({"version": event.version})


async def ask_referee(request: Request) -> Response:
    """``POST /api/referee``: one question of ``chaodipi referee`` (docs/referee.md), answered the same way."""
    body = await read_object(request, MAX_REFEREE_BODY, "a referee question")
    return JSONResponse(referee.answer(body))


ROUTES = [
    Route("/api/events", _answer(list_events), methods=["GET"]),
    Route("/api/events", _answer(create_event, write=True), methods=["POST"]),
    Route("/api/events/penalties", _answer(penalty_schedule), methods=["GET"]),
    Route("/api/events/{event_id}", _answer(get_event), methods=["GET"]),
    Route("/api/events/{event_id}/log", _answer(get_log), methods=["GET"]),
    Route("/api/events/{event_id}/standings.csv", _answer(export_standings), methods=["GET"]),
    Route("/api/events/{event_id}/pairings.csv", _answer(export_pairings), methods=["GET"]),
    Route("/api/events/{event_id}/pairs", _answer(add_pair, write=True), methods=["POST"]),
    Route("/api/events/{event_id}/pairs/import", _answer(import_pairs, write=True), methods=["POST"]),
    Route(
        "/api/events/{event_id}/pairs/{pair}/withdraw",
        _answer(_simple("withdraw", organiser=True, fields=set(), path=("pair",)), write=True),
        methods=["POST"],
    ),
    Route(
        "/api/events/{event_id}/forbid",
        _answer(_simple("forbid", organiser=True, fields={"a", "b"}), write=True),
        methods=["POST"],
    ),
    Route("/api/events/{event_id}/referees", _answer(add_referee, write=True), methods=["POST"]),
    Route("/api/events/{event_id}/rounds", _answer(pair_round, write=True), methods=["POST"]),
    Route(
        "/api/events/{event_id}/rounds/{round}/publish",
        _answer(_simple("publish", organiser=True, fields=set(), path=("round",)), write=True),
        methods=["POST"],
    ),
    Route("/api/events/{event_id}/rounds/{round}/start", _answer(start_round, write=True), methods=["POST"]),
    Route(
        "/api/events/{event_id}/rounds/{round}/undo",
        _answer(_simple("undo", organiser=True, fields=set(), path=("round",)), write=True),
        methods=["POST"],
    ),
    Route(
        "/api/events/{event_id}/results",
        _answer(_simple("result", organiser=False, fields={"round", "table", "games", "forfeit"}), write=True),
        methods=["POST"],
    ),
    Route(
        "/api/events/{event_id}/results/correct",
        _answer(
            _simple("correct", organiser=False, fields={"round", "table", "games", "forfeit", "reason"}), write=True
        ),
        methods=["POST"],
    ),
    Route("/api/events/{event_id}/penalties", _answer(give_penalty, write=True), methods=["POST"]),
    Route("/api/referee", _answer(ask_referee), methods=["POST"]),
]
