"""Running a study (docs/studies.md): every planned run created, run and finished, several at
once, in one process; resumable — a run already completed is never run again, the others
continue from their last event. The study is locked while it runs (``maai.ledger.locks``), so
a second process cannot run it at the same time."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maai.domain import experiments
from maai.domain.config import ConfigError, Price
from maai.domain.costs import Usage
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested
from maai.domain.study import PlannedRun, StudyFile, parse_study, plan_study
from maai.ledger import EventStore, LedgerError, RunNotFoundError
from maai.ledger.locks import named_lock
from maai.runtime import config_files
from maai.runtime.engine import Engine, RunFailedError
from maai.runtime.limits import CallLimits, LimitedExecutor, ProviderLimit
from maai.runtime.runs import config_snapshot, ensure_started, start_run
from maai.runtime.signing import Signer
from maai.runtime.trust import UntrustedRunError

DONE = "completed"


@dataclass(frozen=True)
class Study:
    file: StudyFile
    runs: list[PlannedRun]
    source: str


def load_study(
    path: str | Path, store: EventStore | Callable[[], EventStore] | None = None
) -> Study:
    """Read, validate and plan a study file (a path, or a packaged example study's name:
    ``u_sweep``); every problem is a ``ConfigError`` naming the file and the key or factor at
    fault. A study from a fork point (``fork:``) reads its base config from the run forked,
    in ``store`` (or the store it opens, when a callable: a study from a config needs none)."""
    found = config_files.resolve_study(path)
    # Packaged files are plain files in an installed maai: the base config beside them too.
    path = found if isinstance(found, Path) else Path(str(found))
    data = config_files.read_config_file(path)
    study = parse_study(data, str(path))
    if study.fork is not None:
        return _fork_study(study, path, store() if callable(store) else store)
    if study.base is not None:
        beside = path.parent / study.base
        base_path = beside if beside.exists() else config_files.resolve(study.base)
        base_data = config_files.read_config(base_path)
        _, base = experiments.parse_config(base_data, source=str(base_path))
    else:
        # An inline base config names its files (a world file) relative to the study file.
        source = f"{path}: config"
        inline = config_files.inline_files(study.config, path.parent, source)
        _, base = experiments.parse_config(inline, source=source)
    return Study(study, plan_study(study, base, str(path)), str(path))


def _fork_study(study: StudyFile, path: Path, store: EventStore | None) -> Study:
    assert study.fork is not None
    where = f"{path}: fork"
    fork = study.fork
    if store is None:
        origin = f"run {fork.parent}" if fork.study is None else f"study {fork.study}"
        raise ConfigError(f"{where}: needs the ledger that holds {origin}")
    if fork.study is None:
        return Study(study, _forks_of(study, path, store, fork.parent), str(path))
    # Every run of a base study forked at the point: each parent's cells and replicates,
    # their run ids `STUDY.pK.cCELL.rREPLICATE` (K: the parent's place, by run id).
    try:
        parents = sorted(info.run_id for info in study_runs_in_ledger(store).get(fork.study, []))
    except LedgerError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if not parents:
        raise ConfigError(f"{where}: no runs of study {fork.study!r} in the ledger")
    width = len(str(len(parents)))
    runs: list[PlannedRun] = []
    for k, parent in enumerate(parents, 1):
        for run in _forks_of(study, path, store, parent):
            tail = run.run_id.removeprefix(f"{study.study}.")
            runs.append(dataclasses.replace(run, run_id=f"{study.study}.p{k:0{width}d}.{tail}"))
    return Study(study, runs, str(path))


def _forks_of(study: StudyFile, path: Path, store: EventStore, parent: str) -> list[PlannedRun]:
    """The study's runs as forks of ``parent`` at its point, each checked against the
    experiment's fork rules now."""
    from maai.domain.forks import ForkError
    from maai.runtime.forks import fork_base, plan_fork_to

    assert study.fork is not None
    where = f"{path}: fork"
    try:
        parent, base_data = fork_base(store, parent, study.fork.at)
    except (ForkError, LedgerError) as exc:
        raise ConfigError(f"{where}: {exc}") from None
    _, base = experiments.parse_config(base_data, source=where)
    fork = study.fork.model_copy(update={"parent": parent})
    runs = plan_study(study.model_copy(update={"fork": fork}), base, str(path))
    for run in runs:  # each run's changes are checked against the experiment's rules now
        try:
            plan_fork_to(store, parent, fork.at, config_snapshot(run.config), str(path))
        except ForkError as exc:
            raise ConfigError(f"{path}: run {run.run_id}: {exc}") from None
    return runs


def create_planned(store: EventStore, run: PlannedRun, signer: Signer | None = None) -> None:
    """Create a planned run: started from its config, or a fork of its study's run at its
    point (docs/forks.md), in one transaction; with ``signer``, its head signed at once."""
    if run.fork is None:
        start_run(store, run.config, run_id=run.run_id, signer=signer)
        return
    from maai.runtime.checkpoints import sign_head
    from maai.runtime.forks import make_fork, plan_fork_to

    parent, point = run.fork
    plan = plan_fork_to(store, parent, point, config_snapshot(run.config), run.run_id)
    make_fork(store, plan, run.run_id)
    if signer is not None:
        sign_head(store, run.run_id, signer)


