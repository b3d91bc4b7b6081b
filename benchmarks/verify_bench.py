"""``maai verify`` timed in process, on ledgers recorded before (by ``scale_bench.py --keep``).

    python benchmarks/verify_bench.py LEDGER.db [LEDGER.db ...] [--repeat 2]

Each ledger's only run is verified through the CLI app (``typer.testing.CliRunner``), as
``maai verify RUN --db LEDGER`` does, minus the interpreter's start-up; the modules ``verify``
imports on first use are included in the first ledger's time, so give each ledger its own
process when comparing (the scale benchmark does). Prints wall and CPU seconds and events/s
per ledger (the best of ``--repeat``), and the log-log slopes of wall and CPU time against
events.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import time

from typer.testing import CliRunner

from maai.cli.app import app


def slope(xs: list[float], ys: list[float]) -> float | None:
    if len(set(xs)) < 2:
        return None
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ledgers", nargs="+")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    runner = CliRunner()
    events: list[float] = []
    walls: list[float] = []
    cpus: list[float] = []
    for db in args.ledgers:
        with sqlite3.connect(db) as raw:
            run_id, head = raw.execute("SELECT run_id, head_seq FROM runs").fetchone()
        best_wall = best_cpu = math.inf
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            result = runner.invoke(app, ["verify", run_id, "--db", db])
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if result.exit_code != 0:
                raise SystemExit(f"{db}: verify failed:\n{result.output}")
            best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
        events.append(head)
        walls.append(best_wall)
        cpus.append(best_cpu)
        print(
            f"{db}: {head} events, wall {best_wall:.2f} s ({head / best_wall:,.0f} events/s), "
            f"cpu {best_cpu:.2f} s ({head / best_cpu:,.0f} events/s)",
            flush=True,
        )
    fitted = slope(events, walls)
    if fitted is not None:
        # CPU time is the steadier figure on a machine shared with other work.
        print(
            f"slope of wall time against events: {fitted:.2f}; of CPU time: "
            f"{slope(events, cpus):.2f}"
        )


if __name__ == "__main__":
    main()
