"""Accounts over HTTP (issue 21): registration, login, sessions and their cookies, CSRF and Origin
checks, rate limits and the failed-login lockout; and :class:`Accounts` itself on a database.

Each test runs its own server (server_helpers.running_server), so the rate limits' counts start at
zero; the limits are made small in its config, and the failed-login delay is 0 (no sleeps).
"""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from argon2 import PasswordHasher
from sqlalchemy import create_engine, text, update
from sqlalchemy.orm import Session

from chaodipi.server.accounts import (
    Accounts,
    BadPassword,
    BadUsername,
    SessionRow,
    UsernameTaken,
    check_username,
)
from chaodipi.server.ratings import bot_account
from chaodipi.server.store import Store
from server_helpers import FAST, join, new_table, running_server

#: No delay after a failed login, and limits that the tests other than the rate limits' do not reach.
QUIET = {
    **FAST,
    "failed_login_delay_s": 0.0,
    "register_limit": "1000/hour",
    "login_limit": "1000/minute",
    "login_name_limit": "1000/minute",
}
PASSWORD = "correct horse battery"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 't.db'}"


async def register(http: httpx.AsyncClient, username: str, password: str = PASSWORD, **extra: Any) -> httpx.Response:
    """Register with no cookie of the client's own sent along (a fresh client needs no CSRF token)."""
    return await http.post("/api/register", json={"username": username, "password": password, **extra})


async def login(http: httpx.AsyncClient, username: str, password: str = PASSWORD) -> httpx.Response:
    return await http.post("/api/login", json={"username": username, "password": password})


async def login_at(base: str, username: str, password: str = PASSWORD) -> httpx.Response:
    """A login from a new client (with no cookie, so with no CSRF token to send)."""
    async with httpx.AsyncClient(base_url=base) as http:
        return await login(http, username, password)


async def register_at(base: str, username: str, password: str = PASSWORD, **extra: Any) -> httpx.Response:
    """A registration from a new client."""
    async with httpx.AsyncClient(base_url=base) as http:
        return await register(http, username, password, **extra)


def csrf_of(r: httpx.Response) -> dict[str, str]:
    return {"X-CSRF-Token": r.json()["csrf"]}


def set_cookies(r: httpx.Response) -> dict[str, str]:
    """The response's Set-Cookie headers by cookie name."""
    out = {}
    for line in r.headers.get_list("set-cookie"):
        out[line.split("=", 1)[0]] = line
    return out


# -- registration ---------------------------------------------------------------------------------


