"""What the engine says to people, as data: a refusal's reason or a settlement's note is a
:class:`Phrase`, a code and its values (the suit, the count, the cards), beside its English text.

A page words a phrase in its reader's language from the code and the values; ``str(phrase)`` is
the English. Every code the engine may say is in :data:`PHRASES` (docs/protocol.md lists the value
names and how each kind of value is written).

>>> from chaodipi.cards import parse_cards
>>> p = say("follow.suit", suit="h", need=1, played=0, held=1, cards=tuple(parse_cards("Kh")))
>>> str(p)
'you must follow with 1 hearts; you played 0 (you hold Kh)'
>>> p.to_json()
{'code': 'follow.suit', 'suit': 'h', 'need': 1, 'played': 0, 'held': 1, 'cards': 'Kh'}
>>> Phrase.from_json(p.to_json()) == p
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from chaodipi.cards import Card, format_cards, parse_cards

__all__ = [
    "CARD_KEYS",
    "PHRASES",
    "Phrase",
    "PhrasedError",
    "Template",
    "Value",
    "notes_from_json",
    "notes_to_json",
    "say",
]

#: A phrase's value: a number, a word (a suit, a side, a phase, a rank), some cards, some words, or
#: nothing (None: a seat not known yet).
Value = int | str | tuple[Card, ...] | tuple[str, ...] | None
Values = Mapping[str, Value]


def _is_card_key(name: str) -> bool:
    return name == "cards" or name.endswith("_cards")


#: Value names that hold cards (written as card text, ``"Ah Ah Kh"``, on the wire).
CARD_KEYS = "cards, *_cards"


@dataclass(frozen=True, slots=True)
class Phrase:
    """One thing the engine says: ``code`` (a key of :data:`PHRASES`) and its ``values`` in order."""

    code: str
    values: tuple[tuple[str, Value], ...] = ()

    def get(self, name: str) -> Value:
        """The value called ``name`` (KeyError if the phrase has none)."""
        for key, value in self.values:
            if key == name:
                return value
        raise KeyError(name)

    def __str__(self) -> str:
        template = PHRASES.get(self.code)
        if template is None:
            return self.code
        return template.english(dict(self.values))

    def to_json(self) -> dict[str, Any]:
        """``{"code": …, name: value, …}``: cards as card text, words as lists of texts."""
        out: dict[str, Any] = {"code": self.code}
        for key, value in self.values:
            if isinstance(value, tuple):
                out[key] = format_cards(value) if _is_card_key(key) else list(value)  # type: ignore[arg-type]
            else:
                out[key] = value
        return out

    @classmethod
    def from_json(cls, obj: object) -> Phrase:
        """Read :meth:`to_json`'s object; raises ValueError if it is not one."""
        if not isinstance(obj, dict) or not isinstance(obj.get("code"), str):
            raise ValueError(f"a phrase is an object with a 'code' text, not {obj!r}")
        values: list[tuple[str, Value]] = []
        for key, value in obj.items():
            if key == "code":
                continue
            if _is_card_key(key) and isinstance(value, str):
                values.append((key, tuple(parse_cards(value))))
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                values.append((key, tuple(value)))
            elif value is None or (isinstance(value, int | str) and not isinstance(value, bool)):
                values.append((key, value))
            else:
                raise ValueError(f"a phrase's {key!r} must be a number, a text or a list of texts, not {value!r}")
        return cls(obj["code"], tuple(values))

    @classmethod
    def text(cls, words: str) -> Phrase:
        """Words that have no code (an older record's note): the page shows them as they are."""
        return cls("text", (("text", words),))


def say(code: str, **values: Value) -> Phrase:
    """The phrase ``code`` with these values (the names are the template's: see :data:`PHRASES`)."""
    return Phrase(code, tuple(values.items()))


def notes_to_json(notes: tuple[Phrase, ...]) -> dict[str, Any]:
    """Notes on the wire: ``notes``, their English line by line, and ``note_data``, each as data."""
    return {"notes": [str(n) for n in notes], "note_data": [n.to_json() for n in notes]}


