"""What every experiment's protocol audit is made of: rules and their violations, the
report, and the rules about the record itself that hold for any experiment (the life cycle of
a run, model calls paired with their requests).

An experiment registers its own rules in a :class:`Rules` of its own; ``run_rules`` applies
them. Every rule works on finished, failed and in-progress runs alike; a rule that cannot be
evaluated on a damaged history reports that as a violation instead of crashing the audit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Generic, TypeVar

from maai.canonical import Memo
from maai.domain.events import (
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunCompleted,
    RunStarted,
)
from maai.projections.history import Entry, History
from maai.projections.request_hashes import recorded_request_hash_v2


@dataclass(frozen=True)
class Violation:
    rule: str
    seq: int | None
    detail: str


Check = Callable[[Any], Iterator[Violation]]


@dataclass(frozen=True)
class Rule:
    id: str
    spec: str
    description: str
    check: Check


class Rules:
    """An experiment's rules, in the order they are registered."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []

    def rule(self, id: str, spec: str, description: str) -> Callable[[Check], Check]:
        """Register a rule; its check yields one violation per breach it finds."""

        def register(check: Check) -> Check:
            self.rules.append(Rule(id, spec, description, check))
            return check

        return register


@dataclass(frozen=True)
class ProtocolReport:
    run_id: str
    rules_checked: tuple[str, ...]
    violations: tuple[Violation, ...]

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "rules_checked": list(self.rules_checked),
            "violations": [asdict(v) for v in self.violations],
        }


def run_rules(history: History, rules: Sequence[Rule], audit: Any) -> ProtocolReport:
    violations: list[Violation] = []
    for rule in rules:
        try:
            violations += list(rule.check(audit))
        except Exception as exc:  # a damaged history must not stop the audit
            detail = f"could not be checked: {type(exc).__name__}: {exc}"
            violations.append(Violation(rule.id, None, detail))
    return ProtocolReport(history.run_id, tuple(r.id for r in rules), tuple(violations))


def only_lifecycle(history: History) -> ProtocolReport:
    """Without a readable config only the life cycle can be judged."""
    return ProtocolReport(history.run_id, ("lifecycle",), tuple(lifecycle(history)))


C = TypeVar("C")


@dataclass(frozen=True)
class ConfiguredAudit(Generic[C]):
    """What an experiment's rules read: the run's history and its config (an experiment
    whose rules need more subclasses it)."""

    history: History
    config: C


def add_record_rules(rules: Rules, spec: str) -> None:
    """Register the rules about the record that hold for any experiment (:data:`LIFECYCLE`,
    :data:`CALLS_PAIRED`), checked on the audit's ``history``, under ``spec``."""
    rules.rule("lifecycle", spec, LIFECYCLE)(_lifecycle_of)
    rules.rule("calls_paired", spec, CALLS_PAIRED)(_calls_paired_of)


def _lifecycle_of(audit: Any) -> Iterator[Violation]:
    return lifecycle(audit.history)


def _calls_paired_of(audit: Any) -> Iterator[Violation]:
    return calls_paired(audit.history)


def audit_configured(
    history: History,
    rules: Rules,
    config_type: type[C],
    make_audit: Callable[[History, C], Any] = ConfiguredAudit,
) -> ProtocolReport:
    """An experiment's protocol audit: its ``rules`` in order over a run whose config is a
    ``config_type`` (each rule reads ``make_audit(history, config)``); the life cycle alone
    where the config cannot be read."""
    config = history.config
    if not isinstance(config, config_type):
        return only_lifecycle(history)
    return run_rules(history, rules.rules, make_audit(history, config))


LIFECYCLE = (
    "run.started comes first and once, seqs count 1, 2, ... and nothing follows run.completed"
)


def lifecycle(history: History) -> Iterator[Violation]:
    entries = history.entries
    # Seqs and positions first, which a history read from a store gives without decoding.
    for i, seq in enumerate(history.seqs(), 1):
        if seq != i:
            yield Violation("lifecycle", seq, f"seq {seq} where {i} was due")
            break
    starts = [e for e, _ in history.each(RunStarted)]
    if entries and not isinstance(entries[0].event, RunStarted):
        yield Violation("lifecycle", entries[0].seq, "the first event is not run.started")
    for extra in starts[1:]:
        yield Violation("lifecycle", extra.seq, "a second run.started")
    if starts and history.config is None:
        yield Violation("lifecycle", starts[0].seq, "the recorded config cannot be read")
    done = history.positions(RunCompleted)
    if done and done[0] != len(entries) - 1:
        yield Violation("lifecycle", entries[done[0] + 1].seq, "an event after run.completed")


CALLS_PAIRED = (
    "every model.completed follows a model.requested with the same address, agent and request "
    "hash, each recorded hash is the hash of its request, and a request is attempt 1, or 2 "
    "when a resumed run asks again a call that never answered"
)


def calls_paired(history: History) -> Iterator[Violation]:
    check = CallsPaired()
    for entry in history.stream():  # every request whole, one at a time
        yield from check(entry)


class CallsPaired:
    """``calls_paired`` one event at a time, in seq order (an audit may apply it in a read of
    the run that it shares with other rules)."""

    def __init__(self) -> None:
        self.requested: dict[str, str] = {}
        self.agents: dict[str, str] = {}
        self.completed: set[str] = set()
        self.memo: Memo = {}  # requests rebuilt from the ledger share their history items

    def __call__(self, entry: Entry) -> Iterator[Violation]:
        event = entry.event
        requested, completed = self.requested, self.completed
        if isinstance(event, ModelCallRequested):
            request = event.request
            recomputed = (
                request.request_hash(self.memo)
                if request.hash_cuts is None
                else recorded_request_hash_v2(request)  # code of its own: see the module
            )
            if recomputed != event.request_hash:
                detail = f"{event.request.address}: recorded hash is not the request's"
                yield Violation("calls_paired", entry.seq, detail)
            address = request.address
            due = 2 if address in requested else 1
            if event.attempt != due:
                detail = f"{address}: attempt {event.attempt} where {due} was due"
                yield Violation("calls_paired", entry.seq, detail)
            requested[address] = event.request_hash
            self.agents[address] = request.agent
        elif isinstance(event, ModelCallCompleted):
            if event.address not in requested:
                detail = f"{event.address}: completed without a request"
                yield Violation("calls_paired", entry.seq, detail)
            elif requested[event.address] != event.request_hash:
                detail = f"{event.address}: answer is for another request hash"
                yield Violation("calls_paired", entry.seq, detail)
            elif self.agents[event.address] != event.agent:
                detail = f"{event.address}: answered by {event.agent!r}, asked of another agent"
                yield Violation("calls_paired", entry.seq, detail)
            if event.address in completed:
                yield Violation("calls_paired", entry.seq, f"{event.address}: completed twice")
            completed.add(event.address)
        elif isinstance(event, ModelAttemptFailed) and event.address not in requested:
            detail = f"{event.address}: failed attempt without a request"
            yield Violation("calls_paired", entry.seq, detail)
