"""``maai export`` and ``maai audit votes|leaks|protocol``: read models of a run's history.

The commands only read the store and write files; every projection is a pure function in
``projections/``. Exit status: 0 ok, 1 the audit found violations, 2 a usage, store or file
error (one line naming the run, agent or file at fault), 3 the store is locked by another
process. An existing file (``-o``) is never overwritten, nor a folder with anything in it
(``--out``) written into, without ``--force``. A ledger that cannot be written (read-only
media, a published file) is opened read-only.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from maai.cli.common import (
    CliConsole,
    DbOption,
    err_console,
    exit_on_ledger_error,
    fail,
    open_store_or_exit,
)
from maai.cli.files import refuse_to_overwrite, write_file
from maai.cli.run_source import StoredRun
from maai.cli.study_exports import parquet_beside, write_study_tables
from maai.cli.vote_table import print_vote_tables
from maai.domain.experiment import ExperimentViews
from maai.domain.experiments import UnknownExperimentError
from maai.ledger import EventStore
from maai.projections.forks import INHERITED, fork_note, mark_inherited, transcript_note
from maai.projections.history import History, UnknownAgentError, UnreadableEventError
from maai.projections.jsonout import dumps, iter_dumps
from maai.projections.schema import FLAG
from maai.projections.tables import RenderedTables

EXIT_VIOLATIONS = 1

out = CliConsole(highlight=False, soft_wrap=True)

audit_app = typer.Typer(
    name="audit",
    help="Check a run's history: votes, information leaks, protocol rules (each experiment's "
    "rules: docs/experiments.md).",
    no_args_is_help=True,
)


class Format(StrEnum):
    JSON = "json"
    TRANSCRIPT = "transcript"
    TABLES = "tables"


RunArg = Annotated[str, typer.Argument(metavar="RUN_ID", help="The run (a unique prefix will do).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def load_history(
    store: EventStore, run_id: str, keep_prompts: bool = False, audit: bool = False
) -> History:
    """The run's history without its prompts, read from ``store`` whenever a projection asks
    for them (``cli/run_source.py``): memory bounded by the run's events, not by the text
    of its prompts. ``keep_prompts``: spool the prompts for the JSON export. The store must
    stay open while the history is read. ``audit``: an event that cannot be read is what the
    audit found (exit 1), not bad input (exit 2)."""
    with exit_on_ledger_error():
        info = store.get_run(run_id)
        try:
            history = StoredRun(store, info.run_id, keep_prompts).load(info.status)
        except (UnreadableEventError, UnknownExperimentError) as exc:
            if audit and isinstance(exc, UnreadableEventError):
                out.print(f"[red]violation[/red] unreadable event: {escape(str(exc))}")
                out.print(f"[red]1 violation(s)[/red]: run {info.run_id} cannot be audited")
                raise typer.Exit(EXIT_VIOLATIONS) from None
            fail(f"run {info.run_id}: {exc}")
    if history.experiment is None:
        fail(f"run {info.run_id}: has no run.started event, so its experiment is unknown")
    return history


def _views(history: History) -> ExperimentViews:
    assert history.experiment is not None
    return history.experiment.views()


def write_table_file(path: Path, files: Mapping[str, str], name: str) -> None:
    """``files[name]`` into ``path``; a table rendered row by row (``RenderedTables``) is
    written as its rows come, never held whole."""
    if not isinstance(files, RenderedTables):
        write_file(path, files[name])
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            files.write(name, handle)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_file(output, text)


def _emit_json(value: Any, output: Path | None) -> None:
    """The value as :func:`dumps` writes it, written piece by piece as it is encoded: a
    large run's log is never held as one string. A file is written beside its final name
    and renamed into place, so an export is whole or absent, never cut short."""
    if output is None:
        for piece in iter_dumps(value):
            sys.stdout.write(piece)
        sys.stdout.flush()
        return
    partial = output.with_name(f".{output.name}.partial")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(iter_dumps(value))
        partial.replace(output)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        fail(f"cannot write {output}: {exc.strerror or exc}")


def export(
    run_ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="RUN_ID...", help="The run(s) to export; unique prefixes will do."),
    ] = None,
    db: DbOption = None,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help="json: the agent-centric log; transcript: the public discussion as Markdown; "
            "tables: CSV files for pandas/R with a data dictionary, and Parquet files typed by"
            " the declared schema with the analysis extra (needs --out).",
        ),
    ] = Format.JSON,
    agent: Annotated[
        str | None, typer.Option("--agent", help="json only: export this agent alone.")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="tables only: the directory to write to."),
    ] = None,
    all_runs: Annotated[
        bool,
        typer.Option(
            "--all",
            help="tables only: export every run in the ledger, each study's runs in a folder"
            " study-NAME, with a runs table (CSV, and Parquet with the analysis extra).",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Overwrite an existing -o FILE, or write into a --out DIR that is not empty.",
        ),
    ] = False,
    with_prefix: Annotated[
        bool,
        typer.Option(
            "--with-prefix",
            help="tables only: keep a fork's rows from its parent's prefix, marked in an "
            "`inherited` column (by default a fork's tables hold what followed its fork "
            "point; docs/forks.md).",
        ),
    ] = False,
) -> None:
    """Export a run: agent-centric JSON log (default), transcript, or CSV tables.

    The same events always give the same bytes."""
    ids = list(run_ids or [])
    if fmt is not Format.TABLES:
        if all_runs or len(ids) != 1:
            fail(f"--format {fmt.value} exports exactly one run; use --format tables for several")
        if out_dir is not None:
            fail("--out DIR is for --format tables; use -o FILE")
    elif out_dir is None:
        fail("--format tables writes several files: give --out DIR")
    elif output is not None or agent is not None:
        fail("--format tables takes --out DIR, not -o or --agent")
    elif all_runs == bool(ids):
        fail("give run ids or --all (not both)")
    if agent is not None and fmt is not Format.JSON:
        fail("--agent works with --format json only")
    if not force:
        refuse_to_overwrite(output, out_dir)

    with open_store_or_exit(db) as store:
        if fmt is Format.TABLES:
            assert out_dir is not None
            with exit_on_ledger_error():
                ids = ids or [run.run_id for run in store.list_runs()]
            histories = [load_history(store, run_id) for run_id in ids]
            if all_runs:
                _export_all(out_dir, histories, with_prefix)
                return
            by_experiment: dict[str, list[History]] = {}
            for history in histories:
                assert history.experiment is not None
                by_experiment.setdefault(history.experiment.name, []).append(history)
            written = 0
            for name, group in sorted(by_experiment.items()):
                # Runs of different experiments have different tables: one folder each.
                folder = out_dir if len(by_experiment) == 1 else out_dir / name
                views = _views(group[0])
                rendered = views.tables(group)
                files = mark_inherited(rendered, group, views.tables, with_prefix)
                typed = getattr(rendered, "column_types", None)
                for file_name in files:
                    write_table_file(folder / file_name, files, file_name)
                    if typed is not None and file_name.endswith(".csv"):
                        types = {**typed(file_name), INHERITED: FLAG}
                        written += parquet_beside(folder / file_name, types)
                written += len(files)
            typer.echo(f"wrote {written} files for {len(histories)} run(s) to {out_dir}", err=True)
            return
        history = load_history(store, ids[0], keep_prompts=fmt is Format.JSON)
        if fmt is Format.TRANSCRIPT:
            # A fork's opens with what of it is inherited (docs/forks.md).
            _emit(transcript_note(history) + _views(history).transcript(history), output)
            return
        try:
            log = _views(history).agent_log(history, agent)
        except UnknownAgentError as exc:
            fail(f"run {history.run_id}: {exc}")
        note = fork_note(history)
        _emit_json(log if note is None else {"fork": note, **log}, output)


@audit_app.command("votes")
def audit_votes(run_id: RunArg, db: DbOption = None, as_json: JsonFlag = False) -> None:
    """Every vote proposal, poll answer and ballot: raw text, who read it (parser or utility
    agent), the value, validity and rejection reason, attempt, tallies and the outcome, each
    with its event seq and hash. The tallies, consensus and poll outcomes are recounted from
    the ballots and answers: exits 1 when they disagree (the inconsistencies on stderr)."""
    with open_store_or_exit(db) as store:
        history = load_history(store, run_id, audit=True)
        views = _views(history)
        try:
            report = views.audit_votes(history)
            problems = [] if report is None else views.vote_problems(history)
            outcome = None if report is None else views.vote_outcome(report)
        except Exception as exc:  # an edited history: a finding, never a traceback
            lines = str(exc).strip().splitlines() or [""]
            detail = f"the votes cannot be read: {type(exc).__name__}: {lines[0]}"
            err_console.print(f"[red]inconsistent[/red] {escape(detail)}", soft_wrap=True)
            raise typer.Exit(EXIT_VIOLATIONS) from None
        if report is None:
            assert history.experiment is not None
            fail(f"run {history.run_id}: the {history.experiment.name} experiment has no votes")
    if as_json:
        typer.echo(dumps(report), nl=False)
    else:
        assert outcome is not None
        print_vote_tables(out, history.run_id, report["rows"], views.describe_vote)
        out.print(escape(outcome.line()))
    for problem in problems:
        err_console.print(f"[red]inconsistent[/red] {escape(problem)}", soft_wrap=True)
    if problems:
        raise typer.Exit(EXIT_VIOLATIONS)


@audit_app.command("leaks")
def audit_leaks_command(run_id: RunArg, db: DbOption = None, as_json: JsonFlag = False) -> None:
    """Check every recorded prompt against the experiment's information rules: no prompt of an
    agent contains another agent's private material (Frohlich: reasoning, memory, results,
    ballots, bank balance; the Phase-2 payment table before the discussion ended; see
    docs/frohlich.md). Exits 1 when anything leaked."""
    with open_store_or_exit(db) as store:
        history = load_history(store, run_id, audit=True)
        report = _views(history).audit_leaks(history)
    if as_json:
        typer.echo(dumps(report.to_json()), nl=False)
    else:
        for leak in report.leaks:
            out.print(f"[red]leak[/red] {escape(leak.describe())}")
        if report.unchecked is not None:
            out.print(f"[red]unchecked[/red] {escape(report.unchecked)}")
        verdict = (
            "[green]ok[/green]"
            if report.ok
            else f"[red]{len(report.leaks)} leak(s)[/red]"
            + (" and an unchecked run" if report.unchecked is not None else "")
        )
        out.print(
            f"{verdict}: {report.prompts_checked} prompts of run {history.run_id} checked "
            f"against {report.items_checked} private items"
        )
    if not report.ok:
        raise typer.Exit(EXIT_VIOLATIONS)


@audit_app.command("protocol")
def audit_protocol_command(
    run_id: RunArg,
    db: DbOption = None,
    as_json: JsonFlag = False,
    list_rules: Annotated[
        bool, typer.Option("--rules", help="Also list the rules checked.")
    ] = False,
) -> None:
    """Check the history against the experiment's protocol rules (Frohlich, docs/frohlich.md:
    rounds, tables, multipliers, payoffs, balances, speaking orders, polls, ballots,
    consensus, attempts, memory limits, randomness). Exits 1 on any violation."""
    with open_store_or_exit(db) as store:
        history = load_history(store, run_id, audit=True)
        views = _views(history)
        report = views.audit_protocol(history)
    if as_json:
        typer.echo(dumps(report.to_json()), nl=False)
    else:
        if list_rules:
            for rule in views.protocol_rules():
                out.print(f"{rule.id} ({rule.spec}): {rule.description}")
        for v in report.violations:
            where = f"seq {v.seq}" if v.seq is not None else "run"
            out.print(f"[red]violation[/red] {v.rule} at {where}: {escape(v.detail)}")
        verdict = (
            "[green]ok[/green]"
            if report.ok
            else f"[red]{len(report.violations)} violation(s)[/red]"
        )
        out.print(f"{verdict}: {len(report.rules_checked)} rules checked on run {history.run_id}")
    if not report.ok:
        raise typer.Exit(EXIT_VIOLATIONS)


def _export_all(out_dir: Path, histories: list[History], with_prefix: bool) -> None:
    """Every run of the ledger: each study's runs in a folder of their own (``study-NAME``),
    the runs of no study in ``out_dir`` itself, each with a runs table and the experiments'
    tables, as CSV and (with the analysis extra) Parquet (docs/studies.md, "Tables")."""
    groups: dict[str | None, list[History]] = {}
    for history in histories:
        study = (getattr(history.config, "labels", None) or {}).get("study")
        groups.setdefault(study if isinstance(study, str) else None, []).append(history)
    written = 0
    for study, group in sorted(groups.items(), key=lambda kv: kv[0] or ""):
        written += write_study_tables(
            out_dir if study is None else out_dir / f"study-{study}", group, with_prefix=with_prefix
        )
    typer.echo(f"wrote {written} files for {len(histories)} run(s) to {out_dir}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``export`` and the ``audit`` group to the ``maai`` app."""
    app.command("export")(export)
    app.add_typer(audit_app, name="audit")
