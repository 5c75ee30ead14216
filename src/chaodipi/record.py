"""Game records: a JSON document with the rules, the seed and every action (docs/record-format.md).

:func:`game_record` writes one from a played :class:`~chaodipi.game.Game`;
:func:`replay` rebuilds the game from a record, re-checking every action against the
rules, and fails with :class:`RecordError` at the first action or result that does
not agree. :func:`describe_game` prints a game hand by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chaodipi.cards import format_cards
from chaodipi.game import Game
from chaodipi.hand import Action, Hand, IllegalActionError, Phase
from chaodipi.rules import RuleSet

__all__ = ["FORMAT", "RecordError", "describe_game", "game_record", "load_record", "replay"]

FORMAT = "chaodipi-record/1"
SEAT_NAMES = ("南 South", "东 East", "北 North", "西 West")
SUIT_WORDS = {"s": "♠ spades 黑桃", "h": "♥ hearts 红桃", "c": "♣ clubs 梅花", "d": "♦ diamonds 方块", "nt": "NT 无主"}


class RecordError(ValueError):
    """A record that cannot be read or does not replay."""


def hand_record(number: int, hand: Hand) -> dict[str, Any]:
    out: dict[str, Any] = {
        "number": number,
        "first_seat": hand.first_seat,
        "dealer": hand.dealer,
        "actions": [a.to_json() for a in hand.actions],
    }
    if hand.phase == Phase.REDEAL:
        out["result"] = "redeal"
    elif hand.result is not None:
        out["result"] = hand.result.to_json()
    return out


def game_record(game: Game, *, players: list[str] | None = None) -> dict[str, Any]:
    """The record of a game (finished or not)."""
    return {
        "format": FORMAT,
        "rules": game.rules.to_spec(),
        "seed": game.seed,
        "players": players or ["random"] * 4,
        "hands": [hand_record(i + 1, h) for i, h in enumerate(game.hands)],
        "winner": game.winner,
        "levels": [p.to_json() for p in game.progress],
        "credits": list(game.credits) if game.rules.credits else None,
    }


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read the record: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(f"{path}: not a {FORMAT} record")
    return data


def replay(record: dict[str, Any]) -> Game:
    """Rebuild a game from its record, checking every action and every hand's result."""
    try:
        rules = RuleSet.from_spec(record["rules"])
        seed = record["seed"]
        hands = record["hands"]
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad record header: {exc}") from None
    if not isinstance(seed, int) or not isinstance(hands, list):
        raise RecordError("the record's seed must be a number and its hands a list")
    game = Game(rules, seed)
    for i, rec in enumerate(hands, 1):
        if game.over:
            raise RecordError(f"hand {i}: the game was already over")
        hand = game.new_hand()
        if rec.get("first_seat") != hand.first_seat:
            raise RecordError(
                f"hand {i}: the record deals from seat {rec.get('first_seat')}, the seed from {hand.first_seat}"
            )
        for k, raw in enumerate(rec.get("actions", []), 1):
            try:
                hand.apply(Action.from_json(raw))
            except (IllegalActionError, ValueError) as exc:
                raise RecordError(f"hand {i}, action {k} ({raw}): {exc}") from None
        hand.deal_all()
        if hand.phase not in (Phase.OVER, Phase.REDEAL):
            break  # an unfinished game: the record ends mid-hand
        expected = rec.get("result")
        got: Any = "redeal" if hand.phase == Phase.REDEAL else hand.result.to_json() if hand.result else None
        if expected is not None and expected != got:
            raise RecordError(f"hand {i}: the record says {expected}, the replay gives {got}")
        game.finish_hand()
    if "winner" in record and game.over and record["winner"] != game.winner:
        raise RecordError(f"the record says team {record['winner']} won, the replay says team {game.winner}")
    return game


def _seat(seat: int | None) -> str:
    return "-" if seat is None else f"{SEAT_NAMES[seat]} ({seat})"


