"""The protocol audit: machine-checked rules of docs/frohlich.md §1–§7 over a run's history.

Every rule works on finished, failed and in-progress runs alike: rules about completeness
(four rounds, every ranking, every payment) apply only once the run is completed. A rule that
cannot even be evaluated on a damaged history reports that as a violation instead of
crashing the audit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from maai.domain.events import RunCompleted, RunStarted

# Importing the rule modules registers their rules, in this order.
from maai.projections.frohlich import (  # noqa: F401 -- importing registers the rules
    protocol_general,
    protocol_phase1,
    protocol_phase2,
    protocol_reference,
)
from maai.projections.frohlich.protocol_base import RULES, Audit, Rule, Violation
from maai.projections.history import History


def lifecycle(history: History) -> Iterator[Violation]:
    entries = history.entries
    for i, entry in enumerate(entries, 1):
        if entry.seq != i:
            yield Violation("lifecycle", entry.seq, f"seq {entry.seq} where {i} was due")
            break
    starts = [e for e in entries if isinstance(e.event, RunStarted)]
    if entries and not isinstance(entries[0].event, RunStarted):
        yield Violation("lifecycle", entries[0].seq, "the first event is not run.started")
    for extra in starts[1:]:
        yield Violation("lifecycle", extra.seq, "a second run.started")
    if starts and history.config is None:
        yield Violation("lifecycle", starts[0].seq, "the recorded config cannot be read")
    done = [i for i, e in enumerate(entries) if isinstance(e.event, RunCompleted)]
    if done and done[0] != len(entries) - 1:
        yield Violation("lifecycle", entries[done[0] + 1].seq, "an event after run.completed")


LIFECYCLE = Rule(
    "lifecycle",
    "§7",
    "run.started comes first and once, seqs count 1, 2, ... and nothing follows run.completed",
    lambda audit: lifecycle(audit.history),
)


def all_rules() -> list[Rule]:
    return [LIFECYCLE, *RULES]


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


def audit_protocol(history: History) -> ProtocolReport:
    config = history.config
    if config is None:
        # Without a readable config only the life cycle can be judged.
        return ProtocolReport(history.run_id, ("lifecycle",), tuple(lifecycle(history)))
    audit = Audit(history, config)
    violations: list[Violation] = []
    for rule in all_rules():
        try:
            violations += list(rule.check(audit))
        except Exception as exc:  # a damaged history must not stop the audit
            detail = f"could not be checked: {type(exc).__name__}: {exc}"
            violations.append(Violation(rule.id, None, detail))
    return ProtocolReport(history.run_id, tuple(r.id for r in all_rules()), tuple(violations))
