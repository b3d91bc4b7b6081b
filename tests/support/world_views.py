"""The small world the world's parser tests read answers in: Ann and Ben in the Hall, the
moderator Mod in the Booth, and what Ann may do there (``ActView``). Each test names its own
places (who may enter which); the rest is the same everywhere."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from maai.domain.world.parsing import ActView
from maai.domain.world.world import WorldSpec

AGENTS = [
    {"name": "Ann", "location": "Hall"},
    {"name": "Ben", "location": "Hall"},
    {"name": "Mod", "location": "Booth"},
]


def player_view(locations: list[dict[str, Any]], **changes: Any) -> ActView:
    """Ann's view as a player with a plan, Ben present, 20 points, up to 3 plans."""
    world = WorldSpec.model_validate({"locations": locations, "agents": AGENTS})
    view = ActView(
        world=world,
        agent="Ann",
        location="Hall",
        present=("Ben",),
        has_plan=True,
        react_asked=False,
        role="player",
        endowment=20,
        players=("Ann", "Ben"),
        max_plans=3,
    )
    return replace(view, **changes)
