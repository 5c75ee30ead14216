"""Pairings for a tournament of pairs: knockout draws and Swiss rounds (RULES §14.3).

Everything here is pure: the functions take the entrants as :class:`Entrant` values (a pair's id,
points, level margin, place in the standings, byes so far) and a :class:`random.Random`, and return
:class:`Pairing` values, each with a short sentence saying why it was made. Every random choice comes
from the ``rng`` passed in, so the same seed always gives the same draw.

**Knockout** (:func:`knockout_draw`). Seed 001's plan plays a knockout round in sessions of at most
30 tables (``session_size`` = 60 pairs): the pairs are split into ``ceil(n / session_size)`` sessions
of nearly equal size, kept in the given order when the draw is seeded (the caller numbers them a1, a2,
… in that order) and shuffled first when it is not. Sizes differ by at most one, except that a split
never gives more than one session an odd size when another split avoids it (then sizes may differ by
two): only an odd total needs a bye. Within a session the draw is random, or seeded 1st v last, 2nd v
2nd-last, …. A session with an odd number of pairs gives one pair a bye: a pair with the fewest byes so
far (no second bye while a pair without one remains), the highest seed among them when seeded and one
drawn at random otherwise; the odd session is placed (seeded) or filled (random) so that it holds
such a pair (seeded, should no order of the sessions put that pair in the odd one, it swaps places with
the odd session's nearest pair).

**Swiss** (:func:`swiss_round`). With an odd number of pairs the lowest-ranked pair with the fewest
byes gets the bye before the others are matched. Round 1 is drawn at random, redrawn as a matching
only when the random draw made a forbidden pairing or a rematch that another draw avoids. Later rounds
are a maximum-weight perfect matching (``networkx.max_weight_matching``, ``maxcardinality=True``)
on the complete graph of the pairs to be matched. Each possible pairing of ``x`` and ``y`` costs::

    cost = F·W1 + R·W2 + D·W3 + Q
    F = 1 if x and y must not meet (team-mates of one club), else 0
    R = how many times x and y have met already
    D = (points of x − points of y)²            高分对高分，低分对低分
    Q = (place of x − place of y)²              places 0, 1, 2, … in the standings of the pairs matched

and the matching takes the weight ``C − cost`` (``C`` = the largest cost + 1, so every weight is
positive), which, all perfect matchings having ``h = m/2`` pairings for ``m`` pairs, is the same as
the smallest total cost. The weights are integers, so the matching is exact. The multipliers make the
priorities strict: ``W3 = h·(m−1)² + 1`` exceeds any round's total ``Q``; ``W2 = h·Δ²·W3 + W3``, with
``Δ`` the largest points difference, exceeds any round's total ``D·W3 + Q``; and ``W1 = h·ρ·W2 + W2``,
with ``ρ`` the most times two of the pairs have met, exceeds any round's total of the three below it.
So the round has, in this order: the fewest forbidden pairings, then the fewest rematches (counted
with how often the two met), then the smallest sum of squared points differences, then the smallest
sum of squared differences of places (neighbours meet: 1v2, 3v4, …).

>>> import random
>>> pairs = [Entrant(id=i, points=p, rank=i) for i, p in enumerate([4, 4, 2, 2, 2, 0], 1)]
>>> met = {frozenset({1, 2}): 1}
>>> for p in swiss_round(pairs, rng=random.Random(1), met=met):
...     print(p.a, p.b, p.why)
1 3 points 4 v 2: pair 1 already met the other pair on 4
2 4 points 4 v 2: pair 2 already met the other pair on 4
5 6 points 2 v 0: no pair on 2 left to meet
>>> [[(p.a, p.b) for p in s] for s in knockout_draw(pairs[:5], rng=random.Random(1), seeded=True)]
[[(2, 5), (3, 4), (1, None)]]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx  # type: ignore[import-untyped, unused-ignore]

__all__ = ["Entrant", "Pairing", "PairingError", "knockout_draw", "swiss_round"]


@dataclass(frozen=True, slots=True)
class Entrant:
    """A pair as the pairing sees it."""

    id: int  # the pair's id
    points: int = 0  # score-table points so far (RULES §14.3: a win 2, a loss 0)
    margin: int = 0  # sum of level margins so far
    rank: int = 0  # its place in the current standings, 1 = best (ties broken already by the caller)
    byes: int = 0  # byes received so far
    club: str = ""  # informational only


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two pairs drawn to meet, or one pair's bye, with the reason in words."""

    a: int  # pair id (the higher-ranked of the two in Swiss; the first drawn in knockout)
    b: int | None  # None = a bye for `a`
    why: str  # one short English sentence saying why this pairing was made (shown to players/organisers)


