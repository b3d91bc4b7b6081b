"""How fast ``maai view`` answers: a long run's first screen, the runs page of many runs, and
a new event on a run's page after its commit.

    python benchmarks/view_bench.py [--agents 32] [--rounds 40] [--runs 1000] [--events 20]
                                    [--keep DIR] [--json]

It makes, on a fresh SQLite ledger (or the one kept in ``DIR``): a simulated Frohlich run of
``--agents`` × ``--rounds`` in which the group never agrees (every round used, as in
``scale_bench.py``), and ``--runs`` small runs (copies of a 3-agent, 1-round run under new
ids). Then it starts ``maai view`` on that ledger, in a process of its own, and measures over
HTTP:

- how long ``maai view`` takes to listen (it imports the experiments and reads every run's
  config first, so that the first request pays for neither);
- the first screen of the long run's page (``/runs/ID``: its facts and the first 100 lines of
  its timeline; the rest and the other parts are fetched after it), the first request after
  the start (cold) and the next (warm);
- the runs page (``/``: the newest 50 of the runs, folded for their outcome, tokens and cost;
  rows not folded within 0.15 s come as pending and the page asks again), cold, warm, and
  once the viewer's start-up folding is done (5 s later);
- a new event on screen after its commit: a run is appended one statement at a time while a
  client polls ``/runs/ID/live`` as the page's script does (every 0.5 s, starting at a random
  moment); the time from each commit to the answer that carries it, over ``--events`` events
  (mean and worst). The browser's own work on that answer (one insertion) is not counted.

The targets (issue 34): first screen within 1 s, runs page of 1,000 runs within 0.5 s, a new
event within 1 s. The smoke test runs it at a tiny size (tests/test_view_bench.py); the
figures belong in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

from maai.ledger import EventStore, NewEvent
from maai.runtime.signing import load_signer

POLL_S = 0.5  # as static/live.js
SETTLE_S = 5.0
PRINCIPLES = ("a", "b", "c", "d")


def config(agents: int, rounds: int) -> dict[str, Any]:
    people = []
    for i in range(agents):
        persona = {
            "error_rate": 0.05,
            "preferred_principle": PRINCIPLES[i % 4],
            "stubbornness": 1.0,
            "conformity": 0.0,
        }
        people.append({"name": f"Agent{i + 1}", "model": "simulated", "persona": persona})
    return {
        "experiment": "frohlich",
        "name": f"view-{agents}x{rounds}",
        "seed": 1,
        "phase2_rounds": rounds,
        "agents": people,
        "memory_words": 300,
        "tracing": False,
    }


def maai_run(folder: Path, db: Path, agents: int, rounds: int) -> str:
    path = folder / f"{agents}x{rounds}.yaml"
    path.write_text(yaml.safe_dump(config(agents, rounds)), encoding="utf-8")
    before = run_ids(db)
    done = subprocess.run(
        [sys.executable, "-m", "maai", "run", str(path), "--db", str(db)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"maai run failed ({done.returncode}):\n{done.stderr}")
    (new,) = run_ids(db) - before
    return new


def run_ids(db: Path) -> set[str]:
    if not db.exists():
        return set()
    with EventStore.open(str(db)) as store:
        return {info.run_id for info in store.list_runs()}


def copies(db: Path, source: str, count: int, prefix: str = "copy") -> None:
    """``count`` runs holding the events of run ``source``, under new ids."""
    with EventStore.open(str(db)) as store:
        info = store.get_run(source)
        events = [
            NewEvent(s.type, s.payload, s.agent, s.schema_version) for s in store.read(source)
        ]
        have = {i.run_id for i in store.list_runs()}
        for n in range(count):
            run_id = f"{prefix}-{n:05d}"
            if run_id in have:
                continue
            store.create_run(run_id, info.kind, info.config)
            store.append(run_id, 0, events)
            store.set_status(run_id, info.status)


def named_run(db: Path, name: str) -> str | None:
    """The first run whose config is named ``name`` (the bench's own, kept with --keep)."""
    if not db.exists():
        return None
    with EventStore.open(str(db)) as store:
        for info in store.list_runs():
            if info.config.get("name") == name:
                return info.run_id
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve(db: Path) -> tuple[subprocess.Popen[bytes], str, float]:
    """``maai view`` on ``db`` in a process of its own; the base URL and the seconds it took
    to listen (it reads what the first pages need before it does)."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "maai", "view", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"maai view exited:\n{process.stderr.read().decode()}")  # type: ignore[union-attr]
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process, f"http://127.0.0.1:{port}", time.perf_counter() - started
        time.sleep(0.05)
    process.kill()
    raise SystemExit("maai view did not start within 60 s")


def timed_get(client: httpx.Client, url: str) -> tuple[float, int]:
    started = time.perf_counter()
    response = client.get(url)
    response.raise_for_status()
    return time.perf_counter() - started, len(response.content)


def new_event_latencies(
    db: Path, client: httpx.Client, base: str, source: str, events: int
) -> list[float]:
    """Seconds from each commit to the poll answer that carries it."""
    with EventStore.open(str(db)) as store:
        stored = list(store.read(source))
        statements = [s for s in stored if s.type == "statement.made"]
        if not statements:
            raise SystemExit(f"run {source} has no statement to append")
        run_id = f"live-{int(time.time() * 1000)}"
        info = store.get_run(source)
        store.create_run(run_id, info.kind, info.config)
        first = statements[0].seq - 1
        store.append(run_id, 0, [NewEvent(s.type, s.payload, s.agent) for s in stored[:first]])
        store.set_status(run_id, "running")
    head = first
    latencies: list[float] = []
    for n in range(events):
        committed: dict[str, float] = {}
        record = statements[n % len(statements)]

        def commit(
            record: Any = record, head: int = head, committed: dict[str, float] = committed
        ) -> None:
            time.sleep(random.uniform(0, POLL_S))
            with EventStore.open(str(db)) as writer:
                writer.append(run_id, head, [NewEvent(record.type, record.payload, record.agent)])
            committed["at"] = time.perf_counter()

        writer = threading.Thread(target=commit)
        writer.start()
        while True:
            asked = time.perf_counter()
            live = client.get(f"{base}/runs/{run_id}/live", params={"after": head}).json()
            if live["head"] > head and 'data-type="statement.made"' in live["html"]:
                writer.join()
                latencies.append(time.perf_counter() - committed["at"])
                head = live["head"]
                break
            time.sleep(max(0.0, POLL_S - (time.perf_counter() - asked)))
    return latencies


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--events", type=int, default=20, help="new events to time")
    parser.add_argument("--keep", type=Path, help="make (or reuse) the ledger in this folder")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="maai-view-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "ledger.db"
    load_signer()  # the runs sign their heads: a key must exist
    long_id = named_run(db, f"view-{args.agents}x{args.rounds}") or maai_run(
        folder, db, args.agents, args.rounds
    )
    small = named_run(db, "view-3x1") or maai_run(folder, db, 3, 1)
    copies(db, small, args.runs - len(run_ids(db) - {f"copy-{n:05d}" for n in range(args.runs)}))
    with EventStore.open(str(db)) as store:
        long_events = store.get_run(long_id).head_seq
        total_runs = len(store.list_runs())
    process, base, start_s = serve(db)
    try:
        with httpx.Client(timeout=120) as client:
            first_cold, first_bytes = timed_get(client, f"{base}/runs/{long_id}")
            first_warm, _ = timed_get(client, f"{base}/runs/{long_id}")
            runs_cold, runs_bytes = timed_get(client, f"{base}/")
            runs_warm, _ = timed_get(client, f"{base}/")
            time.sleep(SETTLE_S)  # the viewer's start-up folding of the newest runs is done
            runs_settled, _ = timed_get(client, f"{base}/")
            latencies = new_event_latencies(db, client, base, small, args.events)
    finally:
        process.terminate()
        process.wait(timeout=10)
    figures = {
        "long_run": {"agents": args.agents, "rounds": args.rounds, "events": long_events},
        "start_s": start_s,
        "first_screen_s": {"cold": first_cold, "warm": first_warm, "bytes": first_bytes},
        "runs": total_runs,
        "runs_page_s": {
            "cold": runs_cold,
            "warm": runs_warm,
            "settled": runs_settled,
            "bytes": runs_bytes,
        },
        "new_event_s": {
            "events": len(latencies),
            "mean": sum(latencies) / len(latencies) if latencies else None,
            "worst": max(latencies) if latencies else None,
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"long run: {args.agents} agents x {args.rounds} rounds, {long_events} events")
        print(f"maai view listening {start_s:.3f} s after its start")
        print(
            f"first screen of its page: {first_cold:.3f} s cold, {first_warm:.3f} s warm"
            f" ({first_bytes:,} bytes)"
        )
        print(
            f"runs page of {total_runs} runs: {runs_cold:.3f} s cold, {runs_warm:.3f} s warm,"
            f" {runs_settled:.3f} s {SETTLE_S:.0f} s later"
        )
        worst = figures["new_event_s"]["worst"]
        mean = figures["new_event_s"]["mean"]
        if latencies:
            print(
                f"new event on the page after its commit: mean {mean:.3f} s, worst {worst:.3f} s"
                f" over {len(latencies)} events (polling every {POLL_S} s)"
            )
    return figures


if __name__ == "__main__":
    main()
