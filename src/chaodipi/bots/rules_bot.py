"""The ``rules`` bot: good play as strong players describe it (seed 002's advice).

- Declaring: bid a suit when enough of the hand would be trump; wait with weak hands and
  fry instead when the kitty could make a suit strong; bid no-trump with joker pairs only
  when the hand is rich in top side cards.
- Burying: keep trumps, aces, kings and pairs; void the shortest side suits; keep points
  out of a kitty the other side may kou di; load it when one's own side will hold it.
- Playing: count the cards still out; lead top cards and throws that cannot fail; draw
  trumps when strong; lead low from long suits otherwise; feed points to a partner who is
  winning the trick; play low when the trick is lost; trump in when points are at stake; keep
  the cheapest winning play; use 5·10·K leads when they stand; spare 5h under the red-5 rules.

The play logic is a pure function of what the player knows (:func:`choose_play`), so the
``search`` bot reuses it for its rollouts.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import attrgetter

from chaodipi.bidding import BidKind, classify_bid, parse_choice
from chaodipi.bots.knowledge import Knowledge, order_of_view
from chaodipi.cards import Card, Rank, Suit, format_cards
from chaodipi.hand import Action, Hand, Phase, TrustedChecks, TrustedPlayError, View
from chaodipi.leads import LeadChoices
from chaodipi.masks import CardMasks, add, cards_in, masks_of
from chaodipi.play import FollowRule, check_throw, unit_beaten, unit_beaten_by
from chaodipi.rules import RuleSet
from chaodipi.trick import TrickState, trick_state, trump_in_key
from chaodipi.trump import EFFECTIVE_SUITS, FIVE_HEARTS, TRUMP, TrumpOrder
from chaodipi.units import Format, Unit, UnitKind, decompose
from chaodipi.view import BidOption

__all__ = ["RulesBot", "card_costs", "choose_bury", "choose_play", "play_out"]

Play = tuple[Card, ...]

_INDEX = attrgetter("index")  # a card's dense number: sorting by it makes a multiset's key
_FTKS = (UnitKind.FTK, UnitKind.FTK_PAIR)


def _key(cards: Play) -> Play:
    """The cards as a multiset: the same key whatever their order (a single card is its own key)."""
    return cards if len(cards) == 1 else tuple(sorted(cards, key=_INDEX))


def _copies(ones: int, twos: int, c: Card) -> int:
    """How many copies of ``c`` the hand ``(ones, twos)`` holds (:mod:`chaodipi.masks`)."""
    return (ones >> c.index & 1) + (twos >> c.index & 1)


def _cost(c: Card, trump_order: TrumpOrder) -> float:
    """How much a card is worth keeping: strong cards, trumps and points cost more to give away."""
    return card_costs(trump_order)[c.index]


@lru_cache(maxsize=1024)  # (one entry per trump order; TrumpOrder.of keeps at most 512)
def card_costs(trump_order: TrumpOrder) -> tuple[float, ...]:
    """:func:`_cost` of every card, by card index, worked out once per trump order: what the rules policy loses by
    spending it (its strength, more for a trump, and its points); the learned bot's hints read it too."""
    out: list[float] = []
    for c in Card.ALL:
        o = trump_order.order[c.index]
        base = o if o < 50 else 30 + (o - 50)
        if trump_order.effective[c.index] == TRUMP:
            base += 16
        out.append(base + c.points * 0.9)
    return tuple(out)


@lru_cache(maxsize=1024)  # (one entry per trump order, as card_costs)
def _sort_keys(
    trump_order: TrumpOrder,
) -> tuple[dict[Card, float], dict[Card, float], dict[Card, float], dict[Card, float]]:
    """The orders a follow's fillers are sorted in, as one number a card, worked out once per trump order.

    The cost; the cost with side cards first; the cheapest first with side cards before trumps and cards
    without points before point cards; the most points first, then the cheapest.
    """
    costs, effective = card_costs(trump_order), trump_order.effective
    cost: dict[Card, float] = {}
    side_first: dict[Card, float] = {}
    cheap: dict[Card, float] = {}
    points: dict[Card, float] = {}
    for c in Card.ALL:
        trump = effective[c.index] == TRUMP
        cost[c] = costs[c.index]  # (every cost is below 1000: the weights below keep the orders apart)
        side_first[c] = costs[c.index] - (0 if trump else 100)
        cheap[c] = trump * 10_000 + (c.points > 0) * 1_000 + costs[c.index]
        points[c] = -c.points * 1_000 + costs[c.index]
    return cost, side_first, cheap, points


