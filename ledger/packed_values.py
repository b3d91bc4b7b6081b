"""What the packed form of a payload is made of (docs/ledger.md, "How a run is stored"; the
format is described in ``ledger.packing``): the thresholds, the values a writer diffs against
and a reader rebuilds (``Version``), where in a payload they are found (``candidates``,
``long_values``, ``slot_keys``), and rebuilding a value from its ops (``rebuild``).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from maai.canonical import canonical_json

PACKED_KEY: Final = "$packed"
MIN_EVENT_CHARS: Final = 4096
MIN_TEXT_CHARS: Final = 1024
MIN_LIST_ITEMS: Final = 8

PathKey = tuple[str | int, ...]
SlotKey = tuple[str, str | None, PathKey]
_ANY_AGENT: Final = "\x00any"  # never an agent name: names cannot contain NUL


class PackingError(ValueError):
    """A packed event that cannot be rebuilt (its base is missing or its ops are out of
    range): the ledger is damaged, or was written by a broken writer."""


@dataclass(slots=True)
class Version:
    """A value as a reader rebuilds it, with where it is stored (seq, path)."""

    seq: int
    path: PathKey
    value: str | list[Any]
    _items: list[Any] | None = None
    _index: dict[str, int] | None = None
    slots: int = 0  # how many slots name this version as their latest (reader's bookkeeping)
    # A text whose first lines are a base's (the writer's): (base, how many lines), until
    # its index is derived from the base's.
    _prefix_of: tuple[Version, int] | None = field(default=None, compare=False, repr=False)
    _ends: list[int] | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> str:
        return "t" if isinstance(self.value, str) else "l"

    def items(self) -> list[Any]:
        if self._items is None:
            value = self.value
            self._items = value.split("\n") if isinstance(value, str) else value
        return self._items

    def index(self) -> dict[str, int]:
        """Each line's first position (texts only)."""
        if self._index is None:
            lines = self.items()
            derived = self._derived_index(lines)
            if derived is None:
                # Built from the last line back, so that a line's first position is the one
                # left: in C, where a loop of setdefault calls cost a tenth of an append.
                derived = dict(zip(reversed(lines), range(len(lines) - 1, -1, -1), strict=True))
            self._index = derived
        return self._index

    def _derived_index(self, lines: list[Any]) -> dict[str, int] | None:
        """The index from the base's, where this text's first lines are the base's and
        little differs after them: a copy of the base's (in C) less the lines only its rest
        has, plus this text's own rest, instead of indexing every line again (a prompt
        grows with the run, its rest does not)."""
        prefix_of, self._prefix_of = self._prefix_of, None
        if prefix_of is None:
            return None
        base, shared = prefix_of
        base_lines, base_index = base._items, base._index
        if base_lines is None or base_index is None:
            return None
        if (len(base_lines) - shared) + (len(lines) - shared) > len(lines) // 4:
            return None
        index = base_index.copy()
        for line in base_lines[shared:]:
            if index.get(line, -1) >= shared:  # first seen past the shared lines
                del index[line]
        for position in range(shared, len(lines)):
            index.setdefault(lines[position], position)
        return index

    def share_lines(self, base: Version) -> None:
        """Take this text's lines from the base's as far as the two texts agree, splitting
        only the rest: the lines are then the base's own objects (compared by identity
        when runs of lines are matched), and the index can be derived from the base's."""
        text, base_text = self.value, base.value
        if self._items is not None or not isinstance(text, str) or not isinstance(base_text, str):
            return
        base_lines = base.items()
        agreed = _common_prefix_length(text, base_text)
        ends = base.line_ends()
        shared = bisect.bisect_left(ends, agreed)  # lines whose ends both texts share
        start = ends[shared - 1] + 1 if shared else 0
        rest = text[start:].split("\n")
        self._items = [*base_lines[:shared], *rest]
        self._ends = [*ends[:shared], *_line_ends(rest, start)]
        self._prefix_of = (base, shared)

    def line_ends(self) -> list[int]:
        """Where each line's newline is (the last line's: the text's length); texts only."""
        if self._ends is None:
            self._ends = _line_ends(self.items(), 0)
        return self._ends


def _line_ends(lines: list[str], start: int) -> list[int]:
    """Where the newline after each of ``lines`` is, in a text where they begin at ``start``."""
    lengths = itertools.accumulate(map(len, lines))
    return [start + length + i for i, length in enumerate(lengths)]


_FIRST_PROBE: Final = 4096


