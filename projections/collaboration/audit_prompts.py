"""Who saw what (docs/collaboration.md §3), read from every recorded participant prompt
(``model.requested``: system and input text): the u-value only at the decision, the whole
conversation so far and nothing later, the partner's initial belief at the decision iff
disclosure is on, and each stated "belief so far" equal to the agent's recorded belief."""

from __future__ import annotations

import re
from collections.abc import Iterator

from maai.projections.collaboration import text
from maai.projections.collaboration.audit_base import Audit, Prompt, Violation, rule

_U_WORDS = re.compile(r"u-value|threshold", re.IGNORECASE)
_SO_FAR = re.compile(r"your belief so far: (\d+|not stated)", re.IGNORECASE)
_INITIAL = re.compile(r"your initial belief: (\d+|not stated)", re.IGNORECASE)
_LATEST = re.compile(r"your latest belief: (\d+|not stated)", re.IGNORECASE)
_PREDICTION = re.compile(
    r"your (?:previous|latest) prediction of [^\n:]{1,80}?belief: (\d+)", re.IGNORECASE
)
MIN_LATER = 12  # later messages shorter than this may occur in a prompt by chance


def _public(audit: Audit) -> list[str]:
    return [m.text for _, m in audit.messages if m.text]


def _code_text(prompt: Prompt, public: list[str]) -> str:
    """The prompt as the code wrote it: what the agents said (the messages) and the feedback,
    which may quote the agent's own rejected answer, blanked out."""
    feedback = prompt.request.context.get("feedback")
    return text.blank(prompt.text, [*public, feedback if isinstance(feedback, str) else ""])


def _u(value: float) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d.]){re.escape(f'{value:g}')}(?!\d)")


@rule(
    "u_value_hidden",
    "docs/collaboration.md §1",
    "no prompt before the decision mentions a u-value or threshold or states the agent's u; "
    "the decision prompt states the agent's own u; no prompt states another agent's u",
)
def u_value_hidden(audit: Audit) -> Iterator[Violation]:
    public = _public(audit)
    for prompt in audit.prompts:
        if prompt.agent not in audit.names:
            continue
        body = _code_text(prompt, public)
        own = audit.config.agent(prompt.agent).u_value
        seq, address = prompt.entry.seq, prompt.request.address
        if prompt.kind == "decision":
            if not (_U_WORDS.search(body) and _u(own).search(body)):
                yield Violation("u_value_hidden", seq, f"{address}: does not state u = {own:g}")
        elif _U_WORDS.search(body) or (text.decimal(own) and _u(own).search(body)):
            yield Violation("u_value_hidden", seq, f"{address}: shows the u-value before deciding")
        for other in audit.config.agents:
            secret = other.name != prompt.agent and other.u_value != own
            if secret and text.decimal(other.u_value) and _u(other.u_value).search(body):
                detail = f"{address}: states {other.name}'s u = {other.u_value:g}"
                yield Violation("u_value_hidden", seq, detail)


def _shown_indices(audit: Audit, prompt: Prompt) -> list[int]:
    if audit.baseline or prompt.kind in (None, "initial"):
        return []
    if prompt.kind == "turn":
        return list(range(1, prompt.step or 1))
    return list(range(1, audit.last_step))


@rule(
    "conversation_shown",
    "docs/collaboration.md §3",
    "a turn prompt shows every earlier message, in order, and no later one; the final update "
    "and the decision show the whole conversation; initial prompts show none",
)
def conversation_shown(audit: Audit) -> Iterator[Violation]:
    recorded = {m.index: (e.seq, m.text) for e, m in audit.messages}
    for prompt in audit.prompts:
        seq, address = prompt.entry.seq, prompt.request.address
        indices = _shown_indices(audit, prompt)
        shown: list[str] = []
        at = 0
        for index in indices:
            found = recorded.get(index)
            if found is None or found[0] > seq:
                yield Violation(
                    "conversation_shown", seq, f"{address}: message {index} not sent yet"
                )
                continue
            message = found[1]
            if message is None:
                continue
            shown.append(message)
            position = prompt.text.find(message, at)
            if position >= 0:
                at = position + len(message)
            elif message in prompt.text:
                yield Violation(
                    "conversation_shown", seq, f"{address}: message {index} out of order"
                )
            else:
                yield Violation("conversation_shown", seq, f"{address}: message {index} not shown")
        for index, (_, message) in sorted(recorded.items()):
            if index in indices or not message or len(message) < MIN_LATER:
                continue
            if any(message in earlier for earlier in shown):
                continue
            if message in prompt.text:
                yield Violation("conversation_shown", seq, f"{address}: shows message {index}")


@rule(
    "partner_initial_shown",
    "docs/collaboration.md §3",
    "the decision prompt states the partner's initial belief (its recorded value) when "
    "disclose_initial_belief is on, and no initial belief of the partner when it is off",
)
def partner_initial_shown(audit: Audit) -> Iterator[Violation]:
    public = _public(audit)
    for prompt in audit.prompts:
        partner = audit.partner(prompt.agent)
        if prompt.kind != "decision" or partner is None:
            continue
        initial, _, _ = audit.latest(partner, prompt.entry.seq)
        name = re.compile(rf"\b{re.escape(partner)}\b")
        stated: set[int] = set()
        for sentence in text.sentences(_code_text(prompt, public)):
            lower = sentence.lower()
            if name.search(sentence) and "initial" in lower and "belief" in lower:
                stated |= text.stated_numbers(sentence)
        due = {initial} if audit.config.disclose_initial_belief and initial is not None else set()
        if stated != due:
            detail = (
                f"{prompt.request.address}: states {partner}'s initial belief as "
                f"{sorted(stated) or 'nothing'}, due {sorted(due) or 'nothing'}"
            )
            yield Violation("partner_initial_shown", prompt.entry.seq, detail)


def _want(value: int | None) -> list[str]:
    return ["not stated" if value is None else str(value)]


@rule(
    "belief_so_far",
    "docs/collaboration.md §2",
    "each turn prompt states the agent's latest recorded belief ('belief so far') and its "
    "previous prediction; the decision prompt its initial and latest belief and latest "
    "prediction, as recorded before the prompt",
)
def belief_so_far(audit: Audit) -> Iterator[Violation]:
    public = _public(audit)
    for prompt in audit.prompts:
        if prompt.kind not in ("turn", "update", "decision"):
            continue
        body = _code_text(prompt, public)
        initial, latest, prediction = audit.latest(prompt.agent, prompt.entry.seq)
        checks = [(_PREDICTION, [] if prediction is None else [str(prediction)], "prediction")]
        if prompt.kind == "decision":
            checks += [(_INITIAL, _want(initial), "initial belief")]
            checks += [(_LATEST, _want(latest), "latest belief")]
        else:
            checks += [(_SO_FAR, _want(latest), "belief so far")]
        for pattern, want, what in checks:
            got = [m.group(1).lower() for m in pattern.finditer(body)]
            if got != want:
                detail = f"{prompt.request.address}: {what} stated {got}, recorded {want}"
                yield Violation("belief_so_far", prompt.entry.seq, detail)
