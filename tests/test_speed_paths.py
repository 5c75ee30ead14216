"""The engine's kept work (issue 13) never changes an answer.

Views kept up to date entry by entry equal views built from the whole log; the follow rule, the
legal actions and the bids worked out once per decision equal fresh ones; the trusted path
for playouts makes exactly the hands the checked path makes.
"""

from __future__ import annotations

import pkgutil
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chaodipi
from chaodipi.bots.rules_bot import choose_play, play_out, ranked_plays
from chaodipi.cards import Rank, Suit, shuffled_deck
from chaodipi.driver import run_hand
from chaodipi.game import Game
from chaodipi.hand import Event, Hand, Phase, TrustedChecks, TrustedPlayError
from chaodipi.leads import LeadChoices, unit_leads
from chaodipi.observe import seen_by
from chaodipi.position import Position
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.settlement import Progress
from chaodipi.simulate import RandomPolicy
from chaodipi.trump import TrumpOrder


def _game_hand(preset: str, seed: int) -> Hand:
    """A hand of a game of ``preset`` some hands in (flag hands and dark bids included where the preset has them)."""
    game = Game(RuleSet.preset(preset), seed)
    policy = RandomPolicy(random.Random(seed), bid_chance=0.6, fry_chance=0.5)
    for _ in range(random.Random(seed).randrange(3)):
        if game.over:
            break
        run_hand(game.new_hand(), [policy.decide] * 4)
        game.finish_hand()
    return game.new_hand() if not game.over else Game(RuleSet.preset(preset), seed + 1).new_hand()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 2**32), gap=st.integers(1, 9))
def test_kept_views_equal_views_built_from_scratch(preset: str, seed: int, gap: int) -> None:
    """After every step, for every seat (some seats looking only every few steps): view == fresh_view."""
    hand = _game_hand(preset, seed)
    policy = RandomPolicy(random.Random(seed ^ 0x5EED), bid_chance=0.6, fry_chance=0.5)
    steps = 0

    def check(h: Hand) -> None:
        nonlocal steps
        steps += 1
        for seat in range(4):
            if seat < 2 or steps % gap == 0:  # seats 2 and 3 catch up over several entries at once
                kept = h.view(seat)
                assert kept == h.fresh_view(seat), (preset, seed, steps, seat)
                assert h.view(seat) == kept  # asked twice: the same answer
                assert h.legal(seat, 3) == h._legal_now(seat, 3, fresh=True)  # another cap is its own answer

    run_hand(hand, [policy.decide] * 4, after=check)
    assert hand.phase in (Phase.OVER, Phase.REDEAL)
    for seat in range(4):
        assert hand.view(seat) == hand.fresh_view(seat)
        dark = hand.dark
        tail = [seen_by(e, seat, dark=dark) for e in hand.log[7:] if isinstance(e, Event)]
        assert hand.visible_events(seat, 7) == [e for e in tail if e is not None]


def test_one_follow_rule_per_decision() -> None:
    """The policy's rule, the check's and the play's are one object; the next decision gets a new one."""
    hand = Hand(RuleSet.preset("standard"), shuffled_deck(random.Random(4)), first_seat=0, dealer=0)
    policy = RandomPolicy(random.Random(4))

    def until(h: Hand) -> bool:
        return h.phase == Phase.PLAY and bool(h.current)

    run_hand(hand, [policy.decide] * 4, until=until)
    seat = hand.to_act()
    assert seat is not None
    rule = hand.follow_rule(seat)
    assert rule is not None and hand.follow_rule(seat) is rule
    play = policy.follow(hand, seat)
    hand.verify_play(seat, play)
    assert hand.follow_rule(seat) is rule
    hand.play(seat, play)
    nxt = hand.to_act()
    if hand.current and nxt is not None:
        assert hand.follow_rule(nxt) is not rule


def _sampled_playout(seed: int) -> Hand:
    """A standard deal in play (random level, trump and dealer), as the search bot samples one."""
    rng = random.Random(seed)
    deck = shuffled_deck(rng)
    dealer = rng.randrange(4)
    return Position.in_play(
        RuleSet.preset(rng.choice(PRESET_NAMES)),
        hands=[deck[25 * s : 25 * s + 25] for s in range(4)],
        kitty=deck[100:],
        dealer=dealer,
        trump=rng.choice([*Suit, None]),
        leader=dealer,
        dealer_progress=Progress(1, Rank(rng.randint(2, 14))),
    ).hand()


def test_the_tests_check_trusted_plays() -> None:
    """conftest turns the debug mode on: the trusted path is checked in every test."""
    assert TrustedChecks.on


def test_an_illegal_trusted_play_fails_loudly() -> None:
    hand = _sampled_playout(3)
    seat = hand.to_act()
    assert seat is not None
    other = hand.hands[(seat + 1) % 4][0]  # a card the player does not hold
    with pytest.raises(TrustedPlayError, match="trusted play is illegal"):
        hand.play_trusted(seat, [other])
    assert not hand.current and len(hand.hands[seat]) == 25  # refused before anything changed
    # without the debug mode the play is not checked: that is the point of the path (here: a bug)
    TrustedChecks.on = False
    try:
        lead = hand.hands[seat][:1]
        hand.play_trusted(seat, lead)
        assert hand.current == [(seat, tuple(lead))]
    finally:
        TrustedChecks.on = True


