"""The entries of a history read from a store, held compressed: a run's light records (its
events without prompts, ``history.light_record``) take 3–4 KB each as Python objects but
about 0.1 KB as JSON text compressed in chunks, so a history of 30,000 events holds a few MB
instead of 120 (docs/projections.md, "Memory").

Each entry is decoded again whenever it is read, from the same payload as the store gave
(its JSON text, parsed back into the same values): the same events as a history held whole.
The class of every event is kept (one small number each), so that :meth:`HeldEntries.of`
decodes only the events of the types it is asked for.
"""

from __future__ import annotations

import json
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from maai.domain.events import Event
from maai.domain.registry import EventRegistry
from maai.ledger import StoredEvent, format_recorded_at

CHUNK_EVENTS = 128
"""Events per compressed chunk: large enough to compress well (repeated keys and values),
small enough that decompressing one for a single entry (``entries[-1]``) costs little."""

RECENT_CHUNKS = 4
"""Decompressed chunks kept for reads by position."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class HeldEntries(Sequence[Any]):
    """A history's entries (``history.Entry``) in seq order, held compressed, decoded on
    each read. Built once from stored records with the registry that decoded each (the
    common registry before ``run.started``, the experiment's after it)."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._pending: list[str] = []
        # Per event: its kind (registry and class) as an index into ``_kinds``.
        self._kind_of = array("H")
        self._kinds: list[tuple[EventRegistry, type[Event]]] = []
        self._kind_ids: dict[tuple[int, type[Event]], int] = {}
        self._chunk_kinds: list[set[int]] = []
        self._count = 0
        # The chunks read last, decompressed: entries read by position (a call's events,
        # projections/calls.py) are near one another.
        self._recent: dict[int, list[str]] = {}

    def add(self, record: StoredEvent, registry: EventRegistry, event: Event) -> None:
        """Hold ``record``, which ``registry`` decoded as ``event`` (of which only the
        class is kept)."""
        key = (id(registry), type(event))
        kind = self._kind_ids.get(key)
        if kind is None:
            kind = self._kind_ids[key] = len(self._kinds)
            self._kinds.append((registry, type(event)))
        self._kind_of.append(kind)
        if self._count % CHUNK_EVENTS == 0:
            self._chunk_kinds.append(set())
        self._chunk_kinds[-1].add(kind)
        # Tab-separated: none of the fields has a tab (JSON text escapes its own).
        self._pending.append(
            f"{record.seq}\t{record.hash}\t{format_recorded_at(record.recorded_at)}\t"
            f"{record.type}\t{record.schema_version}\t{_ENCODER.encode(record.payload)}"
        )
        self._count += 1
        if len(self._pending) == CHUNK_EVENTS:
            self._seal()

    def done(self) -> HeldEntries:
        """Compress the last partial chunk; nothing is added after."""
        if self._pending:
            self._seal()
        return self

    def _seal(self) -> None:
        text = "\n".join(self._pending)
        self._chunks.append(zlib.compress(text.encode("utf-8", "surrogatepass"), 1))
        self._pending = []
        self._recent.clear()

    def _lines(self, chunk: int) -> list[str]:
        if chunk == len(self._chunks):  # not sealed yet (still being built)
            return self._pending
        return zlib.decompress(self._chunks[chunk]).decode("utf-8", "surrogatepass").split("\n")

    def _entry(self, index: int, line: str) -> Any:
        from maai.projections.history import Entry

        seq, hash_, recorded_at, type_, version, payload = line.split("\t", 5)
        registry = self._kinds[self._kind_of[index]][0]
        event = registry.decode_json(type_, int(version), payload)
        return Entry(int(seq), hash_, recorded_at, event)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("entry index out of range")
        chunk, at = divmod(index, CHUNK_EVENTS)
        lines = self._recent.pop(chunk, None)
        if lines is None:
            lines = self._lines(chunk)
            if len(self._recent) >= RECENT_CHUNKS:
                del self._recent[next(iter(self._recent))]
        self._recent[chunk] = lines  # the most recent last
        return self._entry(index, lines[at])

    def __iter__(self) -> Iterator[Any]:
        return self.matching(range(len(self._kinds)))

    def of(self, *types: type[Event]) -> Iterator[Any]:
        """The entries whose event is an instance of one of ``types``, decoding no other."""
        kinds = {i for i, (_, cls) in enumerate(self._kinds) if issubclass(cls, types)}
        return self.matching(kinds)

    def matching(self, kinds: Iterable[int]) -> Iterator[Any]:
        wanted = set(kinds)
        for chunk, present in enumerate(self._chunk_kinds):
            if wanted.isdisjoint(present):
                continue
            start = chunk * CHUNK_EVENTS
            for at, line in enumerate(self._lines(chunk)):
                if self._kind_of[start + at] in wanted:
                    yield self._entry(start + at, line)
