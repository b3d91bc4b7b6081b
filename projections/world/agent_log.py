"""The agent-centric log of a world run: run-level facts, then per agent its configuration,
every prompt it saw and answer it gave (with seq/hash citations), what it did and witnessed,
its memory stream with importance, its plans over time and its plan queue at the end (the
current plan first), and in the game its contributions and payoffs. Plain JSON data; the
request ``context`` (facts for the simulated participant) is left out."""

from __future__ import annotations

from functools import partial
from typing import Any

from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    ContributionRecorded,
    MemoriesScored,
    OutcomeComputed,
    PlanChanged,
    WorldEnded,
)
from maai.domain.world.state import requeue
from maai.projections.calls import Call, CallList, collect_calls
from maai.projections.history import History, UnknownAgentError, cite, event_json
from maai.projections.jsonout import scrub, section

FORMAT = "maai.world_agent_log/1"


def agent_log(history: History, agent: str | None = None) -> dict[str, Any]:
    names = history.agent_names
    if agent is not None and agent not in names:
        raise UnknownAgentError(agent, names)
    chosen = names if agent is None else [agent]
    calls = collect_calls(history)  # once: each agent's section picks its own
    started = history.started
    ended = history.of(WorldEnded)
    deferred = history.source is not None  # read from a store: each section built as written
    return {
        "format": FORMAT,
        "run": {
            "run_id": history.run_id,
            "status": history.status,
            "experiment": started.experiment if started else None,
            "seed": started.seed if started else None,
            "code_version": started.code_version if started else None,
            "config": scrub(started.config) if started else None,
            "agents": names,
            "events": len(history.entries),
            "ended": event_json(ended[-1][0]) if ended else None,
            "outcomes": [event_json(entry) for entry, _ in history.each(OutcomeComputed)],
        },
        "agents": {
            name: section(partial(_agent, history, name, calls), deferred=deferred)
            for name in chosen
        },
    }


def _agent(history: History, name: str, all_calls: CallList) -> dict[str, Any]:
    config = history.config
    spec = config.agent(name).model_dump(mode="json") if isinstance(config, WorldConfig) else None
    calls = [c for c in all_calls if c.for_agent == name and c.completed is not None]
    return {
        "config": spec,
        "calls": [_call(history, c) for c in calls],
        # of_agent: the events whose ``agent`` is this agent's, reading no other agent's.
        "actions": [event_json(entry) for entry, _ in history.of_agent(name, ActionResolved)],
        "witnessed": [
            {**cite(entry), "tick": e.tick, "description": e.description}
            for entry, e in history.each(ActionResolved)
            if e.agent != name and name in e.witnesses
        ],
        "memories": [
            {**cite(entry), **m.model_dump(mode="json")}
            for entry, e in history.of_agent(name, MemoriesScored)
            for m in e.memories
        ],
        "plans": [event_json(entry) for entry, _ in history.of_agent(name, PlanChanged)],
        # Not for a run recorded before plan lists, whose export stays as it was.
        **({"plan_queue": _queue(history, name)} if _plan_lists(config) else {}),
        "contributions": [
            event_json(entry) for entry, e in history.each(ContributionRecorded) if e.player == name
        ],
    }


def _plan_lists(config: Any) -> bool:
    return isinstance(config, WorldConfig) and config.plan_lists


def _queue(history: History, name: str) -> list[dict[str, Any]]:
    """The agent's plans as they stand at the end of the history, the current one first
    (docs/world.md §4), each with the tick it was queued or became current."""
    queue: tuple[PlanChanged, ...] = ()
    for _, e in history.of_agent(name, PlanChanged):
        queue = requeue(queue, e)
    return [
        {
            "plan": e.index if e.plan is None else e.plan,
            "since_tick": e.tick,
            "location": e.location,
            "description": e.description,
            "stop_condition": e.stop_condition,
            "max_ticks": e.max_ticks,
        }
        for e in queue
    ]


def _call(history: History, call: Call) -> dict[str, Any]:
    entry = call.requests[-1][0]
    system, input_ = history.prompt(entry)  # texts, or handles that read them when written
    return {
        **cite(entry),
        "address": call.address,
        "purpose": call.request.purpose,
        "system": system,
        "input": input_,
        "answer": call.completed[1].answer.text if call.completed else None,
    }
