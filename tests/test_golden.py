"""Golden records: whole games of every preset, checked in under tests/golden/, replayed as oracles.

Each record (written by tests/golden/make_golden.py) holds every hand's deal and every action;
the replay re-checks each action against the rules and must give back exactly the stored record:
every dealer, every result and settlement, the winner, the final levels and credits. The games
do not depend on the random policy, the bots or Python's ``random``: the deal, not the seed,
deals each hand. A record that fails here means the rules now behave differently.

Format 1 records (no deals: the seed deals) stay readable. Also here: ``Game.new_hand`` from
a given deal, which is how a record's deals are replayed.
"""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path
from typing import Any

import pytest

from chaodipi.cards import Card, deck, shuffled_deck
from chaodipi.game import Game, GameError
from chaodipi.hand import Action, Phase
from chaodipi.record import RecordError, game_record, load_record, parse_deal, replay
from chaodipi.rules import PRESET_NAMES, RuleSet

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.json"))
V2 = [p for p in FILES if not p.stem.endswith("-v1")]
V1 = [p for p in FILES if p.stem.endswith("-v1")]
Record = dict[str, Any]


def _load(path: Path) -> Record:
    record: Record = load_record(path)  # strict JSON: no repeated keys, no NaN
    return record


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


def test_every_preset_has_golden_games() -> None:
    for preset in PRESET_NAMES:
        assert len([p for p in V2 if p.stem.startswith(f"{preset}-seed")]) >= 2, preset
    assert V1, "at least one record in format 1"
    for path in FILES:
        assert path.stat().st_size < 300_000, path.name
    kinds = {a["a"] for p in V2 for h in _load(p)["hands"] for a in h["actions"]}
    assert kinds == {"bid", "close", "bury", "fry", "pass", "show_red5", "play"}  # every action kind is proved
    assert any(h["result"] == "redeal" for p in V2 for h in _load(p)["hands"])


@pytest.mark.parametrize("path", V2, ids=_ids(V2))
def test_a_golden_record_replays_exactly(path: Path) -> None:
    record = _load(path)
    assert record["format"] == "chaodipi-record/2"
    game = replay(record)
    assert game.over
    assert game_record(game, players=record["players"]) == record


@pytest.mark.parametrize("path", V2, ids=_ids(V2))
def test_the_deal_not_the_seed_drives_the_game(path: Path) -> None:
    record = _load(path)
    for seed in (record["seed"] + 1, 0, -5):
        other = {**record, "seed": seed}
        assert game_record(replay(other), players=record["players"]) == other


def _swap_between_seats(record: Record, i: int) -> Record:
    """Hand ``i``'s deal with two different cards swapped between two seats (still two decks)."""
    out = copy.deepcopy(record)
    hand = out["hands"][i]
    cards = [hand["deal"][2 * k : 2 * k + 2] for k in range(108)]
    a = len(cards) // 2  # a card dealt mid-deal, so that the kitty is not touched
    b = next(b for b in range(a + 1, 100) if (b - a) % 4 != 0 and cards[b] != cards[a])
    cards[a], cards[b] = cards[b], cards[a]
    hand["deal"] = "".join(cards)
    parse_deal(hand["deal"])  # a valid deal: only who got what changed
    return out


@pytest.mark.parametrize("path", V2, ids=_ids(V2))
def test_a_card_moved_to_another_seat_does_not_pass(path: Path) -> None:
    """Every dealt card of a played hand is played or buried by whoever holds it: the actions no longer fit."""
    record = _load(path)
    played = [i for i, h in enumerate(record["hands"]) if isinstance(h["result"], dict)]
    for i in (played[0], played[-1]):
        with pytest.raises(RecordError) as info:
            replay(_swap_between_seats(record, i))
        assert re.match(rf"hand {i + 1}, action \d+ \(", str(info.value)), info.value


