"""What the world asks the utility agent (docs/world.md §2): the purposes of the calls, the JSON
schemas the utility agent fills for an action or for importance scores, and its requests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from maai.domain.calls import EXTRACT, ModelRequest
from maai.domain.config import UTILITY
from maai.domain.extraction import json_object, nullable, schema_instructions
from maai.domain.world import render
from maai.domain.world.config import WorldConfig
from maai.domain.world.state import State

# Purposes: what each call is for (the simulated participant reads it from the engine).
ACT = "act"
IMPORTANCE = "importance"


def _text(description: str) -> dict[str, Any]:
    return nullable({"type": "string", "description": description})


_PLAN: dict[str, Any] = json_object(
    {
        "location": {"type": "string"},
        "description": {"type": "string"},
        "stop_condition": {"type": "string"},
        "max_ticks": nullable({"type": "integer"}),
    }
)


def _action_schema(plans: dict[str, Any]) -> dict[str, Any]:
    # The utility agent's output: every property required, null where the text gives none
    # (strict JSON-schema mode; ``maai.domain.extraction``).
    return json_object(
        {
            "action": _text("move, speak, wait, done, failed, contribute or announce"),
            "to": _text("a move's destination, or whom speech is addressed to (a name or all)"),
            "text": _text("what is said"),
            "amount": nullable({"type": "integer", "description": "points contributed"}),
            "payoffs": nullable(
                {
                    "type": "array",
                    "items": json_object(
                        {"player": {"type": "string"}, "payoff": {"type": "number"}}
                    ),
                }
            ),
            "react": _text("continue, postpone or cancel"),
            **plans,
            "readable": {"type": "boolean", "description": "false if the text states no action"},
        }
    )


ACTION_SCHEMA = _action_schema(
    {
        "plans": nullable(
            {"type": "array", "description": "the new plans, in the order given", "items": _PLAN}
        )
    }
)
# Before plan lists (``max_plans: null``, and runs recorded then): one plan object.
SINGLE_PLAN_ACTION_SCHEMA = _action_schema({"plan": nullable(_PLAN)})
SCORES_SCHEMA: dict[str, Any] = json_object(
    {
        "scores": nullable({"type": "array", "items": {"type": "integer"}}),
        "readable": {"type": "boolean", "description": "false if the text gives no scores"},
    }
)


def config_of(state: State) -> WorldConfig:
    assert state.config is not None, "run has not started"
    return state.config


HOW = {
    ACT: "Answer with one JSON object, as the list of actions shows.",
    IMPORTANCE: "Answer with a JSON list of whole numbers from 1 to 10, one per observation.",
}
WHAT = {
    ACT: "to choose one action in a simulated world, as a JSON object with 'action' and its "
    "fields ('to', 'text', 'amount', 'payoffs'), and optionally 'plans' (a list) and 'react'.",
    IMPORTANCE: "to rate each of its observations from 1 to 10; restate the scores as "
    '{"scores": [...]}.',
}
# Before plan lists (``max_plans: null``): one 'plan'.
WHAT_SINGLE_PLAN = (
    "to choose one action in a simulated world, as a JSON object with 'action' and its "
    "fields ('to', 'text', 'amount', 'payoffs'), and optionally 'plan' and 'react'."
)


def stated_action(data: dict[str, Any]) -> dict[str, Any]:
    """The utility agent's reply as an action object: nulls are what the text did not
    state; payoffs come as a list of {player, payoff}."""
    stated = {k: v for k, v in data.items() if v is not None and k != "readable"}
    payoffs = stated.get("payoffs")
    if isinstance(payoffs, list):
        stated["payoffs"] = {
            str(p.get("player")): p.get("payoff") for p in payoffs if isinstance(p, dict)
        }
    return stated


def utility_request(
    state: State,
    agent: str,
    purpose: str,
    context: Callable[[], dict[str, Any]],
    address: str,
    text: str,
) -> ModelRequest:
    config = config_of(state)
    utility = config.utility
    schema = SCORES_SCHEMA if purpose == IMPORTANCE else ACTION_SCHEMA
    what = WHAT[purpose]
    if purpose == ACT and not config.plan_lists:
        schema, what = SINGLE_PLAN_ACTION_SCHEMA, WHAT_SINGLE_PLAN
    fields: dict[str, Any] = {}
    instructions = "Answer with the JSON object only."
    if utility.provider is None or utility.provider.json_schema:
        fields = {"output_schema": schema, "schema_name": f"world_{purpose}"}
    else:
        instructions = schema_instructions(schema)
    return ModelRequest(
        address=address,
        agent=UTILITY,
        purpose=EXTRACT,
        model=utility.model,
        system=render.fill("extract_system", config.language),
        input=render.fill(
            "extract",
            config.language,
            what=what,
            text=text,
            schema_instructions=instructions,
        ),
        temperature=utility.temperature,
        context={"kind": purpose, "text": text, "for_agent": agent, **context()},
        **fields,
    )
