"""A ledger recorded before the Experiment interface (tests/fixtures/compat: a finished
3-agent simulated Frohlich run on SQLite, with its exports, audits and summary as that code
wrote them) still replays, verifies and exports byte for byte with the current code.

Never regenerate these golden files: they are the old code's output. A failure means the
current code reads or renders an old ledger differently; if an event shape changed, it needs
an upcaster, not a new fixture.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.domain import experiments
from maai.ledger import EventStore
from maai.runtime.fold import load_state

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "compat"
GOLDEN = FIXTURE / "golden"
RUN_ID = "20261123-182745-5634a5"

runner = CliRunner()


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("compat") / "ledger.db"
    with gzip.open(FIXTURE / "ledger.db.gz") as source, path.open("wb") as target:
        shutil.copyfileobj(source, target)
    return str(path)


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def golden(name: str) -> bytes:
    path = GOLDEN / name
    if name.endswith(".gz") or not path.exists():
        return gzip.decompress((GOLDEN / f"{name}.gz").read_bytes())
    return path.read_bytes()


def test_the_old_ledger_verifies(ledger: str) -> None:
    result = invoke("verify", RUN_ID, "--db", ledger)
    assert result.exit_code == 0, result.output
    assert "365 events chained; 102 model requests and 160 derived events" in result.output


def test_the_old_ledger_replays_to_the_same_summary(ledger: str) -> None:
    result = invoke("replay", RUN_ID, "--db", ledger, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json.loads(golden("summary.json"))


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("export.json", ["export", RUN_ID]),
        ("export_bob.json", ["export", RUN_ID, "--agent", "Bob"]),
        ("transcript.md", ["export", RUN_ID, "-f", "transcript"]),
        ("audit_votes.json", ["audit", "votes", RUN_ID, "--json"]),
        ("audit_leaks.json", ["audit", "leaks", RUN_ID, "--json"]),
    ],
)
def test_the_old_ledger_exports_byte_identically(ledger: str, name: str, args: list[str]) -> None:
    result = invoke(*args, "--db", ledger)
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == golden(name), f"{name} differs from the old code's output"


def test_the_old_ledger_passes_every_protocol_rule_it_passed_and_the_new_ones(
    ledger: str,
) -> None:
    """The protocol audit has gained rules since (so its report is not byte-identical); the
    old run passes the old rules and the new ones."""
    result = invoke("audit", "protocol", RUN_ID, "--db", ledger, "--json")
    assert result.exit_code == 0, result.output
    now = json.loads(result.stdout)
    before = json.loads(golden("audit_protocol.json"))
    assert now["violations"] == before["violations"] == []
    assert set(before["rules_checked"]) < set(now["rules_checked"])


def _csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_old_ledger_tables_hold_the_same_rows(ledger: str, tmp_path: Path) -> None:
    """Tables have gained columns and tables since (the conditions a run ran under); every
    old table is still there and its old columns hold the same values, row for row."""
    out = tmp_path / "tables"
    result = invoke("export", RUN_ID, "--db", ledger, "-f", "tables", "--out", str(out))
    assert result.exit_code == 0, result.output
    expected = sorted(p.name for p in (GOLDEN / "tables").iterdir())
    assert set(expected) <= {p.name for p in out.iterdir()}
    for name in expected:
        before = (GOLDEN / "tables" / name).read_text(encoding="utf-8")
        now = (out / name).read_text(encoding="utf-8")
        if not name.endswith(".csv"):
            continue
        old_rows, new_rows = _csv_rows(before), _csv_rows(now)
        assert len(new_rows) == len(old_rows), name
        for old, new in zip(old_rows, new_rows, strict=True):
            assert {k: new[k] for k in old} == old, name
    conditions = _csv_rows((out / "conditions.csv").read_text(encoding="utf-8"))
    assert [(r["language"], r["original_values"], r["manipulator"]) for r in conditions] == [
        ("en", "false", "")
    ]


def test_the_old_ledger_folds_through_the_experiment_it_names(ledger: str) -> None:
    with EventStore.open(ledger) as store:
        state, head = load_state(store, RUN_ID)
    assert head == 365
    assert state.status == "completed"
    assert experiments.get("frohlich").summarize(RUN_ID, state).outcome.startswith("agreement")
