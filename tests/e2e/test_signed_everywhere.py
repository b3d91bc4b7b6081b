"""Signed and exact everywhere: for every experiment on both backends, a run left alone, a run
killed once or twice (SIGKILL) and resumed, and a study at concurrency 1 and 8 killed and run
again (in one process, or spread over procrastinate workers on PostgreSQL) all end with every
run completed, its head signed, ``maai verify`` passing, and its history equal to the
uninterrupted run of the same config and seed on SQLite (the same events, the same order
within each agent's thread).

Kill points are few and fixed (halfway; a third and two thirds), so that the matrix stays in
CI: the many-kill-points sweep of one experiment is tests/e2e/test_crash_resume.py."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime.checkpoints import check_checkpoints
from tests.e2e.history import DomainHistory, differences, domain_history
from tests.e2e.launcher import REPO, CliProcess, Launcher
from tests.e2e.runs import COLLABORATION_CONFIG, References, write_config

EXPERIMENTS = ("frohlich", "collaboration", "world")
CHILD_NICE = 10  # the child runs below the poller, so that a kill lands where it is aimed
ATTEMPTS = 3  # a kill that lands after the run completed is tried again with a new run
LATENCY_MS = 5  # per simulated call: runs last long enough to be killed midway
REPLICATES = 3  # runs per study


def _world_config(folder: Path) -> Path:
    """The public-goods world with two players and the moderator: short, and it still ends
    with the moderator's announcement (its text once differed on PostgreSQL)."""
    world = yaml.safe_load((REPO / "configs" / "worlds" / "village_hall.yaml").read_text())
    keep = ("Alice", "Bob", "Mona")
    world["agents"] = [a for a in world["agents"] if a["name"] in keep]
    for agent in world["agents"]:
        agent["persona"]["latency_ms"] = LATENCY_MS
    for location in world["locations"]:
        if location["allowed"] != "all":
            location["allowed"] = list(keep)
    (folder / "small_world.yaml").write_text(yaml.safe_dump(world), encoding="utf-8")
    config = yaml.safe_load((REPO / "configs" / "world_pgg.yaml").read_text())
    config["world"] = "small_world.yaml"
    path = folder / "world.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("matrix")
    return {
        "frohlich": write_config(
            folder / "frohlich.yaml", agents=3, rounds=2, latency_ms=LATENCY_MS
        ),
        "collaboration": write_config(
            folder / "collaboration.yaml",
            base=COLLABORATION_CONFIG,
            agents=2,
            rounds=2,
            latency_ms=LATENCY_MS,
        ),
        "world": _world_config(folder),
    }


def _study(config: Path, name: str) -> Path:
    path = config.with_name(f"study-{name}.yaml")
    study = {"study": name, "base": config.name, "replicates": REPLICATES, "seed": 5}
    path.write_text(yaml.safe_dump(study), encoding="utf-8")
    return path


@dataclass
class StudyReference:
    study: Path
    histories: dict[str, DomainHistory]  # run id -> history of the uninterrupted run
    agents: tuple[str, ...]
    events: int  # over all its runs


_STUDY_REFERENCES: dict[str, StudyReference] = {}


def _study_reference(cli: Launcher, config: Path, experiment: str, folder: Path) -> StudyReference:
    if experiment not in _STUDY_REFERENCES:
        study = _study(config, f"m-{experiment}")
        db = str(folder / f"study-reference-{experiment}.db")
        EventStore.open(db).close()
        done = cli.run("study", "run", str(study), "--db", db, "-q", "-j", "1")
        assert done.poll() == 0, done.output()
        with EventStore.open(db) as store:
            infos = store.list_runs()
            agents = tuple(_agents(store, infos[0].run_id))
            histories = {i.run_id: domain_history(store.read(i.run_id), agents) for i in infos}
            events = sum(i.head_seq for i in infos)
        _STUDY_REFERENCES[experiment] = StudyReference(study, histories, agents, events)
    return _STUDY_REFERENCES[experiment]


def _agents(store: EventStore, run_id: str) -> list[str]:
    from maai.runtime.runs import stored_config

    _, config = stored_config(store, run_id)
    return list(config.agent_names())


def assert_signed_and_exact(
    store: EventStore, url: str, run_id: str, expected: DomainHistory, agents: tuple[str, ...]
) -> None:
    info = store.get_run(run_id)
    assert info.status == "completed", f"{run_id}: {info.status}"
    report = check_checkpoints(store, run_id)
    assert report.ok and report.checked, f"{run_id}: {report.problems or 'no checkpoint'}"
    assert max(cp.seq for cp in store.checkpoints(run_id)) == info.head_seq, run_id
    verified = CliRunner().invoke(app, ["verify", run_id, "--db", url], env={"COLUMNS": "250"})
    assert verified.exit_code == 0 and verified.stdout.startswith("ok:"), verified.output
    problems = differences(domain_history(store.read(run_id), agents), expected)
    assert not problems, f"{run_id} differs from the uninterrupted run:\n" + "\n".join(problems)


def _wait_then_kill(child: CliProcess, reached: Callable[[], bool]) -> bool:
    """SIGKILL ``child`` once ``reached()``; False when it finished first (a missed kill)."""
    deadline = time.monotonic() + 120
    try:
        while not reached():
            code = child.poll()
            if code == 0:
                return False
            assert code is None, f"maai {child.argv[0]} exited with {code}:\n{child.output()}"
            assert time.monotonic() < deadline, f"maai {child.argv[0]}: timed out"
            time.sleep(0.003)
    finally:
        code = child.kill()
    return code == -signal.SIGKILL


