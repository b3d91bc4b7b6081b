"""The collaboration game's configuration (docs/collaboration.md §1, §4), validated strictly:
one clear line per problem, naming the key."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from maai.domain.config import UTILITY, ExperimentConfig, ModelUser, ProviderConfig, Strict

OptionName = Annotated[str, Field(min_length=1, max_length=24, pattern=r"^[A-Za-z][A-Za-z0-9]*$")]


class OptionConfig(Strict):
    """A collaborative option (``upside`` if the partner collaborates too, ``downside`` if it
    goes individual) or the individual option (``points``, guaranteed)."""

    name: OptionName
    kind: Literal["collaborative", "individual"]
    upside: int | None = Field(default=None, ge=-10_000, le=10_000)
    downside: int | None = Field(default=None, ge=-10_000, le=10_000)
    points: int | None = Field(default=None, ge=-10_000, le=10_000)

    @model_validator(mode="after")
    def _shape(self) -> OptionConfig:
        if self.kind == "collaborative":
            if self.upside is None or self.downside is None:
                raise ValueError(f"collaborative option {self.name} needs upside and downside")
            if self.points is not None:
                raise ValueError(
                    f"collaborative option {self.name} has guaranteed points; only the "
                    "individual option has"
                )
            if self.upside <= self.downside:
                raise ValueError(
                    f"option {self.name}: upside ({self.upside}) must be above the downside "
                    f"({self.downside})"
                )
        else:
            if self.upside is not None or self.downside is not None:
                raise ValueError(
                    f"individual option {self.name} has an upside or downside, as if it were "
                    "collaborative; give it points only"
                )
            if self.points is None:
                raise ValueError(f"individual option {self.name} needs its guaranteed points")
        return self


def symmetric_options() -> list[OptionConfig]:
    return [
        OptionConfig(name="A", kind="collaborative", upside=111, downside=-90),
        OptionConfig(name="B", kind="collaborative", upside=92, downside=-45),
        OptionConfig(name="C", kind="collaborative", upside=77, downside=-15),
        OptionConfig(name="Y", kind="individual", points=50),
    ]


def _check_options(options: list[OptionConfig], where: str) -> None:
    names = [o.name.upper() for o in options]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"{where}: option names must be unique; repeated: {', '.join(dupes)}")
    individual = [o for o in options if o.kind == "individual"]
    if len(individual) != 1:
        raise ValueError(f"{where}: give exactly one individual option, not {len(individual)}")
    if len(options) < 2:
        raise ValueError(f"{where}: give at least one collaborative option")


class PersonaConfig(Strict):
    """Parameters of the simulated participant; unset ones are derived from the seed."""

    kind: Literal["trusting", "cautious", "strategic"] | None = None
    error_rate: float | None = Field(default=None, ge=0, le=1)
    breach_rate: float | None = Field(default=None, ge=0, le=1)
    latency_ms: float | None = Field(default=None, ge=0)


class AgentConfig(Strict):
    name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_\-]*$")]
    company: str = ""
    model: str = "simulated"
    provider: ProviderConfig | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    u_value: float = Field(default=0.75, ge=0, le=1)
    options: list[OptionConfig] | None = None  # None: the game's options
    persona: PersonaConfig | None = None


class Attempts(Strict):
    belief: int = Field(default=3, ge=1, le=20)
    message: int = Field(default=3, ge=1, le=20)
    decision: int = Field(default=3, ge=1, le=20)
    utility: int = Field(default=2, ge=1, le=20)


class BaselineConfig(Strict):
    """The single-agent baseline: the partner is a lottery that collaborates with
    probability ``p``; no messages."""

    p: float = Field(default=0.5, ge=0, le=1)


class CollaborationConfig(ExperimentConfig):
    experiment: Literal["collaboration"] = "collaboration"
    name: str = "collaboration"
    language: Literal["en"] = "en"
    agents: list[AgentConfig]
    options: list[OptionConfig] = Field(default_factory=symmetric_options)
    exchanges: int = Field(default=3, ge=1, le=10)
    disclose_initial_belief: bool = True
    message_rule: Literal["flag", "reask"] = "flag"
    attempts: Attempts = Field(default_factory=Attempts)
    baseline: BaselineConfig | None = None

    @model_validator(mode="after")
    def _check(self) -> CollaborationConfig:
        wanted = 1 if self.baseline is not None else 2
        if len(self.agents) != wanted:
            what = (
                "the baseline has one agent (its partner is a lottery)"
                if wanted == 1
                else ("the game has two agents")
            )
            raise ValueError(f"{what}; got {len(self.agents)}")
        names = [a.name for a in self.agents]
        if len(set(names)) != len(names):
            raise ValueError(f"agent names must be unique; repeated: {names[0]}")
        if any(n.lower() == UTILITY for n in names):
            raise ValueError("'utility' is reserved for the utility agent")
        _check_options(self.options, "options")
        for agent in self.agents:
            if agent.options is not None:
                _check_options(agent.options, f"agents.{agent.name}.options")
        return self

    def participants(self) -> list[ModelUser]:
        return [
            ModelUser(who=a.name, model=a.model, provider=a.provider, temperature=a.temperature)
            for a in self.agents
        ]

    def agent(self, name: str) -> AgentConfig:
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(name)

    def options_of(self, name: str) -> list[OptionConfig]:
        return self.agent(name).options or self.options

    @property
    def first(self) -> str:
        return self.agents[0].name

    @property
    def second(self) -> str | None:
        return self.agents[1].name if len(self.agents) > 1 else None

    def partner_of(self, name: str) -> str | None:
        if self.second is None:
            return None
        return self.second if name == self.first else self.first
