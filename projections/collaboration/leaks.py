"""The leak audit (docs/collaboration.md §3): no prompt of one agent contains the other's
private material, except the partner's initial belief in the decision prompt when disclosure
is on. Every recorded participant prompt (``model.requested``: system + input) is checked.

Private texts — reasoning (with each belief and with the decision) and every other
non-message part of an agent's answers — are searched for as substrings when at least
``MIN_CHARS`` long (shorter ones occur by chance). A text is excused where the prompt's
agent legitimately had it: the partner said it in a public message before the prompt, the
agent wrote it itself earlier, or it stood in one of the partner's own prompts before the
partner wrote it (words of the prompts, echoed).

Beliefs and predictions are small numbers that occur innocently in prompts (scales, points,
step numbers), so a number counts only in a sentence that names the partner and a belief:
there it must not be one of the partner's stated beliefs or predictions, unless the sentence
gives the agent's own prediction (then it must be that) or, in a decision prompt under
disclosure, the partner's initial belief. Public messages are cut out of the prompt first:
what the partner wrote in a message is public (and a rule breach, audited elsewhere).
"""

from __future__ import annotations

import re

from maai.domain.answers import AnswerRead
from maai.domain.collaboration.events import BeliefStated, DecisionMade, MessageSent
from maai.domain.config import UTILITY
from maai.domain.events import ModelCallCompleted
from maai.projections.collaboration import text
from maai.projections.collaboration.calls import site_of
from maai.projections.collaboration.facts import config_of
from maai.projections.history import History
from maai.projections.leaks import MIN_CHARS as MIN_CHARS
from maai.projections.leaks import Item, Leak, LeakReport, TextIndex, excerpt


def private_items(history: History) -> list[Item]:
    names = set(history.agent_names)
    items: list[Item] = []
    for entry in history.entries:
        event = entry.event
        found: list[tuple[str, str, str | None]] = []
        if isinstance(event, BeliefStated | DecisionMade):
            what = "reasoning" if isinstance(event, BeliefStated) else "decision reasoning"
            found.append((f"private {what}", event.agent, event.reasoning))
        elif isinstance(event, AnswerRead) and event.agent in names:
            for label, values in text.parts(text.without(event.raw_text, "message")).items():
                found += [(f"private {label}", event.agent, v) for v in values]
        for kind, owner, value in found:
            value = (value or "").strip()
            if len(value) >= MIN_CHARS:
                items.append(Item(kind, owner, value, entry.seq))
    unique = {(i.owner, i.text): i for i in reversed(items)}  # keep the first seq
    return sorted(unique.values(), key=lambda i: i.seq)


Texts = list[tuple[int, str]]  # (seq, text)


def _before(value: str, texts: Texts, seq: int) -> bool:
    return any(value in held for at, held in texts if at < seq)


def audit_leaks(history: History) -> LeakReport:
    config = config_of(history)
    items = private_items(history)
    public: Texts = [(e.seq, m.text) for e, m in history.each(MessageSent) if m.text]
    own: dict[str, Texts] = {}
    for entry, done in history.each(ModelCallCompleted):
        own.setdefault(done.agent, []).append((entry.seq, done.answer.text))
    # Held whole, unlike the other experiments' prompts: whether an item was echoed in its
    # owner's earlier prompts looks back across them, and a game has at most a few dozen.
    requests = list(history.requests())
    prompts: Texts = [(e.seq, f"{r.request.system}\n{r.request.input}") for e, r in requests]
    seen: dict[str, Texts] = {}  # each agent's own prompts
    for (_, requested), seq_prompt in zip(requests, prompts, strict=True):
        seen.setdefault(requested.request.agent, []).append(seq_prompt)
    leaks: list[Leak] = []
    checked = 0
    index = TextIndex(item.text for item in items)
    for (entry, requested), (_, prompt) in zip(requests, prompts, strict=True):
        request = requested.request
        if request.agent == UTILITY:
            continue
        checked += 1
        agent = request.agent
        present = index.found_in(prompt)
        held = public + own.get(agent, [])
        found: list[tuple[str, str | None, int | None, str]] = []
        for item in items:
            if item.owner == agent or item.text not in present:
                continue
            echoed = _before(item.text, seen.get(item.owner, []), item.seq)
            if echoed or _before(item.text, held, entry.seq):
                continue
            found.append((item.kind, item.owner, item.seq, item.text))
        partner = config.partner_of(agent) if config and agent in history.agent_names else None
        if partner is not None and config is not None:
            decision = site_of(request.address).kind == "decision"
            disclosed = decision and config.disclose_initial_belief
            body = text.blank(prompt, [t for _, t in public])
            found += _numbers(history, body, agent, partner, entry.seq, disclosed)
        leaks += [
            Leak(agent, request.address, entry.seq, kind, owner, seq, excerpt(value))
            for kind, owner, seq, value in found
        ]
    return LeakReport(history.run_id, checked, len(items), tuple(leaks))


def _numbers(
    history: History, body: str, agent: str, partner: str, seq: int, disclosed: bool
) -> list[tuple[str, str | None, int | None, str]]:
    """Partner beliefs or predictions stated in sentences that name the partner and a
    belief, where the sentence may not state them."""
    stated = [(e.seq, b) for e, b in history.each(BeliefStated) if e.seq < seq]
    theirs: dict[int, int] = {}
    for at, b in stated:
        if b.agent == partner:
            for value in (b.belief, b.prediction):
                if value is not None:
                    theirs.setdefault(value, at)
    predicted = {b.prediction for _, b in stated if b.agent == agent and b.prediction is not None}
    initial = next((b.belief for _, b in stated if b.agent == partner and b.step == 0), None)
    name = re.compile(rf"\b{re.escape(partner)}\b")
    found: list[tuple[str, str | None, int | None, str]] = []
    for sentence in text.sentences(body):
        lower = sentence.lower()
        if not (name.search(sentence) and "belief" in lower):
            continue
        allowed: set[int | None] = set()
        if "predict" in lower:
            allowed = set(predicted)
        elif "initial" in lower and disclosed:
            allowed = {initial}
        for number in sorted(text.stated_numbers(sentence) - allowed):
            if number in theirs:
                found.append(("belief or prediction", partner, theirs[number], sentence.strip()))
    return found
