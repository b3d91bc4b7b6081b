"""Folding (replaying) a stored run: events per second, for each experiment and run size.

    python benchmarks/fold_bench.py [--experiment frohlich,collaboration,world]
                                    [--sizes 1k,10k,100k] [--repeat 3] [--seed 42]

For each experiment and size, records one simulated run (simulated participants and utility
agent, no latency) on a temporary SQLite ledger through the same ``Engine`` and
``LiveExecutor`` the CLI uses; nothing is kept between invocations. A size is a preset or
``AGENTSxROUNDS``:

- Frohlich (``AGENTSxROUNDS``: agents x Phase-2 rounds; the group never agrees, every persona
  having ``stubbornness: 1.0`` and the preferred principles differing, so every round is
  used): ``1k`` 6 x 8 (a default-sized run), ``10k`` 16 x 40 (a long discussion), ``30k``
  32 x 40 (about the largest realistic run), ``100k`` 330 x 1 (most events are polls of the
  whole group);
- collaboration (``2xEXCHANGES``: the game has two agents and at most 10 exchanges, about
  130 events): every preset is the longest game, ``2x10``;
- world (``AGENTSxTICKS``, the free world of ``benchmarks/world_bench.py``, wanderers in five
  places): ``1k`` 4 x 25, ``10k`` 25 x 45, ``30k`` 40 x 80, ``100k`` 80 x 120.

A ledger grows about linearly with its events (repeated text is stored once,
``ledger/packing.py``): about 3 MB at 1k Frohlich events and 32 MB at 10k.

Then it folds the run's stored events ``--repeat`` times as ``load_state`` does (streaming
them from the ledger with ``read_fields``, decoding, folding with ``Experiment.fold``), 500
at a time: decode them, then fold the decoded events, each timed (the memory taken stays
small however large the ledger). It prints per experiment and size the best time and the
rate (events/s) of:

- ``load_state``: ``runtime.engine.load_state`` itself (what resume, replay and show pay),
  the state it returns freed after the clock stops;
- ``load``: the whole fold as timed below, reading the ledger included (``load_state``'s
  work plus the timing of its parts);
- ``decode+fold``: decoding and folding the stored events, without reading them;
- ``fold``: folding the already decoded events (the reducer alone; see ``timed_fold``
  on the collector);
- ``decode``: decoding the stored events (type and payload to an event);
- ``sql``: SQLite alone answering the fold's query (the one ``read_fields`` sends: a
  request's header picked by ``json_extract``, an answer's raw response removed by
  ``json_remove``), fetched in chunks of 500 rows by a plain ``sqlite3`` connection and
  nothing done with the rows: the part of ``load`` that no Python-side change can lower;

then, per experiment, the ratio of the largest rate to the smallest across sizes for each
(1.0 is flat). The target (issue 12): ``load_state`` at 100,000 events/s or more on runs of
every size, for every experiment. Times are process CPU time (``time.process_time``): on a
machine shared with other work the steadier figure (the fold uses one thread).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scale_bench, world_bench

from scale_bench import collaboration_config, world_config  # noqa: E402

from maai.domain import experiments  # noqa: E402
from maai.domain.config import ExperimentConfig  # noqa: E402
from maai.domain.events import Event  # noqa: E402
from maai.domain.experiment import Experiment  # noqa: E402
from maai.domain.experiments import parse_config  # noqa: E402
from maai.ledger import EventStore  # noqa: E402
from maai.ledger.fields import (  # noqa: E402
    checked_paths,
    sqlite_payload_column,
    sqlite_size_column,
)
from maai.runtime.engine import Engine  # noqa: E402
from maai.runtime.executors import LiveExecutor  # noqa: E402
from maai.runtime.fold import (  # noqa: E402
    FOLD_FIELDS,
    FOLD_OMITS,
    fold_fields_decoder,
    load_state,
)
from maai.runtime.runs import start_run  # noqa: E402

EXPERIMENTS = ("frohlich", "collaboration", "world")
# Per experiment: preset -> (agents, rounds), giving about the named number of events.
PRESETS: dict[str, dict[str, tuple[int, int]]] = {
    "frohlich": {"1k": (6, 8), "10k": (16, 40), "30k": (32, 40), "100k": (330, 1)},
    "collaboration": dict.fromkeys(("1k", "10k", "30k", "100k"), (2, 10)),
    "world": {"1k": (4, 25), "10k": (25, 45), "30k": (40, 80), "100k": (80, 120)},
}
PRINCIPLES = ("a", "b", "c", "d")


def parse_size(experiment: str, text: str) -> tuple[str, int, int]:
    text = text.strip().lower()
    presets = PRESETS[experiment]
    if text in presets:
        agents, rounds = presets[text]
    else:
        left, sep, right = text.partition("x")
        if not sep or not left.isdigit() or not right.isdigit():
            raise argparse.ArgumentTypeError(
                f"size {text!r}: give a preset ({', '.join(presets)}) or AGENTSxROUNDS"
            )
        agents, rounds = int(left), int(right)
    if experiment == "collaboration":
        agents, rounds = 2, min(rounds, 10)
    return f"{agents}x{rounds}", agents, rounds


def bench_config(experiment: str, agents: int, rounds: int, seed: int) -> ExperimentConfig:
    """Frohlich: stubborn simulated participants that never agree, answering at once; the
    collaboration game and the world as ``benchmarks/scale_bench.py`` makes them."""
    if experiment == "collaboration":
        data = collaboration_config(rounds)
    elif experiment == "world":
        data = world_config(agents, rounds, "free")
    else:
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
            "experiment": "frohlich",
            "name": "fold-bench",
            "phase2_rounds": rounds,
            "agents": people,
        }
    data.update(seed=seed, tracing=False)
    return parse_config(data, source="fold_bench")[1]


def record_run(store: EventStore, config: ExperimentConfig) -> str:
    run_id = start_run(store, config)
    # The simulated utility agent (the config's default) answers at once too.
    asyncio.run(Engine(store, run_id, LiveExecutor(config), signer=None).run())
    return run_id


def fold_functions(store: EventStore, run_id: str) -> tuple[Callable[..., Event], Experiment]:
    """(decode, experiment) for the run, as ``load_state`` uses them (a request read and
    decoded as its header, a short payload validated from its JSON text:
    ``runtime.engine.fold_fields_decoder``)."""
    experiment = experiments.get(store.get_run(run_id).kind)
    return fold_fields_decoder(experiment), experiment


MEASURES = ("load_state", "load", "decode+fold", "fold", "decode", "sql")


CHUNK = 500  # events decoded, then folded, at a time


def timed_fold(store: EventStore, run_id: str) -> tuple[Any, int, dict[str, float]]:
    """Fold the stored run as ``load_state`` does (stream, decode, fold), a chunk of events
    at a time: decode the chunk, then fold its decoded events, each timed. Returns (state,
    events, seconds by measure).

    The collector is paused throughout, as ``load_state`` pauses it (nearly everything a fold
    makes lives on in the state, which a collection would traverse again and again). Before
    2026-11-25 (fold-speed) it was paused only while a chunk was folded, and the collections
    that fell due were charged to decoding, at random."""
    decode, experiment = fold_functions(store, run_id)
    clock = time.process_time
    decoding = folding = 0.0
    count = 0
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    started = clock()
    state = experiment.initial_state()
    stream = store.read_fields(run_id, FOLD_FIELDS, as_text=True, omit=FOLD_OMITS)
    while chunk := list(itertools.islice(stream, CHUNK)):
        t0 = clock()
        events = [decode(type_, version, payload) for _, type_, version, payload in chunk]
        t1 = clock()
        state = experiment.fold(events, state)  # one copy of the state per chunk
        t2 = clock()
        decoding += t1 - t0
        folding += t2 - t1
        count += len(chunk)
        del chunk, events
    load = clock() - started
    if collecting:
        gc.enable()
    seconds = {
        "load": load,
        "decode+fold": decoding + folding,
        "fold": folding,
        "decode": decoding,
    }
    return state, count, seconds


def timed_sql(path: Path, run_id: str) -> float:
    """CPU seconds for SQLite to answer the fold's query over the whole run, ``CHUNK`` rows
    at a time by keyset on seq as the store pages (the same SQL as ``read_fields`` builds
    from ``FOLD_FIELDS`` and ``FOLD_OMITS``), the rows fetched and dropped."""
    column, params = sqlite_payload_column(checked_paths(FOLD_FIELDS), checked_paths(FOLD_OMITS))
    size_column, size_params = sqlite_size_column(checked_paths(FOLD_OMITS))
    query = (
        f"SELECT position, seq, type, schema_version, {column}, agent, {size_column}"
        " FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?"
    )
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        started = time.process_time()
        after = 0
        while rows := connection.execute(
            query, (*params, *size_params, run_id, after, CHUNK)
        ).fetchall():
            after = rows[-1][1]
        return time.process_time() - started
    finally:
        connection.close()


@dataclass
class Figures:
    experiment: str
    size: str
    agents: int
    rounds: int
    events: int
    record_s: float
    ledger_mb: float
    seconds: dict[str, float]  # the best of the repeats, by measure

    def rate(self, what: str) -> float:
        return self.events / max(self.seconds[what], 1e-9)


def measure(
    experiment: str, size: str, agents: int, rounds: int, seed: int, repeat: int, folder: Path
) -> Figures:
    config = bench_config(experiment, agents, rounds, seed)
    path = folder / f"fold-{experiment}-{size}.db"
    with EventStore.open(str(path), synchronous="OFF") as store:
        started = time.perf_counter()
        run_id = record_run(store, config)
        record_s = time.perf_counter() - started
        print(
            f"  recorded {experiment} {size}: {store.head(run_id)} events in {record_s:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        best = dict.fromkeys(MEASURES, float("inf"))
        for _ in range(repeat):
            state, events, seconds = timed_fold(store, run_id)
            gc.collect()
            started = time.process_time()
            folded = load_state(store, run_id)
            seconds["load_state"] = time.process_time() - started
            del folded  # freeing the state is not part of loading it
            seconds["sql"] = timed_sql(path, run_id)
            best = {what: min(best[what], seconds[what]) for what in MEASURES}
        # The fold timed is the engine's: it reaches the state load_state reaches.
        if state != load_state(store, run_id)[0]:
            raise AssertionError(f"{experiment} {size}: the timed fold and load_state disagree")
        del state
    ledger_mb = path.stat().st_size / 1e6
    path.unlink()
    return Figures(experiment, size, agents, rounds, events, record_s, ledger_mb, best)


def print_figures(results: list[Figures]) -> None:
    head = "".join(f" | {what:>22}" for what in MEASURES)
    print(f"{'experiment':>13} {'size':>7} {'events':>7} {'ledger MB':>9} {'record s':>8}{head}")
    for r in results:
        cells = "".join(f" | {r.seconds[what]:8.3f} s {r.rate(what):9,.0f}/s" for what in MEASURES)
        print(
            f"{r.experiment:>13} {r.size:>7} {r.events:7d} {r.ledger_mb:9.1f} {r.record_s:8.1f}"
            f"{cells}"
        )
    for experiment in EXPERIMENTS:
        mine = [r for r in results if r.experiment == experiment]
        if len(mine) > 1:
            ratios = []
            for what in MEASURES:
                rates = [r.rate(what) for r in mine]
                ratios.append(f"{what} {max(rates) / min(rates):.2f}")
            print(f"{experiment}: largest / smallest rate: " + ", ".join(ratios))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--experiment",
        default="frohlich",
        help="comma-separated experiments (" + ", ".join(EXPERIMENTS) + ")",
    )
    parser.add_argument(
        "--sizes",
        default="1k,10k,100k",
        help="comma-separated presets (1k, 10k, 30k, 100k) or AGENTSxROUNDS",
    )
    parser.add_argument("--repeat", type=int, default=3, help="folds per size; the best counts")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    chosen = [e.strip() for e in args.experiment.split(",") if e.strip()]
    if unknown := [e for e in chosen if e not in EXPERIMENTS]:
        parser.error(f"unknown experiment(s) {', '.join(unknown)}: give {', '.join(EXPERIMENTS)}")
    try:
        cells: list[tuple[str, str, int, int]] = []
        for experiment in chosen:
            for text in args.sizes.split(","):
                if text.strip():
                    cell = (experiment, *parse_size(experiment, text))
                    if cell not in cells:  # the collaboration game has one size
                        cells.append(cell)
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs",
        flush=True,
    )
    results = []
    with tempfile.TemporaryDirectory(prefix="maai-fold-bench-") as tmp:
        for experiment, size, agents, rounds in cells:
            results.append(
                measure(experiment, size, agents, rounds, args.seed, max(1, args.repeat), Path(tmp))
            )
    print_figures(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
