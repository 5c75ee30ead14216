"""``chaodipi referee`` survives any input: one strict JSON answer per line, in words, in bounded time.

Targeted tests for each kind of hostile line (deep nesting, huge numbers, lone surrogates, NaN,
wrong types, huge option values, over-long lines, bytes that are not UTF-8, a client that talks
line by line), then hypothesis fuzzing of the line handler and a hostile session with the real
command. README, "The referee", lists the limits.
"""

from __future__ import annotations

import copy
import io
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chaodipi import referee
from chaodipi.cards import Card
from chaodipi.cards import deck as deck_cards
from chaodipi.referee import answer
from chaodipi.rules import INT_OPTION_RANGES, PRESET_NAMES, RuleSet

#: The public scenarios, as the project keeps them (test_scenarios_in_step keeps them in step with ../shared):
#: read from the repository, so that the count of requests fuzzed is the same on every machine.
PUBLIC = Path(__file__).resolve().parent / "scenarios" / "public.jsonl"
COMMAND = [sys.executable, "-m", "chaodipi.cli", "referee"]
BASE: dict[str, Any] = {"rules": "standard", "level": "2", "trump": "s"}
#: The longest line, as the README documents it.
LINE_LIMIT = 64 * 1024

#: One good request of each op, beside the public scenarios' requests.
SAMPLES: list[dict[str, Any]] = [
    {"op": "classify", **BASE, "cards": "9h 9h Th Th"},
    {"op": "follow", **BASE, "lead": "9h 9h", "hand": "3h 3h 4h 7h Ac", "play": "3h 3h"},
    {"op": "trick", **BASE, "plays": ["3h", "3h", "4d", "6d"], "id": 1},
    {"op": "throw", **BASE, "lead": "Qh Qh Ah", "others": ["Kh Kh 3h", "4c", "8c"]},
    {"op": "kitty", **BASE, "lead": "3h 3h 4h 4h", "kitty": "5c Tc Kc 3d 4d 6d 7d 8d"},
    {
        "op": "bids",
        "rules": "mingchao",
        "level": "8",
        "bids": [
            {"player": 0, "cards": "8s"},
            {"player": 1, "cards": "8h 8h"},
            {"player": 2, "cards": "5h 5h", "choose": "nt"},
        ],
    },
    {
        "op": "settle",
        "rules": {"preset": "kangqi", "set": {"circles": 2, "credits": "yes"}},
        "points": 30,
        "dealer": {"level": "9", "circle": 1},
        "scoring": {"level": "5"},
        "flag_failures": 0,
        "last_trick": {"winner": "scoring", "lead": "5s Ts Ks", "winning_play": "5s Ts Ks"},
        "double_red5": "dealer",
        "trump": "s",
        "level": "9",
        "id": "s1",
    },
    {
        "op": "settle",
        "rules": "institute2023",
        "points": 120,
        "dealer": {"level": "flag"},
        "scoring": {"level": "K"},
        "flag_failures": 2,
        "double_red5": "scoring",
    },
]

#: The keys a normal answer of each op has: (always, sometimes).
ANSWER_KEYS: dict[str, tuple[set[str], set[str]]] = {
    "classify": ({"kind", "suit", "units"}, set()),
    "follow": ({"legal"}, {"reason"}),
    "trick": ({"winner", "points"}, set()),
    "throw": ({"ok"}, {"forced", "penalty_cards", "penalty"}),
    "kitty": ({"multiplier", "points"}, set()),
    "bids": ({"valid", "trump", "bidder"}, set()),
    "settle": ({"table", "dealer", "scoring", "next_hand", "game_winner"}, {"credits"}),
}

#: Values of every wrong type, and some right types with wrong values.
BAD_VALUES: list[Any] = [[], ["Ah"], {}, {"a": 1}, 0, -1, 1.5, True, False, None, 10**40, "", "x", [[["x"]]], "\u3000"]

#: Words of Python's own errors, which an answer must never show.
PYTHON_WORDS = ("unhashable", "TypeError", "KeyError", "AttributeError", "NoneType", "object has no", "Traceback")


def _reject_constant(name: str) -> Any:
    raise AssertionError(f"the answer holds {name}, which is not JSON")


