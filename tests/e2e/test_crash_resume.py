"""Crash safety: ``maai run`` killed at many points, then ``maai resume``, ends exactly as an
uninterrupted run of the same config (the simulated participant is deterministic), and
``maai verify`` passes on every resumed run. Ctrl-C stops a run cleanly (exit 130, status
``interrupted``) and resume completes it the same way."""

from __future__ import annotations

import shutil
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maai.ledger import EventStore
from maai.runtime.fold import load_state
from maai.runtime.runs import load_config
from tests.e2e.history import decode, differences, domain_history, only_run, seqs_gapless, wait_for
from tests.e2e.launcher import CliProcess, Launcher
from tests.e2e.runs import DEFAULT_CONFIG, Reference, References

PHASE1_KILLS = 7
PHASE2_KILLS = 9
PARALLEL = 2  # kill-and-resume cycles at a time


# The last kill point stays this many events short of the end, so that a poller that wakes a
# little late still kills the child before the run completes.
END_MARGIN = 60


def kill_thresholds(ref: Reference) -> list[int]:
    """Head seqs to kill at, spread evenly over Phase 1 (from just after ``run.started``) and
    Phase 2 (up to ``END_MARGIN`` events before the end)."""
    phase1 = [1 + round(i * (ref.phase2_from - 3) / PHASE1_KILLS) for i in range(PHASE1_KILLS)]
    span = ref.events - END_MARGIN - ref.phase2_from
    phase2 = [ref.phase2_from + round(i * span / (PHASE2_KILLS - 1)) for i in range(PHASE2_KILLS)]
    return phase1 + phase2


def exited_early(child: CliProcess) -> str | None:
    code = child.poll()
    return None if code is None else f"maai exited with {code}:\n{child.output()}"


# The run under test gets a lower CPU priority than the test polling it, so that on a busy
# machine the poller still sees the head seq pass its threshold in time.
CHILD_NICE = 10
ATTEMPTS = 3


class MissedKill(Exception):
    """The child completed the run before the kill landed (the poller was starved of CPU):
    no crash happened mid-run, so the plan is tried again on a fresh ledger."""


@dataclass
class Kill:
    threshold: int | str  # a head seq, or the key of the event the kill waited for
    killed_at: int  # head seq after the kill
    status: str  # the run's status after the kill
    phase: int | None  # the phase the history had reached (None: the experiment has none)
    exit_code: int
    during: str  # "run" or "resume"
    state: Any = None  # the run's state folded from the ledger after the kill


@dataclass
class Crashes:
    kills: list[Kill]
    resume: CliProcess  # the resume that ran to the end
    verify: CliProcess
    final_status: str
    chain_ok: bool
    gapless: bool
    problems: list[str]
    attempt: int

    def where(self, events: int) -> str:
        return "killed at " + ", ".join(
            f"seq {k.killed_at}/{events} (during {k.during}, threshold {k.threshold})"
            for k in self.kills
        )


Mark = int | str
"""Where to kill: a head seq to reach, or the key of a domain event (``decision/Ada``): the
child is killed as soon as the ledger holds it, wherever resumes moved its seq."""


def kill_at(store: EventStore, child: CliProcess, threshold: Mark) -> Kill:
    """SIGKILL ``child`` as soon as the run's head seq reaches ``threshold`` (or, for a key,
    as soon as that event is stored)."""
    seen = 0
    where = f"seq {threshold}" if isinstance(threshold, int) else threshold

    def reached() -> bool:
        nonlocal seen
        info = only_run(store)
        if info is None:
            return False
        if isinstance(threshold, int):
            return info.head_seq >= threshold
        for stored in store.read(info.run_id, seen):
            seen = stored.seq
            if decode(stored).key == threshold:
                return True
        return False

    deadline = time.monotonic() + 90
    try:
        while not reached():
            code = child.poll()
            if code == 0:
                raise MissedKill(f"maai {child.argv[0]} finished before {where}")
            if code is not None:
                raise AssertionError(
                    f"maai {child.argv[0]} exited with {code} before {where}:\n{child.output()}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {where}")
            time.sleep(0.002)
    finally:
        exit_code = child.kill()
    info = only_run(store)
    assert info is not None
    if info.status == "completed":  # killed while exiting, or not at all
        raise MissedKill(
            f"maai {child.argv[0]} completed the run before the kill at {where} "
            f"landed (exit code {exit_code})"
        )
    state, killed_at = load_state(store, info.run_id)
    phase = getattr(state, "phase", None)
    return Kill(threshold, killed_at, info.status, phase, exit_code, child.argv[0], state)