def test_registration_takes_chinese_and_latin_names_and_refuses_taken_or_bad_ones(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(db_url(tmp_path), **QUIET) as base:
            async with httpx.AsyncClient(base_url=base) as http:
                r = await register(http, "小明")
                assert r.status_code == 201, r.text
                assert r.json()["account"]["username"] == "小明"
                assert r.json()["account"]["kind"] == "person"
                me = (await http.get("/api/me")).json()
                assert me["account"] == r.json()["account"]
                assert me["csrf"] == r.json()["csrf"]
            async with httpx.AsyncClient(base_url=base) as http:
                r = await register(http, " Alice_1 ")
                assert r.status_code == 201, r.text
                assert r.json()["account"]["username"] == "Alice_1"
            for taken in ("ALICE_1", "alice_1", "ＡＬＩＣＥ_1", "小明", "Rules", "search"):
                async with httpx.AsyncClient(base_url=base) as http:
                    r = await register(http, taken)
                    assert r.status_code == 409, (taken, r.text)
                    assert "taken" in r.json()["error"] or "bot" in r.json()["error"]
            for bad in ("a", "a" * 17, "a b", "a@b", "", "   ", "名字!", "tab\t1"):
                async with httpx.AsyncClient(base_url=base) as http:
                    r = await register(http, bad)
                    assert r.status_code == 400, (bad, r.text)
                    assert "username" in r.json()["error"]
            async with httpx.AsyncClient(base_url=base) as http:
                for body in (
                    {"username": 12, "password": PASSWORD},
                    {"username": "Bob", "password": "short77"},
                    {"username": "Bob", "password": "x" * 129},
                    {"username": "Bob", "password": 12345678},
                    {"username": "Bob", "password": PASSWORD, "admin": True},
                ):
                    r = await http.post("/api/register", json=body)
                    assert r.status_code == 400, (body, r.text)
                r = await http.post("/api/register", content=b"[1]", headers={"content-type": "application/json"})
                assert r.status_code == 400
                r = await http.post("/api/register", content=b"{" + b" " * 5000 + b"}")
                assert r.status_code == 413
                assert (await register(http, "Bob", "x" * 8)).status_code == 201
            assert (await register_at(base, "Carol-2", "长" * 128)).status_code == 201

    run(main())


def test_the_database_keeps_argon2id_hashes_and_session_hashes_only(tmp_path: Path) -> None:
    async def main() -> tuple[str, str]:
        async with running_server(db_url(tmp_path), **QUIET) as base, httpx.AsyncClient(base_url=base) as http:
            r = await register(http, "Dora")
            assert r.status_code == 201
            return http.cookies["cdp_session"], r.json()["csrf"]

    token, csrf = run(main())
    engine = create_engine(db_url(tmp_path))
    with engine.connect() as c:
        (stored,) = c.execute(text("SELECT password_hash FROM accounts WHERE username = 'Dora'")).one()
        sessions = c.execute(text("SELECT id_hash, csrf FROM sessions")).all()
    engine.dispose()
    assert stored.startswith("$argon2id$")
    assert PASSWORD not in stored
    assert PasswordHasher().verify(stored, PASSWORD)
    assert sessions == [(hashlib.sha256(token.encode()).hexdigest(), csrf)]


# -- login ------------------------------------------------------------------------------------------


def test_login_with_the_right_password_and_the_same_refusal_for_a_wrong_one_or_an_unknown_name(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with running_server(db_url(tmp_path), **QUIET) as base:
            async with httpx.AsyncClient(base_url=base) as http:
                account = (await register(http, "Eve")).json()["account"]
            async with httpx.AsyncClient(base_url=base) as http:
                wrong = await login(http, "Eve", "not the password")
                unknown = await login(http, "Nobody", "not the password")
                bad = await login(http, "!", "not the password")
                for r in (wrong, unknown, bad):
                    assert r.status_code == 401
                    assert r.json() == {"error": "wrong username or password"}
                    assert "cdp_session" not in set_cookies(r)
                assert (await login(http, "rules", "whatever1")).status_code == 401  # a bot never logs in
                r = await login(http, "EVE", PASSWORD)  # the name in any case
                assert r.status_code == 200, r.text
                assert r.json()["account"] == account
                me = (await http.get("/api/me")).json()
                assert me["account"] == account and me["csrf"] == r.json()["csrf"]

    run(main())


def test_the_cookies_are_http_only_same_site_lax_and_the_token_is_never_in_a_body(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(db_url(tmp_path), **QUIET) as base, httpx.AsyncClient(base_url=base) as http:
            bodies = []
            r = await http.get("/api/me")
            bodies.append(r.text)
            assert r.json()["account"] is None
            guest = set_cookies(r)["cdp_csrf"]
            assert r.json()["csrf"] == http.cookies["cdp_csrf"]
            for part in ("HttpOnly", "SameSite=lax", "Path=/"):
                assert part.lower() in guest.lower(), guest
            assert "secure" not in guest.lower()  # plain http: a Secure cookie would never come back
            again = await http.get("/api/me")
            assert "cdp_csrf" not in set_cookies(again)  # kept, not replaced
            assert again.json()["csrf"] == r.json()["csrf"]
            r = await http.post("/api/register", json={"username": "Finn", "password": PASSWORD}, headers=csrf_of(r))
            bodies.append(r.text)
            session = set_cookies(r)["cdp_session"]
            for part in ("HttpOnly", "SameSite=lax", "Path=/", "Max-Age=2592000"):
                assert part.lower() in session.lower(), session
            token = http.cookies["cdp_session"]
            assert len(token) >= 40
            r = await http.post("/api/logout", headers=csrf_of(r))
            bodies.append(r.text)
            r = await login(http, "Finn")  # no header: the client has a cdp_csrf cookie
            assert r.status_code == 403
            r = await http.post(
                "/api/login",
                json={"username": "Finn", "password": PASSWORD},
                headers={"X-CSRF-Token": guest_csrf(http)},
            )
            assert r.status_code == 200
            bodies.append(r.text)
            bodies.append((await http.get("/api/me")).text)
            for body in bodies:
                assert token not in body and http.cookies["cdp_session"] not in body

    run(main())


def test_both_cookies_last_30_days_and_logout_takes_an_empty_body_only(tmp_path: Path) -> None:
    """The docs say both cookies last 30 days (``cdp_csrf`` had no Max-Age: it ended with the browser), and a
    logout's body follows the general request rules: empty or ``{}``, else refused and nothing changes
    (``{``, ``[]`` and 20 KB were taken)."""

    async def main() -> None:
        async with running_server(db_url(tmp_path), **QUIET) as base, httpx.AsyncClient(base_url=base) as http:
            me = await http.get("/api/me")
            guest = set_cookies(me)["cdp_csrf"]
            assert "max-age=2592000" in guest.lower(), guest
            r = await http.post("/api/register", json={"username": "Oda", "password": PASSWORD}, headers=csrf_of(me))
            headers = {**csrf_of(r), "Content-Type": "application/json"}
            for path in ("/api/logout", "/api/logout/all"):
                for body, status in ((b"{", 400), (b"[]", 400), (b'{"all": true}', 400), (b" " * 20_000, 413)):
                    r = await http.post(path, content=body, headers=headers)
                    assert r.status_code == status, (path, body[:20], r.text)
                    assert r.json()["error"]
                    assert (await http.get("/api/me")).json()["account"]["username"] == "Oda"  # still logged in
            r = await http.post("/api/logout", content=b"{}", headers=headers)
            assert r.status_code == 200 and r.json()["account"] is None
            r = await register_at(base, "Pia")
            async with httpx.AsyncClient(base_url=base, cookies=r.cookies) as other:
                r = await other.post("/api/logout", headers=csrf_of(r))  # no body at all
                assert r.status_code == 200 and r.json()["account"] is None
                guest = set_cookies(r)["cdp_csrf"]  # the guest token that follows the session
                assert "max-age=2592000" in guest.lower(), guest

    run(main())


def guest_csrf(http: httpx.AsyncClient) -> str:
    return str(http.cookies["cdp_csrf"])


# -- CSRF and Origin ----------------------------------------------------------------------------------


def test_a_write_with_a_cookie_needs_the_csrf_token(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(db_url(tmp_path), **QUIET) as base:
            async with httpx.AsyncClient(base_url=base) as http:
                r = await register(http, "Gus")
                csrf = r.json()["csrf"]
                for headers in (
                    {},
                    {"X-CSRF-Token": "wrong"},
                    {"X-CSRF-Token": csrf[:-1]},
                    {"X-CSRF-Token": "长".encode()},
                ):
                    r = await http.post("/api/logout", headers=headers)
                    assert r.status_code == 403, headers
                    assert r.json()["code"] == "csrf"
                    r = await http.post("/api/tables", json={"rules": "standard"}, headers=headers)
                    assert r.status_code == 403 and r.json()["code"] == "csrf"
                assert (await http.get("/api/me")).json()["account"]["username"] == "Gus"  # still logged in
                r = await http.post("/api/tables", json={"rules": "standard"}, headers={"X-CSRF-Token": csrf})
                assert r.status_code == 201
                r = await http.post("/api/logout", headers={"X-CSRF-Token": csrf})
                assert r.status_code == 200 and r.json()["account"] is None
                # logged out: the session's token is no use any more, the guest one is
                r = await http.post("/api/tables", json={"rules": "standard"}, headers={"X-CSRF-Token": csrf})
                assert r.status_code == 403
                fresh = await http.get("/api/me")
                r = await http.post("/api/tables", json={"rules": "standard"}, headers=csrf_of(fresh))
                assert r.status_code == 201
            # a guest whose only cookie is cdp_csrf
            async with httpx.AsyncClient(base_url=base) as http:
                me = await http.get("/api/me")
                assert (await http.post("/api/tables", json={})).status_code == 403
                assert (await http.post("/api/tables", json={}, headers=csrf_of(me))).status_code == 201
            # a session cookie that is no session (ended, forged) grants nothing and needs nothing
            async with httpx.AsyncClient(base_url=base, cookies={"cdp_session": "x" * 43}) as http:
                assert (await http.get("/api/me")).json()["account"] is None
            async with httpx.AsyncClient(base_url=base, cookies={"cdp_session": "x" * 43}) as http:
                assert (await http.post("/api/tables", json={})).status_code == 201
            # no cookie at all: the lobby's clients of before keep working
            async with httpx.AsyncClient(base_url=base) as http:
                assert (await http.post("/api/tables", json={})).status_code == 201
                assert (await http.get("/api/tables")).status_code == 200

    run(main())


def test_a_write_or_a_websocket_from_another_origin_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(db_url(tmp_path), allowed_origins=("https://friend.example",), **QUIET) as base:
            table = await new_table(base)
            async with httpx.AsyncClient(base_url=base) as http:
                for origin in ("http://evil.example", "null", f"{base}.evil.example", base.replace("http:", "https:")):
                    r = await http.post("/api/tables", json={}, headers={"Origin": origin})
                    assert r.status_code == 403, origin
                    assert r.json()["code"] == "origin"
                    body = {"username": "Hal", "password": PASSWORD}
                    r = await http.post("/api/register", json=body, headers={"Origin": origin})
                    assert r.status_code == 403 and r.json()["code"] == "origin"
                assert (await http.get("/api/tables", headers={"Origin": "http://evil.example"})).status_code == 200
                for origin in (base, base.upper(), "https://friend.example", "https://FRIEND.example:443"):
                    r = await http.post("/api/tables", json={}, headers={"Origin": origin})
                    assert r.status_code == 201, origin
            url = base.replace("http://", "ws://") + f"/ws/tables/{table}"
            with pytest.raises(websockets.InvalidStatus) as refused:
                await websockets.connect(url, origin=websockets.Origin("http://evil.example"))
            assert refused.value.response.status_code == 403
            async with websockets.connect(url, origin=websockets.Origin(base)) as ws:
                await ws.send('{"type": "ping"}')
                assert await asyncio.wait_for(ws.recv(), 10)
            async with websockets.connect(url) as ws:  # no Origin: not a browser
                await ws.send('{"type": "ping"}')
                assert await asyncio.wait_for(ws.recv(), 10)

    run(main())


# -- rate limits --------------------------------------------------------------------------------------


def test_logins_and_registrations_are_rate_limited(tmp_path: Path) -> None:
    async def main() -> None:
        config = {**QUIET, "login_limit": "4/minute", "login_name_limit": "2/minute", "register_limit": "2/hour"}
        async with running_server(db_url(tmp_path), **config) as base:
            async with httpx.AsyncClient(base_url=base) as http:
                assert (await register(http, "Ivy")).status_code == 201
            async with httpx.AsyncClient(base_url=base) as http:
                assert (await register(http, "Jo")).status_code == 201
            async with httpx.AsyncClient(base_url=base) as http:
                r = await register(http, "Kim")
                assert r.status_code == 429
                assert int(r.headers["retry-after"]) > 0
            assert (await login_at(base, "Ivy")).status_code == 200
            assert (await login_at(base, "Ivy")).status_code == 200
            r = await login_at(base, "Ivy")  # the username's limit
            assert r.status_code == 429 and 0 < int(r.headers["retry-after"]) <= 60
            assert (await login_at(base, "Jo")).status_code == 200
            r = await login_at(base, "Jo")  # the address's limit
            assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
            assert "address" in r.json()["error"]

    run(main())


def test_x_forwarded_for_gives_no_fresh_budget_unless_its_proxy_is_named(tmp_path: Path) -> None:
    """``chaodipi serve`` trusts no proxy unless told (``--forwarded-allow-ips``): a client on the same machine
    that sends its own X-Forwarded-For is counted at its own address (uvicorn trusted 127.0.0.1 by default,
    so each made-up address had a fresh budget of registrations and logins)."""

    async def main() -> None:
        config = {**QUIET, "register_limit": "2/hour", "login_limit": "2/minute"}
        async with running_server(db_url(tmp_path), guarded=True, **config) as base:
            codes = []
            for n in range(4):
                async with httpx.AsyncClient(base_url=base, headers={"X-Forwarded-For": f"203.0.113.{n}"}) as http:
                    codes.append((await register(http, f"Fwd{n}")).status_code)
            assert codes == [201, 201, 429, 429]
            codes = []
            for n in range(4):
                async with httpx.AsyncClient(base_url=base, headers={"X-Forwarded-For": f"198.51.100.{n}"}) as http:
                    codes.append((await login(http, "Fwd0")).status_code)
            assert codes == [200, 200, 429, 429]
        # a proxy the operator names is believed: each of its clients is counted apart
        async with running_server(
            f"sqlite:///{tmp_path / 'proxied.db'}", guarded=True, forwarded_allow_ips=("127.0.0.1",), **config
        ) as base:
            for n in range(4):
                async with httpx.AsyncClient(base_url=base, headers={"X-Forwarded-For": f"203.0.113.{n}"}) as http:
                    assert (await register(http, f"Prx{n}")).status_code == 201
            codes = []
            for name in ("Prx8", "Prx9"):
                async with httpx.AsyncClient(base_url=base, headers={"X-Forwarded-For": "203.0.113.0"}) as http:
                    codes.append((await register(http, name)).status_code)
            assert codes == [201, 429]  # that client's own budget is spent

    run(main())


def test_failed_logins_lock_the_username_even_for_the_right_password(tmp_path: Path) -> None:
    async def main() -> None:
        config = {
            **QUIET,
            "login_limit": "100/minute",
            "login_name_limit": "100/minute",
            "failed_login_limit": "3/15minutes",
        }
        async with running_server(db_url(tmp_path), **config) as base:
            async with httpx.AsyncClient(base_url=base) as http:
                assert (await register(http, "Lou")).status_code == 201
            assert (await register_at(base, "Max")).status_code == 201
            async with httpx.AsyncClient(base_url=base) as http:
                assert (await login(http, "Lou", "wrong password 1")).status_code == 401
                assert (await login_at(base, "Lou")).status_code == 200  # a success forgets the failures
                for n in range(3):
                    assert (await login(http, "Lou", f"wrong password {n}")).status_code == 401
                for password in (PASSWORD, "wrong again!"):
                    r = await login(http, "lou", password)
                    assert r.status_code == 429, r.text
                    assert 800 < int(r.headers["retry-after"]) <= 900
                assert (await login_at(base, "Max")).status_code == 200  # another name is not locked

    run(main())


def test_the_first_refusal_after_the_failed_logins_gives_the_lockout_s_time(tmp_path: Path) -> None:
    """The default limits: 5 logins a minute for a username and 5 failures in 15 minutes. The sixth login,
    right after five failures, is refused by both: its Retry-After is the lockout's (it was the minute's,
    21-47 s, and a client that waited that long was refused again for some 820 s)."""

    async def main() -> None:
        config = {**QUIET, "login_name_limit": "5/minute", "failed_login_limit": "5/15minutes"}
        async with running_server(db_url(tmp_path), **config) as base:
            assert (await register_at(base, "Ned")).status_code == 201
            async with httpx.AsyncClient(base_url=base) as http:
                for n in range(5):
                    assert (await login(http, "Ned", f"wrong password {n}")).status_code == 401
                r = await login(http, "Ned")
                assert r.status_code == 429, r.text
                assert 800 < int(r.headers["retry-after"]) <= 900
                assert "failed" in r.json()["error"]

    run(main())


# -- logout -------------------------------------------------------------------------------------------


def test_logout_ends_this_session_and_logout_all_every_session(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(db_url(tmp_path), **QUIET) as base:
            async with httpx.AsyncClient(base_url=base) as http:
                assert (await register(http, "Ned")).status_code == 201
            async with (
                httpx.AsyncClient(base_url=base) as a,
                httpx.AsyncClient(base_url=base) as b,
                httpx.AsyncClient(base_url=base) as c,
            ):
                ra, rb, rc = await login(a, "Ned"), await login(b, "Ned"), await login(c, "Ned")
                assert ra.json()["csrf"] != rb.json()["csrf"]
                r = await c.post("/api/logout", headers=csrf_of(rc))
                assert r.status_code == 200 and r.json()["account"] is None
                assert "max-age=0" in set_cookies(r)["cdp_session"].lower()
                assert (await c.get("/api/me")).json()["account"] is None
                assert (await a.get("/api/me")).json()["account"]["username"] == "Ned"
                assert (await b.get("/api/me")).json()["account"]["username"] == "Ned"
                r = await a.post("/api/logout/all", headers=csrf_of(ra))
                assert r.status_code == 200 and r.json() == {"account": None, "csrf": r.json()["csrf"]}
                assert (await a.get("/api/me")).json()["account"] is None
                me_b = await b.get("/api/me")
                assert me_b.json()["account"] is None
                assert "cdp_session" in set_cookies(me_b)  # the dead cookie is dropped
                assert (await b.post("/api/logout/all", headers=csrf_of(me_b))).status_code == 401

    run(main())


# -- claims -------------------------------------------------------------------------------------------


def test_a_guest_seat_becomes_the_account_s_on_registration_or_claim(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(db_url(tmp_path), **QUIET) as base:
            table = await new_table(base)
            seat, token = await join(base, table, "guest")
            seat2, token2 = await join(base, table, "guest2")
            async with httpx.AsyncClient(base_url=base) as http:
                r = await register(http, "Olga", claims=[{"table": table, "token": token}])
                assert r.status_code == 201, r.text
                assert r.json()["claims"] == [{"table": table, "seat": seat}]
                summary = (await http.get(f"/api/tables/{table}")).json()
                assert summary["seats"][seat]["account"] == "Olga"
                headers = csrf_of(r)
                r = await http.post("/api/claim", json={"table": table, "token": "nope"}, headers=headers)
                assert r.status_code == 403
            async with httpx.AsyncClient(base_url=base) as http:
                r = await http.post("/api/claim", json={"table": table, "token": token2})
                assert r.status_code == 401  # not logged in
                r = await register(http, "Pia", claims=[{"table": table, "token": "stale"}])
                assert r.status_code == 201 and "error" in r.json()["claims"][0]
                r = await http.post("/api/claim", json={"table": table, "token": token2}, headers=csrf_of(r))
                assert r.status_code == 200, r.text
                assert r.json() == {"table": table, "seat": seat2}
                r = await register_at(base, "Quin", claims=[{"table": "x", "token": token2}])
                assert r.status_code == 400

    run(main())


# -- Accounts itself ----------------------------------------------------------------------------------

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture
def accounts(tmp_path: Path) -> Any:
    store = Store(db_url(tmp_path))
    store.migrate()
    yield Accounts(store.engine, FAST_HASHER)
    store.close()


def test_usernames_are_normalised_and_checked() -> None:
    assert check_username("Ａｌｉｃｅ") == ("Alice", "alice")
    assert check_username("Straße") == ("Straße", "strasse")
    assert check_username("王_小-明2") == ("王_小-明2", "王_小-明2")
    for bad in ("a", "x" * 17, "bot:x", "a.b", "😀😀", None):
        with pytest.raises(BadUsername):
            check_username(bad)


def test_accounts_register_authenticate_rehash_and_bots(accounts: Accounts) -> None:
    alice = accounts.register("Alice", PASSWORD)
    assert alice.kind == "person" and alice.created_at.tzinfo is not None
    with pytest.raises(UsernameTaken):
        accounts.register("ALICE", PASSWORD)
    with pytest.raises(BadPassword):
        accounts.register("Bob", "short")
    assert accounts.authenticate("alice", PASSWORD) == alice
    assert accounts.authenticate("alice", "wrong password") is None
    assert accounts.authenticate("nobody", PASSWORD) is None
    # a hash made with other parameters is redone at the next login
    older = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1).hash(PASSWORD)
    accounts.set_hash(alice.id, older)
    assert accounts.authenticate("Alice", PASSWORD) == alice
    found = accounts.credentials("Alice")
    assert found is not None and found[1] is not None and found[1] != older
    assert FAST_HASHER.verify(found[1], PASSWORD)
    with accounts.engine.begin() as connection:  # a bot's rating account (chaodipi.server.ratings)
        bot_id = bot_account(connection, "rules")
        assert bot_account(connection, "rules") == bot_id
    bot = accounts.by_name("Rules")
    assert bot is not None and bot.id == bot_id and bot.kind == "bot" and bot.username == "rules"
    assert accounts.by_name("alice") == alice
    assert accounts.by_name("nobody") is None
    assert accounts.authenticate("rules", "") is None
    with pytest.raises(UsernameTaken):
        accounts.register("RULES", PASSWORD)


def test_sessions_expire_and_last_seen_is_written_at_most_once_a_minute(accounts: Accounts) -> None:
    alice = accounts.register("Alice", PASSWORD)
    token, csrf = accounts.open_session(alice.id)
    assert accounts.session(token) == (alice, csrf)
    assert accounts.session(token + "x") is None
    assert accounts.session("") is None
    digest = hashlib.sha256(token.encode()).hexdigest()

    def row() -> SessionRow:
        with Session(accounts.engine) as db:
            found = db.get(SessionRow, digest)
            assert found is not None
            db.expunge(found)
            return found

    seen = row().last_seen_at
    accounts.session(token)
    assert row().last_seen_at == seen  # not a minute yet
    past = datetime.now(UTC) - timedelta(minutes=5)
    with Session(accounts.engine) as db, db.begin():
        db.execute(update(SessionRow).where(SessionRow.id_hash == digest).values(last_seen_at=past))
    accounts.session(token)
    assert row().last_seen_at.replace(tzinfo=UTC) > past + timedelta(minutes=4)
    with Session(accounts.engine) as db, db.begin():
        db.execute(update(SessionRow).where(SessionRow.id_hash == digest).values(expires_at=past))
    assert accounts.session(token) is None
    other, _ = accounts.open_session(alice.id)
    third, _ = accounts.open_session(alice.id)
    accounts.close_session(other)
    assert accounts.session(other) is None and accounts.session(third) is not None
    accounts.close_all(alice.id)
    assert accounts.session(third) is None
