"""What a run is doing right now, for a live status line (``maai run`` on a terminal): the
step it is at, the model calls in flight and how long the oldest of them has waited, and
notes that other code sets while it waits (a provider's rate limit, a retry).

The status is reached two ways: the CLI holds the :class:`LiveStatus` it renders, and code
deep inside a run (a model caller waiting out a ``Retry-After``) finds it with
:func:`current` and calls :meth:`LiveStatus.set_note`; with no status line shown there is
none, and ``current()`` is ``None``. Nothing here is recorded: it is a view of the moment."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.events import ModelAttemptFailed

if TYPE_CHECKING:  # the model caller (runtime.recording) reaches current() without the engine
    from maai.runtime.engine import CallExecutor


class LiveStatus:
    """The moment's state of one run; safe to update from any thread or task."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._step = ""
        self._notes: dict[str, tuple[str, float | None]] = {}  # key -> (text, until)
        self._calls: dict[int, float] = {}  # call token -> when it was sent
        self._tokens = itertools.count()

    def set_step(self, text: str) -> None:
        """The step the run is at, in words (its latest progress line)."""
        with self._lock:
            self._step = " ".join(text.split())

    def set_note(self, key: str, text: str | None, *, for_s: float | None = None) -> None:
        """Show ``text`` (e.g. "p2/alice/r1/statement: HTTP 429, waiting") until it is set
        again or cleared with ``None``; ``key`` names the note, so that each waiter keeps one.
        With ``for_s`` the note counts down the seconds left of that wait ("12 s left")."""
        with self._lock:
            if text is None:
                self._notes.pop(key, None)
            else:
                until = None if for_s is None else self._clock() + for_s
                self._notes[key] = (" ".join(text.split()), until)

    def call_started(self) -> int:
        with self._lock:
            token = next(self._tokens)
            self._calls[token] = self._clock()
            return token

    def call_ended(self, token: int) -> None:
        with self._lock:
            self._calls.pop(token, None)

    @property
    def in_flight(self) -> int:
        with self._lock:
            return len(self._calls)

    def waited_s(self) -> float:
        """How long the oldest call in flight has waited for its answer (0 with none)."""
        with self._lock:
            oldest = min(self._calls.values(), default=None)
        return 0.0 if oldest is None else max(0.0, self._clock() - oldest)

    def notes(self) -> list[str]:
        """The notes shown now (a wait counts down its seconds left), oldest first."""
        with self._lock:
            now = self._clock()
            return [
                text if until is None else f"{text}, {max(0.0, until - now):.0f} s left"
                for text, until in self._notes.values()
            ]

    def text(self) -> str:
        """One line: ``3 calls in flight, waiting 12 s · notes · step``, what changes most
        first (a narrow terminal cuts the end)."""
        notes = self.notes()
        with self._lock:
            step, calls = self._step, len(self._calls)
        if calls:
            plural = "call" if calls == 1 else "calls"
            waiting = f"{calls} {plural} in flight, waiting {self.waited_s():.0f} s"
        else:
            waiting = "no call in flight"
        return " · ".join([waiting, *notes, step or "starting"])


_current: ContextVar[LiveStatus | None] = ContextVar("maai_live_status", default=None)


def current() -> LiveStatus | None:
    """The status line's state of the run this code works for, if one is shown."""
    return _current.get()


@contextmanager
def showing(status: LiveStatus) -> Iterator[LiveStatus]:
    """Make ``status`` the :func:`current` one inside the block (and in the tasks and
    threads started with a copy of its context, as ``asyncio.run`` does)."""
    reset = _current.set(status)
    try:
        yield status
    finally:
        _current.reset(reset)


class WatchedExecutor:
    """An executor that tells a :class:`LiveStatus` when each call goes out and comes back."""

    def __init__(self, inner: CallExecutor, status: LiveStatus) -> None:
        self.inner = inner
        self.status = status

    async def execute(
        self,
        request: ModelRequest,
        on_attempt_failed: Callable[[ModelAttemptFailed], None],
    ) -> ModelAnswer:
        token = self.status.call_started()
        try:
            return await self.inner.execute(request, on_attempt_failed)
        finally:
            self.status.call_ended(token)
