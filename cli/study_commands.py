"""``maai study run|status|list|export|report|submit`` and ``maai worker``: many runs across
conditions (docs/studies.md).

Exit status: 0 every run completed, 1 some run failed (the others are saved; run the study
again to retry them), 2 a bad study file or store, 3 the study is running in another
process (or the store stayed locked), 4 the store is full (each run it stopped is named on
one line and left interrupted), 5 the budget was reached (runs not started are left for a
later run), 130 interrupted (run it again to continue)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table as RichTable

from maai.cli.common import (
    EXIT_FULL,
    CliConsole,
    DbOption,
    exit_code_for,
    exit_on_ledger_error,
    fail,
    open_store_or_exit,
)
from maai.cli.files import refuse_to_overwrite, write_file, write_whole
from maai.cli.run_source import StoredRun
from maai.cli.status_line import StatusLine
from maai.domain.config import ConfigError
from maai.ledger import EventStore
from maai.ledger.locks import LockHeldError
from maai.ledger.urls import resolve_store_url
from maai.projections.history import History
from maai.projections.study import study_tables
from maai.projections.tables import to_csv
from maai.runtime import config_files
from maai.runtime.runs import first_claim
from maai.runtime.signing import SigningKeyError, load_signer
from maai.runtime.study import (
    DONE,
    Study,
    StudyProgress,
    load_study,
    run_study,
    stored_status,
    study_runs_in_ledger,
)

EXIT_FAILED_RUNS = 1
EXIT_BUSY = 3
EXIT_BUDGET = 5
EXIT_INTERRUPTED = 130

out = CliConsole(highlight=False, soft_wrap=True)
err = CliConsole(stderr=True, highlight=False, soft_wrap=True)

study_app = typer.Typer(
    name="study",
    help="Many runs across conditions: run, follow and export a study (docs/studies.md).",
    no_args_is_help=True,
)

StudyArg = Annotated[
    str, typer.Argument(metavar="STUDY", help="A study file (YAML), or a study's name.")
]


@dataclass
class _Printed:
    """The last progress line a study run printed in a pipe, and when (monotonic seconds)."""

    at: float = 0.0
    line: str = ""
    running: set[str] = field(default_factory=set)  # on a terminal: the runs last drawn


def _load(path: str, db: str | EventStore | None = None) -> Study:
    """The study; one from a fork point reads its base config from the ledger (``db``, or
    the store given), opened only for it (docs/forks.md)."""

    def opened() -> EventStore:
        return db if isinstance(db, EventStore) else open_store_or_exit(db)

    try:
        return load_study(path, opened)
    except ConfigError as exc:
        fail(str(exc))
    raise AssertionError("unreachable")


def _line(progress: StudyProgress) -> str:
    eta = progress.eta_s()
    tokens = progress.input_tokens + progress.output_tokens
    parts = [
        f"runs {progress.total}: done {progress.done}",
        f"running {len(progress.running)}" + _names(progress.running),
        f"failed {progress.failed}",
        f"pending {progress.pending}",
        f"calls {progress.calls}",
        f"tokens {tokens:,}"
        + (f" ({progress.cached_input_tokens:,} cached)" if progress.cached_input_tokens else ""),
        "cost "
        + (
            "? (a model has no price)"
            if progress.cost_usd is None
            else f"${progress.cost_usd:,.2f}"
        )
        + (f" of ${progress.budget_usd:,.2f}" if progress.budget_usd is not None else ""),
        "ETA " + ("—" if eta is None else f"{int(eta // 60)}:{int(eta % 60):02d}"),
    ]
    if progress.preparing:
        parts.insert(1, progress.preparing + "…")
    return " · ".join(parts)


RUNNING_NAMED = 4
"""How many of the runs under way the progress line names."""


def _names(running: set[str]) -> str:
    """``(c1.r2, c1.r3, +6)``: the runs under way, by their cell and replicate."""
    if not running:
        return ""
    names = [run_id.split(".", 1)[-1] for run_id in sorted(running)]
    more = len(names) - RUNNING_NAMED
    return " (" + ", ".join(names[:RUNNING_NAMED]) + (f", +{more}" if more > 0 else "") + ")"


@study_app.command("run")
def run_command(
    study_file: Annotated[
        str,
        typer.Argument(
            metavar="STUDY.yaml",
            help="The study file, or a packaged example study by name (`u_sweep`).",
        ),
    ],
    db: DbOption = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            "-j",
            min=1,
            max=256,
            help="Runs at once (default: the study file's `concurrency`).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the final line.")] = False,
) -> None:
    """Run every run of a study that is not completed yet, several at once, with one live
    progress line. Run it again after an interruption or a failure: completed runs are never
    run again; the others continue from their last event."""
    study = _load(study_file, db)
    try:
        signer = load_signer()
    except SigningKeyError as exc:
        fail(str(exc))
    from maai.runtime.preflight import preflight
    from maai.runtime.providers import ProviderSetupError

    try:
        # Every provider the study's runs use, reached once before any run is created.
        preflight(run.config for run in study.runs)
    except ProviderSetupError as exc:
        fail(str(exc))  # exit 2: bad setup, like a bad study file
    with open_store_or_exit(db, read_only=False) as store:
        # On a terminal one live line, drawn from the progress from the first moment (the
        # first run's model setup takes seconds); in a pipe the same line every 5 s at most.
        # The final line is printed once, after the live line is gone.
        shown: list[StudyProgress] = []
        status_line = StatusLine(out, lambda: _line(shown[0]), enabled=not quiet)
        printed = _Printed()

        def start(progress: StudyProgress) -> None:
            done = f", {progress.done} completed before" if progress.done else ""
            out.print(f"study [bold]{escape(study.file.study)}[/bold]: {progress.total} runs{done}")
            shown.append(progress)
            status_line.start()

        def show(progress: StudyProgress) -> None:
            if status_line.shown:
                # A run started or ended: drawn at once, so that every run under way is
                # named on the line even if it takes less time than a redraw comes.
                if progress.running != printed.running:
                    printed.running = set(progress.running)
                    status_line.refresh()
            elif not quiet and time.monotonic() - printed.at > 5:
                printed.at, printed.line = time.monotonic(), _line(progress)
                out.print(printed.line)

        try:
            with exit_on_ledger_error():
                try:
                    outcome = run_study(
                        store,
                        study,
                        signer=signer,
                        concurrency=concurrency,
                        on_change=show,
                        on_start=start,
                    )
                finally:
                    status_line.stop()
        except LockHeldError as exc:
            fail(f"{exc}; wait for it to finish, or stop it first", EXIT_BUSY)
        except ConfigError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            err.print(
                f"interrupted: the study is saved; continue it with: maai study run {study_file}"
            )
            raise typer.Exit(EXIT_INTERRUPTED) from None
    progress = outcome.progress
    if _line(progress) != printed.line:
        out.print(_line(progress))
    if outcome.skipped:
        out.print(f"{len(outcome.skipped)} run(s) were already completed and were not run again")
    for run_id, reason in progress.failures.items():
        err.print(f"[red]failed:[/red] {run_id}: {escape(reason)}")
    if progress.stopped:
        # One line per run the store stopped (a full disk, a lock held too long): each is
        # left interrupted, and the next `study run` continues it from its last event.
        for run_id, stopped_by in progress.stopped.items():
            err.print(f"[red]stopped:[/red] {run_id}: {escape(str(stopped_by))}")
        err.print(
            f"{len(progress.stopped)} run(s) stopped by the store, left interrupted; once it"
            f" takes writes again, continue with: maai study run {study_file}"
        )
        codes = [exit_code_for(exc) for exc in progress.stopped.values()]
        raise typer.Exit(EXIT_FULL if EXIT_FULL in codes else max(codes))
    if progress.failed:
        err.print(f"{progress.failed} run(s) failed; run the study again to retry them")
        raise typer.Exit(EXIT_FAILED_RUNS)
    if progress.not_started:
        err.print(
            f"budget reached: {len(progress.not_started)} run(s) were not started; raise"
            f" budget_usd in {study_file} and run the study again to continue"
        )
        raise typer.Exit(EXIT_BUDGET)


def _study_infos(store: EventStore, name_or_file: str) -> tuple[str, list[Any], Study | None]:
    if Path(name_or_file).is_file() or name_or_file in config_files.packaged_studies():
        study = _load(name_or_file, store)
        name = study.file.study
    else:
        study, name = None, name_or_file
    with exit_on_ledger_error():
        infos = study_runs_in_ledger(store).get(name, [])
    if study is None and not infos:
        fail(f"no study named {name!r} in {store.display} (and no such study file)")
    return name, infos, study


@study_app.command("status")
def status_command(study_arg: StudyArg, db: DbOption = None) -> None:
    """Each run of a study with its status; with the study file, also the runs not created
    yet."""
    with open_store_or_exit(db) as store:
        name, infos, study = _study_infos(store, study_arg)
        statuses: dict[str, str | None] = {info.run_id: info.status for info in infos}
        if study is not None:
            try:
                with exit_on_ledger_error():
                    statuses = stored_status(store, study.runs)
            except ConfigError as exc:
                fail(str(exc))
        with exit_on_ledger_error():
            workers = {run_id: _worker(store, run_id) for run_id, s in statuses.items() if s}
    table = RichTable(title=f"study {name}")
    shown_workers = any(workers.values())  # a distributed study: who started each run
    for column in ("run id", "status", *(("worker",) if shown_workers else ())):
        table.add_column(column)
    for run_id, status in statuses.items():
        worker = (workers.get(run_id) or "—",) if shown_workers else ()
        table.add_row(escape(run_id), status or "not created", *worker)
    out.print(table)
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status or "not created"] = counts.get(status or "not created", 0) + 1
    out.print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())))


def _worker(store: EventStore, run_id: str) -> str | None:
    """``ID on HOST``: the worker that took the run first (its first ``run.claimed``)."""
    claimed = first_claim(store, run_id)
    return None if claimed is None else escape(f"{claimed.worker} on {claimed.host}")


@study_app.command("list")
def list_command(db: DbOption = None) -> None:
    """The studies in the ledger: runs, completed, failed, others."""
    with open_store_or_exit(db) as store, exit_on_ledger_error():
        studies = study_runs_in_ledger(store)
    if not studies:
        out.print(f"no studies in {store.display}")
        return
    table = RichTable()
    for column in ("study", "experiment", "runs", "completed", "failed", "other"):
        table.add_column(column)
    for name, infos in sorted(studies.items()):
        done = sum(1 for i in infos if i.status == DONE)
        failed = sum(1 for i in infos if i.status == "failed")
        kinds = ", ".join(sorted({i.kind for i in infos}))
        table.add_row(
            name, kinds, str(len(infos)), str(done), str(failed), str(len(infos) - done - failed)
        )
    out.print(table)


@study_app.command("export")
def export_command(
    study_arg: StudyArg,
    out_dir: Annotated[Path, typer.Option("--out", help="The folder to write the tables to.")],
    db: DbOption = None,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a folder that is not empty.")
    ] = False,
    with_prefix: Annotated[
        bool,
        typer.Option(
            "--with-prefix",
            help="Keep each fork's rows from its parent's prefix, marked in an `inherited` "
            "column (by default a fork's tables hold what followed its fork point; "
            "docs/forks.md).",
        ),
    ] = False,
) -> None:
    """The study's tables: `runs.csv` (one row per run, with its factor values) and the
    experiment's tables stacked over the runs, each as CSV and, with the `analysis` extra
    installed, Parquet; with their data dictionaries. A study of forks holds what each run
    did after its fork point, not the shared prefix once per replicate (`--with-prefix`)."""
    if not force:
        refuse_to_overwrite(None, out_dir)
    with open_store_or_exit(db) as store:
        _, infos, _ = _study_infos(store, study_arg)
        histories: list[History] = []
        with exit_on_ledger_error():
            for info in infos:  # without their prompts: tables show none
                histories.append(StoredRun(store, info.run_id).load(info.status))
            written = write_study_tables(out_dir, histories, with_prefix=with_prefix)
    err.print(f"wrote {written} files for {len(histories)} run(s) to {out_dir}")


def write_study_tables(
    out_dir: Path, histories: list[History], *, with_prefix: bool = False
) -> int:
    """The runs table and the experiments' tables of ``histories`` into ``out_dir``: CSV,
    and Parquet beside each with the analysis extra; forks' inherited rows left out unless
    ``with_prefix`` (docs/forks.md). Returns how many files were written."""
    from maai.projections.study import study_table_types

    types = study_table_types(histories, with_prefix=with_prefix)
    written = 0
    for name, content in study_tables(histories, with_prefix=with_prefix).items():
        text = to_csv(content[1], content[0]) if isinstance(content, tuple) else content
        write_file(out_dir / name, text)
        written += 1
        if name.endswith(".csv") and _parquet(out_dir / name, text, types.get(name)):
            written += 1
    return written


@study_app.command("report")
def report_command(
    study_arg: StudyArg,
    db: DbOption = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="The HTML file to write (default: STUDY.html in the current folder).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write one self-contained HTML report of a study: its plan, runs by status, calls and
    tokens, every run (with the command for its own page), then its experiment's results by
    condition with plots and statistics (Frohlich: agreement, the agreed principle against
    the study file's reference with a test chosen by rule, rounds, payoffs, the manipulator's
    target; collaboration: collaboration and mismatch rates by u with 95% intervals, beliefs),
    and for every factor its outcomes compared between levels (tests chosen by rule, effect
    sizes, Holm-corrected pairs; the study file's confounds printed). Give the study file (not
    its name) for its reference distribution and confounds. See docs/studies.md ("Report",
    "Statistics")."""
    from maai.projections.study_report import study_report

    with open_store_or_exit(db) as store:
        name, infos, study = _study_infos(store, study_arg)
        target = output if output is not None else Path(f"{name}.html")
        if not force:
            refuse_to_overwrite(target, None)
        if target.is_dir():
            fail(f"{target}: is a folder; -o names the file to write")
        with exit_on_ledger_error():
            # Without their prompts (docs/projections.md, "Memory"): the page shows none.
            histories = [StoredRun(store, info.run_id).load(info.status) for info in infos]
            page = study_report(
                name, histories, study.file if study else None, study.source if study else None
            )
    write_whole(target, page)
    err.print(f"wrote {target} ({len(histories)} run(s))")