class PairingError(ValueError):
    """The entrants or options given cannot be paired (too few pairs, a pair entered twice, …)."""


# --------------------------------------------------------------------------------------------- checks


def _check_entrants(entrants: Sequence[Entrant]) -> None:
    """Raise PairingError unless there are at least two entrants, each entered once."""
    if len(entrants) < 2:
        raise PairingError(f"a draw needs at least two pairs, but {len(entrants)} were given")
    seen: set[int] = set()
    for e in entrants:
        if e.id in seen:
            raise PairingError(f"pair {e.id} is entered twice")
        if e.byes < 0:
            raise PairingError(f"pair {e.id} has a negative number of byes ({e.byes})")
        seen.add(e.id)


def _two(key: frozenset[int], what: str) -> frozenset[int]:
    """``key`` if it names two different pairs, else PairingError."""
    if not isinstance(key, frozenset) or len(key) != 2:
        raise PairingError(f"{what} must name two different pairs, but got {set(key)!r}")
    return key


def _forbidden_set(forbidden: Collection[frozenset[int]]) -> frozenset[frozenset[int]]:
    """The forbidden pairings as a set, each checked to name two pairs."""
    return frozenset(_two(f, "a forbidden pairing") for f in forbidden)


def _met_dict(met: Mapping[frozenset[int], int]) -> dict[frozenset[int], int]:
    """The counts of earlier meetings, each key checked to name two pairs and each count not negative."""
    out: dict[frozenset[int], int] = {}
    for key, count in met.items():
        _two(key, "a count of meetings")
        if count < 0:
            x, y = sorted(key)
            raise PairingError(f"pairs {x} and {y} are said to have met a negative number of times ({count})")
        out[key] = count
    return out


def _times(n: int) -> str:
    """'once', 'twice', '3 times'."""
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


# ------------------------------------------------------------------------------------------- knockout


