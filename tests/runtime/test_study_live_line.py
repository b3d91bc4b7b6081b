"""A study's progress line: drawn from its first moment, naming the runs under way, and its
last state printed once (on a terminal the live line goes away first; in a pipe a line the
throttle printed is not printed again)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli import status_line, study_commands
from maai.cli.app import app
from maai.cli.common import CliConsole
from maai.runtime.study import StudyProgress
from tests.runtime.test_study import write_study

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def test_the_line_names_the_runs_under_way_by_cell_and_replicate() -> None:
    progress = StudyProgress(total=12, done=2)
    progress.running = {f"grid.c0{cell}.r{rep}" for cell in (1, 2, 3) for rep in (1, 2)}
    line = study_commands._line(progress)
    assert "running 6 (c01.r1, c01.r2, c02.r1, c02.r2, +2) · " in line
    progress.running = {"grid.c03.r2"}
    assert "running 1 (c03.r2) · " in study_commands._line(progress)
    progress.running = set()
    assert "running 0 · " in study_commands._line(progress)


@pytest.fixture
def small_study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return write_study(tmp_path, factors={"exchanges": [1]}, replicates=3, concurrency=2)


def _final_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("runs 3: done 3 ·")]


def test_on_a_terminal_the_line_is_drawn_at_once_and_the_last_state_printed_once(
    small_study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The timed redraws held off: what is asserted is drawn at once, whatever the machine's
    # speed (a run that ends before a redraw comes is still named).
    monkeypatch.setattr(status_line, "REFRESHES_PER_SECOND", 0.001)
    screen = io.StringIO()
    terminal = CliConsole(file=screen, force_terminal=True, width=250, color_system=None)
    monkeypatch.setattr(study_commands, "out", terminal)
    result = CliRunner().invoke(
        app, ["study", "run", str(small_study), "--db", str(tmp_path / "l.db")]
    )
    assert result.exit_code == 0, result.output
    drawn = screen.getvalue()
    live = re.findall(rf"[{SPINNER}] ([^\r\n\x1b]*)", drawn)
    assert live, drawn
    assert live[0].startswith("runs 3: done 0 · ")  # the first frame, before any run started
    named = [line for line in live if re.search(r"running [12] \(c1\.r\d(, c1\.r\d)?\)", line)]
    assert named, live
    # What stays on the screen: the header, the live frames (each with its spinner, wiped),
    # and the final state once.
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn).replace("\r", "\n")
    assert len(_final_lines(plain)) == 1, plain
    assert plain.rstrip().splitlines()[-1].startswith("runs 3: done 3 ·")


def test_in_a_pipe_the_last_state_is_printed_once(small_study: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["study", "run", str(small_study), "--db", str(tmp_path / "l.db")]
    )
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout
    assert len(_final_lines(result.stdout)) == 1, result.stdout
