"""Wall time of a whole simulated run against the critical path the protocol allows.

    python benchmarks/run_bench.py [--latency-ms 50] [--agents 8] [--rounds 10] [--repeat 1]
                                   [--synchronous FULL] [--profile FILE] [--store-whole]

Runs the Frohlich experiment with simulated participants (and the simulated utility agent),
every model call answering after a fixed latency counted from the call (woken on time by
``runtime.simulated.latency``, not up to a millisecond late as ``asyncio.sleep`` would be), on
a temporary SQLite ledger (WAL,
``synchronous`` FULL unless told otherwise), through the same ``Engine`` and ``LiveExecutor``
the CLI uses. Prints:

- wall time of ``Engine.run`` (fold, decide, calls, appends, final status);
- the critical path at that latency, from the recorded calls: the longest dependency chain
  (in calls) the protocol allows, times the latency. Addresses give the structure:

  * Phase 1: each agent's calls form one chain (all agents run side by side); the phase
    costs its longest chain;
  * Phase 2: each speaker's reasoning and statement are sequential, one after the other;
    every concurrent stage (a poll, a ballot, a round's memory updates, the 2.2 memory
    updates, the 2.3 ranking + memory) costs its longest per-agent chain once (a poll
    answer asked again after an unreadable one, with its extraction, is 3 calls);
  * extraction calls (``.../extract/<n>``) sit on the chain of the answer they read;

- the ratio wall / critical path (target: at most 1.10);
- model calls and tokens per phase; per Phase-2 round, the speakers' own calls and the
  number of concurrent stages with their cost in calls;
- CPU time, which a loaded machine does not inflate as it does wall time: the process's over
  the run, split into ``decide()`` on the engine's loop, the simulated participants writing
  their answers (a real model's work, done elsewhere), and the store's appends on the writer
  thread; the engine's own CPU per call is the process's less the simulated answers; the
  requests built (rendered) per call, the garbage collector's full collections (each a
  pause of every thread), and what one ``repr`` of the final state costs (``asyncio.run``
  made two on its way out; ``maai.runtime.engine.run_engine`` makes none).

``--profile FILE`` runs the same under cProfile and writes the stats to FILE (print them
with ``python -m pstats FILE``).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import re
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maai.domain import experiments
from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.domain.frohlich.simulated import SimulatedUtility
from maai.domain.frohlich.state import State
from maai.domain.walk import Decision
from maai.ledger import EventStore
from maai.runtime.engine import Engine, run_engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from maai.runtime.simulated import SimulatedModel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # timing, loaded by file in tests
from timing import measured, thread_cpu_into  # noqa: E402

PRINCIPLES = ("a", "b", "c", "d", None)
CERTAINTIES = ("very_unsure", "unsure", "no_opinion", "sure", "very_sure")
NAMES = ("Alice", "Bob", "Carmen", "Dmitri", "Eun-ji", "Farid", "Grace", "Hiro", "Ines", "Jon")


def bench_config(agents: int, rounds: int, latency_ms: float, seed: int) -> FrohlichConfig:
    """``agents`` simulated participants with varied personas, all at ``latency_ms``."""
    people = []
    for i in range(agents):
        name = NAMES[i] if i < len(NAMES) else f"Agent{i + 1}"
        persona: dict[str, Any] = {
            "certainty": CERTAINTIES[i % len(CERTAINTIES)],
            "stubbornness": round(0.2 + 0.1 * (i % 5), 2),
            "conformity": round(0.8 - 0.1 * (i % 5), 2),
            "verbosity": round(0.3 + 0.1 * (i % 4), 2),
            "error_rate": 0.1,
            "latency_ms": latency_ms,
        }
        if PRINCIPLES[i % len(PRINCIPLES)] is not None:
            persona["preferred_principle"] = PRINCIPLES[i % len(PRINCIPLES)]
        people.append({"name": name, "model": "simulated", "persona": persona})
    data = {
        "name": "run-bench",
        "seed": seed,
        "phase2_rounds": rounds,
        "agents": people,
        "tracing": False,
    }
    return parse_config(data, source="run_bench")


# --- the critical path from the recorded addresses -------------------------------------------

_P2_SPEAKER = re.compile(r"^p2/r(\d+)/[^/]+/(reasoning|statement)$")
_P2_TURN_STAGE = re.compile(r"^p2/r(\d+)/t(\d+)/(poll|ballot)/([^/]+)/")
_P2_ROUND_MEMORY = re.compile(r"^p2/r(\d+)/([^/]+)/memory(/shorten)?$")
_P2_PAYMENT_MEMORY = re.compile(r"^p2/s2\.2/([^/]+)/memory(/shorten)?$")
_P2_FINAL = re.compile(r"^p2/([^/]+)/s2\.3/")
_P1 = re.compile(r"^p1/([^/]+)/")


@dataclass
class Stage:
    """Calls that run side by side, one chain per agent; it costs its longest chain."""

    name: str
    chains: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    @property
    def cost(self) -> int:
        return max(self.chains.values(), default=0)


@dataclass
class RoundShape:
    speaker_calls: int = 0
    stages: list[Stage] = field(default_factory=list)


@dataclass
class CriticalPath:
    phase1: Stage
    rounds: dict[int, RoundShape]
    after_discussion: list[Stage]

    @property
    def calls(self) -> int:
        total = self.phase1.cost
        for shape in self.rounds.values():
            total += shape.speaker_calls + sum(s.cost for s in shape.stages)
        return total + sum(s.cost for s in self.after_discussion)


def base_address(address: str) -> str:
    """The participant call an extraction reads: ``X/extract/1`` -> ``X``."""
    return address.split("/extract/", 1)[0]


def critical_path(addresses: list[str]) -> CriticalPath:
    """The dependency structure of the calls named by ``addresses`` (in recorded order)."""
    phase1 = Stage("phase 1")
    rounds: dict[int, RoundShape] = defaultdict(RoundShape)
    stages: dict[str, Stage] = {}
    after: list[Stage] = []

    def stage(key: str, round_: int | None) -> Stage:
        found = stages.get(key)
        if found is None:
            found = stages[key] = Stage(key)
            if round_ is None:
                after.append(found)
            else:
                rounds[round_].stages.append(found)
        return found

    for address in addresses:
        base = base_address(address)
        if m := _P1.match(base):
            phase1.chains[m.group(1)] += 1
        elif m := _P2_SPEAKER.match(base):
            rounds[int(m.group(1))].speaker_calls += 1
        elif m := _P2_TURN_STAGE.match(base):
            key = f"p2/r{m.group(1)}/t{m.group(2)}/{m.group(3)}"
            stage(key, int(m.group(1))).chains[m.group(4)] += 1
        elif m := _P2_ROUND_MEMORY.match(base):
            stage(f"p2/r{m.group(1)}/memory", int(m.group(1))).chains[m.group(2)] += 1
        elif m := _P2_PAYMENT_MEMORY.match(base):
            stage("p2/s2.2/memory", None).chains[m.group(1)] += 1
        elif m := _P2_FINAL.match(base):
            stage("p2/s2.3/ranking+memory", None).chains[m.group(1)] += 1
        else:
            raise ValueError(f"unexpected call address {address!r}: no place in the structure")
    return CriticalPath(phase1, dict(sorted(rounds.items())), after)


def recorded_addresses(path: Path, run_id: str) -> list[str]:
    """Addresses of the calls that completed, in ledger order (plain SQL, read-only)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT payload FROM events WHERE run_id = ? AND type = 'model.completed' ORDER BY seq",
            (run_id,),
        ).fetchall()
    finally:
        conn.close()
    return [json.loads(payload)["address"] for (payload,) in rows]


