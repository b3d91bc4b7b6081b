"""The collaboration game's protocol audit: machine-checked rules over a run's history.

Every rule works on finished, failed and in-progress runs alike; rules about completeness
apply once the game has ended. A rule that cannot be evaluated on a damaged history reports
that as a violation instead of crashing the audit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# Importing the rule modules registers their rules, in this order.
from maai.projections.collaboration import (  # noqa: F401
    audit_answers,
    audit_order,
    audit_points,
    audit_prompts,
    audit_record,
)
from maai.projections.collaboration.audit_base import RULES, Audit, Rule, Violation
from maai.projections.collaboration.facts import config_of
from maai.projections.history import History

_ORDER = (
    "lifecycle",
    "calls_paired",
    "answers_read_from_calls",
    "attempts_bounded",
    "step_order",
    "answers_supported",
    "message_breaches",
    "strategies_derived",
    "payoff",
    "outcome",
    "lottery_partner",
    "u_star",
    "u_value_hidden",
    "conversation_shown",
    "partner_initial_shown",
    "belief_so_far",
)


def all_rules() -> list[Rule]:
    by_id = {r.id: r for r in RULES}
    return [by_id[i] for i in _ORDER if i in by_id] + [r for r in RULES if r.id not in _ORDER]


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
    config = config_of(history)
    if config is None:
        # Without a readable config only the life cycle can be judged.
        found = tuple(audit_record.lifecycle(history))
        return ProtocolReport(history.run_id, ("lifecycle",), found)
    audit = Audit(history, config)
    violations: list[Violation] = []
    rules = all_rules()
    for rule in rules:
        try:
            violations += list(rule.check(audit))
        except Exception as exc:  # a damaged history must not stop the audit
            detail = f"could not be checked: {type(exc).__name__}: {exc}"
            violations.append(Violation(rule.id, None, detail))
    return ProtocolReport(history.run_id, tuple(r.id for r in rules), tuple(violations))
