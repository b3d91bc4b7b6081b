"""The README's Python example, run as written after the README's ``maai run``: it opens the
ledger that run wrote (the default ledger) and reads that run back."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from tests.e2e.runs import write_config

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_example() -> str:
    (block,) = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    return block


def test_the_readme_example_reads_the_run_the_readme_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A user's machine: the default ledger under $HOME, no --db anywhere.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("MAAI_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    config = write_config(tmp_path / "default.yaml", agents=3, rounds=1)
    ran = CliRunner().invoke(app, ["run", str(config), "-q"])
    assert ran.exit_code == 0, ran.output
    run_id = re.search(r"run id: (\S+)", ran.stdout).group(1)  # type: ignore[union-attr]

    printed = io.StringIO()
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(printed):
        exec(compile(_python_example(), "README.md", "exec"), scope)  # noqa: S102
    lines = printed.getvalue().splitlines()
    assert lines[0].startswith(f"{run_id} completed ")
    run = scope["run"]
    assert run.id == run_id  # type: ignore[attr-defined]
    assert lines[-1] == str(run.summary.outcome)  # type: ignore[attr-defined]
    assert len(scope["choices"]) > 0  # type: ignore[arg-type]
