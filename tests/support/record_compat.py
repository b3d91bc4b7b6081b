"""Record a compatibility fixture: a finished simulated run and what the code of today says
about it (``tests/compat/test_compat_experiments.py`` checks that later code still says the
same). Run once per experiment when the fixture is made, never to "fix" a failing test: a
failure means later code reads an old ledger differently.

    python -m tests.support.record_compat world tests/fixtures/compat-world
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.runtime.config_files import read_config
from tests.e2e.runs import REPO, run_in_process

# experiment -> (config, changes to it, run id, an agent whose own export is kept)
FIXTURES = {
    "world": (
        "world_pgg.yaml",
        {"embeddings": {"model": "simulated"}},
        "20261125-180000-c0be11",
        "Mona",
    ),
    "world-single-plan": (
        "world_pgg.yaml",
        {"max_plans": None, "embeddings": {"model": "simulated"}},
        "20261125-180000-51e91e",
        "Alice",
    ),
    "collaboration": ("collaboration.yaml", {}, "20261125-180000-c011ab", "Ben"),
}


def outputs(run_id: str, db: str, agent: str | None) -> dict[str, list[str]]:
    found = {
        "summary.json": ["replay", run_id, "--json"],
        "export.json": ["export", run_id],
        "transcript.md": ["export", run_id, "-f", "transcript"],
        "audit_leaks.json": ["audit", "leaks", run_id, "--json"],
        "audit_protocol.json": ["audit", "protocol", run_id, "--json"],
    }
    if agent is not None:
        found[f"export_{agent.lower()}.json"] = ["export", run_id, "--agent", agent]
    return {name: [*args, "--db", db] for name, args in found.items()}


def record(experiment: str, folder: Path) -> None:
    name, changes, run_id, agent = FIXTURES[experiment]
    if folder.exists():
        raise SystemExit(f"{folder} exists: a compatibility fixture is never recorded again")
    golden = folder / "golden"
    golden.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = read_config(REPO / "configs" / name)  # with the files it names read in
        data.update(changes)
        config = Path(tmp) / name
        config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        db = str(Path(tmp) / "ledger.db")
        run_in_process(config, db, run_id=run_id)
        runner = CliRunner()
        for file, args in outputs(run_id, db, agent).items():
            result = runner.invoke(app, args, env={"COLUMNS": "200"})
            assert result.exit_code == 0, result.output
            (golden / file).write_bytes(result.stdout_bytes)
        tables = golden / "tables"
        result = runner.invoke(app, ["export", run_id, "--db", db, "-f", "tables", "--out", tables])
        assert result.exit_code == 0, result.output
        verify = runner.invoke(app, ["verify", run_id, "--db", db], env={"COLUMNS": "200"})
        assert verify.exit_code == 0, verify.output
        with open(db, "rb") as source, gzip.open(folder / "ledger.db.gz", "wb") as target:
            shutil.copyfileobj(source, target)
    for path in list(golden.glob("*.json")):
        if path.stat().st_size > 20_000:  # the exports: kept compressed
            path.with_suffix(".json.gz").write_bytes(gzip.compress(path.read_bytes(), mtime=0))
            path.unlink()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
    ).stdout.strip()
    about = {
        "experiment": experiment.split("-")[0],
        "run_id": run_id,
        "agent": agent,
        "config": name,
        "changes": changes,
        "recorded_by_commit": commit,
        "verify": "; ".join(verify.stdout.removeprefix("ok: ").split("; ")[:2]),
    }
    (folder / "fixture.json").write_text(json.dumps(about, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    record(sys.argv[1], Path(sys.argv[2]))
