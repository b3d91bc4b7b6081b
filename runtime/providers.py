"""Model providers: turn a config's model string (and optional provider block) into an SDK
``Model``, and check before a run starts that every key it needs is there.

Routes:

- ``simulated``: the offline simulated participant (``runtime.simulated``, imported lazily).
- ``openai:NAME`` or a bare ``NAME`` without a provider ``base_url``: OpenAI's Responses API.
- a provider with ``base_url``: any OpenAI-compatible server (Ollama, vLLM, llama.cpp's
  server, OpenRouter, Gemini's compatible endpoint) through Chat Completions. The model
  string is sent verbatim, since such names often carry colons or slashes
  (``llama3.1:8b``, ``meta-llama/llama-3.1-8b-instruct``).

Every OpenAI client is built with ``max_retries=0``: retries belong to
``runtime.recording`` so that each attempt is visible in the ledger.

Keys are read from the environment mapping given (never from the config), remembered only
so that error text can be scrubbed of them (``scrub``).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from agents import Model, ModelSettings
from openai import AsyncOpenAI
from openai.types.shared import Reasoning

from maai.domain.config import UTILITY, ExperimentConfig, ProviderConfig
from maai.domain.embeddings import EMBEDDER

SIMULATED = "simulated"
OPENAI_PREFIX = "openai:"
OPENAI_KEY_ENV = "OPENAI_API_KEY"
OPENAI_BASE_URL_ENV = "OPENAI_BASE_URL"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Local servers (Ollama, llama.cpp, vLLM without --api-key) ignore the key, but the client
# needs one; without it the OpenAI client would fall back to OPENAI_API_KEY and hand the
# OpenAI key to a third party.
NO_KEY_PLACEHOLDER = "not-needed"
DEFAULT_TIMEOUT_S = 120.0

# Prefixes that OpenAI model ids themselves use (fine-tuned models: ``ft:gpt-4o-mini:org::id``).
_OPENAI_NATIVE_PREFIXES = ("ft:",)


class ProviderSetupError(RuntimeError):
    """A model cannot be set up: unknown model string, missing key. Raised before a run."""


RouteKind = Literal["simulated", "openai", "compatible"]


@dataclass(frozen=True)
class ModelRoute:
    """Where one model string goes: ``name`` is what the server receives."""

    kind: RouteKind
    name: str
    key_env: str | None
    base_url: str | None


def describe_who(who: str) -> str:
    """``alice`` -> ``agent alice``; the reserved ``utility`` -> ``utility agent``,
    ``embedder`` -> ``embeddings model``."""
    if who == EMBEDDER:
        return "embeddings model"
    return "utility agent" if who == UTILITY else f"agent {who}"


def resolve_route(model: str, provider: ProviderConfig | None, *, who: str) -> ModelRoute:
    """Decide the route for a model string, without touching the environment."""
    if model == SIMULATED:
        return ModelRoute("simulated", SIMULATED, None, None)
    if not model.strip():
        raise ProviderSetupError(f"{describe_who(who)}: the model name is empty")
    if provider is not None and provider.base_url:
        return ModelRoute("compatible", model, provider.api_key_env, provider.base_url)
    key_env = (provider.api_key_env if provider else None) or OPENAI_KEY_ENV
    if model.startswith(OPENAI_PREFIX):
        name = model[len(OPENAI_PREFIX) :]
        if not name:
            raise ProviderSetupError(f"{describe_who(who)}: 'openai:' needs a model name")
        return ModelRoute("openai", name, key_env, None)
    if ":" in model and not model.startswith(_OPENAI_NATIVE_PREFIXES):
        prefix = model.split(":", 1)[0]
        raise ProviderSetupError(
            f"{describe_who(who)}: model {model!r} has unknown provider prefix {prefix!r}; "
            f"use 'openai:NAME', '{SIMULATED}', or give the agent a provider with a base_url"
        )
    return ModelRoute("openai", model, key_env, None)


def build_model(
    model: str,
    provider: ProviderConfig | None,
    *,
    who: str,
    env: Mapping[str, str] = os.environ,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Model:
    """Build the SDK model for one agent (``who`` is its name, ``utility``, or ``embedder``:
    the embeddings endpoint, ``runtime.embeddings``). The simulated model is not built here:
    it is an experiment's policy (``LiveExecutor`` builds it)."""
    route = resolve_route(model, provider, who=who)
    if route.kind == "simulated":
        raise ProviderSetupError(
            f"{describe_who(who)}: the simulated model is built from the experiment's policy, "
            "not by a provider"
        )
    client = build_client(route, _api_key(route, env, who=who, model=model), env, timeout_s)
    if who == EMBEDDER:
        from maai.runtime.embeddings import EmbeddingsModel

        return EmbeddingsModel(route.name, client)
    from maai.runtime.usage import UsageKeepingChatModel, UsageKeepingResponsesModel

    built = (
        UsageKeepingResponsesModel(model=route.name, openai_client=client)
        if route.kind == "openai"
        else UsageKeepingChatModel(model=route.name, openai_client=client)
    )
    built.extra_settings = _settings(provider, route)
    return built


