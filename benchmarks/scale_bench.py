"""How a run's size and the time of everything that reads it grow with the run.

    python benchmarks/scale_bench.py [--experiment frohlich|collaboration|world]
                                     [--agents 3,5,8,16,32] [--rounds 5,10,20,40]
                                     [--all-rounds] [--world free|pgg]
                                     [--commands run,verify,...] [--keep DIR [--reuse]]

For each cell of the grid (agents × Phase-2 rounds) it runs a simulated Frohlich experiment
(simulated participants, no latency; ``--all-rounds`` makes the group never agree, so every
round is used) on a fresh SQLite ledger, then runs ``replay``, ``verify``, ``export`` (JSON
log and tables), ``audit protocol`` and ``audit leaks`` on it (or the ``--commands`` named),
each as the ``maai`` command in a process of its own (``audit votes``, the transcript
export, ``report`` and ``show`` too, when named). With
``--keep DIR --reuse`` a cell whose ledger is already in DIR is not run again: its commands
read that ledger, so two checkouts can be measured on the same runs (run the script with each
checkout's Python). The collaboration game has two agents;
its grid is over ``--rounds``, read as the number of message exchanges (1-10). The world's
grid is agents × ticks (``--rounds`` read as ticks; by default 3,5,10,20 × 10,20,40), on the
worlds of ``benchmarks/world_bench.py``: ``--world free`` (wanderers in five places, the
default) or ``pgg`` (the public-goods game, N-1 players and a moderator).

It prints, per cell: events, the bytes of the ledger file, the bytes of the payloads as
stored, and of the same payloads whole (what the ledger stored before it packed repeated
text: the two side by side are the saving), and the wall time (CPU time in parentheses: on a
shared machine the steadier figure) and peak RSS of each command;
then, over the grid, the log-log slope of ledger bytes and of each command's time against
events (1.0: linear; 2.0: quadratic). The test suite runs a one-cell grid as a smoke test
(tests/test_scale_bench.py); the figures belong in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from maai.runtime.signing import load_signer

PRINCIPLES = ("a", "b", "c", "d")
COMMANDS = ("run", "replay", "verify", "export", "tables", "audit protocol", "audit leaks")
OPTIONAL_COMMANDS = ("audit votes", "transcript", "report", "show")
"""Measured only when ``--commands`` names them (the collaboration game and the world have
no votes)."""
# Runs one maai command and reports its own peak RSS (KiB) and CPU seconds (user + system)
# on its last stderr line.
RUNNER = (
    "import resource, runpy, sys\n"
    "sys.argv = ['maai', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('maai', run_name='__main__')\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "else:\n"
    "    code = 0\n"
    "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print('MAXRSS', usage.ru_maxrss, usage.ru_utime + usage.ru_stime, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@dataclass
class Cell:
    agents: int
    rounds: int
    events: int = 0
    ledger_bytes: int = 0
    stored_payload_bytes: int = 0
    whole_payload_bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    peak_mib: dict[str, float] = field(default_factory=dict)
    # CPU time of each command: on a machine shared with other work, steadier than its wall.
    cpu_seconds: dict[str, float] = field(default_factory=dict)


def config(agents: int, rounds: int, all_rounds: bool) -> dict[str, Any]:
    people = []
    for i in range(agents):
        persona: dict[str, Any] = {"error_rate": 0.05}
        if all_rounds:  # four camps that never give in: no consensus, every round used
            persona.update(preferred_principle=PRINCIPLES[i % 4], stubbornness=1.0, conformity=0.0)
        people.append({"name": f"Agent{i + 1}", "model": "simulated", "persona": persona})
    return {
        "experiment": "frohlich",
        "name": f"scale-{agents}x{rounds}",
        "seed": 1,
        "phase2_rounds": rounds,
        "agents": people,
        "memory_words": 300,
        "tracing": False,
        "labels": {"agents": agents, "rounds": rounds},
    }


def collaboration_config(exchanges: int) -> dict[str, Any]:
    path = Path(__file__).resolve().parent.parent / "configs" / "collaboration.yaml"
    config = yaml.safe_load(path.read_text("utf-8"))
    config.update(
        name=f"scale-collaboration-{exchanges}",
        exchanges=exchanges,
        tracing=False,
        labels={"exchanges": exchanges},
    )
    return config


def world_config(agents: int, ticks: int, world: str) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from world_bench import free_world, pgg_world

    make = free_world if world == "free" else pgg_world
    config = make(agents, ticks, 0.0, 1)
    config["labels"] = {"agents": agents, "ticks": ticks}
    return config


def payload_bytes(db: Path) -> tuple[int, int]:
    """Bytes of the payloads as stored, and of the same payloads unpacked (canonical JSON)."""
    from maai.canonical import canonical_json
    from maai.ledger import EventStore

    with sqlite3.connect(db) as raw:
        stored = raw.execute("SELECT coalesce(sum(length(CAST(payload AS BLOB))), 0) FROM events")
        stored_bytes = int(stored.fetchone()[0])
    whole = 0
    with EventStore.open(str(db), read_only=True) as store:
        for info in store.list_runs():
            for event in store.read(info.run_id):
                whole += len(canonical_json(event.payload).encode())
    return stored_bytes, whole


def maai(args: list[str], env: dict[str, str]) -> tuple[float, float, str, float]:
    """Seconds, peak MiB, stdout and CPU seconds of ``maai ARGS`` in a process of its own."""
    started = time.perf_counter()
    done = subprocess.run(
        # -P: not the current folder first on sys.path, which in another checkout's root
        # would import that checkout's maai (--reuse measures two checkouts).
        [sys.executable, "-P", "-c", RUNNER, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"maai {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    line = next(ln for ln in reversed(done.stderr.splitlines()) if ln.startswith("MAXRSS"))
    _, rss_kib, cpu = line.split()
    return seconds, int(rss_kib) / 1024, done.stdout, float(cpu)


def measure(
    cell: Cell,
    folder: Path,
    all_rounds: bool,
    experiment: str,
    commands: tuple[str, ...],
    world: str = "free",
    reuse: bool = False,
) -> None:
    db = folder / "ledger.db"
    path = folder / "config.yaml"
    if experiment == "collaboration":
        settings = collaboration_config(cell.rounds)
    elif experiment == "world":
        settings = world_config(cell.agents, cell.rounds, world)
    else:
        settings = config(cell.agents, cell.rounds, all_rounds)
    path.write_text(yaml.safe_dump(settings), "utf-8")
    load_signer(folder / "key.pem")  # MAAI_SIGNING_KEY must name an existing key
    env = {**os.environ, "MAAI_SIGNING_KEY": str(folder / "key.pem"), "COLUMNS": "200"}
    if not (reuse and db.exists()):
        measured = maai(["run", str(path), "--db", str(db), "-q"], env)
        cell.seconds["run"], cell.peak_mib["run"], _, cell.cpu_seconds["run"] = measured
    listed = json.loads(maai(["runs", "--db", str(db), "--json"], env)[2])
    run_id, cell.events = listed[0]["id"], listed[0]["head_seq"]
    shutil.rmtree(folder / "out", ignore_errors=True)
    args = {
        "replay": ["replay", run_id, "--json"],
        "verify": ["verify", run_id],
        "export": ["export", run_id, "-o", str(folder / "log.json"), "--force"],
        "tables": ["export", run_id, "-f", "tables", "--out", str(folder / "out"), "--force"],
        "audit protocol": ["audit", "protocol", run_id, "--json"],
        "audit leaks": ["audit", "leaks", run_id, "--json"],
        "audit votes": ["audit", "votes", run_id, "--json"],
        "transcript": ["export", run_id, "-f", "transcript", "-o", str(folder / "t.md"), "--force"],
        "report": ["report", run_id, "-o", str(folder / "report.html"), "--force"],
        "show": ["show", run_id],
    }
    for name, command in args.items():
        if name in commands:
            measured = maai([*command, "--db", str(db)], env)
            cell.seconds[name], cell.peak_mib[name], _, cell.cpu_seconds[name] = measured
    cell.ledger_bytes = sum(p.stat().st_size for p in folder.glob("ledger.db*"))
    cell.stored_payload_bytes, cell.whole_payload_bytes = payload_bytes(db)


def slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of log y against log x (None for fewer than two points)."""
    points = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(points) < 2:
        return None
    mx = sum(p[0] for p in points) / len(points)
    my = sum(p[1] for p in points) / len(points)
    var = sum((p[0] - mx) ** 2 for p in points)
    return None if var == 0 else sum((p[0] - mx) * (p[1] - my) for p in points) / var


