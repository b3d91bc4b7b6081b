"""``maai study submit`` and ``maai worker``: a study spread over machines through a
PostgreSQL ledger and its job queue (docs/studies.md, "Many machines").
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from maai.cli.common import DbOption, exit_on_ledger_error, fail, open_store_or_exit
from maai.cli.study_support import EXIT_BUSY, EXIT_INTERRUPTED, StudyFileArg, _load, out
from maai.domain.config import ConfigError
from maai.ledger.locks import LockHeldError
from maai.ledger.urls import resolve_store_url
from maai.runtime.signing import SigningKeyError, load_signer


def submit_command(
    study_file: StudyFileArg,
    db: DbOption = None,
) -> None:
    """Spread a study over machines: create its runs in a PostgreSQL ledger and enqueue one
    job per unfinished run for `maai worker` processes (procrastinate, in the same database).
    Submitting again enqueues only what is neither completed nor queued."""
    from maai.runtime.distributed import NotPostgresError, submit_study
    from maai.runtime.trust import UntrustedRunError

    study = _load(study_file, db)
    _postgres_only(db)
    try:
        signer = load_signer()
    except SigningKeyError as exc:
        fail(str(exc))
    with open_store_or_exit(db, read_only=False) as store:
        try:
            with exit_on_ledger_error():
                submitted = submit_study(store, study, signer)
        except NotPostgresError as exc:
            fail(str(exc))
        except UntrustedRunError as exc:
            fail(str(exc), 1)
        except LockHeldError as exc:
            fail(f"{exc}; wait for it to finish, or stop it first", EXIT_BUSY)
        except ConfigError as exc:
            fail(str(exc))
    out.print(
        f"study {study.file.study}: {len(submitted.enqueued)} run(s) enqueued,"
        f" {len(submitted.already_queued)} already queued,"
        f" {len(submitted.completed)} already completed;"
        f" start workers with: maai worker --db URL"
    )


def worker_command(
    db: DbOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-j", min=1, max=256, help="Runs at once.")
    ] = 1,
    heartbeat_s: Annotated[
        float, typer.Option("--heartbeat-s", min=0.5, help="Seconds between heartbeats.")
    ] = 10.0,
    stalled_after_s: Annotated[
        float,
        typer.Option(
            "--stalled-after-s",
            min=1.0,
            help="A worker silent this long is taken for dead; its runs are given to others.",
        ),
    ] = 30.0,
    burst: Annotated[
        bool, typer.Option("--burst", help="Stop when no job is left instead of waiting.")
    ] = False,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            help="This worker's id, recorded in the run.claimed of each run it takes "
            "(default: HOST:PID).",
        ),
    ] = None,
    trust: Annotated[
        list[Path] | None,
        typer.Option(
            "--trust",
            metavar="KEYFILE",
            help="Run only plans signed by this key (a PEM public key, a maai signing key, "
            "or hex; repeatable). Default: this machine's own key (docs/studies.md).",
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="HOST",
            help="Run only plans whose every provider host (host[:port]) is one of these "
            "(repeatable). Default: the hosts the signed plan names.",
        ),
    ] = None,
) -> None:
    """Take study runs from the queue of a PostgreSQL ledger and run them (docs/studies.md,
    "Many machines"); start as many as you like, on any machine that reaches the database.
    A run whose worker died is continued by another from its last event. Ctrl-C stops after
    the runs under way are saved (resumable)."""
    import asyncio

    from maai.runtime.distributed import (
        NotPostgresError,
        WorkerIdentity,
        WorkerOptions,
        run_worker,
    )
    from maai.runtime.plans import TrustKeyError, read_trusted_key

    _postgres_only(db)
    try:
        signer = load_signer()
        trusted = [read_trusted_key(path) for path in trust or []]
    except (SigningKeyError, TrustKeyError) as exc:
        fail(str(exc))
    options = WorkerOptions(concurrency, heartbeat_s, stalled_after_s, burst)

    def on_run(run_id: str, what: str) -> None:
        out.print(f"{run_id}: {what}")

    def on_revive(job_id: int) -> None:
        out.print(f"job {job_id}: its worker stopped answering; queued again")

    identity = WorkerIdentity.of_this_process(name)
    with open_store_or_exit(db, read_only=False) as store:
        out.print(
            f"worker {escape(identity.id)} (host {escape(identity.host)}, pid {identity.pid}):"
            f" taking study runs from {escape(store.display)}, {concurrency} at a time"
            + ("; stops when the queue is empty" if burst else "; Ctrl-C stops")
        )
        try:
            with exit_on_ledger_error():
                asyncio.run(
                    run_worker(
                        store,
                        signer,
                        options,
                        on_run,
                        on_revive,
                        identity,
                        trusted_keys=trusted,
                        allowed_hosts=[h.lower() for h in allow_host] if allow_host else None,
                    )
                )
        except NotPostgresError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            raise typer.Exit(EXIT_INTERRUPTED) from None


def _postgres_only(db: str | None) -> None:
    """Refuse a ledger that is not PostgreSQL before opening it: one line, exit 2, and no
    SQLite file created."""
    from maai.runtime.distributed import NotPostgresError, libpq_dsn

    with exit_on_ledger_error():
        location = resolve_store_url(db)
    try:
        libpq_dsn(location)
    except NotPostgresError as exc:
        fail(str(exc))