def _parquet(csv_path: Path, text: str, types: dict[str, Any] | None) -> bool:
    """A Parquet copy of a CSV table, typed by its declared schema; ``False`` without the
    analysis extra, or (said on stderr) where a column's type is not declared: a type is
    never guessed from the data."""
    from maai.projections.schema import write_parquet

    try:
        return write_parquet(csv_path, text, types or {})
    except KeyError as exc:
        err.print(f"no Parquet for {csv_path.name}: {escape(str(exc.args[0]))}", highlight=False)
        return False


def parquet_beside(csv_path: Path, types: dict[str, Any]) -> bool:
    """As :func:`_parquet`, for a table already written to ``csv_path`` (read from the file,
    never held whole)."""
    from maai.projections.schema import write_parquet_beside

    try:
        return write_parquet_beside(csv_path, types)
    except KeyError as exc:
        err.print(f"no Parquet for {csv_path.name}: {escape(str(exc.args[0]))}", highlight=False)
        return False


@study_app.command("submit")
def submit_command(
    study_file: Annotated[
        str,
        typer.Argument(
            metavar="STUDY.yaml",
            help="The study file, or a packaged example study by name (`u_sweep`).",
        ),
    ],
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


def register(app: typer.Typer) -> None:
    app.add_typer(study_app)
    app.command("worker")(worker_command)
