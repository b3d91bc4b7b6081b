"""Flat CSV tables for pandas and R, one row per fact, stacked over runs with ``run_id`` as
the first column of every table, then one column per label of the runs (config ``labels:``).
Each table declares its columns with a description, and the data dictionary is generated from
those declarations, so the two cannot drift apart. Experiments declare their tables; this
module writes them."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from maai.projections.history import History
from maai.projections.schema import COMMON, SCHEMA_VERSION, ColumnType, label_type

Row = dict[str, Any]

RUN_ID = ("run_id", "The run (as listed by `maai runs`).")


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: tuple[tuple[str, str], ...]  # (name, description)
    rows: Callable[[History], Iterable[Row]]

    @property
    def filename(self) -> str:
        return f"{self.name}.csv"

    @property
    def column_names(self) -> list[str]:
        return [name for name, _ in self.columns]


def labels_of(history: History) -> dict[str, Any]:
    config = history.config
    return dict(getattr(config, "labels", None) or {})


def label_columns(histories: Sequence[History]) -> list[str]:
    """Every label key of these runs, sorted."""
    return sorted({key for history in histories for key in labels_of(history)})


def label_column(table: Table, key: str) -> str:
    # A label named like one of the table's own columns is prefixed, never overwritten.
    return f"label_{key}" if key in table.column_names else key


def build_tables(tables: Sequence[Table], histories: Sequence[History]) -> dict[str, list[Row]]:
    built: dict[str, list[Row]] = {}
    for table in tables:
        rows: list[Row] = []
        for history in histories:
            labels = {label_column(table, k): v for k, v in labels_of(history).items()}
            rows.extend({"run_id": history.run_id, **labels, **row} for row in table.rows(history))
        built[table.name] = rows
    return built


def columns_of(table: Table, labels: Sequence[str]) -> list[str]:
    names = table.column_names
    if not labels:
        return names
    return [names[0], *(label_column(table, k) for k in labels), *names[1:]]


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def to_csv(columns: Sequence[str], table_rows: Iterable[Row]) -> str:
    buffer = io.StringIO()
    write_csv(buffer, columns, table_rows)
    return buffer.getvalue()


def write_csv(handle: TextIO, columns: Sequence[str], table_rows: Iterable[Row]) -> None:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(columns)
    for row in table_rows:
        writer.writerow([cell(row.get(name)) for name in columns])


def render_tables(
    tables: Sequence[Table],
    histories: Sequence[History],
    units: str | None = None,
    *,
    types: Mapping[str, ColumnType] | None = None,
) -> RenderedTables:
    """File name → content for every table and the data dictionary; ``units`` is the
    experiment's sentence on units (e.g. money), if any; ``types`` its columns' declared
    types beyond the shared ones (``projections/schema.py``)."""
    return RenderedTables(tables, histories, units, types or {})


DICTIONARY = "data_dictionary.md"


class RenderedTables(Mapping[str, str]):
    """The files of :func:`render_tables`, each written when it is asked for and not kept:
    an export writes one table at a time, so that it holds one table's text, never the rows
    and text of all (the rows of a long run's tables are most of what it holds)."""

    def __init__(
        self,
        tables: Sequence[Table],
        histories: Sequence[History],
        units: str | None,
        types: Mapping[str, ColumnType],
    ) -> None:
        self._tables = {table.filename: table for table in tables}
        self._histories = histories
        self._units = units
        self._labels = label_columns(histories)
        self._types = types

    def column_types(self, name: str) -> dict[str, ColumnType]:
        """The declared type of every column of the file ``name`` (a ``.csv`` table): the
        shared ones, the experiment's, and the labels' (typed by the runs' values)."""
        table = self._tables[name]
        types = {**COMMON, **self._types}
        found = {c: types[c] for c in table.column_names if c in types}
        for key in self._labels:
            column = label_column(table, key)
            if key in COMMON and column == key:  # a study's own labels: declared
                found[column] = COMMON[key]
                continue
            found[column] = label_type([labels_of(h).get(key) for h in self._histories])
        return found

    def __getitem__(self, name: str) -> str:
        buffer = io.StringIO()
        self.write(name, buffer)
        return buffer.getvalue()

    def write(self, name: str, handle: TextIO) -> None:
        """Write the file ``name`` to ``handle`` (opened without newline translation) as
        its rows come: the same text as ``self[name]``, never held whole."""
        if name == DICTIONARY:
            handle.write(
                data_dictionary(
                    list(self._tables.values()), self._labels, self._units, types=self._types
                )
            )
            return
        table = self._tables[name]
        write_csv(handle, columns_of(table, self._labels), self._rows(table))

    def _rows(self, table: Table) -> Iterator[Row]:
        # As build_tables stacks them, one row at a time.
        for history in self._histories:
            labels = {label_column(table, k): v for k, v in labels_of(history).items()}
            for row in table.rows(history):
                yield {"run_id": history.run_id, **labels, **row}

    def __iter__(self) -> Iterator[str]:
        yield from self._tables
        yield DICTIONARY

    def __len__(self) -> int:
        return len(self._tables) + 1


def data_dictionary(
    tables: Sequence[Table],
    labels: Sequence[str] = (),
    units: str | None = None,
    *,
    types: Mapping[str, ColumnType] | None = None,
) -> str:
    """The tables' columns with their meaning, and their declared type and unit (the
    schema's version heads it): generated from the declarations, as the Parquet files are."""
    declared = {**COMMON, **(types or {})}
    lines = [
        "# Data dictionary",
        "",
        "Tables written by `maai export --format tables`. Every table starts with `run_id`;",
        "exports of several runs stack their rows. Empty cells are missing values; booleans are",
        "`true`/`false`" + (f"; {units}" if units else "."),
        "",
        f"Column types are the schema `{SCHEMA_VERSION}` (the Parquet files' `maai.schema`):",
        "`category` is text from a small set, `int64` a whole number, `float64` a number,",
        "`bool` true or false, `string` any text, `timestamp` a UTC time (ISO 8601 in CSV).",
        "",
    ]
    if labels:
        lines += [
            "After `run_id` every table has one column per label of the runs (the config's",
            "`labels:`; a label named like one of the table's columns is prefixed `label_`): "
            + ", ".join(f"`{k}`" for k in labels)
            + ". A run without that label leaves it empty.",
            "",
        ]
    for table in tables:
        lines += [f"## {table.filename}", "", table.description, ""]
        lines += ["| column | type | unit | meaning |", "|---|---|---|---|"]
        for name, text in table.columns:
            kind = declared.get(name)
            dtype, unit = (kind.dtype, kind.unit) if kind else ("undeclared", "")
            lines.append(f"| `{name}` | {dtype} | {unit} | {text} |")
        lines.append("")
    return "\n".join(lines)
