"""What every experiment's config shares: how models are reached, transport retries, the
utility agent, labels, and the strict validation with errors that name the key at fault.

API keys are never values here: a provider block names the environment variable that holds
one, so a config can be stored in the ledger as it is.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import parse_qsl, urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
)

UTILITY = "utility"
"""The name of the utility agent (structured extraction from free text); no participant may
take it."""


_SECRET_PARAM = re.compile(r"(?i)key|token|secret|password|auth")


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and key path."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProviderConfig(Strict):
    """How to reach a model. ``model`` strings of the form ``openai:NAME`` or ``simulated`` need
    no provider block; an OpenAI-compatible server is named by ``base_url``."""

    base_url: str | None = None
    api_key_env: str | None = None
    json_schema: bool = True  # False: the server cannot take a JSON schema; put it in the prompt
    # The model's context window in tokens; absent: the default for its name
    # (docs/providers.md, "Context windows").
    context_window: int | None = Field(default=None, ge=256, le=100_000_000)
    # The most tokens an answer may take (reasoning included), sent in the API's own field.
    max_output_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    # How much a reasoning model reasons (docs/providers.md, "Reasoning models").
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None

    @model_serializer(mode="wrap")
    def _without_absent_options(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A config recorded before these options existed re-encodes as it was stored.
        data = handler(self)
        if isinstance(data, dict):
            for name in _OPTIONAL_PROVIDER_KEYS:
                if data.get(name, 0) is None:
                    del data[name]
        return data

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        # The config is stored in the ledger as it is: a key must never travel inside it.
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"must be an http(s) URL with a host, got {value!r}")
        if parts.password is not None:
            raise ValueError("must not carry a password; name the key's variable in api_key_env")
        secretish = [k for k, _ in parse_qsl(parts.query) if _SECRET_PARAM.search(k)]
        if secretish:
            raise ValueError(
                f"must not carry a key ({', '.join(secretish)}); name the key's variable in "
                "api_key_env"
            )
        return value


_OPTIONAL_PROVIDER_KEYS = ("context_window", "max_output_tokens", "reasoning_effort")


class UtilityConfig(Strict):
    model: str = "simulated"
    provider: ProviderConfig | None = None
    temperature: float | None = Field(default=0.0, ge=0, le=2)


DEFAULT_MAX_WAIT_S = 600.0


class RetryConfig(Strict):
    """Transport retries of one model call (429, 5xx, timeouts, dropped connections)."""

    max_attempts: int = Field(default=5, ge=1, le=50)
    base_delay_s: float = Field(default=1.0, ge=0)
    max_delay_s: float = Field(default=30.0, ge=0)
    timeout_s: float = Field(default=120.0, gt=0)
    # A rate-limited or overloaded server (429, 503) is asked again, whatever max_attempts,
    # until a call has waited this long in all; its Retry-After is honoured whole.
    max_wait_s: float = Field(default=DEFAULT_MAX_WAIT_S, ge=0, le=86_400)

    @model_serializer(mode="wrap")
    def _without_default_wait(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A config recorded before max_wait_s existed re-encodes as it was stored.
        data = handler(self)
        if isinstance(data, dict) and data.get("max_wait_s") == DEFAULT_MAX_WAIT_S:
            del data["max_wait_s"]
        return data


LabelValue = str | int | float | bool
Labels = dict[
    Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_\-.]*$")],
    LabelValue,
]


class ModelUser(BaseModel):
    """One caller of a model in a run: a participant or the utility agent."""

    model_config = ConfigDict(frozen=True)

    who: str
    model: str
    provider: ProviderConfig | None = None
    temperature: float | None = None  # what its requests send; None: none sent


class Price(Strict):
    """A model's price in US dollars per million tokens (docs/studies.md "Cost")."""

    input: float = Field(ge=0, le=10_000, allow_inf_nan=False)
    output: float = Field(ge=0, le=10_000, allow_inf_nan=False)
    # Input tokens read from the provider's prompt cache; absent: billed as input.
    cached_input: float | None = Field(default=None, ge=0, le=10_000, allow_inf_nan=False)

    @model_serializer(mode="wrap")
    def _without_absent_cached(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A run recorded before cached prices existed re-encodes its config as stored.
        data = handler(self)
        if isinstance(data, dict) and data.get("cached_input", 0) is None:
            del data["cached_input"]
        return data

    @property
    def cached_rate(self) -> float:
        return self.input if self.cached_input is None else self.cached_input


class ExperimentConfig(Strict):
    """The part of a config every experiment has. Each experiment's config extends it and
    fixes ``experiment`` to its own name (the YAML's ``experiment:`` key selects it)."""

    experiment: str
    name: str = ""
    seed: int = 0
    labels: Labels = Field(default_factory=dict)
    retry: RetryConfig = Field(default_factory=RetryConfig)
    utility: UtilityConfig = Field(default_factory=UtilityConfig)
    tracing: bool = True
    prices: dict[str, Price] = Field(default_factory=dict)  # model name -> price

    omitted_when_default: ClassVar[dict[str, Any]] = {"prices": {}}
    """Keys left out of the stored config while they hold these values: options added after
    runs were recorded, so that an older run's config re-encodes as it was stored."""

    @model_serializer(mode="wrap")
    def _without_default_options(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key, default in self.omitted_when_default.items():
                if key in data and data[key] == default:
                    del data[key]
        return data

    @field_validator("labels")
    @classmethod
    def _finite_labels(cls, value: dict[str, LabelValue]) -> dict[str, LabelValue]:
        for key, item in value.items():
            if isinstance(item, float) and not math.isfinite(item):
                raise ValueError(f"label {key!r} must be a finite number")
        return value

    def participants(self) -> list[ModelUser]:
        """Every participant with its model; experiments override this."""
        return []

    def model_users(self) -> list[ModelUser]:
        """Every caller of a model: the participants, then the utility agent."""
        utility = ModelUser(
            who=UTILITY,
            model=self.utility.model,
            provider=self.utility.provider,
            temperature=self.utility.temperature,
        )
        return [*self.participants(), utility]

    def agent_names(self) -> list[str]:
        return [p.who for p in self.participants()]


def validation_lines(exc: ValidationError, source: str) -> list[str]:
    """One line per problem, each naming the file and the dotted key path."""
    lines = []
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")  # our own validators' words suffice
        lines.append(f"{source}: {path}: {msg}")
    return lines


def validate_config(model: type[ExperimentConfig], data: Any, source: str) -> ExperimentConfig:
    """Validate raw (YAML-loaded) data against ``model``; raises :class:`ConfigError`."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError("\n".join(validation_lines(exc, source))) from None
