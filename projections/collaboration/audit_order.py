"""The order of the game (docs/collaboration.md §2): initial beliefs (agent 1 also writes
message 1), then turns 2 … 2n alternating agent 2, agent 1, … (each reads the last message,
updates its belief and replies), agent 1's update 2n+1, the decisions, the points, the end.
The baseline: the initial belief, the decision, the lottery draw, the points."""

from __future__ import annotations

from collections.abc import Iterator

from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    GameEnded,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.events import Event
from maai.projections.collaboration.audit_base import Audit, Violation, rule

_BELIEF_KINDS = ("initial", "turn", "update")


def _place(audit: Audit, event: Event) -> tuple[int | None, str | None]:
    """(stage, the agent who must own the event; None: anyone of the run's agents). A stage
    of None: the event has no place in this game."""
    last = audit.last_step
    if audit.baseline:
        stages: dict[type, int] = {DecisionMade: 1, PartnerDrawn: 2, PointsAwarded: 3, GameEnded: 4}
        if isinstance(event, BeliefStated):
            return (0, None) if event.step == 0 else (None, None)
        return stages.get(type(event)), None
    if isinstance(event, BeliefStated):
        if event.step == 0:
            return 0, None
        return (event.step, audit.writer(event.step)) if 2 <= event.step <= last else (None, None)
    if isinstance(event, MessageSent):
        if not 1 <= event.index <= last - 1:
            return None, None
        return (0 if event.index == 1 else event.index), audit.writer(event.index)
    stages = {DecisionMade: last + 1, PointsAwarded: last + 2, GameEnded: last + 3}
    return stages.get(type(event)), None


@rule(
    "step_order",
    "docs/collaboration.md §2",
    "initial beliefs, then messages 1 … 2n alternating agent 1 / agent 2 starting with agent "
    "1, each turn's belief update by the agent whose turn it is, agent 1's final update, then "
    "the decisions, then the points and the end; nothing twice, nothing left out",
)
def step_order(audit: Audit) -> Iterator[Violation]:
    kinds = (BeliefStated, MessageSent, DecisionMade, PartnerDrawn, PointsAwarded, GameEnded)
    stage_now, seen = -1, set[str]()
    for entry, event in audit.history.each(*kinds):
        stage, owner = _place(audit, event)
        agent = getattr(event, "agent", None)
        if stage is None:
            yield Violation("step_order", entry.seq, f"{event.key}: no such step in this game")
            continue
        if agent is not None and agent not in audit.names:
            yield Violation("step_order", entry.seq, f"{event.key}: {agent} is not an agent")
        elif owner is not None and agent != owner:
            yield Violation("step_order", entry.seq, f"{event.key}: by {agent}, due from {owner}")
        if stage < stage_now:
            yield Violation("step_order", entry.seq, f"{event.key}: recorded out of order")
        if event.key in seen:
            yield Violation("step_order", entry.seq, f"{event.key}: recorded twice")
        stage_now, seen = max(stage, stage_now), seen | {event.key}
    yield from _complete(audit, seen)
    yield from _requests(audit)


def _complete(audit: Audit, seen: set[str]) -> Iterator[Violation]:
    ended = audit.history.of(GameEnded)
    if not ended:
        return
    at = ended[0][0].seq
    want = 1 if audit.baseline else audit.config.exchanges + 1
    for agent in audit.names:
        stated = sum(1 for _, b in audit.beliefs if b.agent == agent)
        lost = sum(1 for _, m in audit.missing if m.agent == agent and m.kind in _BELIEF_KINDS)
        if stated + lost != want:
            detail = f"{agent}: {stated} belief(s) and {lost} missing where {want} are due"
            yield Violation("step_order", at, detail)
        if f"decision/{agent}" not in seen:
            yield Violation("step_order", at, f"the game ended without {agent}'s decision")
    if not audit.baseline:
        for index in range(1, audit.last_step):
            if f"message/{index}" not in seen:
                yield Violation("step_order", at, f"the game ended without message {index}")


def _requests(audit: Audit) -> Iterator[Violation]:
    sent = {m.index: e.seq for e, m in audit.messages}
    stage_seqs: dict[int, int] = {}
    for entry, event in audit.history.each(BeliefStated, MessageSent):
        stage, _ = _place(audit, event)
        if stage is not None:
            stage_seqs.setdefault(stage, entry.seq)
    last = audit.last_step
    for prompt in audit.prompts:
        seq, address = prompt.entry.seq, prompt.request.address
        if prompt.kind not in ("turn", "update"):
            continue
        step = prompt.step or 0
        if audit.baseline or not 2 <= step <= last:
            yield Violation("step_order", seq, f"{address}: no turn {step} in this game")
            continue
        if prompt.agent != audit.writer(step):
            detail = f"{address}: turn {step} asked of {prompt.agent}, due {audit.writer(step)}"
            yield Violation("step_order", seq, detail)
        purpose = "update" if step == last else "turn"
        if prompt.request.purpose != purpose:
            detail = f"{address}: purpose {prompt.request.purpose}, due {purpose}"
            yield Violation("step_order", seq, detail)
        if sent.get(step - 1, seq + 1) > seq:
            yield Violation("step_order", seq, f"{address}: asked before message {step - 1}")
        if stage_seqs.get(step, seq + 1) < seq:
            yield Violation("step_order", seq, f"{address}: asked after turn {step} was recorded")
