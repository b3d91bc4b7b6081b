"""One OpenAI Agents SDK trace per run, exported to OpenAI only where the run is OpenAI's
business anyway (docs/providers.md#tracing).

Policy: a run's trace goes to OpenAI's trace endpoint only when

1. tracing is enabled in the config (``tracing: true``, the default), and
2. the run itself calls OpenAI's API (an agent or the utility agent routed to OpenAI, with
   ``OPENAI_BASE_URL`` unset or at openai.com), or tracing to OpenAI is asked for explicitly
   (``MAAI_TRACING=openai``), and
3. an OpenAI key is set (the key of the run's OpenAI route: ``OPENAI_API_KEY``, or the
   variable its ``api_key_env`` names), and that variable is not one whose key goes to a
   third-party server, nor holds such a key under another name.

A run of simulated or third-party models only never exports anything, whatever keys the
environment holds. ``MAAI_TRACING=off`` (or ``OPENAI_AGENTS_DISABLE_TRACING=1``) turns
tracing off for every run. The key travels on the trace itself (``tracing={"api_key":
...}``), so the exporter never falls back to whatever ``OPENAI_API_KEY`` happens to hold in
the process environment. Otherwise no trace is created at all: model spans without a trace
are no-ops, so nothing can be exported.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from urllib.parse import urlsplit

from agents.tracing import gen_trace_id, trace

from maai.domain.config import ExperimentConfig
from maai.runtime.providers import (
    OPENAI_BASE_URL_ENV,
    OPENAI_KEY_ENV,
    ProviderSetupError,
    resolve_route,
)

NOOP_TRACE_ID = "no-op"
TRACING_ENV = "MAAI_TRACING"
"""``openai``: export a run's trace to OpenAI even when the run calls no OpenAI model (with
``OPENAI_API_KEY``); ``off``: never trace. Unset (or ``auto``): the policy above."""
_OFF = frozenset({"off", "0", "false", "no", "none"})
_OPENAI = frozenset({"openai", "1", "true", "yes", "on"})


def openai_key_envs(config: ExperimentConfig) -> tuple[str, ...]:
    """The key variables of the run's callers routed to OpenAI's API, in config order,
    without repeats; empty when the run calls no OpenAI model."""
    found: list[str] = []
    for user in config.model_users():
        try:
            route = resolve_route(user.model, user.provider, who=user.who)
        except ProviderSetupError:
            continue
        if route.kind == "openai" and route.key_env and route.key_env not in found:
            found.append(route.key_env)
    return tuple(found)


def trace_key_env(config: ExperimentConfig) -> str:
    """The variable whose key a run's trace is exported with: its OpenAI route's key
    (``OPENAI_API_KEY`` when it is among them), else ``OPENAI_API_KEY``."""
    envs = openai_key_envs(config)
    if not envs or OPENAI_KEY_ENV in envs:
        return OPENAI_KEY_ENV
    return envs[0]


def export_key(
    enabled: bool,
    env: Mapping[str, str],
    *,
    uses_openai: bool,
    key_env: str = OPENAI_KEY_ENV,
    third_party_key_envs: Collection[str] = (),
) -> str | None:
    """The key a run's trace may be exported with, or None when it must not be exported.

    ``uses_openai``: whether the run itself calls OpenAI's API; without it only
    ``MAAI_TRACING=openai`` in ``env`` lets a trace go to OpenAI."""
    asked = env.get(TRACING_ENV, "").strip().lower()
    if not enabled or asked in _OFF:
        return None
    if uses_openai and not _openais(env.get(OPENAI_BASE_URL_ENV, "")):
        # The OpenAI route goes to another server (a proxy, a gateway, a local stand-in):
        # the run calls no OpenAI API, and its key is that server's.
        uses_openai = False
    if not uses_openai and asked not in _OPENAI:
        return None
    if key_env in third_party_key_envs:
        return None
    key = env.get(key_env, "").strip()
    if not key:
        return None
    # The same key under another name is still a third party's key.
    if any(env.get(var, "").strip() == key for var in third_party_key_envs):
        return None
    return key


def _openais(base_url: str) -> bool:
    """Whether ``OPENAI_BASE_URL`` (empty: unset) leaves the OpenAI route at OpenAI's API."""
    if not base_url.strip():
        return True
    host = urlsplit(base_url.strip()).hostname or ""
    return host == "openai.com" or host.endswith(".openai.com")


@contextmanager
def run_trace(
    run_id: str,
    name: str,
    enabled: bool,
    env: Mapping[str, str] = os.environ,
    *,
    uses_openai: bool,
    key_env: str = OPENAI_KEY_ENV,
    third_party_key_envs: Collection[str] = (),
) -> Iterator[str | None]:
    """Open the run's trace; yields its id (to record in the run's first event), or None
    when the run is not traced."""
    key = export_key(
        enabled,
        env,
        uses_openai=uses_openai,
        key_env=key_env,
        third_party_key_envs=third_party_key_envs,
    )
    if key is None:
        yield None
        return
    run_trace_ = trace(
        name,
        trace_id=gen_trace_id(),
        group_id=run_id,  # a resumed run opens a new trace in the same group
        metadata={"run_id": run_id},
        tracing={"api_key": key},
    )
    with run_trace_:
        trace_id = run_trace_.trace_id
        # OPENAI_AGENTS_DISABLE_TRACING turns the trace into a no-op; report no trace then.
        yield None if trace_id == NOOP_TRACE_ID else trace_id
