"""The one canonical JSON of maai: what the hash chain and request hashes are computed over.

``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
allow_nan=False)``, built once on the json module's C encoder. A leaf module: the ledger and
the domain both import it, and it imports nothing of theirs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

_str = json.encoder.encode_basestring
json_string = _str
"""A str as JSON text, exactly as ``json.dumps(ensure_ascii=False)`` writes it."""


def _unserializable(value: object) -> Any:
    raise TypeError(f"an object of type {type(value).__name__} is not JSON")


_reference_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
# The C encoder that json.dumps uses, built once: calling it directly skips per-call set-up
# (about a quarter of the time for a typical payload). markers=None turns off the circular
# reference check, whose shared dict would not be thread-safe; a cycle ends in RecursionError.
# c_make_encoder and scan_once are the json module's own (undocumented, untyped) C parts.
_make_encoder: Callable[..., Callable[[Any, int], Sequence[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)
_c_encoder = (
    _make_encoder(None, _unserializable, _str, None, ":", ",", True, False, False)
    if _make_encoder is not None
    else None
)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value``: what ``json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False, allow_nan=False)`` returns (no normalization;
    see ``maai.ledger.envelope.normalize_json``)."""
    if _c_encoder is None or isinstance(value, str):
        return _reference_encoder.encode(value)
    return "".join(_c_encoder(value, 0))