def describe_hand(number: int, hand: Hand) -> Iterator[str]:
    """A readable log of one hand, all cards shown (a finished game has no secrets)."""
    level = "flag 扛旗" if hand.flag else hand.level.symbol if hand.level else "?"
    yield f"── Hand {number} 第{number}副 — level 级牌 {level}, first card to {_seat(hand.first_seat)}"
    if hand.phase == Phase.REDEAL:
        yield "   nobody bid: the cards are dealt again (流庄重新发牌)"
        return
    for seat in range(4):
        dealt = [e.cards[0] for e in hand.iter_events() if e.what == "dealt" and e.player == seat]
        yield f"   {SEAT_NAMES[seat]} dealt: {format_cards(hand.to.sorted(dealt))}"
    trump = "flag: 5h BJ SJ only" if hand.flag else SUIT_WORDS.get("nt" if hand.trump is None else hand.trump.value)
    plays: list[str] = []
    tricks = 0
    for e in hand.iter_events():
        if e.what in ("bid", "bid_void"):
            kind = "bid 亮主/反主" if e.what == "bid" else "void bid (dark) 无效"
            naming = f" naming {e.detail}" if e.detail else ""
            yield f"   {kind}: {_seat(e.player)} shows {format_cards(e.cards)}{naming}"
        elif e.what == "closed":
            yield f"   bidding closed: dealer 庄家 {_seat(e.player)}"
        elif e.what == "kitty_trump":
            yield f"   nobody bid: {e.detail} (kitty 底牌 {format_cards(e.cards)})"
        elif e.what == "kitty_taken":
            yield f"   {_seat(e.player)} picks up the kitty 底牌: {format_cards(e.cards)}"
        elif e.what == "buried":
            yield f"   {_seat(e.player)} buries 扣底: {format_cards(e.cards)}"
        elif e.what == "fried":
            naming = f" naming {e.detail}" if e.detail else ""
            yield f"   {_seat(e.player)} fries 炒底 with {format_cards(e.cards)}{naming}"
        elif e.what == "passed":
            yield f"   {_seat(e.player)} passes"
        elif e.what == "frying_over":
            yield f"   frying over: {e.detail}"
        elif e.what == "played":
            if not plays and tricks == 0:
                yield f"   trump 主: {trump}; order: {hand.to.order_text()}"
            plays.append(f"{SEAT_NAMES[e.player or 0][0]}:{format_cards(e.cards)}")
        elif e.what == "trick":
            tricks += 1
            yield f"   trick {tricks:2}: {'  '.join(plays)}  → {SEAT_NAMES[e.player or 0]} wins {e.detail}"
            plays = []
        elif e.what not in ("dealt", "settled", "redeal"):
            yield f"   {e.describe()}"
    res = hand.result
    if res is not None:
        s = res.settlement
        yield (
            f"   scoring side 抓分方 total p = {res.points} (tricks {res.trick_points}, kou di 抠底 {res.kou_di}"
            + "".join(f", {why} {d:+d}" for why, d in res.adjustments)
            + ")"
        )
        yield (
            f"   → table 台上: {s.table.value} side; dealer side {s.dealer}, scoring side {s.scoring}"
            + (f"; credits {s.credits}" if s.credits else "")
            + (f"; {'; '.join(s.events)}" if s.events else "")
        )


def describe_game(game: Game) -> Iterator[str]:
    """The whole game, hand by hand."""
    overrides = json.dumps(game.rules.to_spec()["set"], ensure_ascii=False)
    yield f"炒地皮 game — rules {game.rules.name} {overrides}, seed {game.seed}"
    for i, hand in enumerate(game.hands, 1):
        yield from describe_hand(i, hand)
        summary = game.history[i - 1] if i - 1 < len(game.history) else None
        if summary is not None:
            levels = ", ".join(
                f"team {t} ({'南北' if t == 0 else '东西'}) {p}" for t, p in enumerate(summary.levels_after)
            )
            yield f"   levels after the hand: {levels}"
    if game.winner is not None:
        yield f"Game over: team {game.winner} ({'南北 South-North' if game.winner == 0 else '东西 East-West'}) wins."
