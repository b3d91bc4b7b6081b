"""Bad-input leftovers. Every command that writes a file or folder (-o, --out) creates the
missing folders of the path it is given (docs/operations.md), and only once its input has
been read: an unknown run leaves no folder. ``maai worker`` and ``maai study submit`` on a
SQLite ledger: one line, exit 2, and no ledger file created."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from maai.cli.app import app

REPO = Path(__file__).resolve().parents[2]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("ledger")
    study = folder / "study.yaml"
    study.write_text(
        yaml.safe_dump(
            {
                "study": "one",
                "base": str(REPO / "configs" / "collaboration.yaml"),
                "factors": {"agents[*].u_value": [0.75]},
                "replicates": 1,
                "seed": 3,
            }
        ),
        encoding="utf-8",
    )
    db = str(folder / "l.db")
    done = invoke("study", "run", str(study), "--db", db, "-q")
    assert done.exit_code == 0, done.output
    return db


RUN = "one.c1.r1"
WRITERS = {
    "export -o": (["export", RUN, "-o"], "x.json"),
    "export transcript -o": (["export", RUN, "-f", "transcript", "-o"], "x.md"),
    "export --out": (["export", RUN, "-f", "tables", "--out"], "tables"),
    "report -o": (["report", RUN, "-o"], "x.html"),
    "receipt -o": (["receipt", RUN, "-o"], "x.json"),
    "study report -o": (["study", "report", "one", "-o"], "x.html"),
    "study export --out": (["study", "export", "one", "--out"], "tables"),
}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_missing_folder_is_created_for_what_is_written(
    command: str, ledger: str, tmp_path: Path
) -> None:
    args, name = WRITERS[command]
    target = tmp_path / "new" / "deeper" / name
    result = invoke(*args, str(target), "--db", ledger)
    assert result.exit_code == 0, result.output
    assert target.is_file() or (target.is_dir() and any(target.iterdir()))


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_bad_input_leaves_no_folder(command: str, ledger: str, tmp_path: Path) -> None:
    args, name = WRITERS[command]
    args = [("no-such-run" if a in (RUN, "one") else a) for a in args]
    result = invoke(*args, str(tmp_path / "new" / name), "--db", ledger)
    assert result.exit_code == 2, result.output
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["worker", "--burst"],
        ["study", "submit", str(REPO / "configs" / "studies" / "u_sweep.yaml")],
    ],
)
@pytest.mark.parametrize("db", ["l.db", "sqlite:///{tmp}/l.db"])
def test_distributed_commands_refuse_sqlite_in_one_line_creating_nothing(
    args: list[str], db: str, tmp_path: Path
) -> None:
    result = invoke(*args, "--db", db.format(tmp=tmp_path) if "{" in db else str(tmp_path / db))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs a PostgreSQL ledger" in lines[0]
    assert list(tmp_path.iterdir()) == []
