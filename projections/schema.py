"""The exported tables' declared types (docs/projections.md, "Tables"): each column's dtype and
unit, declared here for the columns every experiment shares and in each experiment's
``tables.py`` for its own. The data dictionary prints them; Parquet files are written with
them as a pyarrow schema (never a type guessed from the data), so exports of different runs
or studies concatenate into one dataset. The schema's version is in every Parquet file's
metadata (``maai.schema``).

pyarrow (the ``analysis`` extra) is imported only to write Parquet."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

SCHEMA_VERSION = "maai.tables/1"
"""Bumped when a column's dtype or meaning changes (written into each Parquet file)."""

Dtype = Literal["string", "category", "int64", "float64", "bool", "timestamp"]


@dataclass(frozen=True)
class ColumnType:
    """A column's dtype and unit (empty: none, e.g. a name or a count of things)."""

    dtype: Dtype
    unit: str = ""


def col(dtype: Dtype, unit: str = "") -> ColumnType:
    return ColumnType(dtype, unit)


TEXT = col("string")
CATEGORY = col("category")
INTEGER = col("int64")
COUNT = col("int64", "count")
NUMBER = col("float64")
FLAG = col("bool")

COMMON: dict[str, ColumnType] = {
    "run_id": CATEGORY,
    "agent": CATEGORY,
    "seq": col("int64", "event number"),
    "hash": TEXT,
    "address": TEXT,
    "for_agent": CATEGORY,
    "purpose": CATEGORY,
    "model": CATEGORY,
    "status": CATEGORY,
    "source": CATEGORY,
    "attempt": col("int64", "attempt number"),
    "attempts": COUNT,
    "failed_attempts": COUNT,
    "times_requested": COUNT,
    "input_tokens": col("int64", "tokens"),
    "output_tokens": col("int64", "tokens"),
    "latency_ms": col("float64", "ms"),
    "request_hash": TEXT,
    "reason": TEXT,
    "text": TEXT,
    "kind": CATEGORY,
    # The study's labels (docs/studies.md): every run of a study has them.
    "study": CATEGORY,
    "cell": INTEGER,
    "replicate": INTEGER,
}
"""Columns of the same name and meaning in every experiment's tables."""

LABEL_NOTE = "a label: typed by the runs' values (bool, integer, number, else text)"


def label_type(values: Iterable[Any]) -> ColumnType:
    """A label column's type from the values the configs declare: all booleans → bool, all
    integers → int64, all numbers → float64, anything else → string (a value that is not a
    scalar is written as JSON text)."""
    known = [v for v in values if v is not None]
    if known and all(isinstance(v, bool) for v in known):
        return FLAG
    if known and all(isinstance(v, int) and not isinstance(v, bool) for v in known):
        return INTEGER
    if known and all(isinstance(v, int | float) and not isinstance(v, bool) for v in known):
        return NUMBER
    return TEXT


def arrow_type(dtype: Dtype) -> Any:
    import pyarrow as pa

    return {
        "string": pa.string(),
        "category": pa.dictionary(pa.int32(), pa.string()),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "timestamp": pa.timestamp("us", tz="UTC"),
    }[dtype]


def arrow_schema(columns: Sequence[str], types: Mapping[str, ColumnType], table: str) -> Any:
    """The pyarrow schema of a table's columns, with the schema version and the table's name
    in its metadata; a column without a declared type is an error (``KeyError``)."""
    import pyarrow as pa

    missing = [name for name in columns if name not in types]
    if missing:
        raise KeyError(f"{table}: no declared type for column(s) {', '.join(missing)}")
    fields = [pa.field(name, arrow_type(types[name].dtype), nullable=True) for name in columns]
    units = {name: types[name].unit for name in columns if types[name].unit}
    metadata = {"maai.schema": SCHEMA_VERSION, "maai.table": table}
    metadata.update({f"maai.unit.{name}": unit for name, unit in units.items()})
    return pa.schema(fields, metadata=metadata)


def write_parquet(csv_path: Path, text: str, types: Mapping[str, ColumnType]) -> bool:
    """A Parquet copy of a CSV table beside it, each column read as its declared type (empty
    cells as nulls, ``true``/``false`` as booleans, ISO 8601 times as UTC timestamps);
    ``False`` without pyarrow."""
    header = next(iter(text.splitlines()), "")
    return _write_parquet(io.BytesIO(text.encode("utf-8")), header, csv_path, types)


def write_parquet_beside(csv_path: Path, types: Mapping[str, ColumnType]) -> bool:
    """As :func:`write_parquet` for a CSV table already written to ``csv_path``, read from
    the file (by pyarrow, whose memory is its own: a long run's table is never held as
    Python text)."""
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    with csv_path.open(encoding="utf-8", newline="") as handle:
        header = handle.readline().rstrip("\r\n")
    return _write_parquet(csv_path, header, csv_path, types)


def _write_parquet(
    source: Any, header: str, csv_path: Path, types: Mapping[str, ColumnType]
) -> bool:
    try:
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq
    except ImportError:
        return False
    import pyarrow as pa

    columns = next(csv.reader([header])) if header else []
    schema = arrow_schema(columns, types, csv_path.stem)
    # Read as plain strings first: the categories are made by the cast below.
    column_types = {
        field.name: field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        for field in schema
    }
    table = pacsv.read_csv(
        source,
        parse_options=pacsv.ParseOptions(newlines_in_values=True),  # texts span lines
        convert_options=pacsv.ConvertOptions(
            column_types=column_types,
            true_values=["true"],
            false_values=["false"],
            null_values=[""],
            strings_can_be_null=True,
            quoted_strings_can_be_null=False,
        ),
    )
    table = table.cast(schema)
    pq.write_table(table, csv_path.with_suffix(".parquet"))
    return True
