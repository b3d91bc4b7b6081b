"""Exports and audits hold a run's prompts one at a time, never all of them at once
(docs/projections.md, "Memory").

The golden run is stored with every prompt padded by text of its own (unique lines, which the
store cannot pack), so that the prompts together are far larger than anything else the
commands hold. Each command then runs in this process under ``tracemalloc``: its peak must
stay below a third of the prompts' total (they peak at a tenth to a fifth of it). A command
that loads the run whole (every event with its prompt, as
``history_from_stored(store.read(...))`` does) peaks above the total, so reintroducing that
fails here; the measure is allocated bytes, not time, so it is not flaky.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.events import Event, ModelCallRequested, RunStarted
from maai.ledger import EventStore
from maai.runtime.writer import to_new_event
from tests.projections.frohlich.recording import RUN_ID, golden_history
from tests.support.peak_memory import peak_bytes

PADDING_LINES = 6_000  # of 65 characters: about 390 KB more in each of the 82 prompts
COMMANDS = {
    "export json": ["export", RUN_ID, "-o", "{tmp}/log.json", "--force"],
    "export transcript": ["export", RUN_ID, "-f", "transcript", "-o", "{tmp}/t.md", "--force"],
    "export tables": ["export", RUN_ID, "-f", "tables", "--out", "{tmp}/tables", "--force"],
    "audit protocol": ["audit", "protocol", RUN_ID, "--json"],
    "audit leaks": ["audit", "leaks", RUN_ID, "--json"],
    "audit votes": ["audit", "votes", RUN_ID, "--json"],
    "report": ["report", RUN_ID, "-o", "{tmp}/report.html", "--force"],
}

runner = CliRunner()


def padded(event: Event, seq: int) -> Event:
    """A request with lines of its own appended to its input, its hash recomputed."""
    if not isinstance(event, ModelCallRequested):
        return event
    lines = (hashlib.sha256(f"{seq}/{i}".encode()).hexdigest() for i in range(PADDING_LINES))
    padding = "".join(f"\n{line}" for line in lines)
    request = event.request.model_copy(update={"input": event.request.input + padding})
    return event.model_copy(update={"request": request, "request_hash": request.request_hash()})


@pytest.fixture(scope="module")
def padded_ledger(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int]:
    """The golden run with padded prompts in a SQLite ledger, and the prompts' total size."""
    events = [padded(e.event, e.seq) for e in golden_history().entries]
    url = str(tmp_path_factory.mktemp("padded") / "ledger.db")
    with EventStore.open(url) as store:
        started = events[0]
        assert isinstance(started, RunStarted)
        store.create_run(RUN_ID, "frohlich", started.config)
        store.append(RUN_ID, 0, [to_new_event(e) for e in events])
    total = sum(
        len(e.request.system) + len(e.request.input)
        for e in events
        if isinstance(e, ModelCallRequested)
    )
    return url, total


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_holds_one_prompt_at_a_time(
    name: str, padded_ledger: tuple[str, int], small_read_chunks: None, tmp_path: Path
) -> None:
    url, total = padded_ledger
    args = [a.format(tmp=tmp_path) for a in COMMANDS[name]] + ["--db", url]
    runner.invoke(app, args)  # once untraced: the modules it imports are not the run's memory
    peak = peak_bytes(args)
    assert total > 30_000_000
    assert peak < total / 3, f"{name}: peak {peak / 1e6:.1f} MB for {total / 1e6:.1f} MB"
