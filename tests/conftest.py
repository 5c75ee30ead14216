"""Shared helpers for the engine tests."""

from __future__ import annotations

from chaodipi.cards import Card, Rank, parse_cards
from chaodipi.rules import RuleSet
from chaodipi.trump import TrumpOrder, parse_trump


def order(rules: str | RuleSet | dict[str, object], level: str, trump: str) -> TrumpOrder:
    """A TrumpOrder from referee-style arguments: order("standard", "8", "s")."""
    rs = RuleSet.from_spec(rules)
    flag, suit = parse_trump(trump)
    if flag:
        return TrumpOrder.of(rs, None, None)
    return TrumpOrder.of(rs, Rank.parse(level), suit)


def cards(text: str) -> list[Card]:
    return parse_cards(text)
