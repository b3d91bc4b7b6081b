"""Scrubbing keys out of text: every key a provider was handed is remembered here, and
``scrub`` removes it, any fragment of it, and anything shaped like a key from error text
before it reaches the ledger, a log or the terminal (docs/providers.md)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

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
