"""Batches here, over processes and on Ray (issue 25): the same results in the same order, wherever they ran.

The local paths always run; the Ray tests are skipped when Ray (the ``learn`` extra) is not installed,
and start one local Ray with 2 CPUs for all of them.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from chaodipi.arena import ArenaResult, run_arena
from chaodipi.cli import main
from chaodipi.cluster import RayMissingError, import_ray, ray_session, run_batches


def slow_square(x: int) -> int:
    """x squared, later for the early tasks: results come in out of task order."""
    time.sleep(0.02 * (4 - x) if x < 4 else 0)
    return x * x


def fail_on_three(x: int) -> int:
    """x, except 3, which fails."""
    if x == 3:
        raise RuntimeError("three")
    return x


def _no_times(result: ArenaResult) -> ArenaResult:
    return dataclasses.replace(result, time_a=(0.0, 0.0), time_b=(0.0, 0.0))


# -- the local paths


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_and_on_result_keep_the_task_order(jobs: int) -> None:
    seen: list[int] = []
    assert run_batches(slow_square, range(6), jobs=jobs, on_result=seen.append) == [0, 1, 4, 9, 16, 25]
    assert seen == [0, 1, 4, 9, 16, 25]


def test_no_tasks_no_results() -> None:
    assert run_batches(slow_square, [], jobs=2) == []


def test_bad_jobs_and_an_empty_address_are_refused() -> None:
    with pytest.raises(ValueError, match="jobs must be at least 1, not 0"):
        run_batches(slow_square, [1], jobs=0)
    with pytest.raises(ValueError, match="needs an address"):
        run_batches(slow_square, [1], ray=" ")
    with pytest.raises(ValueError, match="batch must be at least 1, not 0"):
        run_arena("random", "random", deals=2, batch=0)


def test_a_task_s_error_comes_back() -> None:
    for jobs in (1, 2):
        with pytest.raises(RuntimeError, match="three"):
            run_batches(fail_on_three, [1, 2, 3, 4], jobs=jobs)


def test_arena_is_the_same_over_processes_and_batches() -> None:
    seen: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    results = {}
    for jobs, batch in [(1, 10), (1, 1), (2, 2), (2, 3)]:
        progress = seen.setdefault((jobs, batch), [])
        result = run_arena(
            "random", "rules", deals=5, seed=11, jobs=jobs, batch=batch, on_progress=lambda *p, s=progress: s.append(p)
        )
        results[jobs, batch] = _no_times(result)
    first = results[1, 10]
    assert all(r == first for r in results.values()), results
    assert all(p == seen[1, 10] for p in seen.values())
    assert [p[:2] for p in seen[1, 10]] == [(2, 10), (4, 10), (6, 10), (8, 10), (10, 10)]


def test_without_ray_the_error_is_one_typed_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(RayMissingError, match=r"pip install 'chaodipi\[learn\]'") as info:
        run_batches(slow_square, [1, 2], ray="local")
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)
    with pytest.raises(RayMissingError):
        run_arena("random", "random", deals=1, ray="127.0.0.1:6379")


def test_cli_ray_without_ray_is_a_clean_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main(["arena", "random", "random", "--deals", "1", "--ray", "local"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "chaodipi: --ray needs Ray, which is not installed: pip install 'chaodipi[learn]'\n"
    assert captured.out == ""


def test_cli_batch_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["arena", "random", "random", "--batch", "0"])
    assert stop.value.code == 2 and "--batch" in capsys.readouterr().err


# -- on Ray (one local session with 2 CPUs for these tests)


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'chaodipi[learn]')")
    with ray_session("local", jobs=2) as ray:
        # Ray's workers cannot import this test module: its functions travel by value (the package's by name)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        try:
            yield ray
        finally:
            ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_on_ray_order_and_on_result_order_are_kept(ray_local: Any) -> None:
    seen: list[int] = []
    assert run_batches(slow_square, range(6), ray="local", on_result=seen.append) == [0, 1, 4, 9, 16, 25]
    assert seen == [0, 1, 4, 9, 16, 25]
    assert ray_local.is_initialized()  # a session this call did not start is left running


def test_on_ray_a_task_s_error_comes_back(ray_local: Any) -> None:
    with pytest.raises(RuntimeError, match="three"):
        run_batches(fail_on_three, [1, 2, 3, 4], ray="local")


def test_on_ray_the_arena_is_identical_to_the_local_run(ray_local: Any) -> None:
    from chaodipi.cluster import cluster_summary

    assert cluster_summary() == "ray: 1 node, 2 CPUs"
    here: list[tuple[int, int, int]] = []
    there: list[tuple[int, int, int]] = []
    local = run_arena("random", "rules", deals=5, seed=3, batch=2, on_progress=lambda *p: here.append(p))
    on_ray = run_arena("random", "rules", deals=5, seed=3, batch=2, ray="local", on_progress=lambda *p: there.append(p))
    assert _no_times(on_ray) == _no_times(local)
    assert there == here


def test_import_ray_gives_the_module_when_installed() -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'chaodipi[learn]')")
    assert import_ray() is ray
