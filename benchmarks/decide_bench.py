"""The engine's share of ``decide``: walking the protocol and building the new calls'
requests, with every request built when the engine sends its call (``Call.later``, the
engine's way) against every request built when a walk passes by it (as before), in one
process, alternating, on CPU time (which a loaded machine disturbs less than wall time).

    python benchmarks/decide_bench.py [--agents 16] [--rounds 4] [--repeat 2] [--seed 3]

Drives the Frohlich protocol in memory, without engine or store: after each decision the
new calls are recorded as requested and 1 to 3 of the calls in flight are answered by the
simulated participants (as answers trickle in to the engine), so most decisions pass by many
calls still in flight. Prints the calls made and ``decide`` + building the new requests, in
ms per call, for both ways; the events and requests are the same either way
(``tests/domain/frohlich/test_lazy_calls.py``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from maai.domain import walk
from maai.domain.calls import ModelAnswer, ModelRequest, Usage
from maai.domain.events import ModelCallCompleted, ModelCallRequested, RunStarted
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.domain.frohlich.decide import decide
from maai.domain.frohlich.simulated import build_policy
from maai.domain.frohlich.state import evolve, initial_state


def config_of(agents: int, rounds: int, seed: int) -> FrohlichConfig:
    people = [{"name": f"Agent{i + 1}", "personality": "curious"} for i in range(agents)]
    return parse_config({"seed": seed, "phase2_rounds": rounds, "agents": people})


def drive(config: FrohlichConfig, build_at_once: bool) -> tuple[float, int]:
    """CPU seconds in decide + building the new requests, and the calls made."""
    lazy = walk.Call.__dict__["later"]
    if build_at_once:

        def at_once(
            cls: type[walk.Call], address: str, build: Callable[[], ModelRequest]
        ) -> walk.Call:
            return cls(build())

        walk.Call.later = classmethod(at_once)  # type: ignore[method-assign,assignment]
    try:
        models = {a.name: build_policy(a, seed=config.seed) for a in config.agents}
        utility = build_policy(None, seed=config.seed)
        rng = random.Random(config.seed)
        started = RunStarted(
            experiment="frohlich", config=config.model_dump(mode="json"), seed=config.seed
        )
        state = evolve(initial_state(), started)
        in_flight: dict[str, ModelRequest] = {}
        spent, calls = 0.0, 0
        while True:
            begun = time.process_time()
            decision = decide(state)
            new = [c.request for c in decision.needed if c.address not in in_flight]
            spent += time.process_time() - begun
            state = decision.state
            if decision.done:
                return spent, calls
            for request in new:
                in_flight[request.address] = request
                calls += 1
                hashed = ModelCallRequested(request=request, request_hash=request.request_hash())
                state = evolve(state, hashed)
            for address in rng.sample(sorted(in_flight), k=min(len(in_flight), rng.randint(1, 3))):
                request = in_flight.pop(address)
                model = models.get(request.agent, utility)
                text = model.answer(request, request.output_schema)  # type: ignore[union-attr]
                answer = ModelAnswer(text=text, usage=Usage(input_tokens=1, output_tokens=1))
                done = ModelCallCompleted(
                    address=address,
                    agent=request.agent,
                    request_hash=request.request_hash(),
                    model=request.model,
                    answer=answer,
                )
                state = evolve(state, done)
    finally:
        walk.Call.later = lazy  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    config = config_of(args.agents, args.rounds, args.seed)
    best: dict[bool, float] = {}
    for _ in range(max(1, args.repeat)):
        for at_once in (True, False):
            spent, calls = drive(config, at_once)
            per_call = spent * 1000 / max(1, calls)
            best[at_once] = min(best.get(at_once, per_call), per_call)
            way = "built at once (before)" if at_once else "built when sent (now) "
            print(f"{way}: {calls} calls, decide + new requests {per_call:.3f} ms per call")
    print(
        f"best of {max(1, args.repeat)}: before {best[True]:.3f} ms, now {best[False]:.3f} ms "
        f"per call ({best[True] / best[False]:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
