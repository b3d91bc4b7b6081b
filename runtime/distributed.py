"""A study spread over many machines (docs/studies.md "Many machines"), on procrastinate: a
PostgreSQL task queue, so the ledger's database is the only service. ``submit`` creates the
study's runs in the ledger and enqueues one job per unfinished run; any number of workers
take jobs and run them. A job only names its run: a worker continues the run from its last
event, exactly as ``maai resume`` would, so a job taken over from a killed worker (its
heartbeat stopped) picks up where that worker stopped, and a job whose run is already
completed does nothing. The ledger's append check (expected head) keeps two workers from ever
writing one run at the same time."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from procrastinate import App, PsycopgConnector, RetryStrategy
from procrastinate.exceptions import AlreadyEnqueued
from procrastinate.jobs import Job
from procrastinate.retry import RetryDecision
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from maai.domain.config import Price
from maai.domain.events import ModelCallCompleted, RunClaimed, RunSigned
from maai.ledger import EventStore, LedgerError
from maai.ledger.locks import named_lock
from maai.ledger.urls import StoreLocation
from maai.runtime.engine import Engine, RunFailedError
from maai.runtime.plans import JobRefused, check_job, make_plan, sign_plan
from maai.runtime.runs import ensure_started, stored_config
from maai.runtime.signing import Signer
from maai.runtime.study import (
    DONE,
    Study,
    create_planned,
    recorded_usage,
    stored_status,
    study_runs_in_ledger,
)

QUEUE = "maai-runs"
TASK = "maai.run"
log = logging.getLogger("maai.worker")


class NotPostgresError(ValueError):
    """Distributed studies need a PostgreSQL ledger."""


def libpq_dsn(location: StoreLocation) -> str:
    """The ledger's SQLAlchemy URL as a libpq connection string (what procrastinate takes)."""
    if location.backend != "postgresql":
        raise NotPostgresError(
            "spreading a study over machines needs a PostgreSQL ledger (--db postgresql://...);"
            " on one machine use: maai study run"
        )
    url = location.url.set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


