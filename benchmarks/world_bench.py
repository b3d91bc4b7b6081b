"""The world experiment's cost: calls and events per tick, and wall time against the
critical path (docs/world.md §4, docs/performance.md "World benchmark").

    python benchmarks/world_bench.py [--world free,pgg] [--agents 5,20] [--ticks 30]
                                     [--latency-ms 50,20,10] [--repeat 1] [--seed 7]
                                     [--synchronous FULL] [--profile FILE] [--json]

For each world, size and latency it generates a simulated world of N agents, runs it for
``--ticks`` ticks with every model call (the utility agent's included) answering after a
fixed latency counted from the call, on a temporary SQLite ledger, through the CLI's
``Engine`` and ``LiveExecutor`` (as ``benchmarks/run_bench.py`` does), and prints:

- calls per tick: mean, max, and by purpose (importance, act, act asked again, extraction);
- events per tick, and the ledger's bytes;
- wall time of ``Engine.run``, and the critical path: in a tick the agents run side by side
  and each agent's calls (its importance call, its action, every answer asked again and every
  extraction) follow each other, while a tick starts only once the last one is applied; so
  a tick costs its longest per-agent chain, and the critical path is the sum over the ticks
  of those chains, times the latency (from the recorded call addresses
  ``w/t<tick>/<agent>/...``);
- wall / critical path (target: at most 1.10), and ``decide()``'s time on the engine's loop;
- CPU time, which a loaded machine does not inflate as it does wall time: the process's over
  the run, and of it ``decide()``, the simulated models writing their answers (a real model's
  work, done elsewhere) and the store's appends (on the writer thread); the engine's own CPU
  per call is the process's less the simulated answers.

Worlds: ``free``, N wanderers in five places (a café with few seats, a library only half of
them may enter), so that every tick has moves, speech, plans ending and new plans, and
observations to score; ``pgg``, the public-goods game with N-1 players and a moderator, with
enough rounds that the game is still on after ``--ticks`` ticks.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maai.domain import experiments
from maai.domain.config import UTILITY
from maai.domain.walk import Decision
from maai.domain.world.config import WorldConfig
from maai.domain.world.simulated import SimulatedUtility
from maai.domain.world.state import State
from maai.ledger import EventStore
from maai.runtime.engine import Engine, run_engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from maai.runtime.simulated import SimulatedModel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # timing, loaded by file in tests
from timing import measured, thread_cpu_into  # noqa: E402

NAMES = ("Ada", "Ben", "Cleo", "Dev", "Eva", "Finn", "Gia", "Hugo", "Ivy", "Jack")
PLACES = ("Square", "Park", "Market", "Cafe", "Library")
WORLDS = ("free", "pgg")


def _name(i: int) -> str:
    return NAMES[i] if i < len(NAMES) else f"Agent{i + 1}"


def free_world(agents: int, ticks: int, latency_ms: float, seed: int) -> dict[str, Any]:
    """``agents`` wanderers in five places; the café seats a quarter of them, the library
    admits every other agent. Plans are short (2-4 ticks), so plans end and new ones are made
    all the time."""
    names = [_name(i) for i in range(agents)]
    members = names[::2]
    people = []
    for i, name in enumerate(names):
        plan_at = PLACES[(i + 1) % len(PLACES)]
        if plan_at == "Library" and name not in members:
            plan_at = "Square"
        people.append(
            {
                "name": name,
                "public_bio": f"{name}, who lives in town.",
                "private_bio": f"{name} keeps a secret diary.",
                "location": PLACES[i % 3],  # Square, Park or Market: no capacity to exceed
                "plan": {"location": plan_at, "description": "meet people", "max_ticks": 3},
                "persona": {"kind": "wanderer", "error_rate": 0.1, "latency_ms": latency_ms},
            }
        )
    return {
        "experiment": "world",
        "name": f"world-bench-free-{agents}",
        "seed": seed,
        "max_ticks": ticks,
        "plan_max_ticks": 4,
        "tracing": False,
        "world": {
            "name": "Bench Town",
            "locations": [
                {"name": "Square", "description": "The town square."},
                {"name": "Park", "description": "A park with benches."},
                {"name": "Market", "description": "A busy market."},
                {
                    "name": "Cafe",
                    "description": "A small café.",
                    "capacity": max(2, agents // 4),
                },
                {"name": "Library", "description": "A library for members.", "allowed": members},
            ],
            "agents": people,
        },
    }


def pgg_world(agents: int, ticks: int, latency_ms: float, seed: int) -> dict[str, Any]:
    """The public-goods game: ``agents - 1`` players (cooperative and selfish in turn) and a
    moderator; rounds enough that the game outlasts ``ticks`` (a round takes at least two
    ticks per player)."""
    players = [_name(i) for i in range(agents - 1)]
    people: list[dict[str, Any]] = [
        {
            "name": name,
            "role": "player",
            "public_bio": f"{name}, a villager.",
            "private_bio": f"{name} has a plan for the points.",
            "location": "Hall",
            "plan": {"location": "Hall", "description": "take part in the game"},
            "persona": {
                "kind": ("cooperative", "selfish")[i % 2],
                "error_rate": 0.1,
                "latency_ms": latency_ms,
            },
        }
        for i, name in enumerate(players)
    ]
    people.append(
        {
            "name": "Moderator",
            "role": "moderator",
            "public_bio": "The moderator.",
            "private_bio": "You keep the game fair.",
            "location": "Hall",
            "plan": {"location": "Booth", "description": "receive the contributions"},
            "persona": {"kind": "moderator", "error_rate": 0.1, "latency_ms": latency_ms},
        }
    )
    return {
        "experiment": "world",
        "name": f"world-bench-pgg-{agents}",
        "seed": seed,
        "max_ticks": ticks,
        "plan_max_ticks": 6,
        "tracing": False,
        "game": {
            "game_room": "Hall",
            "contribution_room": "Booth",
            "rounds": max(1, ticks // 2),
        },
        "world": {
            "name": "Bench Hall",
            "locations": [
                {"name": "Hall", "description": "The hall where the game is played."},
                {"name": "Booth", "description": "One player at a time contributes here."},
            ],
            "agents": people,
        },
    }


def world_config(world: str, agents: int, ticks: int, latency_ms: float, seed: int) -> WorldConfig:
    make = free_world if world == "free" else pgg_world
    return WorldConfig.model_validate(make(agents, ticks, latency_ms, seed))


# --- what the ledger recorded ------------------------------------------------------------

_ADDRESS = re.compile(r"^w/t(\d+)/([^/]+)/(importance|act)/(\d+)(/extract/\d+)?$")


@dataclass(frozen=True)
class Recorded:
    """What the benchmark reads back: each event's type and tick, each completed call."""

    events_per_tick: dict[int, int]
    addresses: list[str]  # completed calls, in ledger order


