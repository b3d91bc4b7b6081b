"""The utility agent's structured extraction, the parts every experiment shares: the base of
the output models, hand-written JSON schemas, the words that ask for a schema in a prompt,
and a tolerant reader of what comes back.

The schemas are written out by hand rather than generated from the models: a schema is part
of every extraction request and so of its hash, and a generator's output may change with a
pydantic upgrade, which would make ``verify`` report drift in runs nothing changed.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from maai.domain.answer_text import (
    TOO_LONG,
    JsonProblem,
    json_candidates,
    loads,
    normalise_whitespace,
    too_long,
)


class Extraction(BaseModel):
    """Base of the extraction outputs: every field required, nothing else allowed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    readable: bool  # False: the text states no answer that can be read


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def json_object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def schema_instructions(schema: dict[str, Any]) -> str:
    """Words for a prompt, for servers that cannot take a JSON schema (json_schema: false).

    Deterministic: the text is part of the request and so of its hash."""
    rendered = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False)
    return (
        "Reply with one JSON object and nothing else, matching this JSON schema. "
        "Give every property; use null where the text gives no value.\n"
        f"{rendered}"
    )


class ExtractionFailure(BaseModel):
    """Why a reply could not be read as the extraction asked for."""

    model_config = ConfigDict(frozen=True)

    reason: str


E = TypeVar("E", bound=Extraction)


def parse_extraction(text: str, model_cls: type[E]) -> E | ExtractionFailure:
    """Read a reply as ``model_cls``: plain JSON, JSON in a code fence, or one JSON object
    with words around it. Returns the reason when it cannot."""
    if not text.strip():
        return ExtractionFailure(reason="empty reply")
    if too_long(normalise_whitespace(text)):
        return ExtractionFailure(reason=TOO_LONG)
    data: Any = None
    for candidate in json_candidates(text):
        try:
            data = loads(candidate)
        except JsonProblem as problem:
            return ExtractionFailure(reason=str(problem))
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            break
    else:
        if data is None:
            return ExtractionFailure(reason="no JSON object found in the reply")
    if not isinstance(data, dict):
        return ExtractionFailure(reason=f"expected a JSON object, got {type(data).__name__}")
    try:
        return model_cls.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            path = ".".join(str(p) for p in err["loc"]) or "(object)"
            msg = "unexpected property" if err["type"] == "extra_forbidden" else err["msg"]
            problems.append(f"{path}: {msg}")
        return ExtractionFailure(reason="does not match the schema: " + "; ".join(problems))
