"""chaodipi: the reference implementation of 炒地皮 (Chao Di Pi).

The rules engine is pure Python: cards → rules → trump → units → play → trick → bidding →
hand → game → settlement, records and the referee that answers single questions. The
objects a user needs are here, at the top level:

>>> import chaodipi
>>> game = chaodipi.Game(chaodipi.RuleSet.preset("standard"), seed=1)
>>> hand = game.new_hand()
>>> hand.deal_all()
>>> view = hand.view(0)
>>> view.phase, len(view.hand)
(<Phase.COUNTDOWN: 'countdown'>, 25)
>>> chaodipi.parse_cards("Ah 10s BJ")
[Card('Ah'), Card('Ts'), Card('BJ')]
"""

from chaodipi.bidding import BidError
from chaodipi.cards import Card, CardError, Rank, Suit, format_cards, parse_cards
from chaodipi.driver import DecisionError, by_view, run_hand
from chaodipi.game import Game, GameError, Match
from chaodipi.hand import DecisionKind, Hand, Pending
from chaodipi.levels import Progress, SettlementError, Side
from chaodipi.log import Action, ActionError, ActionKind, Event, EventKind, IllegalActionError
from chaodipi.observe import Visibility
from chaodipi.outcome import HandResult
from chaodipi.play import FollowRule, check_throw
from chaodipi.record import RecordError, game_record, load_record, replay
from chaodipi.referee import RefereeError, answer
from chaodipi.rules import PRESET_NAMES, RuleError, RuleSet
from chaodipi.settlement import Settlement, settle
from chaodipi.trump import TrumpOrder
from chaodipi.units import PlayError, decompose
from chaodipi.view import BidEntry, BidOption, Legal, Outcome, Phase, TrickRecord, View

__version__ = "0.1.0"

__all__ = [
    "PRESET_NAMES",
    "Action",
    "ActionError",
    "ActionKind",
    "BidEntry",
    "BidError",
    "BidOption",
    "Card",
    "CardError",
    "DecisionError",
    "DecisionKind",
    "Event",
    "EventKind",
    "FollowRule",
    "Game",
    "GameError",
    "Hand",
    "HandResult",
    "IllegalActionError",
    "Legal",
    "Match",
    "Outcome",
    "Pending",
    "Phase",
    "PlayError",
    "Progress",
    "Rank",
    "RecordError",
    "RefereeError",
    "RuleError",
    "RuleSet",
    "Settlement",
    "SettlementError",
    "Side",
    "Suit",
    "TrickRecord",
    "TrumpOrder",
    "View",
    "Visibility",
    "__version__",
    "answer",
    "by_view",
    "check_throw",
    "decompose",
    "format_cards",
    "game_record",
    "load_record",
    "parse_cards",
    "replay",
    "run_hand",
    "settle",
]
