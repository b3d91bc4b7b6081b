"""The live status line of a single run: on a terminal one line, redrawn, names the calls in
flight, how long they have waited and the step; in a pipe there is no such line."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli import run_commands
from maai.cli.app import app
from maai.cli.common import CliConsole
from maai.domain.calls import ModelAnswer, ModelRequest
from maai.runtime import live_status
from maai.runtime.live_status import LiveStatus, WatchedExecutor
from tests.e2e.fake_model import FakeModel, serve_agent
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import Reply, error_body, loopback_server

runner = CliRunner()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_status_names_the_calls_in_flight_the_oldest_wait_notes_and_the_step() -> None:
    clock = Clock()
    status = LiveStatus(clock)
    assert status.text() == "no call in flight · starting"
    status.set_step("Alice  1.3 paid   round 2/4")
    first = status.call_started()
    clock.now += 5
    second = status.call_started()
    clock.now += 7
    assert status.text() == "2 calls in flight, waiting 12 s · Alice 1.3 paid round 2/4"
    status.set_note("rate", "openai: rate limited, retrying in 20 s")
    status.call_ended(first)
    assert status.text() == (
        "1 call in flight, waiting 7 s · openai: rate limited, retrying in 20 s"
        " · Alice 1.3 paid round 2/4"
    )
    status.set_note("rate", None)
    status.call_ended(second)
    assert status.in_flight == 0 and status.waited_s() == 0.0
    assert status.text() == "no call in flight · Alice 1.3 paid round 2/4"


def test_a_timed_note_counts_down_the_wait_it_names() -> None:
    clock = Clock()
    status = LiveStatus(clock)
    status.set_note("p2/Bob/r1/statement/1", "p2/Bob/r1/statement/1: HTTP 429", for_s=20)
    clock.now += 5.2
    assert (
        status.text() == "no call in flight · p2/Bob/r1/statement/1: HTTP 429, 15 s left · starting"
    )
    clock.now += 30  # a wait that overruns its count shows 0, not a negative time
    assert "HTTP 429, 0 s left" in status.text()


def test_a_watched_executor_counts_a_call_while_it_waits_and_after_it_fails() -> None:
    status = LiveStatus()
    seen: list[int] = []

    class Inner:
        async def execute(self, request: ModelRequest, on_attempt_failed: object) -> ModelAnswer:
            seen.append(status.in_flight)
            raise RuntimeError("the model is down")

    with pytest.raises(RuntimeError):
        asyncio.run(WatchedExecutor(Inner(), status).execute(None, print))  # type: ignore[arg-type]
    assert seen == [1] and status.in_flight == 0


def test_code_inside_a_shown_run_finds_its_status() -> None:
    assert live_status.current() is None
    status = LiveStatus()

    async def note() -> None:
        found = live_status.current()
        assert found is status
        found.set_note("wait", "waiting for a slot")

    with live_status.showing(status):
        asyncio.run(note())
    assert live_status.current() is None
    assert "waiting for a slot" in status.text()


@pytest.fixture
def slow_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # A simulated model that takes its time: 250 ms a call.
    return write_config(tmp_path / "slow.yaml", agents=2, rounds=1, latency_ms=250)


def test_a_run_on_a_terminal_shows_a_live_line_of_its_calls_and_step(
    slow_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen = io.StringIO()
    terminal = CliConsole(file=screen, force_terminal=True, width=200, color_system=None)
    monkeypatch.setattr(run_commands, "out", terminal)
    result = runner.invoke(app, ["run", str(slow_config), "--db", str(tmp_path / "l.db")])
    assert result.exit_code == 0, result.output
    drawn = screen.getvalue()
    lines = set(re.findall(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ([^\r\n\x1b]*)", drawn))
    flying = {line for line in lines if re.match(r"[12] calls? in flight, waiting \d+ s · ", line)}
    assert len(flying) >= 3, lines  # redrawn as the run moves on
    steps = {line.split(" · ", 1)[1] for line in flying}
    assert any(re.fullmatch(r"(Alice|Bob) 1\.\d .+", step) for step in steps), steps
    # Transient: once the run ends the line is gone, and the summary follows the progress.
    assert drawn.rstrip().splitlines()[-1].startswith("model calls: ")


def test_a_run_in_a_pipe_prints_plain_lines_and_no_live_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "quick.yaml", agents=2, rounds=1)
    result = runner.invoke(app, ["run", str(config), "--db", str(tmp_path / "l.db")])
    assert result.exit_code == 0, result.output
    assert "in flight" not in result.output and "\x1b" not in result.output
    assert "Alice 1.1 initial ranking\n" in result.stdout
    # Not wrapped at 80 columns: the summary's long line is whole.
    (calls,) = [line for line in result.stdout.splitlines() if line.startswith("model calls: ")]
    assert len(calls) > 80 and calls.endswith("failed attempts: 0"), calls


BUSY_REPLIES = 3  # 429s before the server answers
BusyConfig = Callable[..., Path]


@pytest.fixture
def busy_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BusyConfig]:
    """Alice talks to the fake model over loopback, whose first answers are 429s asking for a
    wait of 0.4 s each; the others are simulated. Called with ``retry.max_wait_s`` or not."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    model = FakeModel()
    busy = Reply(
        429,
        error_body("Rate limit reached for requests", "requests"),
        headers={"retry-after-ms": "400"},
    )
    with loopback_server() as server:
        server.script(*[busy] * BUSY_REPLIES, *[model.reply] * 1_000)

        def make(max_wait_s: float | None = None) -> Path:
            def edit(data: dict[str, Any]) -> None:
                serve_agent(data, "Alice", server.base_url)
                if max_wait_s is not None:
                    data["retry"] = {"max_wait_s": max_wait_s}

            return write_config(tmp_path / "busy.yaml", agents=2, rounds=1, edit=edit)

        yield make


