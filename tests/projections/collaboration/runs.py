"""The runs the collaboration projection tests record: fifty seeded runs over the conditions
a study sweeps (personas, message rule, exchanges, disclosure, asymmetric options, the
baseline), a small clean run with exact expectations, and helpers to plant a breach."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested
from maai.projections.history import History, history_from_events
from tests.projections.collaboration.driver import ASYMMETRIC, drive, make_config
from tests.projections.tamper import index_of

KINDS = ("trusting", "cautious", "strategic")


def seeded_config(i: int) -> CollaborationConfig:
    """Run ``i`` of the fifty: every condition turns up several times."""
    persona: dict[str, Any] = {
        "error_rate": (0.0, 0.15, 0.4)[i % 3],
        "breach_rate": (0.1, 0.5)[i % 2],
    }
    agents: list[dict[str, Any]] = [
        {
            "name": "Ada",
            "company": "Brickworks Motors",
            "persona": {**persona, "kind": KINDS[i % 3]},
        },
        {
            "name": "Ben",
            "company": "Studline Cars",
            "persona": {**persona, "kind": KINDS[i // 3 % 3]},
        },
    ]
    if i % 5 == 4:  # the asymmetric variant
        agents = [{**a, **spec} for a, spec in zip(agents, ASYMMETRIC, strict=True)]
    overrides: dict[str, Any] = {
        "seed": 100 + i,
        "exchanges": (1, 2, 3, 5)[i % 4],
        "message_rule": "reask" if i % 3 == 1 else "flag",
        "disclose_initial_belief": i % 4 != 3,
        "attempts": {"belief": 2, "message": 2, "decision": 1 + i % 2, "utility": 1 + i % 2},
        "agents": agents,
    }
    if i % 7 == 6:  # the baseline: one agent, a lottery partner
        overrides.update(agents=agents[:1], baseline={"p": 0.5})
    return make_config(**overrides)


SEEDED = range(50)


def small_config(**overrides: Any) -> CollaborationConfig:
    """Two exchanges, careful personas: every answer read by the parser at the first try."""
    persona = {"error_rate": 0.0, "breach_rate": 0.0}
    data: dict[str, Any] = {
        "seed": 7,
        "exchanges": 2,
        "agents": [
            {
                "name": "Ada",
                "company": "Brickworks Motors",
                "persona": {**persona, "kind": "trusting"},
            },
            {
                "name": "Ben",
                "company": "Studline Cars",
                "persona": {**persona, "kind": "strategic"},
            },
        ],
    }
    data.update(overrides)
    return make_config(**data)


def record(config: CollaborationConfig, run_id: str = "memory") -> tuple[list[Event], History]:
    events = drive(config)
    return events, history_from_events(events, run_id)


Where = Callable[[ModelCallRequested], bool]


def plant(events: list[Event], where: Where, edit: Callable[[str], str]) -> list[Event]:
    """Rewrite the input of the first request matching ``where`` (with its hash, in the
    request and its answer, as a real faulty prompt would carry)."""
    out = list(events)
    i = index_of(out, ModelCallRequested, where)
    old = out[i]
    assert isinstance(old, ModelCallRequested)
    request = old.request.model_copy(update={"input": edit(old.request.input)})
    digest = request.request_hash()
    out[i] = old.model_copy(update={"request": request, "request_hash": digest})
    j = index_of(out, ModelCallCompleted, lambda c: c.address == request.address)
    out[j] = out[j].model_copy(update={"request_hash": digest})
    return out


def at(address: str) -> Where:
    return lambda r: r.request.address == address


def append(text: str) -> Callable[[str], str]:
    return lambda prompt: f"{prompt}\n\n{text}"
