"""Ledgers of the collaboration game and the world, recorded by the code of their fixture
(``tests/fixtures/compat-*``: a finished simulated run, with what that code's replay,
exports and audits printed; ``fixture.json`` names the commit), still replay, verify and
export byte for byte with the current code.

Never regenerate these files (``tests/support/record_compat.py`` made them once): a failure
means the current code reads or renders an old ledger differently; a changed event shape
needs an upcaster, a changed template shows as a divergence that verify must report.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from tests.support.record_compat import outputs

FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures").glob("compat-*"))
runner = CliRunner()


class Fixture:
    def __init__(self, folder: Path, ledger: str) -> None:
        self.folder = folder
        self.about: dict[str, Any] = json.loads((folder / "fixture.json").read_text("utf-8"))
        self.run_id: str = self.about["run_id"]
        self.ledger = ledger

    def golden(self, name: str) -> bytes:
        path = self.folder / "golden" / name
        if path.exists():
            return path.read_bytes()
        return gzip.decompress((self.folder / "golden" / f"{name}.gz").read_bytes())

    def invoke(self, *args: str) -> Result:
        return runner.invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.fixture(scope="module", params=FIXTURES, ids=[f.name for f in FIXTURES])
def fixture(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    folder: Path = request.param
    path = tmp_path_factory.mktemp(folder.name) / "ledger.db"
    with gzip.open(folder / "ledger.db.gz") as source, path.open("wb") as target:
        shutil.copyfileobj(source, target)
    return Fixture(folder, str(path))


def test_there_is_a_fixture_for_each_experiment_besides_frohlich() -> None:
    names = {json.loads((f / "fixture.json").read_text("utf-8"))["experiment"] for f in FIXTURES}
    assert names == {"collaboration", "world"}


def test_the_old_ledger_verifies(fixture: Fixture) -> None:
    result = fixture.invoke("verify", fixture.run_id, "--db", fixture.ledger)
    assert result.exit_code == 0, result.output
    assert fixture.about["verify"] in " ".join(result.output.split())


def test_the_old_ledger_replays_exports_and_audits_byte_identically(fixture: Fixture) -> None:
    for name, args in outputs(fixture.run_id, fixture.ledger, fixture.about["agent"]).items():
        result = fixture.invoke(*args)
        assert result.exit_code == 0, f"{name}: {result.output}"
        if name == "audit_protocol.json":
            continue  # below: the audit may gain rules
        assert result.stdout_bytes == fixture.golden(name), f"{name} differs from the old output"


def test_the_old_ledger_passes_every_protocol_rule_it_passed_and_any_new_ones(
    fixture: Fixture,
) -> None:
    result = fixture.invoke("audit", "protocol", fixture.run_id, "--db", fixture.ledger, "--json")
    assert result.exit_code == 0, result.output
    now = json.loads(result.stdout)
    before = json.loads(fixture.golden("audit_protocol.json"))
    assert now["violations"] == before["violations"] == []
    assert set(before["rules_checked"]) <= set(now["rules_checked"])


def test_the_old_ledger_tables_are_byte_identical(fixture: Fixture, tmp_path: Path) -> None:
    out = tmp_path / "tables"
    result = fixture.invoke(
        "export", fixture.run_id, "--db", fixture.ledger, "-f", "tables", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    expected = sorted(p.name for p in (fixture.folder / "golden" / "tables").iterdir())
    written = sorted(p.name for p in out.iterdir() if p.suffix != ".parquet")
    assert written == expected
    # Each table also as Parquet beside its CSV, typed by its declared schema (read back:
    # tests/projections/test_table_schema.py).
    tables = {p.name.removesuffix(".csv") for p in out.glob("*.csv")}
    assert {p.name.removesuffix(".parquet") for p in out.glob("*.parquet")} == tables
    for name in expected:
        golden = (fixture.folder / "golden" / "tables" / name).read_bytes()
        assert (out / name).read_bytes() == golden, f"tables/{name} differs from the old output"
