"""Write the golden records that tests/test_golden.py replays as oracles.

Run from the repository root::

    .venv/bin/python tests/golden/make_golden.py

It plays whole games of every preset with random legal actions
(:func:`chaodipi.simulate.simulate_game`) and writes each one's record
(:func:`chaodipi.record.game_record`, format 2: every hand carries its deal) as
``tests/golden/<preset>-seed<N>.json``, and a few of them again in format 1 (no deals)
as ``<preset>-seed<N>-v1.json``, to prove that old records stay readable.

A golden record is replayed from its deals and actions, so it stays valid when the random
policy, the bots or Python's ``random`` change; it breaks only when the rules behave
differently, and that is what it is for. Do not rewrite the records to make a failing test
pass unless the change of rules is intended (and then say so in the commit).

The seeds are chosen for short games that still show the rules at work: fries (炒底),
flag hands (扛旗), a redeal (流庄) and a shown 5h pair.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chaodipi.record import game_record, replay
from chaodipi.rules import PRESET_NAMES, RuleSet
from chaodipi.simulate import simulate_game

HERE = Path(__file__).parent
#: two games of every preset, each noted for what it shows
GAMES: dict[str, tuple[int, ...]] = {
    "standard": (21, 56),  # the shortest game; a game with a fry
    "anchao": (55, 13),  # a fry; a longer game (8 hands)
    "kangqi": (7, 387),  # a flag hand; a redeal in the first hand
    "mingchao": (7, 18),  # the shortest game; a fry
    "contest2021": (56, 4),  # a flag hand and a fry; a flag hand
    "institute2023": (14, 33),  # a flag hand and a fry; 5h 5h shown against the flag
}
#: games written again in format 1 (no deals)
FORMAT_1: tuple[tuple[str, int], ...] = (("standard", 21), ("kangqi", 7))
MAX_BYTES = 300_000  # keep the checked-in files small


def golden_name(preset: str, seed: int, *, format_1: bool = False) -> str:
    return f"{preset}-seed{seed}{'-v1' if format_1 else ''}.json"


def to_format_1(record: dict[str, Any]) -> dict[str, Any]:
    """The same record in format 1: no deals, so the seed's shuffles deal every hand."""
    hands = [{k: v for k, v in h.items() if k != "deal"} for h in record["hands"]]
    return {**record, "format": "chaodipi-record/1", "hands": hands}


def dumps(record: dict[str, Any]) -> str:
    """The record as JSON text that reads well in a diff: one field, one deal, one action a line."""

    def j(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = ["{"]
    for key, value in record.items():
        if key != "hands":
            lines.append(f" {j(key)}: {j(value)},")
            continue
        lines.append(' "hands": [')
        for n, hand in enumerate(record["hands"]):
            head = ", ".join(f"{j(k)}: {j(v)}" for k, v in hand.items() if k not in ("deal", "actions", "result"))
            lines.append(f"  {{{head},")
            if "deal" in hand:
                lines.append(f'   "deal": {j(hand["deal"])},')
            actions = [f"    {j(a)}," for a in hand["actions"]]
            if actions:
                actions[-1] = actions[-1].removesuffix(",")
            lines += ['   "actions": [', *actions, "   ]" + ("," if "result" in hand else "")]
            if "result" in hand:
                lines.append(f'   "result": {j(hand["result"])}')
            lines.append("  }" + ("," if n < len(record["hands"]) - 1 else ""))
        lines.append(" ],")
    lines[-1] = lines[-1].removesuffix(",")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == record, "the writer lost something"
    return text


def write(name: str, record: dict[str, Any]) -> None:
    text = dumps(record)
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        raise SystemExit(f"{name}: {size} bytes, more than {MAX_BYTES}: choose a seed with a shorter game")
    replay(record)  # every golden record replays when it is written
    (HERE / name).write_text(text, encoding="utf-8")
    print(f"{name}: {len(record['hands'])} hands, {size} bytes")


def main() -> None:
    assert set(GAMES) == set(PRESET_NAMES), "every preset has its golden games"
    for preset, seeds in GAMES.items():
        for seed in seeds:
            record = game_record(simulate_game(RuleSet.preset(preset), seed))
            write(golden_name(preset, seed), record)
            if (preset, seed) in FORMAT_1:
                write(golden_name(preset, seed, format_1=True), to_format_1(record))


if __name__ == "__main__":
    main()
