"""The PostgreSQL and Redis the server's tests run on: found, or started for the run and stopped after it.

For each service, in this order (``choose``):

1. the URL in ``CHAODIPI_TEST_PG`` (a ``postgresql+psycopg://`` URL) or ``CHAODIPI_TEST_REDIS`` (a ``redis://``
   URL), when set: that server, which must answer (a set URL that does not answer is an error, not a skip);
2. one answering at the usual place: PostgreSQL at 127.0.0.1:5432 (database ``test``, user ``postgres``, no
   password), Redis at 127.0.0.1:6379;
3. else a throwaway server of the run's own: Debian's ``postgresql`` (``initdb`` and ``pg_ctl``, on the PATH or in
   /usr/lib/postgresql/<version>/bin; run as the ``postgres`` user when the tests run as root, as initdb refuses
   root) or ``redis-server``, in a temporary folder on a free port, stopped when the run ends.

``CHAODIPI_TEST_SERVICES=own`` skips 1 and 2: the run starts its own servers whatever answers.

One pytest run shares one server of each (``Services``): the xdist workers ask for it under a file lock in a folder
that pytest's controller made (tests/conftest.py), the first one starts it and writes down its URL, and the
controller stops what was started when the run ends, failed or interrupted.

``python tests/service_helpers.py packages`` prints the Debian packages of the servers whose binaries are missing
(``make services`` installs them with apt before pytest starts).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: CHAODIPI_TEST_SERVICES's values: ``auto`` (the default) finds a server before it starts one; ``own`` starts one.
MODES = ("auto", "own")
#: How long a started server has to answer.
START_SECONDS = 60.0


class ServiceError(RuntimeError):
    """A service the tests need can be neither found nor started; the message says why and what to do."""


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_refusal(url: str) -> str | None:
    """None when PostgreSQL answers at ``url`` (a ``postgresql+psycopg://`` URL); else why not, in words."""
    import psycopg

    try:
        with psycopg.connect(re.sub(r"^postgresql\+psycopg://", "postgresql://", url), connect_timeout=3) as c:
            c.execute("SELECT 1")
    except psycopg.Error as e:
        return f"PostgreSQL does not answer at {url}: {str(e).strip() or type(e).__name__}"
    return None


def redis_refusal(url: str) -> str | None:
    """None when Redis answers PING at ``url``; else why not, in words."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=3, socket_connect_timeout=3)
    try:
        client.ping()
    except (redis.RedisError, OSError) as e:
        return f"Redis does not answer at {url}: {str(e).strip() or type(e).__name__}"
    finally:
        client.close()
    return None


def postgres_bindir(search: list[Path] | None = None) -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``: the PATH's, else Debian's newest
    /usr/lib/postgresql/<version>/bin (``search`` replaces both, for the tests); None when there is none."""
    if search is None:
        on_path = shutil.which("pg_ctl")
        search = [Path(on_path).parent] if on_path else []
        versions = Path("/usr/lib/postgresql").glob("*/bin")
        search += sorted(versions, key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.name)], reverse=True)
    for folder in search:
        if all(os.access(folder / name, os.X_OK) for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def redis_binary(search: list[Path] | None = None) -> Path | None:
    """``redis-server``: the PATH's, else /usr/bin's (``search``, folders, replaces both); None when there is none."""
    if search is None:
        on_path = shutil.which("redis-server")
        search = [Path(on_path).parent] if on_path else []
        search.append(Path("/usr/bin"))
    return next((f / "redis-server" for f in search if os.access(f / "redis-server", os.X_OK)), None)


@dataclass(frozen=True)
class Started:
    """A throwaway server: its URL, and what stops it (``stop_started``)."""

    url: str
    kind: str  # "postgres" or "redis"
    folder: str  # its temporary folder, removed once it is stopped
    pid: int
    bindir: str = ""  # PostgreSQL's: where pg_ctl is
    user: str = ""  # PostgreSQL's: the user it runs as ("" when as the tests' user)


@dataclass(frozen=True)
class Service:
    """A server the tests need, where to look for it, and how to start one of the run's own."""

    name: str
    env: str  # the variable that names one
    usual: str  # the URL of the one this machine and CI have
    package: str  # the Debian package that has its binaries
    refusal: Callable[[str], str | None]
    installed: Callable[[], bool]
    start: Callable[[Path], Started]


@dataclass(frozen=True)
class Choice:
    """Where a service comes from: ``url`` (None: start one of the run's own) and why, in words."""

    url: str | None
    why: str


def services_mode(env: Mapping[str, str]) -> str:
    """CHAODIPI_TEST_SERVICES's value (``auto`` when unset), checked."""
    mode = env.get("CHAODIPI_TEST_SERVICES", "") or "auto"
    if mode not in MODES:
        raise ServiceError(f"CHAODIPI_TEST_SERVICES is {mode!r}: it is 'auto' (find, else start) or 'own' (start)")
    return mode


def choose(service: Service, env: Mapping[str, str]) -> Choice:
    """Where ``service`` comes from for a run with this environment (see the module's docstring)."""
    if services_mode(env) == "own":
        return Choice(None, "CHAODIPI_TEST_SERVICES=own")
    named = env.get(service.env, "")
    if named:
        refused = service.refusal(named)
        if refused:
            raise ServiceError(f"{service.env} names a server that does not answer: {refused}")
        return Choice(named, f"{service.env}")
    refused = service.refusal(service.usual)
    if refused:
        return Choice(None, f"none answers at the usual place ({refused})")
    return Choice(service.usual, "the one answering at the usual place")


def _runs_as() -> tuple[str, list[str]]:
    """The user PostgreSQL runs as and the command prefix that runs a program as that user (initdb and pg_ctl
    refuse root: as root, the ``postgres`` user's, else ``nobody``'s; else the tests' own user, no prefix)."""
    if os.geteuid() != 0:
        return "", []
    for user in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(user)
            return user, ["runuser", "-u", user, "--"]
    raise ServiceError("the tests run as root, and there is no postgres or nobody user to run PostgreSQL as")


def _run(command: list[str], what: str, log: Path | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=START_SECONDS)
    if done.returncode != 0:
        more = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        raise ServiceError(f"{what} failed ({' '.join(command)}): {done.stdout}{done.stderr}{more}".strip())


def start_postgres(folder: Path) -> Started:
    """A throwaway PostgreSQL in a new temporary folder, on a free port (user postgres, no password); ``folder``,
    the run's, is not used: the user PostgreSQL runs as may not be able to reach it."""
    bindir = postgres_bindir()
    if bindir is None:
        raise ServiceError("no PostgreSQL binaries (initdb, pg_ctl): `make services` installs Debian's postgresql")
    user, as_user = _runs_as()
    # (in the system's temporary folder, which that user can reach, unlike a folder of root's)
    home = Path(tempfile.mkdtemp(prefix="chaodipi-postgres-"))
    if user:
        entry = pwd.getpwnam(user)
        os.chown(home, entry.pw_uid, entry.pw_gid)
    data, log = home / "data", home / "server.log"
    initdb = [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--encoding=UTF8"]
    _run([*as_user, *initdb, "--locale=C", "--no-sync"], "initdb")
    port = free_port()
    options = (
        f"-c port={port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={home} -c max_connections=200"
        " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    )
    pg_ctl = [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "start"]
    _run([*as_user, *pg_ctl], "pg_ctl", log)
    pid = int((data / "postmaster.pid").read_text().split()[0])
    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    started = Started(url, "postgres", str(home), pid, str(bindir), user)
    _wait_answering(started, postgres_refusal)
    return started


def start_redis(folder: Path) -> Started:
    """A throwaway Redis in a new folder under ``folder``, on a free port (nothing saved to disk)."""
    binary = redis_binary()
    if binary is None:
        raise ServiceError("no redis-server: `make services` installs Debian's redis-server")
    home = Path(tempfile.mkdtemp(prefix="redis-", dir=folder))
    port = free_port()
    pidfile = home / "redis.pid"
    command = [str(binary), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(home), "--save", ""]
    command += ["--appendonly", "no", "--daemonize", "yes", "--pidfile", str(pidfile)]
    _run([*command, "--logfile", str(home / "server.log")], "redis-server", home / "server.log")
    end = time.monotonic() + START_SECONDS
    while not pidfile.exists() or not pidfile.read_text().strip():
        if time.monotonic() > end:
            raise ServiceError(f"redis-server wrote no pid file: {(home / 'server.log').read_text(errors='replace')}")
        time.sleep(0.05)
    started = Started(f"redis://127.0.0.1:{port}/0", "redis", str(home), int(pidfile.read_text()))
    _wait_answering(started, redis_refusal)
    return started


def _wait_answering(started: Started, refusal: Callable[[str], str | None]) -> None:
    end = time.monotonic() + START_SECONDS
    while (refused := refusal(started.url)) is not None:
        if time.monotonic() > end:
            stop_started(started)
            raise ServiceError(f"the {started.kind} server started for the tests does not answer: {refused}")
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_started(started: Started) -> None:
    """Stop a throwaway server (PostgreSQL with ``pg_ctl stop``, Redis with SIGTERM; SIGKILL if either lingers)
    and remove its folder."""
    if started.kind == "postgres" and _alive(started.pid):
        as_user = ["runuser", "-u", started.user, "--"] if started.user else []
        data = str(Path(started.folder) / "data")
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            stop = [*as_user, f"{started.bindir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"]
            subprocess.run(stop, capture_output=True, timeout=30)
    elif _alive(started.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(started.pid, signal.SIGTERM)
    end = time.monotonic() + 15
    while _alive(started.pid) and time.monotonic() < end:
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(started.pid, signal.SIGKILL)
    shutil.rmtree(started.folder, ignore_errors=True)


POSTGRES = Service(
    "PostgreSQL",
    "CHAODIPI_TEST_PG",
    "postgresql+psycopg://postgres@127.0.0.1:5432/test",
    "postgresql",
    postgres_refusal,
    lambda: postgres_bindir() is not None,
    start_postgres,
)
REDIS = Service(
    "Redis",
    "CHAODIPI_TEST_REDIS",
    "redis://127.0.0.1:6379/0",
    "redis-server",
    redis_refusal,
    lambda: redis_binary() is not None,
    start_redis,
)
SERVICES = {"postgres": POSTGRES, "redis": REDIS}


def packages_needed(env: Mapping[str, str], services: Iterable[Service] = SERVICES.values()) -> list[str]:
    """The Debian packages to install before a run: those of the servers whose binaries are missing, whether or
    not the run needs one of its own (tests/test_services.py starts one of each in any case). A bad
    CHAODIPI_TEST_SERVICES, or a server named in the environment that does not answer, is a ServiceError at once."""
    services = list(services)
    for service in services:
        choose(service, env)
    return [s.package for s in services if not s.installed()]


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    with (folder / "lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class Services:
    """One pytest run's servers, shared by its processes through ``folder`` (made by the run's controller)."""

    def __init__(self, folder: Path, env: Mapping[str, str]) -> None:
        self.folder = folder
        self.env = env

    def _state(self) -> dict[str, Any]:
        path = self.folder / "state.json"
        return dict(json.loads(path.read_text())) if path.exists() else {}

    def url(self, key: str) -> str:
        """The URL of the run's ``key`` server ("postgres" or "redis"): the first caller finds or starts it."""
        service = SERVICES[key]
        with _locked(self.folder):
            state = self._state()
            if key not in state:
                try:
                    choice = choose(service, self.env)
                    if choice.url is None:
                        started = service.start(self.folder)
                        state[key] = {"url": started.url, "why": choice.why, "started": started.__dict__}
                    else:
                        state[key] = {"url": choice.url, "why": choice.why}
                except ServiceError as e:
                    state[key] = {"error": str(e)}
                (self.folder / "state.json").write_text(json.dumps(state))
        if "error" in state[key]:
            raise ServiceError(f"{service.name} for the tests: {state[key]['error']}")
        return str(state[key]["url"])

    def summary(self) -> list[str]:
        """A line for each service the run used: where it came from."""
        lines = []
        for key, entry in self._state().items():
            name = SERVICES[key].name
            if "error" in entry:
                lines.append(f"{name}: none: {entry['error']}")
            elif "started" in entry:
                lines.append(f"{name}: started for this run at {entry['url']} ({entry['why']}), stopped at its end")
            else:
                lines.append(f"{name}: {entry['url']} ({entry['why']})")
        return lines

    def stop(self) -> None:
        """Stop the servers the run started, and remove the folder."""
        with _locked(self.folder):
            for entry in self._state().values():
                if "started" in entry:
                    stop_started(Started(**entry["started"]))
        shutil.rmtree(self.folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    if argv != ["packages"]:
        print("usage: python tests/service_helpers.py packages", file=sys.stderr)
        return 2
    try:
        print(" ".join(packages_needed(os.environ)))
    except ServiceError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
