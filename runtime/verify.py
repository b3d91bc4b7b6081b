"""``verify``: the hash chain holds, and every recorded request and derived event is exactly
what the current code would produce at that point of the history (DESIGN.md, Verify).

A difference means the code (a prompt template, a rule, a parser) changed since the run was
recorded, or something was not deterministic; each is reported with its seq and address.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import ValidationError

from maai.canonical import canonical_json
from maai.domain import experiments
from maai.domain.calls import ModelRequest
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunClaimed,
    RunCompleted,
    RunFailed,
    RunForked,
    RunSigned,
    RunStarted,
)
from maai.domain.experiment import Experiment
from maai.domain.registry import COMMON_REGISTRY
from maai.domain.walk import Decision
from maai.ledger import ChainBrokenError, ChainReport, RunInfo, StoredEvent
from maai.ledger.chain import ChainChecker
from maai.runtime.fold import fold_decoder

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
_LARGE_BLOCKS = 32 * 1024 * 1024  # glibc's largest mmap threshold on 64-bit machines


def reuse_large_blocks() -> bool:
    """Have glibc's malloc serve blocks of up to 32 MB from its heap and keep what is freed
    there, for the rest of the process (a command that verifies and exits). A late prompt is
    a fresh string of hundreds of kB, a little longer than the last one freed: glibc's own
    threshold follows the last block freed, so each new prompt was mapped afresh and every
    page of it faulted in (a sixth of verify's time on a 32 x 40 run). Whether it was done:
    elsewhere than glibc, nothing is changed."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError):
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, _LARGE_BLOCKS) and mallopt(_M_TRIM_THRESHOLD, 2 * _LARGE_BLOCKS)
    )


# Events that record what the outside world did, not what the protocol derives.
_OBSERVED = (
    RunStarted,
    RunForked,
    ModelCallCompleted,
    ModelAttemptFailed,
    RunFailed,
    RunClaimed,
)


@dataclass(frozen=True)
class Divergence:
    seq: int
    address: str | None
    detail: str

    def describe(self) -> str:
        where = f" ({self.address})" if self.address else ""
        return f"seq {self.seq}{where}: {self.detail}"


@dataclass
class VerifyReport:
    events: int = 0
    requests: int = 0
    derived: int = 0
    divergences: list[Divergence] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.divergences


def first_difference(recorded: ModelRequest, current: ModelRequest) -> str:
    a = recorded.model_dump(mode="json")
    b = current.model_dump(mode="json")
    for key in a:
        if a[key] == b.get(key):
            continue
        if isinstance(a[key], str) and isinstance(b.get(key), str):
            old_lines, new_lines = a[key].splitlines(), b[key].splitlines()
            for i, (old, new) in enumerate(zip(old_lines, new_lines, strict=False), 1):
                if old != new:
                    return f"field '{key}' line {i}: recorded {old!r}, now {new!r}"
            return f"field '{key}': recorded {len(old_lines)} lines, now {len(new_lines)}"
        return f"field '{key}' differs"
    return "requests differ"


def experiment_of_history(
    stored: Iterable[StoredEvent],
) -> tuple[Experiment | None, Iterator[StoredEvent]]:
    """The experiment a history's first event (``run.started``) names, and the history
    again (the first event put back in front)."""
    records = iter(stored)
    first = next(records, None)
    if first is None:
        return None, iter(())
    experiment = None
    if first.type == RunStarted.TYPE:
        started = COMMON_REGISTRY.decode(first.type, first.schema_version, first.payload)
        assert isinstance(started, RunStarted)
        experiment = experiments.get(started.experiment)

    def again() -> Iterator[StoredEvent]:
        yield first
        yield from records

    return experiment, again()


RecordedRequest = Callable[[int], ModelRequest]
"""The request recorded at a seq, rebuilt whole: only needed to describe a difference."""


def verify_events(
    stored: Iterable[StoredEvent],
    experiment: Experiment | None = None,
    limit: int = 50,
    recorded_request: RecordedRequest | None = None,
) -> VerifyReport:
    """Check a run's stored events against the current code of its experiment (named by the
    caller, or by the run's first event).

    With ``recorded_request``, the events may come as ``runtime.engine.load_state`` reads
    them (``keep_packed=FOLD_KEEPS_PACKED``): a recorded request is then checked by its
    address and hash, which is all that comparing it with the current code's needs, and it
    is rebuilt whole only where it differs, to say how. Rebuilding every prompt of a long run
    is most of what reading it costs."""
    # Nearly all a walk makes is freed as soon as it is done with (no cycles: a 32 x 40 run
    # leaves a few hundred objects for the collector), while the state and the memos grow:
    # the collector would traverse them again and again for nothing (a fifth of the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _verify_events(stored, experiment, limit, recorded_request)
    finally:
        if collecting:
            gc.enable()


