"""Rules about the record itself: life cycle, model calls, answers, attempts and memory."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from maai.domain.address import CallAddress
from maai.domain.events import ModelAttemptFailed, ModelCallCompleted, ModelCallRequested
from maai.domain.frohlich import parsing
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    AnswerRejected,
    AnswerUndecided,
    MemoryUpdated,
)
from maai.domain.frohlich.purposes import Purpose
from maai.projections.audit import CALLS_PAIRED, CallsPaired
from maai.projections.frohlich.protocol_base import (
    Audit,
    EntryCheck,
    Violation,
    in_one_pass,
    rule,
)

_ELICITED: dict[str, str] = {
    Purpose.RANKING: "ranking",
    Purpose.CHOICE: "choice",
    Purpose.POLL: "poll",
    Purpose.BALLOT: "ballot",
}
_PARSES = (AnswerAccepted, AnswerRejected, AnswerUndecided)


@rule("calls_paired", "§7", CALLS_PAIRED)
def calls_paired_rule(audit: Audit) -> Iterator[Violation]:
    return audit.found_in_one_pass(_calls_paired)


@in_one_pass
def _calls_paired(audit: Audit) -> EntryCheck:
    return CallsPaired()


@rule(
    "answers_read_from_calls",
    "§5",
    "every parse result reads the recorded answer of an "
    "earlier completed call (raw text identical), the utility agent's through its own call",
)
def answers_read_from_calls(audit: Audit) -> Iterator[Violation]:
    answers: dict[str, str] = {}
    for entry, event in audit.history.each(ModelCallCompleted, *_PARSES):
        if isinstance(event, ModelCallCompleted):
            answers[event.address] = event.answer.text
        elif isinstance(event, _PARSES):
            if event.address not in answers:
                yield Violation(
                    "answers_read_from_calls",
                    entry.seq,
                    f"{event.address}: parsed before any answer was recorded",
                )
            elif answers[event.address] != event.raw_text:
                yield Violation(
                    "answers_read_from_calls",
                    entry.seq,
                    f"{event.address}: raw text differs from the recorded answer",
                )
            if event.source == "utility" and (
                event.via is None
                or event.via not in answers
                or not CallAddress.parse(event.via).extracts(event.address)
            ):
                yield Violation(
                    "answers_read_from_calls",
                    entry.seq,
                    f"{event.address}: utility result without its extraction call",
                )


def _attempt(address: str, marker: str = "/") -> int | None:
    tail = address.rsplit(marker, 1)[-1]
    return int(tail) if tail.isdigit() else None


@rule(
    "attempts_bounded",
    "§3, §5",
    "no answer is asked more often than the configured "
    "attempts, no extraction more often than the utility attempts, no call retried more "
    "often than the transport limit",
)
def attempts_bounded(audit: Audit) -> Iterator[Violation]:
    limits = audit.config.attempts
    for entry, requested in audit.history.each(ModelCallRequested):
        request = requested.request
        n = _attempt(request.address)
        if request.purpose == Purpose.EXTRACT:
            if n is not None and n > limits.utility:
                yield Violation(
                    "attempts_bounded",
                    entry.seq,
                    f"{request.address}: extraction {n} > {limits.utility}",
                )
        elif request.purpose in _ELICITED:
            limit = getattr(limits, _ELICITED[request.purpose])
            if n is not None and n > limit:
                yield Violation(
                    "attempts_bounded", entry.seq, f"{request.address}: attempt {n} > {limit}"
                )
    failures: dict[str, int] = defaultdict(int)
    for entry, failed in audit.history.each(ModelAttemptFailed):
        failures[failed.address] += 1
        if failures[failed.address] > audit.config.retry.max_attempts:
            yield Violation(
                "attempts_bounded",
                entry.seq,
                f"{failed.address}: more failed transport attempts than "
                f"{audit.config.retry.max_attempts}",
            )


@rule(
    "missing_not_defaulted",
    "§5",
    "an answer slot is settled once: accepted, or missing "
    "after exactly the configured attempts all failed — never both, never a default",
)
def missing_not_defaulted(audit: Audit) -> Iterator[Violation]:
    accepted: dict[str, int] = defaultdict(int)
    tried: dict[str, set[int]] = defaultdict(set)
    limits = audit.config.attempts
    for entry, event in audit.history.each(*_PARSES, AnswerMissing):
        if isinstance(event, _PARSES):
            tried[event.slot].add(event.attempt)
        if isinstance(event, AnswerAccepted):
            accepted[event.slot] += 1
            if accepted[event.slot] > 1:
                yield Violation(
                    "missing_not_defaulted", entry.seq, f"{event.slot}: a second accepted answer"
                )
        elif isinstance(event, AnswerMissing):
            limit = getattr(limits, event.kind)
            if accepted[event.slot]:
                yield Violation(
                    "missing_not_defaulted",
                    entry.seq,
                    f"{event.slot}: recorded missing after an accepted answer",
                )
            if event.attempts != limit or tried[event.slot] != set(range(1, limit + 1)):
                yield Violation(
                    "missing_not_defaulted",
                    entry.seq,
                    f"{event.slot}: missing after attempts "
                    f"{sorted(tried[event.slot])}, not all {limit}",
                )
    for slot in audit.missing:
        if slot in audit.accepted and audit.accepted[slot][0].seq > audit.missing[slot][0].seq:
            yield Violation(
                "missing_not_defaulted",
                audit.accepted[slot][0].seq,
                f"{slot}: accepted after being recorded missing",
            )


@rule(
    "memory_limit",
    "§5",
    "every memory is within its agent's word limit; a cut records "
    "the over-long length it was cut from",
)
def memory_limit(audit: Audit) -> Iterator[Violation]:
    seen: set[str] = set()
    for entry, event in audit.history.each(MemoryUpdated):
        if event.agent not in audit.names:
            yield Violation("memory_limit", entry.seq, f"memory of unknown agent {event.agent}")
            continue
        limit = audit.config.memory_limit(event.agent)
        words = parsing.count_words(event.memory)
        if words != event.words:
            yield Violation(
                "memory_limit", entry.seq, f"{event.slot}: {words} words recorded as {event.words}"
            )
        if words > limit:
            yield Violation("memory_limit", entry.seq, f"{event.slot}: {words} words > {limit}")
        if event.source == "cut" and not (event.words_before_cut or 0) > limit:
            yield Violation(
                "memory_limit",
                entry.seq,
                f"{event.slot}: cut from {event.words_before_cut} words, not > {limit}",
            )
        if event.slot in seen:
            yield Violation("memory_limit", entry.seq, f"{event.slot}: updated twice")
        seen.add(event.slot)
