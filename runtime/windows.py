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
# first fragment found in the model's name wins, so the more specific come first. Each
# entry names its source; "uncertain" marks an entry whose figure varies with the version or
# the server (docs/providers.md, "Context windows", lists them): declare the window there.
DEFAULT_WINDOWS: tuple[tuple[str, int], ...] = (
    # OpenAI, platform.openai.com/docs/models (each model's page, "Context window").
    ("gpt-4.1", 1_047_576),  # gpt-4.1, -mini, -nano
    ("gpt-4o", 128_000),  # gpt-4o, gpt-4o-mini, chatgpt-4o-latest
    ("gpt-4-turbo", 128_000),
    ("gpt-4-1106", 128_000),  # gpt-4-1106-preview (GPT-4 Turbo preview)
    ("gpt-4-0125", 128_000),  # gpt-4-0125-preview (GPT-4 Turbo preview)
    ("gpt-4.5", 128_000),  # gpt-4.5-preview
    ("gpt-5-chat", 128_000),  # gpt-5-chat-latest; uncertain (the chat alias differs)
    ("gpt-5", 400_000),  # gpt-5, -mini, -nano: 400,000 in all (input and output together)
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),  # the original gpt-4 / gpt-4-0613
    ("gpt-3.5-turbo", 16_385),  # gpt-3.5-turbo-0125 (older snapshots: 4,096)
    ("o1-mini", 128_000),
    ("o1-preview", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),  # o3, o3-mini
    ("o4-mini", 200_000),
    # Google, ai.google.dev/gemini-api/docs/models ("Input token limit").
    ("gemini-1.5-pro", 2_097_152),
    ("gemini", 1_048_576),  # 1.5 Flash, 2.0 and 2.5 Flash/Pro; uncertain for other variants
    # Anthropic, docs.anthropic.com/en/docs/about-claude/models (Claude 3 and later).
    ("claude", 200_000),
    # Meta's model cards (github.com/meta-llama/llama-models, MODEL_CARD.md): 128K.
    ("llama3.1", 131_072),
    ("llama-3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama-3.2", 131_072),
    ("llama3.3", 131_072),
    ("llama-3.3", 131_072),
    ("llama3", 8_192),  # Llama 3 (8K)
    ("llama-3", 8_192),
    # Qwen's model cards (huggingface.co/Qwen): native 32,768; more only with YaRN scaling,
    # which the server must enable. Uncertain: Qwen2.5-Turbo and later Qwen3 releases differ.
    ("qwen2.5", 32_768),
    ("qwen3", 32_768),
    # Mistral, docs.mistral.ai/getting-started/models.
    ("mistral-large", 131_072),  # Mistral Large 2 (2407 and later)
    ("mistral-nemo", 131_072),
    ("mistral", 32_768),  # Mistral 7B v0.2+, Small; uncertain: newer Small releases take more
    ("mixtral", 32_768),  # 8x7B; uncertain: 8x22B takes 65,536
    # DeepSeek, api-docs.deepseek.com (deepseek-chat, deepseek-reasoner: 64K). Uncertain:
    # later API versions and the open weights (128K) take more.
    ("deepseek", 65_536),
    # Google's Gemma model cards (ai.google.dev/gemma/docs/core): Gemma 3 1B 32K, larger 128K;
    # Gemma 2 8K.
    ("gemma3:1b", 32_768),
    ("gemma-3-1b", 32_768),
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
