"""``chaodipi play``: a game at a card table in the terminal, against three bots.

You sit South (南, seat 0); your partner North and the opponents East and West are bots.
Each time you act you see the table: level and trump in words and symbols, the dealer
(庄家), both sides' levels, the points taken, how many cards each player holds, the trick
on the table and the previous one, and your hand by suit (never grouped by a trump you
cannot know yet). What the others do is told in words, in Chinese and English. A hand ends
on a settlement screen (结算) that waits for Enter.

Type cards in the notation (``Ah Ah``, ``10s``, ``BJ``; Tab completes). At every prompt:
``?`` help, ``legal`` lists your choices, ``hint`` shows the rules bot's choice, ``auto``
plays it, ``history`` the tricks so far, ``kitty`` the kitty you picked up and buried,
``quit`` leaves (so does Ctrl-C). Colours follow ``NO_COLOR``.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from chaodipi.bots import make_bot
from chaodipi.bots.base import Bot
from chaodipi.bots.rules_bot import RulesBot
from chaodipi.cards import Card, CardError, format_cards, parse_cards
from chaodipi.driver import Decider, by_view, run_hand
from chaodipi.game import Game, team_of
from chaodipi.hand import Action, Hand, IllegalActionError, Phase, View
from chaodipi.levels import Progress, Side
from chaodipi.log import ActionKind, Event, EventKind, KouDi, Named, ThrowFailed, TrickWon, TrumpSet
from chaodipi.rules import RuleSet
from chaodipi.settlement import SpecialEnding
from chaodipi.trump import EFFECTIVE_SUITS, parse_trump, suit_words, trump_words
from chaodipi.view import BidOption

__all__ = ["TerminalGame", "main"]

SEATS = ("南 South (you)", "东 East", "北 North (partner)", "西 West")
SHORT = ("南 You", "东 East", "北 North", "西 West")
TEAMS = ("南北 you & North", "东西 East & West")
COMMANDS = ("?", "help", "legal", "hint", "auto", "history", "kitty", "quit", "pass", "nt")
HELP = """commands 命令 (at every prompt):
  cards     play, bid or bury them: Ah Ah · 10s · BJ · 5h 5h nt (a 5h pair names its trump)
  legal     list what you may do now 可出的牌
  hint      the rules bot's choice 提示        auto   let it choose for you 托管
  history   the tricks so far 出牌记录         kitty  the kitty you picked up and buried 底牌
  pass      no bid / do not fry 不亮 / 不炒    quit   leave the game (Ctrl-C too) 退出"""
SPECIAL_WORDS = {
    SpecialEnding.SHANGTIAN_FTK: "上天入地 heaven and earth: 5·10·K in the last trick",
    SpecialEnding.SHANGTIAN_RED5: "上天入地 heaven and earth: the double 5h bid",
    SpecialEnding.JACK: "J到底 jack to the bottom",
}


class Quit(Exception):
    """The player typed quit (or the input ended)."""


def _seat_words(text: str) -> str:
    """Engine text for people: ``player 2`` becomes ``北 North``."""
    return re.sub(r"player (\d)", lambda m: SHORT[int(m.group(1))], text)


def _trump_text(view: View) -> str:
    if view.trump == "flag":
        return "扛旗 flag hand: only 5h BJ SJ are trump"
    if view.trump is None:
        dark = view.phase not in (Phase.DEAL, Phase.COUNTDOWN) and view.dealer is not None
        return "hidden 暗 until frying ends" if dark else "not declared yet 未亮主"
    return trump_words(parse_trump(view.trump)[1])


def _own_kitty(view: View) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The kitty the seat last picked up this hand and what it buried since (read from its own events)."""
    picked_up: tuple[Card, ...] = ()
    buried: tuple[Card, ...] = ()
    for e in view.events:
        if e.player == view.seat and e.kind is EventKind.KITTY_TAKEN:
            picked_up, buried = e.cards, ()
        elif e.player == view.seat and e.kind is EventKind.BURIED:
            buried = e.cards
    return picked_up, buried


def _bid_text(b: BidOption) -> str:
    return format_cards(b.cards) + (f" {b.choose}" if b.choose else "")


