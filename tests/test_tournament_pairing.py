"""Pairings for tournaments (RULES §14.3): knockout draws in sessions, Swiss rounds as a matching."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaodipi.tournament.pairing import Entrant, Pairing, PairingError, knockout_draw, swiss_round

Met = dict[frozenset[int], int]
Forbidden = set[frozenset[int]]

FAST = settings(deadline=None, max_examples=60)


# -------------------------------------------------------------------------------------------- helpers


def _all_matchings(ids: Sequence[int]) -> Iterator[list[tuple[int, int]]]:
    """Every perfect matching of ``ids`` (an even number of them)."""
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for k, other in enumerate(rest):
        for tail in _all_matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, other), *tail]


def _standings(entrants: Sequence[Entrant]) -> list[Entrant]:
    return sorted(entrants, key=lambda e: (e.rank, e.id))


def _cost(
    matching: Sequence[tuple[int, int]], entrants: Sequence[Entrant], met: Met, forbidden: Forbidden
) -> tuple[int, int, int, int]:
    """(forbidden pairings, rematches weighted by count, sum of squared points differences, of places)."""
    by_id = {e.id: e for e in entrants}
    place = {e.id: i for i, e in enumerate(_standings(entrants))}
    f = sum(frozenset(p) in forbidden for p in matching)
    r = sum(met.get(frozenset(p), 0) for p in matching)
    d = sum((by_id[x].points - by_id[y].points) ** 2 for x, y in matching)
    q = sum((place[x] - place[y]) ** 2 for x, y in matching)
    return f, r, d, q


def _matched(pairings: Sequence[Pairing]) -> list[tuple[int, int]]:
    return [(p.a, p.b) for p in pairings if p.b is not None]


def _byes(pairings: Sequence[Pairing]) -> list[int]:
    return [p.a for p in pairings if p.b is None]


def _ids(pairings: Sequence[Pairing]) -> list[int]:
    return [x for p in pairings for x in (p.a, p.b) if x is not None]


@st.composite
def fields(draw: st.DrawFn, low: int = 2, high: int = 40) -> tuple[list[Entrant], Met, Forbidden]:
    """A random set of entrants (distinct ranks, random points and byes), meetings and forbidden pairings."""
    n = draw(st.integers(low, high))
    ids = draw(st.lists(st.integers(1, 500), min_size=n, max_size=n, unique=True))
    ranks = draw(st.permutations(range(1, n + 1)))
    points = draw(st.lists(st.sampled_from([0, 2, 4, 6, 8]), min_size=n, max_size=n))
    byes = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    entrants = [Entrant(i, points=p, rank=r, byes=b) for i, p, r, b in zip(ids, points, ranks, byes, strict=True)]
    pair = st.tuples(st.sampled_from(ids), st.sampled_from(ids)).filter(lambda t: t[0] != t[1])
    met_pairs = draw(st.lists(pair, max_size=2 * n))
    met: Met = {frozenset(p): draw(st.integers(1, 2)) for p in met_pairs}
    forbidden: Forbidden = {frozenset(p) for p in draw(st.lists(pair, max_size=n))}
    return entrants, met, forbidden


def _check_round(pairings: list[Pairing], entrants: Sequence[Entrant]) -> None:
    """Every pair exactly once; one bye iff odd, to the lowest-ranked pair with the fewest byes; a above b."""
    assert sorted(_ids(pairings)) == sorted(e.id for e in entrants)
    byes = _byes(pairings)
    assert len(byes) == len(entrants) % 2
    place = {e.id: i for i, e in enumerate(_standings(entrants))}
    if byes:
        fewest = min(e.byes for e in entrants)
        candidates = [e for e in entrants if e.byes == fewest]
        (bye,) = byes
        assert bye in {e.id for e in candidates}
        assert max(e.rank for e in candidates) == next(e.rank for e in entrants if e.id == bye)
        assert pairings[-1].b is None
    matched = _matched(pairings)
    assert all(place[a] < place[b] for a, b in matched)
    assert [place[a] for a, _ in matched] == sorted(place[a] for a, _ in matched)
    assert all(p.why for p in pairings)


# ------------------------------------------------------------------------------------- Swiss: properties


@FAST
@given(fields(), st.integers(0, 2**32), st.booleans())
def test_swiss_pairs_everyone_once_with_one_bye_iff_odd(
    field: tuple[list[Entrant], Met, Forbidden], seed: int, first: bool
) -> None:
    entrants, met, forbidden = field
    pairings = swiss_round(entrants, rng=random.Random(seed), met=met, forbidden=forbidden, first=first)
    _check_round(pairings, entrants)
    # deterministic: the same seed gives the same round, whatever order the entrants come in
    shuffled = list(entrants)
    random.Random(seed).shuffle(shuffled)
    again = swiss_round(shuffled, rng=random.Random(seed), met=dict(met), forbidden=list(forbidden), first=first)
    if not first:  # round 1's random draw depends on the order given; later rounds only on the standings
        assert again == pairings
    assert swiss_round(entrants, rng=random.Random(seed), met=met, forbidden=forbidden, first=first) == pairings


@FAST
@given(fields(2, 9), st.integers(0, 2**32))
def test_swiss_is_the_lexicographic_optimum(field: tuple[list[Entrant], Met, Forbidden], seed: int) -> None:
    """Brute force: fewest forbidden, then fewest rematches, then high v high, then neighbours — exactly."""
    entrants, met, forbidden = field
    pairings = swiss_round(entrants, rng=random.Random(seed), met=met, forbidden=forbidden)
    players = [e for e in entrants if e.id not in _byes(pairings)]
    best = min(_cost(m, players, met, forbidden) for m in _all_matchings([e.id for e in players]))
    assert _cost(_matched(pairings), players, met, forbidden) == best


@FAST
@given(fields(2, 9), st.integers(0, 2**32))
def test_swiss_makes_no_avoidable_rematch(field: tuple[list[Entrant], Met, Forbidden], seed: int) -> None:
    entrants, met, _ = field
    met = dict.fromkeys(met, 1)
    pairings = swiss_round(entrants, rng=random.Random(seed), met=met)
    players = [e.id for e in entrants if e.id not in _byes(pairings)]
    fewest = min(sum(frozenset(p) in met for p in m) for m in _all_matchings(players))
    assert sum(frozenset(p) in met for p in _matched(pairings)) == fewest
    for p in pairings:
        if p.b is not None and frozenset((p.a, p.b)) in met:
            assert "rematch" in p.why


@FAST
@given(fields(2, 9), st.integers(0, 2**32), st.booleans())
def test_swiss_keeps_forbidden_pairs_apart_when_it_can(
    field: tuple[list[Entrant], Met, Forbidden], seed: int, first: bool
) -> None:
    entrants, met, forbidden = field
    pairings = swiss_round(entrants, rng=random.Random(seed), met=met, forbidden=forbidden, first=first)
    players = [e.id for e in entrants if e.id not in _byes(pairings)]
    fewest = min(sum(frozenset(p) in forbidden for p in m) for m in _all_matchings(players))
    assert sum(frozenset(p) in forbidden for p in _matched(pairings)) == fewest
    if first:  # round 1 also avoids rematches, after forbidden pairings
        rematches = min(
            sum(met.get(frozenset(p), 0) for p in m)
            for m in _all_matchings(players)
            if sum(frozenset(p) in forbidden for p in m) == fewest
        )
        assert sum(met.get(frozenset(p), 0) for p in _matched(pairings)) == rematches


@FAST
@given(fields(2, 9), st.integers(0, 2**32))
def test_swiss_puts_high_against_high(field: tuple[list[Entrant], Met, Forbidden], seed: int) -> None:
    """高分对高分: with nothing to avoid, the sum of squared points differences is the least possible."""
    entrants, _, _ = field
    by_id = {e.id: e for e in entrants}
    pairings = swiss_round(entrants, rng=random.Random(seed), met={})

    def spread(m: Sequence[tuple[int, int]]) -> int:
        return sum((by_id[x].points - by_id[y].points) ** 2 for x, y in m)

    players = [e.id for e in entrants if e.id not in _byes(pairings)]
    assert spread(_matched(pairings)) == min(spread(m) for m in _all_matchings(players))
    for p in pairings:
        if p.b is not None and by_id[p.a].points == by_id[p.b].points:
            assert p.why == f"equal points ({by_id[p.a].points})"


@settings(deadline=None, max_examples=30)
@given(st.integers(1, 7).map(lambda k: 2 * k + 1), st.integers(0, 2**32))
def test_swiss_byes_rotate(n: int, seed: int) -> None:
    """Over many rounds no pair gets a second bye while a pair without one remains."""
    rng = random.Random(seed)
    byes = dict.fromkeys(range(1, n + 1), 0)
    met: Met = {}
    for number in range(n + 3):
        ranks = list(range(1, n + 1))
        rng.shuffle(ranks)
        entrants = [
            Entrant(i, points=rng.choice([0, 2, 4]), rank=r, byes=byes[i]) for i, r in zip(byes, ranks, strict=True)
        ]
        pairings = swiss_round(entrants, rng=rng, met=met, first=number == 0)
        (bye,) = _byes(pairings)
        assert byes[bye] == min(byes.values())
        byes[bye] += 1
        assert max(byes.values()) - min(byes.values()) <= 1
        for a, b in _matched(pairings):
            met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1


# --------------------------------------------------------------------------------------- Swiss: examples


def test_six_pairs_after_a_round() -> None:
    # round 1: 1 beat 6, 2 beat 5, 3 beat 4 — the winners meet, the losers meet, no rematch
    entrants = [
        Entrant(1, points=2, margin=5, rank=1),
        Entrant(2, points=2, margin=3, rank=2),
        Entrant(3, points=2, margin=1, rank=3),
        Entrant(4, points=0, margin=-1, rank=4),
        Entrant(5, points=0, margin=-3, rank=5),
        Entrant(6, points=0, margin=-5, rank=6),
    ]
    met = {frozenset({1, 6}): 1, frozenset({2, 5}): 1, frozenset({3, 4}): 1}
    pairings = swiss_round(entrants, rng=random.Random(0), met=met)
    # three on 2 points cannot all meet each other: one of them meets a pair on 0 (the lowest-ranked
    # one possible, 3), and no one meets its old opponent; (places 1v2, 3v5, 4v6 and 1v3, 2v4, 5v6 tie)
    assert [(p.a, p.b) for p in pairings] in ([(1, 2), (3, 5), (4, 6)], [(1, 3), (2, 4), (5, 6)])
    assert _cost(_matched(pairings), entrants, met, set()) == (0, 0, 4, 9)
    assert sorted(p.why for p in pairings) == [
        "equal points (0)",
        "equal points (2)",
        "points 2 v 0: no pair on 2 left to meet",
    ]


def test_odd_field_bye_to_the_lowest_ranked_without_one() -> None:
    entrants = [Entrant(i, points=8 - 2 * i, rank=i, byes=1 if i == 5 else 0) for i in range(1, 6)]
    pairings = swiss_round(entrants, rng=random.Random(0), met={})
    assert pairings[-1] == Pairing(4, None, "bye: lowest-ranked pair without a bye")
    assert [(p.a, p.b) for p in pairings[:-1]] == [(1, 2), (3, 5)]


def test_team_mates_are_kept_apart() -> None:
    entrants = [Entrant(i, points=2, rank=i, club="north" if i <= 2 else "") for i in range(1, 5)]
    pairings = swiss_round(entrants, rng=random.Random(0), met={}, forbidden=[frozenset({1, 2})])
    assert [(p.a, p.b) for p in pairings] == [(1, 3), (2, 4)]
    # with only the two of them, the pairing cannot be avoided, and says so
    (only,) = swiss_round(entrants[:2], rng=random.Random(0), met={}, forbidden=[frozenset({1, 2})])
    assert only == Pairing(1, 2, "forbidden pairing (north): no pairing avoided it")


def test_round_one_is_drawn_at_random() -> None:
    entrants = [Entrant(i, rank=i) for i in range(1, 17)]
    draws = {tuple(_matched(swiss_round(entrants, rng=random.Random(s), met={}, first=True))) for s in range(20)}
    assert len(draws) > 1
    pairings = swiss_round(entrants, rng=random.Random(3), met={}, first=True)
    assert all(p.why == "round 1: drawn" for p in pairings)
    # a knockout stage before: pairs that met there are kept apart in round 1 as well
    met = {frozenset({x, x + 1}): 1 for x in range(1, 16)}
    for s in range(10):
        pairings = swiss_round(entrants, rng=random.Random(s), met=met, first=True)
        assert not any(frozenset(p) in met for p in _matched(pairings))


def _play(pairings: Sequence[Pairing], table: dict[int, list[int]], met: Met, rng: random.Random) -> None:
    """Results drawn by ``rng``: a win 2 points, a bye a win with margin 0 (table: id -> [points, margin, byes])."""
    for p in pairings:
        if p.b is None:
            table[p.a][0] += 2
            table[p.a][2] += 1
            continue
        winner, loser = (p.a, p.b) if rng.random() < 0.5 else (p.b, p.a)
        margin = rng.randint(1, 12)
        table[winner][0] += 2
        table[winner][1] += margin
        table[loser][1] -= margin
        met[frozenset((p.a, p.b))] = met.get(frozenset((p.a, p.b)), 0) + 1


def _entrants(table: dict[int, list[int]]) -> list[Entrant]:
    order = sorted(table, key=lambda i: (-table[i][0], -table[i][1], i))
    return [
        Entrant(i, points=table[i][0], margin=table[i][1], rank=order.index(i) + 1, byes=table[i][2]) for i in table
    ]


@pytest.mark.parametrize("n", [16, 17, 20, 21])
def test_three_rounds_of_swiss_never_rematch(n: int) -> None:
    for seed in range(5):
        rng = random.Random(seed)
        table = {i: [0, 0, 0] for i in range(1, n + 1)}
        met: Met = {}
        for number in range(3):
            entrants = _entrants(table)
            pairings = swiss_round(entrants, rng=rng, met=met, first=number == 0)
            _check_round(pairings, entrants)
            assert not any(frozenset(p) in met for p in _matched(pairings)), (seed, number)
            if number:
                points = {e.id: e.points for e in entrants}
                # high against high: no pairing spans more than one win when a closer one was possible
                assert all(abs(points[a] - points[b]) <= 2 for a, b in _matched(pairings))
            _play(pairings, table, met, rng)


# ------------------------------------------------------------------------------------------------ knockout


@settings(deadline=None, max_examples=50)
@given(
    st.integers(2, 250),
    st.sampled_from([2, 4, 6, 10, 60]),
    st.booleans(),
    st.integers(0, 2**32),
    st.lists(st.integers(0, 2), min_size=250, max_size=250),
)
def test_knockout_draw(n: int, session_size: int, seeded: bool, seed: int, byes: list[int]) -> None:
    entrants = [Entrant(i, rank=i, byes=b) for i, b in zip(range(101, 101 + n), byes[:n], strict=True)]
    sessions = knockout_draw(entrants, rng=random.Random(seed), seeded=seeded, session_size=session_size)
    assert knockout_draw(entrants, rng=random.Random(seed), seeded=seeded, session_size=session_size) == sessions
    # sessions: as many as needed, none too big, nearly equal, every entrant exactly once
    assert len(sessions) == math.ceil(n / session_size)
    sizes = [len(_ids(s)) for s in sessions]
    assert max(sizes) <= session_size
    assert max(sizes) - min(sizes) <= 2
    assert sorted(_ids([p for s in sessions for p in s])) == [e.id for e in entrants]
    # only an odd total makes a bye, and it goes to a pair with the fewest byes of all
    all_byes = [p.a for s in sessions for p in s if p.b is None]
    assert len(all_byes) == n % 2
    by_id = {e.id: e for e in entrants}
    if all_byes:
        assert by_id[all_byes[0]].byes == min(byes[:n])
    for s in sessions:
        assert [p.b is None for p in s] == sorted(p.b is None for p in s)  # byes last
    if seeded:
        # sessions are runs of the given order (but for the bye, which may swap places with a neighbour
        # to reach the odd session); within one, 1st v last, 2nd v 2nd-last, …
        seed = {e.id: i for i, e in enumerate(entrants)}
        members = [sorted(_ids(s), key=seed.get) for s in sessions]
        moved = [i for i, x in enumerate(x for m in members for x in m) if x != entrants[i].id]
        assert not moved or (len(moved) == 2 and all_byes and seed[all_byes[0]] in moved)
        for s, m in zip(sessions, members, strict=True):
            rest = [x for x in m if x not in all_byes]
            assert _matched(s) == [(rest[i], rest[-1 - i]) for i in range(len(rest) // 2)]
        if all_byes:  # the highest seed among the pairs with the fewest byes
            assert all_byes[0] == next(e.id for e in entrants if e.byes == min(byes[:n]))


def test_knockout_sessions_of_thirty_tables() -> None:
    entrants = [Entrant(i) for i in range(1, 126)]
    sessions = knockout_draw(entrants, rng=random.Random(7), seeded=True)
    assert [len(_ids(s)) for s in sessions] == [41, 42, 42]  # the odd one holds a1, the top seed
    assert sessions[0][-1] == Pairing(1, None, "bye: fewest byes so far (0), the highest seed among them")
    assert sessions[0][0] == Pairing(2, 41, "seeded draw in session 1: seed 2 v seed 41")
    assert sessions[1][0] == Pairing(42, 83, "seeded draw in session 2: seed 42 v seed 83")
    # 122 pairs: 61 would make two odd sessions; 42 + 40 + 40 needs no bye at all
    sessions = knockout_draw(entrants[:122], rng=random.Random(7))
    assert sorted(len(_ids(s)) for s in sessions) == [40, 40, 42]
    assert not any(p.b is None for s in sessions for p in s)
    assert all(p.why.startswith("drawn at random in session") for s in sessions for p in s)


def test_seeded_bye_reaches_the_odd_session() -> None:
    # 125 pairs: sessions of 41, 42, 42; only a42 has had no bye, and no order of the sessions puts the
    # 42nd pair in the 41-pair session: it swaps places with a41
    entrants = [Entrant(i, byes=0 if i == 42 else 1) for i in range(1, 126)]
    sessions = knockout_draw(entrants, rng=random.Random(0), seeded=True)
    assert [len(_ids(s)) for s in sessions] == [41, 42, 42]
    assert sorted(_ids(sessions[0])) == [*range(1, 41), 42]
    assert sorted(_ids(sessions[1])) == [41, *range(43, 84)]
    assert sessions[0][-1] == Pairing(42, None, "bye: fewest byes so far (0), the highest seed among them")
    # a90 without a bye: the odd session goes last, no swap needed
    entrants = [Entrant(i, byes=0 if i == 90 else 1) for i in range(1, 126)]
    sessions = knockout_draw(entrants, rng=random.Random(0), seeded=True)
    assert [len(_ids(s)) for s in sessions] == [42, 42, 41]
    assert sorted(_ids(sessions[2])) == list(range(85, 126))
    assert sessions[2][-1].a == 90


def test_knockout_no_second_bye_while_a_pair_without_one_remains() -> None:
    rng = random.Random(5)
    byes = dict.fromkeys(range(1, 8), 0)
    for _ in range(14):
        entrants = [Entrant(i, byes=b) for i, b in byes.items()]
        (session,) = knockout_draw(entrants, rng=rng)
        (bye,) = [p.a for p in session if p.b is None]
        assert byes[bye] == min(byes.values())
        byes[bye] += 1
    assert set(byes.values()) == {2}


def test_seeded_knockout_gives_the_bye_to_the_highest_seed_without_one() -> None:
    entrants = [Entrant(i, byes=1 if i < 3 else 0) for i in range(1, 8)]
    (session,) = knockout_draw(entrants, rng=random.Random(0), seeded=True)
    assert [(p.a, p.b) for p in session] == [(1, 7), (2, 6), (4, 5), (3, None)]


# -------------------------------------------------------------------------------------------------- errors


def test_errors_say_what_is_wrong() -> None:
    rng = random.Random(0)
    with pytest.raises(PairingError, match="at least two pairs"):
        knockout_draw([Entrant(1)], rng=rng)
    with pytest.raises(PairingError, match="at least two pairs"):
        swiss_round([], rng=rng, met={})
    with pytest.raises(PairingError, match="pair 2 is entered twice"):
        swiss_round([Entrant(1), Entrant(2), Entrant(2)], rng=rng, met={})
    with pytest.raises(PairingError, match="pair 2 is entered twice"):
        knockout_draw([Entrant(2), Entrant(2)], rng=rng)
    with pytest.raises(PairingError, match="session must hold at least two pairs"):
        knockout_draw([Entrant(1), Entrant(2)], rng=rng, session_size=1)
    with pytest.raises(PairingError, match="forbidden pairing must name two different pairs"):
        swiss_round([Entrant(1), Entrant(2)], rng=rng, met={}, forbidden=[frozenset({1})])
    with pytest.raises(PairingError, match="pairs 1 and 2 are said to have met a negative number of times"):
        swiss_round([Entrant(1), Entrant(2)], rng=rng, met={frozenset({1, 2}): -1})
    assert issubclass(PairingError, ValueError)