def report(cells: list[Cell], commands: tuple[str, ...]) -> dict[str, Any]:
    events = [float(c.events) for c in cells]
    slopes = {"ledger_bytes": slope(events, [float(c.ledger_bytes) for c in cells])}
    slopes["whole_payload_bytes"] = slope(events, [float(c.whole_payload_bytes) for c in cells])
    measured = [name for name in commands if all(name in c.seconds for c in cells)]
    for name in measured:
        slopes[name] = slope(events, [c.seconds[name] for c in cells])
    largest = max(cells, key=lambda c: c.events)
    # Rates on the largest run, as the command sees them (start-up included).
    rates = {name: largest.events / largest.seconds[name] for name in measured}
    return {
        "cells": [c.__dict__ for c in cells],
        "slopes": slopes,
        "largest": {"agents": largest.agents, "rounds": largest.rounds, "events_per_s": rates},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", help="comma-separated agent counts (3,5,8,16,32)")
    parser.add_argument(
        "--rounds", help="comma-separated Phase-2 rounds (5,10,20,40), exchanges or ticks"
    )
    parser.add_argument("--all-rounds", action="store_true", help="the group never agrees")
    parser.add_argument("--keep", type=Path, help="keep the ledgers in this folder")
    parser.add_argument(
        "--reuse", action="store_true", help="with --keep: read the ledgers already there"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--experiment", choices=("frohlich", "collaboration", "world"), default="frohlich"
    )
    parser.add_argument("--world", choices=("free", "pgg"), default="free", help="the world's")
    parser.add_argument(
        "--commands", default=",".join(COMMANDS), help="comma-separated commands to time"
    )
    args = parser.parse_args(argv)
    commands = tuple(c.strip() for c in args.commands.split(",") if c.strip())
    unknown = [c for c in commands if c not in COMMANDS + OPTIONAL_COMMANDS]
    if unknown or ("run" not in commands and not args.reuse):
        choices = ", ".join(COMMANDS + OPTIONAL_COMMANDS)
        parser.error(f"--commands: choose from {choices} (run included, unless --reuse)")
    if args.reuse and args.keep is None:
        parser.error("--reuse reads the ledgers kept in --keep DIR: give it")
    if args.experiment == "collaboration":
        args.agents = "2"
    elif args.experiment == "world":
        args.agents = args.agents or "3,5,10,20"
        args.rounds = args.rounds or "10,20,40"
    args.agents = args.agents or "3,5,8,16,32"
    args.rounds = args.rounds or "5,10,20,40"
    grid = [
        (a, r) for a in map(int, args.agents.split(",")) for r in map(int, args.rounds.split(","))
    ]
    cells = []
    root = args.keep or Path(tempfile.mkdtemp(prefix="maai-scale-"))
    try:
        for agents, rounds in grid:
            folder = root / f"{agents}x{rounds}"
            folder.mkdir(parents=True, exist_ok=True)
            cell = Cell(agents, rounds)
            measure(
                cell, folder, args.all_rounds, args.experiment, commands, args.world, args.reuse
            )
            cells.append(cell)
            if not args.json:
                times = "  ".join(
                    f"{n} {cell.seconds[n]:.2f}s({cell.cpu_seconds[n]:.2f})/{cell.peak_mib[n]:.0f}M"
                    for n in commands
                    if n in cell.seconds
                )
                share = cell.stored_payload_bytes / max(1, cell.whole_payload_bytes)
                print(
                    f"{agents:>3} x {rounds:<3} {cell.events:>7} events "
                    f"{cell.ledger_bytes / 1e6:>8.1f} MB file, payloads "
                    f"{cell.stored_payload_bytes / 1e6:.1f} MB stored of "
                    f"{cell.whole_payload_bytes / 1e6:.1f} MB whole ({share:.1%})  {times}",
                    flush=True,
                )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    figures = report(cells, commands)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, value in figures["slopes"].items():
            print(f"slope of {name} against events: " + ("-" if value is None else f"{value:.2f}"))
        largest = figures["largest"]
        rates = ", ".join(f"{n} {r:,.0f}" for n, r in largest["events_per_s"].items())
        print(f"events/s on the largest run ({largest['agents']} x {largest['rounds']}): {rates}")
    return figures


if __name__ == "__main__":
    main()
