"""A study's tables (docs/studies.md "Tables"): the runs table, one row per run with its labels
(study, cell, replicate and one column per factor), and each experiment's own tables stacked
over the study's runs. CSV always; Parquet beside it when pandas and pyarrow are installed
(the ``analysis`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from maai.domain.costs import usage_of
from maai.projections.history import History
from maai.projections.tables import label_columns, labels_of

RUN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "The run's id (`STUDY.cCELL.rREPLICATE`)."),
    ("experiment", "The experiment the run belongs to."),
    ("status", "The run's status: completed, failed, interrupted, running or created."),
    ("outcome", "The run's outcome in words (the experiment's summary)."),
    ("rounds", "Discussion rounds or exchanges used, where the experiment counts them."),
    ("events", "Events in the run's ledger."),
    ("calls", "Model calls made."),
    ("input_tokens", "Input tokens over every call."),
    ("output_tokens", "Output tokens over every call."),
    (
        "cost_usd",
        "What the calls cost in US dollars at the run's `prices`; empty when a"
        " model used has no price (the simulated model is free).",
    ),
    ("started_at", "When the run's first event was recorded (UTC, ISO 8601)."),
    ("ended_at", "When its last event was recorded (UTC, ISO 8601)."),
    ("wall_s", "Seconds between the two."),
    (
        "worker",
        "The `maai worker` that started the run (its `--name`, else HOST:PID); empty for a run"
        " started by `maai study run`.",
    ),
    ("host", "The machine that worker ran on."),
)
"""The runs table's columns after the labels, with their meaning (``run_row`` builds a row)."""


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
    worker = worker_of(history)
    if worker is not None:
        row["worker"], row["host"] = worker.get("id"), worker.get("host")
    if experiment is not None and history.entries:
        state = experiment.fold([entry.event for entry in history.entries])
        summary = experiment.summarize(history.run_id, state, history.stored_status)
        row["outcome"] = summary.outcome
        row["calls"] = summary.calls
        row["input_tokens"] = summary.input_tokens
        row["output_tokens"] = summary.output_tokens
        prices = getattr(history.config, "prices", None) or {}
        row["cost_usd"] = usage_of(e.event for e in history.entries).cost_usd(prices)
        headline = dict(summary.headline)
        row["rounds"] = headline.get("round") or headline.get("exchange")
    return row


def worker_of(history: History) -> dict[str, Any] | None:
    """Who started the run, as its ``run.started`` records it (a study's worker), or None."""
    started = history.started
    worker = (started.provenance or {}).get("worker") if started is not None else None
    return worker if isinstance(worker, dict) else None


def study_tables(histories: Sequence[History]) -> dict[str, list[dict[str, Any]] | str]:
    """File name → rows (``.csv`` tables) or text: the runs table, its dictionary, and each
    experiment's tables (a folder per experiment when the study mixes them)."""
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
        for file_name, text in group[0].experiment.views().tables(group).items():
            files[prefix + file_name] = text
    files["runs_dictionary.md"] = runs_dictionary(labels)
    return files


def runs_dictionary(labels: Sequence[str]) -> str:
    lines = [
        "# The runs table",
        "",
        "`runs.csv` (and `runs.parquet`): one row per run of the study. After `run_id` come the",
        "run's labels: `study`, `cell` (the combination of factor values, from 1), `replicate`",
        "(from 1) and one column per factor, named by its config path, holding the run's value",
        "(a value that is not a plain number, text or boolean is written as JSON).",
        "",
        "| column | meaning |",
        "|---|---|",
        "| `run_id` | " + RUN_COLUMNS[0][1] + " |",
        *(f"| `{label}` | label (a factor, or the study's own) |" for label in labels),
        *(f"| `{name}` | {meaning} |" for name, meaning in RUN_COLUMNS[1:]),
        "",
        "The experiment's own tables are stacked over the study's runs, each with the same",
        "label columns; see `data_dictionary.md`.",
        "",
    ]
    return "\n".join(lines)


__all__ = ["RUN_COLUMNS", "run_row", "runs_dictionary", "study_tables", "worker_of"]
