"""Output to a pipe is never wrapped: a line a user greps for, or the ``maai resume RUN_ID``
they copy, stays on one line however long it is (rich wraps at 80 columns off a terminal)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from maai.ledger import EventStore
from tests.e2e.fake_model import FakeModel, serve_agent
from tests.e2e.launcher import hermetic_env
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import loopback_server


def _maai(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = hermetic_env()
    env.pop("COLUMNS", None)  # as in a shell: nothing tells rich how wide the pipe is
    return subprocess.run(
        [sys.executable, "-m", "maai", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_failed_run_says_how_to_resume_it_on_one_line_in_a_pipe(tmp_path: Path) -> None:
    model = FakeModel()
    model.fail_after(0)
    with loopback_server() as server:
        server.script(*[model.reply] * 100)

        def edit(data: dict[str, Any]) -> None:
            serve_agent(data, "Bob", server.base_url)
            data["retry"] = {"max_attempts": 1, "base_delay_s": 0.01}

        config = write_config(tmp_path / "failing.yaml", agents=3, rounds=1, edit=edit)
        db = str(tmp_path / "l.db")
        done = _maai("run", str(config), "--db", db, home=tmp_path)
    assert done.returncode == 1, done.stderr
    with EventStore.open(db) as store:
        (info,) = store.list_runs()
    lines = done.stderr.splitlines()
    hint = f"The history is saved; when the cause is fixed: maai resume {info.run_id}"
    assert hint in lines, done.stderr
    assert len(hint) > 80
    # The progress lines on stdout say why it failed, unwrapped too.
    (failure,) = [line for line in done.stdout.splitlines() if line.startswith("run failed:")]
    for part in ("agent Bob", "model some-model", "HTTP 500"):
        assert part in failure, failure
