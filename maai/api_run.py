"""One run of a ledger as the Python API gives it (``maai.Run``, from ``Ledger.run``): its
record, its decoded events, and its experiment's read models, tables typed as the Parquet
export types them. ``maai.api`` opens ledgers and lists their runs.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from maai.domain.experiment import Experiment, Summary
from maai.ledger import RunInfo, StoredEvent
from maai.projections.forks import INHERITED, inherited_flags, prefix_of
from maai.projections.history import Entry, History, UnreadableEventError, history_from_stored
from maai.projections.schema import FLAG, ColumnType
from maai.projections.tables import cell, label_columns
from maai.run_filters import labels_of

if TYPE_CHECKING:
    import pandas

ANALYSIS_EXTRA = "pip install 'maai[analysis]'"


class MissingExtraError(ImportError):
    """A feature needs an optional dependency that is not installed; the message names the
    extra that installs it."""


class Run:
    """One run of a ledger (:meth:`Ledger.run`): its stored record, its decoded events, and
    its experiment's read models. The history, state, summary and tables are computed once,
    on first use."""

    def __init__(
        self,
        info: RunInfo,
        experiment: Experiment,
        stored: list[StoredEvent],
        children: tuple[str, ...] = (),
    ) -> None:
        self._info = info
        self._stored = stored
        self._children = children
        self.experiment: Experiment = experiment
        """The run's experiment (``maai.domain.experiment.Experiment``)."""

    def __repr__(self) -> str:
        return f"maai.Run({self.id!r}, experiment={self.experiment.name!r}, status={self.status!r})"

    @property
    def id(self) -> str:
        return self._info.run_id

    @property
    def info(self) -> RunInfo:
        """The run's row in the ledger (``maai.ledger.RunInfo``)."""
        return self._info

    @property
    def config(self) -> dict[str, Any]:
        """The config the run was started with, as its hashed ``run.started`` records it
        (plain JSON data; empty for a run with no events)."""
        return self._info.config

    @property
    def labels(self) -> dict[str, Any]:
        """The config's ``labels`` (empty for a run without any)."""
        return labels_of(self._info)

    @property
    def status(self) -> str:
        return self._info.status

    @cached_property
    def _forked(self) -> StoredEvent | None:
        """The run's own ``run.forked`` (its last: a fork of a fork holds its parent's)."""
        found = [e for e in self._stored if e.type == "run.forked"]
        return found[-1] if found else None

    @property
    def parent(self) -> str | None:
        """The id of the run this one is a fork of (docs/forks.md); ``None`` if none."""
        return None if self._forked is None else str(self._forked.payload["parent_run"])

    @property
    def fork_point(self) -> tuple[str, int] | None:
        """Where this run was forked from its parent: the point's name and the parent's seq
        there (this run's events up to that seq are the parent's); ``None`` if no fork."""
        if self._forked is None:
            return None
        return str(self._forked.payload["point"]), int(self._forked.payload["parent_seq"])

    @property
    def children(self) -> tuple[str, ...]:
        """The ids of the runs forked from this one, when it was read."""
        return self._children

    @property
    def head_seq(self) -> int:
        return self._info.head_seq

    @property
    def created_at(self) -> datetime:
        return self._info.created_at

    @property
    def updated_at(self) -> datetime:
        return self._info.updated_at

    @cached_property
    def history(self) -> History:
        """The decoded history every projection reads (``maai.projections.history``)."""
        try:
            return history_from_stored(self.id, self._stored, self.status, self.experiment)
        except UnreadableEventError as exc:
            raise UnreadableEventError(f"run {self.id}: {exc}") from None

    @property
    def events(self) -> Sequence[Entry]:
        """The decoded events in seq order, each with its seq, hash and recorded_at."""
        return self.history.entries

    @cached_property
    def state(self) -> Any:
        """The run's state: its events folded with the experiment's ``evolve``."""
        return self.experiment.fold([entry.event for entry in self.events])

    @cached_property
    def summary(self) -> Summary:
        """The experiment's end-of-run summary (``outcome``, ``calls``, tokens, ``data``)."""
        return self.experiment.summarize(self.id, self.state, self.status)

    def agent_log(self, name: str | None = None) -> dict[str, Any]:
        """The agent-centric log (``maai export``): every agent's, or agent ``name``'s."""
        return self.experiment.views().agent_log(self.history, name)

    def transcript(self) -> str:
        """The public discussion as Markdown (``maai export --format transcript``)."""
        return self.experiment.views().transcript(self.history)

    def tables(self, with_prefix: bool = False) -> dict[str, pandas.DataFrame]:
        """Table name -> DataFrame: the rows of ``maai export --format tables`` for this run,
        with the CSV's columns in its order (``run_id``, one column per label, then the
        table's own), each typed by the table's declared schema as in the Parquet export
        (docs/projections.md, "Tables"): ``int64`` columns as pandas' nullable ``Int64``,
        ``float64`` as ``float64`` (missing: NaN), ``bool`` as nullable ``boolean``,
        ``category`` as ``category``, ``string`` as ``string``, ``timestamp`` as UTC
        datetimes. A fresh set each call.

        A fork's tables hold what happened after its fork point, as ``maai export FORK -f
        tables`` (docs/forks.md, "Tables"): a row its prefix alone gives (Phase 1's of a fork
        at ``phase2``) is the parent's and left out. ``with_prefix=True`` keeps those rows
        and adds an ``inherited`` column (``boolean``), as ``--with-prefix`` does; a run
        that is no fork has no inherited rows and no such column. Needs pandas:
        ``pip install 'maai[analysis]'``."""
        pd = _pandas()
        marks = self._inherited
        frames: dict[str, pandas.DataFrame] = {}
        for name, rows in self._table_rows.items():
            columns = list(self._table_columns[name])
            types = dict(self._table_types.get(name, {}))
            flags = None if marks is None else marks.get(name)
            if flags is not None:
                if with_prefix:
                    rows = [{**row, INHERITED: flag} for row, flag in zip(rows, flags, strict=True)]
                    columns.append(INHERITED)
                    types[INHERITED] = FLAG
                else:
                    rows = [row for row, flag in zip(rows, flags, strict=True) if not flag]
            frames[name] = _typed_frame(pd, rows, columns, types)
        return frames

    @cached_property
    def _table_rows(self) -> dict[str, list[dict[str, Any]]]:
        return self.experiment.views().table_rows(self.history)

    @cached_property
    def _rendered_tables(self) -> Mapping[str, str]:
        return self.experiment.views().tables([self.history])

    @cached_property
    def _table_columns(self) -> dict[str, list[str]]:
        """Each table's columns: the CSV export's header, then any other key of its rows."""
        files = self._rendered_tables
        columns: dict[str, list[str]] = {}
        for name, rows in self._table_rows.items():
            text = files.get(f"{name}.csv", "")
            header = next(csv.reader(io.StringIO(text)), [])
            extra = {key: None for row in rows for key in row if key not in header}
            columns[name] = [*header, *extra]
        return columns

    @cached_property
    def _table_types(self) -> dict[str, dict[str, ColumnType]]:
        """Each table's declared column types (projections/schema.py), where the experiment
        declares them (a fourth experiment's tables may not: then its columns are untyped)."""
        typed = getattr(self._rendered_tables, "column_types", None)
        if typed is None:
            return {}
        return {name: typed(f"{name}.csv") for name in self._table_rows}

    @cached_property
    def _inherited(self) -> dict[str, list[bool]] | None:
        """Table name -> for each of its rows, whether the fork's prefix alone gives it (it
        is the parent's); ``None`` for a run that is no fork. Rows are compared by their
        table's own cells as the CSV writes them, not the label columns (the prefix has the
        parent's labels), as ``maai export`` compares them (projections/forks.py)."""
        prefix = prefix_of(self.history)
        if prefix is None:
            return None
        prefix_rows = self.experiment.views().table_rows(prefix)
        labels = len(label_columns([self.history]))
        marks: dict[str, list[bool]] = {}
        for name, rows in self._table_rows.items():
            own = self._table_columns[name][1 + labels :]

            def key(row: Mapping[str, Any], own: list[str] = own) -> tuple[str, ...]:
                return tuple(cell(row.get(column)) for column in own)

            marks[name] = inherited_flags(map(key, rows), map(key, prefix_rows.get(name, [])))
        return marks


_PANDAS_DTYPES: dict[str, str] = {
    "string": "string",
    "category": "category",
    "int64": "Int64",
    "float64": "float64",
    "bool": "boolean",
}


def _typed_frame(
    pd: Any, rows: list[dict[str, Any]], columns: list[str], types: Mapping[str, ColumnType]
) -> pandas.DataFrame:
    """A DataFrame of ``rows`` whose declared columns have their declared dtype. A value
    that is not text in a text column (a list, a mapping) is the CSV's text of it."""
    frame = pd.DataFrame(rows, columns=columns)
    for column in columns:
        declared = types.get(column)
        if declared is None:
            continue
        values = frame[column]
        if declared.dtype in ("string", "category"):
            values = values.map(lambda v: v if v is None or isinstance(v, str) else cell(v))
        if declared.dtype == "timestamp":
            frame[column] = pd.to_datetime(values, utc=True)
        else:
            frame[column] = values.astype(_PANDAS_DTYPES[declared.dtype])
    return frame


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError as exc:
        raise MissingExtraError(
            f"Run.tables() needs pandas, which is not installed: {ANALYSIS_EXTRA}",
            name="pandas",
        ) from exc
    return pd
