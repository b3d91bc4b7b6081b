"""Folding (replaying) a stored run: events per second against the length of the history.

    python benchmarks/fold_bench.py [--sizes 1k,10k,100k] [--repeat 5] [--seed 42]

For each size, records one simulated Frohlich run (simulated participants and utility agent,
no latency) on a temporary SQLite ledger through the same ``Engine`` and ``LiveExecutor``
the CLI uses; nothing is kept between invocations. The group never agrees (every persona has
``stubbornness: 1.0``, the preferred principles differ), so every Phase-2 round is used. A
size is a preset (``1k``, ``10k``, ``30k``, ``100k``: about that many events) or
``AGENTSxROUNDS`` (e.g. ``32x40``).

Then it folds the run's stored events ``--repeat`` times and prints, per size, the best time
and the rate (events/s) of:

- ``load``: ``load_state`` as the engine calls it (read the ledger, decode, evolve);
- ``decode+evolve``: the stored events already read into memory, decoded and folded;
- ``evolve``: the decoded events folded (the reducer alone);
- ``decode``: the stored events decoded (no fold);

and the ratio of the largest rate to the smallest across sizes for each (flat is 1.0; the
target is events/s within +-30% from 1k to 100k events, i.e. a ratio of at most ~1.3/0.7).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maai.domain.events import Event
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.ledger import EventStore
from maai.runtime import providers
from maai.runtime.engine import Engine, load_state
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from maai.runtime.simulated.model import SimulatedUtility

# agents x Phase-2 rounds, giving about the named number of events.
PRESETS: dict[str, tuple[int, int]] = {
    "1k": (6, 8),
    "10k": (16, 40),
    "30k": (32, 40),
    "100k": (400, 1),
}
PRINCIPLES = ("a", "b", "c", "d")


def parse_size(text: str) -> tuple[str, int, int]:
    text = text.strip().lower()
    if text in PRESETS:
        return (text, *PRESETS[text])
    agents, sep, rounds = text.partition("x")
    if not sep or not agents.isdigit() or not rounds.isdigit():
        raise argparse.ArgumentTypeError(
            f"size {text!r}: give a preset ({', '.join(PRESETS)}) or AGENTSxROUNDS"
        )
    return text, int(agents), int(rounds)


def bench_config(agents: int, rounds: int, seed: int) -> FrohlichConfig:
    """Stubborn simulated participants that never agree, answering at once."""
    people = [
        {
            "name": f"Agent{i + 1}",
            "model": "simulated",
            "persona": {
                "preferred_principle": PRINCIPLES[i % len(PRINCIPLES)],
                "certainty": "very_sure",
                "stubbornness": 1.0,
                "conformity": 0.0,
                "error_rate": 0.1,
                "latency_ms": 0,
            },
        }
        for i in range(agents)
    ]
    data = {
        "name": "fold-bench",
        "seed": seed,
        "phase2_rounds": rounds,
        "agents": people,
        "tracing": False,
    }
    return parse_config(data, source="fold_bench")


def record_run(store: EventStore, config: FrohlichConfig) -> str:
    run_id = start_run(store, config)
    utility = SimulatedUtility(seed=config.seed, latency_ms=0)
    executor = LiveExecutor(config, models={providers.UTILITY: utility})
    asyncio.run(Engine(store, run_id, executor).run())
    return run_id


def fold_functions(store: EventStore, run_id: str) -> tuple[Callable[..., Event], Any, Any]:
    """(decode, evolve, initial_state) for the run's experiment, as ``load_state`` uses them."""
    try:
        from maai.domain import experiments  # type: ignore[attr-defined]
    except ImportError:  # before experiments were pluggable: the Frohlich ones, by module
        from maai.domain import registry
        from maai.domain.frohlich.state import evolve, initial_state

        return registry.decode, evolve, initial_state  # type: ignore[attr-defined]
    experiment = experiments.get(store.get_run(run_id).kind)
    return experiment.registry.decode, experiment.evolve, experiment.initial_state


def best_of(repeat: int, work: Callable[[], object]) -> float:
    """The best wall time of ``repeat`` runs of ``work`` (a collection before each)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


@dataclass
class Figures:
    size: str
    agents: int
    rounds: int
    events: int
    record_s: float
    seconds: dict[str, float]

    def rate(self, what: str) -> float:
        return self.events / self.seconds[what]


MEASURES = ("load", "decode+evolve", "evolve", "decode")


def measure(size: str, agents: int, rounds: int, seed: int, repeat: int, folder: Path) -> Figures:
    config = bench_config(agents, rounds, seed)
    with EventStore.open(str(folder / f"fold-{size}.db"), synchronous="OFF") as store:
        started = time.perf_counter()
        run_id = record_run(store, config)
        record_s = time.perf_counter() - started
        stored = list(store.read(run_id))
        decode, evolve, initial_state = fold_functions(store, run_id)

        def decoded() -> list[Event]:
            return [decode(s.type, s.schema_version, s.payload) for s in stored]

        events = decoded()

        def fold(items: Sequence[Event]) -> object:
            state = initial_state()
            for event in items:
                state = evolve(state, event)
            return state

        def decode_and_fold() -> object:
            state = initial_state()
            for s in stored:
                state = evolve(state, decode(s.type, s.schema_version, s.payload))
            return state

        seconds = {
            "load": best_of(repeat, lambda: load_state(store, run_id)),
            "decode+evolve": best_of(repeat, decode_and_fold),
            "evolve": best_of(repeat, lambda: fold(events)),
            "decode": best_of(repeat, decoded),
        }
    return Figures(size, agents, rounds, len(stored), record_s, seconds)


def print_figures(results: list[Figures]) -> None:
    head = "".join(f" | {what:>22}" for what in MEASURES)
    print(f"{'size':>6} {'agents x rounds':>15} {'events':>8} {'record s':>9}{head}")
    for r in results:
        cells = "".join(
            f" | {r.seconds[what]:8.3f} s {r.rate(what):9,.0f}/s" for what in MEASURES
        )
        print(f"{r.size:>6} {f'{r.agents} x {r.rounds}':>15} {r.events:8d} {r.record_s:9.1f}{cells}")
    if len(results) > 1:
        ratios = []
        for what in MEASURES:
            rates = [r.rate(what) for r in results]
            ratios.append(f"{what} {max(rates) / min(rates):.2f}")
        print("largest / smallest rate: " + ", ".join(ratios))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="1k,10k,100k",
        help="comma-separated presets (" + ", ".join(PRESETS) + ") or AGENTSxROUNDS",
    )
    parser.add_argument("--repeat", type=int, default=5, help="folds per size; the best counts")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    results = []
    with tempfile.TemporaryDirectory(prefix="maai-fold-bench-") as tmp:
        for size, agents, rounds in sizes:
            result = measure(size, agents, rounds, args.seed, max(1, args.repeat), Path(tmp))
            results.append(result)
            print(
                f"  recorded {size}: {result.events} events in {result.record_s:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    print_figures(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
