"""Pre-flight: before a run is created, every distinct provider it uses is reached once
(docs/providers.md, "Pre-flight"), so that a server not started or a refused key is found
before anything is recorded, with an error naming the address and the key's variable.

Each provider is asked for its models list (``GET /models``); a server without one (404,
405) is sent a one-token call instead. Providers are reached at once, each once, however
many agents use it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import openai

from maai.domain.config import ExperimentConfig
from maai.runtime import providers
from maai.runtime.call_errors import status_detail

PREFLIGHT_TIMEOUT_S = 15.0
PREFLIGHT_ENV = "MAAI_PREFLIGHT"  # "off": skip (offline rehearsals of configs)


@dataclass(frozen=True)
class _Target:
    kind: str
    base_url: str
    key_env: str | None
    model: str  # one model name the server should know, for the one-token call


def _targets(
    configs: Iterable[ExperimentConfig], env: Mapping[str, str]
) -> dict[_Target, list[str]]:
    targets: dict[_Target, list[str]] = {}
    users = [user for config in configs for user in config.model_users()]
    for user in users:
        route = providers.resolve_route(user.model, user.provider, who=user.who)
        if route.kind == "simulated":
            continue
        base = (
            route.base_url
            or env.get(providers.OPENAI_BASE_URL_ENV)
            or providers.OPENAI_DEFAULT_BASE_URL
        )
        where = (route.kind, base.rstrip("/"), route.key_env)
        # One check per server and key, whichever of its models an agent names.
        target = next(
            (t for t in targets if (t.kind, t.base_url, t.key_env) == where),
            _Target(*where, model=route.name),
        )
        whos = targets.setdefault(target, [])
        if providers.describe_who(user.who) not in whos:  # a study: the same agent in many runs
            whos.append(providers.describe_who(user.who))
    return targets


def _key_words(target: _Target) -> str:
    if target.key_env is None:
        return "no key (the provider names no api_key_env)"
    return f"key from {target.key_env}"


async def _reach(target: _Target, env: Mapping[str, str], timeout_s: float) -> str | None:
    """None when the provider answered; else what went wrong, in one line."""
    route = providers.ModelRoute(
        target.kind,  # type: ignore[arg-type]
        target.model,
        target.key_env,
        None if target.kind == "openai" else target.base_url,
    )
    key = providers.NO_KEY_PLACEHOLDER
    if target.key_env is not None:
        key = env.get(target.key_env, "")
        providers.register_secret(key)
    client = providers.build_client(route, key, env, timeout_s)
    try:
        try:
            await client.models.list()
            return None
        except openai.APIStatusError as exc:
            if exc.status_code not in (404, 405):
                raise
        # No models list: one token of an answer instead.
        if target.kind == "openai":
            await client.responses.create(model=target.model, input=".", max_output_tokens=16)
        else:
            await client.chat.completions.create(
                model=target.model, messages=[{"role": "user", "content": "."}], max_tokens=1
            )
        return None
    except openai.AuthenticationError as exc:
        return f"HTTP {exc.status_code}: the key was refused ({status_detail(exc)})"
    except openai.PermissionDeniedError as exc:
        return f"HTTP {exc.status_code}: not allowed with this key ({status_detail(exc)})"
    except openai.APIStatusError as exc:
        return f"HTTP {exc.status_code}: {status_detail(exc)}"
    except openai.APITimeoutError:
        return f"no answer within {timeout_s:g} s"
    except openai.APIConnectionError as exc:
        cause = exc.__cause__
        return f"cannot connect ({type(cause).__name__ if cause else 'connection error'})"
    finally:
        await client.close()


async def _reach_all(
    targets: dict[_Target, list[str]], env: Mapping[str, str], timeout_s: float
) -> list[str]:
    results = await asyncio.gather(*(_reach(t, env, timeout_s) for t in targets))
    problems = []
    for (target, whos), problem in zip(targets.items(), results, strict=True):
        if problem is not None:
            problems.append(
                providers.scrub(
                    f"provider {target.base_url} ({_key_words(target)}; needed by "
                    f"{', '.join(whos)}): {problem}"
                )
            )
    return problems


def preflight(
    config: ExperimentConfig | Iterable[ExperimentConfig],
    env: Mapping[str, str] = os.environ,
    *,
    timeout_s: float = PREFLIGHT_TIMEOUT_S,
) -> None:
    """Reach every provider of ``config`` (or of several: a study's runs) once; raise
    ``ProviderSetupError`` naming each one that could not be reached. Call after
    ``check_credentials`` (keys are present)."""
    if env.get(PREFLIGHT_ENV, "").lower() == "off":
        return
    configs = [config] if isinstance(config, ExperimentConfig) else list(config)
    targets = _targets(configs, env)
    if not targets:
        return
    problems = asyncio.run(_reach_all(targets, env, timeout_s))
    if problems:
        raise providers.ProviderSetupError("\n".join(problems))