# -- leading ------------------------------------------------------------------------------


class _Pool:
    """What the other players may hold: how many cards, the highest single and the highest pair of each
    effective suit (RULES §5.1), and each suit's cards when asked for; read from the pool's bit masks."""

    __slots__ = ("_by_suit", "_ones", "_trump_order", "_twos", "size_of", "top_pair", "top_single")

    def __init__(self, pool: CardMasks, trump_order: TrumpOrder) -> None:
        order, suit_mask = trump_order.order, trump_order.suit_mask
        ones, twos = self._ones, self._twos = pool
        self._trump_order = trump_order
        self._by_suit: dict[str, list[Card]] = {}
        top_single: dict[str, int] = {}
        top_pair: dict[str, int] = {}
        size_of: dict[str, int] = {}
        for suit in EFFECTIVE_SUITS:
            s1 = ones & suit_mask[suit]
            if not s1:
                continue
            s2 = twos & s1
            size_of[suit] = s1.bit_count() + s2.bit_count()
            for top, cards in ((top_single, s1), (top_pair, s2)):
                card = trump_order.strongest(suit, cards)
                if card is not None:
                    top[suit] = order[card.index]
        self.top_single, self.top_pair, self.size_of = top_single, top_pair, size_of

    def of_suit(self, suit: str) -> list[Card]:
        """The pool's cards of effective suit ``suit``."""
        cards = self._by_suit.get(suit)
        if cards is None:
            mask = self._trump_order.suit_mask[suit]
            cards = self._by_suit[suit] = cards_in(self._ones & mask, self._twos & mask)
        return cards

    def beats(self, unit: Unit, trump_order: TrumpOrder) -> bool:
        """Whether a unit of the pool beats ``unit`` (as :func:`~chaodipi.play.unit_beaten` of the pool's suit)."""
        if unit.kind == UnitKind.SINGLE:
            return self.top_single.get(unit.suit, -1) > unit.strength
        if unit.kind == UnitKind.PAIR:
            return self.top_pair.get(unit.suit, -1) > unit.strength
        return unit_beaten_by(unit, (self._ones, self._twos), trump_order)


def _unit_is_top(unit: Unit, pool: _Pool, trump_order: TrumpOrder) -> bool:
    """No card of the pool (what others may hold) makes a unit that beats ``unit`` (RULES §5.1)."""
    ok = not pool.beats(unit, trump_order)
    if TrustedChecks.on and ok == unit_beaten(unit, pool.of_suit(unit.suit), trump_order):
        raise TrustedPlayError(f"the rules policy misjudged whether {unit} can be beaten")
    return ok


