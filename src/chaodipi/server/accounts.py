"""Accounts: registration, login and sessions, their cookies, CSRF and Origin checks, and rate limits.

:class:`Accounts` keeps accounts and sessions in the ``accounts`` and ``sessions`` tables (Alembic
revision 0003). Passwords are kept as argon2id hashes (argon2-cffi); a session is a random token in
the ``cdp_session`` cookie whose SHA-256 is what the database keeps, with the CSRF token the page
must send back (``X-CSRF-Token``) on every write.

HTTP (docs/protocol.md; JSON in, JSON out, errors ``{"error": "...", "code"?: "..."}``):

``GET  /api/me``           ``{"account": null | {"id", "username", "kind"}, "csrf"}``
``POST /api/register``     ``{"username", "password", "claims"?}``: 201, the account and a session
``POST /api/login``        ``{"username", "password"}``: the account and a session (401, 429)
``POST /api/logout``       this session ends
``POST /api/logout/all``   every session of the account ends
``POST /api/claim``        ``{"table", "token"}``: a guest's seat becomes the account's

:class:`Guard` (pure ASGI middleware) refuses a write whose ``Origin`` is foreign or whose CSRF
token is missing or wrong, and a WebSocket from a foreign origin. :class:`Limits` holds the rate
limits (the ``limits`` library, in memory: one process's counts).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import re
import secrets
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import CheckConstraint, DateTime, ForeignKey, Index, Integer, String, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chaodipi.bots import BOT_NAMES
from chaodipi.names import fold_name
from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import read_object
from chaodipi.server.store import Base

__all__ = [
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "ROUTES",
    "SESSION_COOKIE",
    "SESSION_DAYS",
    "Account",
    "AccountError",
    "AccountRow",
    "Accounts",
    "BadPassword",
    "BadUsername",
    "Guard",
    "Limits",
    "LoginRequired",
    "RateLimited",
    "SessionRow",
    "UsernameTaken",
    "WrongCredentials",
    "account_of",
    "check_password",
    "check_username",
    "client_address",
    "current",
    "refused",
]

log = logging.getLogger("chaodipi.server")
T = TypeVar("T")

SESSION_COOKIE = "cdp_session"
CSRF_COOKIE = "cdp_csrf"
CSRF_HEADER = "x-csrf-token"
#: How long a session lasts from its login.
SESSION_DAYS = 30
#: A session's ``last_seen_at`` is written at most this often.
SEEN_EVERY = timedelta(minutes=1)
MIN_NAME, MAX_NAME = 2, 16
MAX_KEY = 24  # the username_key column
MIN_PASSWORD, MAX_PASSWORD = 8, 128
#: The largest body the account routes read.
MAX_BODY = 4 * 1024
#: The most guest seats one registration claims.
MAX_CLAIMS = 8
#: The longest wait before a failed login's answer.
MAX_FAILED_DELAY_S = 3.0
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")  # what secrets.token_urlsafe(32) makes, with room
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


# -- errors -----------------------------------------------------------------------------------------


class AccountError(ValueError):
    """An account request refused; the message says why, ``status`` is its HTTP status."""

    status = 400
    code: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The error's reply body."""
        return {"error": str(self)} | ({"code": self.code} if self.code else {})


class BadUsername(AccountError):
    """A username that breaks the rules (length, characters)."""


class BadPassword(AccountError):
    """A password too short or too long."""


class UsernameTaken(AccountError):
    """Another account has this username (ignoring case and width)."""

    status = 409


class WrongCredentials(AccountError):
    """No account has this username and password (which of the two is wrong is not said)."""

    status = 401

    def __init__(self, message: str = "wrong username or password") -> None:
        super().__init__(message)


class LoginRequired(AccountError):
    """A request that needs a logged-in account, made without one."""

    status = 401
    code = "login"

    def __init__(self, message: str = "log in first") -> None:
        super().__init__(message)


class RateLimited(AccountError):
    """Too many requests of a kind: ``retry_after`` seconds until the next is taken."""

    status = 429
    code = "rate_limit"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


# -- the schema (revision 0003 creates it) -----------------------------------------------------------


