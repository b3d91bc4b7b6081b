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

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from types import TracebackType
from typing import Any

from maai.api_run import MissingExtraError, Run
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
from maai.projections.history import UnreadableEventError
from maai.run_filters import hashed_run, hashed_runs, labels_of, select_runs

__all__ = [
    "Ledger",
    "MissingExtraError",
    "Run",
    "RunRecord",
    "open",
]


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


def _folded_summary(store: EventStore, info: RunInfo, experiment: Experiment) -> Summary:
    """The run's summary from its state folded as a resume folds it: without the texts of
    its prompts, which a summary does not need and whose rebuilding is most of reading a run
    whole (``Run(...).summary`` reads it whole). A run that grew since ``info`` was read is
    read whole up to ``info``'s head, so its summary agrees with the status listed."""
    from maai.runtime.fold import UnreadableHistoryError, load_state

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