def notes_from_json(obj: Mapping[str, Any]) -> tuple[Phrase, ...]:
    """Read :func:`notes_to_json`'s fields; notes without ``note_data`` (older records) are read as words."""
    data = obj.get("note_data")
    if data is not None:
        if not isinstance(data, list):
            raise ValueError("note_data must be a list of phrases")
        return tuple(Phrase.from_json(n) for n in data)
    notes = obj.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise ValueError("notes must be a list of texts")
    return tuple(Phrase.text(n) for n in notes)


class PhrasedError(ValueError):
    """An error whose reason is a :class:`Phrase` (``phrase``; None when given only words)."""

    def __init__(self, reason: Phrase | str) -> None:
        super().__init__(str(reason))
        self.phrase: Phrase | None = reason if isinstance(reason, Phrase) else None


# -- the words -----------------------------------------------------------------------------


def _cards(v: Values, key: str = "cards") -> str:
    value = v[key]
    if not isinstance(value, tuple):
        return str(value)
    return format_cards(value)  # type: ignore[arg-type]


_SUITS = {"trump": "trumps", "s": "spades", "h": "hearts", "c": "clubs", "d": "diamonds", "nt": "no-trump"}


def _suit(v: Values, key: str = "suit") -> str:
    return _SUITS.get(str(v[key]), str(v[key]))


def _suits(v: Values) -> str:
    value = v["suits"]
    return ", ".join(value) if isinstance(value, tuple) else str(value)  # type: ignore[arg-type]


def _plural(n: Value, one: str, many: str) -> str:
    return one if n == 1 else many


def _count(v: Values, key: str = "cards") -> int:
    value = v[key]
    return len(value) if isinstance(value, tuple) else 1


@dataclass(frozen=True, slots=True)
class Template:
    """A code's value names and its English words."""

    kind: str  # "refusal" or "note"
    names: tuple[str, ...]
    english: Callable[[Values], str]


def _r(names: str, english: Callable[[Values], str]) -> Template:
    return Template("refusal", tuple(names.split()), english)


def _n(names: str, english: Callable[[Values], str]) -> Template:
    return Template("note", tuple(names.split()), english)


