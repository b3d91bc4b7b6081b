"""Limits on model calls shared by the runs of a study in one process (docs/studies.md
"Limits"): at most so many calls at once over all providers, and per provider at most so many
at once and so many started per minute — the providers' rate limits are what bounds a
study's speed, and a study that ignores them gets its calls refused."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.config import ExperimentConfig
from maai.domain.events import ModelAttemptFailed
from maai.runtime.engine import CallExecutor

SIMULATED = "simulated"


def provider_key(model: str, base_url: str | None) -> str:
    """Which provider a caller's calls go to: its server's ``base_url``, ``openai`` for
    ``openai:NAME`` models, ``simulated`` for the offline participant."""
    if base_url:
        return base_url.rstrip("/")
    if model == SIMULATED:
        return SIMULATED
    return model.split(":", 1)[0] if ":" in model else model


@dataclass(frozen=True)
class ProviderLimit:
    concurrency: int | None = None
    per_minute: int | None = None


class PerMinute:
    """At most ``limit`` starts in any 60 seconds (a sliding window)."""

    def __init__(
        self,
        limit: int,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.limit = limit
        self.clock = clock
        self.sleep = sleep
        self.starts: deque[float] = deque()
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self.lock:
            while True:
                now = self.clock()
                while self.starts and now - self.starts[0] >= 60.0:
                    self.starts.popleft()
                if len(self.starts) < self.limit:
                    self.starts.append(now)
                    return
                await self.sleep(60.0 - (now - self.starts[0]))


class CallLimits:
    """The limits of one study; create it inside the event loop the runs use."""

    def __init__(self, total: int | None, providers: Mapping[str, ProviderLimit]) -> None:
        self.total = asyncio.Semaphore(total) if total else None
        self.at_once = {
            k: asyncio.Semaphore(v.concurrency) for k, v in providers.items() if v.concurrency
        }
        self.per_minute = {
            k: PerMinute(v.per_minute) for k, v in providers.items() if v.per_minute
        }
        self.in_flight = 0
        self.most_in_flight = 0

    @asynccontextmanager
    async def slot(self, provider: str) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if self.total is not None:
                await stack.enter_async_context(self.total)
            if provider in self.at_once:
                await stack.enter_async_context(self.at_once[provider])
            if provider in self.per_minute:
                await self.per_minute[provider].wait()
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            try:
                yield
            finally:
                self.in_flight -= 1


class LimitedExecutor:
    """An executor whose calls wait for a slot of their provider first."""

    def __init__(self, inner: CallExecutor, limits: CallLimits, config: ExperimentConfig) -> None:
        self.inner = inner
        self.limits = limits
        self.providers = {
            user.who: provider_key(user.model, user.provider.base_url if user.provider else None)
            for user in config.model_users()
        }

    async def execute(
        self,
        request: ModelRequest,
        on_attempt_failed: Callable[[ModelAttemptFailed], None],
    ) -> ModelAnswer:
        async with self.limits.slot(self.providers.get(request.agent, "")):
            return await self.inner.execute(request, on_attempt_failed)
