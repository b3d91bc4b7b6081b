"""Waiting out a simulated model's latency precisely.

``asyncio.sleep`` wakes up to a millisecond late: the event loop waits in ``epoll`` with a
timeout in whole milliseconds, rounded up. A real provider's answer arrives on a socket and
wakes the loop at once. So that a simulated call takes its latency and not about a
millisecond more (which, over a run's hundreds of sequential calls, would be charged to the
engine by ``benchmarks/run_bench.py``), one helper thread keeps the deadlines and wakes each
waiting call through ``call_soon_threadsafe``, as an arriving answer would.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import threading
import time


class _Alarm:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._due: list[tuple[float, int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    async def wait_until(self, deadline: float) -> None:
        """Return at ``deadline`` (on ``time.monotonic``, the event loop's clock)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="maai-simulated-latency", daemon=True
                )
                self._thread.start()
            heapq.heappush(self._due, (deadline, next(self._order), loop, future))
            self._changed.notify()
        await future

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._due:
                    self._changed.wait()
                deadline, _, loop, future = self._due[0]
                left = deadline - time.monotonic()
                if left > 0:
                    self._changed.wait(left)
                    continue
                heapq.heappop(self._due)
            # RuntimeError: the loop was closed meanwhile (the run was stopped); nobody waits.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_wake, future)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():  # a cancelled call's future is already done
        future.set_result(None)


_alarm = _Alarm()


async def sleep_until(deadline: float) -> None:
    """Sleep until ``deadline``, a ``time.monotonic()`` (= ``loop.time()``) reading."""
    if deadline <= time.monotonic():
        return
    await _alarm.wait_until(deadline)