def _settings(provider: ProviderConfig | None, route: ModelRoute) -> ModelSettings | None:
    """The provider block's answer length and reasoning effort as SDK settings: the SDK
    sends ``max_tokens`` (Chat Completions) or ``max_output_tokens`` (Responses), and
    ``reasoning_effort`` or ``reasoning.effort``. The Responses API is also asked for a
    summary of the reasoning, which is recorded as the answer's private reasoning."""
    if provider is None:
        return None
    reasoning = None
    if provider.reasoning_effort is not None:
        summary = "auto" if route.kind == "openai" else None
        reasoning = Reasoning(effort=provider.reasoning_effort, summary=summary)
    if provider.max_output_tokens is None and reasoning is None:
        return None
    return ModelSettings(max_tokens=provider.max_output_tokens, reasoning=reasoning)


def build_client(
    route: ModelRoute, api_key: str, env: Mapping[str, str], timeout_s: float
) -> AsyncOpenAI:
    if route.kind == "openai":
        return AsyncOpenAI(
            api_key=api_key,
            # Explicit, so the base URL comes from the same mapping as the key.
            base_url=env.get(OPENAI_BASE_URL_ENV) or OPENAI_DEFAULT_BASE_URL,
            max_retries=0,
            timeout=timeout_s,
        )
    client = AsyncOpenAI(api_key=api_key, base_url=route.base_url, max_retries=0, timeout=timeout_s)
    # The client reads OPENAI_ORG_ID / OPENAI_PROJECT_ID from os.environ and would send them
    # as headers to the third-party server; they belong to OpenAI only.
    client.organization = None
    client.project = None
    return client


def _api_key(route: ModelRoute, env: Mapping[str, str], *, who: str, model: str) -> str:
    if route.key_env is None:
        return NO_KEY_PLACEHOLDER
    value = env.get(route.key_env, "")
    if not value.strip():
        raise ProviderSetupError(
            f"environment variable {route.key_env} is not set "
            f"(needed by {describe_who(who)}, model {model})"
        )
    register_secret(value)
    return value


def _model_users(config: ExperimentConfig) -> list[tuple[str, str, ProviderConfig | None]]:
    return [(u.who, u.model, u.provider) for u in config.model_users()]


def check_credentials(config: ExperimentConfig, env: Mapping[str, str] = os.environ) -> None:
    """Fail before a run starts if a model string is unusable or a needed key is missing.

    One error lists every problem; each missing variable names the agents that need it.
    """
    problems: list[str] = []
    missing: dict[str, list[str]] = {}
    for who, model, provider in _model_users(config):
        try:
            route = resolve_route(model, provider, who=who)
        except ProviderSetupError as exc:
            problems.append(str(exc))
            continue
        if route.key_env is not None and not env.get(route.key_env, "").strip():
            missing.setdefault(route.key_env, []).append(describe_who(who))
    for var, whos in missing.items():
        problems.append(f"environment variable {var} is not set (needed by {', '.join(whos)})")
    if problems:
        raise ProviderSetupError("\n".join(problems))


def third_party_key_envs(config: ExperimentConfig) -> frozenset[str]:
    """Environment variables whose keys go to servers other than OpenAI.

    Tracing must never export with one of these, even when it is named OPENAI_API_KEY (a
    common habit with OpenRouter)."""
    return frozenset(
        p.api_key_env
        for _, _, p in _model_users(config)
        if p is not None and p.base_url and p.api_key_env
    )


# --- secrets scrubbing --------------------------------------------------------------------

_secrets: set[str] = set()
_secrets_lock = threading.Lock()
# Shapes of common keys, for keys we were never handed (a server echoing part of one back).
_KEY_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?i)\bBearer\s+[A-Za-z0-9._~+/=\-]+"), "Bearer ***"),
    (re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}"), "sk-***"),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"), "AIza***"),
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), "hf_***"),
)
_MIN_SECRET_LEN = 4  # shorter values would blank out ordinary words


def register_secret(value: str) -> None:
    """Remember a key value so that ``scrub`` removes it from any text."""
    if len(value) >= _MIN_SECRET_LEN:
        with _secrets_lock:
            _secrets.add(value)


FRAGMENT_LEN = 8
"""A fragment of a key: any run of at least this many consecutive characters of it. A server
that echoes part of a key back ("Incorrect API key: sk-pr...3xYz9QwE") has it scrubbed like
the whole key (docs/providers.md)."""


def scrub(text: str, extra: Iterable[str] = ()) -> str:
    """Remove every known key, every fragment of one (:data:`FRAGMENT_LEN`), and anything
    shaped like a key from ``text``."""
    with _secrets_lock:
        secrets = set(_secrets)
    secrets.update(s for s in extra if len(s) >= _MIN_SECRET_LEN)
    # Longest first, so a key that contains another is removed whole.
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    for secret in secrets:
        if len(secret) >= FRAGMENT_LEN:
            text = _scrub_fragments(text, secret)
    for pattern, replacement in _KEY_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _scrub_fragments(text: str, secret: str) -> str:
    """``text`` with every longest run of characters that is a fragment of ``secret`` (at
    least FRAGMENT_LEN of its consecutive characters) replaced by ``***``."""
    grams = {secret[i : i + FRAGMENT_LEN] for i in range(len(secret) - FRAGMENT_LEN + 1)}
    out: list[str] = []
    i = 0
    while i <= len(text) - FRAGMENT_LEN:
        if text[i : i + FRAGMENT_LEN] not in grams:
            i += 1
            continue
        end = i + FRAGMENT_LEN
        while end < len(text) and text[i : end + 1] in secret:
            end += 1
        out.append(text[:i] + "***")
        text, i = text[end:], 0
    return "".join(out) + text
