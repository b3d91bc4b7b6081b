"""The entries of a history read from a store, held compressed: a run's light records (its
events without prompts, ``history.light_record``) take 3–4 KB each as Python objects but
about 0.15 KB as JSON text compressed in chunks, so a history of 30,000 events holds a few
MB instead of 120 (docs/projections.md, "Memory").

Each entry is decoded again whenever it is read, from the same payload as the store gave
(its JSON text, parsed back into the same values): the same events as a history held whole.
The events of each kind (the registry that decoded it and its class) are compressed
together, apart from the other kinds', so that :meth:`HeldEntries.of` decompresses and
decodes only the events of the types it is asked for: projections ask for one type after
another, many times over (the agent log: each type once per agent).
"""

from __future__ import annotations

import heapq
import json
import zlib
from array import array
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any, overload

from maai.domain.events import Event
from maai.domain.registry import EventRegistry
from maai.ledger import StoredEvent, format_recorded_at
from maai.projections.entry import Entry

CHUNK_EVENTS = 32
"""Events of one kind per compressed chunk: large enough to compress well (repeated keys and
values), small enough that decompressing one for a single entry costs little."""

RECENT_CHUNKS_PER_AGENT = 3
"""Decompressed chunks kept for reads by position (a call's events, projections/calls.py),
per agent of the run (and at least 16): calls are read in the order of their first request,
which takes turns among the agents, and each agent's requests, answers and the events that
read them are chunks of their own. 32 lines a chunk: a few MB for 32 agents, whatever the
run's length."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class _Kind:
    """The events of one kind (registry, class and agent): their positions in the history
    and their lines, compressed ``CHUNK_EVENTS`` at a time."""

    __slots__ = ("registry", "cls", "agent", "agent_field", "positions", "chunks", "pending")

    def __init__(
        self, registry: EventRegistry, cls: type[Event], agent: str | None, agent_field: bool
    ) -> None:
        self.registry = registry
        self.cls = cls
        self.agent = agent
        self.agent_field = agent_field  # ``agent`` is the event's field, not its caller
        self.positions = array("L")
        self.chunks: list[bytes] = []
        self.pending: list[str] = []

    def seal(self) -> None:
        text = "\n".join(self.pending)
        self.chunks.append(zlib.compress(text.encode("utf-8", "surrogatepass"), 1))
        self.pending = []

    def lines(self, chunk: int) -> list[str]:
        if chunk == len(self.chunks):  # not sealed yet (still being built)
            return self.pending
        return zlib.decompress(self.chunks[chunk]).decode("utf-8", "surrogatepass").split("\n")

    def stream(self) -> Iterator[tuple[int, str]]:
        """(position, line) of every event of this kind, in order."""
        count = len(self.positions)
        for chunk in range((count + CHUNK_EVENTS - 1) // CHUNK_EVENTS):
            start = chunk * CHUNK_EVENTS
            # Each line let go of once read: a walk over every kind holds the rest of one
            # chunk of each, not whole chunks.
            lines = deque(self.lines(chunk))
            at = start
            while lines:
                yield self.positions[at], lines.popleft()
                at += 1


class HeldEntries(Sequence[Any]):
    """A history's entries (``history.Entry``) in seq order, held compressed, decoded on
    each read. Built once from stored records with the registry that decoded each (the
    common registry before ``run.started``, the experiment's after it)."""

    def __init__(self) -> None:
        self._kinds: list[_Kind] = []
        self._kind_ids: dict[tuple[int, type[Event], str | None, bool], int] = {}
        # Per position: its kind (an index into ``_kinds``) and its rank among that kind's.
        self._kind_of = array("H")
        self._rank_of = array("L")
        self._seqs = array("Q")
        self._recent: dict[tuple[int, int], list[str]] = {}
        self._recent_limit = 16

    def add(self, record: StoredEvent, registry: EventRegistry, event: Event) -> None:
        """Hold ``record``, which ``registry`` decoded as ``event`` (of which only the
        class is kept)."""
        # Grouped by agent too (a request by its caller): an agent's events are read
        # together (``of(..., agent=)``, a call's events), the other agents' are not.
        agent = getattr(event, "agent", None)
        agent_field = isinstance(agent, str)
        if not agent_field:
            agent = event.agent_name
        key = (id(registry), type(event), agent, agent_field)
        index = self._kind_ids.get(key)
        if index is None:
            index = self._kind_ids[key] = len(self._kinds)
            self._kinds.append(_Kind(registry, type(event), agent, agent_field))
        kind = self._kinds[index]
        self._kind_of.append(index)
        self._seqs.append(record.seq)
        self._rank_of.append(len(kind.positions))
        kind.positions.append(len(self._kind_of) - 1)
        # Tab-separated: none of the fields has a tab (JSON text escapes its own).
        kind.pending.append(
            f"{record.seq}\t{record.hash}\t{format_recorded_at(record.recorded_at)}\t"
            f"{record.type}\t{record.schema_version}\t{_ENCODER.encode(record.payload)}"
        )
        if len(kind.pending) == CHUNK_EVENTS:
            kind.seal()

    def done(self) -> HeldEntries:
        """Compress the last partial chunks; nothing is added after."""
        for kind in self._kinds:
            if kind.pending:
                kind.seal()
        self._recent.clear()
        agents = {kind.agent for kind in self._kinds}
        self._recent_limit = max(16, RECENT_CHUNKS_PER_AGENT * len(agents))
        return self

    def _entry(self, kind: _Kind, line: str) -> Entry:
        seq, hash_, recorded_at, type_, version, payload = line.split("\t", 5)
        event = kind.registry.decode_json(type_, int(version), payload)
        return Entry(int(seq), hash_, recorded_at, event)

    def __len__(self) -> int:
        return len(self._kind_of)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("entry index out of range")
        kind_index = self._kind_of[index]
        kind = self._kinds[kind_index]
        chunk, at = divmod(self._rank_of[index], CHUNK_EVENTS)
        key = (kind_index, chunk)
        lines = self._recent.pop(key, None)
        if lines is None:
            lines = kind.lines(chunk)
            if len(self._recent) >= self._recent_limit:
                del self._recent[next(iter(self._recent))]
        self._recent[key] = lines  # the most recent last
        return self._entry(kind, lines[at])

    def seqs(self) -> Sequence[int]:
        """The seq of every entry, in order, read without decoding any."""
        return self._seqs

    def positions(self, *types: type[Event]) -> list[int]:
        """The positions of the entries whose event is an instance of one of ``types``."""
        found = [k.positions for k in self._kinds if issubclass(k.cls, types)]
        return sorted(p for positions in found for p in positions)

    def __iter__(self) -> Iterator[Any]:
        return self._merged(self._kinds)

    def of(self, *types: type[Event], agent: str | None = None) -> Iterator[Any]:
        """The entries whose event is an instance of one of ``types`` (and with ``agent``,
        whose ``agent`` field is that), decoding no other."""
        return self._merged(
            [
                kind
                for kind in self._kinds
                if issubclass(kind.cls, types)
                and (agent is None or (kind.agent_field and kind.agent == agent))
            ]
        )

    def _merged(self, kinds: list[_Kind]) -> Iterator[Any]:
        # Each kind's events are in position order: merged, they are in the history's.
        if not kinds:
            return
        if len(kinds) == 1:
            for _, line in kinds[0].stream():
                yield self._entry(kinds[0], line)
            return
        streams = [((p, i, line) for p, line in k.stream()) for i, k in enumerate(kinds)]
        for _, i, line in heapq.merge(*streams):
            yield self._entry(kinds[i], line)
