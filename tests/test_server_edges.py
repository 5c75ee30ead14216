"""The server's edge cases (issue 20, points 7 and 9): seeds beyond 2**53, text that is not valid
Unicode, messages that cannot be sent, slow HTTP clients, the missing hello, and JSON files that
Python's own words would describe.

The slow-client tests run ``chaodipi serve``'s uvicorn setup (server/serve.py) for real, with time
limits of a fraction of a second: a raw socket sends half a request and the server must close it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from chaodipi.cli import build_parser, main
from chaodipi.record import (
    JSON_SAFE_INT,
    JSONTextError,
    RecordError,
    game_record,
    load_record,
    parse_json,
    replay,
    seed_from_json,
    seed_to_json,
)
from chaodipi.rules import RuleSet
from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import SEED_MAX, SEED_MIN, ProtocolError, loads, lobby_seed, parse_client, parse_hello
from chaodipi.server.replay import replay_frames
from chaodipi.server.serve import KEEP_ALIVE_S, connection_limit
from chaodipi.server.store import SEED_RANGE, Store
from chaodipi.server.ws import CLOSE_UNSENDABLE, Connection
from chaodipi.simulate import simulate_game
from server_helpers import FAST, Client, join, new_table, running_server

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
RECORD_FORMAT = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
GOLDEN = ROOT / "tests" / "golden"
BIG = 2479999172460754900  # the seed of the issue: a double rounds it to 2479999172460755000


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- seeds as text --------------------------------------------------------------------------------


def test_a_seed_travels_as_a_number_below_2_53_and_as_text_from_there() -> None:
    assert seed_to_json(7) == 7 and seed_to_json(-7) == -7
    assert seed_to_json(JSON_SAFE_INT - 1) == JSON_SAFE_INT - 1
    assert seed_to_json(JSON_SAFE_INT) == "9007199254740992"
    assert seed_to_json(-JSON_SAFE_INT) == "-9007199254740992"
    assert seed_to_json(BIG) == "2479999172460754900"
    for seed in (0, 5, -3, JSON_SAFE_INT - 1, JSON_SAFE_INT, BIG, SEED_MIN, SEED_MAX, 10**40):
        assert seed_from_json(seed_to_json(seed)) == seed
    assert float(BIG) != BIG  # why: the number itself would not survive a JavaScript client


@pytest.mark.parametrize(
    "value", ["12", "007", "-0", "+2479999172460754900", "2479999172460754900 ", "2.5e18", "", True]
)
def test_a_record_seed_is_text_only_in_the_form_the_engine_writes(value: object) -> None:
    with pytest.raises(RecordError, match=r"^a whole number, not "):
        seed_from_json(value)


def test_a_record_with_a_big_seed_writes_it_as_text_and_replays() -> None:
    game = simulate_game(RuleSet.preset("standard"), BIG)
    record = game_record(game)
    assert record["seed"] == "2479999172460754900"
    assert json.dumps(record).count('"seed": "2479999172460754900"') == 1
    assert replay(record).seed == BIG
    # a record written before seeds were text (a JSON integer) reads as well, and shows the same seed
    assert replay({**record, "seed": BIG}).seed == BIG
    # format 1: the seed deals every hand, so the text must be read as the number
    old = {
        **record,
        "format": "chaodipi-record/1",
        "hands": [{k: v for k, v in h.items() if k != "deal"} for h in record["hands"]],
    }
    assert game_record(replay(old)) == record
    with pytest.raises(RecordError, match=r"^seed: a whole number, not \"2479999172460754900x\""):
        replay({**record, "seed": "2479999172460754900x"})


def test_the_replay_frames_carry_a_big_seed_as_text() -> None:
    record = game_record(simulate_game(RuleSet.preset("standard"), BIG))
    assert replay_frames(record)["seed"] == "2479999172460754900"
    assert replay_frames({**record, "seed": BIG})["seed"] == "2479999172460754900"
    small = load_record(GOLDEN / "kangqi-seed7.json")
    assert replay_frames(small)["seed"] == 7


def test_the_lobby_seed_is_a_small_number_or_decimal_text() -> None:
    assert (SEED_MIN, SEED_MAX) == SEED_RANGE
    assert lobby_seed(7) == 7 and lobby_seed(-(JSON_SAFE_INT - 1)) == -(JSON_SAFE_INT - 1)
    assert lobby_seed("2479999172460754900") == BIG and lobby_seed("0042") == 42
    assert lobby_seed(str(SEED_MIN)) == SEED_MIN and lobby_seed(str(SEED_MAX)) == SEED_MAX
    refusals = [
        (BIG, r"too large to travel as a JSON number .*send it as text, \"2479999172460754900\""),
        (JSON_SAFE_INT, r"too large to travel as a JSON number"),
        (
            str(SEED_MAX + 1),
            r"must fit 64 bits \(-9223372036854775808\.\.9223372036854775807\), not 9223372036854775808",
        ),
        ("99999999999999999999", r"fits 64 bits: a JSON integer below 2\*\*53 in size, or its decimal digits"),
        ("12a", r'not "12a"'),
        (" 12", r'not " 12"'),
        ("", r'not ""'),
        (True, r"not true"),
        (1.5, r"not 1\.5"),
        ([1], r"not \[1\]"),
    ]
    for value, pattern in refusals:
        with pytest.raises(ProtocolError) as info:
            lobby_seed(value)
        assert re.search(pattern, str(info.value)), (value, str(info.value))


def test_post_tables_takes_a_64_bit_seed_as_text(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.db'}"

    async def main() -> None:
        async with running_server(url, **FAST) as base, httpx.AsyncClient(base_url=base) as http:
            r = await http.post("/api/tables", json={"seed": "2479999172460754900"})
            assert r.status_code == 201, r.text
            big = r.json()["id"]
            r = await http.post("/api/tables", json={"seed": 7})
            assert r.status_code == 201, r.text
            small = r.json()["id"]
            for seed, words in [
                (BIG, "send it as text"),
                ("9223372036854775808", "must fit 64 bits"),
                ("seven", "decimal digits as text"),
                (False, "not false"),
            ]:
                r = await http.post("/api/tables", json={"seed": seed})
                assert r.status_code == 400 and words in r.json()["error"], (seed, r.text)
        store = Store(url)
        try:
            seeds = {info.id: info.seed for info in store.list_tables()}
        finally:
            store.close()
        assert seeds[big] == BIG and seeds[small] == 7

    run(main())


def test_an_uploaded_record_with_a_big_seed_comes_back_exact(tmp_path: Path) -> None:
    record = game_record(simulate_game(RuleSet.preset("standard"), BIG))
    as_number = json.dumps({**record, "seed": BIG})  # an older record: the seed as a JSON integer

    async def main() -> None:
        async with (
            running_server(f"sqlite:///{tmp_path / 'db.db'}", **FAST) as base,
            httpx.AsyncClient(base_url=base) as http,
        ):
            for text in (json.dumps(record), as_number):
                r = await http.post("/api/replay", content=text.encode())
                assert r.status_code == 200, r.text[:300]
                assert '"seed":"2479999172460754900"' in r.text.replace(" ", "")

    run(main())


def test_the_docs_say_how_seeds_travel() -> None:
    for doc in (PROTOCOL, RECORD_FORMAT):
        assert "2**53" in doc or "2^53" in doc or "2⁵³" in doc
        assert '"2479999172460754900"' in doc
    assert "9007199254740992" in PROTOCOL


# -- text that is not valid Unicode, and messages that cannot be sent ------------------------------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (r'{"type": "ping", "id": "\ud800"}', "'id'"),
        (r'{"type": "ping", "id": "a\udfffb"}', "'id'"),
        (r'{"type": "act", "seq": 1, "action": {"a": "play", "cards": "\udc00"}}', "'cards'"),
        (r'{"type": "ping", "\ud800": 1}', "a key of the message"),
        (r'{"type": "ping", "x": ["\ud800"]}', r"'x'\[0\]"),
    ],
)
def test_a_lone_surrogate_anywhere_is_refused_in_words(text: str, where: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client(text, seat=0)
    message = str(info.value)
    assert info.value.code == "malformed" and info.value.ref is None
    assert re.search(
        rf"^{where} is not valid Unicode text: it holds a lone surrogate \(\\ud[89a-f][0-9a-f]{{2}}\)$", message
    ), message
    message.encode("utf-8")  # the reply can be sent
    with pytest.raises(ProtocolError, match="lone surrogate"):
        parse_hello(r'{"type": "hello", "token": "\ud800"}')


def test_a_surrogate_pair_is_a_character_and_is_taken() -> None:
    assert loads(r'{"type": "ping", "id": "\ud83d\ude00"}')["id"] == "😀"
    assert parse_client(r'{"type": "ping", "id": "\ud83d\ude00"}', seat=1).ref == "😀"


def test_a_ping_with_a_lone_surrogate_id_is_answered_and_the_connection_goes_on(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path / 'db.db'}", **FAST) as base:
            table = await new_table(base, "standard", seed=5)
            _, token = await join(base, table, "Ann", 0)
            client = Client(base, table, token)
            await client.connect()
            await client.ws.send('{"type": "ping", "id": "\\ud800"}')
            await client.wait(lambda c: bool(c.errors))
            error = client.errors[0]
            assert error["code"] == "malformed" and "id" not in error, error
            assert "lone surrogate (\\ud800)" in error["message"]
            await client.send({"type": "ping", "id": "after"})
            await client.wait(lambda c: any(m["type"] == "pong" and m.get("id") == "after" for m in c.messages))
            assert client.closed is None
            await client.close()

    run(main())


class _Socket:
    """A WebSocket stand-in that writes text as UTF-8, as the real one does (and fails as it does)."""

    def __init__(self, *, gone: bool = False) -> None:
        from starlette.websockets import WebSocketState

        self.application_state = WebSocketState.CONNECTED
        self.sent: list[bytes] = []
        self.closed_with: tuple[int, str] | None = None
        self.gone = gone

    async def send_text(self, text: str) -> None:
        if self.gone:
            raise OSError("connection reset by peer")
        self.sent.append(text.encode("utf-8"))

    async def close(self, code: int, reason: str) -> None:
        from starlette.websockets import WebSocketState

        self.closed_with = (code, reason)
        self.application_state = WebSocketState.DISCONNECTED


def test_a_message_that_cannot_be_sent_closes_1011_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        socket = _Socket()
        conn = Connection(socket, ServerConfig())  # type: ignore[arg-type]
        conn.send('{"type":"pong","seq":1}')
        conn.send('{"type":"pong","seq":2,"id":"\ud800"}')
        conn.send('{"type":"pong","seq":3}')
        with caplog.at_level(logging.INFO, logger="chaodipi.server"):
            await asyncio.wait_for(conn.pump(), 2)
        assert socket.sent == [b'{"type":"pong","seq":1}']  # what came after the failure is not sent either
        assert socket.closed_with == (CLOSE_UNSENDABLE, "the server could not send a message")
        assert conn.closed and conn.outbox.empty()
        conn.send("more")  # nothing is queued on a closed connection
        assert conn.outbox.empty()
        [line] = [r for r in caplog.records if r.name == "chaodipi.server"]
        assert line.levelno == logging.ERROR and "cannot be sent" in line.getMessage() and "1011" in line.getMessage()
        assert "\\ud800" in line.getMessage()  # the log line itself is writable

    run(main())


def test_a_client_gone_while_a_message_is_sent_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        socket = _Socket(gone=True)
        conn = Connection(socket, ServerConfig())  # type: ignore[arg-type]
        conn.send("{}")
        with caplog.at_level(logging.INFO, logger="chaodipi.server"):
            await asyncio.wait_for(conn.pump(), 2)
        assert conn.closed and socket.closed_with is None
        assert any("the client is gone (OSError)" in r.getMessage() for r in caplog.records)

    run(main())


def test_the_lobby_refuses_text_that_is_not_valid_unicode(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            running_server(f"sqlite:///{tmp_path / 'db.db'}", **FAST) as base,
            httpx.AsyncClient(base_url=base) as http,
        ):
            for body in (rb'{"name": "\ud800"}', rb'{"\udc00": 1}'):
                r = await http.post("/api/tables", content=body)
                assert r.status_code == 400 and "lone surrogate" in r.json()["error"], r.text

    run(main())


def test_the_docs_name_close_1011_and_the_refusal() -> None:
    assert re.search(r"\| 1011 \|", PROTOCOL)
    assert "lone surrogate" in PROTOCOL


# -- the missing hello: one code --------------------------------------------------------------------


def test_a_missing_hello_is_hello_required_in_the_docs_and_the_code(tmp_path: Path) -> None:
    # the docs name one code for a hello that does not come, and never malformed
    assert not re.search(r"no hello[^|\n]*`malformed`", PROTOCOL)
    assert re.search(r"\| the hello \| within 10 s \| `hello_required`, close 4400 \|", PROTOCOL)

    async def main() -> None:
        async with running_server(f"sqlite:///{tmp_path / 'db.db'}", **FAST, hello_timeout_s=0.2) as base:
            table = await new_table(base, "standard", seed=5)
            url = base.replace("http://", "ws://") + f"/ws/tables/{table}"
            async with websockets.connect(url) as ws:  # says nothing
                error = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert (error["code"], error["message"]) == ("hello_required", "no hello within 0.2 s")
                with pytest.raises(websockets.ConnectionClosed):
                    await asyncio.wait_for(ws.recv(), 5)
                assert ws.close_code == 4400
            async with websockets.connect(url) as ws:  # says something else first
                await ws.send('{"type": "ping"}')
                assert json.loads(await asyncio.wait_for(ws.recv(), 5))["code"] == "hello_required"

    run(main())


# -- slow HTTP clients --------------------------------------------------------------------------------

SHORT = {"head_timeout_s": 0.4, "body_timeout_s": 0.4}


@contextlib.asynccontextmanager
async def serving(url: str, **config: Any) -> AsyncIterator[int]:
    """``chaodipi serve``'s uvicorn setup (the guarded protocol and its limits) on a free port; yields the port."""
    async with running_server(url, guarded=True, **{**FAST, **config}) as base:
        yield int(base.rsplit(":", 1)[1])


