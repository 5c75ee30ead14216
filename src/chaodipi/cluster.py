"""Batches of work in this process, over local processes, or on a Ray cluster (issue 25).

:func:`run_batches` applies a module-level function to every task of a list and returns the
results in task order, wherever the work ran:

- ``ray=None, jobs=1``: in this process, one task after the other;
- ``ray=None, jobs=K``: a :class:`~concurrent.futures.ProcessPoolExecutor` with K processes;
- ``ray="local"``: Ray started in this process (``ray.init()``, with ``num_cpus=jobs`` when
  jobs > 1), one Ray task per task;
- ``ray=ADDRESS`` (``127.0.0.1:6379``, ``auto``): the running cluster at that address
  (``ray.init(address=ADDRESS)``), one Ray task per task; the cluster's CPUs set how many run
  at once, and ``jobs`` is not used.

Results are collected as they come (``ray.wait``), but ``on_result`` is called in task order
(results that arrive early wait for those before them), so a progress bar or a running total
sees the same sequence however the work was spread. Ray is shut down afterwards only if this
call started it: inside :func:`ray_session` (or any ``ray.init`` of the caller's) the session is
left running for the next call. The function and the tasks travel by pickle, so the function
must be defined at the top of a module that every worker can import.

The arena (``chaodipi arena --ray ADDRESS --batch N``) sends one task per batch of N
consecutive duplicate deals; every random choice comes from the seed and the deal number, so
the result is the same with or without Ray, whatever the batch size.

A two-node cluster (Ray is the ``learn`` extra: ``pip install 'chaodipi[learn]'``)::

    ray start --head --port=6379                 # node 1, the head
    ray start --address=HEAD_IP:6379             # node 2 (and any more)
    chaodipi arena search rules --deals 1000 --ray HEAD_IP:6379      # on node 1
    ray stop                                     # on each node, when done

Every node needs the same chaodipi version installed (and the same Python and Ray): the
workers import ``chaodipi`` from their own installation, and only the task's arguments travel.
Without Ray installed, ``--ray`` stops with :class:`RayMissingError`, a one-line error.

>>> run_batches(abs, [-3, 1, -2])
[3, 1, 2]
>>> seen: list[int] = []
>>> run_batches(abs, [-1, -2], on_result=seen.append) == seen
True
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

__all__ = ["LOCAL", "RayMissingError", "cluster_summary", "import_ray", "ray_session", "run_batches"]

T = TypeVar("T")
R = TypeVar("R")

#: The ``ray`` value that starts Ray in this process instead of joining a running cluster.
LOCAL = "local"


class RayMissingError(ValueError):
    """``--ray`` was asked for, but Ray is not installed (it is the ``learn`` extra)."""


def import_ray() -> Any:
    """The ``ray`` module, imported now (never at module import time); :class:`RayMissingError` without it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayMissingError("--ray needs Ray, which is not installed: pip install 'chaodipi[learn]'") from None


def _check(jobs: int, ray: str | None) -> None:
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if ray is not None and not ray.strip():
        raise ValueError("--ray needs an address (HOST:PORT or auto) or local")


#: Environment variables passed on to the Ray workers (the learned bot's weights file).
PASSED_VARIABLES = ("CHAODIPI_LEARNED_WEIGHTS",)


@contextmanager
def ray_session(ray: str, *, jobs: int = 1) -> Iterator[Any]:
    """Ray connected for the block: ``local`` starts it in this process (``num_cpus=jobs`` when
    jobs > 1), anything else is a running cluster's address (``HOST:PORT``, ``auto``). Yields the
    ``ray`` module. If Ray was already initialized, it is used as it is and left running;
    otherwise it is shut down when the block ends."""
    _check(jobs, ray)
    ray_mod = import_ray()
    started = not ray_mod.is_initialized()
    if started:
        kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "include_dashboard": False}
        # Environment variables the tasks read (the learned bot's weights, `--weights`) reach every node's workers;
        # the file they name must be at that path on every node.
        passed = {name: os.environ[name] for name in PASSED_VARIABLES if name in os.environ}
        if passed:
            kwargs["runtime_env"] = {"env_vars": passed}
        if ray == LOCAL:
            if jobs > 1:
                kwargs["num_cpus"] = jobs
            ray_mod.init(**kwargs)
        else:
            ray_mod.init(address=ray, **kwargs)
    try:
        yield ray_mod
    finally:
        if started:
            ray_mod.shutdown()


def cluster_summary() -> str:
    """What the connected Ray cluster has, in one line: ``ray: 2 nodes, 4 CPUs`` (Ray must be initialized)."""
    ray_mod = import_ray()
    nodes = sum(1 for node in ray_mod.nodes() if node.get("Alive", node.get("alive", False)))
    cpus = ray_mod.cluster_resources().get("CPU", 0)
    cpu_words = f"{cpus:g} CPU" + ("" if cpus == 1 else "s")
    return f"ray: {nodes} node{'' if nodes == 1 else 's'}, {cpu_words}"


def run_batches(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    *,
    jobs: int = 1,
    ray: str | None = None,
    on_result: Callable[[R], None] | None = None,
) -> list[R]:
    """``[fn(t) for t in tasks]``, run here, over ``jobs`` processes or on Ray (see the module's docstring).

    ``fn`` must be a module-level function (it is pickled by reference). ``on_result``, when
    given, is called in this process with each result in task order, as soon as it and all the
    results before it are in. A task's exception is raised here (on Ray, the tasks not started
    yet are cancelled).

    >>> run_batches(sum, [[1, 2], [3], []], jobs=2)
    [3, 3, 0]
    >>> run_batches(abs, [1], jobs=0)
    Traceback (most recent call last):
    ValueError: jobs must be at least 1, not 0
    """
    _check(jobs, ray)
    if ray is not None:
        with ray_session(ray, jobs=jobs) as ray_mod:
            return _on_ray(ray_mod, fn, tasks, on_result)
    results: list[R] = []
    workers = min(jobs, len(tasks))  # more processes than tasks would only sit idle
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(fn, tasks):  # in task order, each as soon as it and those before are done
                results.append(result)
                if on_result is not None:
                    on_result(result)
        return results
    for task in tasks:
        result = fn(task)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def _on_ray(ray_mod: Any, fn: Callable[[T], R], tasks: Sequence[T], on_result: Callable[[R], None] | None) -> list[R]:
    """Every task as one Ray task; results gathered as they come, handed on in task order."""
    remote = ray_mod.remote(fn)
    refs = [remote.remote(task) for task in tasks]
    index = {ref: i for i, ref in enumerate(refs)}
    done: dict[int, R] = {}
    pending = list(refs)
    handed = 0
    try:
        while pending:
            ready, pending = ray_mod.wait(pending, num_returns=1)
            for ref in ready:
                done[index[ref]] = ray_mod.get(ref)
            while handed in done:  # the next in task order is in: hand it on, and any that waited behind it
                if on_result is not None:
                    on_result(done[handed])
                handed += 1
    except BaseException:
        for ref in pending:
            with suppress(Exception):  # best effort: a task that ended meanwhile cannot be cancelled
                ray_mod.cancel(ref)
        raise
    return [done[i] for i in range(len(tasks))]