def crash_and_resume(cli: Launcher, ref: Reference, thresholds: list[Mark], db: Path) -> Crashes:
    """``maai run`` of the reference's config killed at the first threshold, each ``maai
    resume`` after it killed at the next one, then a last ``maai resume`` to the end and
    ``maai verify``. ``db`` is a fresh ledger; the plan is tried again on a copy of it when a
    kill was missed."""
    missed: list[str] = []
    for attempt in range(1, ATTEMPTS + 1):
        ledger = db.with_name(f"{db.stem}-{attempt}.db")
        shutil.copyfile(db, ledger)
        try:
            return run_plan(cli, ref, thresholds, ledger, attempt)
        except MissedKill as exc:
            missed.append(str(exc))
    raise AssertionError(f"kills missed {ATTEMPTS} times: {missed}")


def run_plan(
    cli: Launcher, ref: Reference, thresholds: list[Mark], db: Path, attempt: int
) -> Crashes:
    with EventStore.open(str(db)) as store:
        child = cli.start("run", ref.config, "--db", db, "-q", nice=CHILD_NICE)
        kills = [kill_at(store, child, thresholds[0])]
        info = only_run(store)
        assert info is not None
        run_id = info.run_id
        for threshold in thresholds[1:]:
            child = cli.start("resume", run_id, "--db", db, "-q", nice=CHILD_NICE)
            kills.append(kill_at(store, child, threshold))
        resume = cli.run("resume", run_id, "--db", db, "-q")
        verify = cli.run("verify", run_id, "--db", db)
        history = domain_history(store.read(run_id), ref.agents)
        gapless, _ = seqs_gapless(store, run_id)
        return Crashes(
            kills=kills,
            resume=resume,
            verify=verify,
            final_status=store.get_run(run_id).status,
            chain_ok=store.verify_chain(run_id).ok,
            gapless=gapless,
            problems=differences(history, ref.history),
            attempt=attempt,
        )


