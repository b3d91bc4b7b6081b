"""The Frohlich experiment's configuration (docs/frohlich.md), loaded from YAML and validated
strictly. The parts every experiment shares (providers, retries, the utility agent, labels)
are in ``maai.domain.config``."""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from maai.domain.config import (
    UTILITY,
    ConfigError,
    ExperimentConfig,
    ModelUser,
    ProviderConfig,
    RetryConfig,
    Strict,
    UtilityConfig,
    validate_config,
)
from maai.domain.frohlich.prompts import check_languages
from maai.domain.frohlich.types import INCOME_CLASSES, IncomeClass, Principle
from maai.domain.prompts import MissingTemplateError

Language = Literal["en", "es", "zh"]
"""English, Spanish, Mandarin Chinese (docs/frohlich.md §8 Languages); the template folders
``prompts/<language>/``."""
LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "zh": "Mandarin Chinese"}


def _known_language(value: Any) -> Any:
    if isinstance(value, str) and value not in LANGUAGE_NAMES:
        known = ", ".join(f"{code} ({name})" for code, name in LANGUAGE_NAMES.items())
        raise ValueError(f"unknown language {value!r}; the supported ones are {known}")
    return value


MAX_MULTIPLIER = 1000.0
"""The largest multiplier a config may give (``fixed``, ``low``, ``high``)."""
MAX_INCOME = 10**9
"""The largest income, in dollars, a configured distribution may hold."""
MAX_SCALED_INCOME = 10**12
"""The largest income a table can hold once scaled (``MAX_INCOME`` × ``MAX_MULTIPLIER``):
every amount, average and payoff then stays exact as a float (below 2**53), in the request
context, in JSON readers and in pandas, and far from overflowing one."""


def _finite(value: float | None, what: str) -> float | None:
    if value is not None and not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {value}")
    return value


class Multiplier(Strict):
    """A Phase multiplier: either ``fixed`` or a ``low``..``high`` range drawn uniformly.

    Every value is a positive, finite number of at most ``MAX_MULTIPLIER``."""

    low: float | None = 0.5
    high: float | None = 2.0
    fixed: float | None = None

    @field_validator("low", "high", "fixed")
    @classmethod
    def _sane(cls, value: float | None, info: ValidationInfo) -> float | None:
        what = "fixed multiplier" if info.field_name == "fixed" else f"multiplier {info.field_name}"
        _finite(value, what)
        if value is not None and not value > 0:
            raise ValueError(f"{what} must be a positive number, got {value}")
        if value is not None and value > MAX_MULTIPLIER:
            raise ValueError(
                f"{what} must be at most {MAX_MULTIPLIER:g} (it scales incomes), got {value:g}"
            )
        return value

    @model_validator(mode="after")
    def _check(self) -> Multiplier:
        if self.fixed is not None:
            return self
        if self.low is None or self.high is None:
            raise ValueError("give either 'fixed' or both 'low' and 'high'")
        if self.low > self.high:
            raise ValueError(f"multiplier low ({self.low}) is above high ({self.high})")
        return self


class PersonaConfig(Strict):
    """Optional parameters of the simulated participant; unset ones are derived from the seed."""

    preferred_principle: Principle | None = None
    preferred_amount: int | None = Field(default=None, gt=0, le=MAX_SCALED_INCOME)
    certainty: Literal["very_unsure", "unsure", "no_opinion", "sure", "very_sure"] | None = None
    stubbornness: float | None = Field(default=None, ge=0, le=1)
    conformity: float | None = Field(default=None, ge=0, le=1)
    verbosity: float | None = Field(default=None, ge=0, le=1)
    error_rate: float | None = Field(default=None, ge=0, le=1)
    latency_ms: float | None = Field(default=None, ge=0, le=3_600_000, allow_inf_nan=False)


class AgentConfig(Strict):
    name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_\-]*$")]
    personality: str = ""
    model: str = "simulated"
    provider: ProviderConfig | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    reasoning: bool = True
    memory_words: int | None = Field(default=None, ge=50, le=1_000_000)  # None: the run's
    persona: PersonaConfig | None = None
    language: Language | None = None  # None: the run's

    _language = field_validator("language", mode="before")(_known_language)


