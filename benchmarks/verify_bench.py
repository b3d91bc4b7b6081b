"""``maai verify`` timed in process, on ledgers recorded before (by ``scale_bench.py --keep``).

    python benchmarks/verify_bench.py LEDGER.db [LEDGER.db ...] [--repeat 2]

Each ledger's only run is verified through the CLI app (``typer.testing.CliRunner``), as
``maai verify RUN --db LEDGER`` does, minus the interpreter's start-up; the modules ``verify``
imports on first use are included in the first ledger's time, so give each ledger its own
process when comparing (the scale benchmark does). Prints wall and CPU seconds and events/s
per ledger (the best of ``--repeat``), and the log-log slopes of wall and CPU time against
events.

With ``--by-reencoding`` each repeat verifies the ledger twice, alternating: as ``maai verify``
does, the hash chain checked against the stored payload texts (``StoredEvent.hash_holds``),
and as it did before 2026-11-26, each payload parsed and re-encoded to be hashed
(``compute_hash``); it prints both and the ratio of their best CPU times, measured side by
side (the figure to trust on a shared machine). Then the same for ``EventStore.verify_chain``
(what ``replay`` and ``show`` check first): as it is, against the loop it was (every stored
event read, its payload parsed and re-encoded to be hashed).

``--chain-only`` times ``EventStore.verify_chain`` alone (CPU, best of ``--repeat``) instead
of ``maai verify``. ``--against DIR`` compares this checkout with another (say the base of a
change, from ``git archive BASE | tar -x -C DIR``): the same measurement, each in a fresh
process, alternating between the two code trees for ``--rounds`` rounds (``PYTHONPATH=DIR``
puts the other tree's ``maai`` first), then the best CPU time of each and their ratio.
"""

from __future__ import annotations

import argparse
import math
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))  # timing, loaded by file in tests
from timing import measured  # noqa: E402

from maai.cli.app import app  # noqa: E402
from maai.ledger import EventStore  # noqa: E402
from maai.ledger.envelope import GENESIS_HASH, StoredEvent  # noqa: E402

BY_TEXT = StoredEvent.hash_holds


def by_reencoding(self: StoredEvent) -> bool:
    """The chain check of before 2026-11-26: every payload re-encoded to be hashed."""
    return self.compute_hash() == self.hash


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
    parser.add_argument(
        "--by-reencoding",
        action="store_true",
        help="also verify with every payload re-encoded to check the chain (as before), "
        "alternating, and print the ratio",
    )
    parser.add_argument("--chain-only", action="store_true", help="time verify_chain alone")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="with --against")
    args = parser.parse_args(argv)
    if args.against is not None:
        for db in args.ledgers:
            against(db, args.against, args.repeat, args.rounds, args.chain_only)
        return
    if args.chain_only:
        for db in args.ledgers:
            print(f"{db}: verify_chain best cpu {chain_cpu(db, args.repeat):.4f} s", flush=True)
        return
    if args.by_reencoding:
        compare(args.ledgers, max(1, args.repeat))
        return
    runner = CliRunner()
    events: list[float] = []
    walls: list[float] = []
    cpus: list[float] = []
    for db in args.ledgers:
        with sqlite3.connect(db) as raw:
            run_id, head = raw.execute("SELECT run_id, head_seq FROM runs").fetchone()
        best_wall = best_cpu = math.inf
        for _ in range(args.repeat):
            with measured() as spent:
                result = runner.invoke(app, ["verify", run_id, "--db", db])
            if result.exit_code != 0:
                raise SystemExit(f"{db}: verify failed:\n{result.output}")
            best_wall, best_cpu = min(best_wall, spent.wall), min(best_cpu, spent.cpu)
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


def chain_cpu(db: str, repeat: int) -> float:
    """Best CPU seconds of ``EventStore.verify_chain`` on the ledger's only run."""
    with sqlite3.connect(db) as raw:
        (run_id,) = raw.execute("SELECT run_id FROM runs").fetchone()
    best = math.inf
    with EventStore.open(db, read_only=True) as store:
        for _ in range(max(1, repeat)):
            with measured() as spent:
                if not store.verify_chain(run_id).ok:
                    raise SystemExit(f"{db}: the chain is broken")
            best = min(best, spent.cpu)
    return best


