"""What the engine says to people is data (issue 20): every refusal and every settlement note is a
phrase, a code from :data:`~chaodipi.phrases.PHRASES` with the values its template names, and both
browser catalogues (i18n/phrases-zh.js, i18n/phrases-en.js) word every code with those values."""

from __future__ import annotations

import ast
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.bots import make_bot
from chaodipi.cards import parse_cards
from chaodipi.driver import run_hand
from chaodipi.game import Game
from chaodipi.hand import Hand
from chaodipi.log import Action, IllegalActionError
from chaodipi.phrases import PHRASES, Phrase, PhrasedError, notes_from_json, notes_to_json, say
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.units import PlayError

SRC = Path(__file__).resolve().parent.parent / "src" / "chaodipi"
I18N = SRC / "web" / "static" / "i18n"
#: Values the page adds to every phrase that names cards (how many there are).
PAGE_VALUES = {"count_cards"}


def _catalogue(lang: str) -> dict[str, str]:
    text = (I18N / f"phrases-{lang}.js").read_text(encoding="utf-8")
    return {k: json.loads(f'"{v}"') for k, v in re.findall(r'^\s*"([^"]+)":\s*"((?:[^"\\]|\\.)*)",?\s*$', text, re.M)}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_phrase_has_words_in_both_catalogues(lang: str) -> None:
    words = _catalogue(lang)
    for code, template in PHRASES.items():
        if code == "text":
            continue  # words without a code are shown as they are
        key = f"phrase.{code}"
        assert key in words, f"{lang}: no words for {code}"
        used = set(re.findall(r"\{(\w+)\}", words[key]))
        assert used <= set(template.names) | PAGE_VALUES, f"{lang} {code}: {used - set(template.names)}"
    stale = {k[len("phrase.") :] for k in words if k.startswith("phrase.")} - set(PHRASES)
    assert not stale, f"{lang}: words for codes the engine no longer says: {stale}"


def test_chinese_words_are_chinese() -> None:
    zh = _catalogue("zh")
    english = [k for k, v in zh.items() if k.startswith("phrase.") and not re.search(r"[\u4e00-\u9fff]", v)]
    assert not english, english


def _said() -> list[tuple[str, str, set[str]]]:
    """Every ``say("code", …)`` and ``note("code", …)`` call in the engine: file, code, value names."""
    found: list[tuple[str, str, set[str]]] = []
    for path in SRC.rglob("*.py"):
        if "server" in path.parts or "web" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name not in ("say", "note"):
                continue
            first = node.args[0]
            codes = [first.value] if isinstance(first, ast.Constant) else []
            if isinstance(first, ast.IfExp):  # "a" if … else "b"
                codes = [b.value for b in (first.body, first.orelse) if isinstance(b, ast.Constant)]
            for code in codes:
                found.append((path.name, str(code), {k.arg for k in node.keywords if k.arg}))
    return found


def test_every_code_said_is_known_with_its_values_and_every_known_code_is_said() -> None:
    said = _said()
    assert len(said) > 80
    for where, code, names in said:
        assert code in PHRASES, f"{where}: unknown phrase {code!r}"
        assert names == set(PHRASES[code].names), f"{where}: {code} with {names}, not {PHRASES[code].names}"
    literals = {
        node.value
        for path in SRC.rglob("*.py")
        if path.name != "phrases.py" and "web" not in path.parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    unused = set(PHRASES) - literals - {"text"}
    assert not unused, f"phrases the engine never says: {unused}"


def test_every_english_template_words_its_values() -> None:
    for code, template in PHRASES.items():
        values = {
            n: (tuple(parse_cards("Ah Ah")) if n == "cards" or n.endswith("_cards") else 1) for n in template.names
        }
        text = str(say(code, **values))
        assert text and "{" not in text, code


def test_a_phrase_round_trips_through_json() -> None:
    p = say("follow.pairs", suit="trump", count=2, cards=tuple(parse_cards("BJ BJ 5h 5h")))
    assert p.to_json() == {"code": "follow.pairs", "suit": "trump", "count": 2, "cards": "BJ BJ 5h 5h"}
    assert Phrase.from_json(json.loads(json.dumps(p.to_json()))) == p
    q = say("play.turn", turn=None, player=2)
    assert Phrase.from_json(q.to_json()) == q
    notes = (say("note.to_ace", side="dealer"), say("note.escape_pays", player=1, penalty=80))
    assert notes_from_json(notes_to_json(notes)) == notes
    assert notes_from_json({"notes": ["an older record's words"]}) == (Phrase.text("an older record's words"),)
    with pytest.raises(ValueError, match="phrase"):
        Phrase.from_json({"cards": "Ah"})
    with pytest.raises(ValueError, match="must be a number"):
        Phrase.from_json({"code": "bury.count", "need": {"x": 1}})


def test_errors_carry_their_phrase() -> None:
    err = IllegalActionError(say("play.empty"))
    assert isinstance(err, PhrasedError) and err.phrase == say("play.empty") and str(err) == "play at least one card"
    assert IllegalActionError("words").phrase is None
    assert isinstance(PlayError(say("lead.red5")), PhrasedError)


def _random_action(hand: Hand, rng: random.Random) -> Action:
    """An action of any kind for any seat, mostly wrong: cards from anyone's hand."""
    seat = rng.randrange(4)
    pool = [c for h in hand.hands for c in h] or list(parse_cards("Ah"))
    cards = tuple(rng.sample(pool, min(len(pool), rng.choice([1, 2, 2, 3, 4, 8]))))
    kind = rng.choice(["bid", "fry", "pass", "bury", "play", "play", "play", "show_red5", "close"])
    if kind == "bid":
        return Action.bid(seat, cards[:2], "s" if rng.random() < 0.5 else None)
    if kind == "fry":
        return Action.fry(seat, cards[:2])
    if kind == "pass":
        return Action.pass_fry(seat)
    if kind == "bury":
        return Action.bury(seat, cards)
    if kind == "show_red5":
        return Action.show_red5(seat)
    if kind == "close":
        return Action.close()
    return Action.play(seat, cards)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PRESET_NAMES), st.integers(0, 2**32))
def test_every_refusal_met_in_play_is_a_known_phrase(preset: str, seed: int) -> None:
    """Whole hands with wrong actions tried after each step: each refusal has a phrase whose values
    are the ones its code names, and each settlement note is a known phrase."""
    rng = random.Random(seed)
    game = Game(RuleSet.preset(preset), seed=seed)
    bots = [make_bot("random", seed + s) for s in range(4)]
    seen: set[str] = set()

    def try_wrong(hand: Hand) -> None:
        for _ in range(2):
            try:
                hand.verify_apply(_random_action(hand, rng))
            except IllegalActionError as exc:
                assert exc.phrase is not None, f"a refusal without a phrase: {exc}"
                assert exc.phrase.code in PHRASES and PHRASES[exc.phrase.code].kind == "refusal"
                assert {k for k, _ in exc.phrase.values} == set(PHRASES[exc.phrase.code].names), exc.phrase
                assert str(exc) == str(exc.phrase)
                seen.add(exc.phrase.code)

    for _ in range(2):
        if game.over:
            break
        hand = game.new_hand()
        run_hand(hand, [lambda h, seat: bots[seat].act(h.view(seat))] * 4, after=try_wrong)
        if hand.result is not None:
            for note in hand.result.notes():
                assert note.code in PHRASES and PHRASES[note.code].kind == "note"
        game.finish_hand()
    assert seen
