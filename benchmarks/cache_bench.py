"""How much of a run's input a provider's prefix cache could reuse, per prompt layout.

    python benchmarks/cache_bench.py [--cells 8x10,16x40] [--ratio 0.25] [--window 16]
        [--what-if memory_first,memory_mid] [--json]

For each cell (agents x Phase-2 rounds) and each Frohlich ``prompt_layout`` (``seed``,
``stable_prefix``), one simulated run is recorded in process (no model, no network; the
benchmark's varied personas of ``run_bench.py``, 0 ms answers) and its requests are read
back. Each request's tokens are counted with ``o200k_base`` (system text, then input, as a
chat request sends them). A request's *cacheable* tokens are its longest common prefix with
an earlier request of the same agent (among its last ``--window`` requests: prefix caches
live minutes, not a whole run), counted as OpenAI's cache counts them: nothing below 1,024
tokens, and beyond that in whole steps of 128 tokens.

Printed per cell and layout: the share of input tokens that are cacheable, over all calls
and over Phase 2's, and the input cost with caching as a share of the cost without it at the
stated price ratio (cached input tokens cost ``--ratio`` times an input token: 0.25 for
GPT-4.1, 0.1 for GPT-5). The target (docs/performance.md): ``stable_prefix`` makes at least
80% of Phase-2 input tokens cacheable on 8 x 10.

``--what-if`` measures other orders of the ``stable_prefix`` run's own texts, each request
reordered as recorded (no run): ``memory_first`` puts the balance and memory before the
public history; ``memory_mid`` puts them between the discussion of earlier rounds and the
current round's. Neither is a layout a run can choose; they say what such a layout would win.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import re
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maai.domain.events import ModelCallRequested
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from maai.runtime.tokens import encoding

MIN_PREFIX = 1_024
STEP = 128
LAYOUTS = ("seed", "stable_prefix")


def _run_bench() -> Any:
    path = Path(__file__).with_name("run_bench.py")
    spec = importlib.util.spec_from_file_location("maai_cache_bench_run_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def record(agents: int, rounds: int, layout: str, folder: Path) -> list[tuple[str, str, str]]:
    """(agent, address, system + input) of every request of one simulated run."""
    config = _run_bench().bench_config(agents, rounds, 0.0, 1)
    config = config.model_copy(update={"prompt_layout": layout})
    with EventStore.open(str(folder / f"{agents}x{rounds}-{layout}.db")) as store:
        run_id = start_run(store, config)
        asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
        history = history_from_stored(run_id, store.read(run_id))
    return [
        (e.request.agent, e.request.address, e.request.system + "\n" + e.request.input)
        for _, e in history.of(ModelCallRequested)
        if e.request.model == "simulated"  # participants (the utility agent is simulated too)
    ]


SEPARATOR = "\n\n---\n\n"  # between the parts of a participant request (domain/frohlich/render.py)
WHAT_IFS = ("memory_first", "memory_mid")


def reordered(text: str, address: str, what_if: str) -> str:
    """A ``stable_prefix`` request's text in the ``what_if`` order (the module's docstring);
    requests without both a public history and the per-step state are left as they are."""
    parts = text.split(SEPARATOR)
    history = next((i for i, p in enumerate(parts) if i and "Public discussion so far:" in p), None)
    state = next((i for i, p in enumerate(parts) if p.startswith("Bank balance:")), None)
    if history is None or state is None or state < history:
        return text
    shown, step = parts[history], parts[state]
    rest = [p for i, p in enumerate(parts) if i not in (history, state)]
    if what_if == "memory_first":
        return SEPARATOR.join([rest[0], step, shown, *rest[1:]])
    found = re.search(r"/r(\d+)/", address)
    cut = shown.find(f"[Round {found.group(1)}]") if found else -1
    if cut < 0:
        return text
    return SEPARATOR.join([rest[0], shown[:cut], step, shown[cut:], *rest[1:]])


def common_prefix(a: str, b: str) -> int:
    """Characters ``a`` and ``b`` share from the start (binary search on C comparisons)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def cached_tokens(prefix_tokens: int) -> int:
    if prefix_tokens < MIN_PREFIX:
        return 0
    return MIN_PREFIX + (prefix_tokens - MIN_PREFIX) // STEP * STEP


