"""The Python API: read a ledger's runs in a notebook or a script.

::

    import maai

    with maai.open() as ledger:  # the default ledger, as the CLI's; or a path or URL
        for record in ledger.runs(labels={"condition": "high"}):
            print(record.id, record.outcome)
        run = ledger.run("20261123-1827")  # a unique prefix of a run id
        run.summary.outcome
        run.tables()["choices"]  # a pandas DataFrame (pip install 'maai[analysis]')

It only reads: :func:`open` never creates a ledger. It knows an experiment only through the
Experiment interface (``maai.domain.experiment``), like the CLI. ``import maai`` stays cheap:
this module is loaded on first use of ``maai.open``, ``maai.Ledger`` or ``maai.Run``.
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from functools import cached_property
from types import TracebackType
from typing import TYPE_CHECKING, Any

from maai.domain import experiments
from maai.domain.experiment import Experiment, Summary
from maai.domain.experiments import UnknownExperimentError
from maai.ledger import (
    ChainBrokenError,
    EventStore,
    RunInfo,
    StoredEvent,
    StoreUnreachableError,
    resolve_store_url,
)
from maai.projections.forks import INHERITED, inherited_flags, prefix_of
from maai.projections.history import Entry, History, UnreadableEventError, history_from_stored
from maai.projections.schema import FLAG, ColumnType
from maai.projections.tables import cell, label_columns
from maai.run_filters import hashed_run, hashed_runs, labels_of, select_runs

if TYPE_CHECKING:
    import pandas


__all__ = [
    "Ledger",
    "MissingExtraError",
    "Run",
    "RunRecord",
    "open",
]


ANALYSIS_EXTRA = "pip install 'maai[analysis]'"


class MissingExtraError(ImportError):
    """A feature needs an optional dependency that is not installed; the message names the
    extra that installs it."""


def open(url_or_path: str | os.PathLike[str] | None = None) -> Ledger:
    """Open an existing ledger for reading.

    ``url_or_path``: a SQLite file path, ``sqlite:///PATH``, ``postgresql://USER@HOST/DB``,
    or ``None`` for the default ledger (``$MAAI_DB``, else ``~/.local/share/maai/ledger.db``),
    as the CLI's ``--db``.

    A SQLite file that does not exist is not created: that raises
    :class:`~maai.ledger.StoreUnreachableError` ("no ledger at PATH"). Every failure is a
    :class:`~maai.ledger.LedgerError` with a one-line message, the one the CLI prints (a bad
    URL, an unreachable server, a file that is not a ledger, a schema to upgrade first).
    """
    given = None if url_or_path is None else os.fspath(url_or_path)
    location = resolve_store_url(given)
    upgrade: bool | None = None  # as the CLI: an older SQLite ledger is brought up to date
    if location.path is not None:
        path = location.path
        if not path.exists():
            raise StoreUnreachableError(f"no ledger at {path}")
        if path.is_file() and path.stat().st_size == 0:
            # An empty file is an empty SQLite database: refused (SchemaBehindError), not
            # turned into a ledger.
            upgrade = False
    return Ledger(EventStore.open(given, upgrade=upgrade))


@dataclass(frozen=True)
class RunRecord:
    """One run as :meth:`Ledger.runs` lists it. ``outcome``, ``calls`` and the token counts
    come from folding the run with its experiment (its ``Summary``); they are ``None`` for a
    run whose experiment is not installed."""

    id: str
    experiment: str
    labels: dict[str, Any]
    status: str
    head_seq: int
    created_at: datetime
    updated_at: datetime
    outcome: str | None
    calls: int | None
    input_tokens: int | None
    output_tokens: int | None
    name: str | None = None  # the config's name, when it gives one
    models: tuple[str, ...] = ()  # every model the config names, participants first
    seed: int | None = None
    cost_usd: float | None = None  # at the config's prices; None without prices or unpriced
    duration_s: float | None = None  # from the run's creation to its last update

    def as_json(self) -> dict[str, Any]:
        """Every field as JSON data (times in ISO 8601), as ``maai runs --json`` prints it."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["created_at"] = self.created_at.isoformat()
        data["updated_at"] = self.updated_at.isoformat()
        data["models"] = list(self.models)
        return data


RUN_STATUSES = ("created", "running", "completed", "failed", "interrupted")
"""Every status a run can have (``maai runs --status``)."""


