"""A run's events up to the head seq a page was read at: the view's source for the
projections (``projections.history.RunSource``), so that a run written while it is read is
never shown half-folded (docs/view.md)."""

from __future__ import annotations

from collections.abc import Iterator

from maai.domain.events import ModelCallRequested
from maai.ledger import EventStore, StoredEvent
from maai.projections.history import PromptText, light_record
from maai.runtime.view.run_facts import _upto


class HeadSource:
    """A run's events up to a head seq, read again whenever a projection asks
    (``projections.history.RunSource``)."""

    def __init__(self, store: EventStore, run_id: str, head: int) -> None:
        self._store = store
        self._run_id = run_id
        self.head = head
        self._texts: dict[int, tuple[str, str]] | None = None

    def light(self) -> Iterator[StoredEvent]:
        """Every event, requests without their prompts (read again on demand)."""
        stream = self._store.read(self._run_id, keep_packed=(ModelCallRequested.TYPE,))
        for record in _upto(stream, self.head):
            light = light_record(record)
            if light is None:  # packed where a light record cannot do without: read whole
                light = light_record(self.whole(record.seq))
                assert light is not None
            yield light

    def read(self, after: int = 0) -> Iterator[StoredEvent]:
        return _upto(self._store.read(self._run_id, from_seq=after), self.head)

    def whole(self, seq: int) -> StoredEvent:
        return next(iter(self._store.read(self._run_id, from_seq=seq - 1)))

    def texts(self, seq: int) -> tuple[PromptText, PromptText]:
        # The first prompt asked for reads them all in one pass: a projection that shows
        # one usually shows every one (one read each cost seconds on a 250-call run).
        # Filled aside, then put in place: the parts of a page share one source across
        # threads.
        if self._texts is None:
            texts = {}
            for record in self.read():
                if record.type == ModelCallRequested.TYPE:
                    request = record.payload.get("request") or {}
                    texts[record.seq] = (
                        str(request.get("system", "")),
                        str(request.get("input", "")),
                    )
            self._texts = texts
        return self._texts[seq]
