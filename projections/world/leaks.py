"""The world's leak audit (docs/world.md §4, information sets): no prompt of one agent holds
another's private bio (with its priming), directives or plans (every plan it made: current,
queued behind the current one, or ended). Every recorded participant prompt (system + input)
is checked; not the texts sent to be embedded, which no agent reads. A text is searched for
only when at least ``MIN_CHARS`` long, and not where the prompt's own agent has the same text
as its own (two players may share a plan's wording), nor where it lies in what the agent
heard said (or said) before the prompt (a speech its prompt quotes, "Bob said to Carla:
..."): an agent may tell others its plan or its secret, and then it is no leak to those who
heard it. Another's private text anywhere else in the prompt is one."""

from __future__ import annotations

from maai.domain.config import UTILITY
from maai.domain.embeddings import EMBEDDER
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import ActionResolved, PlanChanged
from maai.projections.history import History
from maai.projections.leaks import (
    MIN_CHARS,
    FirstHeld,
    Item,
    Leak,
    LeakReport,
    TextIndex,
    excerpt,
)


def private_items(history: History, config: WorldConfig) -> list[Item]:
    items: list[Item] = []
    for a in config.world.agents:
        for kind, text in (("private bio", a.private_bio), ("priming", a.priming)):
            items.append(Item(kind, a.name, text.strip(), 1))
        items += [Item("directive", a.name, d.strip(), 1) for d in a.directives]
    for entry, e in history.each(PlanChanged):
        items.append(Item("plan", e.agent, e.description.strip(), entry.seq))
    return [i for i in items if len(i.text) >= MIN_CHARS]


def audit_leaks(history: History) -> LeakReport:
    config = history.config
    if not isinstance(config, WorldConfig):
        return LeakReport(history.run_id, 0, 0, ())
    items = private_items(history, config)
    own: dict[str, set[str]] = {}
    for i in items:
        own.setdefault(i.owner, set()).add(i.text)
    index = TextIndex(i.text for i in items)
    heard: dict[str, list[tuple[int, str]]] = {}  # what each agent said or heard said
    for entry, action in history.each(ActionResolved):
        if action.kind == "speak" and action.outcome == "applied" and action.text:
            for name in {action.agent, *action.witnesses}:
                heard.setdefault(name, []).append((entry.seq, action.text))
    spoken = {name: FirstHeld(texts) for name, texts in heard.items()}
    leaks: list[Leak] = []
    checked = 0
    for entry, e in history.requests():  # one prompt at a time
        request = e.request
        # Neither is an agent: the utility agent reads one agent's answer for that agent, and
        # the embedder receives the texts the agents' retrieval ranks, not a prompt.
        if request.agent in (UTILITY, EMBEDDER):
            continue
        checked += 1
        found = index.found_in(f"{request.system}\n{request.input}")
        for item in items:
            if item.text not in found or item.owner == request.agent:
                continue
            if item.text in own.get(request.agent, set()):
                continue
            if request.agent in spoken and spoken[request.agent].before(item.text, entry.seq):
                continue
            leaks.append(
                Leak(
                    agent=request.agent,
                    address=request.address,
                    prompt_seq=entry.seq,
                    kind=item.kind,
                    owner=item.owner,
                    item_seq=item.seq,
                    excerpt=excerpt(item.text),
                )
            )
    return LeakReport(history.run_id, checked, len(items), tuple(leaks))
