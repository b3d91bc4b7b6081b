"""The engine's writer: appends a run's events on one worker thread, in submission order, so
that the engine can start a model call while the event that records its request is still
being committed (a crash in between only means the call is asked again on resume).

Batches submitted while an append is being written are stored together by the next one (a
group commit: one transaction and one fsync for all of them). That changes nothing that is
promised: every batch is still stored whole, in order, before its future resolves, and a
crash loses at most what was not yet committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor

from maai.domain.events import Event, RunSigned
from maai.domain.registry import encode
from maai.ledger import Appended, Checkpoint, EventStore, NewEvent

# Appends queued behind the one being written before the engine waits for the store. With
# models that answer at once the engine would otherwise run ever further ahead of its writer:
# more work lost to a crash, a longer flush on Ctrl-C and at the end. With real latencies the
# writer keeps up and this never waits.
MAX_QUEUED_APPENDS = 2


def to_new_event(event: Event) -> NewEvent:
    type_, version, payload, agent = encode(event)
    return NewEvent(type=type_, schema_version=version, payload=payload, agent=agent)


def _named(cp: Checkpoint) -> RunSigned:
    return RunSigned(seq=cp.seq, hash=cp.hash, public_key=cp.public_key, signature=cp.signature)


class LedgerWriter:
    """Appends on one thread, in submission order; tracks the stored head seq.

    ``head``, ``failed``, ``signed_upto`` and ``evidence`` belong to the writer thread;
    ``send``, ``check``, ``flush`` and ``settle`` are called from the engine's event loop,
    which alone keeps the futures of the appends it sent (``pending``)."""

    def __init__(
        self,
        store: EventStore,
        run_id: str,
        head: int,
        pool: ThreadPoolExecutor,
        *,
        checkpoint: Callable[[int, str], Checkpoint | None] | None = None,
        checkpoint_every: int = 500,
        signed_upto: int = 0,
        evidence: Sequence[RunSigned] = (),
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.head = head  # the stored head, read and written on the writer thread only
        self.pool = pool
        self.failed: BaseException | None = None
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.signed_upto = signed_upto
        # Checkpoints signed and not yet named in the chain: the next append names them
        # first (docs/ledger.md, "Signing evidence in the chain").
        self.evidence: list[RunSigned] = list(evidence)
        self.pending: list[Future[object]] = []
        self._queued: list[tuple[tuple[Event, ...], Future[object]]] = []
        self._lock = threading.Lock()

    # --- on the event loop ----------------------------------------------------------------

    def send(self, events: Sequence[Event]) -> None:
        """Submit one batch, and keep its future until it is checked or flushed."""
        self.pending.append(self.submit(events))

    async def check(self) -> None:
        """Raise the first store error (e.g. another writer won), drop finished writes, and
        wait while more than ``MAX_QUEUED_APPENDS`` are still queued."""
        pending = self.pending
        while len(pending) > MAX_QUEUED_APPENDS:
            await asyncio.wrap_future(pending.pop(0))
        still = []
        for future in pending:
            if future.done():
                future.result()
            else:
                still.append(future)
        pending[:] = still

    async def flush(self) -> None:
        """Wait for every batch sent; raise the first store error."""
        for future in self.pending:
            await asyncio.wrap_future(future)
        self.pending.clear()

    async def settle(self) -> None:
        """Wait for every batch sent to be committed or refused, raising nothing: what was
        submitted is either stored whole or not at all."""
        for future in self.pending:
            with contextlib.suppress(BaseException):
                await asyncio.wrap_future(future)

    def submit(self, events: Sequence[Event]) -> Future[object]:
        # Encoding happens on the worker thread too, off the engine's critical path (events
        # are immutable, so handing them over is safe).
        future: Future[object] = Future()
        with self._lock:
            self._queued.append((tuple(events), future))
        # One job per batch; the first to run takes every batch queued by then.
        self.pool.submit(self._append_queued)
        return future

    # --- on the writer thread -------------------------------------------------------------

    def _append_queued(self) -> None:
        with self._lock:
            taken, self._queued = self._queued, []
        if not taken:
            return
        # Once an append is refused (e.g. another writer appended first), none after it may
        # be stored: it could land on top of the other writer's events by chance (same
        # length) and fork the history.
        try:
            if self.failed is not None:
                raise self.failed
            named = [to_new_event(e) for e in self.evidence]
            records = named + [to_new_event(e) for events, _ in taken for e in events]
            receipts = self.store.append(self.run_id, self.head, records)
            self.evidence = []
            receipts = receipts[len(named) :] if named else receipts
        except BaseException as exc:  # noqa: BLE001 -- handed to every batch's future
            self.failed = self.failed or exc
            _fail_all(taken, exc)
            return
        self.head += len(records)
        if self.checkpoint is not None and receipts:
            try:
                self._sign_checkpoints(receipts)
            except BaseException as exc:  # noqa: BLE001 -- handed to the futures
                # The events are stored; the run stops here unsigned, and the resume that
                # continues it signs its head.
                self.failed = exc
                _fail_all(taken, exc)
                return
        for _, future in taken:
            # A batch whose waiter gave up (the engine was cancelled: its future is cancelled)
            # is stored all the same: the batches after it are stored on top of it.
            with contextlib.suppress(InvalidStateError):
                future.set_result(receipts)

    def _sign_checkpoints(self, receipts: Sequence[Appended]) -> None:
        """One checkpoint per ``checkpoint_every`` events crossed, also where batches stored
        together cross several: the last event of each stretch in the append."""
        checkpoint, every = self.checkpoint, self.checkpoint_every
        assert checkpoint is not None
        if receipts[-1].seq // every <= self.signed_upto // every:
            return
        for receipt, following in zip(receipts, [*receipts[1:], None], strict=True):
            crossed = receipt.seq // every > self.signed_upto // every
            if crossed and (following is None or following.seq // every > receipt.seq // every):
                self.signed_upto = receipt.seq
                signed = checkpoint(receipt.seq, receipt.hash)
                if signed is not None:
                    self.evidence.append(_named(signed))


def _fail_all(taken: list[tuple[tuple[Event, ...], Future[object]]], exc: BaseException) -> None:
    for _, future in taken:
        with contextlib.suppress(InvalidStateError):  # its waiter gave up
            future.set_exception(exc)