def _verify_events(
    stored: Iterable[StoredEvent],
    experiment: Experiment | None,
    limit: int,
    recorded_request: RecordedRequest | None,
) -> VerifyReport:
    report = VerifyReport()
    if experiment is None:
        experiment, stored = experiment_of_history(stored)
        if experiment is None:
            first = Divergence(1, None, "the run does not start with run.started")
            report.divergences.append(first)
            return report
    registry, evolve, decide = experiment.registry, experiment.evolve, experiment.decide
    decode = (
        fold_decoder(experiment)
        if recorded_request is not None
        else lambda record: registry.decode(record.type, record.schema_version, record.payload)
    )
    state: Any = experiment.initial_state()
    # One decision serves every event it accounts for. ``decide`` folds the events it derives
    # in order, so after a recorded event that it derived, deciding again would give the rest
    # of its events and the same calls; and recording a request changes nothing a protocol
    # reads. Only an observed event (an answer, a failure) needs a fresh decision. Deciding at
    # every event instead walked the protocol once per event: quadratic in the run's length.
    pending: _Pending | None = None
    for record in stored:
        if record.type == RunSigned.TYPE:
            report.events += 1
            continue  # evidence about the ledger (checked with the checkpoints), not the run
        try:
            event: Event = decode(record)
        except Exception as exc:  # an edited payload: a divergence, never a traceback
            report.divergences.append(_unreadable(record, exc))
            break
        report.events += 1
        try:
            pending = _verify_one(
                report, state, pending, decide, record.seq, event, recorded_request
            )
            state = evolve(state, event)
        except Exception as exc:
            # An event no code could have recorded (an unknown agent, a missing witness):
            # the state past it cannot be trusted, so nothing after it is judged.
            address = getattr(event, "address", None) or getattr(event, "slot", None)
            detail = f"current code cannot go on from this {event.TYPE}: {_first_line(exc)}"
            report.divergences.append(Divergence(record.seq, address, detail))
            break
        if len(report.divergences) >= limit:
            break
    return report


def _first_line(exc: Exception) -> str:
    """What went wrong, in one line: a validation error names its field."""
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the payload"
        return f"{field}: {first['msg']}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _unreadable(record: StoredEvent, exc: Exception) -> Divergence:
    return Divergence(record.seq, None, f"{record.type} cannot be read: {_first_line(exc)}")


def _verify_one(
    report: VerifyReport,
    state: Any,
    pending: _Pending | None,
    decide: Callable[[Any], Decision],
    seq: int,
    event: Event,
    recorded: RecordedRequest | None,
) -> _Pending | None:
    """Check one recorded event against the current code's decision; the decision that
    still accounts for the events after it, if any."""
    if not isinstance(event, ModelCallRequested) and (
        isinstance(event, _OBSERVED) or state.started is None
    ):
        return None
    requested = isinstance(event, ModelCallRequested)
    check = partial(_check_request, recorded=recorded) if requested else _check_derived
    if requested:
        report.requests += 1
    else:
        report.derived += 1
    if pending is not None and not check(pending, seq, event, VerifyReport()):  # type: ignore[arg-type]
        pending = None  # a reused decision that does not fit: ask afresh before judging
    if pending is None:
        pending = _Pending.of(decide(state))
        if not check(pending, seq, event, report):  # type: ignore[arg-type]
            pending = None
    return pending


@dataclass
class _Pending:
    """What one decision still accounts for: its derived events not yet met, and its calls."""

    events: list[Event]
    calls: dict[str, ModelRequest]

    @classmethod
    def of(cls, decision: Decision) -> _Pending:
        return cls(list(decision.events), {c.address: c for c in decision.calls})


def _check_request(
    pending: _Pending,
    seq: int,
    event: ModelCallRequested,
    report: VerifyReport,
    recorded: RecordedRequest | None = None,
) -> bool:
    """Whether the recorded request is the one the decision makes (else a divergence)."""
    address = event.request.address
    if pending.events:
        report.divergences.append(
            Divergence(
                seq,
                address,
                f"current code would first record {pending.events[0].TYPE} "
                f"({pending.events[0].key}) before this call",
            )
        )
        return False
    current = pending.calls.get(address)
    if current is None:
        report.divergences.append(
            Divergence(seq, address, "current code would not make this call at this point")
        )
        return False
    # One hash per request: the recorded hash was computed from the request when it was made,
    # and the chain covers both, so the recorded request itself need not be hashed again.
    current_hash = current.request_hash()
    if current_hash != event.request_hash:
        whole = recorded(seq) if recorded is not None else event.request
        report.divergences.append(
            Divergence(
                seq,
                address,
                f"request differs: recorded hash {event.request_hash}, current hash "
                f"{current_hash}; {first_difference(whole, current)}",
            )
        )
        return False
    return True