def against(db: str, other: Path, repeat: int, rounds: int, chain_only: bool) -> None:
    """This tree and ``other`` timed alternately, each measurement in a fresh process."""
    here = Path(__file__).resolve().parents[1]
    what = "verify_chain" if chain_only else "maai verify"
    best = {here: math.inf, other.resolve(): math.inf}
    command = [sys.executable, __file__, db, "--repeat", str(repeat)]
    command += ["--chain-only"] if chain_only else []
    for _ in range(max(1, rounds)):
        for tree in best:
            # The tree first on the path: its maai, not the one installed in the venv.
            env = {**os.environ, "PYTHONPATH": str(tree)}
            out = subprocess.run(
                command, cwd=tree, env=env, capture_output=True, text=True, check=True
            ).stdout
            cpu = float(out.split(" cpu ")[-1].split(" s")[0])
            best[tree] = min(best[tree], cpu)
            print(f"{db}: {what} with {tree}: cpu {cpu:.4f} s", flush=True)
    ours, theirs = best[here], best[other.resolve()]
    print(
        f"{db}: {what} best cpu, this tree {ours:.4f} s, {other} {theirs:.4f} s; "
        f"ratio {ours / theirs:.3f}"
    )


def compare(ledgers: list[str], repeat: int) -> None:
    runner = CliRunner()
    for db in ledgers:
        with sqlite3.connect(db) as raw:
            run_id, head = raw.execute("SELECT run_id, head_seq FROM runs").fetchone()
        runner.invoke(app, ["verify", run_id, "--db", db])  # the modules verify imports
        best = {"stored text": math.inf, "re-encoding": math.inf}
        try:
            for _ in range(repeat):
                for how, check in (("re-encoding", by_reencoding), ("stored text", BY_TEXT)):
                    StoredEvent.hash_holds = check  # type: ignore[method-assign]
                    cpu = time.process_time()
                    result = runner.invoke(app, ["verify", run_id, "--db", db])
                    cpu = time.process_time() - cpu
                    if result.exit_code != 0:
                        raise SystemExit(f"{db}: verify failed:\n{result.output}")
                    best[how] = min(best[how], cpu)
                    print(f"{db}: chain by {how}: cpu {cpu:.2f} s", flush=True)
        finally:
            StoredEvent.hash_holds = BY_TEXT  # type: ignore[method-assign]
        print(
            f"{db}: {head} events; best cpu by stored text {best['stored text']:.2f} s "
            f"({head / best['stored text']:,.0f} events/s), by re-encoding "
            f"{best['re-encoding']:.2f} s ({head / best['re-encoding']:,.0f} events/s); "
            f"ratio {best['stored text'] / best['re-encoding']:.3f}"
        )
        compare_verify_chain(db, run_id, head, repeat)


class _Every:
    """Every event type (``read(keep_packed=...)``: every payload as stored)."""

    def __contains__(self, item: object) -> bool:
        return True


def chain_by_reencoding(store: EventStore, run_id: str) -> int:
    """``verify_chain``'s loop before 2026-11-26: every payload parsed, re-encoded, hashed."""
    prev_hash, checked = GENESIS_HASH, 0
    for record in store.read(run_id, keep_packed=_Every()):
        if record.prev_hash != prev_hash or record.compute_hash() != record.hash:
            raise SystemExit(f"seq {record.seq} does not hold")
        prev_hash, checked = record.hash, checked + 1
    return checked


def compare_verify_chain(db: str, run_id: str, head: int, repeat: int) -> None:
    best = {"as it is": math.inf, "re-encoding": math.inf}
    with EventStore.open(db, read_only=True) as store:
        for _ in range(max(3, repeat)):
            for how in best:
                cpu = time.process_time()
                if how == "re-encoding":
                    chain_by_reencoding(store, run_id)
                elif not store.verify_chain(run_id).ok:
                    raise SystemExit(f"{db}: the chain is broken")
                best[how] = min(best[how], time.process_time() - cpu)
    print(
        f"{db}: verify_chain {best['as it is']:.3f} s cpu ({head / best['as it is']:,.0f} "
        f"events/s), by re-encoding {best['re-encoding']:.3f} s "
        f"({head / best['re-encoding']:,.0f} events/s); "
        f"ratio {best['as it is'] / best['re-encoding']:.3f}"
    )


if __name__ == "__main__":
    main()