async def _until_closed(reader: asyncio.StreamReader, limit: float) -> tuple[bytes, float]:
    """Everything the server writes until it closes the connection, and how long that took."""
    start = time.monotonic()
    data = await asyncio.wait_for(reader.read(), limit)  # read() returns at EOF
    return data, time.monotonic() - start


def test_half_a_request_line_is_closed_within_the_head_timeout(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> None:
        async with serving(f"sqlite:///{tmp_path / 'db.db'}", **SHORT) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /api/hea")
            await writer.drain()
            with caplog.at_level(logging.WARNING, logger="chaodipi.server"):
                data, took = await _until_closed(reader, 5)
            writer.close()
            assert data.startswith(b"HTTP/1.1 408 Request Timeout\r\n") and b"connection: close" in data, data
            assert data.endswith(b"no whole request head within 0.4 s\n")
            assert 0.3 < took < 2.5, took
            assert any("no whole request head within 0.4 s" in r.getMessage() for r in caplog.records)

            # trickling the head a byte at a time does not reset the limit
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            start = time.monotonic()
            data = b""
            for byte in b"GET /api/health HTTP/1.1\r\nHost: x\r\nUser-Agent: a slow one\r\n":
                writer.write(bytes([byte]))  # one byte every 50 ms: 3 s for the whole head
                with contextlib.suppress(TimeoutError):
                    data += await asyncio.wait_for(reader.read(4096), 0.05)
                if data:
                    break
            writer.close()
            assert data.startswith(b"HTTP/1.1 408 ") and time.monotonic() - start < 2, data

            # a connection that sends nothing at all
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            data, took = await _until_closed(reader, 5)
            writer.close()
            assert b"408" in data and took < 2.5

    run(main())


def test_half_a_body_is_closed_within_the_body_timeout_and_whole_requests_are_served(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(f"sqlite:///{tmp_path / 'db.db'}", **SHORT) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b'POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"name": ')
            await writer.drain()
            data, took = await _until_closed(reader, 5)
            writer.close()
            assert data.startswith(b"HTTP/1.1 408 "), data
            assert b"the request body did not all arrive within 0.4 s" in data
            assert took < 2.5
            # whole requests, slow applications and kept-alive connections are not cut off
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                for _ in range(3):
                    assert (await http.get("/api/health")).json()["ok"] is True
                    await asyncio.sleep(0.3)  # within the keep-alive time, longer than both limits together
                r = await http.post("/api/tables", json={"name": "slow"})
                assert r.status_code == 201

    run(main())


def test_a_websocket_outlives_the_http_limits(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(f"sqlite:///{tmp_path / 'db.db'}", **SHORT) as port:
            base = f"http://127.0.0.1:{port}"
            table = await new_table(base, "standard", seed=5)
            _, token = await join(base, table, "Ann", 0)
            client = Client(base, table, token)
            await client.connect()
            await asyncio.sleep(1.0)  # longer than the head and body limits
            await client.send({"type": "ping", "id": "still"})
            await client.wait(lambda c: any(m["type"] == "pong" for m in c.messages), timeout=5)
            assert client.closed is None
            await client.close()

    run(main())


def test_connections_beyond_the_limit_are_answered_503(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        async with serving(f"sqlite:///{tmp_path / 'db.db'}", head_timeout_s=5, max_connections=3) as port:
            held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
            await asyncio.sleep(0.1)
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            with caplog.at_level(logging.WARNING, logger="chaodipi.server"):
                data, took = await _until_closed(reader, 3)
            writer.close()
            assert data.startswith(b"HTTP/1.1 503 Service Unavailable\r\n") and took < 1, data
            assert any("the most this server takes" in r.getMessage() for r in caplog.records)
            for _, w in held:
                w.close()
            await asyncio.sleep(0.2)
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:  # room again
                assert (await http.get("/api/health")).status_code == 200

    run(main())


def test_the_connection_limit_fits_under_the_open_file_limit() -> None:
    resource = pytest.importorskip("resource")
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert connection_limit(10) == (10 if soft == resource.RLIM_INFINITY else min(10, soft - 100))
    if soft != resource.RLIM_INFINITY:
        assert connection_limit(10**9) == soft - 100


def test_the_limits_are_options_and_documented() -> None:
    config = ServerConfig()
    args = build_parser().parse_args(["serve"])
    assert (args.head_timeout, args.body_timeout, args.max_connections) == (
        config.head_timeout_s,
        config.body_timeout_s,
        config.max_connections,
    )
    args = build_parser().parse_args(
        ["serve", "--head-timeout", "2.5", "--body-timeout", "60", "--max-connections", "50"]
    )
    assert (args.head_timeout, args.body_timeout, args.max_connections) == (2.5, 60.0, 50)
    for bad in (["--head-timeout", "0"], ["--max-connections", "0"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", *bad])
    helptext = build_parser()._subparsers._group_actions[0].choices["serve"].format_help()  # type: ignore[union-attr]
    for words in ("--head-timeout", "--body-timeout", "--max-connections", "408", "503", "5 s"):
        assert words in helptext
    for option, value in (
        ("--head-timeout", "10 s"),
        ("--body-timeout", "30 s"),
        ("--max-connections", "1000"),
    ):
        assert re.search(rf"`{option}` \| {value}", PROTOCOL), option
    assert f"{KEEP_ALIVE_S} s" in PROTOCOL and "408" in PROTOCOL and "503" in PROTOCOL


# -- JSON files in our words ------------------------------------------------------------------------


def test_a_record_with_a_byte_order_mark_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + (GOLDEN / "kangqi-seed7.json").read_bytes())
    assert main(["replay", "--quiet", str(path)]) == 0
    assert "every action is legal" in capsys.readouterr().out


def test_a_number_too_long_is_said_in_our_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "long.json"
    path.write_text('{\n  "format": "chaodipi-record/2",\n  "seed": ' + "9" * 5000 + "\n}\n", encoding="utf-8")
    assert main(["replay", "--quiet", str(path)]) == 1
    err = capsys.readouterr().err
    words = "not JSON for a record: line 3, column 11: a number of 5000 digits is too long (at most 100 digits)"
    assert err == f"{path}: {words}\n"
    for leak in ("sys.set_int_max_str_digits", "utf-8-sig", "Exceeds the limit"):
        assert leak not in err


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"seed": -' + "1" * 300 + "}", "line 1, column 10: a number of 300 digits is too long"),
        ("[1, 2,\n 3e999]", "line 2, column 2: the number 3e999 is too large"),
        ("[0." + "5" * 200 + "]", "line 1, column 2: a number of 201 digits is too long"),
        ('{"a": 1,}', "not JSON: line 1, column 9: Expecting property name enclosed in double quotes"),
        ("\ufeff\ufeff{}", "not JSON: line 1, column 1: a second byte-order mark (U+FEFF)"),
        ('{"a": NaN}', "not JSON: NaN is not a JSON number"),
        ('{"a": 1, "a": 2}', "not JSON: the key 'a' appears twice in one object"),
    ],
)
def test_parse_json_says_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(JSONTextError) as info:
        parse_json(text, what="a record")
    assert words in str(info.value), str(info.value)
    assert parse_json("\ufeff[1]") == [1] and parse_json(b"\xef\xbb\xbf[1]") == [1]
    with pytest.raises(JSONTextError, match=r"^not UTF-8 text \(byte 1\): a record is a JSON document$"):
        parse_json(b"[\xff]", what="a record")


def test_the_lobby_says_what_is_wrong_with_a_body_in_our_words(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            running_server(f"sqlite:///{tmp_path / 'db.db'}", **FAST) as base,
            httpx.AsyncClient(base_url=base) as http,
        ):
            r = await http.post("/api/tables", content=b'{"seed": ' + b"7" * 5000 + b"}")
            assert r.status_code == 400
            assert r.json()["error"] == (
                "the body is not JSON for a lobby request: line 1, column 10: a number of 5000 digits is too long "
                "(at most 100 digits)"
            )
            r = await http.post("/api/tables", content=b'\xef\xbb\xbf{"name": "bom"}')
            assert r.status_code == 201, r.text
            r = await http.post("/api/replay", content=b"{" + b'"seed": ' + b"1" * 200 + b"}")
            assert r.status_code == 400 and "for a record: line 1, column 10" in r.json()["error"]

    run(main())
