"""Commands that never call a model start without importing the model providers (the OpenAI
Agents SDK takes seconds to import) or Alembic (only needed to upgrade a schema)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.driver import make_config

HEAVY = ("agents", "openai", "alembic")


def imported_after(args: list[str], cwd: Path) -> set[str]:
    """Run ``maai ARGS`` in a fresh interpreter; the heavy packages it had imported at exit."""
    code = (
        "import sys, atexit\n"
        f"atexit.register(lambda: print('IMPORTED', *[m for m in {HEAVY!r} if m in sys.modules]))\n"
        f"sys.argv = ['maai', *{args!r}]\n"
        "from maai.cli.app import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("IMPORTED"))
    return set(line.split()[1:])


def test_commands_that_call_no_model_import_neither_the_sdk_nor_alembic(tmp_path: Path) -> None:
    db = str(tmp_path / "ledger.db")
    assert imported_after(["--help"], tmp_path) == set()
    assert imported_after(["db", "upgrade", "--db", db], tmp_path) == {"alembic"}
    assert imported_after(["runs", "--db", db], tmp_path) == set()


def test_run_imports_the_sdk(tmp_path: Path) -> None:
    """The other side: a run goes through the SDK's Model interface."""
    config = tmp_path / "c.yaml"
    config.write_text(make_config(phase2_rounds=1).model_dump_json(), encoding="utf-8")
    imported = imported_after(["run", str(config), "--db", str(tmp_path / "l.db"), "-q"], tmp_path)
    assert "agents" in imported