def strict_json(line: str) -> dict[str, Any]:
    """Parse one answer line as strict JSON (no NaN or Infinity) and check it is one object in words."""
    assert "\n" not in line and "\r" not in line, line
    line.encode("utf-8")  # no lone surrogate
    obj = json.loads(line, parse_constant=_reject_constant)
    assert isinstance(obj, dict), line
    if "error" in obj:
        error = obj["error"]
        assert isinstance(error, str) and error.strip(), obj
        assert not error.startswith(referee.INTERNAL_ERROR), obj
        assert not any(word in error for word in PYTHON_WORDS), obj
        assert set(obj) <= {"error", "id"}, obj
    return obj


def check_answer(line: str, op: object = None) -> dict[str, Any]:
    """A strict JSON answer that is either an error in words or a normal answer of ``op``."""
    obj = strict_json(line)
    if "error" not in obj:
        assert isinstance(op, str) and op in ANSWER_KEYS, (op, obj)
        always, sometimes = ANSWER_KEYS[op]
        keys = set(obj) - {"id"}
        assert always <= keys <= always | sometimes, (op, obj)
    return obj


def run_command(data: bytes, timeout: float = 60) -> list[dict[str, Any]]:
    """Feed ``data`` to ``chaodipi referee``; its answers, each checked as strict JSON."""
    proc = subprocess.run(COMMAND, input=data, capture_output=True, timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-2000:]
    assert proc.stdout.endswith(b"\n") or not proc.stdout
    text = proc.stdout.decode("utf-8")
    return [strict_json(line) for line in text.split("\n")[:-1]]


