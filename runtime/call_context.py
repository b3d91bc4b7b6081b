"""The model call in progress, for models that need to know what they are asked.

The engine sets ``current_request`` around each model call. Real providers ignore it; the
simulated participant reads the call's purpose and structured context from it, so it never
has to look for markers in prompt text that real models would also see.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.embeddings import EMBEDDER

current_request: ContextVar[ModelRequest | None] = ContextVar("current_request", default=None)


@contextmanager
def calling(request: ModelRequest) -> Iterator[ModelRequest]:
    """Make ``request`` the call in progress for the duration of the block."""
    token = current_request.set(request)
    try:
        yield request
    finally:
        current_request.reset(token)


def describe_who(who: str) -> str:
    """``alice`` -> ``agent alice``; the reserved ``utility`` -> ``utility agent``,
    ``embedder`` -> ``embeddings model``."""
    if who == EMBEDDER:
        return "embeddings model"
    return "utility agent" if who == UTILITY else f"agent {who}"