# --- the run ----------------------------------------------------------------------------------


@dataclass
class Result:
    wall_s: float
    state: State
    addresses: list[str]
    events: int
    decide_s: dict[int, float]  # time in decide() on the engine's loop, by phase reached
    decides: dict[int, int]
    appends: int  # store transactions
    phase1_wall_s: float  # from the start to the first decide() in Phase 2
    cpu_s: float  # the process's CPU time over the run, all threads
    decide_cpu_s: float  # of which decide(), on the engine's loop
    model_cpu_s: float  # of which the simulated models writing their answers
    append_cpu_s: float  # of which the store's appends, on the writer thread
    requests_built: int  # ModelRequest objects made (rendered) over the run
    full_collections: tuple[int, float]  # the collector's full collections: count, CPU s
    state_repr_s: float  # CPU of one repr of the final state (asyncio.run made two)


def run_once(
    config: FrohlichConfig,
    latency_ms: float,
    synchronous: str,
    folder: Path,
    store_whole: bool = False,
) -> Result:
    path = folder / f"bench-{time.monotonic_ns()}.db"
    decide_s: dict[int, float] = defaultdict(float)
    decides: dict[int, int] = defaultdict(int)
    appends = 0
    cpu = {"decide": 0.0, "model": 0.0, "append": 0.0}
    phase2_at: float | None = None
    frohlich = experiments.get("frohlich")
    real_decide: Callable[[State], Decision] = frohlich.decide

    def walled_decide(state: State) -> Decision:
        nonlocal phase2_at
        started = time.perf_counter()
        if phase2_at is None and state.phase >= 2:
            phase2_at = started
        try:
            return real_decide(state)
        finally:
            decide_s[state.phase] += time.perf_counter() - started
            decides[state.phase] += 1

    timed_decide = thread_cpu_into(cpu, "decide", walled_decide)

    with EventStore.open(str(path), synchronous=synchronous) as store:
        store.pack_repeated_text = not store_whole
        run_id = start_run(store, config)
        real_append = store.append

        def counted_append(*args: Any, **kwargs: Any) -> Any:
            nonlocal appends
            appends += 1
            return real_append(*args, **kwargs)

        store.append = thread_cpu_into(cpu, "append", counted_append)  # type: ignore[method-assign]
        utility = SimulatedModel(SimulatedUtility(seed=config.seed))
        utility.latency_ms = latency_ms
        executor = LiveExecutor(config, models={UTILITY: utility})

        class TimedFrohlich(type(frohlich)):  # type: ignore[misc]
            def decide(self, state: State) -> Decision:
                return timed_decide(state)

        engine = Engine(store, run_id, executor, experiment=TimedFrohlich())
        real_respond = SimulatedModel.respond
        timed_respond = thread_cpu_into(cpu, "model", real_respond)

        real_init = ModelRequest.__init__
        built = 0

        def counted_init(request: ModelRequest, **fields: Any) -> None:
            nonlocal built
            built += 1
            real_init(request, **fields)

        full = [0, 0.0, 0.0]  # count, CPU seconds, when the one under way started

        def collected(phase: str, info: dict[str, int]) -> None:
            if info["generation"] != 2:
                return
            if phase == "start":
                full[2] = time.process_time()
            else:
                full[0] += 1
                full[1] += time.process_time() - full[2]

        SimulatedModel.respond = timed_respond  # type: ignore[method-assign]
        ModelRequest.__init__ = counted_init  # type: ignore[method-assign]
        gc.callbacks.append(collected)
        try:
            with measured() as spent:
                state = run_engine(engine)
        finally:
            SimulatedModel.respond = real_respond  # type: ignore[method-assign]
            ModelRequest.__init__ = real_init  # type: ignore[method-assign]
            gc.callbacks.remove(collected)
        events = store.head(run_id)
    # What ``asyncio.run(engine.run())`` spent twice after the run (``run_engine``).
    with measured() as state_repr:
        repr(state)
    addresses = recorded_addresses(path, run_id)
    wall, started = spent.wall, spent.started
    phase1_wall = (phase2_at if phase2_at is not None else started + wall) - started
    return Result(
        wall,
        state,
        addresses,
        events,
        dict(decide_s),
        dict(decides),
        appends,
        phase1_wall,
        spent.cpu,
        cpu["decide"],
        cpu["model"],
        cpu["append"],
        built,
        (int(full[0]), full[1]),
        state_repr.cpu,
    )


