"""Tournaments: events of pairs, pairings, results, penalties and standings (RULES §14).

- :mod:`chaodipi.tournament.pairing`: knockout draws with byes and Swiss rounds (a maximum-weight matching).
- :mod:`chaodipi.tournament.event`: an event as an append-only log of organiser and referee actions, and the
  state (rounds, results, penalties, standings) that replaying the log gives.
- :mod:`chaodipi.tournament.store`: events in the server's database (the log, and the standings it gives).
- :mod:`chaodipi.tournament.service`: online rounds: a table per pairing, results from the tables' games.
- :mod:`chaodipi.tournament.cli`: ``chaodipi tournament …``.
"""
