"""The CPU the ledger's append path costs per event and per model call, on a real run's events.

    python benchmarks/append_bench.py [--experiment frohlich|collaboration|world]
                                      [--agents 32] [--rounds 12] [--repeat 3]
                                      [--synchronous FULL] [--profile FILE]
                                      [--batches FILE]

Runs the experiment once with simulated participants (no latency) and keeps every batch the
engine hands to ``EventStore.append``: the very ``NewEvent`` objects, shared history items
included, as a live run appends them. Then appends those batches, in order, into a fresh
SQLite ledger ``--repeat`` times and prints the best CPU time (``time.process_time``: a
loaded machine inflates it less than wall time) per event and per model call, split into
packing, rows and SQL, and the rest (payload texts and their checks).

The clock the store stamps events with is replaced by a fixed one, so the stored rows are
the same on every repeat: the digest printed over them (every column of every row, in seq
order) shows whether two versions of the append path store the same bytes. The engine's
batches vary from run to run with thread timing, so two checkouts are compared on the same
batches: ``--batches FILE`` keeps them in FILE (pickled), or reads them from it when it
exists. Run the script with each checkout's code, one right after the other.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pickle
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from maai.canonical import canonical_json_of
from maai.domain import experiments
from maai.ledger import EventStore, NewEvent, sqlite_writer, store_base
from maai.ledger.packing import Packer
from maai.runtime.engine import Engine, run_engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run

sys.path.insert(0, str(Path(__file__).resolve().parent))

Batch = tuple[int, list[NewEvent]]


@dataclass
class Captured:
    run_id: str
    kind: str
    config: dict[str, Any]
    batches: list[Batch]
    calls: int


def make_config(experiment: str, agents: int, rounds: int) -> Any:
    if experiment == "frohlich":
        from run_bench import bench_config

        return bench_config(agents, rounds, 0.0, 42)
    if experiment == "world":
        from world_bench import world_config

        return world_config("free", agents, rounds, 0.0, 1)
    from scale_bench import collaboration_config

    return experiments.parse_config(collaboration_config(rounds), source="append_bench")[1]


def capture(experiment: str, agents: int, rounds: int, folder: Path) -> Captured:
    """One simulated run, keeping the batches appended after its first event."""
    config = make_config(experiment, agents, rounds)
    batches: list[Batch] = []
    with EventStore.open(str(folder / "capture.db"), synchronous="OFF") as store:
        run_id = start_run(store, config)
        real_append = store.append

        def kept_append(run: str, expected: int, events: Any) -> Any:
            batches.append((expected, list(events)))
            return real_append(run, expected, events)

        store.append = kept_append  # type: ignore[method-assign]
        engine_experiment = experiments.get(config.experiment)
        engine = Engine(
            store,
            run_id,
            LiveExecutor(config, experiment=engine_experiment),
            experiment=engine_experiment,
        )
        run_engine(engine)
        info = store.get_run(run_id)
        first = next(iter(store.read(run_id)))
    started = NewEvent(first.type, first.payload, first.agent, first.schema_version)
    batches.insert(0, (0, [started]))
    calls = sum(1 for _, events in batches for e in events if e.type == "model.completed")
    return Captured(run_id, info.kind, info.config, batches, calls)


def fixed_clock() -> Callable[[], datetime]:
    """A clock that gives the same times on every replay: one microsecond per append."""
    moment = [datetime(2026, 1, 1, tzinfo=UTC)]

    def now() -> datetime:
        moment[0] += timedelta(microseconds=1)
        return moment[0]

    return now


@dataclass
class Stages:
    """CPU seconds of the store's stages, timed by wrapping them: packing (with the check of
    what it stores), rows (envelopes hashed) and SQL, and the rest."""

    pack: float = 0.0
    sql_and_rows: float = 0.0
    rest: float = 0.0  # payload texts and their checks, the store's own work


def replay(captured: Captured, path: Path, synchronous: str, stages: Stages) -> tuple[float, str]:
    """Append the captured batches into a fresh ledger: CPU seconds, digest of the rows."""
    clock = store_base.utcnow
    pack = Packer.pack
    rows = sqlite_writer.append_rows
    cpu = time.process_time

    def timed(original: Callable[..., Any], stage: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = cpu()
            try:
                return original(*args, **kwargs)
            finally:
                setattr(stages, stage, getattr(stages, stage) + cpu() - started)

        return wrapper

    store_base.utcnow = fixed_clock()
    Packer.pack = timed(pack, "pack")  # type: ignore[method-assign]
    sqlite_writer.append_rows = timed(rows, "sql_and_rows")
    try:
        with EventStore.open(str(path), synchronous=synchronous) as store:
            store.create_run(captured.run_id, captured.kind, captured.config)
            started = cpu()
            for expected, events in captured.batches:
                store.append(captured.run_id, expected, events)
            spent = cpu() - started
    finally:
        store_base.utcnow = clock
        Packer.pack = pack  # type: ignore[method-assign]
        sqlite_writer.append_rows = rows
    stages.rest = spent - stages.pack - stages.sql_and_rows
    return spent, rows_digest(path, captured.run_id)


def rows_digest(path: Path, run_id: str) -> str:
    digest = hashlib.sha256()
    with sqlite3.connect(path) as raw:
        query = (
            "SELECT seq, type, schema_version, payload, agent, recorded_at, prev_hash, hash"
            " FROM events WHERE run_id = ? ORDER BY seq"
        )
        for row in raw.execute(query, (run_id,)):
            digest.update(repr(row).encode())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--experiment", choices=("frohlich", "collaboration", "world"), default="frohlich"
    )
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=12, help="Phase-2 rounds, exchanges, ticks")
    parser.add_argument("--repeat", type=int, default=3, help="replays; the best is reported")
    parser.add_argument("--synchronous", default="FULL", help="SQLite PRAGMA synchronous")
    parser.add_argument("--profile", type=Path, help="cProfile the last replay into this file")
    parser.add_argument(
        "--batches",
        type=Path,
        help="read the run's batches from this file, or keep them there when it does not exist"
        " (the engine's batches vary from run to run: two checkouts compare on the same ones)",
    )
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}")
    if args.profile and args.repeat < 2:
        raise SystemExit("--profile needs --repeat of at least 2 (the profiled replay is extra)")
    with tempfile.TemporaryDirectory(prefix="maai-append-bench-") as tmp:
        folder = Path(tmp)
        if args.batches is not None and args.batches.exists():
            captured = pickle.loads(args.batches.read_bytes())
        else:
            captured = capture(args.experiment, args.agents, args.rounds, folder)
            if args.batches is not None:
                args.batches.write_bytes(pickle.dumps(captured, pickle.HIGHEST_PROTOCOL))
        for _, batch in captured.batches:  # texts a live run keeps, written before the clock
            for new in batch:
                canonical_json_of(new.payload)
        events = sum(len(b) for _, b in captured.batches)
        best: tuple[float, Stages] | None = None
        digests = set()
        for i in range(max(1, args.repeat)):
            stages = Stages()
            profiler = cProfile.Profile() if args.profile and i == args.repeat - 1 else None
            if profiler is not None:
                profiler.enable()
            spent, digest = replay(captured, folder / f"replay-{i}.db", args.synchronous, stages)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(str(args.profile))
            else:  # a profiled replay's CPU is the profiler's
                digests.add(digest)
                if best is None or spent < best[0]:
                    best = (spent, stages)
    if best is None:
        raise SystemExit("--profile needs --repeat of at least 2 to report figures")
    spent, stages = best
    calls = max(1, captured.calls)
    figures = {
        "experiment": args.experiment,
        "agents": args.agents,
        "rounds": args.rounds,
        "events": events,
        "appends": len(captured.batches),
        "calls": captured.calls,
        "cpu_s": spent,
        "us_per_event": spent * 1e6 / events,
        "ms_per_call": spent * 1e3 / calls,
        "stages_ms_per_call": {k: v * 1e3 / calls for k, v in stages.__dict__.items()},
        "rows_digest": sorted(digests),
    }
    print(
        f"{args.experiment} {args.agents} x {args.rounds}: {events} events in "
        f"{len(captured.batches)} appends, {captured.calls} model calls"
    )
    print(
        f"append CPU (best of {args.repeat}): {spent:.3f} s = {figures['us_per_event']:.1f} us"
        f" per event = {figures['ms_per_call']:.3f} ms per model call"
    )
    parts = ", ".join(f"{k} {v:.3f}" for k, v in figures["stages_ms_per_call"].items())
    print(f"  of which, ms per call: {parts}")
    print(f"rows digest: {' '.join(figures['rows_digest'])}")
    return figures


if __name__ == "__main__":
    main()
