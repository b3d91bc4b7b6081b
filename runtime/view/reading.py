"""What ``maai view`` reads of a ledger, and how: read-only, and never half a run.

The store is opened read-only (SQLite through a ``mode=ro`` URI; PostgreSQL in read-only
transactions), so nothing the viewer does can write to the ledger. A run is shown as of
the head seq of its ``runs`` row, read in the same statement as its status: its events are
read up to that head and no further, so an event another process commits meanwhile waits
for the next poll instead of appearing in a half-folded page.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from maai.domain import experiments
from maai.domain.config import Price
from maai.domain.costs import Usage
from maai.domain.events import ModelCallCompleted, RunStarted
from maai.domain.experiment import Experiment, Summary
from maai.domain.experiments import UnknownExperimentError
from maai.ledger import EventStore, LedgerError, RunInfo, StoredEvent
from maai.projections.build import modified_build_of
from maai.projections.history import (
    History,
    UnreadableEventError,
    history_from_stored,
)
from maai.runtime.view.head_source import HeadSource
from maai.runtime.view.lineage import LineageCache, Link, RunLineage
from maai.runtime.view.run_facts import (
    _models,
    _prices,
    _runs_signature,
    _sort_key,
    _upto,
    labels_of,
)
from maai.runtime.view.run_page import CALL_EVENTS, EventLine, Finding, event_line, findings
from maai.runtime.view.studies import StudyPlan, queued_plan

BUSY_TIMEOUT_S = 2.0
"""How long a read waits for a ledger another process holds locked: a page says so soon
(and the next poll tries again) rather than hanging for the writers' 30 s."""

HISTORIES_KEPT = 4
"""Decoded histories kept (each read through the store on demand for its prompts)."""

KEPT_FINDINGS = 32
"""How many runs' audit findings (by run and head) the viewer keeps."""

SORT_KEYS = ("created", "updated", "id", "experiment", "status", "events")
"""The columns the runs page sorts by on the server (each read off the runs table, so a
sort costs no fold of 1,000 runs); the folded columns are computed for one page only."""


@dataclass(frozen=True)
class RunFilter:
    """The runs page's filters; an empty string filters nothing."""

    experiment: str = ""
    status: str = ""
    label: str = ""  # KEY=VALUE
    study: str = ""
    model: str = ""
    since: str = ""  # an ISO date: runs created that day or later
    until: str = ""  # an ISO date: runs created that day or earlier


@dataclass(frozen=True)
class RunRow:
    """One line of the runs page."""

    info: RunInfo
    config_name: str
    seed: Any
    models: list[str]
    labels: dict[str, Any]
    outcome: str | None
    rounds: Any
    calls: int | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    duration_s: float
    modified_build: str | None = None  # the run was recorded by a modified build (build.py)


@dataclass(frozen=True)
class PendingRow:
    """A run whose folded columns are not computed yet: its stored facts only."""

    info: RunInfo
    labels: dict[str, Any]
    pending: bool = True


@dataclass(frozen=True)
class RunPage:
    rows: list[RunRow | PendingRow]
    total: int
    page: int
    pages: int


