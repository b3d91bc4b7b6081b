"""The world's ``decide`` per answer, without engine or store, on CPU time (which a loaded
machine disturbs less than wall time): does the work done when an answer arrives grow with
the number of agents, or with how far the tick has got? (docs/performance.md "World
benchmark".)

    python benchmarks/world_decide_bench.py [--world free,pgg] [--agents 5,20] [--ticks 12]
                                            [--batch 1,20] [--repeat 3] [--seed 7]

Drives the world of ``benchmarks/world_bench.py`` (``free`` or ``pgg``, N agents) through
the pure protocol with its simulated participants: after each decision the new calls are
recorded as requested, their requests built (as the engine builds them when it sends the
calls), and ``--batch`` of the calls in flight, drawn at random, are answered (1: answers
trickle in one by one; 20: they come in bursts, as from calls sent together). Each drive starts
with the per-process tables of text vectors empty, as a fresh run does. Prints, for
each world, size and batch, the answers, the decisions, and the CPU time of ``decide`` and
of building the new requests, per answer and per request; the best of ``--repeat`` drives.
The events are the same whatever the batch (``tests/domain/world/test_walk_memo.py``).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import random
import sys
import time
from pathlib import Path
from typing import Any

from maai.domain import embeddings
from maai.domain.calls import ModelAnswer, ModelRequest, Usage
from maai.domain.config import UTILITY
from maai.domain.events import ModelCallCompleted, ModelCallRequested, RunStarted
from maai.domain.world import memory
from maai.domain.world.config import WorldConfig
from maai.domain.world.protocol import decide
from maai.domain.world.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.world.state import State, evolve, initial_state


def _world_bench() -> Any:
    # The worlds are world_bench's; loaded by path (benchmarks/ is no package).
    path = Path(__file__).resolve().parent / "world_bench.py"
    spec = importlib.util.spec_from_file_location("maai_world_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _forget_texts() -> None:
    """Empty the per-process tables of what was derived from texts (local vectors, the
    relevances against a query), which a drive before this one filled: every drive then
    starts as a run in a fresh process does."""
    for cached in (
        memory._relevance_row,
        memory._nonzero,
        embeddings.decode_vector,
        embeddings.local_vector,
    ):
        cached.cache_clear()


def drive(config: WorldConfig, batch: int, seed: int) -> dict[str, float]:
    _forget_texts()
    # As the engine does (runtime/engine.py): what lives before the run is frozen, so that
    # the collector's full passes do not scan it again and again while the run goes on.
    gc.collect()
    gc.freeze()
    try:
        return _drive(config, batch, seed)
    finally:
        gc.unfreeze()


def _drive(config: WorldConfig, batch: int, seed: int) -> dict[str, float]:
    participants = {a.name: SimulatedParticipant(a, config.seed) for a in config.world.agents}
    utility = SimulatedUtility(config.seed)
    rng = random.Random(seed)
    started = RunStarted(
        experiment="world", config=config.model_dump(mode="json"), seed=config.seed
    )
    state: State = evolve(initial_state(), started)
    in_flight: dict[str, ModelRequest] = {}
    decide_s = build_s = 0.0
    decisions = answers = built = derived = 0
    while True:
        clock = time.process_time()
        decision = decide(state)
        decide_s += time.process_time() - clock
        decisions += 1
        derived += len(decision.events)
        state = decision.state
        if decision.done:
            break
        clock = time.process_time()
        new = [c.request for c in decision.needed if c.address not in in_flight]
        build_s += time.process_time() - clock
        built += len(new)
        for request in new:
            in_flight[request.address] = request
            digest = request.request_hash()
            state = evolve(state, ModelCallRequested(request=request, request_hash=digest))
        ready = sorted(in_flight)
        rng.shuffle(ready)
        for address in ready[:batch]:
            request = in_flight.pop(address)
            policy = utility if request.agent == UTILITY else participants[request.agent]
            text = policy.answer(request, request.output_schema)
            completed = ModelCallCompleted(
                address=address,
                agent=request.agent,
                request_hash=request.request_hash(),
                model=request.model,
                answer=ModelAnswer(text=text, usage=Usage(input_tokens=1, output_tokens=1)),
            )
            state = evolve(state, completed)
            answers += 1
    return {
        "answers": answers,
        "decisions": decisions,
        "decide_s": decide_s,
        "build_s": build_s,
        "built": built,
        "events": derived,  # the events decide derived (the same whatever the batch)
        "ticks": state.tick,
    }


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", default="free,pgg")
    parser.add_argument("--agents", default="5,20")
    parser.add_argument("--ticks", type=int, default=12)
    parser.add_argument("--batch", default="1,20", help="answers per decision")
    parser.add_argument("--repeat", type=int, default=3, help="drives each; the best is shown")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    bench = _world_bench()
    rows = []
    for world in args.world.split(","):
        for agents in (int(n) for n in args.agents.split(",")):
            config = bench.world_config(world, agents, args.ticks, 0.0, args.seed)
            for batch in (int(b) for b in args.batch.split(",")):
                runs = [drive(config, batch, args.seed) for _ in range(max(1, args.repeat))]
                best = min(runs, key=lambda r: r["decide_s"] + r["build_s"])
                row = {"world": world, "agents": agents, "batch": batch, **best}
                rows.append(row)
                per_answer = 1000 / best["answers"]
                print(
                    f"{world} {agents:>3} agents, {args.ticks} ticks, batch {batch:>2}: "
                    f"{best['answers']} answers, {best['decisions']} decisions; CPU: decide "
                    f"{best['decide_s'] * per_answer:.3f} ms per answer "
                    f"({best['decide_s'] * 1000 / best['decisions']:.3f} per decision), "
                    f"building {best['build_s'] * 1000 / max(1, best['built']):.3f} ms per "
                    f"request; both {(best['decide_s'] + best['build_s']) * per_answer:.3f} "
                    "ms per answer",
                    flush=True,
                )
    return rows


if __name__ == "__main__":
    main()
