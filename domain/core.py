"""The bookkeeping every experiment's state needs, and its reducer: the run's start, status
and failure, the calls requested and answered, token totals, and every domain event by its
slot key. Persistent maps (``immutables.Map``) keep one step O(log n) however long the run,
and leave the state before it untouched."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from immutables import Map

from maai.domain.calls import ModelAnswer
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunClaimed,
    RunCompleted,
    RunFailed,
    RunSigned,
    RunStarted,
)
from maai.domain.updates import Changes, setter, updater

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
    changes, is_domain = core_changes(core, event)
    return update_core(core, changes), is_domain


def core_changes(core: Core, event: Event) -> tuple[Changes, bool]:
    """The fields of ``core`` that ``event`` changes, and whether it is a domain event:
    ``evolve_core`` as changes, for a fold that sets them in place (``set_core``)."""
    cls = type(event)
    step = _CORE_STEPS.get(cls)
    if step is None:  # a subclass is handled as its nearest base, as isinstance would
        step = next((_CORE_STEPS[b] for b in cls.__mro__ if b in _CORE_STEPS), _domain_event)
        _CORE_STEPS[cls] = step
    return step(core, event)


def _run_started(core: Core, event: Event) -> tuple[Changes, bool]:
    return {"started": event, "status": "running"}, False


def _call_requested(core: Core, event: ModelCallRequested) -> tuple[Changes, bool]:
    return {"requested": core.requested.set(event.request.address, event.request_hash)}, False


def _call_completed(core: Core, event: ModelCallCompleted) -> tuple[Changes, bool]:
    usage = event.answer.usage
    t = core.totals
    totals = CallTotals(
        calls=t.calls + 1,
        input_tokens=t.input_tokens + usage.input_tokens,
        output_tokens=t.output_tokens + usage.output_tokens,
        failed_attempts=t.failed_attempts,
    )
    answers = core.answers.set(event.address, event.answer.without_raw())
    return {"answers": answers, "totals": totals}, False


def _attempt_failed(core: Core, event: ModelAttemptFailed) -> tuple[Changes, bool]:
    totals = replace(core.totals, failed_attempts=core.totals.failed_attempts + 1)
    return {"totals": totals}, False


def _run_failed(core: Core, event: RunFailed) -> tuple[Changes, bool]:
    return {"status": "failed", "failure": event.reason}, False


def _run_completed(core: Core, event: RunCompleted) -> tuple[Changes, bool]:
    return {"status": "completed", "failure": None}, False


def _unread(core: Core, event: Event) -> tuple[Changes, bool]:
    """A recorded fact the state does not hold (``run.claimed``)."""
    return {}, False


def _domain_event(core: Core, event: Event) -> tuple[Changes, bool]:
    changes: Changes = {"records": core.records.set(event.key, event)}
    if core.status == "failed":
        # A resumed run appends new domain events after its failure: it is running again.
        changes["status"] = "running"
        changes["failure"] = None
    return changes, True


def _run_signed(core: Core, event: RunSigned) -> tuple[Changes, bool]:
    return {}, False  # evidence about the ledger, not about the run


_CORE_STEPS: dict[type, Callable[[Core, Any], tuple[Changes, bool]]] = {
    RunStarted: _run_started,
    ModelCallRequested: _call_requested,
    ModelCallCompleted: _call_completed,
    ModelAttemptFailed: _attempt_failed,
    RunFailed: _run_failed,
    RunCompleted: _run_completed,
    RunClaimed: _unread,
    RunSigned: _run_signed,
}

update_core: Callable[[Core, Changes], Core] = updater(Core)
"""``dataclasses.replace`` for a core, changes given as a dict."""
set_core: Callable[[Core, Changes], None] = setter(Core)
"""Sets changes on a private core in place (``maai.domain.updates``)."""


def evolve_on_core(
    state: Any,
    event: Event,
    copy_state: Callable[[Any, Changes], Any],
    domain_changes: Callable[[Any, Event, bool], Changes],
) -> Any:
    """``evolve`` for a state that keeps a ``core`` beside its own fields: a copy of
    ``state`` with its core and the fields ``domain_changes(state, event, is_domain)`` gives
    changed (``fold_on_core`` does the same for many events, in place)."""
    core, is_domain = evolve_core(state.core, event)
    changes = domain_changes(state, event, is_domain)
    changes["core"] = core
    return copy_state(state, changes)


def fold_on_core(
    events: Iterable[Event],
    start: Any,
    copy_state: Callable[[Any, Changes], Any],
    set_state: Callable[[Any, Changes], None],
    domain_changes: Callable[[Any, Event, bool], Changes],
) -> Any:
    """``evolve`` over ``events`` for a state that keeps a ``core`` beside its own fields,
    from ``start``, which is left untouched: the state and its core are copied once and then
    changed in place, event by event (``maai.domain.updates``); no one sees the copies before
    the state is returned. ``domain_changes(state, event, is_domain)`` gives the fields
    besides the core that the event changes, reading the state before the event."""
    draft = copy_state(start, {})
    core = update_core(draft.core, {})
    set_state(draft, {"core": core})
    for event in events:
        core_delta, is_domain = core_changes(core, event)
        changes = domain_changes(draft, event, is_domain)
        set_core(core, core_delta)
        set_state(draft, changes)
    return draft


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