class ViewStore:
    """The ledger as the viewer reads it. Opened on first use (a ledger missing at start
    may appear later); a failed open is retried on the next request."""

    def __init__(self, url: str | None, plans: Mapping[str, StudyPlan] | None = None) -> None:
        self.url = url
        self.plans = dict(plans or {})  # study name -> the plan of its file (--study)
        self._store: EventStore | None = None
        self._lock = threading.Lock()
        # (run id, head seq, status) -> row: a row is folded once per head.
        self._rows: dict[tuple[str, int, str], RunRow] = {}
        self._models: dict[str, list[str]] = {}
        self._configs: dict[str, dict[str, Any]] = {}
        self._forks = LineageCache()
        self._infos: dict[str, tuple[tuple[int, str, datetime], RunInfo]] = {}
        self._experiment_names: list[str] | None = None
        self._listed: tuple[tuple[Any, ...], list[RunInfo]] | None = None
        self._histories: dict[tuple[str, int, str, bool], History] = {}  # oldest first
        self._building: dict[tuple[str, int, str, bool], threading.Lock] = {}
        # (run id, head seq, status) -> the audits' findings: computed once per head.
        self._findings: dict[tuple[str, int, str], tuple[list[Finding], list[str]]] = {}
        self._serving = 0  # requests being answered: the background work waits for none
        self._serving_lock = threading.Lock()
        self.stopping = threading.Event()  # set at shutdown: the background work ends

    def store(self) -> EventStore:
        with self._lock:
            if self._store is None:
                self._store = EventStore.open(
                    self.url, read_only=True, busy_timeout_s=BUSY_TIMEOUT_S
                )
            return self._store

    def close(self) -> None:
        with self._lock:
            self._histories.clear()  # their sources read through the store closed here
            if self._store is not None:
                self._store.close()
                self._store = None

    # ------------------------------------------------------------------ runs

    def run_infos(self) -> list[RunInfo]:
        """Every run, its config read once (a run's config never changes); the list read
        again only when the runs table changed (a new run, an append, a new status)."""
        store = self.store()
        signature = _runs_signature(store)
        if self._listed is not None and self._listed[0] == signature:
            return self._listed[1]
        infos = store.list_runs_without_config()
        missing = [i.run_id for i in infos if i.run_id not in self._configs]
        if missing:
            self._configs.update(store.configs(missing))
        out = []
        for info in infos:
            # The copy with its config is kept while the run's row is unchanged.
            key = (info.head_seq, info.status, info.updated_at)
            known = self._infos.get(info.run_id)
            if known is None or known[0] != key:
                known = self._infos[info.run_id] = (
                    key,
                    info.model_copy(update={"config": self._configs.get(info.run_id, {})}),
                )
            out.append(known[1])
        self._listed = (signature, out)
        return list(out)

    def experiment_names(self) -> list[str]:
        """The installed experiments (read once: scanning the entry points takes 0.1 s)."""
        if self._experiment_names is None:
            self._experiment_names = experiments.names()
        return self._experiment_names

    def runs_page(
        self,
        wanted: RunFilter,
        sort: str,
        descending: bool,
        page: int,
        per_page: int,
        budget_s: float | None = None,
        infos: list[RunInfo] | None = None,
    ) -> RunPage:
        """One page of the runs that match. Rows not folded before are folded now, for at
        most ``budget_s`` seconds; the others come back as their stored facts alone
        (:class:`PendingRow`), and the page asks again."""
        every = self.run_infos() if infos is None else infos
        infos = [info for info in every if self._matches(info, wanted)]
        infos.sort(key=_sort_key(sort), reverse=descending)
        pages = max(1, -(-len(infos) // per_page))
        page = min(max(1, page), pages)
        chosen = infos[(page - 1) * per_page : page * per_page]
        deadline = None if budget_s is None else time.monotonic() + budget_s
        rows: list[RunRow | PendingRow] = []
        folded = 0  # at least one a request: a page asked again always gets further
        for info in chosen:
            known = self._rows.get((info.run_id, info.head_seq, info.status))
            if known is not None:
                rows.append(known)
            elif folded and deadline is not None and time.monotonic() > deadline:
                rows.append(PendingRow(info, labels_of(info)))
            else:
                rows.append(self.row(info))
                folded += 1
        return RunPage(rows, len(infos), page, pages)

    def row(self, info: RunInfo) -> RunRow:
        key = (info.run_id, info.head_seq, info.status)
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = self._fold_row(info)
        return found

    def models_of(self, info: RunInfo) -> list[str]:
        found = self._models.get(info.run_id)
        if found is None:
            found = self._models[info.run_id] = _models(info)
        return found

    def _matches(self, info: RunInfo, wanted: RunFilter) -> bool:
        labels = labels_of(info)
        created = info.created_at.date().isoformat()
        if wanted.experiment and info.kind != wanted.experiment:
            return False
        if wanted.status and info.status != wanted.status:
            return False
        if wanted.study and labels.get("study") != wanted.study:
            return False
        if wanted.since and created < wanted.since:
            return False
        if wanted.until and created > wanted.until:
            return False
        if wanted.label:
            key, _, value = wanted.label.partition("=")
            if key.strip() not in labels or str(labels[key.strip()]) != value.strip():
                return False
        return not wanted.model or wanted.model in self.models_of(info)

    def _fold_row(self, info: RunInfo) -> RunRow:
        summary: Summary | None = None
        config = info.config if isinstance(info.config, dict) else {}
        prices = _prices(config)
        models = self.models_of(info)
        cost: float | None = None
        try:
            experiment = experiments.get(info.kind)
        except UnknownExperimentError:
            experiment = None
        if experiment is not None:
            summary = self._summary(info, experiment)
            cost = self._cost(info, summary, models, prices)
        data = summary.data if summary is not None else {}
        return RunRow(
            info=info,
            config_name=str(config.get("name") or info.kind),
            seed=config.get("seed"),
            models=models,
            labels=labels_of(info),
            outcome=summary.outcome if summary else None,
            # The rounds played, where the summary names them (Frohlich: "round").
            rounds=data.get("rounds", data.get("round")) if isinstance(data, dict) else None,
            calls=summary.calls if summary else None,
            input_tokens=summary.input_tokens if summary else None,
            output_tokens=summary.output_tokens if summary else None,
            cost_usd=cost,
            duration_s=(info.updated_at - info.created_at).total_seconds(),
            modified_build=self.modified_build(info),
        )

    def modified_build(self, info: RunInfo) -> str | None:
        """The sentence naming the modified build that recorded the run (its ``run.started``'s
        ``provenance.git.dirty``), read from the stored payload; ``None`` for a clean build."""
        with closing(self.store().read(info.run_id, keep_packed=CALL_EVENTS)) as stream:
            first = next(stream, None)
        if first is None or first.type != RunStarted.TYPE:
            return None
        return modified_build_of(first.payload.get("provenance"))

    def _summary(self, info: RunInfo, experiment: Experiment) -> Summary:
        """The run's summary at ``info``'s head: folded as a resume folds it (without the
        prompts' texts, the fast way), or, for a run that grew since ``info`` was read, from
        its events up to that head."""
        from maai.runtime.fold import UnreadableHistoryError, load_state

        try:
            state, head = load_state(self.store(), info.run_id, experiment)
        except UnreadableHistoryError as exc:
            raise UnreadableEventError(str(exc)) from None
        if head != info.head_seq:
            history = self.history(info, experiment)
            state = experiment.fold(entry.event for entry in history.entries)
        return experiment.summarize(info.run_id, state, info.status)

    def _cost(
        self,
        info: RunInfo,
        summary: Summary,
        models: list[str],
        prices: dict[str, Price] | None,
    ) -> float | None:
        """The run's cost at its config's prices, as ``maai runs`` gives it (``None``
        without prices, or when a model used has none), by ``Usage.cost_usd``."""
        if not prices:
            return None
        if len(models) == 1:  # one model: the summary's tokens are its tokens
            usage = Usage()
            usage.add(models[0], summary.input_tokens, summary.output_tokens)
            return usage.cost_usd(prices)
        usage = Usage()  # several models: the tokens of each, read off its calls
        for record in HeadSource(self.store(), info.run_id, info.head_seq).read():
            if record.type == ModelCallCompleted.TYPE:
                tokens = (record.payload.get("answer") or {}).get("usage") or {}
                usage.add(
                    str(record.payload.get("model")),
                    int(tokens.get("input_tokens") or 0),
                    int(tokens.get("output_tokens") or 0),
                )
        return usage.cost_usd(prices)

    def prepare(self) -> None:
        """What the first pages need, done before the viewer listens: the experiments'
        plug-ins and the fold imported (seconds for Frohlich's parsers), and every run's
        config read (a second for 1,000 runs)."""
        import maai.runtime.engine  # noqa: F401 -- the runs page folds through it

        for name in self.experiment_names():
            try:
                experiments.get(name)
            except Exception:  # noqa: BLE001 -- a broken plug-in is shown by its run's page
                continue
        try:
            self.run_infos()
        except (LedgerError, UnreadableEventError):
            self.close()  # the request that meets it shows it

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Around each request: the background work (:meth:`warm`) waits while any runs."""
        with self._serving_lock:
            self._serving += 1
        try:
            yield
        finally:
            with self._serving_lock:
                self._serving -= 1

    def _idle(self) -> None:
        while self._serving and not self.stopping.is_set():
            time.sleep(0.02)

    def warm(self, limit: int = 200) -> None:
        """Ahead of the requests (a background thread at start, giving way to every
        request): read the ledger's forks, then fold the newest runs' rows, so the runs
        page folds only what changed since."""
        try:
            self._idle()
            self._forks.parents(self.store(), self._run_ids())
            infos = sorted(self.run_infos(), key=_sort_key("created"), reverse=True)
            for info in infos[:limit]:
                self._idle()
                if self.stopping.is_set():
                    return
                self.row(info)
        except (LedgerError, UnreadableEventError, UnknownExperimentError):
            pass  # the request that meets it shows it

    def study_plan(self, name: str) -> StudyPlan | None:
        """The study's plan: from its file (``--study``), else from its queued jobs."""
        return self.plans.get(name) or queued_plan(self.store(), name)

    # ------------------------------------------------------------------ one run

    def lineage(self, run_id: str) -> RunLineage:
        """The run's parent (with its fork point) and children, among the ledger's runs."""
        return self._forks.of(self.store(), self._run_ids(), run_id)

    def fork_of(self, child: str, parent: str) -> Link | None:
        """Where ``child`` was forked from ``parent``, if it is a direct fork of it."""
        return self._forks.fork_of(self.store(), self._run_ids(), child, parent)

    def _run_ids(self) -> list[str]:
        return [info.run_id for info in self.store().list_runs_without_config()]

    def info(self, run_id: str) -> RunInfo:
        """The run's row: its status and head seq, read together."""
        return self.store().get_run(run_id)

    def findings(self, info: RunInfo, history: History) -> tuple[list[Finding], list[str]]:
        """The audits' findings on ``history`` (read at ``info``'s head), kept by run and
        head: a long run's audits take seconds, and its page is opened again and again."""
        key = (info.run_id, info.head_seq, info.status)
        with self._lock:
            kept = self._findings.get(key)
        if kept is None:
            kept = findings(history)
            with self._lock:
                while len(self._findings) >= KEPT_FINDINGS:
                    self._findings.pop(next(iter(self._findings)))
                self._findings[key] = kept
        return kept

    def history(self, info: RunInfo, experiment: Experiment | None = None) -> History:
        """The run's history up to ``info``'s head, its prompts left in the store (read on
        demand through :class:`HeadSource`). The last few are kept, by run and head: the
        parts of a run's page, asked for together at one head, decode it once."""
        key = (info.run_id, info.head_seq, info.status, experiment is None)
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:  # a second request for the same history waits for the first
            found = self._histories.get(key)
            if found is None:
                found = self._decode(info, experiment)
                with self._lock:
                    self._histories[key] = found
                    while len(self._histories) > HISTORIES_KEPT:
                        del self._histories[next(iter(self._histories))]
                    self._building.pop(key, None)
            return found

    def _decode(self, info: RunInfo, experiment: Experiment | None) -> History:
        source = HeadSource(self.store(), info.run_id, info.head_seq)
        try:
            return history_from_stored(
                info.run_id, source.light(), info.status, experiment, source=source
            )
        except UnknownExperimentError:
            return history_from_stored(info.run_id, source.light(), info.status, source=None)

    def public_lines(
        self, info: RunInfo, after: int, limit: int | None
    ) -> tuple[list[EventLine], int | None]:
        """Timeline lines of the run's events after seq ``after`` up to its head, calls left
        out, read from the stored payloads (the prompts and answers left packed); at most
        ``limit``, and the seq after which the rest starts (``None``: no rest)."""
        lines: list[EventLine] = []
        source = HeadSource(self.store(), info.run_id, info.head_seq)
        stream = self.store().read(info.run_id, from_seq=after, keep_packed=CALL_EVENTS)
        for record in _upto(stream, source.head):
            if record.type in CALL_EVENTS:
                continue
            if limit is not None and len(lines) >= limit:
                return lines, lines[-1].seq
            lines.append(
                event_line(record.seq, record.type, record.payload, record.recorded_at.isoformat())
            )
        return lines, None

    def events_after(self, info: RunInfo, after: int) -> list[StoredEvent]:
        """The run's stored events after seq ``after`` up to its head (prompts whole)."""
        return list(HeadSource(self.store(), info.run_id, info.head_seq).read(after))


__all__ = [
    "SORT_KEYS",
    "HeadSource",
    "LedgerError",
    "RunFilter",
    "RunPage",
    "RunRow",
    "UnreadableEventError",
    "ViewStore",
]
