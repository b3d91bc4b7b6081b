"""Context windows: how many tokens each model takes, and the check that keeps a request
that would not fit from being sent (docs/providers.md, "Context windows").

A window is the provider block's ``context_window`` where given (per agent: each agent has
its own provider block), else the default for the model's name (``DEFAULT_WINDOWS``), else
``ASSUMED_WINDOW`` with a warning before the run. A request fits when its input tokens
(``runtime.tokens``) plus the room kept for the answer (``max_output_tokens`` where the
agent sets it, else ``OUTPUT_RESERVE``) are at most the window.
"""

from __future__ import annotations

from dataclasses import dataclass

from maai.domain.calls import ModelRequest
from maai.domain.config import ExperimentConfig, ModelUser
from maai.domain.embeddings import EMBEDDER
from maai.runtime.providers import SIMULATED, describe_who, resolve_route
from maai.runtime.tokens import ESTIMATE_MARGIN, TokenCount, count_request

ASSUMED_WINDOW = 8_192
OUTPUT_RESERVE = 1_024
FRAMING_BYTES = 64  # at least the chat framing's tokens (runtime.tokens)

# Name fragments (lower case) and windows in tokens, as the providers publish them; the
# first fragment found in the model's name wins, so the more specific come first.
DEFAULT_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4.5", 128_000),
    ("gpt-5", 400_000),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("o1-mini", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini", 1_048_576),
    ("claude", 200_000),
    ("llama3.1", 131_072),
    ("llama-3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama-3.2", 131_072),
    ("llama3.3", 131_072),
    ("llama-3.3", 131_072),
    ("llama3", 8_192),
    ("llama-3", 8_192),
    ("qwen2.5", 32_768),
    ("qwen3", 32_768),
    ("mistral-large", 131_072),
    ("mistral", 32_768),
    ("mixtral", 32_768),
    ("deepseek", 65_536),
    ("gemma3", 131_072),
    ("gemma-3", 131_072),
    ("gemma2", 8_192),
    ("gemma-2", 8_192),
)


@dataclass(frozen=True)
class Window:
    tokens: int
    source: str  # "context_window in the config", "default for gpt-4o", "assumed"

    @property
    def assumed(self) -> bool:
        return self.source == "assumed"


def default_window(name: str) -> tuple[str, int] | None:
    lowered = name.lower()
    for fragment, tokens in DEFAULT_WINDOWS:
        if fragment in lowered:
            return fragment, tokens
    return None


def window_of(user: ModelUser) -> Window | None:
    """The user's window; None for the simulated model without a declared one (it has no
    window: nothing to check)."""
    provider = user.provider
    if user.who == EMBEDDER:  # embeddings take one short text each: no prompt to check
        return None
    if provider is not None and provider.context_window is not None:
        return Window(provider.context_window, "context_window in the config")
    if user.model == SIMULATED:
        return None
    name = resolve_route(user.model, provider, who=user.who).name
    found = default_window(name)
    if found is None:
        return Window(ASSUMED_WINDOW, "assumed")
    return Window(found[1], f"default for {found[0]}")


def window_warnings(config: ExperimentConfig) -> list[str]:
    """One warning per model whose window is assumed, naming the agents that use it."""
    users: dict[str, list[str]] = {}
    for user in config.model_users():
        window = window_of(user)
        if window is not None and window.assumed:
            users.setdefault(user.model, []).append(describe_who(user.who))
    return [
        f"model {model!r} has no known context window; assuming {ASSUMED_WINDOW:,} tokens "
        f"(used by {', '.join(whos)}). Set provider.context_window to its real window."
        for model, whos in users.items()
    ]


@dataclass(frozen=True)
class Overflow:
    """A request that would not fit: not sent."""

    count: TokenCount
    reserve: int
    window: Window

    def describe(self, request: ModelRequest) -> str:
        return (
            f"request {request.address} needs {self.count.describe()} plus {self.reserve:,} "
            f"kept for the answer, over the context window of {self.window.tokens:,} tokens "
            f"({self.window.source}); not sent"
        )


class WindowCheck:
    """Checks each request of a run against its caller's window."""

    def __init__(self, config: ExperimentConfig) -> None:
        self._limits: dict[str, tuple[Window, int, str, bool]] = {}
        for user in config.model_users():
            window = window_of(user)
            if window is None:
                continue
            route = resolve_route(user.model, user.provider, who=user.who)
            provider = user.provider
            reserve = (
                provider.max_output_tokens
                if provider is not None and provider.max_output_tokens is not None
                else OUTPUT_RESERVE
            )
            self._limits[user.who] = (window, reserve, route.name, route.kind == "openai")

    def overflow(self, request: ModelRequest) -> Overflow | None:
        limit = self._limits.get(request.agent)
        if limit is None:
            return None
        window, reserve, name, exact = limit
        # Counting costs a pass of the tokenizer; a request whose UTF-8 bytes (no token is
        # shorter than one byte), margin and framing included, fit the room is let through
        # uncounted, which is most requests of a run far from its window.
        room = window.tokens - reserve
        size = len(request.system.encode()) + len(request.input.encode()) + FRAMING_BYTES
        if request.output_schema is None and size * (1 + ESTIMATE_MARGIN) <= room:
            return None
        count = count_request(request, name, exact=exact)
        if count.tokens + reserve <= window.tokens:
            return None
        return Overflow(count, reserve, window)
