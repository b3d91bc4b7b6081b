"""Reading a few fields of some events' payloads instead of the whole payloads
(:meth:`EventStore.read_fields <ledger.store.EventStore.read_fields>`).

A reader that needs only a few short fields of an event type whose payloads are long (a fold
needs a model request's address and hash, not its prompt) names them as dotted paths
(``"request.address"``); the payload it gets for such an event is ``{path: value}``. On
SQLite the database picks the values (``json_extract``, in C): the rest of the payload is
neither copied out, parsed nor unpacked, which is most of what reading a long run costs.
Elsewhere the payload is parsed and the values picked here, with the same result.

Exact in every case: a value the store packed (``ledger.packing``: long texts and lists) is
stored as ``null``, so where a picked value is ``None`` and its event is packed, the event is
fetched whole, unpacked and picked again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

FieldPaths = Mapping[str, Sequence[str]]
"""Event type -> the dotted paths of its payload to read."""

_PATH_RE: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def checked_paths(fields: FieldPaths) -> dict[str, tuple[str, ...]]:
    """``fields`` with each type's paths as a tuple; raises ValueError for a path that is not
    dotted keys (letters, digits, underscores), so it can be written into SQL as is."""
    checked: dict[str, tuple[str, ...]] = {}
    for type_, paths in fields.items():
        if isinstance(paths, str) or not paths:
            raise ValueError(f"fields of {type_!r}: give a non-empty sequence of paths")
        for path in paths:
            if not _PATH_RE.match(path):
                raise ValueError(f"fields of {type_!r}: {path!r} is not a dotted path of keys")
        checked[type_] = tuple(paths)
    return checked


def sqlite_payload_column(fields: Mapping[str, tuple[str, ...]]) -> tuple[str, list[str]]:
    """The SQL expression that gives, for an event of a type in ``fields``, the JSON array of
    its paths' values (``null`` where missing), and for any other its payload as stored; with
    its parameters. ``json_extract`` copies a value's text as stored: parsing the array gives
    the values that parsing the whole payload would."""
    cases: list[str] = []
    params: list[str] = []
    for type_, paths in fields.items():
        sql_paths = [_sqlite_path(p) for p in paths]
        if len(paths) == 1:  # one path gives the bare value, two or more an array
            cases.append("WHEN ? THEN json_array(json_extract(payload, ?))")
        else:
            cases.append(f"WHEN ? THEN json_extract(payload{', ?' * len(paths)})")
        params += [type_, *sql_paths]
    if not cases:
        return "payload", params
    return f"CASE type {' '.join(cases)} ELSE payload END", params


def _sqlite_path(path: str) -> str:
    return "$" + "".join(f'."{key}"' for key in path.split("."))


def pick(payload: Any, paths: tuple[str, ...]) -> dict[str, Any]:
    """``{path: value}`` of a parsed payload (``None`` where a path is missing)."""
    return {path: _value_at(payload, path) for path in paths}


def _value_at(payload: Any, path: str) -> Any:
    value = payload
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


__all__ = ["FieldPaths", "checked_paths", "pick", "sqlite_payload_column"]
