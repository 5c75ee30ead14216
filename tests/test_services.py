"""The tests' PostgreSQL and Redis (tests/service_helpers.py): which one a run uses, and the ones it starts.

The choice is tested with probes that answer as each case needs; the throwaway servers are really started
(Debian's binaries, as on a fresh machine after ``make services``), used, and stopped, their folders removed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest
import redis

from service_helpers import (
    POSTGRES,
    REDIS,
    Service,
    ServiceError,
    Services,
    Started,
    _alive,
    choose,
    free_port,
    packages_needed,
    postgres_bindir,
    postgres_refusal,
    redis_binary,
    redis_refusal,
)

ANSWERING = {"postgresql+psycopg://postgres@127.0.0.1:5432/test", "redis://127.0.0.1:6379/0", "redis://other:1/0"}


def probed(service: Service, answering: set[str], asked: list[str] | None = None) -> Service:
    """``service`` with a probe under the test's control: the URLs in ``answering`` answer."""

    def refusal(url: str) -> str | None:
        if asked is not None:
            asked.append(url)
        return None if url in answering else f"nothing at {url}"

    return replace(service, refusal=refusal)


def test_a_url_in_the_environment_is_used_and_nothing_else_is_asked() -> None:
    asked: list[str] = []
    choice = choose(probed(REDIS, ANSWERING, asked), {"CHAODIPI_TEST_REDIS": "redis://other:1/0"})
    assert choice.url == "redis://other:1/0" and choice.why == "CHAODIPI_TEST_REDIS"
    assert asked == ["redis://other:1/0"]


def test_a_url_in_the_environment_that_does_not_answer_is_an_error_in_words() -> None:
    with pytest.raises(ServiceError, match=r"CHAODIPI_TEST_PG names a server that does not answer: nothing at post"):
        choose(probed(POSTGRES, set()), {"CHAODIPI_TEST_PG": "postgresql+psycopg://postgres@nowhere:1/x"})


def test_without_a_url_the_one_at_the_usual_place_is_used_when_it_answers() -> None:
    assert choose(probed(POSTGRES, ANSWERING), {}).url == POSTGRES.usual
    assert choose(probed(REDIS, ANSWERING), {"CHAODIPI_TEST_SERVICES": ""}).url == REDIS.usual


def test_without_one_answering_the_run_starts_its_own_and_says_why() -> None:
    choice = choose(probed(POSTGRES, set()), {})
    assert choice.url is None and choice.why.startswith("none answers at the usual place (nothing at postgresql")


def test_own_starts_one_whatever_answers_and_asks_nothing() -> None:
    asked: list[str] = []
    env = {"CHAODIPI_TEST_SERVICES": "own", "CHAODIPI_TEST_REDIS": "redis://other:1/0"}
    assert choose(probed(REDIS, ANSWERING, asked), env).url is None
    assert asked == []


def test_another_mode_is_refused_in_words() -> None:
    with pytest.raises(ServiceError, match=r"CHAODIPI_TEST_SERVICES is 'mine': it is 'auto' .* or 'own'"):
        choose(REDIS, {"CHAODIPI_TEST_SERVICES": "mine"})


def test_the_real_probes_say_in_words_that_a_closed_port_does_not_answer() -> None:
    port = free_port()
    refused = postgres_refusal(f"postgresql+psycopg://postgres@127.0.0.1:{port}/test")
    assert refused is not None and refused.startswith(
        f"PostgreSQL does not answer at postgresql+psycopg://postgres@127.0.0.1:{port}"
    )
    refused = redis_refusal(f"redis://127.0.0.1:{port}/0")
    assert refused is not None and refused.startswith(f"Redis does not answer at redis://127.0.0.1:{port}/0")


def _executables(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True)
    for name in names:
        (folder / name).write_text("#!/bin/sh\n")
        (folder / name).chmod(0o755)
    return folder


