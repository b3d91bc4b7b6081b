"""``maai runs``: readable in an 80-column pipe without cutting a run id, ``--json``, and the
filters ``--experiment``, ``--status`` and ``--label``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain import experiments
from maai.ledger import EventStore
from tests.api.conftest import FOREIGN, HIGH, LOW, NEW, Sample

runner = CliRunner()
HEADER = ["run", "id", "experiment", "status", "events", "created", "(UTC)", "labels"]


def runs(sample: Sample, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["runs", "--db", str(sample.path), *args], env={"COLUMNS": "80"})
    return result.exit_code, result.stdout, result.stderr


def check_columns(stdout: str, ids: list[str]) -> None:
    """Header, then one line per run: the full run id first, nothing but the labels column
    past 80 characters."""
    lines = stdout.splitlines()
    assert lines[0].split() == HEADER
    labels_at = lines[0].index("labels")
    assert labels_at <= 80
    assert [line.split()[0] for line in lines[1:]] == ids
    for line in lines:
        assert line == line.rstrip()
        assert len(line[:labels_at].rstrip()) <= 80
        assert "…" not in line


def test_80_columns_keep_full_run_ids(sample: Sample) -> None:
    code, out, err = runs(sample)
    assert code == 0 and err == ""
    check_columns(out, [HIGH, LOW, NEW, FOREIGN])
    by_id = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert by_id[HIGH].split()[1:4] == ["frohlich", "completed", str(head_of(sample, HIGH))]
    assert by_id[HIGH].endswith("  condition=high")
    assert by_id[LOW].endswith("  condition=low,flag=true,n=3")
    assert by_id[NEW].split()[1:4] == ["frohlich", "created", "0"]
    assert by_id[FOREIGN].split()[1] == "nonesuch"


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


def test_json_lists_the_runs_without_folding_them(
    sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_experiments(name: str) -> None:
        raise AssertionError(f"maai runs --json looked up experiment {name!r}")

    monkeypatch.setattr(experiments, "get", no_experiments)
    code, out, err = runs(sample, "--json")
    assert code == 0 and err == ""
    listed = json.loads(out)
    with EventStore.open(str(sample.path)) as store:
        expected = [
            {
                "id": info.run_id,
                "experiment": info.kind,
                # from the hashed run.started; a run with no events has none
                "labels": info.config.get("labels", {}) if info.head_seq else {},
                "status": info.status,
                "head_seq": info.head_seq,
                "created_at": info.created_at.isoformat(),
                "updated_at": info.updated_at.isoformat(),
            }
            for info in store.list_runs()
        ]
    assert listed == expected
    assert [r["id"] for r in listed] == [HIGH, LOW, NEW, FOREIGN]
    assert listed[1]["labels"] == {"condition": "low", "n": 3, "flag": True}
    assert listed[0]["created_at"].endswith("+00:00")


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
    ]:
        line = next(ln for ln in result.stdout.splitlines() if f"{option} " in ln)
        assert words in line, line
