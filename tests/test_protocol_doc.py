"""docs/protocol.md keeps up with the server: every message type, error code, route, action and
event kind, view field and limit that the code has is in the document, and its JSON examples parse.

The names are read from the code itself (the server's sources with :mod:`ast`, the enums, a real
view), so a new message, code or field that the document does not mention fails here.
"""

from __future__ import annotations

import ast
import inspect
import json
import random
import re
from pathlib import Path

import pytest

from chaodipi.cards import parse_cards, shuffled_deck
from chaodipi.hand import Hand
from chaodipi.log import ActionKind, EventKind
from chaodipi.rules import PRESETS, RuleSet
from chaodipi.server import app, protocol, table, tables, ws
from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import MAX_MESSAGE_BYTES, MAX_REF
from chaodipi.server.table import MAX_NAME
from chaodipi.view import BidOption, Legal

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "protocol.md"
SERVER = ROOT / "src" / "chaodipi" / "server"
TEXT = DOC.read_text(encoding="utf-8")

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _tree(name: str) -> ast.Module:
    return ast.parse((SERVER / name).read_text(encoding="utf-8"))


def _called(node: ast.Call, name: str) -> bool:
    func = node.func
    return (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name)


def _text(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def error_codes() -> set[str]:
    """Every error code the server can send: the codes of ``ErrorReply(...)`` messages and of
    ``ProtocolError(...)`` raises in the server's modules, and ProtocolError's default code."""
    codes: set[str] = set()
    for path in sorted(SERVER.glob("*.py")):
        for node in ast.walk(_tree(path.name)):
            if isinstance(node, ast.Call) and _called(node, "ErrorReply") and len(node.args) >= 2:
                code = _text(node.args[1])
            elif isinstance(node, ast.Call) and _called(node, "ProtocolError"):
                given = node.args[1] if len(node.args) >= 2 else None
                given = next((k.value for k in node.keywords if k.arg == "code"), given)
                code = _text(given)
            else:
                continue
            if code is not None:
                codes.add(code)
    default = inspect.signature(protocol.ProtocolError.__init__).parameters["code"].default
    codes.add(default)  # "malformed": a ProtocolError that names no code
    return codes


def client_types() -> set[str]:
    """The message types a client may send: those ``parse_hello`` and ``parse_client`` compare with."""
    source = (SERVER / "protocol.py").read_text(encoding="utf-8")
    return set(re.findall(r'kind == "(\w+)"', source)) | set(re.findall(r'get\("type"\) != "(\w+)"', source))


def server_types() -> set[str]:
    """The message types the server sends: every ``"type": "..."`` literal of a dict in its modules."""
    found: set[str] = set()
    for name in ("app.py", "protocol.py", "table.py", "messages.py", "ws.py"):
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if _text(key) == "type" and _text(value) is not None:
                        found.add(str(_text(value)))
    return found


def routes() -> set[str]:
    """Every HTTP route and WebSocket path of the application."""
    paths: set[str] = set()
    for node in ast.walk(_tree("app.py")):
        if isinstance(node, ast.Call) and (_called(node, "Route") or _called(node, "WebSocketRoute")):
            path = _text(node.args[0]) if node.args else None
            if path is not None:
                paths.add(path)
    return paths


def close_codes() -> set[int]:
    """The WebSocket close codes the server uses: its ``CLOSE_*`` constants and the numbers passed to ``close``."""
    modules = (app, table, tables, ws)
    codes = {v for m in modules for k, v in vars(m).items() if k.startswith("CLOSE_") and isinstance(v, int)}
    for name in ("app.py", "table.py", "tables.py", "ws.py"):
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.Call) and _called(node, "close") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, int):
                    codes.add(first.value)
    return codes


def view_keys() -> set[str]:
    """Every key of a view's wire form, ``left`` included (it is there once a seat has left)."""
    hand = Hand(RuleSet.preset("anchao"), shuffled_deck(random.Random(3)), first_seat=0, dealer=0)
    hand.leave(2)
    return set(hand.view(0).to_json())


def legal_keys() -> set[str]:
    """Every key of the legal actions' wire form (all of them set at once)."""
    card = tuple(parse_cards("Ah"))
    every = Legal(
        bids=(BidOption(card),),
        fries=(BidOption(card),),
        can_pass=True,
        bury=8,
        leads=(card,),
        can_throw=True,
        follows=(card,),
        more_follows=True,
        show_red5=True,
    )
    return set(every.to_json())


def test_the_names_are_found() -> None:
    assert {"malformed", "stale", "illegal", "rate", "moved", "no_table"} <= error_codes()
    assert {"hello", "act", "auto", "leave", "again", "ping", "chat"} <= client_types()
    assert {"welcome", "update", "seats", "error", "pong", "left"} <= server_types()
    assert "/ws/tables/{table_id}" in routes() and len(routes()) >= 9
    assert {4000, 4400, 4401, 4404, 4408, 4409, 4429, 1009} <= close_codes()
    assert {"seat", "phase", "legal", "left", "rules", "events"} <= view_keys()


@pytest.mark.parametrize("code", sorted(error_codes()))
def test_every_error_code_is_documented(code: str) -> None:
    assert f"| `{code}` |" in TEXT, f"error code {code!r} has no row in the error table of docs/protocol.md"


