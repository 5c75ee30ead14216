"""A finished game, step by step, for the browser's replay viewer (``/api/.../replay``).

:func:`replay_frames` re-checks a record with the engine (:func:`chaodipi.record.replay`, the
same checks as ``chaodipi replay``) and takes a snapshot, a *frame*, of the four seats' views
whenever something worth stopping at happened: the phase changed (the end of bidding, the
burial, frying, play, the end of the hand), a trick was completed, or a seat buried, fried,
left or showed 5h 5h. A frame holds what each seat saw then (``Hand.view(seat)``: its own
hand, the trick, the points), so the viewer can show the game from any seat, or with all
hands open by putting the four views' hands together. The game is over, so every card may
be shown: each hand also carries its whole log with every card (``Hand.iter_events``), and
each frame says how much of that log had happened.

The answer (docs/protocol.md, "Replays")::

    {"players": [...], "rules": {"preset", "set"}, "room": "standard", "seed": 5,
     "winner": 0, "levels": [...], "credits": null,
     "hands": [{"number": 1, "dealer": 2, "first_seat": 0, "level": "2", "trump": "c",
                "log": [event, ...], "result": {...} or "redeal",
                "frames": [{"step": "bidding", "action": 31, "events": 40, "trick": 0,
                            "views": [view0, view1, view2, view3]}, ...]}]}

``seed`` is a number below 2**53 in size and its decimal digits as text otherwise
(:func:`~chaodipi.record.seed_to_json`): the browser reads JSON numbers as doubles.
"""

from __future__ import annotations

from typing import Any

from chaodipi.hand import Action, Hand, Phase
from chaodipi.log import ActionKind
from chaodipi.record import replay, result_json, seed_to_json

__all__ = ["MAX_RECORD_BYTES", "replay_frames"]

#: The largest record the replay viewer accepts by upload (a long game's record is far smaller).
MAX_RECORD_BYTES = 2 * 1024 * 1024

#: Actions that make a frame of their own, whatever the phase does.
_STEP_ACTIONS = {
    ActionKind.BURY: "bury",
    ActionKind.FRY: "fry",
    ActionKind.LEAVE: "left",
    ActionKind.PENALTY: "penalty",
    ActionKind.SHOW_RED5: "red5",
}


def _view_json(hand: Hand, seat: int) -> dict[str, Any]:
    """A seat's view as the server's updates send it, without the legal actions (nobody acts in a replay)."""
    view = hand.view(seat, legal=False).to_json()
    del view["rules"], view["events"], view["legal"]
    return view


class _Frames:
    """Collects the frames of each hand while the record is replayed."""

    def __init__(self) -> None:
        self.hands: dict[int, list[dict[str, Any]]] = {}
        self.phase: dict[int, Phase] = {}
        self.tricks: dict[int, int] = {}

    def after(self, i: int, hand: Hand, action: Action | None) -> None:
        """The replay's hook: after each action, take a frame if it is a step worth stopping at."""
        frames = self.hands.setdefault(i, [])
        if action is None:  # the hand starts
            self.phase[i], self.tricks[i] = hand.phase, 0
            return
        step = None
        if len(hand.tricks) > self.tricks[i]:
            step = "over" if hand.phase is Phase.OVER else "trick"
        elif action.kind in _STEP_ACTIONS:
            step = _STEP_ACTIONS[action.kind]
        elif hand.phase is not self.phase[i]:
            step = {Phase.BURY: "bidding", Phase.PLAY: "play", Phase.REDEAL: "redeal"}.get(hand.phase, hand.phase.value)
        self.phase[i], self.tricks[i] = hand.phase, len(hand.tricks)
        if step is None:
            return
        frames.append(
            {
                "step": step,
                "action": len(hand.actions),
                "events": sum(1 for _ in hand.iter_events()),
                "trick": len(hand.tricks),
                "views": [_view_json(hand, seat) for seat in range(4)],
            }
        )


def replay_frames(record: object) -> dict[str, Any]:
    """The frames of a finished game's record; :class:`~chaodipi.record.RecordError` if the record does
    not replay (every field is checked, as by ``chaodipi replay``) or the game is not over."""
    frames = _Frames()
    game = replay(record, after=frames.after)
    assert isinstance(record, dict)  # replay() refused anything else
    hands = []
    for i, hand in enumerate(game.hands, 1):
        trump = None if hand.phase is Phase.REDEAL else hand.view(0, legal=False).trump
        hands.append(
            {
                "number": i,
                "dealer": hand.dealer,
                "first_seat": hand.first_seat,
                "level": "flag" if hand.level is None else hand.level.symbol,
                "trump": trump,
                "log": [e.to_json() for e in hand.iter_events()],
                "result": result_json(hand),
                "frames": frames.hands.get(i, []),
            }
        )
    return {
        "players": record.get("players") or [f"seat {n}" for n in range(4)],
        "rules": game.rules.to_spec(),
        "room": game.rules.name,
        "seed": seed_to_json(game.seed),
        "winner": game.winner,
        "levels": [p.to_json() for p in game.progress],
        "credits": list(game.credits) if game.rules.credits else None,
        "hands": hands,
    }