def test_binaries_are_found_in_the_first_folder_that_has_them_all(tmp_path: Path) -> None:
    partial = _executables(tmp_path / "a", "initdb", "pg_ctl")  # no postgres
    whole = _executables(tmp_path / "b", "initdb", "pg_ctl", "postgres", "redis-server")
    assert postgres_bindir([partial, whole]) == whole
    assert postgres_bindir([partial]) is None
    assert redis_binary([partial, whole]) == whole / "redis-server"
    assert redis_binary([partial]) is None


def test_the_packages_to_install_are_those_whose_binaries_are_missing() -> None:
    have, lack = (lambda: True), (lambda: False)
    found = [replace(probed(POSTGRES, ANSWERING), installed=lack), replace(probed(REDIS, ANSWERING), installed=have)]
    assert packages_needed({}, found) == ["postgresql"]  # (the throwaway servers' own tests start one of each)
    found = [replace(probed(POSTGRES, set()), installed=have), replace(probed(REDIS, set()), installed=lack)]
    assert packages_needed({"CHAODIPI_TEST_SERVICES": "own"}, found) == ["redis-server"]
    assert packages_needed({}, [replace(s, installed=have) for s in found]) == []


def test_the_packages_are_not_asked_for_when_the_environment_is_wrong() -> None:
    with pytest.raises(ServiceError, match="CHAODIPI_TEST_REDIS names a server that does not answer"):
        packages_needed({"CHAODIPI_TEST_REDIS": "redis://127.0.0.1:1/0"}, [probed(REDIS, set())])


def test_the_packages_command_prints_nothing_when_both_are_at_hand() -> None:
    script = Path(__file__).with_name("service_helpers.py")
    env = {**os.environ, "CHAODIPI_TEST_SERVICES": "own"}
    done = subprocess.run([sys.executable, str(script), "packages"], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and done.stdout.strip() == "", done  # this machine has both (make services)
    env["CHAODIPI_TEST_SERVICES"] = "mine"
    done = subprocess.run([sys.executable, str(script), "packages"], capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "CHAODIPI_TEST_SERVICES is 'mine'" in done.stderr


def test_a_run_starts_one_server_of_each_for_all_its_processes_and_stops_them(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    services = Services(folder, {"CHAODIPI_TEST_SERVICES": "own"})
    urls: list[str] = []

    def worker() -> None:  # two xdist workers asking at once
        other = Services(folder, {"CHAODIPI_TEST_SERVICES": "own"})
        urls.append(other.url("postgres") + " " + other.url("redis"))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(urls) == 2 and urls[0] == urls[1], urls
    pg, rd = urls[0].split()
    assert pg != POSTGRES.usual and rd != REDIS.usual
    with psycopg.connect(pg.replace("postgresql+psycopg://", "postgresql://")) as c:
        c.execute("CREATE TABLE t (name text)")
        c.execute("INSERT INTO t VALUES ('小明')")
        assert c.execute("SELECT name FROM t").fetchone() == ("小明",)
    client = redis.Redis.from_url(rd)
    assert client.ping()
    client.close()
    assert [line.split(":")[0] for line in services.summary()] == ["PostgreSQL", "Redis"]
    assert all("started for this run" in line for line in services.summary())
    started = [Started(**e["started"]) for e in json.loads((folder / "state.json").read_text()).values()]
    assert all(_alive(s.pid) for s in started)
    services.stop()
    assert not any(_alive(s.pid) for s in started)
    assert postgres_refusal(pg) is not None and redis_refusal(rd) is not None
    assert not folder.exists()


def test_a_server_that_cannot_be_had_fails_every_asker_with_the_same_words(tmp_path: Path) -> None:
    services = Services(tmp_path, {"CHAODIPI_TEST_PG": "postgresql+psycopg://postgres@127.0.0.1:1/test"})
    for _ in range(2):  # the second asker reads the first one's failure: nothing is tried twice
        with pytest.raises(ServiceError, match=r"^PostgreSQL for the tests: CHAODIPI_TEST_PG names a server that"):
            services.url("postgres")
    assert services.summary()[0].startswith("PostgreSQL: none: CHAODIPI_TEST_PG names")
    services.stop()
