"""The ultimatum game's config: the pie and two players, the proposer first."""

from __future__ import annotations

from typing import Annotated, Literal

from maai.domain.config import UTILITY, ExperimentConfig, ModelUser, ProviderConfig, Strict
from pydantic import Field, model_validator


class Persona(Strict):
    """The simulated player's parameters (docs: examples/ultimatum/README.md)."""

    latency_ms: float = Field(default=0.0, ge=0)


class Player(Strict):
    name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_\-]*$")]
    model: str = "simulated"
    provider: ProviderConfig | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    persona: Persona = Field(default_factory=Persona)


class UltimatumConfig(ExperimentConfig):
    experiment: Literal["ultimatum"] = "ultimatum"
    name: str = "ultimatum"
    language: Literal["en"] = "en"
    pie: int = Field(default=10, ge=1, le=1_000_000)
    attempts: int = Field(default=3, ge=1, le=20)
    agents: list[Player]

    @model_validator(mode="after")
    def _two_players(self) -> UltimatumConfig:
        names = [a.name for a in self.agents]
        if len(names) != 2:
            raise ValueError(f"the game has two players, proposer first; got {len(names)}")
        if names[0] == names[1]:
            raise ValueError(f"player names must differ; repeated: {names[0]}")
        if UTILITY in (n.lower() for n in names):
            raise ValueError("'utility' is reserved for the utility agent")
        return self

    @property
    def proposer(self) -> str:
        return self.agents[0].name

    @property
    def responder(self) -> str:
        return self.agents[1].name

    def participants(self) -> list[ModelUser]:
        return [ModelUser(who=a.name, model=a.model, provider=a.provider) for a in self.agents]

    def agent(self, name: str) -> Player:
        for player in self.agents:
            if player.name == name:
                return player
        raise KeyError(name)