def stored_status(store: EventStore, runs: Sequence[PlannedRun]) -> dict[str, str | None]:
    """Each planned run's status in the ledger (``None``: not created yet). A run that exists
    with another config means the study file changed since: refused, naming the run."""
    out: dict[str, str | None] = {}
    for run in runs:
        try:
            info = store.get_run(run.run_id)
        except RunNotFoundError:
            out[run.run_id] = None
            continue
        if info.run_id != run.run_id:  # a prefix match is another run
            out[run.run_id] = None
            continue
        if _behaviour(info.config) != _behaviour(config_snapshot(run.config)):
            raise ConfigError(
                f"run {run.run_id} exists with another config: the study file changed since"
                " its runs were created; give the study a new name to run the new plan"
            )
        out[run.run_id] = info.status
    return out


def _behaviour(config: dict[str, Any]) -> dict[str, Any]:
    """A config without its prices: prices change what a run costs, not what it does, so a
    study whose prices were corrected goes on (each run keeps the prices it started with)."""
    return {k: v for k, v in config.items() if k != "prices"}


def recorded_usage(store: EventStore, run_id: str) -> Usage:
    """The tokens of a stored run's calls, per model (read off the stored payloads)."""
    usage = Usage()
    # Requests are picked down to a field: their long prompts are not read.
    picked = {
        ModelCallCompleted.TYPE: ("model", "answer.usage"),
        ModelCallRequested.TYPE: ("attempt",),
    }
    for _, type_, _, payload in store.read_fields(run_id, picked):
        if type_ != ModelCallCompleted.TYPE or not isinstance(payload, dict):
            continue
        tokens = payload.get("answer.usage") or {}
        usage.add(
            str(payload.get("model")),
            _count(tokens, "input_tokens"),
            _count(tokens, "output_tokens"),
            _count(tokens, "cached_input_tokens"),
            _count(tokens, "reasoning_tokens"),
        )
    return usage


def _count(tokens: dict[str, Any], name: str) -> int:
    # Recorded by our own Usage model, so a count or absent (runs before these fields).
    value = tokens.get(name)
    return value if isinstance(value, int) else 0


def run_cost(store: EventStore, run_id: str, prices: Mapping[str, Price]) -> float | None:
    """A stored run's cost in US dollars at ``prices`` (``Usage.cost_usd``, the one place
    cost is computed); ``None`` when no price is set, or a model used has none."""
    if not prices:
        return None
    return recorded_usage(store, run_id).cost_usd(prices)


@dataclass
class StudyProgress:
    """What the live display shows; updated as events are recorded."""

    total: int
    done: int = 0
    failed: int = 0
    running: set[str] = field(default_factory=set)
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    finished_this_time: int = 0
    failures: dict[str, str] = field(default_factory=dict)
    stopped: dict[str, LedgerError] = field(default_factory=dict)
    """Runs stopped by the store (full, busy, another writer): left resumable, not failed."""
    cost_usd: float | None = 0.0  # None: a model used has no price
    budget_usd: float | None = None
    not_started: list[str] = field(default_factory=list)  # held back by the budget
    touched: list[str] = field(default_factory=list)  # runs this process started or resumed
    preparing: str | None = None  # what the study waits for before its first run, in words

    def add_cost(self, cost: float | None) -> None:
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost

    @property
    def over_budget(self) -> bool:
        return (
            self.budget_usd is not None
            and self.cost_usd is not None
            and self.cost_usd >= self.budget_usd
        )

    @property
    def pending(self) -> int:
        return self.total - self.done - self.failed - len(self.running)

    def eta_s(self) -> float | None:
        """Seconds left, from the pace of the runs finished by this process."""
        if self.finished_this_time == 0:
            return None
        pace = (time.monotonic() - self.started) / self.finished_this_time
        return pace * (self.total - self.done)


@dataclass
class StudyOutcome:
    progress: StudyProgress
    skipped: list[str]  # completed before: never run again


async def _run_one(
    store: EventStore,
    run: PlannedRun,
    status: str | None,
    signer: Signer | None,
    progress: StudyProgress,
    on_change: Callable[[], None],
    limits: CallLimits,
) -> None:
    progress.running.add(run.run_id)
    progress.touched.append(run.run_id)  # from here on, an interruption leaves it resumable
    on_change()
    try:
        await _run_engine(store, run, status, signer, progress, on_change, limits)
    except LedgerError as exc:
        # The store refused a write (full, locked, another writer): the run's history is
        # one unbroken chain; it is left interrupted, for the next `study run` to continue.
        progress.stopped[run.run_id] = exc
    finally:
        progress.running.discard(run.run_id)
        on_change()


