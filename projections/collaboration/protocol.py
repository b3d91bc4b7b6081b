"""The collaboration game's protocol audit: machine-checked rules over a run's history.

Every rule works on finished, failed and in-progress runs alike; rules about completeness
apply once the game has ended. A rule that cannot be evaluated on a damaged history reports
that as a violation instead of crashing the audit.
"""

from __future__ import annotations

from maai.projections.audit import ProtocolReport as ProtocolReport
from maai.projections.audit import only_lifecycle, run_rules

# Importing the rule modules registers their rules, in this order.
from maai.projections.collaboration import (  # noqa: F401
    audit_answers,
    audit_order,
    audit_points,
    audit_prompts,
    audit_record,
)
from maai.projections.collaboration.audit_base import RULES, Audit, Rule
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
    rules = RULES.rules
    by_id = {r.id: r for r in rules}
    return [by_id[i] for i in _ORDER if i in by_id] + [r for r in rules if r.id not in _ORDER]


def audit_protocol(history: History) -> ProtocolReport:
    config = config_of(history)
    if config is None:
        return only_lifecycle(history)
    return run_rules(history, all_rules(), Audit(history, config))