class AccountRow(Base):
    """An account: a person's (argon2id password hash) or a bot's (no password)."""

    __tablename__ = "accounts"
    __table_args__ = (CheckConstraint("kind IN ('person', 'bot')", name="ck_accounts_kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(24))
    username_key: Mapped[str] = mapped_column(String(24), unique=True)  # NFKC, case-folded; 'bot:<name>' for a bot
    kind: Mapped[str] = mapped_column(String(8), server_default="person")
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SessionRow(Base):
    """A login: the SHA-256 of its cookie's token (never the token), its CSRF token and its times."""

    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_account", "account_id"),)

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id", ondelete="CASCADE"))
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True, slots=True)
class Account:
    """An account as the server uses it: ``kind`` is ``person`` or ``bot``."""

    id: int
    username: str
    kind: str
    created_at: datetime

    def to_json(self) -> dict[str, Any]:
        """What ``/api/me`` and the login replies say of it."""
        return {"id": self.id, "username": self.username, "kind": self.kind}


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # (SQLite forgets the zone)


def _account(row: AccountRow) -> Account:
    return Account(row.id, row.username, row.kind, _aware(row.created_at))


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def _same(a: str, b: str) -> bool:
    """Whether two tokens are equal, in time that does not depend on where they differ."""
    return hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8", "replace"))


# -- the rules for names and passwords ---------------------------------------------------------------


def check_username(value: object) -> tuple[str, str]:
    """A username as stored and its key (what must be unique), or :class:`BadUsername`.

    The name is taken after NFKC normalisation and stripping: 2 to 16 characters, each a letter of
    any script (``str.isalpha``), a digit, ``_`` or ``-``. Its key is its NFKC case-folded form.

    >>> check_username(" Alice ")
    ('Alice', 'alice')
    >>> check_username("ＢＯＢ_1")  # full-width letters are the ASCII ones
    ('BOB_1', 'bob_1')
    >>> check_username("小明")
    ('小明', '小明')
    >>> check_username("a b")
    Traceback (most recent call last):
    ...
    chaodipi.server.accounts.BadUsername: a username has only letters, digits, '_' and '-' (not ' ')
    """
    if not isinstance(value, str):
        raise BadUsername("'username' is text")
    name = unicodedata.normalize("NFKC", value).strip()
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise BadUsername(f"a username is {MIN_NAME} to {MAX_NAME} characters")
    for ch in name:
        if not (ch.isalpha() or ch.isdecimal() or ch in "_-"):
            raise BadUsername(f"a username has only letters, digits, '_' and '-' (not {ch!r})")
    key = fold_name(name)
    if len(key) > MAX_KEY:
        raise BadUsername("this username is too long once its case is folded")
    return name, key


def check_password(value: object) -> str:
    """A password as given, or :class:`BadPassword` (8 to 128 characters)."""
    if not isinstance(value, str):
        raise BadPassword("'password' is text")
    if not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        raise BadPassword(f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return value


# -- accounts and sessions ----------------------------------------------------------------------------


class Accounts:
    """Accounts and sessions in the server's database (an engine: ``store.engine``).

    Every method is blocking (database, argon2): callers on the event loop run them in a thread.
    The slow half of a login or registration (argon2) is also offered alone (:meth:`hash_password`,
    :meth:`verify`) so that it need not run in the database thread.
    """

    def __init__(self, engine: Engine, hasher: PasswordHasher | None = None) -> None:
        self.engine = engine
        self.hasher = hasher or PasswordHasher()  # argon2id, RFC 9106's low-memory parameters
        self._dummy = self.hasher.hash(secrets.token_urlsafe(16))  # what an unknown name is checked against

    # -- the two halves of a login --------------------------------------------------------------------
    def hash_password(self, password: str) -> str:
        """The argon2id hash of a password (after :func:`check_password`)."""
        return self.hasher.hash(check_password(password))

    def verify(self, stored: str | None, password: str) -> tuple[bool, bool]:
        """Whether ``password`` matches ``stored`` (None: no such account, checked against a dummy hash
        all the same, so that the time taken does not tell), and whether the hash wants redoing."""
        try:
            self.hasher.verify(stored or self._dummy, password)
        except (VerificationError, InvalidHashError):
            return False, False
        if stored is None:
            return False, False
        return True, self.hasher.check_needs_rehash(stored)

    def credentials(self, username: object) -> tuple[Account, str | None] | None:
        """The account a login names and its password hash (None for a bot); None if there is none."""
        try:
            _, key = check_username(username)
        except BadUsername:
            return None
        with Session(self.engine) as db:
            row = db.scalars(select(AccountRow).where(AccountRow.username_key == key)).first()
            return None if row is None else (_account(row), row.password_hash)

    def set_hash(self, account_id: int, password_hash: str) -> None:
        """Replace an account's password hash (a rehash with newer parameters)."""
        with Session(self.engine) as db, db.begin():
            row = db.get(AccountRow, account_id)
            if row is not None:
                row.password_hash = password_hash

    def create(self, username: str, key: str, password_hash: str) -> Account:
        """A new person's account (names checked by :func:`check_username`); :class:`UsernameTaken` if it is."""
        if key in BOT_NAMES:
            raise UsernameTaken("this username is a bot's")
        with Session(self.engine) as db:
            taken = select(AccountRow.id).where(AccountRow.username_key.in_((key, f"bot:{key}")))
            if db.scalars(taken).first() is not None:
                raise UsernameTaken("this username is taken")
            row = AccountRow(
                username=username, username_key=key, kind="person", password_hash=password_hash, created_at=_now()
            )
            db.add(row)
            try:
                db.commit()
            except IntegrityError:
                raise UsernameTaken("this username is taken") from None
            return _account(row)

    # -- the whole of it ------------------------------------------------------------------------------
    def register(self, username: str, password: str) -> Account:
        """A new person's account: :class:`BadUsername`, :class:`BadPassword`, :class:`UsernameTaken`."""
        name, key = check_username(username)
        check_password(password)
        if self.by_name(name) is not None:  # (before the slow hash)
            raise UsernameTaken("this username is taken")
        return self.create(name, key, self.hash_password(password))

    def authenticate(self, username: str, password: str) -> Account | None:
        """The person's account with this username and password; None if none (a bot never logs in)."""
        found = self.credentials(username)
        stored = found[1] if found is not None and found[0].kind == "person" else None
        ok, rehash = self.verify(stored, password if isinstance(password, str) else "")
        if not ok or found is None:
            return None
        if rehash:
            self.set_hash(found[0].id, self.hasher.hash(password))
        return found[0]

    def by_name(self, username: str) -> Account | None:
        """The account with this username (ignoring case and width), a bot's included; None if none."""
        try:
            _, key = check_username(username)
        except BadUsername:
            return None
        with Session(self.engine) as db:
            rows = db.scalars(select(AccountRow).where(AccountRow.username_key.in_((key, f"bot:{key}")))).all()
            rows = sorted(rows, key=lambda r: r.kind != "person")
            return _account(rows[0]) if rows else None

    def get(self, account_id: int) -> Account | None:
        """The account with this id; None if none."""
        with Session(self.engine) as db:
            row = db.get(AccountRow, account_id)
            return None if row is None else _account(row)

    # -- sessions -------------------------------------------------------------------------------------
    def open_session(self, account_id: int) -> tuple[str, str]:
        """A new session for the account, for 30 days: its token (the cookie's) and its CSRF token."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = _now()
        with Session(self.engine) as db, db.begin():
            db.execute(delete(SessionRow).where(SessionRow.account_id == account_id, SessionRow.expires_at <= now))
            db.add(
                SessionRow(
                    id_hash=_hash_token(token),
                    account_id=account_id,
                    csrf=csrf,
                    created_at=now,
                    last_seen_at=now,
                    expires_at=now + timedelta(days=SESSION_DAYS),
                )
            )
        return token, csrf

    def session(self, token: str) -> tuple[Account, str] | None:
        """The account of a session's token and the session's CSRF token; None if unknown or expired."""
        if not isinstance(token, str) or not _TOKEN.fullmatch(token):
            return None
        now = _now()
        with Session(self.engine) as db, db.begin():
            found = db.execute(
                select(SessionRow, AccountRow)
                .join(AccountRow, AccountRow.id == SessionRow.account_id)
                .where(SessionRow.id_hash == _hash_token(token))
            ).first()
            if found is None:
                return None
            row, account = found
            if _aware(row.expires_at) <= now:
                db.delete(row)
                return None
            if now - _aware(row.last_seen_at) >= SEEN_EVERY:
                row.last_seen_at = now
            return _account(account), row.csrf

    def close_session(self, token: str) -> None:
        """End the session of this token (nothing if there is none)."""
        if isinstance(token, str) and _TOKEN.fullmatch(token):
            with Session(self.engine) as db, db.begin():
                db.execute(delete(SessionRow).where(SessionRow.id_hash == _hash_token(token)))

    def close_all(self, account_id: int) -> None:
        """End every session of the account (every browser it is logged in on)."""
        with Session(self.engine) as db, db.begin():
            db.execute(delete(SessionRow).where(SessionRow.account_id == account_id))


# -- rate limits ------------------------------------------------------------------------------------


class Limits:
    """The accounts' rate limits (:class:`ServerConfig`'s strings), counted in this process's memory, or in a
    platform of several processes in its Redis (so that a client gets no more tries by asking another process)."""

    def __init__(self, config: ServerConfig | None = None, *, redis_prefix: str | None = None) -> None:
        config = config or ServerConfig()
        shared = config.redis is not None and redis_prefix is not None  # (the platform's keys: its namespace)
        storage = RedisStorage(config.redis, key_prefix=redis_prefix) if shared else MemoryStorage()  # type: ignore[arg-type]
        self.limiter = MovingWindowRateLimiter(storage)
        self.login = parse(config.login_limit)
        self.login_name = parse(config.login_name_limit)
        self.register = parse(config.register_limit)
        self.failed_login = parse(config.failed_login_limit)
        self.failed_delay_s = max(0.0, config.failed_login_delay_s)

    def retry_after(self, item: RateLimitItem, *identifiers: str) -> int:
        """Whole seconds until ``item`` takes another hit for ``identifiers`` (at least 1)."""
        reset = self.limiter.get_window_stats(item, *identifiers).reset_time
        return max(1, math.ceil(reset - time.time()))

    def _hit(self, item: RateLimitItem, words: str, *identifiers: str) -> None:
        if not self.limiter.hit(item, *identifiers):
            raise RateLimited(words, self.retry_after(item, *identifiers))

    def check_login(self, address: str, key: str) -> None:
        """Count a login from ``address`` for username ``key``; :class:`RateLimited` when too many, or when
        the username has failed too often lately (then even the right password is refused). When several
        limits refuse it, the answer is the one with the longest wait (the failures' lockout, right after
        the failures that set it), so that a client that waits its ``Retry-After`` is not refused again."""
        refusals = []
        try:
            self._hit(self.login, "too many logins from this address: wait a little", "login", address)
            self._hit(self.login_name, "too many logins for this username: wait a little", "login-name", key)
        except RateLimited as exc:
            refusals.append(exc)
        if not self.limiter.test(self.failed_login, "failed", key):
            refusals.append(
                RateLimited(
                    "too many failed logins for this username: wait and try again",
                    self.retry_after(self.failed_login, "failed", key),
                )
            )
        if refusals:
            raise max(refusals, key=lambda refusal: refusal.retry_after)

    def failed(self, key: str) -> float:
        """Count a failed login for username ``key``; how long to wait before answering it (grows, capped)."""
        self.limiter.hit(self.failed_login, "failed", key)
        stats = self.limiter.get_window_stats(self.failed_login, "failed", key)
        failures = self.failed_login.amount - stats.remaining
        return min(MAX_FAILED_DELAY_S, self.failed_delay_s * failures)

    def succeeded(self, key: str) -> None:
        """A login for ``key`` succeeded: its failures are forgotten."""
        self.limiter.clear(self.failed_login, "failed", key)

    def check_register(self, address: str) -> None:
        """Count a registration from ``address``; :class:`RateLimited` when too many."""
        self._hit(self.register, "too many registrations from this address: wait", "register", address)


# -- the web side -----------------------------------------------------------------------------------


async def _db(app: Any, fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking account call off the event loop: in the server's database thread(s) if it has them."""
    server = getattr(app.state, "server", None)
    if server is not None:
        result: T = await server.db_call(fn, *args)
        return result
    return await asyncio.to_thread(fn, *args)


def _accounts_of(app: Any) -> Accounts:
    accounts: Accounts = app.state.accounts
    return accounts


_AUTH = "cdp_auth"  # where the Guard leaves the session it looked up, in the scope's state


async def _lookup(conn: HTTPConnection, accounts: Accounts) -> tuple[Account, str] | None:
    """The session of the connection's ``cdp_session`` cookie (looked up once per request)."""
    state = conn.scope.setdefault("state", {})
    if _AUTH in state:
        found: tuple[Account, str] | None = state[_AUTH]
        return found
    token = conn.cookies.get(SESSION_COOKIE)
    found = None if not token else await _db(conn.app, accounts.session, token)
    state[_AUTH] = found
    return found


def _forget_session(conn: HTTPConnection) -> None:
    conn.scope.setdefault("state", {}).pop(_AUTH, None)


async def current(conn: HTTPConnection) -> tuple[Account | None, str | None]:
    """The account of a request (or WebSocket) and the CSRF token it must send: the session's when
    logged in, else the ``cdp_csrf`` cookie's (None if it has none)."""
    found = await _lookup(conn, _accounts_of(conn.app))
    if found is not None:
        return found
    csrf = conn.cookies.get(CSRF_COOKIE)
    return None, csrf if csrf and _TOKEN.fullmatch(csrf) else None


def _origin(value: str) -> tuple[str, str, int] | None:
    """An origin's (scheme, host, port), the default port filled in; None if it is not one."""
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return None
    return scheme, host, port if port is not None else (443 if scheme == "https" else 80)


def _own_origin(scope: Scope, host: str) -> tuple[str, str, int] | None:
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme", "http"))
    return _origin(f"{scheme}://{host}")


class Guard:
    """Pure ASGI middleware: Origin and CSRF checks.

    For a write (POST, PUT, PATCH, DELETE): 403 ``code: origin`` when its ``Origin`` header is neither
    this server's origin (the request's scheme and ``Host``) nor one of ``allowed_origins``; 403
    ``code: csrf`` when it carries a live session cookie and ``X-CSRF-Token`` is not the session's
    token, or carries only ``cdp_csrf`` and the header is not that. A request with no cookie passes: it
    has no ambient authority to abuse. A WebSocket from a foreign origin is closed before it opens.
    """

    def __init__(self, app: ASGIApp, accounts: Accounts | None = None, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.accounts = accounts
        self.allowed = {o for o in map(_origin, allowed_origins) if o is not None}

    def _foreign(self, scope: Scope, conn: HTTPConnection) -> bool:
        origin = conn.headers.get("origin")
        if origin is None:
            return False
        theirs = _origin(origin)
        return theirs is None or (
            theirs != _own_origin(scope, conn.headers.get("host", "")) and theirs not in self.allowed
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request, then pass it on (or answer it with a refusal)."""
        if scope["type"] == "websocket":
            if self._foreign(scope, HTTPConnection(scope)):
                message: Message = await receive()  # websocket.connect
                if message["type"] == "websocket.connect":
                    await send({"type": "websocket.close", "code": 4403, "reason": "foreign origin"})
                return
        elif scope["type"] == "http" and scope["method"] in WRITE_METHODS:
            refusal = await self._refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _refusal(self, scope: Scope) -> Response | None:
        conn = HTTPConnection(scope)
        if self._foreign(scope, conn):
            return JSONResponse({"error": "a write from another site's page is refused", "code": "origin"}, 403)
        cookies = conn.cookies
        if SESSION_COOKIE not in cookies and CSRF_COOKIE not in cookies:
            return None
        expected: str | None = None
        if cookies.get(SESSION_COOKIE):
            found = await _lookup(conn, self.accounts or _accounts_of(scope["app"]))
            if found is not None:
                expected = found[1]
        if expected is None:
            if CSRF_COOKIE not in cookies:
                return None  # a session cookie that is no session grants nothing
            expected = cookies[CSRF_COOKIE]
        sent = conn.headers.get(CSRF_HEADER, "")
        if not sent or not _same(sent, expected):
            return JSONResponse(
                {"error": "the request's CSRF token is missing or wrong (GET /api/me gives it)", "code": "csrf"}, 403
            )
        return None


async def _body(request: Request, fields: set[str]) -> dict[str, Any]:
    """The request's JSON object (at most 4 KiB: :func:`~chaodipi.server.protocol.read_object`), only ``fields``."""
    body = await read_object(request, MAX_BODY, "an account request")
    unknown = set(body) - fields
    if unknown:
        raise AccountError(f"unknown field(s) {', '.join(sorted(unknown))}")
    return body


def client_address(request: Request) -> str:
    """The address a request comes from, which the rate limits count: its connection's, or the client's that
    a proxy named by ``chaodipi serve --forwarded-allow-ips`` forwards (uvicorn has read the header then)."""
    return request.client.host if request.client else "?"


def _set_cookie(request: Request, response: Response, name: str, value: str, max_age: int | None) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )


def _drop_cookie(request: Request, response: Response, name: str) -> None:
    response.delete_cookie(name, path="/", secure=request.url.scheme == "https", httponly=True, samesite="lax")


def _guest_csrf(request: Request) -> tuple[str, bool]:
    """The ``cdp_csrf`` token of the request, or a new one (True: the response must set its cookie)."""
    csrf = request.cookies.get(CSRF_COOKIE)
    if csrf and _TOKEN.fullmatch(csrf):
        return csrf, False
    return secrets.token_urlsafe(32), True


def _as_guest(request: Request, *, drop_session: bool) -> Response:
    """The reply of a request without a (live) session: no account, and the guest CSRF token."""
    csrf, new = _guest_csrf(request)
    response = JSONResponse({"account": None, "csrf": csrf})
    if new:
        _set_cookie(request, response, CSRF_COOKIE, csrf, SESSION_DAYS * 24 * 3600)
    if drop_session:
        _drop_cookie(request, response, SESSION_COOKIE)
    return response


async def refused(request: Request, exc: Exception) -> Response:
    """An account request refused (:class:`AccountError`): its words, code and status, and ``Retry-After``
    when rate-limited (the application's exception handlers call this, as for the lobby's refusals)."""
    assert isinstance(exc, AccountError)
    response = JSONResponse(exc.to_json(), status_code=exc.status)
    if isinstance(exc, RateLimited):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def account_of(conn: HTTPConnection) -> tuple[int, str] | None:
    """The account logged in on a request or WebSocket (its session cookie), as ``(id, username)``; None
    for a guest, an ended session, or an application without accounts."""
    if getattr(conn.app.state, "accounts", None) is None:
        return None
    account, _ = await current(conn)
    return None if account is None else (account.id, account.username)


async def me(request: Request) -> Response:
    """``GET /api/me``: the logged-in account (or null) and the CSRF token the page sends with its writes."""
    account, csrf = await current(request)
    if account is None:  # (a session cookie that is no session any more is dropped)
        return _as_guest(request, drop_session=bool(request.cookies.get(SESSION_COOKIE)))
    return JSONResponse({"account": account.to_json(), "csrf": csrf})


async def _logged_in(request: Request, account: Account, status: int, extra: dict[str, Any] | None = None) -> Response:
    """The reply to a login or registration: the account, a new session's cookie and its CSRF token."""
    accounts = _accounts_of(request.app)
    old = request.cookies.get(SESSION_COOKIE)
    if old:
        await _db(request.app, accounts.close_session, old)  # no session fixation: the old one ends
    token, csrf = await _db(request.app, accounts.open_session, account.id)
    _forget_session(request)
    response = JSONResponse({"account": account.to_json(), "csrf": csrf} | (extra or {}), status_code=status)
    _set_cookie(request, response, SESSION_COOKIE, token, SESSION_DAYS * 24 * 3600)
    return response


def _claims(value: object) -> list[tuple[int, str]]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_CLAIMS:
        raise AccountError(f'\'claims\' is a list of at most {MAX_CLAIMS} {{"table", "token"}}')
    return [_claim(item) for item in value]


def _claim(item: object) -> tuple[int, str]:
    if not isinstance(item, dict) or set(item) != {"table", "token"}:
        raise AccountError('a claim is {"table": id, "token": "..."}')
    table, token = item["table"], item["token"]
    if type(table) is not int or not 1 <= table < 10**12:
        raise AccountError("a claim's 'table' is a table's id")
    if not isinstance(token, str) or not 1 <= len(token) <= 128:
        raise AccountError("a claim's 'token' is the seat's resume token")
    return table, token


async def register(request: Request) -> Response:
    """``POST /api/register``: a new account, logged in (201); its ``claims`` (guest seats) become its own."""
    limits: Limits = request.app.state.limits
    accounts = _accounts_of(request.app)
    limits.check_register(client_address(request))
    body = await _body(request, {"username", "password", "claims"})
    name, key = check_username(body.get("username"))
    password = check_password(body.get("password"))
    claims = _claims(body.get("claims"))
    if await _db(request.app, accounts.by_name, name) is not None:
        raise UsernameTaken("this username is taken")
    hashed = await asyncio.to_thread(accounts.hash_password, password)
    account = await _db(request.app, accounts.create, name, key, hashed)
    log.info("account %s registered (%s)", account.id, account.username)
    done: list[dict[str, Any]] = []
    server = request.app.state.server
    for table_id, token in claims:
        try:
            answer = await server.claim_seat(table_id, token, (account.id, account.username))
        except ValueError as exc:  # (TableError, StoreError: a seat that is gone or another's)
            done.append({"table": table_id, "error": str(exc)})
        else:
            done.append({"table": table_id, "seat": answer["seat"]})
    return await _logged_in(request, account, 201, {"claims": done} if claims else None)


async def login(request: Request) -> Response:
    """``POST /api/login``: log in (a new session); 401 for a wrong name or password, 429 when rate-limited."""
    limits: Limits = request.app.state.limits
    accounts = _accounts_of(request.app)
    body = await _body(request, {"username", "password"})
    username, password = body.get("username"), body.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise AccountError("'username' and 'password' are text")
    try:
        key = check_username(username)[1]
    except BadUsername:
        key = "?"  # (no account has such a name: all of them share one count)
    limits.check_login(client_address(request), key)
    found = await _db(request.app, accounts.credentials, username)
    stored = found[1] if found is not None and found[0].kind == "person" else None
    ok, rehash = await asyncio.to_thread(accounts.verify, stored, password)
    if not ok or found is None:
        delay = limits.failed(key)
        if delay > 0:
            await asyncio.sleep(delay)
        raise WrongCredentials()
    limits.succeeded(key)
    account = found[0]
    if rehash:
        hashed = await asyncio.to_thread(accounts.hasher.hash, password)
        await _db(request.app, accounts.set_hash, account.id, hashed)
    return await _logged_in(request, account, 200)


async def _logged_out(request: Request) -> Response:
    _forget_session(request)
    return _as_guest(request, drop_session=True)


async def logout(request: Request) -> Response:
    """``POST /api/logout``: this session ends (the body is empty or ``{}``, as the request rules say)."""
    await _body(request, set())
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await _db(request.app, _accounts_of(request.app).close_session, token)
    return await _logged_out(request)


async def logout_all(request: Request) -> Response:
    """``POST /api/logout/all``: every session of the account ends (other browsers too); an empty body."""
    await _body(request, set())
    account, _ = await current(request)
    if account is None:
        raise LoginRequired()
    await _db(request.app, _accounts_of(request.app).close_all, account.id)
    return await _logged_out(request)


async def claim(request: Request) -> Response:
    """``POST /api/claim``: a guest's seat (table id and resume token) becomes the logged-in account's."""
    account, _ = await current(request)
    if account is None:
        raise LoginRequired()
    body = await _body(request, {"table", "token"})
    table_id, token = _claim(body)
    answer = await request.app.state.server.claim_seat(table_id, token, (account.id, account.username))
    return JSONResponse({"table": table_id, "seat": answer["seat"]})


#: The account routes, for the application's route list.
ROUTES = [
    Route("/api/me", me, methods=["GET"]),
    Route("/api/register", register, methods=["POST"]),
    Route("/api/login", login, methods=["POST"]),
    Route("/api/logout", logout, methods=["POST"]),
    Route("/api/logout/all", logout_all, methods=["POST"]),
    Route("/api/claim", claim, methods=["POST"]),
]
