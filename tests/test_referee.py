"""The referee contract (docs/referee.md): public scenarios, bad input, the command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chaodipi.referee import answer

# the project's copies (tests/scenarios, kept in step with ../shared/scenarios by test_scenarios_in_step)
SCENARIOS = sorted((Path(__file__).resolve().parent / "scenarios").glob("*.jsonl"))


def _cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in SCENARIOS:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() and not line.startswith("#"):
                out.append((f"{path.name}:{n}", json.loads(line)))
    return out


def _norm(text: str) -> list[str]:
    return sorted(text.split())


@pytest.mark.parametrize("where, case", _cases(), ids=[w for w, _ in _cases()])
def test_public_scenario(where: str, case: dict[str, Any]) -> None:
    want = case.pop("expect")
    got = answer(case)
    for key, value in want.items():
        if key in ("forced", "cards") and isinstance(value, str):
            assert _norm(got[key]) == _norm(value), where
        elif isinstance(value, dict):
            assert {k: got[key].get(k) for k in value} == value, where
        else:
            assert got.get(key) == value, (where, got)


BASE = {"rules": "standard", "level": "2", "trump": "s"}


@pytest.mark.parametrize(
    "request_, words",
    [
        ({"op": "classify", **BASE, "cards": "Xh"}, "not a card"),
        ({"op": "classify", **BASE, "rules": "house", "cards": "Ah"}, "unknown preset"),
        (
            {"op": "classify", **BASE, "rules": {"preset": "standard", "set": {"colour": 1}}, "cards": "Ah"},
            "unknown option",
        ),
        (
            {"op": "classify", **BASE, "rules": {"preset": "standard", "set": {"ftk": "maybe"}}, "cards": "Ah"},
            "yes or no",
        ),
        ({"op": "classify", **BASE, "level": "1", "cards": "Ah"}, "level"),
        ({"op": "classify", **BASE, "trump": "x", "cards": "Ah"}, "trump"),
        ({"op": "classify", **BASE, "cards": "Ah Ah Ah"}, "third"),
        ({"op": "follow", **BASE, "lead": "9h 9h", "hand": "3h 4h Kc", "play": "3h 3h"}, "not in the hand"),
        ({"op": "follow", **BASE, "lead": "9h 9h", "hand": "3h 4h Kc", "play": "3h"}, "cards"),
        ({"op": "follow", **BASE, "lead": "9h 9h", "hand": "9h 9h 4h", "play": "4h 9h"}, "third"),
        ({"op": "follow", **BASE, "lead": "9h 9s", "hand": "3h 4h", "play": "3h 4h"}, "not a valid lead"),
        ({"op": "trick", **BASE, "plays": ["Ah", "Kh"]}, "four plays"),
        ({"op": "trick", **BASE, "plays": ["Ah", "Kh Kh", "3h", "4h"]}, "has 2 cards"),
        ({"op": "throw", **BASE, "lead": "Ah Kh", "others": ["3h"]}, "three hands"),
        ({"op": "kitty", **BASE, "lead": "Ah", "kitty": "3c 4c"}, "8 cards"),
        ({"op": "bids", "rules": "standard", "level": "8", "bids": [{"player": 7, "cards": "8s"}]}, "player"),
        ({"op": "bids", "rules": "standard", "level": "8", "bids": [{"player": 0, "cards": "5h 5h"}]}, "choose"),
        (
            {"op": "settle", "rules": "standard", "points": 33, "dealer": {"level": "2"}, "scoring": {"level": "2"}},
            "multiple of 5",
        ),
        (
            {"op": "settle", "rules": "standard", "points": 30, "dealer": {"level": "flag"}, "scoring": {"level": "2"}},
            "flag",
        ),
        ({"op": "nope"}, "unknown op"),
        ({"cards": "Ah"}, "unknown op"),
    ],
)
def test_bad_requests_get_errors_in_words(request_: dict[str, Any], words: str) -> None:
    out = answer(request_)
    assert set(out) == {"error"} and words in out["error"], out


def test_id_is_copied() -> None:
    assert answer({"op": "nope", "id": "x1"})["id"] == "x1"
    assert answer({"op": "kitty", **BASE, "lead": "Ah", "kitty": "3c 4c 6c 7c 8c 9c Jc Qc", "id": 3}) == {
        "multiplier": 2,
        "points": 0,
        "id": 3,
    }


def test_command_answers_line_by_line_and_survives_garbage() -> None:
    lines = [
        "not json",
        json.dumps({"op": "trick", **BASE, "plays": ["3h", "3h", "4d", "6d"], "id": 1}),
        "[1, 2]",
        "",
        json.dumps({"op": "classify", **BASE, "cards": "SJ SJ BJ BJ"}),
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli", "referee"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(a) for a in proc.stdout.splitlines()]
    assert len(answers) == 4
    assert "error" in answers[0] and answers[1] == {"winner": 0, "points": 0, "id": 1} and "error" in answers[2]
    assert answers[3]["kind"] == "tractor"
