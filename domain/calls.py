"""Model calls as data: what the protocol asks of a model, and what came back.

Experiment-agnostic and pure. A request is fully rendered by the domain (system text,
input, settings), so recording it is enough to rebuild every prompt an agent saw and to
check, on verify, that current code would issue exactly the same request.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from maai.canonical import (
    FrozenJson,
    FrozenJsonList,
    JsonString,
    Memo,
    SharedText,
    canonical_json,
    canonical_json_shared,
    is_shared,
    json_string,
)

# Purposes generic pieces use; an experiment names its own (a ``StrEnum`` of its own, or plain
# strings). The simulated participant learns a call's purpose from the engine, never from the
# prompt text.
MEMORY = "memory"  # rewrite memory after a step
MEMORY_SHORTEN = "memory_shorten"  # memory was over the limit: shorten it
EXTRACT = "extract"  # utility agent: structured extraction from a participant's text


REQUEST_HASH_VERSION = 2
"""The request hash new runs use (recorded in their ``run.started``; docs/ledger.md, "Request
hashes"). Version 1 hashes a request's whole JSON; version 2 hashes it with the blocks it
shares with other requests (the public history) cut out and replaced by their sha256, so a
request's hash costs its own text and not the whole discussion it shows."""


class HashCut(BaseModel):
    """One block cut out of a request for its hash (version 2): the characters
    ``[start, end)`` of the string at ``path`` (``input``), or the whole value at ``path``
    (``context.history``) when ``start`` and ``end`` are ``None``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    start: int | None = None
    end: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "start": self.start, "end": self.end}


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
    # Request hash version 2 (REQUEST_HASH_VERSION) where set, else version 1. Absent from
    # the JSON of a request without it, so requests recorded before it re-encode unchanged.
    hash_cuts: list[HashCut] | None = None
    # The fields' canonical JSON once written (a request is recorded right after it is
    # hashed); see _plain_text for when it is kept.
    _text: str | None = PrivateAttr(default=None)
    # (start, end, block): input[start:end] is a shared text whose JSON and sha256 are
    # kept (``sharing``), so neither is made again for this request.
    _input_block: tuple[int, int, SharedText] | None = PrivateAttr(default=None)

    @model_serializer(mode="wrap")
    def _without_absent_cuts(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("hash_cuts", ...) is None:
            del data["hash_cuts"]
        return data

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

    def sharing(
        self,
        block: SharedText | None,
        context_key: str | None,
        *,
        cut: bool,
        span: tuple[int, int] | None = None,
        input_text: str | None = None,
    ) -> ModelRequest:
        """This request, told what it shares with other requests: ``block``, a text its input
        shows (its first occurrence), and the context value at ``context_key``. Its JSON then
        reuses the block's. With ``cut`` (a run on request hash version 2) both are cut out
        for its hash (``hash_cuts``), which then costs the request's own text only.

        ``span``: where that first occurrence is, from a caller that put the block there and
        knows it occurs nowhere before (else it is looked for). ``input_text``: the input
        instead of this request's (made in one copy with it)."""
        text = self.input if input_text is None else input_text
        if span is None and block is not None:
            span = _span(text, block.text)
        update: dict[str, Any] = {} if input_text is None else {"input": input_text}
        if cut:
            cuts = [] if span is None else [HashCut(path="input", start=span[0], end=span[1])]
            if context_key is not None and context_key in self.context:
                cuts.append(HashCut(path=f"context.{context_key}"))
            update["hash_cuts"] = cuts
        request = self.model_copy(update=update) if update else self
        if span is not None and block is not None:
            request._input_block = (span[0], span[1], block)
        return request

    def request_hash(self, memo: Memo | None = None) -> str:
        """Version 1 (no ``hash_cuts``): sha256 of the canonical JSON of
        ``model_dump(mode="json")``. The fields are JSON values already, so they are
        serialized as they are (reusing the kept text of shared history items,
        ``maai.canonical.FrozenJson``); a context holding anything else (a model, a date)
        takes the general path, which gives the same text. ``memo``: texts of the dicts met
        so far in a pass over many requests (``maai.canonical.Memo``).

        Version 2 (``hash_cuts`` set): sha256 of the canonical JSON of the same object with
        each cut value replaced (docs/ledger.md, "Request hashes")."""
        if self.hash_cuts is not None:
            return self._hash_v2(memo)
        text = self._text or self._plain_text(memo) or canonical_json(self.model_dump(mode="json"))
        return hashlib.sha256(text.encode()).hexdigest()

    def _hash_v2(self, memo: Memo | None) -> str:
        assert self.hash_cuts is not None
        try:
            fields = self._fields()
            _cut(fields, self.hash_cuts, self._input_block)
            # With the shared blocks cut out, what is left is the request's own small values:
            # the C encoder writes them at once (the same text: it writes the shared kinds,
            # dict and list subclasses, as plain ones), where looking for kept texts would
            # walk them in Python. A shared value left uncut takes the shared path.
            context = fields["context"]
            if isinstance(context, dict) and any(map(is_shared, context.values())):
                text = canonical_json_shared(fields, memo)
            else:
                text = canonical_json(fields)
        except (TypeError, ValueError):
            fields = self.model_dump(mode="json")
            _cut(fields, self.hash_cuts, None)
            text = canonical_json(fields)
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
        fields = {name: getattr(self, name) for name in _FIELDS}
        if self.hash_cuts is None:
            del fields["hash_cuts"]
        else:
            fields["hash_cuts"] = [cut.as_json() for cut in self.hash_cuts]
        return fields

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
            if (
                memo is None
                and self._input_block is None
                and not any(map(is_shared, self.context.values()))
            ):
                text = canonical_json(fields)  # nothing kept to reuse: the C encoder at once
            else:
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

HEAD_CHARS = 64
"""How much of a shared block is looked for first (``_span``)."""


def first_after(before: str, block: str) -> bool:
    """Whether the first occurrence of ``block`` in any text ``before + block + ...`` is the
    one after ``before`` (where ``_span`` finds the block, and the hash cut of a request
    showing it falls): no occurrence of its head starts inside ``before``. Costs ``before``'s
    length, never the block's."""
    head = block[:HEAD_CHARS]
    return bool(head) and (before + head[:-1]).find(head) < 0


def _span(text: str, block: str) -> tuple[int, int] | None:
    """Where ``block`` first occurs in ``text``. Its head is looked for (in the text before
    the block: the request's own text), then the rest compared: no pass over the text as
    costly as a search for the whole block."""
    if not block:
        return None
    head = block[:HEAD_CHARS]
    at = text.find(head)
    while at >= 0:
        if text.startswith(block, at):
            return at, at + len(block)
        at = text.find(head, at + 1)
    return None


def _cut(
    fields: dict[str, Any],
    cuts: list[HashCut],
    input_block: tuple[int, int, SharedText] | None,
) -> None:
    """Replace each cut value of ``fields`` (a request's JSON object) in place: a string's
    ``[start, end)`` by ``[before, sha256 of the cut, after]``, a whole value by the sha256
    of its canonical JSON. Digests kept by shared values are used as they are."""
    for cut in cuts:
        *parents, key = cut.path.split(".")
        holder = fields
        for name in parents:  # copied on the way down: the request's own dicts stay as they are
            inner = holder.get(name)
            if not isinstance(inner, dict):
                raise ValueError(f"hash cut {cut.path!r}: no object {name!r}")
            holder[name] = holder = dict(inner)
        if key not in holder:
            raise ValueError(f"hash cut {cut.path!r}: no value {key!r}")
        value = holder[key]
        if cut.start is None and cut.end is None:
            if isinstance(value, FrozenJsonList):
                holder[key] = value.sha256()
            else:
                holder[key] = _sha256(canonical_json_shared(value))
            continue
        if not isinstance(value, str) or cut.start is None or cut.end is None:
            raise ValueError(f"hash cut {cut.path!r}: not a string with start and end")
        if not 0 <= cut.start <= cut.end <= len(value):
            raise ValueError(f"hash cut {cut.path!r}: [{cut.start}, {cut.end}) out of range")
        if cut.path == "input" and input_block is not None and input_block[:2] == (
            cut.start,
            cut.end,
        ):
            digest = input_block[2].sha256()
        else:
            digest = _sha256(value[cut.start : cut.end])
        holder[key] = [value[: cut.start], digest, value[cut.end :]]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Usage(BaseModel):
    """The tokens of one call as its provider reported them (docs/providers.md, "Usage and
    cost"). ``cached_input_tokens`` are part of ``input_tokens`` (read from the provider's
    prefix cache, billed at the cached rate); ``reasoning_tokens`` are part of
    ``output_tokens`` (hidden reasoning, billed as output). ``unreadable`` names the usage
    fields the provider sent with a type that is no count: they were counted as 0 and the
    provider's own usage is kept in the answer's raw response."""

    model_config = ConfigDict(frozen=True)

    requests: int = 1
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    unreadable: tuple[str, ...] = ()

    @model_serializer(mode="wrap")
    def _without_absent_details(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A call recorded before these fields existed (or without them) re-encodes as stored.
        data = handler(self)
        if isinstance(data, dict):
            for name in _USAGE_DETAILS:
                if not data.get(name):
                    data.pop(name, None)
        return data


_USAGE_DETAILS = ("cached_input_tokens", "reasoning_tokens", "unreadable")


class ModelAnswer(BaseModel):
    """What a model returned for one request: the text, and the raw response serialized so
    that it round-trips exactly."""

    model_config = ConfigDict(frozen=True)

    text: str
    raw: dict[str, Any] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    attempts: int = 1
    # The provider's summary of the model's hidden reasoning, where it sent one: private
    # (never shown to other agents). Absent from the JSON of an answer without it.
    reasoning: str | None = None

    @model_serializer(mode="wrap")
    def _without_absent_reasoning(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("reasoning", "") is None:
            del data["reasoning"]
        return data

    def without_raw(self) -> ModelAnswer:
        """The answer as a run's state holds it (``state.answers``): without the provider's
        raw response, which no reducer or protocol reads (docs/experiments.md, "What the
        protocol may read of an answer") and which folding a stored run does not read
        (``runtime.engine.FOLD_OMITS``); the ledger keeps it."""
        return self.model_copy(update={"raw": {}}) if self.raw else self
