"""The Python API (``maai.open``): what a user relies on when reading a ledger from a
notebook: runs listed with their outcome, filters, a run's events, summary, agent log and
tables as DataFrames, and one-line errors that never create a ledger."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maai
from maai.cli.app import app
from maai.domain import experiments
from maai.ledger import (
    AmbiguousRunIdError,
    BadStoreUrlError,
    EventStore,
    LedgerError,
    RunNotFoundError,
    SchemaBehindError,
    StoreUnreachableError,
)
from maai.projections.history import Entry, history_from_stored
from maai.runtime import fold
from maai.runtime.fold import load_state
from tests.api.conftest import COMMON_PREFIX, FOREIGN, HIGH, LOW, NEW, Sample

runner = CliRunner()


def cli_error_line(args: list[str]) -> str:
    """The one line ``maai ARGS`` prints on stderr for a failure (exit 2)."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text, text
    return text


# ------------------------------------------------------------------ listing runs


def test_runs_gives_each_run_with_its_experiment_labels_and_summary(sample: Sample) -> None:
    with maai.open(sample.path) as ledger:
        records = ledger.runs()
    assert [r.id for r in records] == list(sample.ids)  # oldest first
    high = records[0]
    assert (high.id, high.experiment, high.labels, high.status) == (
        HIGH,
        "frohlich",
        {"condition": "high"},
        "completed",
    )
    with EventStore.open(str(sample.path)) as store:
        experiment = experiments.get("frohlich")
        state, head = load_state(store, HIGH, experiment)
        summary = experiment.summarize(HIGH, state, "completed")
    assert high.head_seq == head > 100
    assert high.outcome == summary.outcome and high.outcome.startswith("agreement on")
    assert (high.calls, high.input_tokens, high.output_tokens) == (
        summary.calls,
        summary.input_tokens,
        summary.output_tokens,
    )
    assert high.calls > 0 and high.input_tokens > 0 and high.output_tokens > 0
    assert high.created_at <= high.updated_at


def test_each_listed_summary_is_the_summary_of_the_run_read_whole(sample: Sample) -> None:
    # runs() folds without the prompts' texts; what it lists must not differ for that.
    with maai.open(sample.path) as ledger:
        listed = {r.id: r for r in ledger.runs(experiment="frohlich")}
        whole = {run_id: ledger.run(run_id).summary for run_id in listed}
    assert set(listed) == {HIGH, LOW, NEW}
    for run_id, record in listed.items():
        summary = whole[run_id]
        assert (record.outcome, record.calls, record.input_tokens, record.output_tokens) == (
            summary.outcome,
            summary.calls,
            summary.input_tokens,
            summary.output_tokens,
        )


def test_a_run_not_started_and_a_run_of_an_unknown_experiment_are_listed(sample: Sample) -> None:
    with maai.open(str(sample.path)) as ledger:
        by_id = {r.id: r for r in ledger.runs()}
    assert by_id[NEW].status == "created" and by_id[NEW].head_seq == 0
    assert by_id[NEW].calls == 0
    foreign = by_id[FOREIGN]
    # Labels come from the hashed run.started: a run with no events has none to trust.
    assert foreign.experiment == "nonesuch" and foreign.labels == {}
    assert (foreign.outcome, foreign.calls, foreign.input_tokens) == (None, None, None)


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, [HIGH, LOW, NEW, FOREIGN]),
        ({"experiment": "frohlich"}, [HIGH, LOW, NEW]),
        ({"experiment": "nonesuch"}, [FOREIGN]),
        ({"experiment": "other"}, []),
        ({"status": "completed"}, [HIGH, LOW]),
        ({"status": "created"}, [NEW, FOREIGN]),
        ({"labels": {"condition": "high"}}, [HIGH]),  # NEW, FOREIGN: rows, no events
        ({"labels": {"condition": "low"}}, [LOW]),
        ({"labels": {"condition": "medium"}}, []),
        ({"labels": {"n": 3}}, [LOW]),
        ({"labels": {"n": "3"}}, [LOW]),  # text matches a number, as --label n=3
        ({"labels": {"n": 4}}, []),
        ({"labels": {"flag": True}}, [LOW]),
        ({"labels": {"flag": "true"}}, [LOW]),
        ({"labels": {"flag": 1}}, []),  # a boolean is not the number 1
        ({"labels": {"condition": "low", "n": 3}}, [LOW]),
        ({"labels": {"condition": "high", "n": 3}}, []),  # every key must match
        ({"labels": {"missing": "x"}}, []),
        (
            {"experiment": "frohlich", "status": "completed", "labels": {"condition": "high"}},
            [HIGH],
        ),
    ],
)
def test_filters_select_and_exclude(sample: Sample, filters: dict, expected: list[str]) -> None:
    with maai.open(sample.path) as ledger:
        assert [r.id for r in ledger.runs(**filters)] == expected