async def _run_engine(
    store: EventStore,
    run: PlannedRun,
    status: str | None,
    signer: Signer | None,
    progress: StudyProgress,
    on_change: Callable[[], None],
    limits: CallLimits,
) -> None:
    from maai.runtime.executors import LiveExecutor

    experiment = experiments.get(run.config.experiment)
    if status is None:
        create_planned(store, run)
    else:
        ensure_started(store, run.run_id, run.config)

    def on_event(event: Event, state: Any) -> None:
        if isinstance(event, ModelCallCompleted):
            progress.calls += 1
            usage = event.answer.usage
            progress.input_tokens += usage.input_tokens
            progress.output_tokens += usage.output_tokens
            call = Usage()
            call.add_event(event)
            progress.add_cost(call.cost_usd(run.config.prices))
            progress.cached_input_tokens += usage.cached_input_tokens
            on_change()

    executor = LimitedExecutor(LiveExecutor(run.config, experiment=experiment), limits, run.config)
    engine = Engine(
        store,
        run.run_id,
        executor,
        experiment=experiment,
        on_event=on_event,
        signer=signer,
    )
    try:
        await engine.run()
    except (RunFailedError, UntrustedRunError) as exc:
        # An untrusted run (its chain or signatures do not hold) was refused before any
        # request: reported like a failure, the study goes on with the others.
        progress.failed += 1
        progress.failures[run.run_id] = str(exc)
    else:
        progress.done += 1
        progress.finished_this_time += 1


async def _run_all(
    store: EventStore,
    todo: list[tuple[PlannedRun, str | None]],
    study: StudyFile,
    concurrency: int,
    signer: Signer | None,
    progress: StudyProgress,
    on_change: Callable[[], None],
) -> None:
    gate = asyncio.Semaphore(concurrency)
    providers = {
        key: ProviderLimit(limit.concurrency, limit.per_minute)
        for key, limit in study.limits.providers.items()
    }
    limits = CallLimits(study.limits.calls, providers)

    async def bounded(run: PlannedRun, status: str | None) -> None:
        async with gate:
            if progress.stopped:  # the store refuses writes: left as it is (resumable)
                return
            if progress.over_budget:
                progress.not_started.append(run.run_id)  # left as it is: resumable
                on_change()
                return
            await _run_one(store, run, status, signer, progress, on_change, limits)

    tasks = [asyncio.create_task(bounded(run, status)) for run, status in todo]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()


def run_study(
    store: EventStore,
    study: Study,
    *,
    signer: Signer | None,
    concurrency: int | None = None,
    on_change: Callable[[StudyProgress], None] = lambda progress: None,
    on_start: Callable[[StudyProgress], None] = lambda progress: None,
) -> StudyOutcome:
    """Run every run of ``study`` that is not completed yet; raises ``LockHeldError`` when
    another process runs the study. Runs left running by an interruption are set
    ``interrupted`` (resumable) before this returns or raises. ``on_start`` is called once
    the study is locked and its runs' statuses read."""
    with named_lock(store.location, f"study-{study.file.study}", f"study {study.file.study}"):
        statuses = stored_status(store, study.runs)
        skipped = [run_id for run_id, status in statuses.items() if status == DONE]
        todo = [(run, statuses[run.run_id]) for run in study.runs if statuses[run.run_id] != DONE]
        progress = StudyProgress(
            total=len(study.runs), done=len(skipped), budget_usd=study.file.budget_usd
        )
        for run in study.runs:
            if statuses[run.run_id] is not None:  # what the study has spent so far
                progress.add_cost(recorded_usage(store, run.run_id).cost_usd(run.config.prices))
        limit = concurrency or study.file.concurrency
        progress.preparing = "loading the model providers"
        on_start(progress)
        # The model SDK takes seconds to import: once, here, while the live line says so.
        from maai.runtime.executors import LiveExecutor  # noqa: F401

        progress.preparing = None
        try:
            asyncio.run(
                _run_all(
                    store, todo, study.file, limit, signer, progress, lambda: on_change(progress)
                )
            )
        finally:
            # Not ``running``: an interruption cancels the runs' tasks, which take
            # themselves out of it before this runs.
            for run_id in progress.touched:
                _leave_resumable(store, run_id)
        return StudyOutcome(progress, skipped)


def _leave_resumable(store: EventStore, run_id: str) -> None:
    try:
        if store.get_run(run_id).status in ("running", "created"):
            store.set_status(run_id, "interrupted")
    except LedgerError:
        pass


def study_runs_in_ledger(store: EventStore) -> dict[str, list[Any]]:
    """Study name → the runs of the ledger labelled with it, in run-id order."""
    out: dict[str, list[Any]] = {}
    for info in store.list_runs():
        name = (info.config.get("labels") or {}).get("study")
        if isinstance(name, str):
            out.setdefault(name, []).append(info)
    for infos in out.values():
        infos.sort(key=lambda i: i.run_id)
    return out
