"""Model calls as data: what the protocol asks of a model, and what came back.

Experiment-agnostic and pure. A request is fully rendered by the domain (system text,
input, settings), so recording it is enough to rebuild every prompt an agent saw and to
check, on verify, that current code would issue exactly the same request.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from maai.canonical import (
    FrozenJson,
    FrozenJsonList,
    JsonString,
    Memo,
    SharedText,
    canonical_json,
    canonical_json_shared,
    json_string,
)

# Purposes generic pieces use; an experiment names its own (a ``StrEnum`` of its own, or plain
# strings). The simulated participant learns a call's purpose from the engine, never from the
# prompt text.
MEMORY = "memory"  # rewrite memory after a step
MEMORY_SHORTEN = "memory_shorten"  # memory was over the limit: shorten it
EXTRACT = "extract"  # utility agent: structured extraction from a participant's text


class ModelRequest(BaseModel):
    """One logical model call, addressed by the protocol (e.g. ``p1/alice/r3/choice/1``).

    ``context`` carries structured facts the caller already put into the prompt (purpose
    details for the simulated participant); real providers never receive it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    address: str
    agent: str
    purpose: str
    model: str
    system: str
    input: str
    temperature: float | None = None
    output_schema: dict[str, Any] | None = None
    schema_name: str | None = None
    context: dict[str, Any] = Field(default_factory=dict)
    # The fields' canonical JSON once written (a request is recorded right after it is
    # hashed); see _plain_text for when it is kept.
    _text: str | None = PrivateAttr(default=None)
    # (start, end, block): input[start:end] is a shared text whose JSON is kept
    # (``sharing``), so it is not written again for this request.
    _input_block: tuple[int, int, SharedText] | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        # The fields only: whether their JSON was kept yet is no part of what a request is.
        if not isinstance(other, ModelRequest):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # a context dict is not hashable anyway

    def model_copy(
        self, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> ModelRequest:
        copied = super().model_copy(update=update, deep=deep)
        if update:  # other fields: what was written of these is not theirs
            copied._text = None
            copied._input_block = None
        return copied

    def sharing(self, block: SharedText | None) -> ModelRequest:
        """This request, told that its input shows ``block`` (its first occurrence), a text
        other requests show too: its JSON then reuses the block's, written once."""
        span = _span(self.input, block.text) if block is not None else None
        if span is not None and block is not None:
            self._input_block = (span[0], span[1], block)
        return self

    def request_hash(self, memo: Memo | None = None) -> str:
        """sha256 of the canonical JSON of ``model_dump(mode="json")``. The fields are JSON
        values already, so they are serialized as they are (reusing the kept text of shared
        history items, ``maai.canonical.FrozenJson``); a context holding anything else (a
        model, a date) takes the general path, which gives the same text. ``memo``: texts of
        the dicts met so far in a pass over many requests (``maai.canonical.Memo``)."""
        text = self._text or self._plain_text(memo) or canonical_json(self.model_dump(mode="json"))
        return hashlib.sha256(text.encode()).hexdigest()

    def json_fields(self) -> dict[str, Any] | None:
        """The fields as they are, when they are what ``model_dump(mode="json")`` gives
        (plain JSON values: nothing to convert, and shared history items stay shared), else
        ``None``. Spares copying a long history for every request recorded."""
        text = self._text or self._plain_text(None)
        if text is None:
            return None
        fields = FrozenJson(self._fields())
        fields.keep_canonical(text)  # written once: hashed, then stored
        return fields

    def _fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _FIELDS}

    def _plain_text(self, memo: Memo | None) -> str | None:
        """The fields' canonical JSON written as they are, or ``None`` where they hold
        something that is not plain JSON (``model_dump`` converts it)."""
        fields = self._fields()
        if self._input_block is not None:
            # The input's JSON from its own text and the shared block's kept JSON: escaping
            # is per character, so the pieces' escapes joined are the whole text's.
            start, end, block = self._input_block
            text = self.input
            fields["input"] = JsonString(
                json_string(text[:start])[:-1] + block.json_body + json_string(text[end:])[1:]
            )
        try:
            text = canonical_json_shared(fields, memo)
        except (TypeError, ValueError):
            return None
        # Kept for the store only on a request the protocol just made (its history shared,
        # about to be recorded): kept on every request of a history read back, the texts
        # would hold all its prompts in memory a second time.
        if any(isinstance(value, FrozenJsonList) for value in self.context.values()):
            self._text = text
        return text


_FIELDS = tuple(ModelRequest.model_fields)


def _span(text: str, block: str) -> tuple[int, int] | None:
    """Where ``block`` first occurs in ``text``. Its head is looked for (in the text before
    the block: the request's own text), then the rest compared: no pass over the text as
    costly as a search for the whole block."""
    if not block:
        return None
    head = block[:64]
    at = text.find(head)
    while at >= 0:
        if text.startswith(block, at):
            return at, at + len(block)
        at = text.find(head, at + 1)
    return None


class Usage(BaseModel):
    model_config = ConfigDict(frozen=True)

    requests: int = 1
    input_tokens: int = 0
    output_tokens: int = 0


class ModelAnswer(BaseModel):
    """What a model returned for one request: the text, and the raw response serialized so
    that it round-trips exactly."""

    model_config = ConfigDict(frozen=True)

    text: str
    raw: dict[str, Any] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    attempts: int = 1
