"""A run read from the store for the exports and audits, without holding its prompts.

The first read keeps every event but the texts of each request (``system`` and ``input``);
projections read those again when they need them (``History.stream``, ``History.requests``,
``History.prompt``; docs/projections.md, "Memory"). With ``keep_prompts`` (the JSON export,
which shows every prompt in agent order, not in the order they were recorded) the first read
writes the texts to a temporary file, and each is read back as it is written out.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO

from maai.domain.events import ModelCallRequested
from maai.ledger import EventStore, StoredEvent
from maai.projections.history import History, PromptText, history_from_stored, light_record
from maai.projections.jsonout import DeferredText


class SpooledText(DeferredText):
    """A text in the spool file, read when it is written out."""

    __slots__ = ("_file", "_start", "_size")

    def __init__(self, file: IO[bytes], start: int, size: int) -> None:
        self._file, self._start, self._size = file, start, size

    def text(self) -> str:
        self._file.seek(self._start)
        return self._file.read(self._size).decode("utf-8")


class StoredRun:
    """The store's events of one run, read as often as a projection asks, each time up to
    the last event the first read saw (a run still being written grows meanwhile)."""

    def __init__(self, store: EventStore, run_id: str, keep_prompts: bool = False) -> None:
        self._store = store
        self._run_id = run_id
        self._last_seq = 0
        # Open as long as the history is (closed, and so deleted, when it is collected).
        spool = tempfile.TemporaryFile() if keep_prompts else None  # noqa: SIM115
        self._spool: IO[bytes] | None = spool
        self._spooled: dict[int, tuple[int, int, int]] = {}  # seq: (start, system, input)

    def load(self, status: str | None = None) -> History:
        """The run's history, its requests held without their texts."""
        return history_from_stored(self._run_id, self._first_read(), status, source=self)

    def _first_read(self) -> Iterator[StoredEvent]:
        # Without a spool the prompts are not needed now: they are read as the store holds
        # them, packed, which spares rebuilding them (most of the cost of a read).
        packed = () if self._spool is not None else (ModelCallRequested.TYPE,)
        for record in self._store.read(self._run_id, keep_packed=packed):
            self._last_seq = record.seq
            if self._spool is not None and record.type == ModelCallRequested.TYPE:
                self._keep(record)
            light = light_record(record)
            if light is None:  # packed where a light record cannot do without: read it whole
                whole = next(iter(self._store.read(self._run_id, from_seq=record.seq - 1)))
                light = light_record(whole)
                assert light is not None
            yield light

    def _keep(self, record: StoredEvent) -> None:
        assert self._spool is not None
        request = record.payload.get("request")
        if not isinstance(request, dict):
            return
        system, input_ = (str(request.get(k, "")).encode("utf-8") for k in ("system", "input"))
        self._spooled[record.seq] = (self._spool.tell(), len(system), len(input_))
        self._spool.write(system)
        self._spool.write(input_)

    def read(self) -> Iterator[StoredEvent]:
        for record in self._store.read(self._run_id):
            if record.seq > self._last_seq:
                return
            yield record

    def texts(self, seq: int) -> tuple[PromptText, PromptText]:
        if self._spool is None:
            raise KeyError(f"seq {seq}: the prompts of this read were not kept")
        start, system, input_ = self._spooled[seq]
        return (
            SpooledText(self._spool, start, system),
            SpooledText(self._spool, start + system, input_),
        )