def test_sigkill_at_many_points_then_resume_ends_as_uninterrupted_run(
    cli: Launcher, references: References, tmp_path: Path
) -> None:
    """16 SIGKILLs spread over Phase 1 and Phase 2, in 8 runs: each run is killed once
    during ``maai run`` and once during the ``maai resume`` that follows (a crash while
    recovering from a crash), then resumed to the end."""
    ref = references.of(DEFAULT_CONFIG)
    thresholds = kill_thresholds(ref)
    assert len(thresholds) >= 16
    half = len(thresholds) // 2
    plans = [[thresholds[i], thresholds[i + half]] for i in range(half)]
    dbs = [tmp_path / f"crash-{i}.db" for i in range(len(plans))]
    for db in dbs:  # empty ledgers, created here: schema upgrades are not thread-safe
        EventStore.open(str(db)).close()
    with ThreadPoolExecutor(PARALLEL) as pool:
        results = list(
            pool.map(
                lambda item: crash_and_resume(cli, ref, item[0], item[1]),
                zip(plans, dbs, strict=True),
            )
        )

    for result in results:
        where = result.where(ref.events)
        for kill in result.kills:
            assert kill.exit_code == -signal.SIGKILL, (
                f"{where}: maai {kill.during} exited with {kill.exit_code} before the kill"
            )
            # SIGKILL leaves no chance to record a status: it stays as it was while running.
            assert kill.status in ("created", "running"), f"{where}: status {kill.status}"
        assert result.resume.poll() == 0, f"{where}: resume failed:\n{result.resume.output()}"
        assert result.final_status == "completed", where
        assert result.chain_ok and result.gapless, f"{where}: the ledger is not one gapless chain"
        assert result.verify.poll() == 0, f"{where}: verify failed:\n{result.verify.output()}"
        assert result.verify.flat_output().startswith("ok:"), result.verify.output()
        assert not result.problems, f"{where}: resumed run differs:\n" + "\n".join(result.problems)

    kills = [k for r in results for k in r.kills]
    points = {k.killed_at for k in kills}
    in_phase1 = [k.killed_at for k in kills if k.phase <= 1]
    in_phase2 = [k.killed_at for k in kills if k.phase >= 2]
    assert len(points) >= 12, f"only {len(points)} distinct kill points: {sorted(points)}"
    assert len(in_phase1) >= PHASE1_KILLS // 2, sorted(in_phase1)
    assert len(in_phase2) >= PHASE2_KILLS // 2, sorted(in_phase2)
    assert any(k.during == "resume" and k.phase >= 2 for k in kills)
    print(  # shown with -n 0 -s: where the kills landed
        f"{len(points)} kill points of {ref.events} events (Phase 2 from seq {ref.phase2_from}; "
        f"plans tried again after a missed kill: {sum(r.attempt - 1 for r in results)}): "
        + ", ".join(
            f"{k.killed_at}(p{k.phase},{k.during})"
            for k in sorted(kills, key=lambda k: k.killed_at)
        )
    )


def test_killed_before_the_first_event_is_not_resumed_from_its_row(
    cli: Launcher, tmp_path: Path
) -> None:
    """A process that died between creating the run and recording ``run.started``: the run
    exists with no events, and its unhashed row is never trusted for a config: resume
    refuses it, saying so, and leaves it as it was (docs/ledger.md, "Trust before acting")."""
    db = str(tmp_path / "empty-run.db")
    config = load_config(DEFAULT_CONFIG)
    with EventStore.open(db) as store:
        snapshot = config.model_dump(mode="json")
        store.create_run("20990101-000000-e2e000", config.experiment, snapshot)
        resumed = cli.run("resume", "20990101-000000-e2e000", "--db", db, "-q")
        assert resumed.poll() == 2, resumed.output()
        assert "has no events: it was never started" in resumed.output()
        assert store.head("20990101-000000-e2e000") == 0


def test_ctrl_c_exits_130_interrupted_and_resume_completes(
    cli: Launcher, references: References, latency_config: Path, tmp_path: Path
) -> None:
    """Through the real entry point (``python -m maai``): SIGINT in the middle of Phase 1."""
    ref = references.of(latency_config)
    db = str(tmp_path / "ctrl-c.db")
    EventStore.open(db).close()
    with EventStore.open(db) as store:
        child = cli.start("run", latency_config, "--db", db, "-q", real=True)

        def head() -> int:
            info = only_run(store)
            return info.head_seq if info is not None else 0

        threshold = ref.phase2_from // 2
        wait_for(
            lambda: head() >= threshold,
            timeout=120,
            what=f"head seq {threshold}",
            abort=lambda: exited_early(child),
        )
        child.send(signal.SIGINT)
        assert child.wait(60) == 130, child.output()
        info = only_run(store)
        assert info is not None
        assert info.status == "interrupted"
        assert info.head_seq < ref.phase2_from, "the run went on after Ctrl-C"
        assert store.verify_chain(info.run_id).ok
        message = child.flat_output()
        assert f"interrupted. The run is saved; continue it with: maai resume {info.run_id}" in (
            message
        )

        resumed = cli.run("resume", info.run_id, "--db", db, "-q", real=True)
        assert resumed.poll() == 0, resumed.output()
        assert store.get_run(info.run_id).status == "completed"
        history = domain_history(store.read(info.run_id), ref.agents)
        assert store.verify_chain(info.run_id).ok
    assert not differences(history, ref.history), differences(history, ref.history)
