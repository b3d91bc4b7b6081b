"""Whole simulated runs in Spanish, in Mandarin and with agents of three languages: the
ledger verifies and every audit passes (docs/frohlich.md, Languages); exports keep the
participants' words as they were written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from tests.e2e.launcher import REPO
from tests.e2e.runs import run_in_process

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.mark.parametrize(
    ("config_name", "spoken"),
    [
        ("frohlich_es.yaml", "PROPONGO UNA VOTACIÓN"),
        ("frohlich_zh.yaml", "我提议投票"),
        ("frohlich_multilingual.yaml", "PROPONGO UNA VOTACIÓN"),
    ],
)
def test_a_run_in_another_language_verifies_and_passes_every_audit(
    tmp_path: Path, config_name: str, spoken: str
) -> None:
    db = str(tmp_path / "ledger.db")
    run_id = run_in_process(REPO / "configs" / config_name, db)
    verified = invoke("verify", run_id, "--db", db)
    assert verified.exit_code == 0, verified.output
    for audit in ("votes", "leaks", "protocol"):
        result = invoke("audit", audit, run_id, "--db", db)
        assert result.exit_code == 0, (audit, result.output[-3000:])
    out = tmp_path / "log.json"
    exported = invoke("export", run_id, "--db", db, "-o", str(out))
    assert exported.exit_code == 0, exported.output
    log = json.loads(out.read_text(encoding="utf-8"))
    assert spoken in json.dumps(log, ensure_ascii=False)  # as written, not translated
    transcript = invoke("export", run_id, "--db", db, "--format", "transcript")
    assert transcript.exit_code == 0 and spoken in transcript.output