@pytest.mark.parametrize("path", V1, ids=_ids(V1))
def test_a_format_1_record_replays_from_its_seed(path: Path) -> None:
    record = _load(path)
    assert record["format"] == "chaodipi-record/1" and all("deal" not in h for h in record["hands"])
    game = replay(record)
    assert game.over
    # written again it is a format 2 record: the same game, with its deals
    again = game_record(game, players=record["players"])
    assert again == _load(GOLDEN / path.name.replace("-v1", ""))
    assert [{k: v for k, v in h.items() if k != "deal"} for h in again["hands"]] == record["hands"]
    # without deals the seed deals every hand: another seed does not replay
    with pytest.raises(RecordError, match=r"^hand 1\b"):
        replay({**record, "seed": record["seed"] + 1})


# -- Game.new_hand from a given deal ---------------------------------------------------------

STANDARD = RuleSet.preset("standard")


def _redeal(game: Game, **kw: Any) -> None:
    """Start the next first hand and let nobody bid: a redeal (流庄)."""
    hand = game.new_hand(**kw)
    hand.deal_all()
    hand.close_bidding()
    assert hand.phase == Phase.REDEAL
    game.finish_hand()


def test_without_a_deal_the_seed_shuffles() -> None:
    rng = random.Random(11)
    hand = Game(STANDARD, 11).new_hand()
    assert list(hand.deck) == shuffled_deck(rng) and hand.first_seat == rng.randrange(4)


def test_a_given_deal_and_first_seat_are_used() -> None:
    cards = list(reversed(deck()))
    hand = Game(STANDARD, 11).new_hand(deck=cards, first_seat=2)
    assert list(hand.deck) == cards and hand.first_seat == 2 and hand.dealer is None
    hand.deal_card()
    assert hand.hands[2] == [Card.parse("BJ")]


def test_a_given_deal_keeps_the_generator_in_step() -> None:
    """The hands after a given deal are the ones the seed alone would deal."""
    given, seeded = Game(STANDARD, 5), Game(STANDARD, 5)
    _redeal(given, deck=deck(), first_seat=1)
    _redeal(seeded)
    assert given.hands[0].deck != seeded.hands[0].deck
    assert given.new_hand().deck == seeded.new_hand().deck
    assert given.hands[1].first_seat == seeded.hands[1].first_seat


def test_a_redeal_is_dealt_from_any_seat() -> None:
    game = Game(STANDARD, 5)
    _redeal(game, first_seat=3)
    assert game.next_dealer is None and game.new_hand(first_seat=0).first_seat == 0


def test_once_a_dealer_is_known_the_first_card_is_the_dealers() -> None:
    first = _load(GOLDEN / "standard-seed21.json")["hands"][0]
    game = Game(STANDARD, 21)
    hand = game.new_hand(deck=parse_deal(first["deal"]), first_seat=first["first_seat"])
    for a in first["actions"]:
        hand.apply(Action.from_json(a))
    game.finish_hand()
    dealer = game.next_dealer
    assert dealer is not None
    state, hands = game.rng.getstate(), len(game.hands)
    with pytest.raises(GameError, match=rf"the dealer, seat {dealer}, receives the first card, not seat"):
        game.new_hand(first_seat=(dealer + 1) % 4)
    assert game.rng.getstate() == state and len(game.hands) == hands  # a refused hand changes nothing
    assert game.new_hand(deck=deck(), first_seat=dealer).first_seat == dealer


@pytest.mark.parametrize(
    "cards",
    [deck()[:-1], [*deck(), Card.parse("BJ")], [*deck()[:-1], Card.parse("2s")], [str(c) for c in deck()], []],
    ids=["107 cards", "109 cards", "a third 2s", "texts", "none"],
)
def test_a_deck_that_is_not_two_decks_is_refused(cards: list[Any]) -> None:
    game = Game(STANDARD, 5)
    state = game.rng.getstate()
    with pytest.raises(GameError, match=r"^deck: a hand is dealt the 108 cards of two decks"):
        game.new_hand(deck=cards)
    assert game.rng.getstate() == state and game.hands == []


@pytest.mark.parametrize("seat", [4, -1, True, 1.0, "0"])
def test_a_first_seat_is_a_seat(seat: Any) -> None:
    with pytest.raises(GameError, match=r"^the first seat is a seat 0\.\.3"):
        Game(STANDARD, 5).new_hand(first_seat=seat)
