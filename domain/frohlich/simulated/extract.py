"""The simulated utility agent: a lenient extractor that answers in the requested JSON.

It reads what the participant's text states (letters in order of appearance, principle
names, dollar amounts, yes/no) and returns nulls where the text does not say; it never
invents a value. The reply is shaped by the request's JSON schema: only the properties the
schema names are given, each in the form the schema asks for (a poll answer as a boolean or
as "yes"/"no", a certainty as its enum spelling), so it fits whichever extraction models the
engine uses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from maai.domain.frohlich.simulated.facts import as_str
from maai.domain.frohlich.simulated.reading import (
    certainty_in,
    poll_answer_in,
    ranking_in,
    stance_in,
)


def canonical(kind: str, text: str) -> dict[str, Any]:
    """Everything readable from ``text`` for ``kind``, in plain JSON values."""
    if kind == "ranking":
        order = ranking_in(text)
        certainty = certainty_in(text)
        return {
            "order": [p.value for p in order] if order else None,
            "certainty": certainty.value if certainty else None,
            "readable": order is not None or certainty is not None,
        }
    if kind in ("choice", "ballot"):
        stance = stance_in(text, strict=True)
        return {
            "principle": stance.principle.value if stance else None,
            "amount": stance.amount if stance else None,
            "readable": stance is not None,
        }
    if kind == "poll":
        answer = poll_answer_in(text)
        return {"answer": answer, "readable": answer is not None}
    raise ValueError(f"the simulated utility agent cannot extract {kind!r}")


def _walk(schema: Any) -> list[Mapping[str, Any]]:
    """The schema and every alternative or item schema inside it."""
    if not isinstance(schema, Mapping):
        return []
    out = [schema]
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            out.extend(_walk(sub))
    if "items" in schema:
        out.extend(_walk(schema["items"]))
    return out


def _types(schema: Any) -> set[str]:
    types: set[str] = set()
    for sub in _walk(schema):
        t = sub.get("type")
        types.update([t] if isinstance(t, str) else t if isinstance(t, list) else [])
    return types


def _enum(schema: Any) -> list[Any]:
    return [v for sub in _walk(schema) for v in sub.get("enum") or []]


def _norm(value: Any) -> str:
    return re.sub(r"[\s_\-]+", "_", str(value).strip().lower())


def _spell(value: Any, schema: Any) -> Any:
    """``value`` in the spelling the schema's enum uses (``very_sure`` vs ``very sure``)."""
    if value is None:
        return None
    if isinstance(value, list):
        return [_spell(v, schema) for v in value]
    for option in _enum(schema):
        if _norm(option) == _norm(value):
            return option
    return value


def _answer(value: bool | None, schema: Any) -> Any:
    if value is None or "boolean" in _types(schema):
        return value
    return _spell("yes" if value else "no", schema)


def shape(values: Mapping[str, Any], schema: Mapping[str, Any] | None) -> dict[str, Any]:
    properties = schema.get("properties") if schema else None
    if not isinstance(properties, Mapping):
        return dict(values)
    out: dict[str, Any] = {}
    for name, prop in properties.items():
        value = values.get(name)
        out[name] = _answer(value, prop) if name == "answer" else _spell(value, prop)
    return out


def extract(context: Mapping[str, Any], schema: Mapping[str, Any] | None) -> str:
    kind = as_str(context.get("kind"))
    if kind is None:
        raise ValueError("an extraction request needs context['kind']")
    text = as_str(context.get("text")) or ""
    return json.dumps(shape(canonical(kind, text), schema), ensure_ascii=False)