def test_a_busy_server_shows_a_live_wait_and_prints_its_failure_once_on_a_terminal(
    busy_config: BusyConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen = io.StringIO()
    terminal = CliConsole(file=screen, force_terminal=True, width=250, color_system=None)
    monkeypatch.setattr(run_commands, "out", terminal)
    result = runner.invoke(app, ["run", str(busy_config()), "--db", str(tmp_path / "b.db")])
    assert result.exit_code == 0, result.output
    drawn = screen.getvalue()
    live = set(re.findall(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ([^\r\n\x1b]*)", drawn))
    waits = {line for line in live if "HTTP 429, waiting for the server" in line}
    assert waits, live
    shape = r"\(attempt [123]; [\d.]+ of 600 s allowed\), \d+ s left"
    assert all(re.search(shape, wait) for wait in waits), waits
    # The failure is printed once, above the live line, not once per attempt.
    printed = [line for line in drawn.splitlines() if "Rate limit reached" in line]
    assert len(printed) == 1, printed
    assert "the server is busy: waiting 0.4 s, then asking again (attempt 1)" in printed[0]
    assert printed[0].count("p1/Alice/") == 1  # the step named once, no repeated prefixes
    # Once answered the note is gone: the last drawn frames no longer wait.
    assert "waiting for the server" not in drawn.rstrip().splitlines()[-1]


def test_a_busy_server_in_a_pipe_prints_its_failure_once_and_no_live_line(
    busy_config: BusyConfig, tmp_path: Path
) -> None:
    result = runner.invoke(app, ["run", str(busy_config()), "--db", str(tmp_path / "b.db")])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "waiting for the server" not in result.output
    printed = [line for line in result.output.splitlines() if "Rate limit reached" in line]
    assert len(printed) == 1, result.output
    assert printed[0].strip().startswith("p1/Alice/") and "(attempt 1)" in printed[0]
    # Every attempt is still recorded, the one line printed notwithstanding.
    assert f"failed attempts: {BUSY_REPLIES}" in result.output


def test_a_server_busy_past_the_total_wait_fails_the_run_saying_so_once(
    busy_config: BusyConfig, tmp_path: Path
) -> None:
    result = runner.invoke(app, ["run", str(busy_config(1)), "--db", str(tmp_path / "b.db")])
    assert result.exit_code == 1, result.output
    lines = [line.strip() for line in result.output.splitlines() if "Rate limit" in line]
    # The first failure, then the run's: the attempt in between is not printed.
    assert len(lines) == 2, result.output
    first, failed = lines
    assert first.startswith("p1/Alice/") and "(attempt 1)" in first
    assert failed.startswith("run failed: model call failed: agent Alice, step ranking (p1/Alice/")
    # Whose call it was is said once, and the wait in the units it was asked for.
    assert failed.count("Alice,") == 1 and failed.count("model some-model") == 1, failed
    assert "asks for a wait of 0.4 s, over the 0.2 s left of retry.max_wait_s" in failed


def test_a_study_on_a_terminal_shows_a_busy_servers_wait_on_its_line(
    busy_config: BusyConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maai.cli import study_commands

    study = tmp_path / "study.yaml"
    study.write_text(
        yaml.safe_dump({"study": "busy", "base": str(busy_config()), "replicates": 1}),
        encoding="utf-8",
    )
    screen = io.StringIO()
    terminal = CliConsole(file=screen, force_terminal=True, width=400, color_system=None)
    monkeypatch.setattr(study_commands, "out", terminal)
    result = runner.invoke(app, ["study", "run", str(study), "--db", str(tmp_path / "s.db")])
    assert result.exit_code == 0, result.output
    live = set(re.findall(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ([^\r\n\x1b]*)", screen.getvalue()))
    waits = [line for line in live if "HTTP 429, waiting for the server" in line]
    assert waits, live
    # The study's own progress first, the wait after it, counting down.
    assert all(line.startswith("runs 1: ") and re.search(r"\d+ s left$", line) for line in waits)
    assert "waiting for the server" not in screen.getvalue().rstrip().splitlines()[-1]
