"""Request hashes recomputed from a recorded request alone, for the protocol audit.

Version 2 (docs/ledger.md, "Request hashes") is written here apart from
``maai.domain.calls``, whose hashes the audit checks, with the standard library only and as
the recipe for an outside auditor reads: a bug in the code that makes the hashes is not
repeated by the code that checks them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from maai.domain.calls import ModelRequest


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def hash_v2(request: dict[str, Any]) -> str:
    """The version-2 hash of a request given as its recorded JSON object (with
    ``hash_cuts``). Raises ``ValueError`` for a cut that names no such value."""
    skeleton = dict(request)
    for cut in request["hash_cuts"]:
        names = cut["path"].split(".")
        holder = skeleton
        for name in names[:-1]:
            if not isinstance(holder.get(name), dict):
                raise ValueError(f"hash cut {cut['path']}: no object {name}")
            holder[name] = dict(holder[name])
            holder = holder[name]
        key = names[-1]
        if key not in holder:
            raise ValueError(f"hash cut {cut['path']}: no value {key}")
        value, start, end = holder[key], cut["start"], cut["end"]
        if start is None and end is None:
            holder[key] = _sha256(_dumps(value))
        elif isinstance(value, str) and isinstance(start, int) and isinstance(end, int):
            if not 0 <= start <= end <= len(value):
                raise ValueError(f"hash cut {cut['path']}: [{start}, {end}) out of range")
            holder[key] = [value[:start], _sha256(value[start:end]), value[end:]]
        else:
            raise ValueError(f"hash cut {cut['path']}: not a string with start and end")
    return _sha256(_dumps(skeleton))


def recorded_request_hash_v2(request: ModelRequest) -> str:
    """:func:`hash_v2` of a recorded request (its fields are JSON values as read back; the
    general ``model_dump`` where one is not)."""
    assert request.hash_cuts is not None
    fields = {name: getattr(request, name) for name in type(request).model_fields}
    fields["hash_cuts"] = [
        {"path": cut.path, "start": cut.start, "end": cut.end} for cut in request.hash_cuts
    ]
    try:
        return hash_v2(fields)
    except TypeError:
        return hash_v2(request.model_dump(mode="json"))
