"""``maai runs``: plain columns in a pipe without cutting a run id, every field of the Python
API in ``--json``, ``--sort`` and ``--limit``, and the filters ``--experiment``, ``--status``
(an unknown one refused) and ``--label``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maai
from maai.cli.app import app
from maai.cli.summary import cost_text
from maai.ledger import EventStore
from tests.api.conftest import FOREIGN, HIGH, LOW, NEW, Sample

runner = CliRunner()
HEADER = [
    "run",
    "id",
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
    "created",
    "(UTC)",
    "labels",
]


def runs(sample: Sample, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["runs", "--db", str(sample.path), *args], env={"COLUMNS": "80"})
    return result.exit_code, result.stdout, result.stderr


def check_columns(stdout: str, ids: list[str]) -> None:
    """Header, then one line per run: the full run id first, nothing cut or wrapped."""
    lines = stdout.splitlines()
    assert lines[0].split() == HEADER
    assert [line.split()[0] for line in lines[1:]] == ids
    for line in lines:
        assert line == line.rstrip()
        assert "…" not in line


def columns_of(stdout: str) -> dict[str, dict[str, str]]:
    """Run id -> column -> cell, cut at the header's column starts."""
    lines = stdout.splitlines()
    names = ["run id", *HEADER[2:-3], "created (UTC)", "labels"]
    starts = [lines[0].index(name) for name in names]
    # Right-aligned columns end where their header ends: cut each cell at the gaps instead.
    table = {}
    for line in lines[1:]:
        cells = [c for c in line.split("  ") if c.strip()]
        row = dict(zip(names, [c.strip() for c in cells], strict=False))
        table[row["run id"]] = row
    assert starts == sorted(starts)
    return table


def test_every_column_of_a_run(sample: Sample) -> None:
    code, out, err = runs(sample)
    assert code == 0 and err == ""
    check_columns(out, [HIGH, LOW, NEW, FOREIGN])
    rows = columns_of(out)
    with maai.open(sample.path) as ledger:
        records = {r.id: r for r in ledger.runs()}
    low = rows[LOW]
    record = records[LOW]
    assert record.cost_usd is not None and record.calls and record.input_tokens
    assert (low["experiment"], low["config"], low["models"], low["seed"]) == (
        "frohlich",
        "priced",
        "simulated",
        "11",
    )
    assert low["status"] == "completed" and low["outcome"] == record.outcome
    assert low["calls"] == f"{record.calls:,}"
    assert low["tokens"] == f"{record.input_tokens + (record.output_tokens or 0):,}"
    assert low["cost"] == cost_text(record.cost_usd) and low["cost"].startswith("$0.")
    assert low["events"] == str(head_of(sample, LOW))
    assert low["labels"] == "condition=low,flag=true,n=3"
    assert rows[HIGH]["cost"] == "—"  # no prices: no cost (never a guessed one)
    assert rows[HIGH]["config"] == (records[HIGH].name or "—")
    assert out.splitlines()[3].split()[1:2] == ["frohlich"]  # NEW: created, never started
    assert rows[FOREIGN]["experiment"] == "nonesuch" and rows[FOREIGN]["outcome"] == "—"