def _check_derived(pending: _Pending, seq: int, event: Event, report: VerifyReport) -> bool:
    """Whether the decision derives the recorded event (else a divergence)."""
    if event in pending.events:
        pending.events.remove(event)
        return True
    same_slot = next((e for e in pending.events if e.key == event.key), None)
    if same_slot is not None:
        detail = f"current code derives a different {event.TYPE} for {event.key}"
    elif pending.events:
        detail = (
            f"recorded {event.TYPE} ({event.key}), current code would record "
            f"{pending.events[0].TYPE} ({pending.events[0].key})"
        )
    else:
        detail = f"recorded {event.TYPE} ({event.key}), which current code would not derive here"
    address = getattr(event, "address", None) or getattr(event, "slot", None)
    report.divergences.append(Divergence(seq, address, detail))
    return False


class ChainCheck:
    """The hash chain of a run checked as its events stream by: what
    ``EventStore.verify_chain`` checks (the same :class:`~ledger.chain.ChainChecker`), with
    the same report, in the one pass over the events that ``verify`` makes anyway (reading a
    long run twice cost a tenth of its time).

    Iterating gives the events ``1..head`` as long as the chain holds, and stops at the first
    event that breaks it (it is not given). ``report()`` then reads whatever the iteration
    did not (a reader may stop early) and says whether the whole chain holds."""

    def __init__(self, run_id: str, head: int, stored: Iterable[StoredEvent]) -> None:
        self.run_id = run_id
        self.head = head
        self._stored = iter(stored)
        self._chain = ChainChecker(run_id, head)
        self._ended = False

    def __iter__(self) -> Iterator[StoredEvent]:
        while self._chain.holds and not self._ended:
            record = self._next()
            if record is not None:
                yield record

    def _next(self) -> StoredEvent | None:
        """The next event if it holds to the chain; ``None`` at the head or at a break."""
        try:
            record = next(self._stored, None)
        except ChainBrokenError as exc:
            self._chain.unreadable(exc.seq, exc.reason)
            return None
        if record is None or record.seq > self.head:
            self._ended = True
            self._chain.end(partial(_last_seq, record, self._stored))
            return None
        if self._chain.add(record.seq, record.prev_hash, record.hash, record.hash_holds):
            return record
        return None

    def report(self) -> ChainReport:
        for _ in self:  # what the reader left
            pass
        return self._chain.report()


def _last_seq(first: StoredEvent | None, rest: Iterator[StoredEvent]) -> int | None:
    """The seq of the last of ``first`` and the events after it, ``None`` for none."""
    if first is None:
        return None
    last = first.seq
    for later in rest:
        last = later.seq
    return last


def check_run_row(
    info: RunInfo, stored: Iterable[StoredEvent], forked_config: dict[str, Any] | None = None
) -> list[Divergence]:
    """The ``runs`` row is a cache of the events: its experiment, config and completion must
    say what the hashed events say. Each difference is reported (the events win). A fork's
    config is the one its ``run.forked`` gives (``forked_config``)."""
    first: StoredEvent | None = None
    last: StoredEvent | None = None
    for record in stored:
        first = first or record
        last = record
    found: list[Divergence] = []
    if first is None or last is None:
        if info.status == "completed":
            found.append(
                Divergence(0, None, "the runs row says completed, but there are no events")
            )
        return found
    started = COMMON_REGISTRY.decode(first.type, first.schema_version, first.payload)
    if isinstance(started, RunStarted):
        if info.kind != started.experiment:
            found.append(
                Divergence(
                    first.seq,
                    None,
                    f"the runs row names experiment {info.kind!r}, run.started "
                    f"{started.experiment!r}",
                )
            )
        recorded, where = started.config, "run.started"
        if forked_config is not None:
            recorded, where = forked_config, "run.forked"
        if canonical_json(info.config) != canonical_json(recorded):
            found.append(
                Divergence(
                    first.seq,
                    None,
                    f"the runs row's config differs from the config in {where} "
                    f"({_first_config_difference(info.config, recorded)})",
                )
            )
    ends_completed = last.type == RunCompleted.TYPE
    if info.status == "completed" and not ends_completed:
        found.append(
            Divergence(
                last.seq,
                None,
                f"the runs row says completed, but the last event (seq {last.seq}) is "
                f"{last.type}, not run.completed",
            )
        )
    if ends_completed and info.status != "completed":
        found.append(
            Divergence(
                last.seq, None, f"the run ends with run.completed, the row says {info.status}"
            )
        )
    return found


def _first_config_difference(row: Any, recorded: Any, path: str = "") -> str:
    if isinstance(row, dict) and isinstance(recorded, dict):
        for key in sorted(set(row) | set(recorded)):
            if row.get(key) != recorded.get(key):
                return _first_config_difference(row.get(key), recorded.get(key), f"{path}{key}.")
    return f"{path.rstrip('.') or 'config'}: row {row!r}, recorded {recorded!r}"