def _lead(
    hand: Sequence[Card],
    trump_order: TrumpOrder,
    pool: Sequence[Card],
    *,
    pool_masks: CardMasks | None,
    hand_masks: CardMasks | None,
    dealer_side: bool,
    opp_voids: set[str],
    partner_voids: set[str],
) -> list[tuple[float, Play]]:
    leads = LeadChoices(hand, trump_order, hand_masks)
    units = list(leads)
    effective = trump_order.effective
    costs = card_costs(trump_order)
    others = _Pool(masks_of(pool) if pool_masks is None else pool_masks, trump_order)
    ones, twos = leads.masks()
    length_of = {suit: leads.suit_size(suit) for suit in EFFECTIVE_SUITS}
    trumps_mine = length_of[TRUMP]
    trumps_out = others.size_of.get(TRUMP, 0)
    offers: dict[Play, float] = {}

    def offer(score: float, cards: Play) -> None:
        key = _key(cards)
        if score > offers.get(key, -1e9):
            offers[key] = score

    tops_by_suit: dict[str, list[Unit]] = {}
    for u in units:
        if u.kind in _FTKS or _unit_is_top(u, others, trump_order):
            tops_by_suit.setdefault(u.suit, []).append(u)
    for suit, tops in tops_by_suit.items():
        ruffable = suit != TRUMP and suit in opp_voids and trumps_out > 0
        # a throw of every top unit of the suit: it stands whatever the others hold
        used: list[Card] = []
        taken: dict[Card, int] = {}
        for u in sorted(tops, key=lambda u: -len(u.cards)):
            if all(taken.get(c, 0) + u.cards.count(c) <= _copies(ones, twos, c) for c in u.cards):
                used.extend(u.cards)
                for c in u.cards:
                    taken[c] = taken.get(c, 0) + 1
        if used:
            try:
                fmt = decompose(used, trump_order, lead=True)
            except ValueError:
                fmt = None
            if fmt is not None and (
                not fmt.is_throw or check_throw(used, [others.of_suit(suit), [], []], trump_order).ok
            ):
                pts = sum(c.points for c in used)
                score: float = 50.0 + len(used) * 3 + pts - (40 if ruffable else 0)
                if suit == TRUMP:
                    score = 20.0 + len(used) * 2 if (trumps_mine >= trumps_out or dealer_side) else -10.0
                offer(score, tuple(used))
    # draw trumps when strong (吊主)
    if trumps_mine > 0 and trumps_out > 0 and trumps_mine >= trumps_out + 2:
        low = min((c for c in hand if effective[c.index] == TRUMP), key=lambda c: costs[c.index])
        offer(15, (low,))
    # otherwise lead low from a side suit: prefer the partner's void (they trump in), avoid points
    for u in units:
        if u.kind != UnitKind.SINGLE or u.suit == TRUMP:
            continue
        c = u.cards[0]
        if twos >> c.index & 1:
            continue  # do not break a pair
        length = length_of[u.suit]
        score = 5 - costs[c.index] / 4 + length * 0.5 + (8 if u.suit in partner_voids else 0) - c.points
        if u.suit in opp_voids and trumps_out:
            score -= 6
        offer(score, (c,))
    # the cheapest unit always stands as a fallback (only trumps or only pairs left)
    u = min(units, key=lambda u: (sum([costs[c.index] for c in u.cards]) / len(u.cards), -len(u.cards)))
    offer(-20, u.cards)
    return sorted(((sc, p) for p, sc in offers.items()), key=lambda sp: -sp[0])


# -- following ------------------------------------------------------------------------------


def _candidates(
    rule: FollowRule,
    hand: Sequence[Card],
    trump_order: TrumpOrder,
    lead: Format,
    trump_keys: dict[Play, int] | None = None,
) -> list[Play]:
    """A handful of sensible legal follows: every suit part (capped), with cheap, point or trump fillers.

    ``trump_keys``, if given, receives each trump-in's key (:func:`~chaodipi.trick.trump_in_key`),
    worked out here once, so that the caller need not judge it again.
    """
    effective = trump_order.effective
    free_n = rule.n - rule.k
    parts: list[Play] = list(itertools.islice(rule.suit_parts(), 41))
    if free_n == 0:
        return parts
    out: list[Play] = []
    cost_key, side_first_key, cheap_key, points_key = _sort_keys(trump_order)
    others = [c for c in hand if effective[c.index] != rule.suit]
    non_trump = [c for c in others if effective[c.index] != TRUMP]
    by_cost = sorted(others, key=side_first_key.__getitem__)
    cheap_no_points = sorted(others, key=cheap_key.__getitem__)
    points_first = sorted(non_trump, key=points_key.__getitem__) + sorted(
        (c for c in others if effective[c.index] == TRUMP), key=cost_key.__getitem__
    )
    for part in parts[:8]:
        for filler in (cheap_no_points[:free_n], points_first[:free_n], by_cost[:free_n]):
            if len(filler) == free_n:
                out.append(part + tuple(filler))
    # trump-ins: all the play in trumps (only when void in the led side suit)
    if rule.k == 0 and lead.suit != TRUMP:
        trumps = sorted((c for c in hand if effective[c.index] == TRUMP), key=cost_key.__getitem__)
        if len(trumps) >= free_n:
            combos: Iterable[Play]
            if free_n == 1:  # a single led: each trump once, cheapest first
                combos = [(c,) for c in dict.fromkeys(trumps)]
            elif free_n == 2 and lead.pair_count == 1:  # a pair led: each pair of trumps, cheapest first
                twice = [c for c in trumps if trumps.count(c) == 2]
                combos = [(c, c) for c in dict.fromkeys(twice)]
            else:
                combos = itertools.combinations(trumps, free_n)
            seen: set[Play] = set()
            pairs_needed = lead.pair_count
            for k, combo in enumerate(combos):
                if k > 300:
                    break
                if combo in seen:
                    continue
                seen.add(combo)
                # a trump-in matches the lead unit for unit, so it holds at least the lead's pairs
                if pairs_needed and len(combo) - len(set(combo)) < pairs_needed:
                    continue
                key = trump_in_key(combo, lead, trump_order)
                if key is not None:
                    out.append(combo)
                    if trump_keys is not None:
                        trump_keys[combo] = key
    return out or parts


