"""The world experiment's configuration (docs/world.md §1, §5, §6): the world itself (inline,
in the world-file format), the tick limit, attempts, retrieval weights and, optionally, the
public-goods game played on the world."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import Field, model_validator

from maai.domain.config import ExperimentConfig, ModelUser, Strict
from maai.domain.embeddings import EMBEDDER, EmbeddingsConfig
from maai.domain.world.world import EVERYONE, AgentSpec, WorldSpec


class Attempts(Strict):
    action: int = Field(default=3, ge=1, le=20)
    importance: int = Field(default=2, ge=1, le=20)
    utility: int = Field(default=2, ge=1, le=20)


class RetrievalConfig(Strict):
    """Top-k memories by recency + importance + relevance, each scaled to 0–1 (§4)."""

    k: int = Field(default=5, ge=0, le=100)
    recency: float = Field(default=1.0, ge=0)
    importance: float = Field(default=1.0, ge=0)
    relevance: float = Field(default=1.0, ge=0)
    decay: float = Field(default=0.9, gt=0, le=1)  # recency = decay ** ticks since


class GameConfig(Strict):
    """The public-goods game (docs/world.md §5)."""

    kind: Literal["public_goods"] = "public_goods"
    game_room: str = "Game Room"
    contribution_room: str = "Contribution Room"
    endowment: int = Field(default=20, ge=0, le=1_000_000)
    multiplier: float = Field(default=1.6, gt=0, le=100)
    rounds: int = Field(default=1, ge=1, le=100)
    turn_order: list[str] | None = None  # None: drawn each round from a named stream


class WorldConfig(ExperimentConfig):
    experiment: Literal["world"] = "world"
    name: str = "world"
    language: Literal["en"] = "en"
    world: WorldSpec
    max_ticks: int = Field(default=20, ge=1, le=10_000)
    plan_max_ticks: int = Field(default=10, ge=1, le=1000)  # for plans that give none
    # The plans one planning answer may give (§4). None: one plan object per answer and no
    # queue recorded, the protocol from before plan lists, as runs recorded then replay.
    max_plans: int | None = Field(default=3, ge=1, le=20)
    attempts: Attempts = Field(default_factory=Attempts)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    # None: relevance by the local text vector, no calls (§4).
    embeddings: EmbeddingsConfig | None = None
    game: GameConfig | None = None

    @model_validator(mode="after")
    def _check(self) -> WorldConfig:
        if self.game is not None:
            problems = game_problems(self.world, self.game)
            if problems:
                raise ValueError("; ".join(problems))
        return self

    def participants(self) -> list[ModelUser]:
        return [
            ModelUser(who=a.name, model=a.model, provider=a.provider) for a in self.world.agents
        ]

    def model_users(self) -> list[ModelUser]:
        users = super().model_users()
        if self.embeddings is not None:
            e = self.embeddings
            users.append(ModelUser(who=EMBEDDER, model=e.model, provider=e.provider))
        return users

    def agent(self, name: str) -> AgentSpec:
        spec = self.agents_by_name.get(name)
        if spec is None:
            return self.world.agent(name)  # raises KeyError, as it always has
        return spec

    # Read several times per agent in every decision (the config never changes: the model is
    # frozen), so computed once; kept out of the fields, so neither dumped nor compared.
    @cached_property
    def agents_by_name(self) -> dict[str, AgentSpec]:
        return {a.name: a for a in self.world.agents}

    @cached_property
    def names_in_order(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.world.agents)

    @cached_property
    def players_in_order(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.world.agents if a.role == "player")

    @property
    def plan_lists(self) -> bool:
        """Whether answers give lists of plans, queued as events (§4), or one plan each."""
        return self.max_plans is not None

    @property
    def names(self) -> list[str]:
        return list(self.names_in_order)

    @property
    def players(self) -> list[str]:
        return list(self.players_in_order)

    @property
    def moderator(self) -> str | None:
        return next((a.name for a in self.world.agents if a.role == "moderator"), None)

    def endowment(self, player: str) -> int:
        assert self.game is not None
        own = self.agent(player).endowment
        return self.game.endowment if own is None else own


def recorded_config(snapshot: dict[str, Any]) -> WorldConfig:
    """The config of a run as ``run.started`` recorded it. A run recorded before plan lists
    has no ``max_plans``: it gets none, not the default of today, so that it replays and
    verifies as it ran (docs/world.md §4)."""
    if "max_plans" not in snapshot:
        snapshot = {**snapshot, "max_plans": None}
    return WorldConfig.model_validate(snapshot)


def game_problems(world: WorldSpec, game: GameConfig) -> list[str]:
    """What stops the public-goods game from being played on this world (§5)."""
    problems: list[str] = []
    players = [a.name for a in world.agents if a.role == "player"]
    moderators = [a.name for a in world.agents if a.role == "moderator"]
    if len(players) < 2:
        problems.append(f"the game needs at least 2 players (role: player), not {len(players)}")
    if len(moderators) != 1:
        problems.append(f"the game needs exactly one moderator, not {len(moderators)}")
    for room in (game.game_room, game.contribution_room):
        if not world.has_location(room):
            problems.append(f"game room {room!r} is not a location of the world")
    if game.game_room == game.contribution_room:
        problems.append("the game room and the contribution room must differ")
    if not problems:
        hall = world.location(game.game_room)
        if hall.allowed != EVERYONE and set(hall.allowed) != {a.name for a in world.agents}:
            problems.append(f"everyone must be allowed in the game room {hall.name!r}")
        booth = world.location(game.contribution_room)
        for who in [*players, *moderators]:
            if not booth.admits(who):
                problems.append(f"{who!r} must be allowed in the contribution room {booth.name!r}")
    if game.turn_order is not None and sorted(game.turn_order) != sorted(players):
        problems.append("turn_order must name every player once: " + ", ".join(sorted(players)))
    for a in world.agents:
        if a.role != "player" and (a.endowment is not None or a.priming):
            problems.append(f"agent {a.name!r} has an endowment or priming but is not a player")
    return problems
