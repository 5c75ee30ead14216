"""Typed event payloads (issue 19): what an event says is data, not prose, on the wire and in the engine."""

from __future__ import annotations

import random

import pytest

from chaodipi.cards import parse_cards, shuffled_deck
from chaodipi.driver import run_hand
from chaodipi.hand import Hand
from chaodipi.log import (
    Event,
    EventKind,
    KouDi,
    Left,
    Named,
    Settled,
    ShownBid,
    ThrowFailed,
    TrickWon,
    TrumpSet,
)
from chaodipi.observe import seen_by
from chaodipi.phrases import Phrase, say
from chaodipi.rules import PRESETS, RuleSet
from chaodipi.simulate import RandomPolicy

P = parse_cards

#: The payload each kind of event carries, where it has one.
PAYLOAD = {
    EventKind.KITTY_TRUMP: TrumpSet,
    EventKind.FRYING_OVER: TrumpSet,
    EventKind.THROW_FAILED: ThrowFailed,
    EventKind.TRICK: TrickWon,
    EventKind.KOU_DI: KouDi,
    EventKind.LEFT: Left,
    EventKind.SETTLED: Settled,
}


@pytest.mark.parametrize(
    "event",
    [
        Event(EventKind.BID, 1, tuple(P("5h 5h")), detail="s", valid=True, data=Named("s")),
        Event(EventKind.FRYING_OVER, 2, tuple(P("8h 8h")), detail="trump h", data=TrumpSet("h")),
        Event(
            EventKind.FRYING_OVER,
            2,
            (),
            detail="trump nt; bid 1: 8h; fry 2: BJ BJ",
            data=TrumpSet(
                "nt", (ShownBid(1, False, tuple(P("8h")), True), ShownBid(2, True, tuple(P("BJ BJ")), False))
            ),
        ),
        Event(
            EventKind.THROW_FAILED, 0, tuple(P("As Ks")), 10, "甩牌失败: must lead Ks", data=ThrowFailed(tuple(P("Ks")))
        ),
        Event(EventKind.TRICK, 3, (), 25, "25 points", data=TrickWon(25)),
        Event(EventKind.KOU_DI, 1, tuple(P("5c 10c Kc 2s 3s 4s 6s 7s")), 100, "抠底 ×4", data=KouDi(4)),
        Event(EventKind.LEFT, 2, detail="逃跑: player 2 left; no penalty", data=Left("no penalty")),
        Event(
            EventKind.SETTLED, None, (), 0, "a; b", data=Settled((Phrase.text("a"), say("note.to_ace", side="dealer")))
        ),
    ],
)
def test_payloads_round_trip_on_the_wire(event: Event) -> None:
    wire = event.to_json()
    assert Event.from_json(wire) == event
    assert wire["e"] == event.kind.value and set(wire) >= {"e"}


def test_a_wire_event_of_the_wrong_shape_is_refused_in_words() -> None:
    from chaodipi.log import ActionError

    with pytest.raises(ActionError, match="won must be a whole number"):
        Event.from_json({"e": "trick", "p": 1, "won": "ten"})
    with pytest.raises(ActionError, match="notes must be a list"):
        Event.from_json({"e": "settled", "notes": "a"})


def test_older_events_without_payload_still_read() -> None:
    """Events written before the payloads (only ``detail``) are read, with no data."""
    assert Event.from_json({"e": "trick", "p": 1, "points": 5, "detail": "5 points"}).data is None


def test_a_dark_bid_hides_its_named_trump_from_the_others() -> None:
    ev = Event(EventKind.BID, 1, tuple(P("5h 5h")), detail="s", valid=True, data=Named("s"))
    seen = seen_by(ev, 2, dark=True)
    assert seen is not None and seen.data is None and not seen.detail and not seen.cards
    own = seen_by(ev, 1, dark=True)
    assert own is not None and own.data == Named("s") and own.valid is None


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_hand_carries_the_payloads_its_readers_need(preset: str) -> None:
    rules = RuleSet.preset(preset)
    for seed in range(6):
        hand = Hand(rules, shuffled_deck(random.Random(seed)), first_seat=seed % 4, dealer=seed % 4)
        if seed == 3:
            hand.leave(1)
        run_hand(hand, [RandomPolicy(random.Random(seed)).decide] * 4)
        for e in hand.iter_events():
            want = PAYLOAD.get(e.kind)
            if want is not None:
                assert isinstance(e.data, want), e
            if e.kind in (EventKind.BID, EventKind.FRIED):
                assert (e.data is None) == (len(e.cards) != 2 or e.cards[0] != P("5h")[0] or not e.detail)
        trick_points = [e.data.won for e in hand.iter_events() if isinstance(e.data, TrickWon)]
        assert trick_points == [t.points for t in hand.tricks]
        settled = [e for e in hand.iter_events() if e.kind is EventKind.SETTLED]
        assert settled and isinstance(settled[0].data, Settled)
        assert hand.result is not None and settled[0].data.notes == hand.result.notes()