class Attempts(Strict):
    choice: int = Field(default=3, ge=1, le=20)
    ranking: int = Field(default=3, ge=1, le=20)
    ballot: int = Field(default=3, ge=1, le=20)
    poll: int = Field(default=3, ge=1, le=20)
    utility: int = Field(default=2, ge=1, le=20)
    # Free text is never parsed; it is asked again only when it comes back empty (blank or
    # null), so that an empty answer never becomes a memory, a statement or a reasoning.
    memory: int = Field(default=3, ge=1, le=20)
    statement: int = Field(default=3, ge=1, le=20)
    reasoning: int = Field(default=3, ge=1, le=20)


def _default_probabilities() -> dict[IncomeClass, float]:
    return {
        IncomeClass.HIGH: 0.05,
        IncomeClass.MEDIUM_HIGH: 0.10,
        IncomeClass.MEDIUM: 0.50,
        IncomeClass.MEDIUM_LOW: 0.25,
        IncomeClass.LOW: 0.10,
    }


BASE_DISTRIBUTIONS: tuple[tuple[int, int, int, int, int], ...] = (
    (32_000, 27_000, 24_000, 13_000, 12_000),
    (28_000, 22_000, 20_000, 17_000, 13_000),
    (31_000, 24_000, 21_000, 16_000, 14_000),
    (21_000, 20_000, 19_000, 16_000, 15_000),
)


class ManipulatorConfig(Strict):
    """The manipulator condition (docs/frohlich.md "Conditions"): after Phase 1 the named agent
    is privately told a target principle, chosen by rule, and asked to steer the group to it."""

    agent: str


class HistoryConfig(Strict):
    """How much of the public discussion a Phase-2 prompt shows (docs/frohlich.md, "History
    window"): all of it (the seed's protocol), or the last ``window_rounds`` rounds."""

    window_rounds: int | None = Field(default=None, ge=1, le=1000)