def test_runs_folds_only_the_runs_that_pass_the_filters(
    sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    folded: list[str] = []
    real = fold.load_state

    def counting(store: EventStore, run_id: str, *args: object) -> object:
        folded.append(run_id)
        return real(store, run_id, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(fold, "load_state", counting)
    with maai.open(sample.path) as ledger:
        ledger.runs(labels={"condition": "low"})
    assert folded == [LOW]


# ------------------------------------------------------------------ one run


def test_run_by_prefix_has_its_events_state_and_summary(sample: Sample) -> None:
    with maai.open(sample.path) as ledger:
        run = ledger.run(HIGH[:17])
    assert run.id == HIGH
    assert run.experiment is experiments.get("frohlich")
    assert run.labels == {"condition": "high"} == run.config["labels"]
    assert run.status == "completed"
    with EventStore.open(str(sample.path)) as store:
        stored = list(store.read(HIGH))
        expected = history_from_stored(HIGH, stored, "completed")
    assert all(isinstance(e, Entry) for e in run.events)
    assert [e.seq for e in run.events] == list(range(1, len(stored) + 1))
    assert [(e.seq, e.hash, e.recorded_at) for e in run.events] == [
        (e.seq, e.hash, e.recorded_at) for e in expected.entries
    ]
    assert [e.event for e in run.events] == [e.event for e in expected.entries]
    assert run.state is run.state  # folded once
    assert run.state.status == "completed"
    assert run.summary is run.summary
    assert run.summary.status == "completed"
    assert run.summary.outcome.startswith("agreement on")


def test_a_run_is_a_snapshot_usable_after_the_ledger_is_closed(sample: Sample) -> None:
    with maai.open(sample.path) as ledger:
        run = ledger.run(LOW)
    assert run.summary.calls > 0 and len(run.events) == run.head_seq
    with pytest.raises(LedgerError, match="closed"):
        ledger.runs()
    ledger.close()  # idempotent


def test_unknown_and_ambiguous_run_ids_are_the_clis_errors(sample: Sample) -> None:
    db = str(sample.path)
    with maai.open(db) as ledger:
        with pytest.raises(RunNotFoundError) as unknown:
            ledger.run("zzz")
        with pytest.raises(AmbiguousRunIdError) as ambiguous:
            ledger.run(COMMON_PREFIX)
    assert cli_error_line(["export", "zzz", "--db", db]) == f"error: {one_line(unknown.value)}"
    assert cli_error_line(["export", COMMON_PREFIX, "--db", db]) == (
        f"error: {one_line(ambiguous.value)}"
    )


def test_a_run_of_an_unknown_experiment_names_the_run(sample: Sample) -> None:
    with maai.open(sample.path) as ledger, pytest.raises(ValueError) as caught:
        ledger.run(FOREIGN)
    assert one_line(caught.value).startswith(f"run {FOREIGN}: unknown experiment 'nonesuch'")


def test_agent_log_and_transcript_equal_the_cli_export(sample: Sample) -> None:
    with maai.open(sample.path) as ledger:
        run = ledger.run(HIGH)
    exported = runner.invoke(app, ["export", HIGH, "--db", str(sample.path), "--agent", "alice"])
    assert exported.exit_code == 0, exported.output
    assert run.agent_log("alice") == json.loads(exported.stdout)
    everyone = runner.invoke(app, ["export", HIGH, "--db", str(sample.path)])
    assert run.agent_log() == json.loads(everyone.stdout)
    transcript = runner.invoke(
        app, ["export", HIGH, "--db", str(sample.path), "--format", "transcript"]
    )
    assert run.transcript() == transcript.stdout
    with pytest.raises(KeyError, match="no agent named 'zed'"):
        run.agent_log("zed")


# ------------------------------------------------------------------ tables


def csv_tables(run: maai.Run) -> dict[str, list[list[str]]]:
    """The CSV export of the run: table name -> rows, header first."""
    files = run.experiment.views().tables([run.history])
    return {
        name.removesuffix(".csv"): list(csv.reader(io.StringIO(text)))
        for name, text in files.items()
        if name.endswith(".csv")
    }


@pytest.mark.parametrize("run_id", [HIGH, LOW])
def test_tables_are_dataframes_with_the_csv_exports_rows_and_label_columns(
    sample: Sample, run_id: str
) -> None:
    import pandas as pd

    with maai.open(sample.path) as ledger:
        run = ledger.run(run_id)
    frames = run.tables()
    exported = csv_tables(run)
    assert set(frames) == set(exported) and len(frames) > 3
    assert sum(len(frame) for frame in frames.values()) > 50
    for name, frame in frames.items():
        assert isinstance(frame, pd.DataFrame)
        header, *rows = exported[name]
        assert len(frame) == len(rows), name
        assert list(frame.columns) == header, name
        assert (frame["run_id"] == run_id).all()
        for key, value in run.labels.items():
            assert key in frame.columns, (name, key)
            assert (frame[key] == value).all(), (name, key)
    assert frames is not run.tables()  # a fresh set each call: the caller may edit them


def test_tables_without_pandas_name_the_extra(
    sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    with maai.open(sample.path) as ledger:
        run = ledger.run(HIGH)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    with pytest.raises(ImportError) as caught:
        run.tables()
    assert isinstance(caught.value, maai.MissingExtraError)
    assert "pip install 'maai[analysis]'" in one_line(caught.value)


# ------------------------------------------------------------------ opening


def files_under(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_opening_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    with pytest.raises(StoreUnreachableError) as caught:
        maai.open(missing)
    assert one_line(caught.value) == f"no ledger at {missing}"
    with pytest.raises(StoreUnreachableError, match="no ledger at"):
        maai.open(f"sqlite:///{tmp_path / 'nope' / 'x.db'}")
    assert list(tmp_path.iterdir()) == []


def test_opening_the_default_ledger_when_there_is_none_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAAI_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with pytest.raises(StoreUnreachableError) as caught:
        maai.open()
    assert one_line(caught.value) == f"no ledger at {tmp_path / 'data' / 'maai' / 'ledger.db'}"
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("MAAI_DB", str(tmp_path / "env.db"))
    with pytest.raises(StoreUnreachableError, match="env.db"):
        maai.open()
    assert list(tmp_path.iterdir()) == []


def test_opening_an_empty_file_leaves_it_untouched(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(SchemaBehindError) as caught:
        maai.open(empty)
    assert "maai db upgrade" in one_line(caught.value)
    assert files_under(tmp_path) == {empty: b""}


def test_bad_locations_give_the_clis_one_line(tmp_path: Path) -> None:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a database\n")
    for location, kind in [
        ("mysql://u@h/db", BadStoreUrlError),
        ("postgresql://u@h:port/db", BadStoreUrlError),
        (str(text_file), LedgerError),
        (str(tmp_path), LedgerError),
    ]:
        before = files_under(tmp_path)
        with pytest.raises(kind) as caught:
            maai.open(location)
        assert cli_error_line(["runs", "--db", location]) == f"error: {one_line(caught.value)}"
        assert files_under(tmp_path) == before


def test_an_unreachable_postgresql_server_is_one_ledger_error_line() -> None:
    url = "postgresql://postgres@127.0.0.1:1/x"
    with pytest.raises(LedgerError) as caught:
        maai.open(url)
    assert isinstance(caught.value, StoreUnreachableError)
    line = one_line(caught.value)
    assert "cannot reach PostgreSQL" in line and "127.0.0.1" in line
    assert cli_error_line(["runs", "--db", url]) == f"error: {line}"


@pytest.mark.postgres
def test_a_postgresql_ledger(postgres_url: str, sample: Sample) -> None:
    with pytest.raises(SchemaBehindError, match="maai db upgrade"):
        maai.open(postgres_url)
    with EventStore.open(postgres_url, upgrade=True) as store:
        store.create_run(NEW, "frohlich", {"labels": {"condition": "high"}})
    with maai.open(postgres_url) as ledger:
        # Labels come from the hashed run.started: a row with no events has none to trust.
        assert [(r.id, r.labels) for r in ledger.runs()] == [(NEW, {})]


# ------------------------------------------------------------------ import cost


def test_import_maai_imports_neither_sqlalchemy_nor_the_sdk() -> None:
    code = (
        "import sys, maai\n"
        "heavy = ('sqlalchemy', 'agents', 'openai', 'pandas', 'maai.api')\n"
        "print(*[m for m in heavy if m in sys.modules])\n"
        "assert callable(maai.open) and isinstance(maai.Ledger, type)\n"
        "assert isinstance(maai.Run, type) and isinstance(maai.RunRecord, type)\n"
        "print('loaded' if 'sqlalchemy' in sys.modules else 'lazy')\n"
        "try:\n"
        "    maai.nonesuch\n"
        "except AttributeError:\n"
        "    print('no attribute')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["", "loaded", "no attribute"]
