"""``maai study run|status|list|export|report|submit`` and ``maai worker``: many runs across
conditions (docs/studies.md). Export and report are in ``cli.study_exports``, submit and the
worker in ``cli.worker_commands``.

Exit status: 0 every run completed, 1 some run failed (the others are saved; run the study
again to retry them), 2 a bad study file or store, 3 the study is running in another
process (or the store stayed locked), 4 the store is full (each run it stopped is named on
one line and left interrupted), 5 the budget was reached (runs not started are left for a
later run), 130 interrupted (run it again to continue)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table as RichTable

from maai.cli.common import (
    EXIT_FULL,
    DbOption,
    exit_code_for,
    exit_on_ledger_error,
    fail,
    open_store_or_exit,
)
from maai.cli.status_line import StatusLine
from maai.cli.study_exports import export_command, report_command
from maai.cli.study_support import (
    EXIT_BUDGET,
    EXIT_BUSY,
    EXIT_FAILED_RUNS,
    EXIT_INTERRUPTED,
    StudyArg,
    StudyFileArg,
    _load,
    _study_infos,
    err,
    out,
)
from maai.cli.worker_commands import submit_command, worker_command
from maai.domain.config import ConfigError
from maai.ledger import EventStore
from maai.ledger.locks import LockHeldError
from maai.runtime.live_status import LiveStatus, showing
from maai.runtime.runs import first_claim
from maai.runtime.signing import SigningKeyError, load_signer
from maai.runtime.study import DONE, StudyProgress, run_study, stored_status, study_runs_in_ledger

study_app = typer.Typer(
    name="study",
    help="Many runs across conditions: run, follow and export a study (docs/studies.md).",
    no_args_is_help=True,
)


@dataclass
class _Printed:
    """The last progress line a study run printed in a pipe, and when (monotonic seconds)."""

    at: float = 0.0
    line: str = ""
    running: set[str] = field(default_factory=set)  # on a terminal: the runs last drawn


def _line(progress: StudyProgress, notes: list[str] | None = None) -> str:
    """The study's progress line; ``notes``: what its runs' calls wait on now (a provider's
    rate limit, with the seconds left), shown on a terminal's live line only."""
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
    return " · ".join([*parts, *(notes or [])])


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
    study_file: StudyFileArg,
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
        # The runs' model callers set notes on it while they wait out a busy provider (429,
        # 503): the live line says so, counting down (docs/providers.md).
        waits = LiveStatus()
        status_line = StatusLine(out, lambda: _line(shown[0], waits.notes()), enabled=not quiet)
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
            with exit_on_ledger_error(), showing(waits):
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


study_app.command("export")(export_command)
study_app.command("report")(report_command)
study_app.command("submit")(submit_command)


def register(app: typer.Typer) -> None:
    app.add_typer(study_app)
    app.command("worker")(worker_command)
