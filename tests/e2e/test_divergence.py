"""Divergence: a prompt template changed since a run was recorded makes ``verify`` report a
divergence naming the call (its seq and address) and the first differing line."""

from __future__ import annotations

from pathlib import Path
from string import Template

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.events import ModelCallRequested
from maai.domain.frohlich import prompts
from maai.domain.frohlich.purposes import Purpose
from maai.ledger import EventStore
from maai.runtime.verify import verify_events
from tests.e2e.history import decode
from tests.e2e.runs import Recorded, run_in_process, write_config

ORIGINAL = "think privately"
CHANGED = "think it over privately"


def test_changed_template_makes_verify_name_the_call(
    recorded_run: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EventStore.open(recorded_run.db) as store:
        stored = list(store.read(recorded_run.run_id))
    assert verify_events(stored).ok  # as recorded, with the code as it is
    reasoning = [
        (e.seq, event.request.address)
        for e in stored
        if isinstance(event := decode(e), ModelCallRequested)
        and event.request.purpose == Purpose.REASONING
    ]
    assert reasoning, "the recorded run has no private reasoning calls"

    original = prompts.PROMPTS.template

    def changed(name: str, language: str = "en") -> Template:
        found = original(name, language)
        if name != "reasoning":
            return found
        assert ORIGINAL in found.template
        return Template(found.template.replace(ORIGINAL, CHANGED))

    monkeypatch.setattr(prompts.PROMPTS, "template", changed)

    report = verify_events(stored)
    assert not report.ok
    # Exactly the calls rendered from the changed template, first one first.
    assert [(d.seq, d.address) for d in report.divergences] == reasoning
    first = report.divergences[0]
    assert "request differs" in first.detail
    assert "now '" in first.detail and CHANGED in first.detail and ORIGINAL in first.detail

    result = CliRunner().invoke(app, ["verify", recorded_run.run_id, "--db", recorded_run.db])
    assert result.exit_code == 1
    flat = " ".join(result.output.split())
    seq, address = reasoning[0]
    assert f"divergence seq {seq} ({address}): request differs" in flat
    # The CLI reads requests by address and hash, and rebuilds the differing one to say how.
    assert " ".join(CHANGED.split()) in flat and " ".join(ORIGINAL.split()) in flat


def test_verify_passes_on_an_untouched_run_whatever_the_agent_order(tmp_path: Path) -> None:
    """Regression: poll answers used to be rendered in the key order of the recorded
    ``PollResolved.answers``, which the ledger stores with sorted keys (and PostgreSQL's JSONB
    orders by length): with agents not in alphabetical order, prompts made after a poll came
    out differently once read back, and verify failed on an untouched run."""

    def reverse(data: dict[str, object]) -> None:
        agents = data["agents"]
        assert isinstance(agents, list)
        data["agents"] = agents[::-1]

    config = write_config(tmp_path / "reversed.yaml", agents=5, rounds=10, edit=reverse)
    db = str(tmp_path / "reversed.db")
    run_id = run_in_process(config, db)
    with EventStore.open(db) as store:
        stored = list(store.read(run_id))
    assert any(e.type == "poll.resolved" for e in stored), "no poll: the check proves nothing"
    report = verify_events(stored)
    assert report.ok, [d.describe() for d in report.divergences[:3]]