def test_a_pipe_gets_plain_columns(sample: Sample) -> None:
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "maai", "runs", "--db", str(sample.path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stdout  # no colours or styles in a pipe
    check_columns(done.stdout, [HIGH, LOW, NEW, FOREIGN])


def head_of(sample: Sample, run_id: str) -> int:
    with EventStore.open(str(sample.path)) as store:
        return store.get_run(run_id).head_seq


def test_json_has_every_field_of_the_python_api(sample: Sample) -> None:
    code, out, err = runs(sample, "--json")
    assert code == 0 and err == ""
    listed = json.loads(out)
    with maai.open(sample.path) as ledger:
        records = ledger.runs()
    assert [set(item) for item in listed] == [{f.name for f in fields(r)} for r in records]
    for item, record in zip(listed, records, strict=True):
        assert item["created_at"] == record.created_at.isoformat()
        assert item["created_at"].endswith("+00:00")
        for name in ("id", "status", "outcome", "calls", "input_tokens", "cost_usd", "seed"):
            assert item[name] == getattr(record, name)
        assert item["models"] == list(record.models)
    assert [r["id"] for r in listed] == [HIGH, LOW, NEW, FOREIGN]
    assert listed[1]["labels"] == {"condition": "low", "n": 3, "flag": True}
    low = listed[1]
    # The cost is the tokens at the config's prices: $2 in and $10 out per million.
    expected = (low["input_tokens"] * 2.0 + low["output_tokens"] * 10.0) / 1_000_000
    assert low["cost_usd"] == pytest.approx(expected) and low["cost_usd"] > 0
    assert listed[0]["cost_usd"] is None  # no prices set
    assert listed[3]["outcome"] is None and listed[3]["models"] == []  # experiment unknown


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--sort", "-created"], [FOREIGN, NEW, LOW, HIGH]),
        # 5, 11, then unknown as listed: NEW's seed is only in its row (no run.started)
        (["--sort", "seed"], [HIGH, LOW, NEW, FOREIGN]),
        (["--sort", "-events", "--limit", "2"], None),
        (["--limit", "1"], [HIGH]),
        (["--sort", "id", "--limit", "3"], [HIGH, LOW, NEW]),
    ],
)
def test_sort_and_limit(sample: Sample, args: list[str], expected: list[str] | None) -> None:
    code, out, err = runs(sample, *args, "--json")
    assert code == 0, err
    listed = [r["id"] for r in json.loads(out)]
    if expected is None:  # the two started runs, the longer first
        heads = {run_id: head_of(sample, run_id) for run_id in (HIGH, LOW)}
        assert listed == sorted(heads, key=heads.__getitem__, reverse=True)
    else:
        assert listed == expected
    code, columns, _ = runs(sample, *args)
    assert code == 0 and [line.split()[0] for line in columns.splitlines()[1:]] == listed


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--status", "finished"], "--status 'finished': unknown status; one of created, running"),
        (["--sort", "colour"], "--sort 'colour': unknown key; one of created, id"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_an_unknown_status_or_sort_key_is_bad_input(
    sample: Sample, args: list[str], words: str
) -> None:
    code, out, err = runs(sample, *args)
    assert code == 2 and out == ""
    assert words in err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--experiment", "frohlich"], [HIGH, LOW, NEW]),
        (["--experiment", "nonesuch"], [FOREIGN]),
        (["--status", "completed"], [HIGH, LOW]),
        (["--status", "created"], [NEW, FOREIGN]),
        (["--label", "condition=high"], [HIGH]),  # NEW, FOREIGN: rows with no events
        (["--label", "n=3"], [LOW]),
        (["--label", "flag=true"], [LOW]),
        (["--label", "condition=low", "--label", "n=3"], [LOW]),
        (
            ["--experiment", "frohlich", "--status", "completed", "--label", "condition=high"],
            [HIGH],
        ),
    ],
)
def test_filters(sample: Sample, args: list[str], expected: list[str]) -> None:
    code, out, err = runs(sample, *args)
    assert code == 0 and err == ""
    check_columns(out, expected)
    code, out, _ = runs(sample, *args, "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == expected


@pytest.mark.parametrize(
    "args",
    [
        ["--experiment", "other"],
        ["--status", "failed"],
        ["--label", "condition=medium"],
        ["--label", "condition=high", "--label", "n=3"],
    ],
)
def test_no_match_says_so_on_stderr(sample: Sample, args: list[str]) -> None:
    code, out, err = runs(sample, *args)
    assert code == 0 and out == ""
    assert err.strip() == f"no runs match {' '.join(args)} in {sample.path}"
    code, out, _ = runs(sample, *args, "--json")
    assert code == 0 and json.loads(out) == []


def test_an_empty_ledger(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    EventStore.open(str(path)).close()
    result = runner.invoke(app, ["runs", "--db", str(path)])
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.strip() == f"no runs in {path}"


@pytest.mark.parametrize("label", ["conditionhigh", "=high", " =x"])
def test_a_malformed_label_is_one_error_line(sample: Sample, label: str) -> None:
    code, out, err = runs(sample, "--label", label)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0] == (
        f"error: --label {label!r}: expected KEY=VALUE, e.g. --label condition=high"
    )


def test_every_option_has_help() -> None:
    result = runner.invoke(app, ["runs", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for option, words in [
        ("--db", "The ledger"),
        ("--experiment", "Only runs of this experiment"),
        ("--status", "Only runs with this status"),
        ("--label", "Only runs with this label"),
        ("--json", "Print a JSON list"),
        ("--sort", "Order by"),
        ("--limit", "Only the first N"),
    ]:
        line = next(ln for ln in result.stdout.splitlines() if f"{option} " in ln)
        assert words in line, line


def test_show_gives_the_cost_where_the_config_sets_prices(sample: Sample) -> None:
    with maai.open(sample.path) as ledger:
        records = {r.id: r for r in ledger.runs()}
    priced = runner.invoke(app, ["show", LOW, "--db", str(sample.path), "--no-check"])
    assert priced.exit_code == 0, priced.output
    assert f"cost: {cost_text(records[LOW].cost_usd)}" in priced.stdout
    free = runner.invoke(app, ["show", HIGH, "--db", str(sample.path), "--no-check"])
    assert free.exit_code == 0 and "cost:" not in free.stdout


def test_the_run_report_gives_the_cost_where_the_config_sets_prices(
    sample: Sample, tmp_path: Path
) -> None:
    with maai.open(sample.path) as ledger:
        cost = next(r.cost_usd for r in ledger.runs() if r.id == LOW)
    assert cost is not None
    pages = {}
    for run_id in (LOW, HIGH):
        target = tmp_path / f"{run_id}.html"
        done = runner.invoke(app, ["report", run_id, "--db", str(sample.path), "-o", str(target)])
        assert done.exit_code == 0, done.output
        pages[run_id] = target.read_text()
    assert f"<dt>cost</dt><dd>${cost:,.4f} (US dollars)</dd>" in pages[LOW]
    assert "<dt>cost</dt>" not in pages[HIGH]
