"""The bookkeeping every experiment's state needs, and its reducer: the run's start, status
and failure, the calls requested and answered, token totals, and every domain event by its
slot key. Persistent maps (``immutables.Map``) keep one step O(log n) however long the run,
and leave the state before it untouched."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from immutables import Map

from maai.domain.calls import ModelAnswer
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunCompleted,
    RunFailed,
    RunStarted,
)

RunStatus = Literal["new", "running", "completed", "failed"]


@dataclass(frozen=True, slots=True)
class CallTotals:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failed_attempts: int = 0


@dataclass(frozen=True, slots=True)
class Core:
    started: RunStarted | None = None
    status: RunStatus = "new"
    failure: str | None = None
    answers: Map[str, ModelAnswer] = field(default_factory=Map)
    requested: Map[str, str] = field(default_factory=Map)
    records: Map[str, Event] = field(default_factory=Map)
    totals: CallTotals = field(default_factory=CallTotals)

    def has(self, key: str) -> bool:
        return key in self.records


def evolve_core(core: Core, event: Event) -> tuple[Core, bool]:
    """The core after ``event``, and whether it is a domain event (recorded by key, for the
    experiment's own reducer to fold too)."""
    if isinstance(event, RunStarted):
        return replace(core, started=event, status="running"), False
    if isinstance(event, ModelCallRequested):
        requested = core.requested.set(event.request.address, event.request_hash)
        return replace(core, requested=requested), False
    if isinstance(event, ModelCallCompleted):
        usage = event.answer.usage
        t = core.totals
        totals = replace(
            t,
            calls=t.calls + 1,
            input_tokens=t.input_tokens + usage.input_tokens,
            output_tokens=t.output_tokens + usage.output_tokens,
        )
        answers = core.answers.set(event.address, event.answer)
        return replace(core, answers=answers, totals=totals), False
    if isinstance(event, ModelAttemptFailed):
        totals = replace(core.totals, failed_attempts=core.totals.failed_attempts + 1)
        return replace(core, totals=totals), False
    if isinstance(event, RunFailed):
        return replace(core, status="failed", failure=event.reason), False
    if isinstance(event, RunCompleted):
        return replace(core, status="completed", failure=None), False
    records = core.records.set(event.key, event)
    if core.status == "failed":
        # A resumed run appends new domain events after its failure: it is running again.
        return replace(core, records=records, status="running", failure=None), True
    return replace(core, records=records), True


class OnCore:
    """What generic code reads of an experiment's state (``maai.domain.experiment.RunState``,
    ``maai.domain.elicit``), read from the ``core`` field the state keeps: an experiment's
    state dataclass inherits this and holds ``core: Core``."""

    __slots__ = ()
    core: Core

    @property
    def started(self) -> RunStarted | None:
        return self.core.started

    @property
    def status(self) -> str:
        return self.core.status

    @property
    def failure(self) -> str | None:
        return self.core.failure

    @property
    def requested(self) -> Any:
        return self.core.requested

    @property
    def answers(self) -> Any:
        return self.core.answers

    @property
    def records(self) -> Any:
        return self.core.records

    @property
    def totals(self) -> CallTotals:
        return self.core.totals

    @property
    def seed(self) -> int:
        assert self.core.started is not None, "run has not started"
        return self.core.started.seed

    def has(self, key: str) -> bool:
        return key in self.core.records

    def answer(self, address: str) -> ModelAnswer | None:
        return self.core.answers.get(address)
