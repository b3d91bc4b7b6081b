"""What an export, audit or report holds does not grow with the number of a run's events
(docs/projections.md, "Memory: exports and audits stream"): each event is held compressed
(projections/held.py), calls as positions (projections/calls.py), agent log sections and
tables built as they are written.

Two simulated runs of four agents that never agree, one with 2 discussion rounds and one
with 10 (about 380 and 700 events), are stored and each command runs on both in this
process under ``tracemalloc``, reading 4 events per query (as test_bounded_memory does: a
chunk of a real run's events is small). The peak may grow by less than 2 KB per added event:
the events held decoded, as before, took 3.5–5 KB each, and these commands then peaked
higher by 3.4–5 KB per event. Measured in allocated bytes, not time: not flaky. (The report
once was, by 2.0–4.1 KB per event: its matplotlib figures, reference cycles, piled up until
Python's cycle collector ran, whenever that was; projections/figures.py collects each one
as its SVG is written, and the report now peaks at 2.1 and 2.7 MB, 1.5–1.6 KB per event, in
every repetition.)

Not here: ``audit leaks``, which holds every private text of the run (memories, reasoning,
answers) to search each prompt for them, by design; the JSON export's and the tables'
own output is written as it is made, but a report's page and an audit's report are built
whole (their size is the output's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.runtime import signing
from tests.support.peak_memory import peak_bytes

MAX_GROWTH_PER_EVENT = 2_000
COMMANDS = {
    "export json": ["export", "{run}", "-o", "{tmp}/log.json", "--force"],
    "export transcript": ["export", "{run}", "-f", "transcript", "-o", "{tmp}/t.md", "--force"],
    "export tables": ["export", "{run}", "-f", "tables", "--out", "{tmp}/tables", "--force"],
    "audit protocol": ["audit", "protocol", "{run}", "--json"],
    "audit votes": ["audit", "votes", "{run}", "--json"],
    "report": ["report", "{run}", "-o", "{tmp}/report.html", "--force"],
}

runner = CliRunner()


def config(rounds: int) -> dict[str, Any]:
    agents = [
        {
            "name": f"Agent{i + 1}",
            "model": "simulated",
            # Four camps that never give in: every round is used.
            "persona": {"preferred_principle": "abcd"[i], "stubbornness": 1.0, "conformity": 0.0},
        }
        for i in range(4)
    ]
    return {
        "experiment": "frohlich",
        "name": f"length-{rounds}",
        "seed": 1,
        "phase2_rounds": rounds,
        "agents": agents,
        "memory_words": 300,
        "tracing": False,
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[str, str, int]]:
    """Rounds → (ledger, run id, events) of a short and a long run."""
    folder = tmp_path_factory.mktemp("length")
    signing.load_signer(folder / "key.pem")  # MAAI_SIGNING_KEY must name an existing key
    stored = {}
    for rounds in (2, 10):
        path, db = folder / f"{rounds}.yaml", str(folder / f"{rounds}.db")
        path.write_text(yaml.safe_dump(config(rounds)), "utf-8")
        env = {"MAAI_SIGNING_KEY": str(folder / "key.pem")}
        made = runner.invoke(app, ["run", str(path), "--db", db, "-q"], env=env)
        assert made.exit_code == 0, made.output
        (listed,) = json.loads(runner.invoke(app, ["runs", "--db", db, "--json"]).output)
        stored[rounds] = (db, listed["id"], listed["head_seq"])
    return stored


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_holds_no_more_for_a_longer_run(
    name: str,
    runs: dict[int, tuple[str, str, int]],
    small_read_chunks: None,
    tmp_path: Path,
) -> None:
    peaks, events = [], []
    for db, run_id, count in runs.values():
        args = [a.format(run=run_id, tmp=tmp_path) for a in COMMANDS[name]] + ["--db", db]
        runner.invoke(app, args)  # once untraced: the modules it imports are not the run's
        peaks.append(peak_bytes(args))
        events.append(count)
    assert events[1] > events[0] + 250
    growth = (peaks[1] - peaks[0]) / (events[1] - events[0])
    assert growth < MAX_GROWTH_PER_EVENT, (
        f"{name}: {growth:.0f} bytes more per event ({peaks[0] / 1e6:.2f} MB for {events[0]}"
        f" events, {peaks[1] / 1e6:.2f} MB for {events[1]})"
    )
