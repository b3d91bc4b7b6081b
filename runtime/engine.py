"""The imperative shell: fold the ledger, ask ``decide``, make the model calls, append what
happened, repeat (DESIGN.md).

Store writes go through one worker thread, in submission order, so the engine can start a
model call while the event that records its request is still being committed: a crash in
between only means the call is asked again on resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from typing import Literal, Protocol

from maai.domain import experiments
from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunCompleted,
    RunFailed,
    RunSigned,
)
from maai.domain.experiment import Experiment
from maai.domain.registry import encode
from maai.domain.walk import Decision
from maai.ledger import Checkpoint, ConcurrencyError, EventStore, NewEvent
from maai.runtime.checkpoints import CHECKPOINT_EVERY, retry_while_busy, sign_head

# Folding has its own module (runtime.fold); its names stay importable from here.
from maai.runtime.fold import (  # noqa: F401 -- re-exported
    FOLD_FIELDS,
    FOLD_KEEPS_PACKED,
    FOLD_OMITS,
    State,
    UnreadableHistoryError,
    fold_decoder,
    fold_fields_decoder,
    load_state,
)
from maai.runtime.signing import Signer, load_signer
from maai.runtime.trust import UntrustedRunError, require_trusted, started_of


class AttemptReport(Protocol):
    address: str
    attempt: int
    error_kind: str
    status: int | None
    message: str
    retry_in_s: float | None
    retryable: bool


class CallExecutor(Protocol):
    """Makes one model call (with its own transport retries) and returns the answer."""

    async def execute(
        self,
        request: ModelRequest,
        on_attempt_failed: Callable[[ModelAttemptFailed], None],
    ) -> ModelAnswer: ...


class RunFailedError(RuntimeError):
    """The run stopped with status ``failed``; its history is resumable."""


class StuckError(RuntimeError):
    """``decide`` asked for nothing, yet the protocol is not finished: a bug, never normal."""


def to_new_event(event: Event) -> NewEvent:
    type_, version, payload, agent = encode(event)
    return NewEvent(type=type_, schema_version=version, payload=payload, agent=agent)


class _Writer:
    """Appends on one thread, in submission order; tracks the stored head seq.

    Batches submitted while an append is being written are stored together by the next one
    (a group commit: one transaction and one fsync for all of them). That changes nothing
    that is promised: every batch is still stored whole, in order, before its future
    resolves, and a crash loses at most what was not yet committed, as before."""

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
        self._queued: list[tuple[tuple[Event, ...], Future[object]]] = []
        self._lock = threading.Lock()

    def submit(self, events: Sequence[Event]) -> Future[object]:
        # Encoding happens on the worker thread too, off the engine's critical path (events
        # are immutable, so handing them over is safe).
        future: Future[object] = Future()
        with self._lock:
            self._queued.append((tuple(events), future))
        # One job per batch; the first to run takes every batch queued by then.
        self.pool.submit(self._append_queued)
        return future

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
            for _, future in taken:
                with contextlib.suppress(InvalidStateError):  # its waiter gave up
                    future.set_exception(exc)
            return
        self.head += len(records)
        if self.checkpoint is not None and receipts:
            every = self.checkpoint_every
            if receipts[-1].seq // every > self.signed_upto // every:
                # One checkpoint per ``every`` events crossed, also where batches stored
                # together cross several: the last event of each stretch in the append.
                for receipt, following in zip(receipts, [*receipts[1:], None], strict=True):
                    crossed = receipt.seq // every > self.signed_upto // every
                    if crossed and (
                        following is None or following.seq // every > receipt.seq // every
                    ):
                        self.signed_upto = receipt.seq
                        try:
                            signed = self.checkpoint(receipt.seq, receipt.hash)
                        except BaseException as exc:  # noqa: BLE001 -- handed to the futures
                            # The events are stored; the run stops here unsigned, and the
                            # resume that continues it signs its head.
                            self.failed = exc
                            for _, future in taken:
                                with contextlib.suppress(InvalidStateError):
                                    future.set_exception(exc)
                            return
                        if signed is not None:
                            self.evidence.append(_named(signed))
        for _, future in taken:
            # A batch whose waiter gave up (the engine was cancelled: its future is cancelled)
            # is stored all the same: the batches after it are stored on top of it.
            with contextlib.suppress(InvalidStateError):
                future.set_result(receipts)


def _named(cp: Checkpoint) -> RunSigned:
    return RunSigned(seq=cp.seq, hash=cp.hash, public_key=cp.public_key, signature=cp.signature)


class Engine:
    """Runs one run to its end (or failure). ``on_event(event, state)`` sees every event as
    it is recorded, with the state once the decision or answers it came with are folded."""

    def __init__(
        self,
        store: EventStore,
        run_id: str,
        executor: CallExecutor,
        *,
        experiment: Experiment | None = None,
        on_event: Callable[[Event, State], None] | None = None,
        signer: Signer | None | Literal["local"] = "local",
        checkpoint_every: int = CHECKPOINT_EVERY,
        opening: Sequence[Event] = (),
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.executor = executor
        # Named by the caller, or the one the run's hashed first event names (never the row).
        self.experiment = experiment or experiments.get(started_of(store, run_id).experiment)
        self.on_event = on_event or (lambda event, state: None)
        # The head is signed every ``checkpoint_every`` events and when the run stops
        # (maai.runtime.checkpoints): with the local key by default (created on first use;
        # a key that cannot be had stops the run before it starts), with ``signer``, or not
        # at all (None). A signature that cannot be written, after the store stayed locked
        # through SIGN_ATTEMPTS tries, stops the run with the store's error: its events are
        # kept, it is not marked ended, and the resume that continues it signs its head.
        self.signer = load_signer() if signer == "local" else signer
        self.checkpoint_every = checkpoint_every
        # Observed facts recorded first, once the run is trusted (a study's worker says who
        # takes the run, run.claimed): never after run.completed, so a run whose history
        # ended only has its status set.
        self.opening = tuple(opening)
        self.warnings: list[str] = []
        self._signing_failed = False
        # Nothing is signed, and no request sent, for a run whose chain and signatures were
        # not checked first (runtime.trust): a forged head is never signed with this key.
        self._trusted = False

    def _checkpoint(self, seq: int, head_hash: str) -> Checkpoint | None:
        """On the writer thread, right after the append that reached ``seq``."""
        signer = self.signer
        assert signer is not None
        signature = signer.sign(self.run_id, seq, head_hash)
        return retry_while_busy(
            lambda: self.store.add_checkpoint(
                self.run_id, seq, head_hash, signer.public_key, signature
            )
        )

    def _sign_ended_head(self) -> None:
        """Sign the head of a run that ended; raises what kept it from being signed."""
        signer = self.signer
        if signer is None or not self._trusted:
            return
        try:
            retry_while_busy(lambda: sign_head(self.store, self.run_id, signer))
        except BaseException:
            self._signing_failed = True
            raise

    def _sign_head(self) -> None:
        """Best effort, for a run that stopped before its end: the resume signs it."""
        if self.signer is not None and self._trusted and not self._signing_failed:
            try:
                sign_head(self.store, self.run_id, self.signer)
            except Exception as exc:  # noqa: BLE001 -- reported; the history is safe
                self.warnings.append(f"the head was not signed: {exc}")

    async def _end(self, pool: ThreadPoolExecutor, status: Literal["completed", "failed"]) -> None:
        """Sign the head, then mark the run ended. In this order a kill between the two
        leaves a run still "running", which the next resume ends and signs; the other order
        could leave a completed run that nobody would sign, and that verify then refuses.
        A head that cannot be signed raises here: the run is never marked ended unsigned."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(pool, self._sign_ended_head)
        await loop.run_in_executor(pool, self.store.set_status, self.run_id, status)

    async def run(self) -> State:
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="maai-ledger")
        try:
            return await self._run(pool)
        finally:
            pool.shutdown(wait=True)
            # A stopped run's head is signed, whatever stopped it (a kill -9 leaves it to the
            # resume that follows); a run that ended signed it already (see _end).
            self._sign_head()
            # Back in the collector's care (see _run): a process that goes on to other work,
            # or runs another experiment, must not keep this run's garbage forever.
            gc.unfreeze()

    async def _run(self, pool: ThreadPoolExecutor) -> State:
        experiment = self.experiment
        evolve, decide = experiment.evolve, experiment.decide
        loop = asyncio.get_running_loop()
        trusted = await loop.run_in_executor(pool, require_trusted, self.store, self.run_id)
        if trusted.started.experiment != experiment.name:
            raise UntrustedRunError(
                f"run {self.run_id}: run.started names experiment {trusted.started.experiment!r},"
                f" not {experiment.name!r}; nothing was sent"
            )
        self.warnings.extend(trusted.warnings)
        state, head = await loop.run_in_executor(
            pool, load_state, self.store, self.run_id, experiment
        )
        if head != trusted.head:
            # Another writer appended while the run was checked: it owns the run now, as
            # when it wins an append.
            raise ConcurrencyError(self.run_id, trusted.head, head)
        self._trusted = True
        # Everything alive now (the imported libraries, the folded history) lives for the
        # whole run. Left in the collector's care, it makes every full collection a pause of
        # 100 ms or more on the loop, which delays every answer waiting to be handled.
        gc.freeze()
        # Shown by `maai runs` while this process works; a hard kill leaves it "running"
        # until the next resume, which is why any status but "completed" can be resumed.
        # On SQLite, room is kept beside the ledger so that a full disk still lets the run be
        # left interrupted rather than running (ledger.reserve).
        await asyncio.get_running_loop().run_in_executor(pool, self.store.keep_reserve)
        await asyncio.get_running_loop().run_in_executor(
            pool, self.store.set_status, self.run_id, "running"
        )
        writer = _Writer(
            self.store,
            self.run_id,
            head,
            pool,
            checkpoint=self._checkpoint if self.signer is not None else None,
            checkpoint_every=self.checkpoint_every,
            signed_upto=head,
            evidence=trusted.evidence() if self.signer is not None else (),
        )
        pending: list[Future[object]] = []
        unsent: list[Event] = []
        in_flight: dict[str, asyncio.Task[ModelAnswer]] = {}
        requests: dict[str, ModelRequest] = {}
        hashes: dict[str, str] = {}

        def record(events: Sequence[Event]) -> None:
            """Fold events into the state now; they are stored by the next ``send``."""
            nonlocal state
            for event in events:
                state = evolve(state, event)
                self.on_event(event, state)
            unsent.extend(events)

        def adopt(decision: Decision) -> None:
            """Take the state ``decide`` reached: its events are folded into it already."""
            nonlocal state
            state = decision.state
            for event in decision.events:
                self.on_event(event, state)
            unsent.extend(decision.events)

        def send() -> None:
            """Store everything recorded and not yet sent, in order, as one batch."""
            if unsent:
                pending.append(writer.submit(list(unsent)))
                unsent.clear()

        def attempt_failed(event: ModelAttemptFailed) -> None:
            # Stored at once: a call may keep retrying for a long while.
            def store_now() -> None:
                record([event])
                send()

            loop.call_soon_threadsafe(store_now)

        if self.opening:
            last = await loop.run_in_executor(pool, self.store.read_one, self.run_id, head)
            if last is not None and last.type != RunCompleted.TYPE:
                record(self.opening)
        try:
            while True:
                await _check_writes(pending)
                decision = decide(state)
                adopt(decision)
                # Only the new calls' requests are built: those in flight were built when
                # they were sent.
                new_calls = [c.request for c in decision.needed if c.address not in in_flight]
                for request in new_calls:
                    requests[request.address] = request
                    in_flight[request.address] = asyncio.create_task(
                        self.executor.execute(request, attempt_failed),
                        name=request.address,
                    )
                if decision.done:
                    send()
                    break
                # The new calls take their first steps (their requests go out, their latency
                # starts) before they are hashed and recorded: that work then overlaps the
                # wait for the answers instead of delaying the requests. Nothing of theirs
                # can be recorded first: an attempt that fails at once is recorded through
                # call_soon_threadsafe, queued behind this coroutine's next step.
                await asyncio.sleep(0)
                requested: list[Event] = []
                for request in new_calls:
                    hashes[request.address] = request.request_hash()
                    requested.append(
                        ModelCallRequested(
                            request=request,
                            request_hash=hashes[request.address],
                            attempt=2 if request.address in state.requested else 1,
                        )
                    )
                record(requested)
                # What came in last time, what it led to and the new requests go to the
                # store as one append (one transaction, one fsync) per turn of the loop,
                # queued behind the new calls' next steps so that the write does not compete
                # with them for the interpreter. A crash before the write only means the
                # calls are asked again on resume.
                loop.call_soon(send)
                if not in_flight:
                    raise StuckError(f"run {self.run_id}: nothing to do but the run is not done")
                done, _ = await asyncio.wait(
                    in_flight.values(), return_when=asyncio.FIRST_COMPLETED
                )
                completed: list[Event] = []
                failure: tuple[ModelRequest, BaseException] | None = None
                for task in done:
                    address = task.get_name()
                    del in_flight[address]
                    request = requests.pop(address)
                    request_hash = hashes.pop(address)
                    error = task.exception()
                    if error is not None:
                        failure = failure or (request, error)
                        continue
                    answer = task.result()
                    if answer.usage.unreadable:
                        self.warnings.append(
                            f"{address}: the provider's usage has fields of the wrong type "
                            f"({', '.join(answer.usage.unreadable)}), counted as 0; its "
                            "usage is kept as sent in the answer's raw response"
                        )
                    completed.append(
                        ModelCallCompleted(
                            address=address,
                            agent=request.agent,
                            request_hash=request_hash,
                            model=request.model,
                            answer=answer,
                        )
                    )
                record(completed)
                if failure is not None:
                    request, error = failure
                    await _cancel(in_flight.values())
                    # A caller's error that names the call itself (runtime.recording's
                    # ModelCallError) gives what went wrong alone as ``detail``: each
                    # failure is said once, without repeated prefixes.
                    what = getattr(error, "detail", None)
                    reason = (
                        f"model call failed: agent {request.agent}, step {request.purpose} "
                        f"({request.address}), model {request.model}: "
                        f"{what if isinstance(what, str) else error}"
                    )
                    record([RunFailed(reason=reason, address=request.address, agent=request.agent)])
                    send()
                    await _flush(pending)
                    await self._end(pool, "failed")
                    raise RunFailedError(reason) from error
            await _flush(pending)
            await self._end(pool, "completed")
            return state
        except BaseException:
            await _cancel(in_flight.values())
            # Answers already in hand are kept (unless the store refused a write: then the
            # writer refuses everything after it). Whatever was submitted is either committed
            # or rejected whole; wait for it.
            send()
            for future in pending:
                with contextlib.suppress(BaseException):
                    await asyncio.wrap_future(future)
            raise