def _session_sizes(n: int, session_size: int) -> list[int]:
    """Sizes of the ``ceil(n / session_size)`` sessions: the fewest odd ones, then as equal as possible.

    A session of ``session_size`` pairs holds at most ``even_cap`` pairs when its size is even and
    ``odd_cap`` when odd. The number of odd sessions has the parity of ``n``; take the smallest that
    fits, then deal the remaining pairs out two at a time (a table) to the smallest session with room.
    Sizes come out largest first.
    """
    k = -(-n // session_size)
    even_cap = session_size - session_size % 2
    odd_cap = session_size if session_size % 2 else session_size - 1
    odd = n % 2
    while n > (k - odd) * even_cap + odd * odd_cap:
        odd += 2
    sizes = [1] * odd + [0] * (k - odd)
    caps = [odd_cap] * odd + [even_cap] * (k - odd)
    for _ in range((n - odd) // 2):
        room = [i for i in range(k) if sizes[i] + 2 <= caps[i]]
        sizes[min(room, key=lambda i: sizes[i])] += 2
    return sorted(sizes, reverse=True)


def _layouts(sizes: list[int]) -> list[list[int]]:
    """The orders of ``sizes`` (exactly one of them odd) worth trying for where the odd session falls.

    For each number ``t`` of sessions before the odd one, and each ``i`` of them taken from the largest
    even sessions (the other ``t − i`` from the smallest): every distinct order once, the odd session as
    early as possible first. (Nearly every pair falls in the odd session of one of them; where the even
    sessions are all one larger than the odd one, the pairs at the boundaries do not.)
    """
    odd = next(s for s in sizes if s % 2)
    evens = sorted((s for s in sizes if not s % 2), reverse=True)
    out: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    for t in range(len(evens) + 1):
        for i in range(t + 1):
            before = evens[:i] + evens[len(evens) - (t - i) :] if t - i else evens[:i]
            rest = evens[i : len(evens) - (t - i)]
            layout = tuple([*before, odd, *rest])
            if layout not in seen:
                seen.add(layout)
                out.append(list(layout))
    return out


def _slices(layout: list[int]) -> list[range]:
    """The positions each session of ``layout`` covers, in order."""
    out: list[range] = []
    start = 0
    for size in layout:
        out.append(range(start, start + size))
        start += size
    return out


def _odd_span(layout: list[int]) -> range:
    """The positions of the (first) session of odd size in ``layout``."""
    return next(r for r, size in zip(_slices(layout), layout, strict=True) if size % 2)


def knockout_draw(
    entrants: Sequence[Entrant],
    *,
    rng: random.Random,
    seeded: bool = False,
    session_size: int = 60,
) -> list[list[Pairing]]:
    """A knockout round's draw, split into sessions (RULES §14.3, seed 001's plan: sessions of at most
    ``session_size`` pairs = 30 tables). Returns one list of pairings per session, sessions in order.

    - Sessions: ``ceil(n / session_size)`` sessions, sizes as equal as possible (they differ by at most
      1, or by 2 where that keeps a second session from an odd size: only the total can force a bye),
      pairs kept in the given order (the caller numbers them a1, a2, … in that order) when seeded, or
      shuffled by ``rng`` first when not seeded.
    - Within a session: a random draw (``rng``) or, when seeded, by the given order: 1st v last, 2nd v
      2nd-last, … (the bye, if any, taken out first).
    - Odd number of pairs in a session: one bye in that session, to a pair with the fewest byes so far
      (RULES §14.3: no second bye while a pair without one remains); among those, seeded: the highest
      seed (first in order); random: one chosen by ``rng``. Where the total is odd, the odd session is
      placed (seeded) or filled (random) so that it holds a pair with the fewest byes of all; seeded,
      should no order of the sessions put that pair in the odd one, it swaps places with the odd
      session's nearest pair (sessions otherwise stay runs of the given order).
    - Within each session the byes come last.
    - Fewer than 2 entrants, a pair entered twice, or ``session_size`` below 2: :class:`PairingError`.
    """
    _check_entrants(entrants)
    if session_size < 2:
        raise PairingError(f"a session must hold at least two pairs, but session_size is {session_size}")
    order = list(entrants)
    if not seeded:
        rng.shuffle(order)
    seed_of = {e.id: i for i, e in enumerate(entrants, 1)}
    sizes = _session_sizes(len(order), session_size)
    layout = sizes
    chosen: int | None = None  # the one bye of an odd total, chosen among all pairs
    if sum(s % 2 for s in sizes) == 1:
        fewest = min(e.byes for e in order)
        if seeded:
            # RULES §14.3: the bye to the highest seed among the pairs with the fewest byes: put the odd
            # session where it holds that pair (the earliest such order of the sessions), or, where no
            # order does, next to it, and swap the pair with the odd session's nearest one
            best = next(i for i, e in enumerate(order) if e.byes == fewest)
            gap = len(order)
            for candidate in _layouts(sizes):
                span = _odd_span(candidate)
                distance = 0 if best in span else min(abs(best - span.start), abs(best - span[-1]))
                if distance < gap:
                    layout, gap = candidate, distance
                if not gap:
                    break
            span = _odd_span(layout)
            if best not in span:
                near = span.start if best < span.start else span[-1]
                order[best], order[near] = order[near], order[best]
                best = near
            chosen = order[best].id
        else:
            # RULES §14.3: the bye drawn among the pairs with the fewest byes, moved into the odd session
            pick = rng.choice([e for e in order if e.byes == fewest])
            order.remove(pick)
            span = _odd_span(layout)
            order.insert(span.start + rng.randrange(len(span)), pick)
            chosen = pick.id
    sessions: list[list[Pairing]] = []
    for number, span in enumerate(_slices(layout), 1):
        members = [order[i] for i in span]
        if seeded:  # (in the given order, should the bye have swapped places)
            members.sort(key=lambda e: seed_of[e.id])
        sessions.append(_knockout_session(members, number, seeded, chosen, seed_of, rng))
    return sessions


def _knockout_session(
    members: list[Entrant],
    number: int,
    seeded: bool,
    chosen: int | None,
    seed_of: Mapping[int, int],
    rng: random.Random,
) -> list[Pairing]:
    """One session's pairings: the draw, then the bye (if the session is odd)."""
    bye: Pairing | None = None
    if len(members) % 2:
        fewest = min(e.byes for e in members)
        lowest = [e for e in members if e.byes == fewest]
        if any(e.id == chosen for e in lowest):
            pick = next(e for e in lowest if e.id == chosen)
        else:
            pick = lowest[0] if seeded else rng.choice(lowest)
        members = [e for e in members if e is not pick]
        how = "the highest seed among them" if seeded else "drawn among them"
        bye = Pairing(pick.id, None, f"bye: fewest byes so far ({fewest}), {how}")
    out: list[Pairing] = []
    if seeded:
        for i in range(len(members) // 2):
            x, y = members[i], members[-1 - i]
            why = f"seeded draw in session {number}: seed {seed_of[x.id]} v seed {seed_of[y.id]}"
            out.append(Pairing(x.id, y.id, why))
    else:
        for i in range(0, len(members), 2):
            out.append(Pairing(members[i].id, members[i + 1].id, f"drawn at random in session {number}"))
    if bye is not None:
        out.append(bye)
    return out


# ---------------------------------------------------------------------------------------------- Swiss


def _perfect_matching(m: int, cost: Callable[[int, int], int]) -> list[tuple[int, int]]:
    """The perfect matching of places ``0 … m-1`` (m even) with the smallest total ``cost``.

    A maximum-weight matching of the complete graph with weights ``C − cost`` (all perfect matchings
    have ``m/2`` edges, so the largest total weight is the smallest total cost). Nodes and edges are
    added in sorted order, so ties between equal matchings are resolved the same way every time.
    """
    costs = {(i, j): cost(i, j) for i in range(m) for j in range(i + 1, m)}
    top = max(costs.values()) + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(m))
    for (i, j), c in costs.items():
        graph.add_edge(i, j, weight=top - c)
    mates: set[tuple[int, int]] = nx.max_weight_matching(graph, maxcardinality=True, weight="weight")
    pairs = sorted((min(i, j), max(i, j)) for i, j in mates)
    if len(pairs) != m // 2:  # pragma: no cover - a complete graph always has a perfect matching
        raise AssertionError(f"matching of {m} pairs came out with {len(pairs)} pairings")
    return pairs


def swiss_round(
    entrants: Sequence[Entrant],
    *,
    rng: random.Random,
    met: Mapping[frozenset[int], int],
    forbidden: Collection[frozenset[int]] = (),
    first: bool = False,
) -> list[Pairing]:
    """One Swiss round (RULES §14.3). ``entrants`` in standings order is NOT assumed: ``.rank`` is used.

    ``met``: how many times each two pairs have met already (``frozenset({x, y}) -> count``).
    ``forbidden``: pairings that must not be made when any other pairing avoids them (team-mates of one
    club). Pairs of equal rank are ordered by id.

    - Odd number: the lowest-ranked entrant with the fewest byes gets the bye (before matching); should
      several share that rank, ``rng`` draws among them.
    - ``first=True``: round 1 is drawn at random (``rng``); should the draw make a forbidden pairing or
      a rematch (say after a knockout stage) that another draw avoids, it is redrawn as a matching
      that has the fewest forbidden pairings, then the fewest rematches, ties broken by ``rng``.
    - Later rounds: a maximum-weight matching with, in order of priority, (1) the fewest forbidden
      pairings, (2) the fewest rematches (weighted by how often the two met), (3) the smallest sum of
      squared points differences (high against high), (4) the smallest sum of squared differences of
      places in the standings (neighbours: 1v2, 3v4). The module docstring gives the weights.
    - Each :attr:`Pairing.why` says why the pairing was made; ``a`` is the higher-ranked of the two.
    - The output is sorted by the better place of each pairing, the bye last.

    Fewer than 2 entrants, a pair entered twice, or a malformed ``met``/``forbidden``: :class:`PairingError`.
    """
    _check_entrants(entrants)
    forbid = _forbidden_set(forbidden)
    meetings = _met_dict(met)
    standings = sorted(entrants, key=lambda e: (e.rank, e.id))

    bye: Pairing | None = None
    if len(standings) % 2:
        # RULES §14.3: with an odd number of pairs the lowest-ranked pair without a bye gets one (and,
        # once every pair has had one, the lowest-ranked with the fewest)
        fewest = min(e.byes for e in standings)
        candidates = [e for e in standings if e.byes == fewest]
        lowest = [e for e in candidates if e.rank == candidates[-1].rank]
        pick = lowest[0] if len(lowest) == 1 else rng.choice(lowest)
        if len(lowest) > 1:
            why = "bye: drawn among the lowest-ranked pairs " + (
                "without a bye" if not fewest else "with the fewest byes"
            )
        elif not fewest:
            why = "bye: lowest-ranked pair without a bye"
        else:
            why = f"bye: lowest-ranked pair with the fewest byes ({fewest})"
        bye = Pairing(pick.id, None, why)
        standings = [e for e in standings if e is not pick]

    m = len(standings)
    h = m // 2
    ids = [e.id for e in standings]

    def f(i: int, j: int) -> int:
        return 1 if frozenset((ids[i], ids[j])) in forbid else 0

    def r(i: int, j: int) -> int:
        return meetings.get(frozenset((ids[i], ids[j])), 0)

    rho = max((r(i, j) for i in range(m) for j in range(i + 1, m)), default=0)

    if first:
        matched = _first_round(m, f, r, rho, rng)
    else:
        points = [e.points for e in standings]
        delta = max(points) - min(points)
        # RULES §14.3: 高分对高分 and no rematch while another pairing avoids it; the weights are strict
        # priorities (the module docstring): forbidden, then rematches, then points, then places
        w3 = h * (m - 1) ** 2 + 1
        w2 = h * delta**2 * w3 + w3
        w1 = h * rho * w2 + w2

        def cost(i: int, j: int) -> int:
            return f(i, j) * w1 + r(i, j) * w2 + (points[i] - points[j]) ** 2 * w3 + (i - j) ** 2

        matched = _perfect_matching(m, cost)

    out: list[Pairing] = []
    for i, j in sorted(matched):
        x, y = standings[i], standings[j]
        out.append(Pairing(x.id, y.id, _why(x, y, standings, f(i, j), r(i, j), first, meetings)))
    if bye is not None:
        out.append(bye)
    return out


def _first_round(
    m: int, f: Callable[[int, int], int], r: Callable[[int, int], int], rho: int, rng: random.Random
) -> list[tuple[int, int]]:
    """Round 1: a random draw, redrawn as a matching if it makes an avoidable forbidden pairing or rematch."""
    places = list(range(m))
    rng.shuffle(places)
    drawn = [(min(places[k], places[k + 1]), max(places[k], places[k + 1])) for k in range(0, m, 2)]
    if not any(f(i, j) or r(i, j) for i, j in drawn):
        return drawn
    h = m // 2
    spread = 1000  # random tie-breaks 0 … 999 per pairing
    w2 = h * spread
    w1 = h * rho * w2 + w2
    noise = {(i, j): rng.randrange(spread) for i in range(m) for j in range(i + 1, m)}
    return _perfect_matching(m, lambda i, j: f(i, j) * w1 + r(i, j) * w2 + noise[i, j])


def _why(
    x: Entrant,
    y: Entrant,
    standings: list[Entrant],
    forbidden: int,
    met: int,
    first: bool,
    met_before: Mapping[frozenset[int], int],
) -> str:
    """The sentence for the Swiss pairing of ``x`` (higher-ranked) and ``y``."""
    notes: list[str] = []
    if forbidden:
        club = f" ({x.club})" if x.club and x.club == y.club else ""
        notes.append(f"forbidden pairing{club}: no pairing avoided it")
    if met:
        notes.append(f"rematch (met {_times(met)} before): no pairing avoided it")
    if first:
        return "; ".join(["round 1: drawn", *notes])
    if notes:
        return "; ".join(notes)
    if x.points == y.points:
        return f"equal points ({x.points})"
    higher = x if x.points > y.points else y
    same = [e for e in standings if e.points == higher.points and e is not higher]
    if not same:
        return f"points {x.points} v {y.points}: no other pair on {higher.points}"
    if all(met_before.get(frozenset((e.id, higher.id)), 0) for e in same):
        which = "the other pair" if len(same) == 1 else "every other pair"
        return f"points {x.points} v {y.points}: pair {higher.id} already met {which} on {higher.points}"
    return f"points {x.points} v {y.points}: no pair on {higher.points} left to meet"
