"""The imperative shell: fold the ledger, ask ``decide``, make the model calls, append what
happened, repeat (DESIGN.md).

Three rooms: the fold (``runtime.fold``: a run's state from its stored events), the writer
(``runtime.writer``: appends on one worker thread, in submission order, so the engine can
start a model call while the event that records its request is still being committed) and
the loop here (``Engine``: checks and folds the run, then ``_RunLoop`` turns until the
protocol is done).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, NoReturn, Protocol

from maai.domain import experiments
from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunCompleted,
    RunFailed,
)
from maai.domain.experiment import Experiment
from maai.domain.walk import Decision
from maai.ledger import Checkpoint, ConcurrencyError, EventStore
from maai.runtime.checkpoints import CHECKPOINT_EVERY, retry_while_busy, sign_head
from maai.runtime.fold import State, load_state
from maai.runtime.signing import Signer, load_signer
from maai.runtime.trust import UntrustedRunError, require_trusted, started_of
from maai.runtime.writer import LedgerWriter


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
        await loop.run_in_executor(pool, self.store.keep_reserve)
        await loop.run_in_executor(pool, self.store.set_status, self.run_id, "running")
        writer = LedgerWriter(
            self.store,
            self.run_id,
            head,
            pool,
            checkpoint=self._checkpoint if self.signer is not None else None,
            checkpoint_every=self.checkpoint_every,
            signed_upto=head,
            evidence=trusted.evidence() if self.signer is not None else (),
        )
        turns = _RunLoop(self, state, writer, pool)
        if self.opening:
            last = await loop.run_in_executor(pool, self.store.read_one, self.run_id, head)
            if last is not None and last.type != RunCompleted.TYPE:
                turns.record(self.opening)
        return await turns.run()


class _RunLoop:
    """One run's turns, once the engine has checked and folded it: ask ``decide``, start the
    calls it needs, record their requests, wait for answers, record them; until the protocol
    is done or a call fails for good. Events are folded into the state as they are recorded,
    and sent to the writer once per turn."""

    def __init__(
        self, engine: Engine, state: State, writer: LedgerWriter, pool: ThreadPoolExecutor
    ) -> None:
        self.engine = engine
        self.evolve = engine.experiment.evolve
        self.decide = engine.experiment.decide
        self.state = state
        self.writer = writer
        self.pool = pool
        self.loop = asyncio.get_running_loop()
        self.unsent: list[Event] = []
        self.in_flight: dict[str, asyncio.Task[ModelAnswer]] = {}
        self.requests: dict[str, ModelRequest] = {}
        self.hashes: dict[str, str] = {}

    def record(self, events: Sequence[Event]) -> None:
        """Fold events into the state now; they are stored by the next ``send``."""
        for event in events:
            self.state = self.evolve(self.state, event)
            self.engine.on_event(event, self.state)
        self.unsent.extend(events)

    def adopt(self, decision: Decision) -> None:
        """Take the state ``decide`` reached: its events are folded into it already."""
        self.state = decision.state
        for event in decision.events:
            self.engine.on_event(event, self.state)
        self.unsent.extend(decision.events)

    def send(self) -> None:
        """Store everything recorded and not yet sent, in order, as one batch."""
        if self.unsent:
            self.writer.send(list(self.unsent))
            self.unsent.clear()

    def attempt_failed(self, event: ModelAttemptFailed) -> None:
        """Stored at once (from the call's thread): a call may keep retrying for a long while."""
        self.loop.call_soon_threadsafe(self._store_now, event)

    def _store_now(self, event: ModelAttemptFailed) -> None:
        self.record([event])
        self.send()

    async def run(self) -> State:
        try:
            while True:
                await self.writer.check()
                decision = self.decide(self.state)
                self.adopt(decision)
                new_calls = self._start_calls(decision)
                if decision.done:
                    self.send()
                    break
                # The new calls take their first steps (their requests go out, their latency
                # starts) before they are hashed and recorded: that work then overlaps the
                # wait for the answers instead of delaying the requests. Nothing of theirs
                # can be recorded first: an attempt that fails at once is recorded through
                # call_soon_threadsafe, queued behind this coroutine's next step.
                await asyncio.sleep(0)
                self._record_requests(new_calls)
                # What came in last time, what it led to and the new requests go to the
                # store as one append (one transaction, one fsync) per turn of the loop,
                # queued behind the new calls' next steps so that the write does not compete
                # with them for the interpreter. A crash before the write only means the
                # calls are asked again on resume.
                self.loop.call_soon(self.send)
                if not self.in_flight:
                    raise StuckError(
                        f"run {self.engine.run_id}: nothing to do but the run is not done"
                    )
                failure = await self._take_answers()
                if failure is not None:
                    await self._fail(*failure)
            await self.writer.flush()
            await self.engine._end(self.pool, "completed")
            return self.state
        except BaseException:
            await _cancel(self.in_flight.values())
            # Answers already in hand are kept (unless the store refused a write: then the
            # writer refuses everything after it). Whatever was submitted is either committed
            # or rejected whole; wait for it.
            self.send()
            await self.writer.settle()
            raise

    def _start_calls(self, decision: Decision) -> list[ModelRequest]:
        """Start the calls ``decide`` needs that are not in flight yet. Only their requests
        are built: those in flight were built when they were sent."""
        new_calls = [c.request for c in decision.needed if c.address not in self.in_flight]
        for request in new_calls:
            self.requests[request.address] = request
            self.in_flight[request.address] = asyncio.create_task(
                self.engine.executor.execute(request, self.attempt_failed),
                name=request.address,
            )
        return new_calls

    def _record_requests(self, new_calls: list[ModelRequest]) -> None:
        requested: list[Event] = []
        for request in new_calls:
            self.hashes[request.address] = request.request_hash()
            requested.append(
                ModelCallRequested(
                    request=request,
                    request_hash=self.hashes[request.address],
                    attempt=2 if request.address in self.state.requested else 1,
                )
            )
        self.record(requested)

    async def _take_answers(self) -> tuple[ModelRequest, BaseException] | None:
        """Wait for at least one call to end; record the answers that came. The first call
        that failed for good (with its error), if any."""
        done, _ = await asyncio.wait(self.in_flight.values(), return_when=asyncio.FIRST_COMPLETED)
        completed: list[Event] = []
        failure: tuple[ModelRequest, BaseException] | None = None
        for task in done:
            address = task.get_name()
            del self.in_flight[address]
            request = self.requests.pop(address)
            request_hash = self.hashes.pop(address)
            error = task.exception()
            if error is not None:
                failure = failure or (request, error)
                continue
            answer = task.result()
            if answer.usage.unreadable:
                self.engine.warnings.append(
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
        self.record(completed)
        return failure

    async def _fail(self, request: ModelRequest, error: BaseException) -> NoReturn:
        """A call failed for good: the run is recorded failed, and ends so."""
        await _cancel(self.in_flight.values())
        # A caller's error that names the call itself (runtime.recording's ModelCallError)
        # gives what went wrong alone as ``detail``: each failure is said once, without
        # repeated prefixes.
        what = getattr(error, "detail", None)
        reason = (
            f"model call failed: agent {request.agent}, step {request.purpose} "
            f"({request.address}), model {request.model}: "
            f"{what if isinstance(what, str) else error}"
        )
        self.record([RunFailed(reason=reason, address=request.address, agent=request.agent)])
        self.send()
        await self.writer.flush()
        await self.engine._end(self.pool, "failed")
        raise RunFailedError(reason) from error


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
