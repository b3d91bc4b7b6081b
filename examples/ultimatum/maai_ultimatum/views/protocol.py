"""The game's protocol audit: the life cycle and call pairing every run keeps, then the
game's rules, recomputed from the accepted answers' raw texts by code of its own (it shares
nothing with the domain's parser or payoff rule)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from maai.domain.answers import AnswerAccepted
from maai.projections import audit as audits
from maai.projections.audit import ProtocolReport, Rule, Violation
from maai.projections.history import History

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet

Audit = audits.ConfiguredAudit[UltimatumConfig]
RULES = audits.Rules()
audits.add_record_rules(RULES, "maai")

_NUMBER = re.compile(r"offer\s*:\s*\**\s*(\d+)", re.IGNORECASE)


@RULES.rule("offer_as_written", "README", "the recorded offer is the number the proposer wrote")
def offer_as_written(audit: Audit) -> Iterator[Violation]:
    history = audit.history
    accepted = [e for _, e in history.each(AnswerAccepted) if e.kind == "offer"]
    for entry, offer in history.each(OfferMade):
        written = {int(n) for a in accepted for n in _NUMBER.findall(a.raw_text)}
        if offer.amount is not None and written != {offer.amount}:
            yield Violation(
                "offer_as_written", entry.seq, f"{offer.amount} recorded, {written} written"
            )


@RULES.rule("payoffs", "README", "accepted: the pie split as offered; otherwise nothing for both")
def payoffs(audit: Audit) -> Iterator[Violation]:
    history, config = audit.history, audit.config
    offers = [e.amount for _, e in history.each(OfferMade)]
    answers = [e for _, e in history.each(AnswerAccepted) if e.kind == "response"]
    for entry, event in history.each(PayoffsSet):
        said = answers[-1].raw_text.upper() if answers else ""
        if offers and offers[0] is not None and "ACCEPT" in said and "REJECT" not in said:
            due = {config.proposer: config.pie - offers[0], config.responder: offers[0]}
        else:
            due = {config.proposer: 0, config.responder: 0}
        if event.payoffs != due:
            yield Violation("payoffs", entry.seq, f"{event.payoffs} recorded, {due} due")


def all_rules() -> list[Rule]:
    return list(RULES.rules)


def audit_protocol(history: History) -> ProtocolReport:
    return audits.audit_configured(history, RULES, UltimatumConfig)