def report(result: Result, latency_ms: float, config: FrohlichConfig) -> dict[str, Any]:
    path = critical_path(result.addresses)
    critical_s = path.calls * latency_ms / 1000
    state = result.state
    by_phase = {
        phase: {"calls": t.calls, "input_tokens": t.input_tokens, "output_tokens": t.output_tokens}
        for phase, t in sorted(state.totals_by_phase.items())
    }
    return {
        "agents": len(config.agents),
        "phase2_rounds_allowed": config.phase2_rounds,
        "phase2_rounds_used": len(path.rounds),
        "latency_ms": latency_ms,
        "events": result.events,
        "calls": len(result.addresses),
        "wall_s": result.wall_s,
        "critical_path_calls": path.calls,
        "critical_path_s": critical_s,
        "ratio": result.wall_s / critical_s if critical_s else float("nan"),
        "phase1_chain_calls": path.phase1.cost,
        "by_phase": by_phase,
        "rounds": {
            r: {
                "speaker_calls": shape.speaker_calls,
                "stages": [(s.name.rsplit("/", 1)[-1], s.cost) for s in shape.stages],
            }
            for r, shape in path.rounds.items()
        },
        "after_discussion": [(s.name, s.cost) for s in path.after_discussion],
        "outcome": state.outcome.describe() if state.outcome else "no agreement",
        "overhead_s": result.wall_s - critical_s,
        "decide_s": {f"phase{p}": round(t, 4) for p, t in sorted(result.decide_s.items())},
        "decides": {f"phase{p}": n for p, n in sorted(result.decides.items())},
        "appends": result.appends,
        "phase1_wall_s": result.phase1_wall_s,
        "phase1_critical_s": path.phase1.cost * latency_ms / 1000,
        "cpu_s": result.cpu_s,
        "decide_cpu_s": result.decide_cpu_s,
        "model_cpu_s": result.model_cpu_s,
        "append_cpu_s": result.append_cpu_s,
        "requests_built_per_call": result.requests_built / max(1, len(result.addresses)),
        "full_collections": result.full_collections[0],
        "full_collections_cpu_s": result.full_collections[1],
        "state_repr_s": result.state_repr_s,
        "engine_cpu_ms_per_call": (result.cpu_s - result.model_cpu_s)
        * 1000
        / max(1, len(result.addresses)),
        "overhead_ms_per_call": (result.wall_s - critical_s) * 1000 / max(1, len(result.addresses)),
    }


