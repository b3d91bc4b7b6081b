"""A run recorded by a modified build (a checkout with uncommitted changes:
``provenance.git.dirty`` in its run.started) is named by ``maai show``, ``maai verify`` and
the report; a run of a clean build is not (docs/ledger.md, "Provenance")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.runtime import provenance as provenance_module
from maai.runtime import runs
from tests.e2e.runs import run_in_process, write_config

REPO = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dirty: bool) -> tuple[str, str]:
    built: dict[str, Any] = {
        **provenance_module.provenance(),
        "git": {"commit": COMMIT, "dirty": dirty},
    }
    monkeypatch.setattr(runs, "provenance", lambda: built)
    base = REPO / "configs" / "collaboration.yaml"
    config = write_config(tmp_path / "c.yaml", agents=2, rounds=1, base=base)
    db = str(tmp_path / "ledger.db")
    return db, run_in_process(config, db)


def outputs(db: str, run_id: str, tmp_path: Path) -> dict[str, str]:
    runner = CliRunner()
    found = {}
    for command in (["show"], ["verify"]):
        result = runner.invoke(app, [*command, run_id, "--db", db], env={"COLUMNS": "300"})
        assert result.exit_code == 0, result.output
        found[command[0]] = " ".join(result.output.split())
    page = tmp_path / "report.html"
    result = runner.invoke(app, ["report", run_id, "--db", db, "-o", str(page)])
    assert result.exit_code == 0, result.output
    found["report"] = " ".join(page.read_text(encoding="utf-8").split())
    return found


def test_a_run_of_a_modified_build_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, run_id = recorded(tmp_path, monkeypatch, dirty=True)
    for command, text in outputs(db, run_id, tmp_path).items():
        assert "recorded by a modified build" in text, command
        assert COMMIT[:12] in text, command


def test_a_run_of_a_clean_build_is_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, run_id = recorded(tmp_path, monkeypatch, dirty=False)
    found = outputs(db, run_id, tmp_path)
    for command, text in found.items():
        assert "modified build" not in text, command
    assert f"commit {COMMIT[:12]}" in found["report"]
