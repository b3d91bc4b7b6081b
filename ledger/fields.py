"""Reading a few fields of some events' payloads instead of the whole payloads
(:meth:`EventStore.read_fields <ledger.store.EventStore.read_fields>`).

A reader that needs only a few short fields of an event type whose payloads are long (a fold
needs a model request's address and hash, not its prompt) names them as dotted paths
(``"request.address"``); the payload it gets for such an event is ``{path: value}``. On
SQLite the database picks the values (``json_extract``, in C): the rest of the payload is
neither copied out, parsed nor unpacked, which is most of what reading a long run costs.
Elsewhere the payload is parsed and the values picked here, with the same result.

A reader may instead leave out some paths of an event type's payload (``omit``: a fold
needs a model's answer, not the provider's raw response it came in). On SQLite the database
removes them (``json_remove``), so they are neither copied out nor parsed; a packed value
under them is not rebuilt (values are packed against values at the same path of earlier
events of the same type, so the rest never needs them). Elsewhere the whole payload is read
and the paths removed here.

Exact in every case: a value the store packed (``ledger.packing``: long texts and lists) is
stored as ``null``, so where a picked value is ``None`` and its event is packed, the event is
fetched whole, unpacked and picked again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from maai.ledger.packed_values import PACKED_KEY

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


def sqlite_payload_column(
    fields: Mapping[str, tuple[str, ...]], omit: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[str, list[str]]:
    """The SQL expression that gives, for an event of a type in ``fields``, the JSON array of
    its paths' values (``null`` where missing), for one of a type in ``omit`` its payload as
    stored less those paths, and for any other its payload as stored; with its parameters.
    ``json_extract`` copies a value's text as stored: parsing the array gives the values that
    parsing the whole payload would; ``json_remove`` leaves the rest as it was."""
    cases: list[str] = []
    params: list[str] = []
    for type_, paths in fields.items():
        sql_paths = [_sqlite_path(p) for p in paths]
        if len(paths) == 1:  # one path gives the bare value, two or more an array
            cases.append("WHEN ? THEN json_array(json_extract(payload, ?))")
        else:
            cases.append(f"WHEN ? THEN json_extract(payload{', ?' * len(paths)})")
        params += [type_, *sql_paths]
    for type_, paths in (omit or {}).items():
        cases.append(f"WHEN ? THEN json_remove(payload{', ?' * len(paths)})")
        params += [type_, *(_sqlite_path(p) for p in paths)]
    if not cases:
        return "payload", params
    return f"CASE type {' '.join(cases)} ELSE payload END", params


def sqlite_size_column(omit: Mapping[str, tuple[str, ...]]) -> tuple[str, list[str]]:
    """The SQL expression that gives the length of the stored payload of an event of a type
    in ``omit`` (what the reader of packed values goes by, ``ledger.unpacking.Unpacker``), and
    ``NULL`` for any other; with its parameters."""
    if not omit:
        return "NULL", []
    return f"CASE type {' '.join('WHEN ? THEN length(payload)' for _ in omit)} END", list(omit)


def _sqlite_path(path: str) -> str:
    return "$" + "".join(f'."{key}"' for key in path.split("."))


def pick(payload: Any, paths: tuple[str, ...]) -> dict[str, Any]:
    """``{path: value}`` of a parsed payload (``None`` where a path is missing)."""
    return {path: _value_at(payload, path) for path in paths}


def omitted(payload: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """A copy of ``payload`` without ``paths`` (those missing left as they are), and
    without the ``"$packed"`` entries of values under them (``ledger.packing``); the dicts on
    the way to a removed path are copied, nothing else."""
    keys = [path.split(".") for path in paths]
    out = dict(payload)
    for key_path in keys:
        out = _without(out, key_path)
    entries = out.get(PACKED_KEY)
    if isinstance(entries, list):
        out[PACKED_KEY] = [e for e in entries if not _under_any(e, keys)]
    return out


def _without(value: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    head, rest = keys[0], keys[1:]
    if head not in value:
        return value
    copy = dict(value)
    if not rest:
        del copy[head]
    elif isinstance(copy[head], dict):
        copy[head] = _without(copy[head], rest)
    return copy


def _under_any(entry: Any, keys: list[list[str]]) -> bool:
    """Whether a ``"$packed"`` entry rebuilds a value at or under one of the key paths."""
    if not isinstance(entry, list) or not entry or not isinstance(entry[0], list):
        return False
    path = entry[0]
    return any(path[: len(k)] == k for k in keys)


def _value_at(payload: Any, path: str) -> Any:
    value = payload
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


__all__ = [
    "FieldPaths",
    "checked_paths",
    "omitted",
    "pick",
    "sqlite_payload_column",
    "sqlite_size_column",
]