@dataclass
class Tally:
    tokens: int = 0
    cacheable: int = 0

    def share(self) -> float:
        return self.cacheable / self.tokens if self.tokens else 0.0

    def cost_units(self, ratio: float) -> float:
        """Input cost with caching, in input tokens' worth."""
        return self.tokens - self.cacheable + self.cacheable * ratio

    def cost_share(self, ratio: float) -> float:
        """Input cost with caching over the cost without it."""
        if not self.tokens:
            return 1.0
        return (self.tokens - self.cacheable + self.cacheable * ratio) / self.tokens


def measure(requests: list[tuple[str, str, str]], window: int) -> dict[str, Tally]:
    enc = encoding("o200k_base")
    earlier: dict[str, list[str]] = defaultdict(list)
    tallies = {"all": Tally(), "phase2": Tally()}
    for agent, address, text in requests:
        tokens = len(enc.encode_ordinary(text))
        shared = max((common_prefix(text, before) for before in earlier[agent]), default=0)
        prefix = len(enc.encode_ordinary(text[:shared])) if shared else 0
        # The prefix's last token may straddle the end of what is shared: one token less.
        cacheable = cached_tokens(max(prefix - 1, 0))
        for key in ("all", "phase2") if address.startswith("p2/") else ("all",):
            tallies[key].tokens += tokens
            tallies[key].cacheable += cacheable
        earlier[agent] = [*earlier[agent][-(window - 1) :], text] if window > 1 else [text]
    return tallies


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="8x10,16x40")
    parser.add_argument("--ratio", type=float, default=0.25)
    parser.add_argument("--window", type=int, default=16)
    parser.add_argument("--what-if", default="", help=f"any of {', '.join(WHAT_IFS)}")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    what_ifs = [w for w in args.what_if.split(",") if w]
    unknown = sorted(set(what_ifs) - set(WHAT_IFS))
    if unknown:
        parser.error(f"--what-if: unknown {', '.join(unknown)} (known: {', '.join(WHAT_IFS)})")
    cells = [tuple(int(x) for x in cell.split("x")) for cell in args.cells.split(",")]
    figures: dict[str, Any] = {"ratio": args.ratio, "window": args.window, "cells": []}
    with tempfile.TemporaryDirectory() as tmp:
        for agents, rounds in cells:
            measured: list[tuple[str, dict[str, Tally]]] = []
            for layout in LAYOUTS:
                requests = record(agents, rounds, layout, Path(tmp))
                measured.append((layout, measure(requests, args.window)))
                if layout == "stable_prefix":
                    for what_if in what_ifs:
                        other = [(a, ad, reordered(t, ad, what_if)) for a, ad, t in requests]
                        measured.append((f"{layout}+{what_if}", measure(other, args.window)))
            for layout, tallies in measured:
                figures["cells"].append(
                    {
                        "cell": f"{agents}x{rounds}",
                        "layout": layout,
                        **{
                            f"{key}_{name}": value
                            for key, tally in tallies.items()
                            for name, value in (
                                ("tokens", tally.tokens),
                                ("cacheable_share", round(tally.share(), 4)),
                                ("cost_share", round(tally.cost_share(args.ratio), 4)),
                                ("cost_units", round(tally.cost_units(args.ratio))),
                            )
                        },
                    }
                )
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"cacheable input tokens (prefix >= {MIN_PREFIX} tokens of one of the agent's last "
            f"{args.window} requests); cost of input with caching at cached = {args.ratio:g} x "
            "input, as a share of the cost without"
        )
        for row in figures["cells"]:
            print(
                f"{row['cell']:>6} {row['layout']:<27} all: {row['all_tokens']:>10,} tokens, "
                f"{row['all_cacheable_share']:.1%} cacheable, cost {row['all_cost_share']:.1%}"
                f" | phase 2: {row['phase2_tokens']:>10,} tokens, "
                f"{row['phase2_cacheable_share']:.1%} cacheable, cost "
                f"{row['phase2_cost_share']:.1%} ({row['phase2_cost_units']:,} input tokens' worth)"
            )
    return figures


if __name__ == "__main__":
    main()
