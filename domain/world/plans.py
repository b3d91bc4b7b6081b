"""An agent's plans as a queue (docs/world.md §4), the current plan first.

A planning answer gives up to ``max_plans`` plans, queued in order at the end of the queue
(the first is current when there was none); with ``postpone`` they go first instead, and the
current plan resumes after them. When the current plan ends (done, failed, cancelled or
expired) the next one becomes current (``promoted``), and its max ticks count from then.
Pure: returns the events, in order; each is applied to a working copy of the queue with the
reducer's own rule (``state.requeue``), so the next is numbered and placed as the queue then
stands.

Before plan lists (``max_plans: null``, and the runs recorded then, which must derive the
same events) an answer gave one plan, and nothing of the queue was recorded: no place, no
number, no promotion; the next plan simply came first."""

from __future__ import annotations

from typing import Any, Literal

from maai.domain.world.events import PlanChanged
from maai.domain.world.state import State, requeue

Ending = Literal["cancelled", "done", "failed", "expired"]


class PlanChanges:
    """The plan changes of one agent in the current tick."""

    def __init__(self, state: State, agent: str) -> None:
        config = state.config
        assert config is not None
        self.default_max_ticks = config.plan_max_ticks
        self.lists = config.plan_lists
        self.tick = state.tick
        self.agent = agent
        self.queue = state.plans.get(agent, ())
        self.next_index = state.plan_changes.get(agent, 0)
        self.events: list[PlanChanged] = []

    @property
    def current(self) -> PlanChanged | None:
        return self.queue[0] if self.queue else None

    def add(self, plans: list[dict[str, Any]], *, first: bool) -> None:
        """Queue ``plans`` in order: at the end, or (``first``: postponing the current plan)
        before everything else."""
        start = 0 if first else len(self.queue)
        for offset, plan in enumerate(plans):
            queued = {"place": start + offset, "plan": self.next_index} if self.lists else {}
            self._record(
                status="postponed" if first else "set",
                location=plan["location"],
                description=plan["description"],
                stop_condition=plan.get("stop_condition") or "",
                max_ticks=plan.get("max_ticks") or self.default_max_ticks,
                **queued,
            )

    def end(self, status: Ending) -> list[PlanChanged]:
        """End the current plan; the next in the queue, if any, becomes current. Returns the
        events this added."""
        ended = self.current
        assert ended is not None, "no current plan to end"
        before = len(self.events)
        self._record(status=status, **self._same_plan(ended))
        following = self.current
        if following is not None and self.lists:
            self._record(status="promoted", **self._same_plan(following))
        return self.events[before:]

    def _record(self, **fields: Any) -> None:
        event = PlanChanged(tick=self.tick, agent=self.agent, index=self.next_index, **fields)
        self.events.append(event)
        self.queue = requeue(self.queue, event)
        self.next_index += 1

    def _same_plan(self, plan: PlanChanged) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "location": plan.location,
            "description": plan.description,
            "stop_condition": plan.stop_condition,
            "max_ticks": plan.max_ticks,
        }
        if self.lists:
            fields["plan"] = plan.index if plan.plan is None else plan.plan
        return fields


def answered(state: State, agent: str, value: dict[str, Any]) -> PlanChanges:
    """The plan changes an answer asks for (§4, stages 3–4), in order: ``cancel`` ends the
    current plan (the next one, if any, becomes current); the answer's plans are queued, first
    with ``postpone``, else at the end; then ``done`` or ``failed`` ends the plan current by
    then (callers add that with ``end``, once the action is applied)."""
    changes = PlanChanges(state, agent)
    react = value.get("react", "continue")
    single = value.get("plan")  # read before plan lists
    plans: list[dict[str, Any]] = value.get("plans") or ([single] if single else [])
    if react == "cancel" and changes.current is not None:
        changes.end("cancelled")
    if plans:
        changes.add(plans, first=react == "postpone" and changes.current is not None)
    return changes


def expired(state: State) -> list[PlanChanged]:
    """Plans whose max ticks are spent at the end of this tick (enforced by code, §4), each
    followed by the promotion of the next queued plan. A plan lasts ``max_ticks`` ticks from
    the tick in which it became current, that tick included; so a plan promoted now with a
    single tick is spent now too."""
    config = state.config
    assert config is not None
    events: list[PlanChanged] = []
    for agent in config.names:
        changes = PlanChanges(state, agent)
        while (plan := changes.current) is not None and spent(plan, state.tick):
            changes.end("expired")
            if not changes.lists:
                break  # before plan lists, one expiry per agent and tick
        events += changes.events
    return events


def spent(plan: PlanChanged, tick: int) -> bool:
    """Whether the current ``plan`` has had its max ticks by the end of ``tick``."""
    return tick - plan.tick + 1 >= plan.max_ticks
