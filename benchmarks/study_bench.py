"""Wall time of a whole study against the ideal the runs' critical paths allow.

    python benchmarks/study_bench.py [--runs 100] [--concurrency 10] [--latency-ms 20]
                                     [--agents 3] [--rounds 2]

Runs a study of ``--runs`` simulated Frohlich runs (``--agents`` participants, at most
``--rounds`` discussion rounds, each participant's call answering after ``--latency-ms``; the
simulated utility agent answers at once) with ``maai.runtime.study.run_study`` — the code
``maai study run`` uses — ``--concurrency`` runs at once, on a temporary SQLite ledger. Prints:

- wall time of the whole study;
- the ideal: the sum over runs of each run's critical path (the longest chain of dependent
  participant calls its protocol allowed, from its recorded addresses, as
  ``benchmarks/run_bench.py`` computes it, times the latency), divided by the concurrency
  (and never below the longest single run's critical path);
- the ratio wall / ideal (target: at most 1.2), and events and calls per second.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_bench import critical_path  # noqa: E402

from maai.domain.events import ModelCallRequested  # noqa: E402
from maai.domain.study import parse_study, plan_study  # noqa: E402
from maai.ledger import EventStore  # noqa: E402
from maai.projections.history import history_from_stored  # noqa: E402
from maai.runtime.study import Study, run_study  # noqa: E402

PERSONAS = ["c", "b", "a", "d", "c", "b", "a", "d"]


def study_of(runs: int, concurrency: int, latency_ms: float, agents: int, rounds: int) -> Study:
    base = {
        "experiment": "frohlich",
        "phase2_rounds": rounds,
        "agents": [
            {
                "name": f"p{i}",
                "persona": {"preferred_principle": PERSONAS[i % 8], "latency_ms": latency_ms},
            }
            for i in range(agents)
        ],
    }
    data = {"study": "bench", "config": base, "replicates": runs, "concurrency": concurrency}
    file = parse_study(data, "study_bench")
    from maai.domain import experiments

    _, config = experiments.parse_config(base, source="study_bench")
    return Study(file, plan_study(file, config, "study_bench"), "study_bench")


def measure(args: argparse.Namespace) -> dict[str, Any]:
    study = study_of(args.runs, args.concurrency, args.latency_ms, args.agents, args.rounds)
    with (
        tempfile.TemporaryDirectory() as tmp,
        EventStore.open(str(Path(tmp) / "ledger.db"), synchronous=args.synchronous) as store,
    ):
        started = time.perf_counter()
        outcome = run_study(store, study, signer=None)
        wall = time.perf_counter() - started
        paths, events, calls = [], 0, 0
        for run in study.runs:
            history = history_from_stored(run.run_id, store.read(run.run_id))
            events += len(history.entries)
            addresses = [
                e.event.request.address
                for e in history.entries
                if isinstance(e.event, ModelCallRequested) and e.event.request.agent != "utility"
            ]
            calls += len(addresses)
            paths.append(critical_path(addresses).calls * args.latency_ms / 1000)
    ideal = max(sum(paths) / args.concurrency, max(paths))
    return {
        "runs": args.runs,
        "completed": outcome.progress.done,
        "concurrency": args.concurrency,
        "latency_ms": args.latency_ms,
        "agents": args.agents,
        "rounds": args.rounds,
        "wall_s": wall,
        "ideal_s": ideal,
        # With answers at once there is no latency to compare the wall time with.
        "ratio": wall / ideal if ideal > 0 else None,
        "mean_critical_path_s": sum(paths) / len(paths),
        "events": events,
        "participant_calls": calls,
        "events_per_s": events / wall,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--synchronous", default="FULL", help="SQLite PRAGMA synchronous")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    figures = measure(args)
    if args.json:
        print(json.dumps(figures, indent=2))
        return figures
    ratio = "n/a at 0 ms" if figures["ratio"] is None else f"{figures['ratio']:.3f}"
    print(
        f"{figures['completed']}/{figures['runs']} runs, {figures['concurrency']} at once, "
        f"{figures['latency_ms']:g} ms per participant call\n"
        f"wall: {figures['wall_s']:.2f} s; ideal: {figures['ideal_s']:.2f} s "
        f"(mean critical path {figures['mean_critical_path_s']:.2f} s per run)\n"
        f"wall / ideal: {ratio} (target <= 1.2)\n"
        f"{figures['events']} events ({figures['events_per_s']:.0f}/s), "
        f"{figures['participant_calls']} participant calls"
    )
    return figures


if __name__ == "__main__":
    main()