def _check_candidate(rule: FollowRule, cand: Play) -> None:
    """In the debug mode (:class:`~chaodipi.hand.TrustedChecks`): a candidate follow is legal, as it is by
    construction (suit parts, fillers, trump-ins), or :class:`~chaodipi.hand.TrustedPlayError`."""
    if TrustedChecks.on:
        reason = rule.check(cand)
        if reason is not None:
            raise TrustedPlayError(f"the rules policy generated an illegal follow {format_cards(cand)}: {reason}")


def choose_play(
    hand: Sequence[Card],
    seat: int,
    trump_order: TrumpOrder,
    rules: RuleSet,
    dealer: int,
    current: Sequence[tuple[int, Play]],
    pool: Sequence[Card],
    voids: Sequence[set[str]] | None = None,
    *,
    rule: FollowRule | None = None,
    state: TrickState | None = None,
    hand_masks: CardMasks | None = None,
    pool_masks: CardMasks | None = None,
) -> Play:
    """The rules bot's play: a lead, throw or follow (always legal); the keywords: see :func:`ranked_plays`."""
    return ranked_plays(
        hand,
        seat,
        trump_order,
        rules,
        dealer,
        current,
        pool,
        voids,
        rule=rule,
        state=state,
        hand_masks=hand_masks,
        pool_masks=pool_masks,
        best=True,
    )[0][1]


def play_out(hand: Hand, trump_order: TrumpOrder) -> None:
    """Play ``hand`` to its end with the rules policy, each player counting the cards the others hold.

    This is the search bot's playout; ``trump_order`` is the hand's trump order and the dealer is known.
    """
    rules = hand.rules
    dealer = hand.dealer
    assert dealer is not None
    while hand.phase == Phase.PLAY:
        seat = hand.to_act()
        assert seat is not None
        pool: CardMasks | None = None
        if not hand.current:  # (the cards the others hold, as masks: read by leads only, not by a follow)
            pool = (0, 0)
            for other in (seat + 1, seat + 2, seat + 3):
                pool = add(*pool, *hand.held_masks(other % 4))
        rule = hand.follow_rule(seat) if hand.current and hand.trump_order is trump_order else None
        play = choose_play(
            hand.hands[seat],
            seat,
            trump_order,
            rules,
            dealer,
            hand.current,
            (),
            rule=rule,
            state=hand.trick,
            hand_masks=hand.held_masks(seat),
            pool_masks=pool,
        )
        hand.play_trusted(seat, play)


