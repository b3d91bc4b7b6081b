"""How long each parser takes on degenerate answers, at growing sizes: CPU ms per answer and
ms per KB, so that linear growth (a steady ms per KB) can be told from quadratic (ms per KB
doubling with the size). docs/rules.md "Reading bounds" quotes these figures.

    python benchmarks/parsers_bench.py [--sizes 4000,16000,32000] [--repeat 1]

The answers: runs of spaces and of other whitespace, principle names and decisions repeated,
quotation marks, numbered lines, digits, deep JSON; every parser of every experiment reads
each (the list of parsers is the fuzz suite's, tests/domain/test_parsers_fuzz.py, less the
test machinery).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import measured  # noqa: E402

from maai.domain.collaboration.parsing import (  # noqa: E402
    parse_option,
    parse_percent,
    read_decision,
    read_turn,
)
from maai.domain.extraction import parse_extraction  # noqa: E402
from maai.domain.frohlich.amounts import parse_amount  # noqa: E402
from maai.domain.frohlich.extraction import ChoiceExtraction  # noqa: E402
from maai.domain.frohlich.parsing import (  # noqa: E402
    parse_choice,
    parse_poll_answer,
    parse_ranking,
    parse_vote_proposal,
)
from maai.domain.world.parsing import ActView, read_action, read_scores  # noqa: E402
from maai.domain.world.world import WorldSpec  # noqa: E402

WORLD = WorldSpec.model_validate(
    {
        "locations": [{"name": "Hall"}, {"name": "Booth"}],
        "agents": [{"name": "Ann", "location": "Hall"}, {"name": "Ben", "location": "Hall"}],
    }
)
VIEW = ActView(
    world=WORLD,
    agent="Ann",
    location="Hall",
    present=("Ben",),
    has_plan=True,
    react_asked=False,
    role="player",
    endowment=20,
    players=("Ann", "Ben"),
    max_plans=3,
)
OPTIONS = ["A", "B", "C", "Y"]
PARSERS: dict[str, Callable[[str], Any]] = {
    "frohlich ranking": parse_ranking,
    "frohlich choice": parse_choice,
    "frohlich poll": parse_poll_answer,
    "frohlich proposal": parse_vote_proposal,
    "frohlich amount": parse_amount,
    "collaboration belief": lambda t: parse_percent(t, "belief"),
    "collaboration option": lambda t: parse_option(t, OPTIONS, OPTIONS),
    "collaboration turn": lambda t: read_turn(t, message=True, belief=True, prediction=True),
    "collaboration decision": lambda t: read_decision(t, OPTIONS, OPTIONS),
    "world action": lambda t: read_action(t, VIEW),
    "world scores": lambda t: read_scores(t, 2),
    "utility reply": lambda t: parse_extraction(t, ChoiceExtraction),
}


def answers(size: int) -> dict[str, str]:
    """Degenerate answers of about ``size`` characters."""

    def repeated(piece: str) -> str:
        return piece * max(1, size // len(piece))

    return {
        "spaces": " " * size + "MESSAGE: hi\nBELIEF: 70",
        "mixed whitespace": repeated("\u00a0\t\u3000\n"),
        "principles": repeated("(a) (b) (c) (d) "),
        "decisions": repeated("I choose (c) with $12,000. "),
        "quotes": '"' * size,
        "numbered lines": repeated("1. (a)\n2. (b)\n"),
        "digits": repeated("9 "),
        "deep json": "[" * (size // 2) + "]" * (size // 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4000,16000,32000")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'parser':<24}{'answer':<18}" + "".join(f"{s:>10,} ch" for s in sizes))
    slowest: dict[int, tuple[float, str]] = {}
    for name, parse in PARSERS.items():
        for kind in answers(sizes[0]):
            row = []
            for size in sizes:
                text = answers(size)[kind]
                with measured() as spent:
                    for _ in range(args.repeat):
                        parse(text)
                ms = spent.cpu * 1000 / args.repeat
                row.append(ms)
                if ms > slowest.get(size, (0.0, ""))[0]:
                    slowest[size] = (ms, f"{name} on {kind}")
            print(f"{name:<24}{kind:<18}" + "".join(f"{ms:>10.1f} ms" for ms in row))
    for size in sizes:
        ms, what = slowest[size]
        per_kb = ms / (size / 1024)
        print(f"slowest at {size:,} characters: {ms:.0f} ms ({per_kb:.1f} ms/KB), {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