# Appends queued behind the one being written before the engine waits for the store. With
# models that answer at once the engine would otherwise run ever further ahead of its writer:
# more work lost to a crash, a longer flush on Ctrl-C and at the end. With real latencies the
# writer keeps up and this never waits.
MAX_QUEUED_APPENDS = 2


async def _check_writes(pending: list[Future[object]]) -> None:
    """Raise the first store error (e.g. another writer won), drop finished writes, and wait
    while more than ``MAX_QUEUED_APPENDS`` are still queued."""
    while len(pending) > MAX_QUEUED_APPENDS:
        await asyncio.wrap_future(pending.pop(0))
    still = []
    for future in pending:
        if future.done():
            future.result()
        else:
            still.append(future)
    pending[:] = still


async def _flush(pending: list[Future[object]]) -> None:
    for future in pending:
        await asyncio.wrap_future(future)
    pending.clear()


async def _cancel(tasks: Iterable[asyncio.Task[ModelAnswer]]) -> None:
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(BaseException):
            await task


def run_engine(engine: Engine) -> State:
    """``asyncio.run(engine.run())``, without its cost at the end: on its way out,
    ``asyncio.run`` (Python 3.11 to 3.13) restores the SIGINT handler, and ``signal`` formats
    the handler it replaces (which holds the main task, and so its result) into an error
    message it then drops: two ``repr`` of the whole state, seconds for a large run. The main
    task here returns nothing; the state comes back another way."""
    states: list[State] = []

    async def main() -> None:
        states.append(await engine.run())

    asyncio.run(main())
    return states[0]