def _head_at_least(store: EventStore, known: set[str], seq: int) -> Callable[[], bool]:
    """Whether the one run not in ``known`` has reached ``seq``."""

    def reached() -> bool:
        new = [i for i in store.list_runs() if i.run_id not in known]
        return bool(new) and new[0].head_seq >= seq

    return reached


def _crash_and_resume(
    cli: Launcher, store: EventStore, url: str, config: Path, kills: list[int]
) -> int:
    """``maai run`` killed at the first seq, each resume killed at the next, then resumed to
    the end; a plan whose kill came too late is tried again as a new run. Returns the kills
    that landed."""
    for _ in range(ATTEMPTS):
        known = {i.run_id for i in store.list_runs()}
        child = cli.start("run", str(config), "--db", url, "-q", nice=CHILD_NICE)
        landed = _wait_then_kill(child, _head_at_least(store, known, kills[0]))
        (info,) = [i for i in store.list_runs() if i.run_id not in known]
        if not landed or info.status == "completed":
            continue
        count = 1
        for seq in kills[1:]:
            child = cli.start("resume", info.run_id, "--db", url, "-q", nice=CHILD_NICE)
            landed = _wait_then_kill(child, _head_at_least(store, known - {info.run_id}, seq))
            count += landed
        done = cli.run("resume", info.run_id, "--db", url, "-q")
        assert done.poll() == 0, done.output()
        return count
    raise AssertionError(f"every kill of {ATTEMPTS} tries came after the run completed")


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_runs_left_alone_or_killed_and_resumed_end_signed_and_exact(
    experiment: str,
    ledger_url: str,
    cli: Launcher,
    references: References,
    configs: dict[str, Path],
) -> None:
    config = configs[experiment]
    ref = references.of(config)  # left alone, on SQLite
    sqlite = not ledger_url.startswith("postgresql")
    EventStore.open(ledger_url, upgrade=True).close()
    if sqlite:
        # On SQLite the run left alone is the reference itself: checked as any run is,
        # rather than made a second time.
        with EventStore.open(ref.db) as store:
            assert_signed_and_exact(store, ref.db, ref.run_id, ref.history, ref.agents)
    else:
        alone = cli.run("run", str(config), "--db", ledger_url, "-q")
        assert alone.poll() == 0, alone.output()
    with EventStore.open(ledger_url) as store:
        once = _crash_and_resume(cli, store, ledger_url, config, [ref.events // 2])
        twice = _crash_and_resume(
            cli, store, ledger_url, config, [ref.events // 3, 2 * ref.events // 3]
        )
        assert once == 1 and twice >= 1
        infos = store.list_runs()
        assert len(infos) >= (2 if sqlite else 3)
        for info in infos:
            assert_signed_and_exact(store, ledger_url, info.run_id, ref.history, ref.agents)


def _study_events(store: EventStore) -> int:
    return sum(i.head_seq for i in store.list_runs())


@pytest.mark.parametrize("concurrency", [1, 8])
@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_a_study_killed_and_run_again_ends_signed_and_exact(
    experiment: str,
    concurrency: int,
    ledger_url: str,
    cli: Launcher,
    configs: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    ref = _study_reference(
        cli, configs[experiment], experiment, tmp_path_factory.mktemp("study-ref")
    )
    EventStore.open(ledger_url, upgrade=True).close()
    args = ("study", "run", str(ref.study), "--db", ledger_url, "-q", "-j", str(concurrency))
    with EventStore.open(ledger_url) as store:
        child = cli.start(*args, nice=CHILD_NICE)
        _wait_then_kill(child, lambda: _study_events(store) >= ref.events // 2)
        again = cli.run(*args)
        assert again.poll() == 0, again.output()
        infos = store.list_runs()
        assert sorted(i.run_id for i in infos) == sorted(ref.histories)
        for info in infos:
            assert_signed_and_exact(
                store, ledger_url, info.run_id, ref.histories[info.run_id], ref.agents
            )


@pytest.mark.postgres
@pytest.mark.parametrize("concurrency", [1, 8])
@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_a_distributed_study_with_a_killed_worker_ends_signed_and_exact(
    experiment: str,
    concurrency: int,
    postgres_url: str,
    cli: Launcher,
    configs: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    ref = _study_reference(
        cli, configs[experiment], experiment, tmp_path_factory.mktemp("study-ref")
    )
    EventStore.open(postgres_url, upgrade=True).close()
    submitted = CliRunner().invoke(app, ["study", "submit", str(ref.study), "--db", postgres_url])
    assert submitted.exit_code == 0, submitted.output
    worker: tuple[Any, ...] = ("worker", "--db", postgres_url, "-j", str(concurrency))
    quick = ("--heartbeat-s", "0.5", "--stalled-after-s", "2")
    with EventStore.open(postgres_url) as store:
        child = cli.start(*worker, *quick, nice=CHILD_NICE)
        _wait_then_kill(child, lambda: _study_events(store) >= ref.events // 2)
        # The dead worker's job is revived once its heartbeat is older than 2 s; burst
        # workers are started until every run is completed.
        deadline = time.monotonic() + 120
        while {i.status for i in store.list_runs()} != {"completed"} or len(
            store.list_runs()
        ) < len(ref.histories):
            assert time.monotonic() < deadline, {i.run_id: i.status for i in store.list_runs()}
            time.sleep(0.5)
            done = cli.run(*worker, *quick, "--burst")
            assert done.poll() == 0, done.output()
        for info in store.list_runs():
            assert_signed_and_exact(
                store, postgres_url, info.run_id, ref.histories[info.run_id], ref.agents
            )
