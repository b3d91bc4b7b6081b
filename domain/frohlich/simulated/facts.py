"""Tolerant access to ``ModelRequest.context``: the facts the engine also put in the prompt.

The context is plain JSON filled by another part of the system; a missing or oddly typed
key falls back to a neutral default instead of failing the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from maai.canonical import FrozenJson


def as_int(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return default


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def numbers(value: Any) -> list[float]:
    if not isinstance(value, list):
        return []
    return [float(v) for v in value if isinstance(v, int | float) and not isinstance(v, bool)]


@dataclass(frozen=True)
class Item:
    """One entry of the public Phase-2 history."""

    kind: str  # statement | poll | tally | proposal
    speaker: str | None
    text: str
    round: int


def history(ctx: Mapping[str, Any]) -> list[Item]:
    items = ctx.get("history")
    if not isinstance(items, list):
        return []
    return [_item(raw) for raw in items if isinstance(raw, Mapping)]


# Every Phase-2 request carries the whole history, as items that never change and are
# shared from one request to the next (maai.canonical.FrozenJson): each is read once.
_read: dict[int, tuple[FrozenJson, Item]] = {}
_READ_LIMIT = 20_000  # items of the runs in hand; the cache keeps them alive


def _item(raw: Mapping[str, Any]) -> Item:
    known = _read.get(id(raw))
    if known is not None and known[0] is raw:
        return known[1]
    item = Item(
        kind=str(raw.get("kind") or "statement"),
        speaker=as_str(raw.get("speaker")),
        text=str(raw.get("text") or ""),
        round=as_int(raw.get("round"), 0),
    )
    if isinstance(raw, FrozenJson):
        if len(_read) >= _READ_LIMIT:
            _read.clear()
        _read[id(raw)] = (raw, item)
    return item


def progress(ctx: Mapping[str, Any]) -> float:
    """How far the discussion is, in (0, 1]: round / rounds."""
    rounds = max(1, as_int(ctx.get("rounds"), 10))
    return min(1.0, max(1, as_int(ctx.get("round"), 1)) / rounds)


def has_feedback(ctx: Mapping[str, Any]) -> bool:
    return as_str(ctx.get("feedback")) is not None
