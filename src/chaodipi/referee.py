"""The referee: single rule questions as JSON requests (``../shared/REFEREE.md``).

:func:`answer` takes one request dict and returns one answer dict; it never
raises for bad input, answering ``{"error": "..."}`` instead. ``chaodipi
referee`` is a thin JSON-lines wrapper around it (:func:`run_lines`).

>>> answer({"op": "trick", "rules": "standard", "level": "2", "trump": "s",
...         "plays": ["3h", "3h", "4d", "6d"], "id": 7})
{'winner': 0, 'points': 0, 'id': 7}
>>> answer({"op": "classify", "rules": "nope", "level": "2", "trump": "s", "cards": "Ah"})["error"]
"unknown preset 'nope'; the presets are standard, anchao, kangqi, mingchao, contest2021, institute2023"
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any

from chaodipi.bidding import Bid, evaluate_bids
from chaodipi.cards import Card, CardError, Rank, check_copies, format_cards, parse_cards, points_of
from chaodipi.play import FollowRule, check_throw
from chaodipi.rules import RuleSet
from chaodipi.settlement import LastTrick, Progress, Side, settle
from chaodipi.trick import kitty_multiplier, resolve_trick
from chaodipi.trump import TrumpOrder, parse_trump, trump_text
from chaodipi.units import PlayError, decompose

__all__ = ["RefereeError", "answer", "run_lines"]


class RefereeError(ValueError):
    """A request that cannot be answered."""


Request = Mapping[str, Any]


def _field(req: Request, name: str) -> Any:
    if name not in req:
        raise RefereeError(f"missing field {name!r}")
    return req[name]


def _cards(req: Request, name: str, *, allow_empty: bool = False) -> list[Card]:
    value = _field(req, name)
    if not isinstance(value, str):
        raise RefereeError(f"{name} must be a text of cards like 'Ah Ah Kh', not {value!r}")
    cards = parse_cards(value)
    if not cards and not allow_empty:
        raise RefereeError(f"{name} holds no cards")
    return cards


def _rules(req: Request) -> RuleSet:
    return RuleSet.from_spec(_field(req, "rules"))


def _level(value: object) -> Rank:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise RefereeError(f"level must be a text like '2', 'T' or 'A', not {value!r}")
    try:
        return Rank.parse(value)
    except CardError:
        raise RefereeError(f"level must be 2..9, T (or 10), J, Q, K or A, not {value!r}") from None


def _order(req: Request, rules: RuleSet) -> TrumpOrder:
    flag, trump = parse_trump(_field(req, "trump"))
    if flag:
        return TrumpOrder.of(rules, None, None)
    return TrumpOrder.of(rules, _level(_field(req, "level")), trump)


def _classify(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    to = _order(req, rules)
    cards = _cards(req, "cards")
    check_copies(cards)
    try:
        fmt = decompose(cards, to, lead=True)
    except PlayError:
        return {"kind": "invalid", "suit": None, "units": []}
    return {
        "kind": fmt.kind,
        "suit": fmt.suit,
        "units": [{"kind": u.kind.value, "cards": format_cards(u.cards)} for u in fmt.units],
    }


def _lead_format(cards: list[Card], to: TrumpOrder, what: str = "lead") -> Any:
    try:
        return decompose(cards, to, lead=True)
    except PlayError as exc:
        raise RefereeError(f"the {what} is not a valid lead: {exc}") from None


def _follow(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    to = _order(req, rules)
    lead, hand, play = _cards(req, "lead"), _cards(req, "hand"), _cards(req, "play")
    check_copies(lead, hand)
    if len(play) != len(lead):
        raise RefereeError(f"the play has {len(play)} cards but the lead has {len(lead)}")
    rest = list(hand)
    for c in play:
        if c not in rest:
            raise RefereeError(f"the play holds {c}, which is not in the hand")
        rest.remove(c)
    rule = FollowRule(_lead_format(lead, to), hand, to)
    reason = rule.check(play)
    return {"legal": True} if reason is None else {"legal": False, "reason": reason}


def _trick(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    to = _order(req, rules)
    plays_raw = _field(req, "plays")
    if not isinstance(plays_raw, list) or len(plays_raw) != 4 or not all(isinstance(p, str) for p in plays_raw):
        raise RefereeError("plays must be a list of the four plays, each a text of cards, the lead first")
    plays = [parse_cards(p) for p in plays_raw]
    if any(not p for p in plays):
        raise RefereeError("every play must hold at least one card")
    check_copies(*plays)
    fmt = _lead_format(plays[0], to)
    for i, p in enumerate(plays[1:], 1):
        if len(p) != len(plays[0]):
            raise RefereeError(f"play {i} has {len(p)} cards but the lead has {len(plays[0])}")
    res = resolve_trick(plays, to, fmt)
    return {"winner": res.winner, "points": res.points}


def _throw(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    to = _order(req, rules)
    lead = _cards(req, "lead")
    others_raw = _field(req, "others")
    if not isinstance(others_raw, list) or len(others_raw) != 3 or not all(isinstance(h, str) for h in others_raw):
        raise RefereeError("others must be a list of the other three hands, each a text of cards")
    others = [parse_cards(h) for h in others_raw]
    check_copies(lead, *others)
    _lead_format(lead, to)
    res = check_throw(lead, others, to)
    if res.ok:
        return {"ok": True}
    return {
        "ok": False,
        "forced": format_cards(res.forced),
        "penalty_cards": res.penalty_cards,
        "penalty": res.penalty_cards * rules.throw_penalty_per_card,
    }


def _kitty(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    to = _order(req, rules)
    lead, kitty = _cards(req, "lead"), _cards(req, "kitty")
    if len(kitty) != 8:
        raise RefereeError(f"the kitty holds 8 cards, not {len(kitty)}")
    check_copies(lead, kitty)
    fmt = _lead_format(lead, to)
    m = kitty_multiplier(fmt, rules.kitty_multiplier)
    return {"multiplier": m, "points": points_of(kitty) * m}


def _bids(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    level = _level(_field(req, "level"))
    raw = _field(req, "bids")
    if not isinstance(raw, list):
        raise RefereeError("bids must be a list of {player, cards, choose?}")
    bids: list[Bid] = []
    for i, b in enumerate(raw):
        if not isinstance(b, Mapping) or "player" not in b or "cards" not in b:
            raise RefereeError(f"bid {i} must be an object with player and cards")
        player = b["player"]
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player <= 3:
            raise RefereeError(f"bid {i}: player must be 0..3, not {player!r}")
        if not isinstance(b["cards"], str):
            raise RefereeError(f"bid {i}: cards must be a text of cards")
        choose = b.get("choose")
        if choose is not None and not isinstance(choose, str):
            raise RefereeError(f"bid {i}: choose must be s, h, c, d or nt")
        bids.append(Bid.parse(player, b["cards"], choose))
    outcome = evaluate_bids(rules, level, bids)
    standing = outcome.standing
    return {
        "valid": list(outcome.valid),
        "trump": None if standing is None else trump_text(standing.trump),
        "bidder": None if standing is None else standing.player,
    }


def _settle(req: Request) -> dict[str, Any]:
    rules = _rules(req)
    points = _field(req, "points")
    if not isinstance(points, int) or isinstance(points, bool):
        raise RefereeError(f"points must be a whole number, not {points!r}")
    dealer = Progress.from_json(_field(req, "dealer"))
    scoring = Progress.from_json(_field(req, "scoring"))
    failures = req.get("flag_failures") or 0
    if not isinstance(failures, int) or isinstance(failures, bool) or failures < 0:
        raise RefereeError(f"flag_failures must be a non-negative whole number, not {failures!r}")
    to: TrumpOrder | None = None
    if req.get("trump") is not None:
        flag, trump = parse_trump(req["trump"])
        if flag or dealer.level is None:
            to = TrumpOrder.of(rules, None, None)
        else:
            to = TrumpOrder.of(rules, _level(req["level"]) if "level" in req else dealer.level, trump)
    raw_last = req.get("last_trick")
    last = None if raw_last is None else LastTrick.from_json(raw_last)
    raw_red5 = req.get("double_red5")
    red5 = None if raw_red5 is None else Side.parse(raw_red5)
    res = settle(rules, points, dealer, scoring, flag_failures=failures, last_trick=last, double_red5=red5, trump=to)
    return res.to_json()


OPS: dict[str, Callable[[Request], dict[str, Any]]] = {
    "classify": _classify,
    "follow": _follow,
    "trick": _trick,
    "throw": _throw,
    "kitty": _kitty,
    "bids": _bids,
    "settle": _settle,
}


def answer(request: object) -> dict[str, Any]:
    """Answer one referee request (a dict as in REFEREE.md); bad input gives ``{"error": ...}``."""
    rid = request.get("id") if isinstance(request, Mapping) else None
    try:
        if not isinstance(request, Mapping):
            raise RefereeError("a request must be a JSON object")
        op = request.get("op")
        if op not in OPS:
            raise RefereeError(f"unknown op {op!r}; the ops are {', '.join(OPS)}")
        out = OPS[str(op)](request)
    except ValueError as exc:
        out = {"error": str(exc) or type(exc).__name__}
    except Exception as exc:  # never crash on a request: report it in words
        out = {"error": f"the request could not be answered ({type(exc).__name__}: {exc})"}
    if isinstance(request, Mapping) and "id" in request:
        out["id"] = rid
    return out


def run_lines(lines: Iterable[str], out: IO[str]) -> int:
    """Answer JSON lines, one answer per non-blank input line. Returns the exit status."""
    for line in lines:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as exc:
            res: dict[str, Any] = {"error": f"the line is not JSON: {exc.msg} at column {exc.colno}"}
        else:
            res = answer(req)
        out.write(json.dumps(res, ensure_ascii=False) + "\n")
        out.flush()
    return 0
