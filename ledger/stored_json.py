"""Payload JSON as the store writes and reads it: normalized before it is hashed and stored
(see ``ledger.envelope`` for the rules and why), checked for what a database cannot keep,
and parsed back with every object's keys in canonical order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

from maai.canonical import (
    WithShared,
    canonical_json,
    canonical_json_of,
    canonical_json_shared,
    json_string,
)
from maai.ledger.errors import InvalidEventError

# A JSON "\u0000" escape that is not itself an escaped backslash followed by "u0000".
_NUL_ESCAPE_RE: Final = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")


_str = json_string


_Scanner = Callable[[str, int], tuple[Any, int]]
_scan: _Scanner = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_scan_normalizing: _Scanner = json.JSONDecoder(
    parse_float=lambda token: _normalize_float(token)
).scan_once  # type: ignore[attr-defined]


def _in_canonical_order(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return dict(sorted(pairs, key=_first))


def _first(pair: tuple[str, Any]) -> str:
    return pair[0]


# Every object comes back with its keys in canonical order (sorted, as canonical JSON writes
# them): PostgreSQL's JSONB prints keys in an order of its own (shorter keys first), and what
# is rendered or hashed from a payload must not depend on the backend it was read from.
_decoder = json.JSONDecoder(object_pairs_hook=_in_canonical_order)


def parse_json(text: str) -> Any:
    """Parse stored JSON text (strictly: trailing text is an error), every object's keys in
    canonical order (:func:`canonical_order`)."""
    return _decoder.decode(text)


def canonical_order(value: Any) -> Any:
    """``value`` with every dict's keys in canonical order (sorted, as canonical JSON writes
    them): what a reader gets whatever order a backend returned (a JSONB column)."""
    if isinstance(value, dict):
        return {key: canonical_order(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [canonical_order(item) for item in value]
    return value


def parse_canonical_json(text: str) -> Any:
    """:func:`parse_json` for text the store wrote itself (canonical: no whitespace around
    it), skipping the whitespace handling; anything else takes the general path."""
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        return parse_json(text)  # raises the decoder's own error
    if end != len(text):
        return parse_json(text)
    return value


def _normalize_float(token: str) -> float | int:
    value = float(token)
    if "e+" in token:
        return int(value)
    if value == 0.0:
        return 0.0
    return value


def normalize_json(value: Any, what: str) -> tuple[Any, str]:
    """Return ``(normalized value, its canonical JSON text)``; ``what`` names the value in
    errors. The normalized value is a fresh object that shares nothing with ``value``."""
    text = normalized_json_text(value, what)
    return _scan(text, 0)[0], text


def normalized_json_text(value: Any, what: str) -> str:
    """The canonical JSON text of ``value`` once normalized (what is stored and hashed),
    without building the normalized value itself; ``what`` names the value in errors."""
    return checked_json_text(encoded_json_text(value, what), what)


def encoded_json_text(value: Any, what: str) -> str:
    """The canonical JSON text of ``value`` as it is, before :func:`checked_json_text`: what
    cannot be JSON at all (another type, a cycle) is refused here."""
    try:
        # Shared items (maai.canonical.FrozenJson) keep their text: a request carrying a
        # long history costs its new items. Same text as canonical_json, byte for byte.
        return canonical_json_of(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise _not_storable(what, exc) from None


def encoded_json_parts(value: Any, what: str) -> list[str]:
    """:func:`encoded_json_text` as pieces whose concatenation is the text: the members of a
    :class:`~maai.canonical.WithShared` payload (a model request, whose kept text holds its
    whole prompt) as they are, where the text itself would copy them once for each level of
    concatenation. The store joins them only for a payload it stores whole."""
    if type(value) is not WithShared or not value or not all(type(key) is str for key in value):
        return [encoded_json_text(value, what)]
    # canonical_json_shared's own layout, one level down:
    # "{" + ",".join(key + ":" + member for key in sorted) + "}".
    parts: list[str] = []
    try:
        for key in sorted(value):
            parts += (",", _str(key), ":", canonical_json_shared(value[key]))
    except (TypeError, ValueError, RecursionError) as exc:
        raise _not_storable(what, exc) from None
    parts[0] = "{"
    parts.append("}")
    return parts


def _not_storable(what: str, exc: TypeError | ValueError | RecursionError) -> InvalidEventError:
    """What encoding ``what`` as JSON raised, as the error the store gives."""
    if isinstance(exc, RecursionError):
        return InvalidEventError(f"{what} is circular or nested too deeply")
    return InvalidEventError(f"{what} is not storable as JSON: {exc}")


def checked_json_text(text: str, what: str) -> str:
    """``text`` (from :func:`encoded_json_text`) normalized: NUL characters refused, the
    floats that PostgreSQL would give back otherwise rewritten (see the module's doc)."""
    if "\\u0000" in text and _NUL_ESCAPE_RE.search(text):
        raise InvalidEventError(f"{what} contains a NUL character (\\u0000), which is not stored")
    # Only these two substrings can announce a float that normalization changes; checking
    # for them first keeps the common case to one encode. "+" alone is found by memchr, a
    # hundred times faster than a two-character search on a long prompt.
    if ("+" in text and "e+" in text) or "-0.0" in text:
        text = canonical_json(_scan_normalizing(text, 0)[0])
    return text
