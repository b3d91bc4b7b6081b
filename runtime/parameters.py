"""Parameters that models refuse (docs/providers.md, "Reasoning models"), checked before a run
so that a refused parameter is one config error, never a failed call or a retry loop.

``REFUSED`` is the table: for each family of model names (the name as the server receives
it, lower case, starting with the prefix), the parameters its API answers with HTTP 400.
"""

from __future__ import annotations

from maai.domain.config import ExperimentConfig, ModelUser
from maai.runtime.providers import ProviderSetupError, describe_who, resolve_route

# OpenAI's reasoning models take no temperature (HTTP 400 "Unsupported parameter:
# 'temperature'"); its other chat models take no reasoning effort; "minimal" effort is the
# GPT-5 family's alone.
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
_PLAIN_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4-", "gpt-4.5", "gpt-3.5", "chatgpt-4o")

REFUSED: tuple[tuple[str, str, str], ...] = (
    *((p, "temperature", "reasoning models take no temperature") for p in _REASONING_PREFIXES),
    *(
        (p, "reasoning_effort", "only reasoning models take a reasoning effort")
        for p in _PLAIN_PREFIXES
    ),
    *(
        (p, "reasoning_effort=minimal", "'minimal' effort is the GPT-5 family's alone")
        for p in ("o1", "o3", "o4")
    ),
)


def _sent(user: ModelUser) -> set[str]:
    sent = set()
    if user.temperature is not None:
        sent.add("temperature")
    provider = user.provider
    if provider is not None and provider.reasoning_effort is not None:
        sent.add("reasoning_effort")
        sent.add(f"reasoning_effort={provider.reasoning_effort}")
    return sent


def refused_parameters(user: ModelUser) -> list[str]:
    """What ``user`` would send that its model refuses, one line each."""
    route = resolve_route(user.model, user.provider, who=user.who)
    if route.kind == "simulated":
        return []
    name = route.name.lower().removeprefix("ft:")
    sent = _sent(user)
    lines = []
    for prefix, parameter, why in REFUSED:
        if name.startswith(prefix) and parameter in sent:
            fix = (
                "set its temperature to null"
                if parameter == "temperature"
                else "remove provider.reasoning_effort or choose another value"
            )
            lines.append(
                f"{describe_who(user.who)}: model {user.model} refuses {parameter} ({why}); {fix}"
            )
    return lines


def check_parameters(config: ExperimentConfig) -> None:
    """Raise ``ProviderSetupError`` listing every refused parameter of the config."""
    problems = [line for user in config.model_users() for line in refused_parameters(user)]
    if problems:
        raise ProviderSetupError("\n".join(problems))
