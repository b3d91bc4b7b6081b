"""The protocol audit: machine-checked rules of docs/frohlich.md §1–§7 over a run's history.

Every rule works on finished, failed and in-progress runs alike: rules about completeness
(four rounds, every ranking, every payment) apply only once the run is completed. A rule that
cannot even be evaluated on a damaged history reports that as a violation instead of
crashing the audit.
"""

from __future__ import annotations

from maai.projections.audit import LIFECYCLE as LIFECYCLE_TEXT
from maai.projections.audit import ProtocolReport as ProtocolReport
from maai.projections.audit import lifecycle, only_lifecycle, run_rules

# Importing the rule modules registers their rules, in this order.
from maai.projections.frohlich import (  # noqa: F401 -- importing registers the rules
    protocol_conditions,
    protocol_general,
    protocol_language,
    protocol_phase1,
    protocol_phase2,
    protocol_reference,
    protocol_shown,
    protocol_supported,
)
from maai.projections.frohlich.protocol_base import RULES, Audit, Rule
from maai.projections.history import History

LIFECYCLE = Rule("lifecycle", "§7", LIFECYCLE_TEXT, lambda audit: lifecycle(audit.history))


def all_rules() -> list[Rule]:
    return [LIFECYCLE, *RULES.rules]


def audit_protocol(history: History) -> ProtocolReport:
    config = history.config
    if config is None:
        return only_lifecycle(history)
    return run_rules(history, all_rules(), Audit(history, config))