def _queue_tables_exist(location: StoreLocation) -> bool:
    engine = create_engine(location.url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT to_regclass('procrastinate_jobs')")).scalar()
    finally:
        engine.dispose()
    return found is not None


def ensure_queue_schema(location: StoreLocation) -> None:
    """Create procrastinate's tables in the ledger's database once (under a lock, so that
    several workers starting together do not race)."""
    if _queue_tables_exist(location):
        return
    with named_lock(location, "queue-schema", "the task queue's setup"):
        if not _queue_tables_exist(location):  # another process may have made them meanwhile
            app = App(connector=PsycopgConnector(conninfo=libpq_dsn(location)))
            with app.open():
                app.schema_manager.apply_schema()


@dataclass
class Submitted:
    enqueued: list[str]
    already_queued: list[str]
    completed: list[str]


def submit_study(store: EventStore, study: Study, signer: Signer) -> Submitted:
    """Create the study's runs that do not exist yet, sign the study's plan (runtime.plans)
    and enqueue a job carrying it for each run that is not completed (a run already queued
    is not queued twice)."""
    dsn = libpq_dsn(store.location)
    ensure_queue_schema(store.location)
    with named_lock(store.location, f"study-{study.file.study}", f"study {study.file.study}"):
        statuses = stored_status(store, study.runs)
        for run in study.runs:
            if statuses[run.run_id] is None:
                create_planned(store, run, signer)
            else:  # a submit killed between a run's two creation writes: from the study file
                ensure_started(store, run.run_id, run.config)
        plan = make_plan(
            store,
            study.file.study,
            study.file.budget_usd,
            {run.run_id: run.config for run in study.runs},
        )
    signed = sign_plan(plan, signer)
    result = Submitted([], [], [r for r, s in statuses.items() if s == DONE])
    app = App(connector=PsycopgConnector(conninfo=dsn))
    task = app.task(name=TASK, queue=QUEUE)(_placeholder)
    with app.open():
        for run in study.runs:
            if statuses[run.run_id] == DONE:
                continue
            try:
                task.configure(queueing_lock=run.run_id).defer(
                    run_id=run.run_id,
                    study=study.file.study,
                    budget_usd=study.file.budget_usd,
                    plan=signed,
                )
            except AlreadyEnqueued:
                result.already_queued.append(run.run_id)
            else:
                result.enqueued.append(run.run_id)
    return result


def study_cost(store: EventStore, study: str) -> float | None:
    """What the study's runs in the ledger have cost so far, at each run's prices; ``None``
    when a model used has no price."""
    total: float | None = 0.0
    for info in study_runs_in_ledger(store).get(study, []):
        prices = {k: Price.model_validate(v) for k, v in (info.config.get("prices") or {}).items()}
        cost = recorded_usage(store, info.run_id).cost_usd(prices)
        total = None if cost is None or total is None else total + cost
    return total


def _placeholder(run_id: str) -> None:  # pragma: no cover -- only workers run the task
    raise RuntimeError("a submitter never runs jobs")


@dataclass(frozen=True)
class WorkerIdentity:
    """Who runs a job: the worker's id (``--name``, else HOST:PID), its host and process."""

    id: str
    host: str
    pid: int

    @classmethod
    def of_this_process(cls, name: str | None = None) -> WorkerIdentity:
        host, pid = socket.gethostname(), os.getpid()
        return cls(name or f"{host}:{pid}", host, pid)



@dataclass
class WorkerOptions:
    concurrency: int = 1
    heartbeat_s: float = 10.0
    stalled_after_s: float = 30.0  # a worker silent this long is dead: its jobs are retried
    burst: bool = False  # stop when the queue is empty instead of waiting for more


class _RetryUnlessRefused(RetryStrategy):
    """Retry a job that failed (a worker's crash, a busy store), never one that was refused:
    it would be refused again."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        if isinstance(exception, JobRefused):
            return None
        return super().get_retry_decision(exception=exception, job=job)


def build_worker_app(
    store: EventStore,
    signer: Signer | None,
    on_run: Callable[[str, str], None],
    identity: WorkerIdentity | None = None,
    trusted_keys: Sequence[str] = (),
    allowed_hosts: Sequence[str] | None = None,
) -> App:
    """``trusted_keys``: the public keys whose signed plans are run (the worker's own key
    when empty); ``allowed_hosts``: the provider hosts it sends to (each plan's own when
    ``None``)."""
    from maai.runtime.executors import LiveExecutor

    app = App(connector=PsycopgConnector(conninfo=libpq_dsn(store.location)))
    trusted = list(trusted_keys) or ([signer.public_key] if signer is not None else [])

    @app.task(name=TASK, queue=QUEUE, retry=_RetryUnlessRefused(max_attempts=5, wait=2))
    async def run_job(
        run_id: str,
        study: str | None = None,
        budget_usd: float | None = None,
        plan: dict[str, Any] | None = None,
    ) -> None:
        # Before anything else, and before any request: the job's signed plan, the run's
        # chain and signatures (runtime.plans). What the job says besides is not trusted.
        try:
            # In a thread: reading the run's chain must not hold up the worker's heartbeat.
            checked = await asyncio.to_thread(
                check_job, store, run_id, plan, trusted, allowed_hosts
            )
        except JobRefused as exc:
            on_run(run_id, f"refused: {exc}")
            raise
        study, budget_usd = checked.get("study"), checked.get("budget_usd")
        info = store.get_run(run_id)
        if info.status == DONE:
            on_run(run_id, "already completed")
            return
        if study is not None and budget_usd is not None:
            spent = study_cost(store, study)
            if spent is not None and spent >= budget_usd:
                # Left as it is (resumable): submitting again with a larger budget runs it.
                on_run(
                    run_id, f"not started: the study has cost ${spent:,.2f} of ${budget_usd:,.2f}"
                )
                return
        experiment, config = stored_config(store, run_id)
        me = identity or WorkerIdentity.of_this_process()
        head = store.head(run_id)
        # Begun before (by a worker that stopped answering, by `maai study run`, or by this
        # worker's earlier try): anything beyond run.started and its signing evidence.
        continues = head > 1 + len(store.seqs_of_type(run_id, RunSigned.TYPE))
        if continues:
            on_run(run_id, f"continuing from event {head}")
        on_run(run_id, "started")
        calls = [0]

        def count(event: object, state: object) -> None:
            calls[0] += isinstance(event, ModelCallCompleted)

        engine = Engine(
            store,
            run_id,
            LiveExecutor(config, experiment=experiment),
            experiment=experiment,
            on_event=count,
            signer=signer,
            opening=[RunClaimed(worker=me.id, host=me.host, pid=me.pid, continues=continues)],
        )
        began = time.monotonic()
        try:
            await engine.run()
        except RunFailedError as exc:
            on_run(run_id, f"failed after {calls[0]} model call(s): {exc}")
            raise
        except LedgerError as exc:
            # The store refused a write (full, locked): the run is left interrupted, never
            # running, and the job fails with the reason (procrastinate retries it).
            with contextlib.suppress(LedgerError):
                if store.get_run(run_id).status in ("running", "created"):
                    store.set_status(run_id, "interrupted")
            on_run(run_id, f"stopped: {exc}")
            raise
        on_run(run_id, f"{calls[0]} model call(s) in {time.monotonic() - began:.1f} s")
        on_run(run_id, "completed")

    return app


async def _revive_stalled(
    app: App, options: WorkerOptions, on_revive: Callable[[int], None]
) -> None:
    """Retry the jobs of workers whose heartbeat stopped (killed, or their machine lost)."""
    manager = app.job_manager
    while True:
        stalled = await manager.get_stalled_jobs(
            queue=QUEUE, seconds_since_heartbeat=options.stalled_after_s
        )
        for job in stalled:
            if job.id is None:
                continue
            with contextlib.suppress(Exception):  # another worker revived it first
                await manager.retry_job_by_id_async(job.id, retry_at=datetime.now(UTC))
                on_revive(job.id)
        await manager.prune_stalled_workers(seconds_since_heartbeat=options.stalled_after_s)
        await asyncio.sleep(max(1.0, options.heartbeat_s))


async def run_worker(
    store: EventStore,
    signer: Signer | None,
    options: WorkerOptions,
    on_run: Callable[[str, str], None] = lambda run_id, what: None,
    on_revive: Callable[[int], None] = lambda job_id: None,
    identity: WorkerIdentity | None = None,
    trusted_keys: Sequence[str] = (),
    allowed_hosts: Sequence[str] | None = None,
) -> None:
    ensure_queue_schema(store.location)
    app = build_worker_app(store, signer, on_run, identity, trusted_keys, allowed_hosts)
    async with app.open_async():
        reviver = asyncio.create_task(_revive_stalled(app, options, on_revive))
        try:
            kwargs: dict[str, Any] = {
                "queues": [QUEUE],
                "concurrency": options.concurrency,
                "wait": not options.burst,
                "update_heartbeat_interval": options.heartbeat_s,
                "stalled_worker_timeout": options.stalled_after_s,
                "install_signal_handlers": True,
            }
            await app.run_worker_async(**kwargs)
        finally:
            reviver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reviver