@pytest.mark.parametrize("seed", range(12))
def test_trusted_playouts_equal_checked_ones(seed: int) -> None:
    """The rules policy's playout through the trusted path plays exactly what the checked path plays."""
    trusted, checked = _sampled_playout(seed), _sampled_playout(seed)
    order = trusted.trump_order
    play_out(trusted, order)  # (checks on: each trusted play is verified too)
    while checked.phase == Phase.PLAY:
        seat = checked.to_act()
        assert seat is not None
        others = [c for s in range(4) if s != seat for c in checked.hands[s]]
        assert checked.dealer is not None
        play = choose_play(checked.hands[seat], seat, order, checked.rules, checked.dealer, checked.current, others)
        ranked = ranked_plays(checked.hands[seat], seat, order, checked.rules, checked.dealer, checked.current, others)
        assert play == ranked[0][1]  # the shortcuts of the playout (one candidate: no scores) change nothing
        checked.play(seat, play)
    assert trusted.actions == checked.actions
    assert trusted.result == checked.result


@settings(max_examples=200, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    seed=st.integers(0, 2**32),
    size=st.sampled_from([1, 3, 8, 25, 33]),
    flag=st.booleans(),
)
def test_lazy_leads_are_the_listed_leads(preset: str, seed: int, size: int, flag: bool) -> None:
    """LeadChoices counts without making the units, and gives each unit where unit_leads lists it."""
    rng = random.Random(seed)
    rules = RuleSet.preset(preset)
    order = (
        TrumpOrder.of(rules, None, None)
        if flag
        else TrumpOrder.of(rules, Rank(rng.randint(2, 14)), rng.choice([*Suit, None]))
    )
    held = shuffled_deck(rng)[:size]
    listed = unit_leads(held, order)
    lazy = LeadChoices(held, order)
    assert len(lazy) == len(listed)
    k = rng.randrange(len(listed))
    assert LeadChoices(held, order)[k] == listed[k]  # (a fresh one: only that suit is made)
    assert list(lazy) == listed
    assert all(lazy.of_suit(u.suit) == [v for v in listed if v.suit == u.suit] for u in listed)


def test_the_decomposition_cache_has_one_bound_for_all_trump_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    """However many trump orders a process meets (a server's many tables and house rules), the kept
    decompositions stay within one bound, and decompositions are the same before and after it is emptied."""
    from chaodipi import units

    monkeypatch.setattr(units, "_FORMAT_CACHE_SIZE", 40)
    rng = random.Random(9)
    orders = [
        TrumpOrder.of(RuleSet.preset(p), Rank(lv), t)
        for p in PRESET_NAMES
        for lv in (3, 9)
        for t in (None, Suit.HEARTS)
    ]
    first: dict[tuple[int, tuple[int, ...]], object] = {}
    for _ in range(600):
        k = rng.randrange(len(orders))
        held = shuffled_deck(rng)[: rng.randint(1, 4)]
        try:
            got: object = units.decompose(held, orders[k])
        except units.PlayError as exc:
            got = str(exc)
        assert first.setdefault((k, tuple(c.index for c in held)), got) == got
        assert sum(len(o.format_cache) for o in orders) <= 40


#: The rules engine: every module of the package but the clients (bots, server, web client, front ends).
ENGINE_MODULES = sorted(
    m.name
    for m in pkgutil.iter_modules(chaodipi.__path__)
    if m.name not in {"bots", "server", "web", "cli", "tui", "arena", "cluster", "rl", "__main__"}
    and not m.name.startswith("_")
)


def test_the_engine_needs_nothing_outside_the_standard_library() -> None:
    """With every package outside the standard library made unimportable (mypy_extensions, the compiled
    build's marks, included), the engine imports and plays a whole game; it imports none of them.
    (The compiled build's own runtime module, ``<hash>__mypyc``, is part of chaodipi.)"""
    import subprocess
    import sys

    code = f"""
import importlib.abc, sys
before = set(sys.modules)  # (what the interpreter loaded at start, before any engine module)
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top not in sys.stdlib_module_names and top != "chaodipi" and not top.endswith("__mypyc"):
            raise ImportError("not in the standard library: " + name)
        return None
sys.meta_path.insert(0, Refuse())
for m in {ENGINE_MODULES!r}:
    importlib.import_module("chaodipi." + m)
from chaodipi.rules import RuleSet
from chaodipi.simulate import simulate_game
game = simulate_game(RuleSet.preset("standard"), 3)
assert game.over, "the game did not end"
outside = sorted({{n.split(".")[0] for n in set(sys.modules) - before if not n.endswith("__mypyc")}}
                 - set(sys.stdlib_module_names) - {{"chaodipi"}})
assert not outside, outside
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
