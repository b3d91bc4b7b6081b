"""A fourth experiment forks by declaring its points and changeable fields alone
(docs/experiments.md "Forks"): the ultimatum game names ``response``, lets a player's model
and temperature change after it, and refuses the pie."""

from __future__ import annotations

import json
from pathlib import Path

from maai.cli.app import app
from maai.ledger import EventStore, StoredEvent
from typer.testing import CliRunner, Result


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def _logical(event: StoredEvent) -> str:
    payload = dict(event.payload)
    if isinstance(payload.get("answer"), dict):
        payload["answer"] = {k: v for k, v in payload["answer"].items() if k != "latency_ms"}
    return json.dumps([event.type, payload, event.agent], sort_keys=True)


def test_the_ultimatum_game_forks_at_its_named_point(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    assert invoke("run", "ultimatum", "--db", db, "-q").exit_code == 0
    with EventStore.open(db) as store:
        (parent,) = [r.run_id for r in store.list_runs()]
    listed = invoke("fork", parent, "--list-points", "--db", db)
    assert listed.exit_code == 0 and listed.output.startswith("response"), listed.output

    refused = invoke("fork", parent, "--at", "response", "--set", "pie=20", "--db", db)
    assert refused.exit_code == 2
    assert "pie: cannot change after response" in refused.output

    done = invoke("fork", parent, "--at", "response", "--same-draws", "--db", db, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        (child,) = [r.run_id for r in store.list_runs() if r.run_id != parent]
        mine, theirs = list(store.read(child)), list(store.read(parent))
    forked = next(e for e in mine if e.type == "run.forked")
    assert forked.payload["point"] == "response"
    own = [_logical(e) for e in mine[forked.seq :] if e.type != "run.signed"]
    same = [_logical(e) for e in theirs[forked.seq - 1 :] if e.type != "run.signed"]
    assert own == same  # with the parent's draws and no change, it goes on as the parent did
    verified = invoke("verify", child, "--db", db)
    assert verified.exit_code == 0, verified.output

    changed = invoke(
        "fork", parent, "--at", "response", "--set", "agents.Ben.temperature=0.9", "--db", db, "-q"
    )
    assert changed.exit_code == 0, changed.output