class FrohlichConfig(ExperimentConfig):
    experiment: Literal["frohlich"] = "frohlich"
    name: str = "frohlich"
    language: Language = "en"
    """The run's language; an agent may speak another (``AgentConfig.language``)."""
    agents: list[AgentConfig]
    phase2_rounds: int = Field(default=10, ge=1, le=1000)
    phase1_multiplier: Multiplier = Field(default_factory=Multiplier)
    phase2_multiplier: Multiplier = Field(default_factory=Multiplier)
    class_probabilities: dict[IncomeClass, float] = Field(default_factory=_default_probabilities)
    distributions: list[list[int]] | None = None  # each: incomes high..low; None = base set
    attempts: Attempts = Field(default_factory=Attempts)
    memory_words: int = Field(default=5000, ge=50, le=1_000_000)
    """Every agent's memory word limit, unless the agent sets its own."""
    original_values: bool = False
    """Phase-1 rounds 1–4 use Frohlich's situations A–D, each with its own class
    probabilities, instead of the base set times a multiplier."""
    manipulator: ManipulatorConfig | None = None
    history: HistoryConfig = Field(default_factory=HistoryConfig)
    answers: Literal["free_text", "structured"] = "free_text"
    """``structured``: rankings, choices, ballots and polls are asked for as JSON of a schema
    (docs/frohlich.md, "Structured answers"); ``free_text``: the seed's free text, parsed."""
    prompt_layout: Literal["seed", "stable_prefix"] = "seed"
    """``stable_prefix``: static instructions, then the public history, then the per-step
    state and task, so that providers' prefix caches can reuse an agent's earlier prompts
    (docs/frohlich.md, "Prompt layout"). ``seed``: the seed's layout."""

    omitted_when_default: ClassVar[dict[str, Any]] = {
        **ExperimentConfig.omitted_when_default,
        "history": {"window_rounds": None},
        "prompt_layout": "seed",
        "answers": "free_text",
    }

    _language = field_validator("language", mode="before")(_known_language)

    @model_validator(mode="before")
    @classmethod
    def _legacy_kind(cls, data: Any) -> Any:
        # Runs recorded before the experiment interface stored ``kind: frohlich``.
        if isinstance(data, dict) and "kind" in data and "experiment" not in data:
            data = {k: v for k, v in data.items() if k != "kind"}
            data["experiment"] = "frohlich"
        return data

    @field_validator("class_probabilities")
    @classmethod
    def _probabilities(cls, value: dict[IncomeClass, float]) -> dict[IncomeClass, float]:
        missing = [c.value for c in INCOME_CLASSES if c not in value]
        if missing:
            raise ValueError(f"missing probabilities for: {', '.join(missing)}")
        for cls_, p in value.items():
            if not math.isfinite(p):
                raise ValueError(f"probability of {cls_.value} must be a finite number, got {p}")
            if not (0 <= p <= 1):
                raise ValueError(f"probability of {cls_.value} must be within 0..1, got {p}")
        total = math.fsum(value.values())
        if abs(total - 1) > 1e-9:
            raise ValueError(f"class probabilities must sum to 1, they sum to {total}")
        return {c: value[c] for c in INCOME_CLASSES}

    @field_validator("distributions")
    @classmethod
    def _distributions(cls, value: list[list[int]] | None) -> list[list[int]] | None:
        if value is None:
            return None
        if len(value) < 2:
            raise ValueError("give at least two distributions")
        for i, dist in enumerate(value, 1):
            if len(dist) != len(INCOME_CLASSES):
                raise ValueError(f"distribution {i} must list 5 incomes (high..low)")
            if any(x <= 0 for x in dist):
                raise ValueError(f"distribution {i} has a non-positive income")
            for cls_, income in zip(INCOME_CLASSES, dist, strict=True):
                if income > MAX_INCOME:
                    raise ValueError(
                        f"distribution {i}, {cls_.value} income: {income:.3g} is above the"
                        f" limit of ${MAX_INCOME:,}"
                    )
        return value

    @model_validator(mode="after")
    def _agents(self) -> FrohlichConfig:
        if len(self.agents) < 2:
            raise ValueError("at least 2 agents are needed")
        names = [a.name for a in self.agents]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"agent names must be unique; repeated: {', '.join(dupes)}")
        if any(n.lower() == UTILITY for n in names):
            raise ValueError("'utility' is reserved for the utility agent")
        if self.manipulator is not None:
            if self.manipulator.agent not in names:
                raise ValueError(
                    f"manipulator.agent: no agent is named {self.manipulator.agent!r}"
                    f" (agents: {', '.join(names)})"
                )
            if len(names) < 3:
                raise ValueError(
                    "manipulator: the condition needs at least 3 agents (the target comes from"
                    f" the other agents' Phase-1 rankings), got {len(names)}"
                )
        # Compared with the default table, not with the keys given: a recorded config holds
        # every field, and the default table is what steps 1.2 and Phase 2 use in this mode.
        if self.original_values and self.class_probabilities != _default_probabilities():
            raise ValueError(
                "class_probabilities: original_values mode takes no probability table; each"
                " situation A-D carries its own (remove class_probabilities or original_values)"
            )
        try:
            check_languages(self.languages())
        except MissingTemplateError as error:
            raise ValueError(f"missing prompt text: {error}") from None
        return self

    def language_of(self, name: str) -> str:
        """The language agent ``name`` speaks and reads: its own, else the run's."""
        own = self.agent(name).language
        return self.language if own is None else own

    def languages(self) -> list[str]:
        """Every language this run's prompts are written in (the run's and the agents')."""
        return sorted({self.language, *(a.language or self.language for a in self.agents)})

    def base_distributions(self) -> tuple[tuple[int, ...], ...]:
        if self.distributions is None:
            return BASE_DISTRIBUTIONS
        return tuple(tuple(d) for d in self.distributions)

    def participants(self) -> list[ModelUser]:
        return [
            ModelUser(who=a.name, model=a.model, provider=a.provider, temperature=a.temperature)
            for a in self.agents
        ]

    def memory_limit(self, name: str) -> int:
        """The memory word limit of agent ``name``: its own, else the run's."""
        own = self.agent(name).memory_words
        return self.memory_words if own is None else own

    def agent(self, name: str) -> AgentConfig:
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(name)


def parse_config(data: Any, source: str = "config") -> FrohlichConfig:
    """Validate raw (YAML-loaded) data; errors name the path of the offending key."""
    config = validate_config(FrohlichConfig, data, source)
    assert isinstance(config, FrohlichConfig)
    return config


__all__ = [
    "AgentConfig",
    "Attempts",
    "ConfigError",
    "FrohlichConfig",
    "Language",
    "HistoryConfig",
    "ManipulatorConfig",
    "MAX_INCOME",
    "MAX_MULTIPLIER",
    "MAX_SCALED_INCOME",
    "Multiplier",
    "PersonaConfig",
    "ProviderConfig",
    "RetryConfig",
    "UtilityConfig",
    "parse_config",
]