def recorded(path: Path, run_id: str) -> Recorded:
    """Events by the tick under way when they were recorded (a tick ends with its
    ``world.tick_closed``; what comes before tick 0's first call counts for tick 0), and the
    completed calls' addresses. Plain SQL, read-only."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT type, CASE WHEN type = 'model.completed' THEN payload END "
            "FROM events WHERE run_id = ? ORDER BY seq",
            (run_id,),
        ).fetchall()
    finally:
        conn.close()
    per_tick: Counter[int] = Counter()
    addresses: list[str] = []
    tick = 0
    for kind, payload in rows:
        per_tick[tick] += 1
        if kind == "world.tick_closed":
            tick += 1
        elif payload is not None:
            addresses.append(json.loads(payload)["address"])
    # Events after the last tick closed (the world's end, the run's completion) belong to
    # no tick that was played: counted with the last one.
    if tick in per_tick and tick > 0:
        per_tick[tick - 1] += per_tick.pop(tick)
    return Recorded(dict(sorted(per_tick.items())), addresses)


@dataclass(frozen=True)
class Calls:
    per_tick: dict[int, int]
    by_purpose: dict[str, int]
    # Per tick, the longest chain of one agent's calls (the tick's cost in calls).
    chain_per_tick: dict[int, int]

    @property
    def critical_calls(self) -> int:
        return sum(self.chain_per_tick.values())


def calls_of(addresses: list[str]) -> Calls:
    per_tick: Counter[int] = Counter()
    purposes: Counter[str] = Counter()
    chains: dict[int, Counter[str]] = defaultdict(Counter)
    for address in addresses:
        m = _ADDRESS.match(address)
        if m is None:
            raise ValueError(f"unexpected call address {address!r}: no place in the structure")
        tick, agent, purpose, attempt, extract = m.groups()
        per_tick[int(tick)] += 1
        if extract:
            purposes["extract"] += 1
        elif purpose == "act" and attempt != "1":
            purposes["act asked again"] += 1
        elif purpose == "importance" and attempt != "1":
            purposes["importance asked again"] += 1
        else:
            purposes[purpose] += 1
        # All of one agent's calls in a tick follow each other (docs/world.md §2).
        chains[int(tick)][agent] += 1
    return Calls(
        dict(sorted(per_tick.items())),
        dict(purposes.most_common()),
        {t: max(c.values()) for t, c in sorted(chains.items())},
    )


# --- the run ----------------------------------------------------------------------------


@dataclass
class Result:
    wall_s: float
    state: State
    recorded: Recorded
    ledger_bytes: int
    decide_s: float
    decides: int
    cpu_s: float  # the process's CPU time over the run, all threads
    decide_cpu_s: float  # of which decide(), on the engine's loop
    model_cpu_s: float  # of which the simulated models writing their answers
    append_cpu_s: float  # of which the store's appends, on the writer thread


def run_once(config: WorldConfig, latency_ms: float, synchronous: str, folder: Path) -> Result:
    path = folder / f"world-{time.monotonic_ns()}.db"
    world = experiments.get("world")
    real_decide: Callable[[State], Decision] = world.decide
    spent = {"s": 0.0, "n": 0}
    cpu = {"decide": 0.0, "model": 0.0, "append": 0.0}

    def walled_decide(state: State) -> Decision:
        started = time.perf_counter()
        try:
            return real_decide(state)
        finally:
            spent["s"] += time.perf_counter() - started
            spent["n"] += 1

    timed_decide = thread_cpu_into(cpu, "decide", walled_decide)

    class TimedWorld(type(world)):  # type: ignore[misc]
        def decide(self, state: State) -> Decision:
            return timed_decide(state)

    real_respond = SimulatedModel.respond
    timed_respond = thread_cpu_into(cpu, "model", real_respond)

    with EventStore.open(str(path), synchronous=synchronous) as store:
        run_id = start_run(store, config)
        store.append = thread_cpu_into(cpu, "append", store.append)  # type: ignore[method-assign]
        utility = SimulatedModel(SimulatedUtility(seed=config.seed))
        utility.latency_ms = latency_ms
        executor = LiveExecutor(config, models={UTILITY: utility})
        engine = Engine(store, run_id, executor, experiment=TimedWorld())
        SimulatedModel.respond = timed_respond  # type: ignore[method-assign]
        try:
            with measured() as run:
                state = run_engine(engine)
        finally:
            SimulatedModel.respond = real_respond  # type: ignore[method-assign]
    size = sum(p.stat().st_size for p in folder.glob(f"{path.name}*"))
    return Result(
        run.wall,
        state,
        recorded(path, run_id),
        size,
        spent["s"],
        spent["n"],
        run.cpu,
        cpu["decide"],
        cpu["model"],
        cpu["append"],
    )


def report(result: Result, world: str, latency_ms: float, config: WorldConfig) -> dict[str, Any]:
    calls = calls_of(result.recorded.addresses)
    ticks = max(1, result.state.tick)
    per_tick = [calls.per_tick.get(t, 0) for t in range(ticks)]
    events = result.recorded.events_per_tick
    critical_s = calls.critical_calls * latency_ms / 1000
    return {
        "world": world,
        "agents": len(config.names),
        "ticks": result.state.tick,
        "latency_ms": latency_ms,
        "calls": len(result.recorded.addresses),
        "calls_per_tick_mean": sum(per_tick) / ticks,
        "calls_per_tick_max": max(per_tick),
        "calls_by_purpose": calls.by_purpose,
        "events": sum(events.values()),
        "events_per_tick_mean": sum(events.values()) / ticks,
        "events_per_tick_max": max(events.values()),
        "ledger_bytes": result.ledger_bytes,
        "wall_s": result.wall_s,
        "critical_path_calls": calls.critical_calls,
        "critical_path_s": critical_s,
        "ratio": result.wall_s / critical_s if critical_s else float("nan"),
        "overhead_ms_per_tick": (result.wall_s - critical_s) * 1000 / ticks,
        "decide_s": result.decide_s,
        "decides": result.decides,
        "cpu_s": result.cpu_s,
        "decide_cpu_s": result.decide_cpu_s,
        "model_cpu_s": result.model_cpu_s,
        "append_cpu_s": result.append_cpu_s,
        "engine_cpu_ms_per_call": (result.cpu_s - result.model_cpu_s)
        * 1000
        / max(1, len(result.recorded.addresses)),
        "overhead_ms_per_call": (result.wall_s - critical_s)
        * 1000
        / max(1, len(result.recorded.addresses)),
        "outcome": result.state.ended.reason if result.state.ended else "not finished",
    }


def print_report(f: dict[str, Any]) -> None:
    purposes = ", ".join(f"{k} {v}" for k, v in f["calls_by_purpose"].items())
    print(
        f"{f['world']} world, {f['agents']} agents, {f['ticks']} ticks ({f['outcome']}), "
        f"{f['latency_ms']:g} ms per call\n"
        f"  calls: {f['calls']}; per tick mean {f['calls_per_tick_mean']:.1f}, max "
        f"{f['calls_per_tick_max']}; by purpose: {purposes}\n"
        f"  events: {f['events']}; per tick mean {f['events_per_tick_mean']:.1f}, max "
        f"{f['events_per_tick_max']}; ledger {f['ledger_bytes'] / 1e6:.2f} MB\n"
        f"  wall {f['wall_s']:.3f} s; critical path {f['critical_path_s']:.3f} s "
        f"({f['critical_path_calls']} calls x {f['latency_ms']:g} ms); "
        f"wall / critical path {f['ratio']:.3f} (target <= 1.10)\n"
        f"  overhead {f['overhead_ms_per_tick']:.1f} ms per tick; decide() on the loop "
        f"{f['decide_s']:.3f} s in {f['decides']} calls\n"
        f"  CPU: process {f['cpu_s']:.3f} s = decide {f['decide_cpu_s']:.3f} s + simulated "
        f"answers {f['model_cpu_s']:.3f} s + appends (writer thread) {f['append_cpu_s']:.3f} s "
        f"+ the rest; engine CPU per call (process less simulated answers) "
        f"{f['engine_cpu_ms_per_call']:.3f} ms; overhead per call (wall) "
        f"{f['overhead_ms_per_call']:.3f} ms",
        flush=True,
    )


def _numbers(text: str, kind: type) -> list[Any]:
    return [kind(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", default=",".join(WORLDS), help="free, pgg or both")
    parser.add_argument("--agents", default="5,20", help="comma-separated agent counts")
    parser.add_argument("--ticks", type=int, default=30)
    parser.add_argument("--latency-ms", default="50,20,10", help="comma-separated latencies")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1, help="runs each; the best is reported")
    parser.add_argument("--synchronous", default="FULL", help="SQLite PRAGMA synchronous")
    parser.add_argument("--profile", type=Path, help="write cProfile stats of the last run here")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    worlds = [w.strip() for w in args.world.split(",") if w.strip()]
    if not worlds or any(w not in WORLDS for w in worlds):
        parser.error(f"--world: choose from {', '.join(WORLDS)}")
    if not args.json:
        print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    figures: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="maai-world-bench-") as tmp:
        for world in worlds:
            for agents in _numbers(args.agents, int):
                for latency in _numbers(args.latency_ms, float):
                    config = world_config(world, agents, args.ticks, latency, args.seed)
                    best: Result | None = None
                    for _ in range(max(1, args.repeat)):
                        profiler = cProfile.Profile() if args.profile else None
                        if profiler is not None:
                            profiler.enable()
                        result = run_once(config, latency, args.synchronous, Path(tmp))
                        if profiler is not None:
                            profiler.disable()
                            profiler.dump_stats(str(args.profile))
                        if best is None or result.wall_s < best.wall_s:
                            best = result
                    assert best is not None
                    figures.append(report(best, world, latency, config))
                    if not args.json:
                        print_report(figures[-1])
    if args.json:
        print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
