"""Folding (replaying) a stored run: events per second against the length of the history.

    python benchmarks/fold_bench.py [--sizes 1k,10k,100k] [--repeat 3] [--seed 42]

For each size, records one simulated Frohlich run (simulated participants and utility agent,
no latency) on a temporary SQLite ledger through the same ``Engine`` and ``LiveExecutor``
the CLI uses; nothing is kept between invocations. The group never agrees (every persona has
``stubbornness: 1.0``, the preferred principles differ), so every Phase-2 round is used. A
size is a preset or ``AGENTSxROUNDS`` (e.g. ``32x40``):

- ``1k``: 6 agents x 8 rounds (a default-sized run);
- ``10k``: 16 agents x 40 rounds (a long discussion);
- ``30k``: 32 agents x 40 rounds (about the largest realistic run);
- ``100k``: 330 agents x 1 round (most events are polls of the whole group).

Every participant request stores its whole prompt, which holds the public history so far, so
a ledger grows with the square of its events: about 10 MB at 1k events, 0.8 GB at 10k, 6 GB
at 30k and 15 GB at 100k. Recording the 100k run takes about a quarter of an hour; mind the
free space in the temporary folder (``TMPDIR``).

Then it folds the run's stored events ``--repeat`` times as ``load_state`` does (streaming
them from the ledger with ``read_fields``, decoding, evolving), 500 at a time: decode them,
then fold the decoded events, each timed (the memory taken stays small however large the ledger). It
prints per size the best time and the rate (events/s) of:

- ``load_state``: ``runtime.engine.load_state`` itself (what resume, replay and show pay);
- ``load``: the whole fold as timed below, reading the ledger included (``load_state``'s
  work plus the timing of its parts);
- ``decode+evolve``: decoding and folding the stored events, without reading them;
- ``evolve``: folding the already decoded events (the reducer alone; see ``timed_fold``
  on the collector);
- ``decode``: decoding the stored events (type and payload to an event);

then the ratio of the largest rate to the smallest across sizes for each (1.0 is flat; the
target, events/s within +-30% from 1k to 100k events, is a ratio of at most 1.3/0.7 = 1.86).
A decoded event costs in proportion to its payload, and prompts grow with the history, so
``decode`` (and ``load``) cannot be flat over a run's length; ``evolve`` can.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maai.domain import experiments
from maai.domain.events import Event
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.ledger import EventStore
from maai.runtime.engine import FOLD_FIELDS, Engine, fold_fields_decoder, load_state
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run

# agents x Phase-2 rounds, giving about the named number of events.
PRESETS: dict[str, tuple[int, int]] = {
    "1k": (6, 8),
    "10k": (16, 40),
    "30k": (32, 40),
    "100k": (330, 1),
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
            "name": f"P{i + 1}",  # short: polls list every name, in every later prompt
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
    # The simulated utility agent (the config's default) answers at once too.
    asyncio.run(Engine(store, run_id, LiveExecutor(config)).run())
    return run_id


def fold_functions(store: EventStore, run_id: str) -> tuple[Callable[..., Event], Any, Any]:
    """(decode, evolve, initial_state) for the run's experiment, as ``load_state`` uses them
    (a request read and decoded as its header, a short payload validated from its JSON text:
    ``runtime.engine.fold_fields_decoder``)."""
    experiment = experiments.get(store.get_run(run_id).kind)
    return fold_fields_decoder(experiment), experiment.evolve, experiment.initial_state


MEASURES = ("load_state", "load", "decode+evolve", "evolve", "decode")


CHUNK = 500  # events decoded, then folded, at a time


def timed_fold(store: EventStore, run_id: str) -> tuple[Any, int, dict[str, float]]:
    """Fold the stored run as ``load_state`` does (stream, decode, evolve), a chunk of events
    at a time: decode the chunk, then fold its decoded events, each timed. Returns (state,
    events, seconds by measure).

    The collector is paused throughout, as ``load_state`` pauses it (nearly everything a fold
    makes lives on in the state, which a collection would traverse again and again). Before
    2026-11-25 (fold-speed) it was paused only while a chunk was folded, and the collections
    that fell due were charged to decoding, at random."""
    decode, evolve, initial_state = fold_functions(store, run_id)
    clock = time.perf_counter
    decoding = evolving = 0.0
    count = 0
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    started = clock()
    state = initial_state()
    stream = store.read_fields(run_id, FOLD_FIELDS, as_text=True)
    while chunk := list(itertools.islice(stream, CHUNK)):
        t0 = clock()
        events = [decode(type_, version, payload) for _, type_, version, payload in chunk]
        t1 = clock()
        for event in events:
            state = evolve(state, event)
        t2 = clock()
        decoding += t1 - t0
        evolving += t2 - t1
        count += len(chunk)
        del chunk, events
    load = clock() - started
    if collecting:
        gc.enable()
    seconds = {
        "load": load,
        "decode+evolve": decoding + evolving,
        "evolve": evolving,
        "decode": decoding,
    }
    return state, count, seconds


@dataclass
class Figures:
    size: str
    agents: int
    rounds: int
    events: int
    record_s: float
    ledger_mb: float
    seconds: dict[str, float]  # the best of the repeats, by measure

    def rate(self, what: str) -> float:
        return self.events / self.seconds[what]


def measure(size: str, agents: int, rounds: int, seed: int, repeat: int, folder: Path) -> Figures:
    config = bench_config(agents, rounds, seed)
    path = folder / f"fold-{size}.db"
    with EventStore.open(str(path), synchronous="OFF") as store:
        started = time.perf_counter()
        run_id = record_run(store, config)
        record_s = time.perf_counter() - started
        print(
            f"  recorded {size}: {store.head(run_id)} events in {record_s:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        best = dict.fromkeys(MEASURES, float("inf"))
        for _ in range(repeat):
            state, events, seconds = timed_fold(store, run_id)
            gc.collect()
            started = time.perf_counter()
            load_state(store, run_id)
            seconds["load_state"] = time.perf_counter() - started
            best = {what: min(best[what], seconds[what]) for what in MEASURES}
        # The fold timed is the engine's: it reaches the state load_state reaches.
        if state != load_state(store, run_id)[0]:
            raise AssertionError(f"{size}: the timed fold and load_state disagree")
        del state
    ledger_mb = path.stat().st_size / 1e6
    path.unlink()
    return Figures(size, agents, rounds, events, record_s, ledger_mb, best)


def print_figures(results: list[Figures]) -> None:
    head = "".join(f" | {what:>22}" for what in MEASURES)
    print(
        f"{'size':>6} {'agents x rounds':>15} {'events':>8} {'ledger MB':>9} {'record s':>8}{head}"
    )
    for r in results:
        cells = "".join(f" | {r.seconds[what]:8.3f} s {r.rate(what):9,.0f}/s" for what in MEASURES)
        shape = f"{r.agents} x {r.rounds}"
        print(f"{r.size:>6} {shape:>15} {r.events:8d} {r.ledger_mb:9.1f} {r.record_s:8.1f}{cells}")
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
    parser.add_argument("--repeat", type=int, default=3, help="folds per size; the best counts")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs",
        flush=True,
    )
    results = []
    with tempfile.TemporaryDirectory(prefix="maai-fold-bench-") as tmp:
        for size, agents, rounds in sizes:
            results.append(measure(size, agents, rounds, args.seed, max(1, args.repeat), Path(tmp)))
    print_figures(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
