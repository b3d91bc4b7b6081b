"""A study's tables (docs/studies.md "Tables"): the runs table, one row per run with its labels
(study, cell, replicate and one column per factor), and each experiment's own tables stacked
over the study's runs. CSV always; Parquet beside it when pandas and pyarrow are installed
(the ``analysis`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from maai.domain.costs import usage_of
from maai.domain.events import ModelCallCompleted, RunClaimed, RunForked
from maai.projections.forks import INHERITED, mark_inherited, prefix_of
from maai.projections.history import History
from maai.projections.schema import (
    CATEGORY,
    COMMON,
    COUNT,
    FLAG,
    SCHEMA_VERSION,
    TEXT,
    ColumnType,
    col,
    label_type,
)
from maai.projections.tables import label_columns, labels_of

RUN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "The run's id (`STUDY.cCELL.rREPLICATE`)."),
    ("experiment", "The experiment the run belongs to."),
    ("status", "The run's status: completed, failed, interrupted, running or created."),
    ("outcome", "The run's outcome in words (the experiment's summary)."),
    (
        "rounds",
        "Rounds used, in the experiment's own unit (its summary's `rounds`); empty where it"
        " counts none.",
    ),
    ("events", "Events in the run's ledger."),
    ("calls", "Model calls made."),
    ("input_tokens", "Input tokens over every call."),
    ("output_tokens", "Output tokens over every call."),
    (
        "cost_usd",
        "What the calls cost in US dollars at the run's `prices`; empty when a"
        " model used has no price (the simulated model is free).",
    ),
    ("parent_run", "For a fork (docs/forks.md): the run it was forked from; else empty."),
    ("fork_point", "For a fork: the point it was forked at (`phase2`, `round:3`, ...)."),
    (
        "inherited_calls",
        "For a fork: the model calls of its inherited prefix, counted in `calls` and the"
        " tokens but not made (nor paid) by this run.",
    ),
    (
        "inherited_tokens",
        "For a fork: the input and output tokens of those inherited calls.",
    ),
    ("started_at", "When the run's first event was recorded (UTC, ISO 8601)."),
    ("ended_at", "When its last event was recorded (UTC, ISO 8601)."),
    ("wall_s", "Seconds between the two."),
    (
        "worker",
        "The `maai worker` that took the run first (its `--name`, else HOST:PID), from the"
        " run's first `run.claimed` event; empty for a run no worker took (`maai study run`).",
    ),
    ("host", "The machine that worker ran on."),
)
"""The runs table's columns after the labels, with their meaning (``run_row`` builds a row)."""

RUN_TYPES: dict[str, ColumnType] = {
    "experiment": CATEGORY,
    "status": CATEGORY,
    "outcome": TEXT,
    "rounds": col("int64", "rounds or exchanges"),
    "events": COUNT,
    "calls": COUNT,
    "input_tokens": col("int64", "tokens"),
    "output_tokens": col("int64", "tokens"),
    "cost_usd": col("float64", "US dollars"),
    "parent_run": TEXT,
    "fork_point": TEXT,
    "inherited_calls": COUNT,
    "inherited_tokens": col("int64", "tokens"),
    "started_at": col("timestamp", "UTC"),
    "ended_at": col("timestamp", "UTC"),
    "wall_s": col("float64", "s"),
    "worker": TEXT,
    "host": TEXT,
}
"""The runs table's declared types (``projections/schema.py``); labels are typed by value."""


def run_row(history: History) -> dict[str, Any]:
    experiment = history.experiment
    row: dict[str, Any] = {"run_id": history.run_id, **labels_of(history)}
    row["experiment"] = experiment.name if experiment else None
    row["status"] = history.stored_status
    row["events"] = len(history.entries)
    if history.entries:
        first, last = history.entries[0].recorded_at, history.entries[-1].recorded_at
        row["started_at"], row["ended_at"] = first, last
        seconds = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
        row["wall_s"] = round(seconds, 3)
    row.update(_fork_columns(history))
    claimed = worker_of(history)
    if claimed is not None:
        row["worker"], row["host"] = claimed.worker, claimed.host
    if experiment is not None and history.entries:
        state = experiment.fold([entry.event for entry in history.entries])
        summary = experiment.summarize(history.run_id, state, history.stored_status)
        row["outcome"] = summary.outcome
        row["calls"] = summary.calls
        row["input_tokens"] = summary.input_tokens
        row["output_tokens"] = summary.output_tokens
        prices = getattr(history.config, "prices", None) or {}
        row["cost_usd"] = usage_of(e.event for e in history.entries).cost_usd(prices)
        row["rounds"] = summary.rounds
    return row


def worker_of(history: History) -> RunClaimed | None:
    """The first worker that took the run (its first ``run.claimed``), or None."""
    claims = history.of(RunClaimed)
    return claims[0][1] if claims else None