class TerminalGame:
    """The game loop; ``read`` is the terminal's input (``input`` by default), ``console`` its output."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        bot: str = "rules",
        seed: int = 1,
        hands: int | None = None,
        read: Callable[[str], str] = input,
        console: Console | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.game = Game(rules, seed)
        self.bots: list[Bot | None] = [None] + [make_bot(bot, seed=seed * 10 + s) for s in (1, 2, 3)]
        self.advisor = RulesBot(seed)
        self.max_hands = hands
        self.read = read
        self.console = console or Console(highlight=False, soft_wrap=True)
        self.hand: Hand | None = None
        self._completions: list[str] = []

    def write(self, text: str | Text = "") -> None:
        """Print a line (a plain string is never read as markup)."""
        self.console.print(text, markup=False) if isinstance(text, str) else self.console.print(text)

    # -- input -------------------------------------------------------------------------------
    def ask(self, prompt: str, view: View) -> str:
        """Read one answer; the commands every prompt knows are handled here and the prompt asked again."""
        self._completions = sorted({str(c) for c in view.hand}) + list(COMMANDS)
        while True:
            try:
                text = self.read(prompt).strip()
            except EOFError:
                raise Quit() from None
            if text == "quit":
                raise Quit()
            if text in ("?", "help"):
                self.write(HELP)
            elif text == "legal":
                self.show_legal(view)
            elif text == "history":
                self.show_history()
            elif text == "kitty":
                self.show_kitty(view)
            elif text == "hint":
                self.write(f"hint 提示: {self.suggest(view)}")
            else:
                return text

    def completer(self, text: str, state: int) -> str | None:
        """The readline completer: the ``state``-th card of the hand or command starting with ``text``, or None."""
        matches = [c for c in self._completions if c.lower().startswith(text.lower())]
        return matches[state] if state < len(matches) else None

    def suggest(self, view: View) -> str:
        """The rules bot's choice for ``view`` as text: the cards (and the trump a 5h 5h bid names), or ``pass``."""
        action = self.advisor.act(view)
        if action is None or not action.cards:
            return "pass"
        return format_cards(action.cards) + (f" {action.choose}" if action.choose else "")

    # -- display -----------------------------------------------------------------------------
    def show_status(self, view: View) -> None:
        """The status lines: hand, dealer, level and trump; both sides' levels, points and cards left."""
        g = self.game
        dealer = "not decided yet 未定" if view.dealer is None else SEATS[view.dealer]
        level = "扛旗 flag" if view.level == "flag" else view.level
        head = Text(f"━━ hand {len(g.hands)} 第{len(g.hands)}副 ━━ ", style="bold")
        head.append(f"level 级牌 {level} · trump 主 {_trump_text(view)} · dealer 庄家 {dealer}", style="bold cyan")
        self.write(head)
        levels = " · ".join(f"{TEAMS[t]} {g.progress[t].level_text}" for t in (0, 1))
        scoring = "" if view.dealer is None else f" ({TEAMS[1 - team_of(view.dealer)].split()[0]} 抓分方)"
        self.write(f"  levels 级: {levels} · points taken 得分{scoring}: {view.points}")
        self.write("  cards left 剩牌: " + " · ".join(f"{SHORT[s]} {n}" for s, n in enumerate(view.hand_sizes)))

    def show_tricks(self, view: View) -> None:
        """The previous trick and the one on the table, laid out by seat."""
        if view.tricks:
            t = view.tricks[-1]
            plays = "   ".join(f"{SHORT[p]}: {format_cards(c)}" for p, c in t.plays)
            self.write(f"  previous trick 上一轮: {plays}   → {SHORT[t.winner]} wins 赢 {t.points} 分")
        if view.phase == Phase.PLAY:
            plays = "   ".join(f"{SHORT[p]}: {format_cards(c)}" for p, c in view.current_trick)
            empty = "(you lead 你先出)" if view.to_act == 0 else "—"
            self.write(f"  this trick 本轮: {plays or empty}")

    def show_hand(self, view: View) -> None:
        """South's hand by effective suit, trump first, in the order the seat may know (RULES §10.5).

        While burying, the cards picked up with the kitty are marked ``*``.
        """
        effective = view.order().effective  # never the trump hidden from this seat
        by_suit: dict[str, list[Card]] = {}
        for c in view.hand:
            by_suit.setdefault(effective[c.index], []).append(c)
        marked = list(_own_kitty(view)[0]) if view.phase == Phase.BURY else []
        title = "your hand 你的牌" + (" (* = from the kitty 底牌)" if marked else "") + ":"
        self.write(title)
        table = Table(box=None, show_header=False, padding=(0, 1, 0, 2))  # widths by terminal cells (CJK)
        for suit in EFFECTIVE_SUITS:
            if suit not in by_suit:
                continue
            line = Text()
            for c in by_suit[suit]:
                if c in marked:
                    marked.remove(c)
                    line.append(f"{c}*", style="bold yellow")
                else:
                    line.append(str(c), style="red" if c.suit and c.suit.value in "hd" else "")
                line.append(" ")
            table.add_row(Text(suit_words(suit), no_wrap=True), line)
        self.console.print(table)

    def show_legal(self, view: View) -> None:
        """What South may do now: the follows, leads, bids or fries, or how many cards to bury."""
        legal = view.legal
        if legal.show_red5:
            self.write("you may show 5h 5h against the flag hand 亮红桃5对 (y/n)")
        if legal.follows:
            more = " …" if legal.more_follows else ""
            self.write("legal 可出: " + " | ".join(format_cards(p) for p in legal.follows) + more)
        elif legal.leads:
            leads = " | ".join(format_cards(p) for p in legal.leads)
            self.write(f"legal leads 可出: {leads} (or several units of one suit at once: a throw 甩牌)")
        elif view.phase in (Phase.DEAL, Phase.COUNTDOWN):
            bids = " | ".join(_bid_text(b) for b in legal.bids) or "none 无"
            self.write(f"legal bids 可亮: {bids} (Enter: no bid 不亮)")
        elif legal.can_pass:
            self.write("legal fries 可炒: " + (" | ".join(_bid_text(b) for b in legal.fries) or "none 无") + " | pass")
        elif legal.bury:
            self.write(f"bury any {legal.bury} cards of your hand 扣{legal.bury}张底牌")

    def show_history(self) -> None:
        """The tricks of this hand so far."""
        hand = self.hand
        if hand is None or not hand.tricks:
            self.write("no tricks yet 还没有出牌")
            return
        for i, t in enumerate(hand.tricks, 1):
            plays = "   ".join(f"{SHORT[p]}: {format_cards(c)}" for p, c in t.plays)
            self.write(f"  trick {i:2} 第{i}轮: {plays} → {SHORT[t.winner]} ({t.points} 分)")

    def show_kitty(self, view: View) -> None:
        """The kitty South picked up and what South buried (only South's own)."""
        picked_up, buried = _own_kitty(view)
        if not picked_up:
            self.write("you have not held the kitty this hand 你没有拿底牌")
            return
        self.write(f"kitty picked up 拿到的底牌: {format_cards(picked_up)}")
        self.write(f"you buried 你扣的底: {format_cards(buried) if buried else '(not yet 还没扣)'}")

    def your_turn(self, what: str) -> None:
        """The line that says it is South's turn."""
        self.write(Text(f"▶▶ YOUR TURN 轮到你了: {what}", style="bold reverse"))

    def announce(self, start: int) -> None:
        """Tell in words what happened since log entry ``start``, as South may see it."""
        hand = self.hand
        assert hand is not None
        for e in hand.visible_events(0, start):
            line = self.event_words(e, hand)
            if line:
                self.write(line)

    def event_words(self, e: Event, hand: Hand) -> str:
        """One event in words (Chinese and English), or "" for events not worth a line."""
        who = "" if e.player is None else SHORT[e.player]
        cards = format_cards(e.cards)
        k = e.kind
        if k in (EventKind.BID, EventKind.FRIED):
            fry = k is EventKind.FRIED
            takes = " and takes the kitty" if fry else ""
            if not e.cards:  # a dark bid: the table sees only that it was made
                verb = "fries (dark: cards hidden) 暗炒底" if fry else "declares (dark: cards hidden) 暗亮主"
                return f"{who} {verb}{takes}"
            naming = f" naming 叫 {trump_words(parse_trump(e.data.choose)[1])}" if isinstance(e.data, Named) else ""
            return f"{who} {'fries 炒底 with' if fry else 'declares 亮主'} {cards}{naming}{takes}"
        if k is EventKind.PASSED:
            return f"{who} does not fry 不炒"
        if k is EventKind.CLOSED:
            return f"bidding closed 定庄: the dealer 庄家 is {SEATS[e.player or 0]}"
        if k is EventKind.REDEAL:
            return "nobody declared: the cards are dealt again 流庄重新发牌"
        if k is EventKind.KITTY_TRUMP:
            turned = trump_words(parse_trump(e.data.trump)[1]) if isinstance(e.data, TrumpSet) else ""
            return f"nobody declared: the kitty is turned up 翻底 {cards} → trump 主 {turned}"
        if k is EventKind.KITTY_TAKEN:
            return f"you pick up the kitty 拿底牌: {cards} (marked * in your hand)"
        if k is EventKind.BURIED:
            return f"you bury 扣底: {cards} (type kitty to see it again)"
        if k is EventKind.FRY_FAILED:
            return f"{who}'s fry failed 炒底失败: {cards} ({e.points:+d} to the scoring side)"
        if k is EventKind.FRYING_OVER:
            view = hand.view(0, legal=False)
            shown = [b for b in view.bids if b.cards is not None and b.player != 0]
            bids = "; ".join(
                f"{SHORT[b.player]} {'fried 炒' if b.fry else 'declared 亮'} {format_cards(b.cards or ())}"
                + ("" if b.valid is not False else " (void 无效)" if not b.fry else " (failed 失败)")
                for b in shown
            )
            told = f" — the bids 亮主记录: {bids}" if bids and hand.dark else ""
            return f"frying over 炒底结束: trump 主 {_trump_text(view)}{told}"
        if k is EventKind.BID_SHOWN:
            return f"{who}'s last fry is shown 亮出: {cards}"
        if k is EventKind.RED5_SHOWN:
            return f"{who} shows 5h 5h against the flag hand 亮红桃5对"
        if k is EventKind.THROW_FAILED:
            forced = format_cards(e.data.forced) if isinstance(e.data, ThrowFailed) else ""
            return f"{who} throws 甩牌 {cards} — it fails 甩牌失败: must lead {forced}; penalty 罚分 {e.points:+d}"
        if k is EventKind.FORCED_RED5:
            return f"逼红5: {who} had to play {cards} ({e.points:+d})"
        if k is EventKind.KEPT_RED5:
            return f"保红5: {who} kept {cards} to the last trick ({e.points:+d})"
        if k is EventKind.TRICK:
            t = hand.tricks[-1] if hand.tricks else None
            plays = "" if t is None else "   ".join(f"{SHORT[p]}: {format_cards(c)}" for p, c in t.plays)
            won = e.data.won if isinstance(e.data, TrickWon) else 0
            return f"trick 第{len(hand.tricks)}轮: {plays}   → {who} wins 赢 {won} points"
        if k is EventKind.KOU_DI:
            times = e.data.multiplier if isinstance(e.data, KouDi) else 1
            return f"抠底 kou di by {who}: the kitty 底牌 {cards} counts 抠底 ×{times} = {e.points:+d}"
        if k is EventKind.KITTY_SHOWN:
            return f"the dealer side keeps the kitty 保底: {cards}"
        return ""  # dealt, played (shown as tricks), settled (the settlement screen)

    def show_settlement(self, hand: Hand, before: tuple[Progress, Progress], credits_before: list[int]) -> None:
        """The settlement screen 结算 of a hand: p and its parts, the table, levels before and after, credits."""
        res = hand.result
        assert res is not None and hand.dealer is not None
        s = res.settlement
        g = self.game
        dteam = team_of(hand.dealer)
        steam = 1 - dteam
        self.write(Text(f"══ hand {len(g.hands)} settlement 第{len(g.hands)}副结算 ══", style="bold"))
        self.write(f"  dealer side 庄家方: {TEAMS[dteam]} · scoring side 抓分方: {TEAMS[steam]}")
        rows: list[tuple[str, int]] = [("points won in tricks 抓分", res.trick_points)]
        if res.multiplier:
            rows.append((f"kou di 抠底: kitty {res.kitty_points} × {res.multiplier}", res.kou_di))
        elif hand.kitty:
            rows.append((f"kitty 底牌 {res.kitty_points} kept by the dealer side 保底", 0))
        rows.extend((_seat_words(why), delta) for why, delta in res.adjustments)
        table = Table(box=None, show_header=False, padding=(0, 1, 0, 2))
        table.add_column(ratio=1)
        table.add_column(justify="right", no_wrap=True)
        for label, value in rows:
            table.add_row(label, f"{value:+d}")
        table.add_row(Text("total p 总分", style="bold"), Text(f"{res.points}", style="bold"))
        self.console.print(table)
        self.write(f"  threshold 门槛 {s.threshold}")
        if s.table is Side.SCORING:
            self.write(f"  → the scoring side takes the table 换庄: {TEAMS[steam]} deal next")
        else:
            self.write(f"  → the dealer side keeps the table 守庄: {TEAMS[dteam]} deal next")
        if s.special is not None:
            self.write(Text(f"  special ending 特殊结局: {SPECIAL_WORDS[s.special]}", style="bold magenta"))
        for note in s.events:
            self.write(f"    · {_seat_words(str(note))}")
        for t in (0, 1):
            self.write(f"  level 级 {TEAMS[t]}: {before[t].level_text} → {g.progress[t].level_text}")
        if self.rules.credits:
            for t in (0, 1):
                change = g.credits[t] - credits_before[t]
                self.write(f"  credits 积分 {TEAMS[t]}: {change:+d} (total 累计 {g.credits[t]})")
        if g.winner is not None:
            mine = g.winner == team_of(0)
            self.write(
                Text(f"game over 终局: {'you and North win 你们赢了' if mine else 'East and West win 对方赢了'}!")
            )

    # -- South's decisions ----------------------------------------------------------------------
    def human(self, hand: Hand, seat: int = 0) -> Action | None:
        """Ask the person at the terminal (South) for an action (a decider for the driver)."""
        view = hand.view(seat)
        if view.legal.show_red5:
            self.show_status(view)
            self.show_hand(view)
            self.your_turn("show 5h 5h against the flag hand? 亮红桃5对 (y/n)")
            text = self.ask("show> ", view)
            return Action.show_red5(0) if text.lower() in ("y", "yes", "auto") else None
        self.show_status(view)
        self.show_tricks(view)
        self.show_hand(view)
        if view.phase in (Phase.DEAL, Phase.COUNTDOWN):
            return self._ask_bid(hand, view)
        if view.phase == Phase.BURY:
            return self._ask_bury(hand, view)
        if view.phase == Phase.FRY:
            return self._ask_fry(hand, view)
        return self._ask_play(hand, view)

    def _ask_bid(self, hand: Hand, view: View) -> Action | None:
        self.show_legal(view)
        self.your_turn("declare? 亮主 (Enter: no bid)")
        while True:
            text = self.ask("bid> ", view)
            if text in ("", "pass"):
                return None
            if text == "auto":
                return self.advisor.act(view)
            action = self._parse_bid(ActionKind.BID, text)
            if action is None:
                self.write(f"not cards: {text!r} (? for help)")
            elif hand.can_bid(0, action.cards, action.choose):
                return action
            else:
                self.write(f"not a bid you can make now: {self._why(hand.verify_bid, 0, action.cards, action.choose)}")

    def _ask_bury(self, hand: Hand, view: View) -> Action | None:
        self.your_turn(f"bury 8 cards 扣底 (hint: {self.suggest(view)})")
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
                return Action.bury(0, cards)
            self.write(self._why(hand.verify_bury, 0, cards))

    def _ask_fry(self, hand: Hand, view: View) -> Action | None:
        self.show_legal(view)
        self.your_turn("fry? 炒底 (Enter: pass 不炒)")
        while True:
            text = self.ask("fry> ", view)
            if text in ("", "pass"):
                return Action.pass_fry(0)
            if text == "auto":
                return self.advisor.act(view)
            action = self._parse_bid(ActionKind.FRY, text)
            if action is not None and hand.can_fry(0, action.cards, action.choose):
                return action
            why = "not cards" if action is None else self._why(hand.verify_fry, 0, action.cards, action.choose)
            self.write(f"not a fry you can make: {why}")

    def _ask_play(self, hand: Hand, view: View) -> Action | None:
        self.your_turn("lead 你先出" if not view.current_trick else "follow 跟牌")
        while True:
            text = self.ask("play> ", view)
            if text == "auto":
                return self.advisor.act(view)
            if not text:
                self.write("type the cards to play, e.g. Ah or 9h 9h (legal lists them, hint suggests one)")
                continue
            try:
                cards = parse_cards(text)
            except CardError as exc:
                self.write(f"{exc}")
                continue
            if hand.can_play(0, cards):
                return Action.play(0, cards)
            self.write(f"illegal 不能这样出: {self._why(hand.verify_play, 0, cards)}")

    @staticmethod
    def _why(check: Callable[..., object], *args: object) -> str:
        try:
            check(*args)
        except (IllegalActionError, ValueError) as exc:
            return _seat_words(str(exc))
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

    # -- the loop ------------------------------------------------------------------------------
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
                return False  # nothing new to declare with since South was last asked
            last_options = options
            if hand.phase == Phase.DEAL:
                self.write(f"dealt {len(hand.hands[0])} cards to you 发牌中; you may declare now")
            else:
                self.write("the deal is over 发牌结束: last chance to declare (countdown 倒计时)")
            return True

        def after(hand: Hand) -> None:
            nonlocal seen
            self.announce(seen)
            seen = len(hand.log)

        deciders: list[Decider] = [self.human] + [by_view(bot) for bot in self.bots[1:] if bot is not None]
        run_hand(hand, deciders, asks=asks, after=after)

    def run(self) -> int:
        """Play hands until the game ends, ``hands`` hands are played, or South quits; 0 when done."""
        played = 0
        try:
            while not self.game.over and (self.max_hands is None or played < self.max_hands):
                hand = self.game.new_hand()
                self.write("")
                self.write(Text(f"=== hand {len(self.game.hands)} 第{len(self.game.hands)}副 ===", style="bold"))
                self.play_hand(hand)
                before = (self.game.progress[0], self.game.progress[1])
                credits_before = list(self.game.credits)
                self.game.finish_hand()
                if hand.phase == Phase.OVER:
                    played += 1
                    self.show_settlement(hand, before, credits_before)
                    self.read("press Enter to continue 按回车继续 continue> ")
        except Quit:
            self.write(f"bye 再见 — this game's seed is {self.seed}: chaodipi play --seed {self.seed}")
        return 0


def main(preset: str, bot: str, seed: int | None, hands: int | None) -> int:
    """Run the terminal game with readline completion when available; Ctrl-C leaves cleanly (status 130)."""
    rules = RuleSet.preset(preset)
    seed = seed if seed is not None else random.randrange(1 << 30)
    game = TerminalGame(rules, bot=bot, seed=seed, hands=hands)
    try:
        import readline

        readline.set_completer(game.completer)
        readline.set_completer_delims(" ")
        readline.parse_and_bind("tab: complete")
    except ImportError:  # pragma: no cover - readline is missing on some platforms
        pass
    game.write(f"炒地皮 Chao Di Pi — preset {rules.name}, bots: {bot}, seed 种子 {seed}")
    game.write("You are South 南; your partner is North 北. Type ? for help 帮助.")
    try:
        code = game.run()
    except KeyboardInterrupt:
        game.write(f"\nbye 再见 — this game's seed is {seed}: chaodipi play --seed {seed}")
        code = 130
    sys.stdout.flush()
    return code