def ranked_plays(
    hand: Sequence[Card],
    seat: int,
    trump_order: TrumpOrder,
    rules: RuleSet,
    dealer: int,
    current: Sequence[tuple[int, Play]],
    pool: Sequence[Card],
    voids: Sequence[set[str]] | None = None,
    *,
    rule: FollowRule | None = None,
    state: TrickState | None = None,
    hand_masks: CardMasks | None = None,
    pool_masks: CardMasks | None = None,
    best: bool = False,
) -> list[tuple[float, Play]]:
    """Sensible legal plays with the rules bot's score, best first (the search bot's candidates).

    A caller that holds the hand may pass its follow rule and trick state (:meth:`Hand.follow_rule`,
    :attr:`Hand.trick`) so that they are not made again, and the hand and the pool as bit masks
    (:meth:`Hand.held_masks`, :mod:`chaodipi.masks`; ``pool_masks`` replaces ``pool``). With ``best``, only
    the first play counts: a follow with a single candidate is then given without scoring it (its score shows
    as 0).
    """
    partner = (seat + 2) % 4
    dealer_side = (seat - dealer) % 2 == 0
    vs = voids or [set(), set(), set(), set()]
    if not current:
        opp = vs[(seat + 1) % 4] | vs[(seat + 3) % 4]
        return _lead(
            hand,
            trump_order,
            pool,
            pool_masks=pool_masks,
            hand_masks=hand_masks,
            dealer_side=dealer_side,
            opp_voids=opp,
            partner_voids=vs[partner],
        )
    lead = decompose(current[0][1], trump_order, lead=True) if rule is None else rule.lead
    if rule is None:
        rule = FollowRule(lead, hand, trump_order, hand_masks)
    trump_keys: dict[Play, int] = {}
    cands = _candidates(rule, hand, trump_order, lead, trump_keys)
    if best and len(cands) == 1:
        _check_candidate(rule, cands[0])
        return [(0.0, _key(cands[0]))]  # (the same form as the scored plays)
    plays = [c for _, c in current]
    table_points = sum(c.points for p in plays for c in p)
    if state is None:
        state = trick_state(plays, trump_order, lead)
    winner_now = current[state.winner][0]
    last = len(current) == 3
    partner_winning = winner_now == partner
    costs = card_costs(trump_order)
    scored: dict[Play, float] = {}
    checked = TrustedChecks.on
    for cand in cands:
        single = len(cand) == 1
        key = cand if single else tuple(sorted(cand, key=_INDEX))  # (as _key)
        if key in scored:
            continue
        if checked:
            _check_candidate(rule, cand)
        trump_key = trump_keys.get(cand)  # a trump-in (all trumps, void in the led side suit) wins when it over-trumps
        we_win = state.wins_with(cand) if trump_key is None else trump_key > state.trump_key
        if checked and we_win != state.wins_with(cand):
            raise TrustedPlayError(f"the rules policy misjudged the trump-in {format_cards(cand)}")
        if single:
            card = cand[0]
            pts, cost, red5 = card.points, costs[card.index], int(card is FIVE_HEARTS)
        else:
            pts = sum([c.points for c in cand])
            cost = sum([costs[c.index] for c in cand])
            red5 = cand.count(FIVE_HEARTS)
        if partner_winning and not we_win:
            # feed points to the partner (送分), but keep strong cards: safer when we play last
            score = pts * (2.0 if last else 1.2) - cost * 0.3
        elif we_win:
            stake = table_points + pts
            score = (stake * 1.5 + 12 if (last or stake >= 10) else 4) - cost * 0.45
            if not last:
                score -= 3  # it may still be beaten
        else:
            score = -pts * 2.0 - cost * 0.35
        if rules.red5_bonus and red5:
            score -= 25 * red5  # 5h costs 50 when it has to be given, earns 50 kept to the end
        scored[key] = score
    if not scored:  # pragma: no cover - the candidates always hold a legal follow
        return [(0.0, next(rule.legal_plays()))]
    return sorted(((sc, p) for p, sc in scored.items()), key=lambda sp: -sp[0])


# -- burying, bidding, frying ---------------------------------------------------------------------


def choose_bury(
    hand: Sequence[Card],
    trump_order: TrumpOrder,
    *,
    own_side_holds: bool,
    point_weight: float | None = None,
    void_weight: float = 1.5,
) -> Play:
    """Eight cards to bury: void short side suits, keep trumps and top cards, mind the points.

    ``own_side_holds``: whether the burier's side expects to win the last trick (then points
    in the kitty are safe from capture: load it); otherwise keep points out of a kitty the
    other side may kou di (seed 002).
    """
    effective = trump_order.effective
    lengths: dict[str, int] = {}
    for c in hand:
        lengths[effective[c.index]] = lengths.get(effective[c.index], 0) + 1
    pw = point_weight if point_weight is not None else (-6.0 if own_side_holds else 12.0)

    def keep_value(c: Card) -> float:
        e = effective[c.index]
        v = _cost(c, trump_order)
        if e == TRUMP:
            v += 100
        if hand.count(c) == 2:
            v += 14  # pairs are worth keeping
        if c.rank == Rank.ACE:
            v += 10
        v += lengths[e] * void_weight  # short suits go first: voids let us trump in
        if c.points:
            v += pw
        return v

    return tuple(sorted(hand, key=keep_value)[:8])


