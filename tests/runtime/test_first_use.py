"""What a new user tries first: ``maai --version``, and ``maai init`` giving example configs
and studies that run as they are."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

from typer.testing import CliRunner

from maai.cli.app import app
from maai.runtime.study import load_study

runner = CliRunner()


def test_version_prints_the_installed_version_and_nothing_else() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"maai {version('maai')}\n"


def test_init_copies_the_example_studies_and_they_plan_from_the_copies(tmp_path: Path) -> None:
    result = runner.invoke(app, ["init", str(tmp_path)])
    assert result.exit_code == 0, result.output
    copied = sorted(p.name for p in (tmp_path / "studies").glob("*.yaml"))
    assert {"u_sweep.yaml", "frohlich_conditions.yaml", "world_pgg_priming.yaml"} <= set(copied)
    for name in copied:
        assert load_study(tmp_path / "studies" / name).runs  # each plans its runs as copied
    status = runner.invoke(
        app,
        [
            "study",
            "status",
            str(tmp_path / "studies" / "u_sweep.yaml"),
            "--db",
            str(tmp_path / "l.db"),
        ],
        env={"COLUMNS": "200"},
    )
    assert status.exit_code == 0, status.output
    assert "u-sweep" in status.stdout


def test_a_packaged_study_runs_by_name(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MAAI_SIGNING_KEY", str(tmp_path / "key.pem"))
    study = load_study("u_sweep")
    assert study.file.study == "u-sweep" and len(study.runs) == 40
    unknown = runner.invoke(app, ["study", "run", "no_such_study", "--db", str(tmp_path / "l.db")])
    assert unknown.exit_code == 2
    assert "no packaged study of that name (packaged: frohlich_conditions, u_sweep" in " ".join(
        unknown.stderr.split()
    )