@pytest.mark.parametrize("kind", sorted(client_types()))
def test_every_client_message_is_documented(kind: str) -> None:
    assert f'"type": "{kind}"' in TEXT, f"no example of a client message of type {kind!r}"
    assert f"`{kind}`" in TEXT, f"the client message {kind!r} is not named in docs/protocol.md"


@pytest.mark.parametrize("kind", sorted(server_types()))
def test_every_server_message_is_documented(kind: str) -> None:
    assert f'"type": "{kind}"' in TEXT, f"no example of a server message of type {kind!r}"
    assert f"| `{kind}` |" in TEXT, f"server message {kind!r} has no row in the table of server messages"


@pytest.mark.parametrize("path", sorted(routes()))
def test_every_route_is_documented(path: str) -> None:
    assert path in TEXT, f"the route {path} is not in docs/protocol.md"


@pytest.mark.parametrize("kind", [k.value for k in EventKind])
def test_every_event_kind_is_documented(kind: str) -> None:
    assert f"| `{kind}` |" in TEXT, f"event {kind!r} has no row in the table of events"


@pytest.mark.parametrize("kind", [k.value for k in ActionKind])
def test_every_action_kind_is_documented(kind: str) -> None:
    assert f"`{kind}`" in TEXT, f"action {kind!r} is not named in docs/protocol.md"


@pytest.mark.parametrize("key", sorted(view_keys()))
def test_every_view_field_is_documented(key: str) -> None:
    assert f"`{key}`" in TEXT, f"the view's field {key!r} is not in docs/protocol.md"
    if key not in ("rules", "events"):  # the server sends these two apart
        assert f"| `{key}` |" in TEXT, f"the view's field {key!r} has no row in the table of the view"


@pytest.mark.parametrize("key", sorted(legal_keys()))
def test_every_legal_field_is_documented(key: str) -> None:
    assert f"`{key}`" in TEXT, f"the legal actions' field {key!r} is not in docs/protocol.md"


@pytest.mark.parametrize("code", sorted(close_codes()))
def test_every_close_code_is_documented(code: int) -> None:
    assert re.search(rf"\b{code}\b", TEXT), f"close code {code} is not in docs/protocol.md"


def test_the_limits_and_time_limits_are_the_codes() -> None:
    config = ServerConfig()
    numbers = {
        "message size": MAX_MESSAGE_BYTES,
        "id length": MAX_REF,
        "guest name": MAX_NAME,
        "body size": app.MAX_BODY,
        "lobby writes": tables.LOBBY_WRITES_PER_MINUTE,
        "rate": int(config.rate_per_s),
        "burst": config.rate_burst,
        "send queue": config.send_queue,
        "hello timeout": int(config.hello_timeout_s),
        "deal pace": config.deal_ms,
        "bot delay": config.bot_delay_ms,
        "hand pause": config.hand_pause_ms,
    }
    for what, n in numbers.items():
        assert re.search(rf"\b{n}\b", TEXT), f"{what}: {n} is not in docs/protocol.md"
    assert config.rate_per_s == int(config.rate_per_s) and config.hello_timeout_s == int(config.hello_timeout_s)
    # the table of time limits says "every preset": check that they all agree with it
    row = {
        "declare_seconds": r"\| `declare` \|.*\| (\d+) s \|",
        "bury_seconds": r"\| `bury` \|.*\| (\d+) s \|",
        "fry_seconds": r"\| `fry` \|.*\| (\d+) s \|",
        "play_seconds": r"\| `play` \|.*\| (\d+) s \|",
    }
    for option, pattern in row.items():
        match = re.search(pattern, TEXT)
        assert match, f"no row for {option} in the table of time limits"
        assert {getattr(r, option) for r in PRESETS.values()} == {int(match.group(1))}, option


def test_every_json_example_is_json() -> None:
    blocks = [body for lang, body in _FENCE.findall(TEXT) if lang == "json"]
    assert len(blocks) >= 20
    for body in blocks:
        try:
            json.loads(body)
        except ValueError as exc:
            pytest.fail(f"a json block of docs/protocol.md is not JSON ({exc}):\n{body[:300]}")


def test_the_examples_use_real_field_names() -> None:
    """Every message in a json block has only the fields the server sends (or a client may send)."""
    allowed = {
        "welcome": {"type", "table", "name", "seat", "seq", "rules", "status", "resumed", "seats"}
        | {"hand", "game", "deadline", "view", "events_from", "events", "teams", "pace", "room", "chat"}
        | {"watching", "watch_delay"},
        "update": {"type", "seq", "hand", "game", "deadline", "view", "events_from", "events"},
        "seats": {"type", "seq", "seats"},
        "error": {"type", "seq", "code", "message", "id", "reason"},
        "pong": {"type", "seq", "id"},
        "left": {"type", "seq", "seat", "escaped"},
        "hello": {"type", "token", "seq", "hand", "events", "watch"},
        "act": {"type", "seq", "action", "id"},
        "chat": {"type", "seq", "line", "text", "phrase", "id"},
    }
    view = view_keys() - {"rules", "events"}
    for lang, body in _FENCE.findall(TEXT):
        if lang != "json":
            continue
        message = json.loads(body)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind not in allowed:
            continue
        assert set(message) <= allowed[kind], (kind, set(message) - allowed[kind])
        if isinstance(message.get("view"), dict):
            assert set(message["view"]) <= view, set(message["view"]) - view
            assert set(message["view"]["legal"]) <= legal_keys()
