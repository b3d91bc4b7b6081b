"""One OpenAI Agents SDK trace per run, exported only with an OpenAI key.

Policy: a run's trace goes to OpenAI's trace endpoint only when tracing is enabled in the
config AND an OpenAI key is set (``OPENAI_API_KEY``, or the variable named by ``key_env``)
AND that variable is not one whose key goes to a third-party server. The key travels on the
trace itself (``tracing={"api_key": ...}``), so the exporter never falls back to whatever
``OPENAI_API_KEY`` happens to hold in the process environment. Otherwise no trace is created
at all: model spans without a trace are no-ops, so nothing can be exported.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager

from agents.tracing import gen_trace_id, trace

from maai.runtime.providers import OPENAI_KEY_ENV

NOOP_TRACE_ID = "no-op"


def export_key(
    enabled: bool,
    env: Mapping[str, str],
    *,
    key_env: str = OPENAI_KEY_ENV,
    third_party_key_envs: Collection[str] = (),
) -> str | None:
    """The key a run's trace may be exported with, or None when it must not be exported."""
    if not enabled or key_env in third_party_key_envs:
        return None
    key = env.get(key_env, "").strip()
    if not key:
        return None
    # The same key under another name is still a third party's key.
    if any(env.get(var, "").strip() == key for var in third_party_key_envs):
        return None
    return key


@contextmanager
def run_trace(
    run_id: str,
    name: str,
    enabled: bool,
    env: Mapping[str, str] = os.environ,
    *,
    key_env: str = OPENAI_KEY_ENV,
    third_party_key_envs: Collection[str] = (),
) -> Iterator[str | None]:
    """Open the run's trace; yields its id (to record in the run's first event), or None
    when the run is not traced."""
    key = export_key(enabled, env, key_env=key_env, third_party_key_envs=third_party_key_envs)
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