def _common_prefix_length(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share from the start: galloping, then bisecting,
    on slice comparisons (in C)."""
    most = min(len(a), len(b))
    agreed, step = 0, _FIRST_PROBE
    while agreed < most:
        probe = min(most, agreed + step)
        if a[agreed:probe] != b[agreed:probe]:
            break
        agreed, step = probe, step * 2
    else:
        return most
    # a[:agreed] == b[:agreed], a[:probe] != b[:probe]
    while probe - agreed > 1:
        middle = (agreed + probe) // 2
        if a[agreed:middle] == b[agreed:middle]:
            agreed = middle
        else:
            probe = middle
    return agreed


def candidates(payload: dict[str, Any]) -> Iterator[tuple[PathKey, str | list[Any]]]:
    """The values of a payload that may be stored as differences: long strings and long
    lists (not looked into), found in dicts and short lists."""
    stack: list[tuple[PathKey, Any]] = [((), payload)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                # A key that is not a string is stored as one (JSON): a path naming it
                # would not be found again in the stored payload, so what is below stays.
                if not isinstance(key, str) or (path == () and key == PACKED_KEY):
                    continue
                stack.append(((*path, key), item))
        elif isinstance(value, str):
            if len(value) >= MIN_TEXT_CHARS:
                yield path, value
        elif isinstance(value, list):
            if len(value) >= MIN_LIST_ITEMS:
                yield path, value
            else:
                stack.extend(((*path, i), item) for i, item in enumerate(value))


def long_values(payload: dict[str, Any]) -> list[tuple[PathKey, str | list[Any]]]:
    """What :func:`candidates` yields, in another order, found with less work: a reader
    remembers each value by its path (no two share one), so the order makes no difference
    to it; a writer's packing follows the order of ``candidates``. Scalars are looked at
    where they are found instead of being stacked one by one."""
    found: list[tuple[PathKey, str | list[Any]]] = []
    stack: list[tuple[PathKey, dict[str, Any] | list[Any]]] = [((), payload)]
    while stack:
        path, container = stack.pop()
        if isinstance(container, dict):
            items: Any = container.items()
        else:  # a short list: its items are looked into
            items = enumerate(container)
        for key, item in items:
            if isinstance(item, str):
                if len(item) < MIN_TEXT_CHARS:
                    continue
            elif isinstance(item, dict):
                pass
            elif not isinstance(item, list):
                continue
            # A key that is not a string is stored as one (JSON): a path naming it would
            # not be found again in the stored payload, so what is below stays.
            if isinstance(container, dict) and (
                not isinstance(key, str) or (path == () and key == PACKED_KEY)
            ):
                continue
            if isinstance(item, str) or (isinstance(item, list) and len(item) >= MIN_LIST_ITEMS):
                found.append(((*path, key), item))
            else:
                stack.append(((*path, key), item))
    return found


def slot_keys(type_: str, agent: str | None, path: PathKey) -> tuple[SlotKey, SlotKey]:
    """The value's own slot (same type, agent and path) and the any-agent slot."""
    return (type_, agent, path), (type_, _ANY_AGENT, path)


def apply_ops(kind: str, ops: list[Any], bases: Sequence[Version]) -> str | list[Any]:
    """Rebuild a value from ops and its bases; :class:`PackingError` if they do not fit."""
    return rebuild(kind, ops, bases)[0]


def rebuild(
    kind: str, ops: list[Any], bases: Sequence[Version]
) -> tuple[str | list[Any], list[Any]]:
    """:func:`apply_ops`, with the value's lines (a text) or items (a list): kept, they spare
    splitting the text again when it serves as a base."""
    if not bases or any(kind != base.kind for base in bases):
        raise PackingError(f"a {kind!r} value needs bases of its kind")
    all_items = [base.items() for base in bases]
    out: list[Any] = []
    for op in ops:
        if isinstance(op, dict):
            added = op.get("+")
            if kind == "t" and isinstance(added, str):
                out.extend(added.split("\n"))
            elif kind == "l" and isinstance(added, list):
                out.extend(added)
            else:
                raise PackingError(f"bad added part {canonical_json(op)[:60]}")
        elif (
            isinstance(op, list)
            and 2 <= len(op) <= 3
            and all(type(x) is int for x in op)
            and (len(op) == 2 or 0 <= op[2] < len(all_items))
            and op[0] >= 0
            and op[1] >= 1
            and op[0] + op[1] <= len(all_items[op[2] if len(op) == 3 else 0])
        ):
            items = all_items[op[2] if len(op) == 3 else 0]
            out.extend(items[op[0] : op[0] + op[1]])
        else:
            raise PackingError(f"bad copy {canonical_json(op)[:60]}")
    return ("\n".join(out) if kind == "t" else out), out


def set_path(payload: Any, path: PathKey, value: Any) -> Any:
    """A copy of ``payload`` with ``value`` at ``path`` (copying only along the path)."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(payload, dict) and isinstance(key, str) and key in payload:
        copied: dict[Any, Any] | list[Any] = dict(payload)
    elif isinstance(payload, list) and type(key) is int and 0 <= key < len(payload):
        copied = list(payload)
    else:
        raise PackingError(f"path {list(path)} is not in the payload")
    copied[key] = set_path(payload[key], rest, value)  # type: ignore[index]
    return copied
