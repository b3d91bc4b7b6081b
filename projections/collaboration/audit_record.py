"""Rules about the record itself: life cycle, model calls, answers read from them, and the
attempts allowed (docs/collaboration.md §2)."""

from __future__ import annotations

from collections.abc import Iterator

from maai.domain.address import CallAddress
from maai.domain.answers import AnswerRead
from maai.domain.config import UTILITY
from maai.domain.events import (
    ModelCallCompleted,
    ModelCallRequested,
)
from maai.projections.audit import add_record_rules
from maai.projections.collaboration.audit_base import RULES, Audit, Violation, rule
from maai.projections.collaboration.calls import site_of

add_record_rules(RULES, "docs/collaboration.md §2")


@rule(
    "answers_read_from_calls",
    "docs/collaboration.md §2",
    "every answer reading quotes the recorded answer of an earlier completed call of the same "
    "agent (raw text identical), the utility agent's through its own completed call",
)
def answers_read_from_calls(audit: Audit) -> Iterator[Violation]:
    answers: dict[str, tuple[str, str]] = {}  # address -> (agent, text)
    for entry in audit.history.entries:
        event = entry.event
        if isinstance(event, ModelCallCompleted):
            answers[event.address] = (event.agent, event.answer.text)
        elif isinstance(event, AnswerRead):
            found = answers.get(event.address)
            if found is None:
                detail = f"{event.slot}: reads {event.address}, which has no answer yet"
                yield Violation("answers_read_from_calls", entry.seq, detail)
            elif found[1] != event.raw_text or found[0] != event.agent:
                detail = f"{event.slot}: raw text is not {event.agent}'s answer at {event.address}"
                yield Violation("answers_read_from_calls", entry.seq, detail)
            if event.source == "utility" and (event.via is None or event.via not in answers):
                detail = f"{event.slot}: read by the utility agent without its completed call"
                yield Violation("answers_read_from_calls", entry.seq, detail)


def _bound(audit: Audit, kind: str | None, agent: str | None) -> int | None:
    attempts = audit.config.attempts
    if kind == "initial":
        writes = not audit.baseline and agent == audit.names[0]
        return attempts.message if writes else attempts.belief
    return {"turn": attempts.message, "update": attempts.belief, "decision": attempts.decision}.get(
        kind or ""
    )


@rule(
    "attempts_bounded",
    "docs/collaboration.md §2",
    "no answer is asked for more often than the config allows (message, belief, decision, "
    "utility attempts), and an answer is recorded missing only after every allowed attempt",
)
def attempts_bounded(audit: Audit) -> Iterator[Violation]:
    asked: dict[tuple[str | None, str, int | None], set[int]] = {}
    for prompt in audit.prompts:
        bound = _bound(audit, prompt.kind, prompt.agent)
        if bound is None or prompt.attempt is None:
            detail = f"{prompt.request.address}: not an address of the protocol"
            yield Violation("attempts_bounded", prompt.entry.seq, detail)
            continue
        if prompt.attempt > bound:
            detail = f"{prompt.request.address}: attempt {prompt.attempt} of at most {bound}"
            yield Violation("attempts_bounded", prompt.entry.seq, detail)
        asked.setdefault((prompt.kind, prompt.agent, prompt.step), set()).add(prompt.attempt)
    for entry, event in audit.history.each(ModelCallRequested):
        address = CallAddress.parse(event.request.address)
        if (
            event.request.agent == UTILITY
            and (address.extract or 0) > audit.config.attempts.utility
        ):
            detail = f"{address.text}: extraction beyond {audit.config.attempts.utility}"
            yield Violation("attempts_bounded", entry.seq, detail)
    for entry, missing in audit.missing:
        site = site_of(f"{missing.slot}/1")
        kind = "update" if site.kind == "turn" and site.step == audit.last_step else site.kind
        bound = _bound(audit, kind, site.agent)
        tried = asked.get((kind, site.agent or "", site.step), set())
        if bound is None or missing.attempts != bound or tried != set(range(1, bound + 1)):
            detail = (
                f"{missing.slot}: missing after {missing.attempts} attempt(s), asked "
                f"{sorted(tried)}, allowed {bound}"
            )
            yield Violation("attempts_bounded", entry.seq, detail)
