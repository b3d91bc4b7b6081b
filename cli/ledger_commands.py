"""Ledger commands: ``maai db upgrade`` and ``maai runs``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from maai.cli.common import DbOption, err_console, exit_on_ledger_error, fail, open_store_or_exit
from maai.cli.summary import cost_text

if TYPE_CHECKING:
    from maai.api import RunRecord

db_app = typer.Typer(
    name="db",
    help="Manage the ledger database (schema upgrades).",
    no_args_is_help=True,
)


@db_app.command("upgrade")
def db_upgrade(db: DbOption = None) -> None:
    """Create the ledger schema, or bring it up to this version of maai.

    Needed for PostgreSQL, which is never upgraded implicitly; SQLite files are upgraded
    when opened, and this creates one ahead of time.
    """
    with open_store_or_exit(db, upgrade=True) as store:
        if store.upgraded_from is None:
            typer.echo(f"{store.display}: schema is up to date (revision {store.schema_revision})")
        else:
            typer.echo(
                f"{store.display}: upgraded schema from {store.upgraded_from}"
                f" to revision {store.schema_revision}"
            )


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _label_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_labels(given: list[str]) -> dict[str, str]:
    """``--label KEY=VALUE`` options as a dict; a malformed one is one error line, exit 2."""
    labels: dict[str, str] = {}
    for item in given:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--label {item!r}: expected KEY=VALUE, e.g. --label condition=high", 2)
        labels[key] = value
    return labels


SORT_KEYS: dict[str, Callable[[RunRecord], Any]] = {
    "created": lambda r: r.created_at,
    "id": lambda r: r.id,
    "experiment": lambda r: r.experiment,
    "name": lambda r: r.name,
    "status": lambda r: r.status,
    "seed": lambda r: r.seed,
    "calls": lambda r: r.calls,
    "tokens": lambda r: _tokens(r),
    "cost": lambda r: r.cost_usd,
    "duration": lambda r: r.duration_s,
    "events": lambda r: r.head_seq,
}
"""``--sort`` keys; a leading ``-`` sorts in descending order, and unknown values go last."""


def _tokens(record: RunRecord) -> int | None:
    if record.input_tokens is None or record.output_tokens is None:
        return None
    return record.input_tokens + record.output_tokens


def sort_records(records: list[RunRecord], key: str) -> list[RunRecord]:
    descending = key.startswith("-")
    value = SORT_KEYS[key.lstrip("-")]
    known = [r for r in records if value(r) is not None]
    unknown = [r for r in records if value(r) is None]
    return sorted(known, key=value, reverse=descending) + unknown


RUNS_HEADER = (
    "run id",
    "experiment",
    "config",
    "models",
    "seed",
    "status",
    "outcome",
    "calls",
    "tokens",
    "cost",
    "duration",
    "events",
    "created (UTC)",
    "labels",
)
_RIGHT = {"seed", "calls", "tokens", "cost", "duration", "events"}


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    minutes, rest = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{rest:02d}s"


def _number(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _runs_lines(records: list[RunRecord]) -> list[str]:
    """Plain aligned columns: nothing is cut or wrapped, and only the labels (last) may make
    a line longer than 80 characters."""
    rows = [RUNS_HEADER] + [
        (
            r.id,
            r.experiment,
            r.name or "—",
            ",".join(r.models) or "—",
            "—" if r.seed is None else str(r.seed),
            r.status,
            r.outcome or "—",
            _number(r.calls),
            _number(_tokens(r)),
            cost_text(r.cost_usd),
            _duration(r.duration_s),
            str(r.head_seq),
            _when(r.created_at),
            ",".join(f"{k}={_label_text(v)}" for k, v in sorted(r.labels.items())),
        )
        for r in records
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(RUNS_HEADER) - 1)]
    lines = []
    for row in rows:
        cells = [
            row[i].rjust(widths[i]) if RUNS_HEADER[i] in _RIGHT else row[i].ljust(widths[i])
            for i in range(len(widths))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines


def _as_tree(
    lines: list[str], records: list[RunRecord], parents: dict[str, tuple[str, str, int]]
) -> list[str]:
    """The listed lines reordered so that each fork follows its parent, indented, with the
    point it was forked at; a fork whose parent is not listed stays at the top level."""
    line_of = {r.id: line for r, line in zip(records, lines[1:], strict=True)}
    children: dict[str, list[str]] = {}
    for record in records:
        parent = parents.get(record.id)
        if parent is not None and parent[0] in line_of:
            children.setdefault(parent[0], []).append(record.id)
    out = [lines[0]]

    def emit(run_id: str, depth: int) -> None:
        fork = parents.get(run_id)
        where = f"  (fork at {fork[1]}, seq {fork[2]})" if fork is not None and depth else ""
        out.append("  " * depth + ("└ " if depth else "") + line_of[run_id] + where)
        for child in children.get(run_id, []):
            emit(child, depth + 1)

    for record in records:
        parent = parents.get(record.id)
        if parent is None or parent[0] not in line_of:
            emit(record.id, 0)
    return out


def runs_command(
    db: DbOption = None,
    experiment: Annotated[
        str | None,
        typer.Option("--experiment", metavar="NAME", help="Only runs of this experiment."),
    ] = None,
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            metavar="STATUS",
            help="Only runs with this status (created, running, completed, failed, interrupted).",
        ),
    ] = None,
    label: Annotated[
        list[str] | None,
        typer.Option(
            "--label",
            metavar="KEY=VALUE",
            help="Only runs with this label (the config's labels:); repeat to require several.",
        ),
    ] = None,
    sort: Annotated[
        str,
        typer.Option(
            "--sort",
            metavar="KEY",
            help="Order by " + ", ".join(SORT_KEYS) + "; -KEY for descending (default: created).",
        ),
    ] = "created",
    limit: Annotated[
        int | None,
        typer.Option("--limit", metavar="N", min=1, help="Only the first N runs, once sorted."),
    ] = None,
    tree: Annotated[
        bool,
        typer.Option(
            "--tree", help="Each fork under its parent, with its fork point (docs/forks.md)."
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print a JSON list: every field of the Python API's RunRecord"
            " (docs/projections.md).",
        ),
    ] = False,
) -> None:
    """List the runs in the ledger, oldest first (times in UTC).

    Columns: run id, experiment, config name, models, seed, status, outcome, calls, tokens
    (input + output), cost (at the config's prices; — without), duration, events, created,
    labels. See docs/projections.md ("maai runs")."""
    from maai.api import RUN_STATUSES, run_record
    from maai.run_filters import hashed_runs, select_runs

    if status is not None and status not in RUN_STATUSES:
        fail(f"--status {status!r}: unknown status; one of {', '.join(RUN_STATUSES)}", 2)
    if sort.lstrip("-") not in SORT_KEYS:
        fail(f"--sort {sort!r}: unknown key; one of {', '.join(SORT_KEYS)} (-KEY: descending)", 2)
    labels = _parse_labels(label or [])
    with open_store_or_exit(db) as store, exit_on_ledger_error():
        # Experiments, configs and labels as the hashed run.started events record them.
        infos, problems = hashed_runs(store)
        runs = select_runs(infos, experiment=experiment, status=status, labels=labels or None)
        records = [run_record(store, info) for info in runs]
        where = store.display
        if tree:
            from maai.runtime.forks import lineage

            parents = lineage(store).parents
    for problem in problems:
        err_console.print(f"[yellow]warning:[/yellow] {escape(problem)}", soft_wrap=True)
    records = sort_records(records, sort)[:limit]
    filters = [
        *([f"--experiment {experiment}"] if experiment is not None else []),
        *([f"--status {status}"] if status is not None else []),
        *(f"--label {k}={v}" for k, v in labels.items()),
    ]
    if not records:
        said = f"no runs match {' '.join(filters)} in {where}" if filters else f"no runs in {where}"
        err_console.print(escape(said))
    if as_json:
        typer.echo(json.dumps([r.as_json() for r in records], indent=2, ensure_ascii=False))
        return
    if not records:
        return
    lines = _runs_lines(records)
    if tree:
        lines = _as_tree(lines, records, parents)
    if sys.stdout.isatty():
        lines[0] = typer.style(lines[0], bold=True)
    for line in lines:
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add ``db`` (with ``upgrade``) and ``runs`` to the ``maai`` app."""
    app.add_typer(db_app, name="db")
    app.command("runs")(runs_command)