def _fork_columns(history: History) -> dict[str, Any]:
    """A fork's parent, point, and the calls and tokens of the prefix it inherited."""
    forks = history.of(RunForked)  # found by position: a run that is no fork decodes nothing
    if not forks:
        return {}
    at, forked = forks[-1]
    inherited = [call for e, call in history.of(ModelCallCompleted) if e.seq < at.seq]
    return {
        "parent_run": forked.parent_run,
        "fork_point": forked.point,
        "inherited_calls": len(inherited),
        "inherited_tokens": sum(
            e.answer.usage.input_tokens + e.answer.usage.output_tokens for e in inherited
        ),
    }


def study_tables(
    histories: Sequence[History], *, with_prefix: bool = False
) -> dict[str, tuple[list[dict[str, Any]], list[str]] | str]:
    """File name → (rows, columns) of a ``.csv`` table, or text: the runs table, its
    dictionary, and each experiment's tables (a folder per experiment when the study mixes them).
    A fork's rows that its prefix alone gives (its parent's) are left out, or with
    ``with_prefix`` kept and marked in an ``inherited`` column, as ``maai export`` does
    (docs/forks.md, "Tables"): the replicates of a study forked at a point do not each
    repeat the prefix they share."""
    labels = label_columns(histories)
    columns = ["run_id", *labels, *[name for name, _ in RUN_COLUMNS[1:]]]
    files: dict[str, Any] = {
        "runs.csv": ([run_row(h) for h in histories], columns),
    }
    groups: dict[str, list[History]] = {}
    for history in histories:
        if history.experiment is not None:
            groups.setdefault(history.experiment.name, []).append(history)
    for name, group in sorted(groups.items()):
        prefix = "" if len(groups) == 1 else f"{name}/"
        assert group[0].experiment is not None
        views = group[0].experiment.views()
        marked = mark_inherited(views.tables(group), group, views.tables, with_prefix)
        for file_name, text in marked.items():
            files[prefix + file_name] = text
    files["runs_dictionary.md"] = runs_dictionary(labels)
    return files


def study_table_types(
    histories: Sequence[History], *, with_prefix: bool = False
) -> dict[str, dict[str, ColumnType]]:
    """File name → each column's declared type, for every ``.csv`` file of
    :func:`study_tables` whose experiment declares its columns' types (with ``with_prefix``,
    where a run is a fork, ``inherited`` too)."""
    labels = label_columns(histories)
    runs = {**COMMON, **RUN_TYPES}
    for key in labels:
        if key not in COMMON:  # a study's own labels have their declared type
            runs[key] = label_type([labels_of(h).get(key) for h in histories])
    found: dict[str, dict[str, ColumnType]] = {"runs.csv": runs}
    groups: dict[str, list[History]] = {}
    for history in histories:
        if history.experiment is not None:
            groups.setdefault(history.experiment.name, []).append(history)
    for name, group in sorted(groups.items()):
        prefix = "" if len(groups) == 1 else f"{name}/"
        assert group[0].experiment is not None
        rendered = group[0].experiment.views().tables(group)
        typed = getattr(rendered, "column_types", None)
        if typed is None:
            continue
        marked = with_prefix and any(prefix_of(h) is not None for h in group)
        for file_name in rendered:
            if file_name.endswith(".csv"):
                found[prefix + file_name] = typed(file_name)
                if marked:
                    found[prefix + file_name][INHERITED] = FLAG
    return found


def runs_dictionary(labels: Sequence[str]) -> str:
    lines = [
        "# The runs table",
        "",
        "`runs.csv` (and `runs.parquet`): one row per run of the study. After `run_id` come the",
        "run's labels: `study`, `cell` (the combination of factor values, from 1), `replicate`",
        "(from 1) and one column per factor, named by its config path, holding the run's value",
        "(a value that is not a plain number, text or boolean is written as JSON).",
        "",
        f"Types are the schema `{SCHEMA_VERSION}` (the Parquet files' `maai.schema`).",
        "",
        "| column | type | unit | meaning |",
        "|---|---|---|---|",
        "| `run_id` | category | | " + RUN_COLUMNS[0][1] + " |",
        *(f"| `{label}` | by value | | label (a factor, or the study's own) |" for label in labels),
        *(
            f"| `{name}` | {RUN_TYPES[name].dtype} | {RUN_TYPES[name].unit} | {meaning} |"
            for name, meaning in RUN_COLUMNS[1:]
        ),
        "",
        "The experiment's own tables are stacked over the study's runs, each with the same",
        "label columns; see `data_dictionary.md`.",
        "",
    ]
    return "\n".join(lines)


__all__ = [
    "RUN_COLUMNS",
    "RUN_TYPES",
    "run_row",
    "runs_dictionary",
    "study_table_types",
    "study_tables",
    "worker_of",
]
