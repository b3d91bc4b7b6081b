"""The reader's side of linear storage (``ledger.packing``): a stored payload back to the
logical one, rebuilding each value stored as differences from its bases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from maai.canonical import canonical_json
from maai.ledger.packed_values import (
    MIN_EVENT_CHARS,
    PACKED_KEY,
    PackingError,
    PathKey,
    SlotKey,
    Version,
    candidates,
    long_values,
    rebuild,
    set_path,
    slot_keys,
)


def unpack_payload(
    stored: dict[str, Any],
    base_of: Callable[[int, PathKey], Version],
    made: dict[int, list[Any]] | None = None,
) -> dict[str, Any]:
    """The logical payload of a stored one (returned as is when it is not packed). ``made``
    collects the lines or items of each rebuilt value, by the value's id."""
    entries = stored.get(PACKED_KEY)
    if entries is None:
        return stored
    if not isinstance(entries, list):
        raise PackingError(f"{PACKED_KEY} is not a list")
    logical: Any = {k: v for k, v in stored.items() if k != PACKED_KEY}
    for entry in entries:
        try:
            path, kind, places, ops = entry
            bases = [base_of(seq, tuple(place)) for seq, place in places]
        except (TypeError, ValueError):
            raise PackingError(f"bad {PACKED_KEY} entry {canonical_json(entry)[:80]}") from None
        if not isinstance(ops, list) or kind not in ("t", "l"):
            raise PackingError(f"bad {PACKED_KEY} entry {canonical_json(entry)[:80]}")
        value, items = rebuild(kind, ops, bases)
        if made is not None:
            made[id(value)] = items
        logical = set_path(logical, tuple(path), value)
    return logical  # type: ignore[no-any-return]


Fetch = Callable[[int], dict[str, Any]]
"""The payload of a stored event by seq, as stored."""


class Unpacker:
    """The reader's side, for one pass over a run in seq order: keeps the latest value of
    each slot (what the writer diffed against) and fetches an older base when one is asked
    for (a read that starts in the middle of a run)."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch
        self._latest: dict[SlotKey, Version] = {}
        self._by_place: dict[tuple[int, PathKey], Version] = {}

    def unpack(
        self, seq: int, type_: str, agent: str | None, stored: dict[str, Any], size: int
    ) -> dict[str, Any]:
        """The logical payload of the event at ``seq`` (``size``: its stored text's length),
        remembering its long values as bases for the events after it."""
        packed = PACKED_KEY in stored
        made: dict[int, list[Any]] = {}
        logical = unpack_payload(stored, self._base, made) if packed else stored
        if packed or size >= MIN_EVENT_CHARS:
            self._remember(seq, type_, agent, logical, made)
        return logical

    def _remember(
        self,
        seq: int,
        type_: str,
        agent: str | None,
        logical: dict[str, Any],
        made: dict[int, list[Any]],
    ) -> None:
        for path, value in long_values(logical):
            version = Version(seq, path, value, made.get(id(value)))
            self._by_place[(seq, path)] = version
            for key in slot_keys(type_, agent, path):
                old = self._latest.get(key)
                if old is not None:
                    old.slots -= 1
                    if old.slots == 0:
                        self._by_place.pop((old.seq, old.path), None)
                self._latest[key] = version
                version.slots += 1

    def _base(self, seq: int, path: PathKey) -> Version:
        found = self._by_place.get((seq, path))
        if found is not None:
            return found
        return self._fetch_base(seq, path)

    def _fetch_base(self, seq: int, path: PathKey) -> Version:
        """Rebuild an older value: follow its chain of bases back to values this reader has
        (or to one stored whole), then rebuild forwards. Iterative: chains can be long."""
        rebuilt: dict[tuple[int, PathKey], Version] = {}

        def known(s: int, p: PathKey) -> Version | None:
            return self._by_place.get((s, p)) or rebuilt.get((s, p))

        fetched: dict[int, dict[str, Any]] = {}
        todo: list[int] = [seq]
        while todo:
            current = todo[-1]
            if current not in fetched:
                fetched[current] = self._fetch(current)
            stored = fetched[current]
            entries = stored.get(PACKED_KEY) or []
            missing = [
                seq_
                for entry in entries
                if isinstance(entry, list) and len(entry) == 4 and isinstance(entry[2], list)
                for seq_, place in entry[2]
                if known(seq_, tuple(place)) is None
            ]
            if missing:
                if missing[0] >= current or missing[0] in todo:
                    raise PackingError(f"seq {current} names a base at seq {missing[0]}")
                todo.append(missing[0])
                continue
            todo.pop()

            def base_of(s: int, p: PathKey) -> Version:
                version = known(s, p)
                if version is None:
                    raise PackingError(f"the base at seq {s}, path {list(p)} is missing")
                return version

            logical = unpack_payload(stored, base_of)
            for p, value in candidates(logical):
                rebuilt[(current, p)] = Version(current, p, value)
        try:
            return rebuilt[(seq, path)] if (seq, path) in rebuilt else self._by_place[(seq, path)]
        except KeyError:
            raise PackingError(f"seq {seq} has no long value at path {list(path)}") from None
