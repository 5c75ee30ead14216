"""``chaodipi play``: a game in the terminal against three bots.

You sit South (南, seat 0); your partner North and the opponents East and West are bots.
You see your hand sorted by effective suit, the table, trump, points and levels; you may bid
while the cards are dealt, bury, fry, and play by typing cards in the notation (``Ah Ah``,
``10s``, ``BJ``; Tab completes). Commands at any prompt: ``?`` lists the legal choices,
``hint`` shows the rules bot's suggestion, ``auto`` plays it, ``history`` shows the tricks,
``quit`` leaves.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

from chaodipi.bots import make_bot
from chaodipi.bots.base import Bot
from chaodipi.bots.rules_bot import RulesBot
from chaodipi.cards import Card, CardError, format_cards, parse_cards
from chaodipi.driver import Decider, by_view, run_hand
from chaodipi.game import Game, team_of
from chaodipi.hand import Action, Hand, IllegalActionError, Phase, View
from chaodipi.log import ActionKind
from chaodipi.rules import RuleSet
from chaodipi.trump import EFFECTIVE_SUITS, suit_words
from chaodipi.view import BidOption

__all__ = ["TerminalGame", "main"]

SEATS = ("南 South (you)", "东 East", "北 North (partner)", "西 West")
SHORT = ("S", "E", "N", "W")
COMMANDS = ("?", "hint", "auto", "history", "quit", "pass", "nt")


class Quit(Exception):
    """The player typed quit (or the input ended)."""


class TerminalGame:
    """The game loop; ``read`` and ``write`` are the terminal (``input``/``print`` by default)."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        bot: str = "rules",
        seed: int = 1,
        hands: int | None = None,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.rules = rules
        self.game = Game(rules, seed)
        self.bots: list[Bot | None] = [None] + [make_bot(bot, seed=seed * 10 + s) for s in (1, 2, 3)]
        self.advisor = RulesBot(seed)
        self.max_hands = hands
        self.read = read
        self.write = write
        self.hand: Hand | None = None
        self._completions: list[str] = []

    # -- input -------------------------------------------------------------------------------
    def ask(self, prompt: str, view: View) -> str:
        """The player's next line for ``prompt``, stripped; ``?``, ``hint`` and ``history`` are answered on
        the way, and ``quit`` or the end of input raises :class:`Quit`.
        """
        self._completions = sorted({str(c) for c in view.hand}) + list(COMMANDS)
        while True:
            try:
                text = self.read(prompt).strip()
            except EOFError:
                raise Quit() from None
            if text == "quit":
                raise Quit()
            if text == "history":
                self.show_history()
                continue
            if text == "?":
                self.show_legal(view)
                continue
            if text == "hint":
                self.write(f"hint: {self.suggest(view)}")
                continue
            return text

    def completer(self, text: str, state: int) -> str | None:
        """The readline completer: the ``state``-th card of the hand or command starting with ``text``, or None."""
        matches = [c for c in self._completions if c.lower().startswith(text.lower())]
        return matches[state] if state < len(matches) else None

    def suggest(self, view: View) -> str:
        """The rules bot's choice for ``view`` as text: the cards (and the trump a 5h 5h bid names), or ``pass``."""
        action = self.advisor.act(view)
        if action is None:
            return "pass"
        return format_cards(action.cards) + (f" {action.choose}" if action.choose else "") if action.cards else "pass"

    # -- display -----------------------------------------------------------------------------
    def show_hand(self, view: View) -> None:
        """Print South's hand by effective suit, trump first, in the order the view may know."""
        hand = self.hand
        assert hand is not None
        by_suit: dict[str, list[Card]] = {}
        effective = view.order().effective  # never the trump hidden from this seat (RULES §10.5)
        for c in view.hand:
            by_suit.setdefault(effective[c.index], []).append(c)
        self.write("your hand:")
        for suit in EFFECTIVE_SUITS:
            if suit in by_suit:
                self.write(f"  {suit_words(suit):16} {format_cards(by_suit[suit])}")

    def show_table(self, view: View) -> None:
        """Print the level, trump, dealer (庄家), the scoring side's points, both teams' levels and the open trick."""
        g = self.game
        levels = f"levels 级: 南北 {g.progress[0]}, 东西 {g.progress[1]}"
        trump = view.trump if view.trump is not None else "?"
        dealer = "?" if view.dealer is None else SEATS[view.dealer]
        self.write(f"— level {view.level}, trump {trump}, dealer 庄家 {dealer}; scoring side points 分 {view.points}")
        self.write(f"  {levels}")
        if view.current_trick:
            self.write("  on the table: " + "  ".join(f"{SHORT[p]}:{format_cards(c)}" for p, c in view.current_trick))

    def show_legal(self, view: View) -> None:
        """Print what South may do now: the follows, leads, bids or fries, or how many cards to bury."""
        legal = view.legal
        if legal.follows:
            more = " …" if legal.more_follows else ""
            self.write("legal: " + " | ".join(format_cards(p) for p in legal.follows) + more)
        elif legal.leads:
            leads = " | ".join(format_cards(p) for p in legal.leads)
            self.write(f"legal leads: {leads} (or several units of one suit: a throw)")
        elif view.phase in (Phase.DEAL, Phase.COUNTDOWN):
            self.write("legal bids: " + (" | ".join(_bid_text(b) for b in legal.bids) or "none") + " (enter: no bid)")
        elif legal.can_pass:
            self.write("legal fries: " + (" | ".join(_bid_text(b) for b in legal.fries) or "none") + " | pass")
        elif legal.bury:
            self.write(f"bury any {legal.bury} cards of your hand")

    def show_history(self) -> None:
        """Print the finished tricks of this hand: the plays, the winner and the points."""
        hand = self.hand
        if hand is None or not hand.tricks:
            self.write("no tricks yet")
            return
        for i, t in enumerate(hand.tricks, 1):
            plays = "  ".join(f"{SHORT[p]}:{format_cards(c)}" for p, c in t.plays)
            self.write(f"  trick {i:2}: {plays} → {SHORT[t.winner]} ({t.points})")

    def announce(self, start: int) -> None:
        """Print what happened since log entry ``start`` that South may see."""
        hand = self.hand
        assert hand is not None
        for item in hand.visible_events(0, start):
            who = "" if item.player is None else SEATS[item.player] + ": "
            if item.kind == "bid":
                shown = format_cards(item.cards) if item.cards else "(dark bid 暗报)"
                self.write(f"{who}bids {shown} {item.detail}".rstrip())
            elif item.kind == "fried":
                shown = format_cards(item.cards) if item.cards else "(dark fry 暗炒)"
                self.write(f"{who}fries 炒底 {shown} {item.detail}".rstrip())
            elif item.kind == "passed":
                self.write(f"{who}passes")
            elif item.kind == "trick":
                t = hand.tricks[-1]
                plays = "  ".join(f"{SHORT[p]}:{format_cards(c)}" for p, c in t.plays)
                self.write(f"trick: {plays} → {SEATS[t.winner]} wins {t.points}")
            elif item.kind == "closed" and item.player is not None:
                self.write(f"bidding closed: the dealer 庄家 is {SEATS[item.player]}")
            elif item.kind in (
                "throw_failed",
                "kou_di",
                "kitty_shown",
                "forced_red5",
                "kept_red5",
                "fry_failed",
                "frying_over",
                "kitty_trump",
                "redeal",
                "red5_shown",
                "bid_shown",
            ):
                self.write(item.describe())

    # -- the loop ------------------------------------------------------------------------------
    def human(self, hand: Hand, seat: int = 0) -> Action | None:
        """Ask the person at the terminal (South) for an action (a decider for the driver)."""
        view = hand.view(seat)
        phase = hand.phase
        if view.legal.show_red5:
            text = self.ask("show 5h 5h against the flag hand (亮红桃5对)? [y/n] ", view)
            return Action.show_red5(0) if text.lower().startswith("y") else None
        if phase in (Phase.DEAL, Phase.COUNTDOWN):
            self.show_hand(view)
            self.show_legal(view)
            while True:
                text = self.ask("bid> ", view)
                if text in ("", "pass"):
                    return None
                action = self._parse_bid(ActionKind.BID, text)
                if action is None:
                    self.write(f"not cards: {text!r}")
                    continue
                bid = action
                if hand.can_bid(0, bid.cards, bid.choose):
                    return bid
                self.write(f"not a bid you can make now: {self._why(hand.verify_bid, 0, bid.cards, bid.choose)}")
        if phase == Phase.BURY:
            self.show_hand(view)
            self.write(f"you hold the kitty 底牌: bury 8 cards (suggested: {self.suggest(view)})")
            while True:
                text = self.ask("bury> ", view)
                if text == "auto":
                    return self.advisor.act(view)
                try:
                    cards = parse_cards(text)
                except CardError as exc:
                    self.write(str(exc))
                    continue
                if hand.can_bury(0, cards):
                    return Action.bury(0, tuple(cards))
                self.write(self._why(hand.verify_bury, 0, cards))
        if phase == Phase.FRY:
            self.show_hand(view)
            self.show_legal(view)
            while True:
                text = self.ask("fry> ", view)
                if text in ("", "pass"):
                    return Action.pass_fry(0)
                if text == "auto":
                    return self.advisor.act(view)
                action = self._parse_bid(ActionKind.FRY, text)
                if action is not None and hand.can_fry(0, action.cards, action.choose):
                    return action
                self.write(f"not a fry you can make: {text!r}")
        # play
        self.show_table(view)
        self.show_hand(view)
        self.show_legal(view)
        while True:
            text = self.ask("play> ", view)
            if text == "auto":
                return self.advisor.act(view)
            if not text:
                self.write("type the cards to play, e.g. Ah or 9h 9h (? lists the legal plays, hint suggests one)")
                continue
            try:
                cards = parse_cards(text)
            except CardError as exc:
                self.write(f"{exc}")
                continue
            if hand.can_play(0, cards):
                return Action.play(0, tuple(cards))
            self.write(f"illegal: {self._why(hand.verify_play, 0, cards)}")

    @staticmethod
    def _why(check: Callable[..., object], *args: object) -> str:
        try:
            check(*args)
        except (IllegalActionError, ValueError) as exc:
            return str(exc)
        return "not allowed now"

    @staticmethod
    def _parse_bid(kind: ActionKind, text: str) -> Action | None:
        parts = text.split()
        choose = None
        if parts and parts[-1].lower() in ("s", "h", "c", "d", "nt"):
            choose = parts.pop().lower()
        try:
            cards = tuple(parse_cards(" ".join(parts)))
        except CardError:
            return None
        return Action(kind, 0, cards, choose) if cards else None

    def play_hand(self, hand: Hand) -> None:
        """Play one hand through the one driver: South at the terminal, the bots from their views."""
        self.hand = hand
        seen = 0
        last_options: list[BidOption] = []

        def asks(hand: Hand, seat: int) -> bool:
            nonlocal last_options
            if seat != 0:
                return True
            options = hand.possible_bids(0)
            if hand.phase == Phase.DEAL and options == last_options:
                return False  # nothing new to bid with since South was last asked
            last_options = options
            if hand.phase == Phase.DEAL:
                self.write(f"dealt {len(hand.hands[0])} cards to you; you may bid now")
            else:
                self.write("the deal is over: last chance to bid (countdown 倒计时)")
            return True

        def after(hand: Hand) -> None:
            nonlocal seen
            self.announce(seen)
            seen = len(hand.log)

        deciders: list[Decider] = [self.human] + [by_view(bot) for bot in self.bots[1:] if bot is not None]
        run_hand(hand, deciders, asks=asks, after=after)
        if hand.result is not None:
            res = hand.result
            s = res.settlement
            self.write(
                f"hand over: scoring side total {res.points} (tricks {res.trick_points}, kou di {res.kou_di}); "
                f"{'; '.join(s.events)}"
            )

    def run(self) -> int:
        """Play hands until the game is over, the hand limit is reached or the player quits; return 0."""
        played = 0
        try:
            while not self.game.over and (self.max_hands is None or played < self.max_hands):
                hand = self.game.new_hand()
                self.write(f"=== hand {len(self.game.hands)} ===")
                self.play_hand(hand)
                self.game.finish_hand()
                if hand.phase == Phase.OVER:
                    played += 1
            if self.game.winner is not None:
                mine = self.game.winner == team_of(0)
                self.write(f"game over: {'you and North win' if mine else 'East and West win'}!")
        except Quit:
            self.write("bye")
        return 0


def _bid_text(b: BidOption) -> str:
    return format_cards(b.cards) + (f" {b.choose}" if b.choose else "")


def main(preset: str, bot: str, seed: int | None, hands: int | None) -> int:
    """Run the terminal game with readline completion when available."""
    rules = RuleSet.preset(preset)
    game = TerminalGame(rules, bot=bot, seed=seed if seed is not None else random.randrange(1 << 30), hands=hands)
    try:
        import readline

        readline.set_completer(game.completer)
        readline.set_completer_delims(" ")
        readline.parse_and_bind("tab: complete")
    except ImportError:  # pragma: no cover - readline is missing on some platforms
        pass
    game.write(f"炒地皮 — preset {rules.name}; you are South (南), partner North; bots: {bot}. Type ? for help.")
    code = game.run()
    sys.stdout.flush()
    return code