def print_report(figures: dict[str, Any]) -> None:
    print(
        f"run: {figures['agents']} simulated agents, {figures['phase2_rounds_used']} of "
        f"{figures['phase2_rounds_allowed']} Phase-2 rounds used ({figures['outcome']}), "
        f"latency {figures['latency_ms']:g} ms per call, {figures['events']} events"
    )
    print(
        f"wall time:      {figures['wall_s']:8.3f} s\n"
        f"critical path:  {figures['critical_path_s']:8.3f} s "
        f"({figures['critical_path_calls']} calls x {figures['latency_ms']:g} ms)\n"
        f"wall / critical path: {figures['ratio']:.3f} (target <= 1.10)"
    )
    print(
        f"model calls: {figures['calls']}; Phase 1 longest chain: {figures['phase1_chain_calls']}"
    )
    for phase, t in figures["by_phase"].items():
        print(
            f"  {phase}: {t['calls']} calls, {t['input_tokens']} input + "
            f"{t['output_tokens']} output tokens"
        )
    print("Phase 2 per round: speakers' own calls | concurrent stages (cost in calls)")
    for r, shape in figures["rounds"].items():
        stages = ", ".join(f"{name} {cost}" for name, cost in shape["stages"])
        print(
            f"  round {r:2d}: {shape['speaker_calls']:3d} | {len(shape['stages'])} stage(s): "
            f"{stages}"
        )
    after = ", ".join(f"{name} {cost}" for name, cost in figures["after_discussion"])
    print(f"  after the discussion: {after}")
    decide_total = sum(figures["decide_s"].values())
    parts = ", ".join(
        f"{phase} {seconds:.3f} s in {figures['decides'][phase]} calls"
        for phase, seconds in figures["decide_s"].items()
    )
    p1_wall, p1_critical = figures["phase1_wall_s"], figures["phase1_critical_s"]
    p2_wall = figures["wall_s"] - p1_wall
    p2_critical = figures["critical_path_s"] - p1_critical
    print(
        f"Phase 1: wall {p1_wall:.3f} s / critical {p1_critical:.3f} s; "
        f"Phase 2: wall {p2_wall:.3f} s / critical {p2_critical:.3f} s"
        + (f" ({p2_wall / p2_critical:.3f})" if p2_critical else "")
    )
    print(
        f"overhead (wall - critical path): {figures['overhead_s']:.3f} s; decide() on the "
        f"engine's loop: {decide_total:.3f} s ({parts}); store appends: {figures['appends']}"
    )
    calls = max(1, figures["calls"])
    rest = (
        figures["cpu_s"]
        - figures["decide_cpu_s"]
        - figures["model_cpu_s"]
        - figures["append_cpu_s"]
    )
    print(
        f"overhead per call: {figures['overhead_ms_per_call']:.3f} ms (wall); CPU: process "
        f"{figures['cpu_s']:.3f} s = decide {figures['decide_cpu_s']:.3f} s + simulated answers "
        f"{figures['model_cpu_s']:.3f} s + appends (writer thread) "
        f"{figures['append_cpu_s']:.3f} s + the rest "
        f"{rest:.3f} s\n"
        f"engine CPU per call (process less simulated answers): "
        f"{figures['engine_cpu_ms_per_call']:.3f} ms; of which decide "
        f"{figures['decide_cpu_s'] * 1000 / calls:.3f} ms, appends "
        f"{figures['append_cpu_s'] * 1000 / calls:.3f} ms; requests built (rendered) per call: "
        f"{figures['requests_built_per_call']:.2f}; full collections of the garbage collector: "
        f"{figures['full_collections']} ({figures['full_collections_cpu_s']:.3f} s); one repr of "
        f"the final state (asyncio.run made two at exit, run_engine none): "
        f"{figures['state_repr_s']:.3f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=1, help="runs; the best is reported")
    parser.add_argument("--synchronous", default="FULL", help="SQLite PRAGMA synchronous")
    parser.add_argument("--profile", type=Path, default=None, help="write cProfile stats here")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--store-whole",
        action="store_true",
        help="store every payload whole (no packing of repeated text), to compare",
    )
    args = parser.parse_args(argv)

    config = bench_config(args.agents, args.rounds, args.latency_ms, args.seed)
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    best: Result | None = None
    with tempfile.TemporaryDirectory(prefix="maai-run-bench-") as tmp:
        for _ in range(max(1, args.repeat)):
            if args.profile is not None:
                profiler = cProfile.Profile()
                profiler.enable()
                result = run_once(
                    config, args.latency_ms, args.synchronous, Path(tmp), args.store_whole
                )
                profiler.disable()
                profiler.dump_stats(str(args.profile))
            else:
                result = run_once(
                    config, args.latency_ms, args.synchronous, Path(tmp), args.store_whole
                )
            if best is None or result.wall_s < best.wall_s:
                best = result
    assert best is not None
    figures = report(best, args.latency_ms, config)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
