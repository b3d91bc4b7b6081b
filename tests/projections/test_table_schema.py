"""Typed tables (projections/schema.py): every column of every exported table has a declared
dtype, the data dictionary prints it, and Parquet files are written with it, so two studies'
exports concatenate into one pyarrow dataset even where a column is empty in one of them.
On Frohlich's tables, the most numerous; every experiment's exports are typed and written
to Parquet in maai.testing's contract tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from maai.domain import experiments
from maai.projections.schema import SCHEMA_VERSION
from maai.projections.study import RUN_COLUMNS, RUN_TYPES
from tests.projections.studies import run_study
from tests.projections.test_study_report import histories

AGENTS = [{"name": n, "model": "simulated"} for n in ("Alice", "Bob", "Carmen", "Dmitri")]
BASE = {"experiment": "frohlich", "phase2_rounds": 2, "agents": AGENTS}
WITH_MANIPULATOR: dict[str, Any] = {
    "study": "typed-a",
    "config": BASE,
    "factors": {"manipulator": [None, {"agent": "Dmitri"}]},
    "seed": 1,
    "concurrency": 2,
}
# No manipulator anywhere: `conditions.manipulator` is empty in every row, which pandas
# read as a float column (the `ArrowInvalid` of issue 33).
WITHOUT: dict[str, Any] = {"study": "typed-b", "config": BASE, "seed": 2}


@pytest.mark.parametrize("name", experiments.names())
def test_every_column_of_every_table_has_a_declared_type(name: str) -> None:
    rendered = experiments.get(name).views().tables([])
    typed = getattr(rendered, "column_types", None)
    assert typed is not None, f"{name}: its tables declare no types"
    for file_name in rendered:
        if file_name.endswith(".csv"):
            declared = typed(file_name)
            header = rendered[file_name].splitlines()[0].split(",")
            assert [c for c in header if c not in declared] == [], file_name
    dictionary = rendered["data_dictionary.md"]
    assert "| column | type | unit | meaning |" in dictionary and "undeclared" not in dictionary
    assert SCHEMA_VERSION in dictionary
    assert {name for name, _ in RUN_COLUMNS[1:]} == set(RUN_TYPES)


def export(folder: Path, study: dict[str, Any]) -> Path:
    from maai.cli.study_exports import write_study_tables

    db, _ = run_study(folder, study)
    out = folder / "tables"
    out.mkdir()
    write_study_tables(out, histories(db, study["study"]))
    return out


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return (
        export(tmp_path_factory.mktemp("a"), WITH_MANIPULATOR),
        export(tmp_path_factory.mktemp("b"), WITHOUT),
    )


@pytest.mark.parametrize("table", ["runs", "conditions", "payoffs", "model_calls"])
def test_two_studies_exports_concatenate_into_one_dataset(
    exports: tuple[Path, Path], table: str
) -> None:
    files = [str(folder / f"{table}.parquet") for folder in exports]
    schemas = [pq.read_schema(f) for f in files]
    for schema in schemas:
        assert schema.metadata[b"maai.schema"] == SCHEMA_VERSION.encode()
        assert schema.metadata[b"maai.table"] == table.encode()
    # The columns both have are typed alike; a label only one study has is added as nulls.
    unified = pa.unify_schemas(schemas, promote_options="permissive")
    both = ds.dataset(files, schema=unified, format="parquet").to_table()
    rows = [pq.read_metadata(f).num_rows for f in files]
    assert both.num_rows == sum(rows) and all(rows)


def test_declared_types_not_guessed(exports: tuple[Path, Path]) -> None:
    with_manipulator, without = exports
    empty = pq.read_table(without / "conditions.parquet")
    assert empty.column("manipulator").null_count == empty.num_rows  # empty, still text
    assert pa.types.is_dictionary(empty.schema.field("manipulator").type)
    assert empty.schema.field("manipulator").type.value_type == pa.string()
    runs = pq.read_table(with_manipulator / "runs.parquet")
    assert runs.schema.field("started_at").type == pa.timestamp("us", tz="UTC")
    assert runs.schema.field("cell").type == pa.int64()
    assert runs.schema.field("manipulator").type == pa.string()  # a label: JSON text
    payoffs = pq.read_table(with_manipulator / "payoffs.parquet")
    # Phase 2 has no round: an integer column with gaps stays integer.
    assert payoffs.schema.field("round").type == pa.int64()
    assert 0 < payoffs.column("round").null_count < payoffs.num_rows
    assert pq.read_schema(with_manipulator / "payoffs.parquet").metadata[
        b"maai.unit.payoff_cents"
    ] == b"cents"


def test_a_runs_table_export_writes_parquet_typed_as_declared(
    engine_ledger: str, tmp_path: Path
) -> None:
    """``maai export RUN -f tables``: beside each CSV a Parquet file, every column of the type
    its table declares (not one read from the data), with as many rows as the CSV."""
    import csv

    from typer.testing import CliRunner

    from maai.cli.app import app
    from maai.projections.schema import arrow_type
    from tests.projections.conftest import ENGINE_RUN

    out = tmp_path / "tables"
    args = ["export", ENGINE_RUN, "--db", engine_ledger, "-f", "tables", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rendered = experiments.get("frohlich").views().tables([])
    typed = rendered.column_types  # type: ignore[attr-defined]
    tables = sorted(p.stem for p in out.glob("*.csv"))
    assert tables and sorted(p.stem for p in out.glob("*.parquet")) == tables
    for table in tables:
        parquet = pq.read_table(out / f"{table}.parquet")
        declared = typed(f"{table}.csv")
        for field in parquet.schema:
            assert field.type == arrow_type(declared[field.name].dtype), (table, field.name)
        assert parquet.schema.metadata[b"maai.schema"] == SCHEMA_VERSION.encode()
        with (out / f"{table}.csv").open(encoding="utf-8", newline="") as handle:
            assert parquet.num_rows == sum(1 for _ in csv.reader(handle)) - 1, table
