"""The world file (docs/world.md §1): locations, agents and their initial plans, validated
with one clear line per problem. The original system's JSON keys (``world_name``,
``first_name``) are accepted beside ours (``name``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AliasChoices, Field, model_validator

from maai.domain.config import UTILITY, ProviderConfig, Strict
from maai.domain.embeddings import EMBEDDER

Name = Annotated[str, Field(min_length=1, max_length=64)]
AgentName = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_\-]*$")]
EVERYONE: Literal["all"] = "all"


class LocationSpec(Strict):
    """A place. ``allowed`` names who may enter (or ``all``); ``capacity`` caps how many
    agents may be there at once (none: no cap)."""

    name: Name = Field(validation_alias=AliasChoices("name", "location_name"))
    description: str = ""
    allowed: list[AgentName] | Literal["all"] = EVERYONE
    capacity: int | None = Field(default=None, ge=1)

    def admits(self, agent: str) -> bool:
        return self.allowed == EVERYONE or agent in self.allowed


class PlanSpec(Strict):
    """A plan: be at ``location`` doing ``description`` until ``stop_condition`` holds (judged
    by the model) or ``max_ticks`` have passed (enforced by code)."""

    location: Name
    description: str = Field(min_length=1)
    stop_condition: str = Field(default="", validation_alias=AliasChoices("stop_condition", "stop"))
    max_ticks: int | None = Field(default=None, ge=1, le=1000)


class PersonaSpec(Strict):
    """Parameters of the simulated participant (docs/world.md §7)."""

    kind: Literal["cooperative", "selfish", "moderator", "wanderer"] | None = None
    error_rate: float = Field(default=0.1, ge=0, le=1)
    latency_ms: float = Field(default=0.0, ge=0)


class AgentSpec(Strict):
    name: AgentName = Field(validation_alias=AliasChoices("name", "first_name"))
    public_bio: str = ""
    private_bio: str = ""
    directives: list[str] = Field(default_factory=list)
    location: Name | None = None  # where it starts; default: its initial plan's location
    plan: PlanSpec | None = None
    role: Literal["player", "moderator"] | None = None
    endowment: int | None = Field(default=None, ge=0, le=1_000_000)  # PGG players only
    priming: str = ""  # PGG: added to the private bio (a study's condition)
    model: str = "simulated"
    provider: ProviderConfig | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    persona: PersonaSpec | None = None

    @property
    def start(self) -> str:
        start = self.location or (self.plan.location if self.plan else None)
        assert start is not None, "validated by WorldSpec"
        return start


class WorldSpec(Strict):
    name: Name = Field(default="world", validation_alias=AliasChoices("name", "world_name"))
    description: str = ""
    start_time: str = Field(default="09:00", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
    minutes_per_tick: int = Field(default=10, ge=1, le=1440)
    locations: list[LocationSpec] = Field(min_length=1)
    agents: list[AgentSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> WorldSpec:
        problems = world_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def location(self, name: str) -> LocationSpec:
        for loc in self.locations:
            if loc.name == name:
                return loc
        raise KeyError(name)

    def has_location(self, name: str) -> bool:
        return any(loc.name == name for loc in self.locations)

    def agent(self, name: str) -> AgentSpec:
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(name)

    def clock(self, tick: int) -> str:
        """Tick ``tick`` as simulated time of day (``Day 2 09:10`` after midnight)."""
        hours, minutes = (int(p) for p in self.start_time.split(":"))
        total = hours * 60 + minutes + tick * self.minutes_per_tick
        day, rest = divmod(total, 24 * 60)
        return f"Day {day + 1} {rest // 60:02d}:{rest % 60:02d}"


def _repeated(names: list[str]) -> list[str]:
    return sorted({n for n in names if names.count(n) > 1})


def world_problems(world: WorldSpec) -> list[str]:
    """Every problem of a world, each naming what it is about (docs/world.md §1)."""
    problems: list[str] = []
    locations = [loc.name for loc in world.locations]
    agents = [a.name for a in world.agents]
    for kind, names in (("location", locations), ("agent", agents)):
        for name in _repeated(names):
            problems.append(f"{kind} name {name!r} is used twice")
    if any(a.lower() == UTILITY for a in agents):
        problems.append("'utility' is reserved for the utility agent")
    if any(a.lower() == EMBEDDER for a in agents):
        problems.append("'embedder' is reserved for the model that embeds texts")
    known = set(locations)
    for loc in world.locations:
        if loc.allowed != EVERYONE:
            for who in loc.allowed:
                if who not in agents:
                    problems.append(f"location {loc.name!r} allows unknown agent {who!r}")
    for agent in world.agents:
        where = f"agent {agent.name!r}"
        if agent.location is None and agent.plan is None:
            problems.append(f"{where} has neither a start location nor an initial plan")
        for what, place in (("starts in", agent.location), ("plans to be in", _at(agent))):
            if place is None:
                continue
            if place not in known:
                problems.append(f"{where} {what} unknown location {place!r}")
            elif not world.location(place).admits(agent.name):
                problems.append(f"{where} {what} {place!r}, which it may not enter")
    crowd: dict[str, int] = {}
    for agent in world.agents:
        if agent.location in known or (agent.location is None and _at(agent) in known):
            crowd[agent.start] = crowd.get(agent.start, 0) + 1
    for name, count in sorted(crowd.items()):
        capacity = world.location(name).capacity
        if capacity is not None and count > capacity:
            problems.append(
                f"location {name!r} holds at most {capacity} agents but {count} start there"
            )
    return problems


def _at(agent: AgentSpec) -> str | None:
    return agent.plan.location if agent.plan else None