def holds_last_trick(hand: Sequence[Card], trump_order: TrumpOrder) -> bool:
    """A rough guess whether a hand is strong enough in trumps to win the last trick (保底)."""
    trumps = [c for c in hand if trump_order.effective[c.index] == TRUMP]
    top = sum(1 for c in trumps if trump_order.order[c.index] >= 56)
    return len(trumps) >= 12 and top >= 4


def _trump_strength(hand: Sequence[Card], rules: RuleSet, level: Rank, trump: Suit | None) -> float:
    trump_order = TrumpOrder.of(rules, level, trump)
    score = 0.0
    for c in hand:
        if trump_order.effective[c.index] == TRUMP:
            score += 1.0 + (trump_order.order[c.index] >= 56) * 0.6
    return score


def _bid_choice(view: View, options: Sequence[BidOption], *, fry: bool) -> Action | None:
    if not options:
        return None  # nothing to bid (a flag hand has no bidding at all)
    rules = view.rules
    level = Rank.parse(view.level)
    hand = list(view.hand)
    n = max(len(hand), 1)
    best: tuple[float, Action] | None = None
    for opt in options:
        try:
            shape = classify_bid(opt.cards, level, None if opt.choose is None else parse_choice(opt.choose))
        except ValueError:
            continue
        strength = _trump_strength(hand, rules, level, shape.trump) / n
        if shape.kind == BidKind.JOKER_PAIR:
            aces = sum(1 for c in hand if c.rank == Rank.ACE)
            strength = 0.18 + aces * 0.03
        score = strength + (0.02 if shape.kind != BidKind.SINGLE else 0)
        if best is None or score > best[0]:
            best = (score, opt.action(view.seat, fry=fry))
    if best is None:
        return None
    needed = 0.36 if fry else (0.30 if view.phase == Phase.COUNTDOWN else 0.34)
    if len(hand) < 10 and not fry and view.phase != Phase.COUNTDOWN:
        return None  # too early to judge: wait (等牌)
    if best[0] >= needed:
        return best[1]
    if view.phase == Phase.COUNTDOWN and view.dealer is None and not view.bids:
        return best[1]  # the first hand: better some trump than a redeal
    return None


class RulesBot:
    """Rule-of-thumb play (see the module docstring). Deterministic for a given seed."""

    name = "rules"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, view: View) -> Action | None:
        """The rules bot's action: shows 5h 5h when it may, then bids, buries, fries and plays by the
        rules of thumb of the module docstring; None means no bid.
        """
        legal = view.legal
        if view.legal.show_red5:
            return Action.show_red5(view.seat)  # showing 5h 5h can only help the scoring side (RULES §11.5)
        if view.phase in (Phase.DEAL, Phase.COUNTDOWN):
            return _bid_choice(view, legal.bids, fry=False)
        if view.phase == Phase.BURY:
            trump_order = order_of_view(view) if view.trump is not None else _any_order(view)
            return Action.bury(
                view.seat, choose_bury(view.hand, trump_order, own_side_holds=holds_last_trick(view.hand, trump_order))
            )
        if view.phase == Phase.FRY:
            fry = _bid_choice(view, legal.fries, fry=True)
            return fry if fry is not None else Action.pass_fry(view.seat)
        if view.phase == Phase.PLAY:
            know = Knowledge.from_view(view)
            pool = know.unseen_cards()
            assert view.dealer is not None
            cards = choose_play(
                view.hand, view.seat, know.trump_order, view.rules, view.dealer, view.current_trick, pool, know.voids
            )
            return Action.play(view.seat, cards)
        return None


def _any_order(view: View) -> TrumpOrder:
    level = None if view.level == "flag" else Rank.parse(view.level)
    return TrumpOrder.of(view.rules, level, None)