def jline(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


GOOD_TRICK = {"op": "trick", **BASE, "plays": ["3h", "3h", "4d", "6d"], "id": 1}
GOOD_TRICK_ANSWER = {"winner": 0, "points": 0, "id": 1}
GOOD_CLASSIFY = {"op": "classify", **BASE, "cards": "SJ SJ BJ BJ", "id": 2}
GOOD_CLASSIFY_ANSWER = {
    "kind": "tractor",
    "suit": "trump",
    "units": [{"kind": "tractor", "cards": "BJ BJ SJ SJ"}],
    "id": 2,
}


# -- 1. deep nesting ------------------------------------------------------------------------------------


def test_deeply_nested_json_gets_an_error_answer() -> None:
    lines = [b"[" * 60000 + b"\n", b'{"a":' * 10000 + b"1" + b"}" * 10000 + b"\n", b"[" * 33 + b"]" * 33 + b"\n"]
    answers = run_command(b"".join(lines) + jline(GOOD_TRICK))
    assert len(answers) == 4
    for a in answers[:3]:
        assert "nests arrays and objects" in a["error"] and "at most 32" in a["error"], a
    assert answers[3] == GOOD_TRICK_ANSWER


def test_nesting_within_the_limit_is_read() -> None:
    assert referee.parse_line("[" * 32 + "]" * 32) is not None
    # brackets inside texts do not count
    assert "error" not in answer({**GOOD_TRICK, "id": "[" * 100})


# -- 2. huge numbers and lone surrogates -----------------------------------------------------------------


def test_huge_integers_get_an_error_answer_and_later_lines_are_answered() -> None:
    digits = "9" * 5000
    lines = [
        f'{{"op": "trick", "id": {digits}}}\n'.encode(),
        f'{{"op": "settle", "rules": "standard", "points": -{digits}, "dealer": {{"level": "2"}}, '
        f'"scoring": {{"level": "2"}}}}\n'.encode(),
        f'{{"op": "trick", "id": 0.{digits}}}\n'.encode(),
    ]
    answers = run_command(b"".join(lines) + jline(GOOD_TRICK))
    assert len(answers) == 4
    for a in answers[:3]:
        assert "number" in a["error"] and "at most 100" in a["error"], a
    assert answers[3] == GOOD_TRICK_ANSWER


def test_large_integers_within_the_limit_are_answered_in_words() -> None:
    big = 10**99
    assert answer({**GOOD_TRICK, "id": big})["id"] == big
    out = answer(
        {"op": "settle", "rules": "standard", "points": big, "dealer": {"level": "2"}, "scoring": {"level": "2"}}
    )
    assert "points must be a whole number from" in out["error"]


def test_lone_surrogates_get_an_error_answer_and_later_lines_are_answered() -> None:
    lines = [
        b'{"op": "trick", "rules": "standard", "level": "2", "trump": "s", "plays": ["3h", "3h", "4d", "6d"], '
        b'"id": "\\ud800"}\n',
        b'{"op": "classify", "rules": "standard", "level": "2", "trump": "s", "cards": "Ah \\udfff", "id": 5}\n',
        b'{"op": "classify", "\\ud83d": 1}\n',
    ]
    answers = run_command(b"".join(lines) + jline(GOOD_TRICK) + b'{"id": "\\ud83d\\ude00", "op": "x"}\n')
    assert len(answers) == 5
    assert "id holds a lone surrogate" in answers[0]["error"] and "id" not in answers[0]
    assert "cards holds a lone surrogate" in answers[1]["error"] and answers[1]["id"] == 5
    assert "key" in answers[2]["error"] and "surrogate" in answers[2]["error"]
    assert answers[3] == GOOD_TRICK_ANSWER
    assert answers[4]["id"] == "\U0001f600"  # a surrogate pair is one character, and fine


# -- 3. NaN and Infinity ------------------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_nan_and_infinity_are_refused_in_words(number: str) -> None:
    line = f'{{"op": "trick", "rules": "standard", "level": "2", "trump": "s", "plays": ["3h"], "id": {number}}}\n'
    answers = run_command(line.encode() + jline(GOOD_TRICK))
    assert len(answers) == 2  # strict_json has checked that no NaN or Infinity came back
    assert "finite" in answers[0]["error"] and "id" not in answers[0]
    assert answers[1] == GOOD_TRICK_ANSWER


def test_nan_from_python_is_refused_too() -> None:
    out = answer({**GOOD_TRICK, "id": float("nan")})
    assert "id is nan, not a finite number" in out["error"] and "id" not in out
    strict_json(json.dumps(out, allow_nan=False))


# -- 4. wrong types: every field of every op --------------------------------------------------------------


def _paths(value: object, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _paths(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _paths(sub, (*path, i))


def _replaced(request: dict[str, Any], path: tuple[str | int, ...], value: object) -> dict[str, Any]:
    out = copy.deepcopy(request)
    here: Any = out
    for part in path[:-1]:
        here = here[part]
    if value is _DELETE:
        del here[path[-1]]
    else:
        here[path[-1]] = value
    return out


_DELETE = object()


def _field_name(path: tuple[str | int, ...]) -> str:
    """The field as the messages name it: ``bids[1].player``, ``rules.set.circles``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _names_the_field(error: str, path: tuple[str | int, ...]) -> bool:
    name = _field_name(path)
    if name in error:
        return True
    if path == ("rules", "set"):
        return "option" in error  # "unknown option 'a'; the options are ..."
    if path[:2] == ("rules", "set"):
        return f"option {path[2]}" in error
    if path in {("rules",), ("rules", "preset")}:
        return "preset" in error  # "unknown preset 'x'; the presets are ..."
    if isinstance(path[-1], int):
        return _field_name(path[:-1]) in error  # an item left out: the list is too short
    if len(path) >= 2 and isinstance(path[-1], str) and path[-2] != "rules":
        # a field whose value decides about its parent, e.g. a 5h 5h bid without its choose
        return _field_name(path[:-1]) in error and path[-1] in error
    return False


_WRONG_TYPE_CASES = [
    (sample, path, value)
    for sample in SAMPLES
    for path in _paths(sample)
    if path != ("id",)
    for value in [*BAD_VALUES, _DELETE]
]


@pytest.mark.parametrize("sample, path, value", _WRONG_TYPE_CASES)
def test_wrong_types_are_answered_in_words_naming_the_field(
    sample: dict[str, Any], path: tuple[str | int, ...], value: object
) -> None:
    request = _replaced(sample, path, value)
    out = check_answer(json.dumps(answer(request)), request.get("op"))
    if "error" in out:
        assert _names_the_field(out["error"], path), (path, value, out)


def test_a_list_as_op_is_an_error_in_words() -> None:
    # the old referee answered "unhashable type: 'list'"
    out = answer({"op": ["trick"], **BASE})
    assert out == {"error": "unknown op: op must be a text, not ['trick']; the ops are " + ", ".join(referee.OPS)}


# -- 5. ranges of options and numeric fields --------------------------------------------------------------


def _settle_with(options: dict[str, object], **fields: object) -> dict[str, Any]:
    return {
        "op": "settle",
        "rules": {"preset": "anchao", "set": options},
        "points": 100000,
        "dealer": {"level": "A", "circle": 1},
        "scoring": {"level": "2"},
        **fields,
    }


def test_a_billion_circles_is_refused_quickly_by_the_command() -> None:
    lines = [
        jline(_settle_with({"circles": 1_000_000_000}, points=10**10)),  # a billion steps through the circles
        jline(_settle_with({"circles": 10**30})),
        jline({**_settle_with({}), "points": 10**60}),
        jline(
            {**_settle_with({"flag": "yes", "flag_fail_limit": 3}), "dealer": {"level": "flag"}, "flag_failures": 10**9}
        ),
        jline({"op": "throw", **BASE, "rules": {"preset": "standard", "set": {"throw_penalty_per_card": 10**50}}}),
    ]
    answers = run_command(b"".join(lines) + jline(GOOD_TRICK), timeout=30)
    assert answers[0]["error"] == "option circles must be from 1 to 10, not 1000000000"
    assert answers[1]["error"].startswith("option circles must be from 1 to 10")
    assert answers[2]["error"].startswith("points must be a whole number from -10000000000 to 10000000000")
    assert answers[3]["error"].startswith("flag_failures must be a whole number from 0 to 1000")
    assert answers[4]["error"].startswith("option throw_penalty_per_card must be from 0 to 1000")
    assert answers[5] == GOOD_TRICK_ANSWER


@pytest.mark.parametrize("option", sorted(INT_OPTION_RANGES))
def test_every_whole_number_option_has_its_range(option: str) -> None:
    low, high = INT_OPTION_RANGES[option]
    for good in (low, high, f"{high}"):
        out = answer(_settle_with({option: good}))
        assert "error" not in out, (option, good, out)
    for bad in (low - 1, high + 1, 10**90, -(10**90)):
        out = answer(_settle_with({option: bad}))
        assert out["error"] == f"option {option} must be from {low} to {high}, not {bad}", out


def test_the_ranges_cover_every_preset() -> None:
    from chaodipi.rules import PRESETS

    for rules in PRESETS.values():
        for option, (low, high) in INT_OPTION_RANGES.items():
            value = getattr(rules, option)
            assert value is None or low <= value <= high, (rules.name, option, value)


@pytest.mark.parametrize("points", [-(10**10), 10**10, -5, 0, 165])
@pytest.mark.parametrize("circles", [1, 3, 10])
def test_settle_at_the_limits_is_answered_in_bounded_time(points: int, circles: int) -> None:
    for dealer, scoring in (("2", "2"), ("A", "K"), ("K", "A")):
        request = {
            "op": "settle",
            "rules": {"preset": "anchao", "set": {"circles": circles}},
            "points": points,
            "dealer": {"level": dealer, "circle": circles},
            "scoring": {"level": scoring},
        }
        start = time.perf_counter()
        out = check_answer(referee.answer_line(json.dumps(request)), "settle")
        assert time.perf_counter() - start < 1.0
        assert "error" not in out, out


def test_numeric_request_fields_have_ranges() -> None:
    out = answer(_settle_with({}, dealer={"level": "2", "circle": 11}))
    assert out["error"] == "dealer.circle must be a whole number from 1 to 10, not 11"
    out = answer(_settle_with({}, flag_failures=1001))
    assert out["error"] == "flag_failures must be a whole number from 0 to 1000, not 1001"
    out = answer(_settle_with({}, points=10**10 + 5))
    assert out["error"].startswith("points must be a whole number from -10000000000 to 10000000000")


# -- 6. line length --------------------------------------------------------------------------------------


def test_an_overlong_line_gets_an_error_answer_and_reading_goes_on() -> None:
    limit = LINE_LIMIT
    exact = b'{"id": "' + b"a" * (limit - 10) + b'"}'
    assert len(exact) == limit
    lines = [
        b'{"id": "' + b"a" * 300_000 + b'"}\n',
        b" " * (limit + 1) + b"\n",
        exact + b"\r\n",
        exact + b"x\n",
    ]
    answers = run_command(b"".join(lines) + jline(GOOD_TRICK))
    assert len(answers) == 5
    too_long = f"the line is longer than {limit} bytes: a request is one line of at most that"
    assert answers[0] == {"error": too_long}
    assert answers[1] == {"error": too_long}
    assert answers[2]["error"].startswith("unknown op") and answers[2]["id"] == "a" * (limit - 10)
    assert answers[3] == {"error": too_long}
    assert answers[4] == GOOD_TRICK_ANSWER


def test_the_line_limit_is_the_documented_one() -> None:
    assert referee.MAX_LINE_BYTES == LINE_LIMIT


class _Recording(io.BytesIO):
    """A stream that records how much each readline may return."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.sizes: list[int | None] = []

    def readline(self, size: int | None = -1, /) -> bytes:
        self.sizes.append(size)
        return super().readline(size)


def test_reading_an_overlong_line_takes_bounded_memory() -> None:
    stream = _Recording(b"x" * 5_000_000 + b"\nnext\n")
    lines = list(referee.read_lines(stream))
    assert [len(line) for line in lines] == [LINE_LIMIT + 2, 4]
    assert all(size is not None and 0 < size <= LINE_LIMIT + 2 for size in stream.sizes)
    out = io.StringIO()
    referee.run_lines(lines, out)
    first, second = (strict_json(a)["error"] for a in out.getvalue().splitlines())
    assert first.startswith("the line is longer than") and second.startswith("the line is not JSON")


# -- 7. line by line, UTF-8 per line, blank lines -----------------------------------------------------------


def _read_answer(proc: subprocess.Popen[bytes], timeout: float = 20) -> dict[str, Any]:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    got = b""
    while not got.endswith(b"\n"):
        left = deadline - time.monotonic()
        ready, _, _ = select.select([proc.stdout], [], [], max(left, 0))
        assert ready, f"no answer within {timeout} s (answers so far: {got!r})"
        chunk = os.read(proc.stdout.fileno(), 65536)
        assert chunk, "the referee closed its output"
        got += chunk
    assert got.count(b"\n") == 1, got
    return strict_json(got.decode("utf-8").removesuffix("\n"))


@pytest.mark.skipif(sys.platform == "win32", reason="select() on pipes")
def test_answers_are_written_as_each_line_arrives() -> None:
    proc = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    assert proc.stdin is not None
    try:
        proc.stdin.write(jline(GOOD_TRICK))
        assert _read_answer(proc) == GOOD_TRICK_ANSWER
        proc.stdin.write(b"\xff not utf-8\n")
        assert "not UTF-8" in _read_answer(proc)["error"]
        proc.stdin.write(b"\n   \n")  # blank lines: no answer
        proc.stdin.write(jline(GOOD_CLASSIFY))
        assert _read_answer(proc) == GOOD_CLASSIFY_ANSWER
        proc.stdin.write(b"[" * 1000 + b"\n")
        assert "nests" in _read_answer(proc)["error"]
        proc.stdin.write(jline({**GOOD_TRICK, "id": "last"}))
        assert _read_answer(proc)["id"] == "last"
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read() == b""
        proc.stdout.close()
        proc.stderr.close()


def test_a_line_that_is_not_utf8_is_answered_and_the_rest_go_on() -> None:
    lines = [
        b"\xff\xfe{}\n",
        b'{"id": "\xed\xa0\x80"}\n',
        b'{"op": "classify", "cards": "A\xe9h"}\n',
        "é\n".encode("latin-1"),
    ]
    answers = run_command(b"".join(lines) + jline(GOOD_TRICK))
    assert len(answers) == 5
    for a in answers[:4]:
        assert a["error"].startswith("the line is not UTF-8 text"), a
    assert answers[4] == GOOD_TRICK_ANSWER


def test_input_that_is_not_json_lines_at_all_exits_2_after_answering_every_line() -> None:
    out = io.StringIO()
    assert referee.run_lines(["garbage", "more garbage"], out) == 2
    assert len(out.getvalue().splitlines()) == 2
    assert referee.run_lines(["garbage", '{"op": "x"}'], io.StringIO()) == 0
    assert referee.run_lines(["", "  "], io.StringIO()) == 0


def test_blank_lines_get_no_answer() -> None:
    answers = run_command(b"\n \n\t\r\n" + jline(GOOD_TRICK) + b"\n\n" + json.dumps(GOOD_CLASSIFY).encode())
    assert answers == [GOOD_TRICK_ANSWER, GOOD_CLASSIFY_ANSWER]
    assert referee.answer_line("  ") == '{"error": "the line is blank: a request is one JSON object"}'


# -- 8. fuzzing the line handler -------------------------------------------------------------------------------

FUZZ = settings(
    max_examples=150,
    deadline=timedelta(milliseconds=2000),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_texts = st.text(alphabet=st.characters() | st.characters(categories=["Cs"]), max_size=30)
#: Texts of real cards, so that mutated requests reach deep into the engine.
_card_texts = st.lists(st.sampled_from([str(c) for c in Card.ALL]), max_size=12).map(" ".join)
#: Words the fields take: levels, trumps, presets, sides, option values.
_words = st.sampled_from(
    [
        *("2", "5", "8", "T", "10", "J", "A", "flag", "s", "h", "nt", "standard", "kangqi", "institute2023"),
        *("dealer", "scoring", "yes", "no", "unordered", "exponential", "D<C<H<S<SJ<BJ<5h", "J, A"),
    ]
)
#: Whole numbers around the ones requests use, and the limits.
_numbers = st.integers(-200, 200).map(lambda n: n * 5) | st.sampled_from(
    [0, 1, 2, 3, 4, 9, 10, 11, 1000, 1001, 10**10, -(10**10), 10**10 + 5, 10**99, 10**150]
)
_atoms = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.integers(min_value=-(10**120), max_value=10**120)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _texts
    | _card_texts
    | _words
)
_json_values = st.recursive(
    _atoms, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_texts, inner, max_size=5), max_leaves=25
)


def _public_requests() -> list[dict[str, Any]]:
    out = []
    for line in PUBLIC.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            request = json.loads(line)
            request.pop("expect", None)
            out.append(request)
    return out


REQUESTS = SAMPLES + _public_requests()


def _dump(value: object, *, ascii_only: bool) -> str:
    return json.dumps(value, ensure_ascii=ascii_only)  # NaN and Infinity written as JS does: hostile input


def _timed_answer(line: str) -> str:
    start = time.perf_counter()
    out = referee.answer_line(line)
    assert time.perf_counter() - start < 2.0
    return out


@FUZZ
@given(value=_json_values, ascii_only=st.booleans())
def test_fuzz_random_json_values(value: object, ascii_only: bool) -> None:
    line = _dump(value, ascii_only=ascii_only)
    op = value.get("op") if isinstance(value, dict) else None
    check_answer(_timed_answer(line), op)
    out = answer(value)  # the Python call survives the same values
    check_answer(json.dumps(out, ensure_ascii=False, allow_nan=False), op)


@st.composite
def _mutated_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A good request with a few changes: most of them plausible (a value of the same type), so
    that many answers are normal ones from deep in the engine; some of them anything at all."""
    request: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(REQUESTS)))
    for _ in range(draw(st.integers(0, 3))):
        # the last fields first (hypothesis favours the first): the cards rather than the rules; no
        # bad op here, test_fuzz_random_json_values has those
        paths = [p for p in _paths(request) if p != ("op",)][::-1]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["similar", "similar", "similar", "any", "delete", "duplicate"]))
        here: Any = request
        try:
            for part in path[:-1]:
                here = here[part]
            old = here[path[-1]]
            if how == "delete":
                del here[path[-1]]
            elif how == "duplicate":
                here[path[-1]] = [copy.deepcopy(old)] * draw(st.integers(0, 4))
            elif how == "similar" and isinstance(old, str):
                here[path[-1]] = draw(_words | _card_texts | _texts)
            elif how == "similar" and isinstance(old, int) and not isinstance(old, bool):
                here[path[-1]] = draw(_numbers)
            else:
                here[path[-1]] = draw(_json_values)
        except (KeyError, IndexError, TypeError):
            pass  # an earlier change altered the shape under this path
    return request


@FUZZ
@given(request=_mutated_requests(), ascii_only=st.booleans())
def test_fuzz_mutated_requests(request: dict[str, Any], ascii_only: bool) -> None:
    check_answer(_timed_answer(_dump(request, ascii_only=ascii_only)), request.get("op"))
    check_answer(json.dumps(answer(request), ensure_ascii=False, allow_nan=False), request.get("op"))


_LEVELS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]


@st.composite
def _engine_requests(draw: st.DrawFn) -> dict[str, Any]:
    """Well-formed requests of random cards and options (two copies at most), which reach the engine."""
    remaining = list(draw(st.permutations(deck_cards())))

    def take(n: int, suit: str | None = None) -> str:
        """``n`` cards not taken yet, of one natural suit (and jokers) if ``suit`` is given."""
        chosen = [c for c in remaining if suit is None or c.suit is None or c.suit.value == suit][:n]
        for c in chosen:
            remaining.remove(c)
        return " ".join(str(c) for c in chosen)

    op = draw(st.sampled_from(list(ANSWER_KEYS)))
    options: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "circles": st.integers(1, 10),
                "flag": st.booleans(),
                "ftk_pair": st.booleans(),
                "trump_level_links": st.booleans(),
                "tractor_skip_level": st.sampled_from(["none", "side", "all"]),
                "kitty_multiplier": st.sampled_from(["linear", "exponential"]),
                "throw_fail_play": st.sampled_from(["failing_unit", "smallest_card"]),
            },
        )
    )
    preset = draw(st.sampled_from(PRESET_NAMES))
    request: dict[str, Any] = {"op": op, "rules": {"preset": preset, "set": options}}
    request["level"] = draw(st.sampled_from(_LEVELS))
    request["trump"] = draw(st.sampled_from(["s", "h", "c", "d", "nt", "flag"]))
    k = draw(st.integers(1, 8))
    lead = take(k, draw(st.sampled_from([None, "s", "h", "c", "d"])))
    if op == "classify":
        request["cards"] = lead
    elif op == "follow":
        hand = take(draw(st.integers(k, 27)))
        play = hand.split()
        request.update(lead=lead, hand=hand, play=" ".join(draw(st.permutations(play))[:k]))
    elif op == "trick":
        request["plays"] = [lead] + [take(k) for _ in range(3)]
    elif op == "throw":
        request.update(lead=lead, others=[take(draw(st.integers(0, 27))) for _ in range(3)])
    elif op == "kitty":
        request.update(lead=lead, kitty=take(8))
    elif op == "bids":
        bids = []
        for _ in range(draw(st.integers(0, 8))):
            bid = {"player": draw(st.integers(0, 3)), "cards": take(draw(st.integers(1, 2)))}
            if bid["cards"] == "5h 5h":
                bid["choose"] = draw(st.sampled_from(["s", "h", "c", "d", "nt"]))
            bids.append(bid)
        request["bids"] = bids
    else:
        circles: int = options.get("circles", RuleSet.preset(preset).circles)
        request.update(
            points=draw(st.integers(-40, 60)) * 5,
            dealer={"level": draw(st.sampled_from([*_LEVELS, "flag"])), "circle": draw(st.integers(1, circles))},
            scoring={"level": draw(st.sampled_from([*_LEVELS, "flag"]))},
            flag_failures=draw(st.integers(0, 4)),
            double_red5=draw(st.sampled_from([None, "dealer", "scoring"])),
        )
        if draw(st.booleans()):
            request["last_trick"] = {"winner": draw(st.sampled_from(["dealer", "scoring"])), "winning_play": lead}
    return request


@FUZZ
@given(request=_engine_requests())
def test_fuzz_well_formed_requests_of_random_cards(request: dict[str, Any]) -> None:
    check_answer(_timed_answer(json.dumps(request)), request["op"])


@FUZZ
@given(text=st.text(alphabet=st.characters() | st.characters(categories=["Cs"]) | st.sampled_from('{}[]",:0e.-\\u')))
def test_fuzz_random_text(text: str) -> None:
    strict_json(_timed_answer(text))


@FUZZ
@given(
    data=st.binary(max_size=300)
    | st.lists(st.sampled_from([b"{", b"}", b"[", b'"', b"\n", b"\xff", b"1", b" "])).map(b"".join)
)
def test_fuzz_random_bytes_through_the_reader(data: bytes) -> None:
    out = io.StringIO()
    status = referee.run_lines(referee.read_lines(io.BytesIO(data)), out)
    answers = out.getvalue().split("\n")
    # 2 only when the input is not JSON Lines at all: then every answer is an error
    assert status == 0 or (status == 2 and all("error" in strict_json(a) for a in answers if a))
    assert answers[-1] == ""
    expected = 0
    for piece in data.split(b"\n")[: data.count(b"\n") + (0 if data.endswith(b"\n") else 1)]:
        try:
            expected += bool(piece.decode("utf-8").strip())
        except UnicodeDecodeError:
            expected += 1
    assert len(answers) - 1 == expected
    for a in answers[:-1]:
        strict_json(a)


# -- the real command with every kind of bad line ------------------------------------------------------------------


def test_hostile_session_one_answer_per_line() -> None:
    limit = LINE_LIMIT
    settle_ok = {"op": "settle", "rules": "standard", "points": 35, "dealer": {"level": "9"}, "scoring": {"level": "5"}}
    cases: list[tuple[bytes, dict[str, Any] | str]] = [
        (jline(GOOD_TRICK), GOOD_TRICK_ANSWER),
        (b"[" * 50000 + b"\n", "nests arrays and objects"),
        (b'{"id": ' + b"7" * 5000 + b"}\n", "at most 100"),
        (b'{"op": "trick", "id": "\\ud800"}\n', "lone surrogate"),
        (
            b'{"op": "classify", "rules": "standard", "level": "2", "trump": "s", "cards": "\\udc00"}\n',
            "lone surrogate",
        ),
        (b'{"id": NaN}\n', "finite"),
        (b'{"id": Infinity}\n', "finite"),
        (b'{"id": -Infinity}\n', "finite"),
        (b'{"id": 1e400}\n', "finite"),
        (jline({"op": ["trick"]}), "op must be a text"),
        (
            jline({"op": "bids", "rules": "standard", "level": "8", "bids": [{"player": [0], "cards": "8s"}]}),
            "bids[0].player",
        ),
        (jline({"op": "settle", "rules": {"preset": "standard", "set": {"circles": 10**9}}}), "option circles"),
        (jline({**settle_ok, "points": 10**15}), "points must be a whole number"),
        (jline(GOOD_CLASSIFY), GOOD_CLASSIFY_ANSWER),
        (b"\xc3\x28 not utf-8\n", "not UTF-8"),
        (b"\n", ""),
        (b"  \t \r\n", ""),
        (b"{" + b" " * (limit + 100) + b"}\n", "longer than"),
        (b"[1, 2]\n", "must be a JSON object"),
        (b"not json\n", "not JSON"),
        (b'{"op": "kitty"\n', "not JSON"),
        (jline({**settle_ok, "id": 3}), {"table": "dealer", "dealer": {"level": "A", "circle": 1}, "id": 3}),
        (jline({**GOOD_TRICK, "id": "end"})[:-1], {**GOOD_TRICK_ANSWER, "id": "end"}),  # no line end at the end
    ]
    answers = run_command(b"".join(line for line, _ in cases), timeout=60)
    expected = [want for _, want in cases if want != ""]
    assert len(answers) == len(expected)
    for got, want in zip(answers, expected, strict=True):
        if isinstance(want, str):
            assert set(got) == {"error"} and want in got["error"], (want, got)
        else:
            assert {k: got.get(k) for k in want} == want, (want, got)