class Ledger:
    """A ledger opened with :func:`open`. A context manager; :meth:`close` releases it."""

    def __init__(self, store: EventStore) -> None:
        self._store = store

    @property
    def store(self) -> EventStore:
        """The underlying :class:`~maai.ledger.EventStore`."""
        return self._store

    @property
    def display(self) -> str:
        """The ledger as the CLI names it: a file path, or the URL without its password."""
        return self._store.display

    def __repr__(self) -> str:
        return f"maai.Ledger({self.display!r})"

    def close(self) -> None:
        """Release the ledger's connections. Idempotent."""
        self._store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def runs(
        self,
        experiment: str | None = None,
        status: str | None = None,
        labels: Mapping[str, Any] | None = None,
    ) -> list[RunRecord]:
        """The runs, oldest first, that match every filter given: the experiment's name, the
        status (``completed``, ``failed``, ``running``, ...), and labels (every key given
        must be a label of the run with that value; ``"3"`` matches the number 3 and
        ``"true"`` the boolean). Each is folded with its experiment for its outcome, calls
        and tokens."""
        infos, problems = hashed_runs(self._store)
        for problem in problems:
            warnings.warn(problem, stacklevel=2)
        chosen = select_runs(infos, experiment=experiment, status=status, labels=labels)
        return [self._record(info) for info in chosen]

    def run(self, run_id: str, *, check: bool = True) -> Run:
        """The run with this id, or the only run whose id starts with it. The run's events up
        to its head seq are read now: the :class:`Run` is a snapshot, usable after the ledger
        is closed. Its experiment, config and labels are those of its hashed ``run.started``.

        Its hash chain is checked first: a broken one raises :class:`ChainBrokenError`
        naming the first bad seq, unless ``check=False`` (forensics), which reads it anyway
        with a warning.

        :raises RunNotFoundError: no such run; :class:`AmbiguousRunIdError` (a subclass) when
            a prefix matches several.
        :raises UnknownExperimentError: the run's experiment is not installed.
        """
        info = self._store.get_run(run_id)
        chain = self._store.verify_chain(info.run_id)
        if not chain.ok:
            if check:
                raise ChainBrokenError(info.run_id, chain.first_bad_seq or 0, chain.reason or "")
            warnings.warn(
                f"run {info.run_id}: hash chain broken at seq {chain.first_bad_seq}: "
                f"{chain.reason}; read anyway (check=False)",
                stacklevel=2,
            )
        info, problem = hashed_run(self._store, info)
        if problem is not None:
            warnings.warn(problem, stacklevel=2)
        try:
            experiment = experiments.get(info.kind)
        except UnknownExperimentError as exc:
            raise UnknownExperimentError(f"run {info.run_id}: {exc}") from None
        from maai.runtime.forks import lineage

        children = tuple(lineage(self._store).children(info.run_id))
        return Run(info, experiment, _read_to_head(self._store, info), children)

    def _record(self, info: RunInfo) -> RunRecord:
        return run_record(self._store, info)


def run_record(store: EventStore, info: RunInfo) -> RunRecord:
    """One run's record: its row, its summary folded with its experiment (none when the
    experiment is not installed or an event cannot be read: a listing never fails on one
    run), its config's name, models and seed, its cost and duration."""
    from maai.runtime.study import run_cost

    summary: Summary | None = None
    config: Any = None
    try:
        experiment = experiments.get(info.kind)
    except UnknownExperimentError:
        experiment = None
    if experiment is not None:
        try:
            summary = _folded_summary(store, info, experiment)
        except UnreadableEventError:
            summary = None  # an event this version cannot read: the outcome stays unknown
        try:
            config = experiment.config_model.model_validate(info.config)
        except ValueError:
            config = None  # a config this version cannot read: its facts stay unknown
    models = tuple(dict.fromkeys(user.model for user in config.model_users())) if config else ()
    prices = config.prices if config is not None else {}
    return RunRecord(
        id=info.run_id,
        experiment=info.kind,
        labels=labels_of(info),
        status=info.status,
        head_seq=info.head_seq,
        created_at=info.created_at,
        updated_at=info.updated_at,
        outcome=None if summary is None else summary.outcome,
        calls=None if summary is None else summary.calls,
        input_tokens=None if summary is None else summary.input_tokens,
        output_tokens=None if summary is None else summary.output_tokens,
        name=(config.name or None) if config is not None else None,
        models=models,
        seed=config.seed if config is not None else None,
        cost_usd=run_cost(store, info.run_id, prices),
        duration_s=round((info.updated_at - info.created_at).total_seconds(), 3),
    )


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


def _folded_summary(store: EventStore, info: RunInfo, experiment: Experiment) -> Summary:
    """The run's summary from its state folded as a resume folds it: without the texts of
    its prompts, which a summary does not need and whose rebuilding is most of reading a run
    whole (``Run(...).summary`` reads it whole). A run that grew since ``info`` was read is
    read whole up to ``info``'s head, so its summary agrees with the status listed."""
    from maai.runtime.engine import UnreadableHistoryError, load_state

    try:
        state, head = load_state(store, info.run_id, experiment)
    except UnreadableHistoryError as exc:
        raise UnreadableEventError(str(exc)) from None
    if head != info.head_seq:
        return Run(info, experiment, _read_to_head(store, info)).summary
    return experiment.summarize(info.run_id, state, info.status)


def _read_to_head(store: EventStore, info: RunInfo) -> list[StoredEvent]:
    """The run's stored events up to the head seq of ``info``: events a live run appends
    meanwhile are left out, so the events agree with the status read with them."""
    out: list[StoredEvent] = []
    stream = store.read(info.run_id)
    try:
        for stored in stream:
            if stored.seq > info.head_seq:
                break
            out.append(stored)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    return out