#: Every phrase the engine says: refusals (a reason an action is not allowed) and notes (a
#: settlement line by line). Value names: seats ``player``, ``turn``, ``holder``, ``dealer``,
#: ``standing_player`` (0..3); sides ``side``, ``winner`` (``dealer`` or ``scoring``); ranks
#: ``level``, ``drop``; ``suit`` (an effective suit: ``trump``, ``s``, ``h``, ``c``, ``d``);
#: ``suits`` (a list of them); ``phase``; cards in ``cards`` and ``*_cards``; the rest are numbers
#: or texts.
PHRASES: dict[str, Template] = {
    # a hand's set-up and the deal
    "hand.deck": _r("", lambda v: "a hand needs the 108 cards of two decks"),
    "hand.seats": _r("", lambda v: "seats are 0..3"),
    "hand.flag_dealer": _r("", lambda v: "a flag hand's dealer is known"),
    "action.unknown": _r("text", lambda v: f"not an action: {v['text']}"),
    "deal.phase": _r("phase", lambda v: f"no card to deal in phase {v['phase']}"),
    "deal.pending": _r(
        "action dealt deal_size",
        lambda v: f"{v['action']} comes after the deal, and {v['dealt']} of {v['deal_size']} cards are dealt",
    ),
    "not_held": _r("player cards", lambda v: f"player {v['player']} does not hold {_cards(v)}"),
    # bidding 亮主 (RULES §9)
    "bid.flag": _r("", lambda v: "a flag hand has no bidding: only 5h, BJ and SJ are trump (RULES §11.6)"),
    "bid.phase": _r("phase", lambda v: f"bids are made during the deal and its countdown, not in phase {v['phase']}"),
    "bid.recorded_after": _r(
        "at dealt deal_size",
        lambda v: f"a bid recorded after {v['at']} cards, but {v['dealt']} of {v['deal_size']} are dealt",
    ),
    "bid.choose": _r("text", lambda v: f"choose must be one of s, h, c, d or nt, not {v['text']}"),
    "bid.red5_choose": _r("", lambda v: "a 5h 5h bid must name its trump: choose s, h, c, d or nt"),
    "bid.no_choose": _r("cards", lambda v: f"only a 5h 5h bid names a trump; {_cards(v)} takes no choose"),
    "bid.alone": _r(
        "cards", lambda v: f"{_cards(v)} cannot be shown alone: jokers and 5h declare only as a pair (RULES §9.2)"
    ),
    "bid.not_level": _r("cards level", lambda v: f"{_cards(v)} is not a level card (the level is {v['level']})"),
    "bid.two_levels": _r("cards", lambda v: f"{_cards(v)} are two different level cards, not a pair (RULES §4)"),
    "bid.not_pair": _r("cards", lambda v: f"{_cards(v)} is not a pair of identical cards"),
    "bid.pair_not_level": _r(
        "cards level", lambda v: f"{_cards(v)} is a pair but not of level cards (the level is {v['level']})"
    ),
    "bid.none": _r("", lambda v: "a bid shows one or two cards, not none"),
    "bid.too_many": _r("cards", lambda v: f"a bid shows one level card or a pair, not {_count(v)} cards ({_cards(v)})"),
    "bid.single_late": _r("", lambda v: "a single card can only be the first bid of the hand"),
    "bid.single_not_first": _r(
        "standing_player standing_cards",
        lambda v: (
            "a single card can only be the first bid of the hand; "
            f"player {v['standing_player']}'s {_cards(v, 'standing_cards')} stands"
        ),
    ),
    "bid.own_standing": _r(
        "player", lambda v: f"player {v['player']} cannot override their own standing bid (RULES §9.3)"
    ),
    "bid.own_last": _r(
        "player",
        lambda v: (
            f"player {v['player']} made the last bid the table saw, and it stands: "
            "nobody overrides their own bid (不得自反, RULES §9.3, §10.5)"
        ),
    ),
    "bid.own_repeat": _r("player cards", lambda v: f"player {v['player']} already showed {_cards(v)}"),
    "bid.own_weaker": _r(
        "player cards", lambda v: f"{_cards(v)} does not outrank player {v['player']}'s own earlier bid"
    ),
    "bid.lookback_weaker": _r(
        "cards standing_player standing_cards bid_order",
        lambda v: (
            f"the look-back {_cards(v)} is not stronger than player {v['standing_player']}'s "
            f"{_cards(v, 'standing_cards')} (the bid order: {v['bid_order']})"
        ),
    ),
    "bid.weaker": _r(
        "cards standing_player standing_cards bid_order",
        lambda v: (
            f"{_cards(v)} is not stronger than player {v['standing_player']}'s standing "
            f"{_cards(v, 'standing_cards')} (the bid order: {v['bid_order']})"
        ),
    ),
    "close.phase": _r("phase", lambda v: f"bidding closes after the deal, not in phase {v['phase']}"),
    # the kitty 底牌 and frying 炒底 (RULES §10)
    "bury.phase": _r("phase", lambda v: f"nothing to bury in phase {v['phase']}"),
    "bury.holder": _r(
        "holder player", lambda v: f"player {v['holder']} holds the kitty and buries, not player {v['player']}"
    ),
    "bury.count": _r("need n", lambda v: f"bury exactly {v['need']} cards, not {v['n']}"),
    "fry.phase": _r("phase", lambda v: f"no frying in phase {v['phase']}"),
    "fry.turn": _r("turn player", lambda v: f"player {v['turn']} is asked to fry now, not player {v['player']}"),
    "fry.single": _r("", lambda v: "a single card cannot fry: a fry is an override by a pair (RULES §10.2, §9.3)"),
    "fry.nobody_bid": _r("", lambda v: "nobody bid this hand, so nobody may fry (RULES §9.5)"),
    "fry.reinforce": _r("", lambda v: "showing the twin of one's own bid reinforces it; it is not a fry (RULES §10.2)"),
    # play (RULES §5–§7)
    "play.phase": _r("phase", lambda v: f"no card play in phase {v['phase']}"),
    "play.turn": _r("turn player", lambda v: f"it is player {v['turn']}'s turn, not player {v['player']}'s"),
    "play.empty": _r("", lambda v: "play at least one card"),
    "play.first_lead": _r(
        "dealer player", lambda v: f"player {v['dealer']} leads the first trick, not player {v['player']}"
    ),
    "lead.mixed": _r("cards suits", lambda v: f"not a lead: {_cards(v)} mixes effective suits: {_suits(v)}"),
    "lead.red5": _r("", lambda v: "not a lead: 5h may be led with hearts only inside a heart 5·10·K (红心5下放)"),
    "trick.no_lead": _r("", lambda v: "a trick needs at least the lead"),
    "trick.sizes": _r("play n lead", lambda v: f"play {v['play']} has {v['n']} cards; the lead has {v['lead']}"),
    "follow.count": _r(
        "n played", lambda v: f"the lead has {v['n']} {_plural(v['n'], 'card', 'cards')}; you played {v['played']}"
    ),
    "follow.not_held": _r("cards", lambda v: f"{_cards(v)} {_plural(_count(v), 'is', 'are')} not in your hand"),
    "follow.all_suit": _r(
        "suit held cards",
        lambda v: f"you must play all your {_suit(v)} ({v['held']}) before other cards ({_cards(v)})",
    ),
    "follow.suit": _r(
        "suit need played held cards",
        lambda v: f"you must follow with {v['need']} {_suit(v)}; you played {v['played']} (you hold {_cards(v)})",
    ),
    "follow.trump_ftk": _r(
        "cards", lambda v: f"a trump 5·10·K was led: you must play your trump 5·10·K (逼大主): {_cards(v)}"
    ),
    "follow.top_trumps": _r(
        "cards", lambda v: f"a trump 5·10·K was led: you must play your highest trumps (调大主): {_cards(v)}"
    ),
    "follow.ftk": _r(
        "suit cards", lambda v: f"you hold a 5·10·K in {_suit(v)} and must play it (跟5·10·K): {_cards(v)}"
    ),
    "follow.tractor": _r(
        "suit cards", lambda v: f"you hold a tractor in {_suit(v)} and must play it (跟拖拉机): {_cards(v)}"
    ),
    "follow.pairs": _r(
        "suit count cards",
        lambda v: (
            f"you hold {_plural(v['count'], 'a pair', 'pairs')} in {_suit(v)} and must play "
            f"{_plural(v['count'], 'it', 'them')} (跟对): {_cards(v)}"
        ),
    ),
    # showing 5h 5h against a flag hand, leaving
    "red5.option": _r("", lambda v: "showing 5h 5h counts only in a flag hand with the double_red5 option"),
    "red5.when": _r("", lambda v: "5h 5h is shown after the deal, before the first card is played"),
    "red5.side": _r("", lambda v: "only the scoring side shows 5h 5h against the flag hand"),
    "red5.again": _r("", lambda v: "5h 5h was already shown"),
    "leave.over": _r("state", lambda v: f"the hand is {v['state']}: nobody leaves it now"),
    "leave.again": _r("player", lambda v: f"player {v['player']} has already left this hand"),
    # a referee's penalty (RULES §14.4)
    "penalty.over": _r(
        "state", lambda v: f"the hand is {v['state']}: a penalty now counts in the game's result, not in this hand"
    ),
    "penalty.no_dealer": _r(
        "",
        lambda v: (
            "the sides are not known before bidding ends in a game's first hand: give the points once the dealer is"
        ),
    ),
    # the settlement 结算 (RULES §11), line by line
    "note.table_keep": _n(
        "points threshold gain",
        lambda v: (
            f"level table: p = {v['points']} < {v['threshold']}, dealer side keeps the table (保庄), "
            f"nominal +{v['gain']}"
        ),
    ),
    "note.table_take": _n(
        "points threshold gain",
        lambda v: (
            f"level table: p = {v['points']} ≥ {v['threshold']}, scoring side takes the table (上台), "
            f"nominal +{v['gain']}"
        ),
    ),
    "note.flag_still": _n("side", lambda v: f"{v['side']} side is at flag (扛旗) and does not move"),
    "note.must_play": _n("side level", lambda v: f"{v['side']} side stops at must-play level {v['level']} (必打)"),
    "note.next_circle": _n("side circle", lambda v: f"{v['side']} side passes A into circle {v['circle']}"),
    "note.flag_stays": _n("side", lambda v: f"{v['side']} side is at flag (扛旗) and stays there"),
    "note.to_ace": _n("side", lambda v: f"{v['side']} side goes straight to A (上天)"),
    "note.flag_not_down": _n("side", lambda v: f"{v['side']} side is at flag (扛旗) and is not moved down"),
    "note.to_two": _n("side", lambda v: f"{v['side']} side goes back to 2 (入地)"),
    "note.pass_ace_flag": _n("", lambda v: "dealer side passes A and goes to the flag hand (扛旗)"),
    "note.pass_ace_wins": _n("", lambda v: "dealer side passes A and wins the game"),
    "note.flag_no_ending": _n("", lambda v: "no 上天入地 or J到底 in a flag hand: the last trick changes nothing"),
    "note.institute_zero": _n("", lambda v: "institute table, p ≤ 0: dealer side goes straight to A"),
    "note.ftk_last": _n(
        "winner",
        lambda v: (
            f"上天入地: {v['winner']} side won the last trick with a pure 5·10·K "
            f"({'抠底' if v['winner'] == 'scoring' else '保底'})"
        ),
    ),
    "note.ftk_koudi": _n("", lambda v: "上天入地: scoring side kou-di with a 5·10·K (抠底)"),
    "note.keep_from_two": _n("", lambda v: "dealer side keeps the table from level 2"),
    "note.red5_won": _n("side", lambda v: f"上天入地: the {v['side']} side bid 5h 5h and wins the hand"),
    "note.red5_lost": _n("side", lambda v: f"上天入地: the {v['side']} side bid 5h 5h and loses the hand"),
    "note.jack_last": _n(
        "cards drop",
        lambda v: f"J到底: scoring side won the last trick with {_cards(v)}; dealer side drops to {v['drop']}",
    ),
    "note.jack_koudi": _n(
        "cards drop", lambda v: f"J到底: scoring side kou-di with {_cards(v)}; dealer side goes back to {v['drop']}"
    ),
    "note.keep_plays_j": _n("", lambda v: "dealer side keeps the table and plays J"),
    "note.flag_won": _n("", lambda v: "flag side wins its flag hand (扛旗) and the game"),
    "note.flag_failed": _n("", lambda v: "flag side fails its flag hand (扛旗)"),
    "note.flag_red5": _n("", lambda v: "上天入地: scoring side showed 5h 5h; flag side back to A"),
    "note.scoring_to_flag": _n("", lambda v: "scoring side was at A and goes to the flag hand (扛旗)"),
    "note.flag_red5_nothing": _n("", lambda v: "a 5h 5h shown by the flag side changes nothing"),
    "note.flag_back": _n("count", lambda v: f"flag side lost {v['count']} flag hands in a row and goes back to A"),
    "note.escape_pays": _n("player penalty", lambda v: f"逃跑: player {v['player']} pays {v['penalty']} credits"),
    "note.escape_free": _n("player", lambda v: f"逃跑: player {v['player']} left, no penalty"),
    "text": _n("text", lambda v: str(v["text"])),
}
