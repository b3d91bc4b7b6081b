"""The timers the benchmarks share: a block's wall and CPU seconds, and a function's CPU time
summed per name. CPU time is the figure to compare on a machine shared with other work;
wall time is what a user waits.

The benchmarks run as scripts and are loaded by file in the tests, so each puts this folder
on ``sys.path`` and imports ``timing`` as a top-level module."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class Spent:
    """What a :func:`measured` block took; the durations are set when it ends."""

    started: float  # time.perf_counter() when the block began
    wall: float = 0.0
    cpu: float = 0.0  # the process's CPU time, every thread's


@contextmanager
def measured() -> Iterator[Spent]:
    """Wall and process CPU seconds of the block (set also when it raises)."""
    spent = Spent(started=time.perf_counter())
    started_cpu = time.process_time()
    try:
        yield spent
    finally:
        spent.cpu = time.process_time() - started_cpu
        spent.wall = time.perf_counter() - spent.started


def thread_cpu_into(totals: dict[str, float], key: str, function: Callable[P, R]) -> Callable[P, R]:
    """``function``, adding to ``totals[key]`` the CPU time that the calling thread spends in
    it: per thread, so that work on the writer thread and on the engine's loop are told apart
    while both run."""

    def timed(*args: P.args, **kwargs: P.kwargs) -> R:
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            totals[key] += time.thread_time() - started

    return timed
