"""``maai export`` and ``maai audit`` end to end on SQLite ledgers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner, Result

from maai.cli.export_commands import register
from maai.cli.vote_table import FILE_WIDTH, print_vote_tables
from maai.domain.events import Event, ModelCallRequested, RunStarted
from maai.domain.frohlich.events import (
    BallotResolved,
    PayoffAwarded,
    PollResolved,
    ReasoningRecorded,
)
from maai.ledger import EventStore
from maai.projections.frohlich.agent_log import agent_log
from maai.projections.frohlich.votes import describe_value as describe_vote
from maai.projections.frohlich.votes import vote_audit
from maai.projections.history import History
from maai.projections.jsonout import dumps
from maai.runtime.writer import to_new_event
from tests.projections.conftest import ENGINE_RUN
from tests.projections.tamper import find, index_of, replaced

runner = CliRunner()


def make_app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return app


APP = make_app()


def invoke(*args: str) -> Result:
    # A wide terminal, so that rich tables keep each cell on one line.
    return runner.invoke(APP, list(args), env={"COLUMNS": "200"})


def ledger_with(path: Path, runs: dict[str, list[Event]]) -> str:
    url = str(path / "ledger.db")
    with EventStore.open(url) as store:
        for run_id, events in runs.items():
            started = events[0]
            assert isinstance(started, RunStarted)
            store.create_run(run_id, "frohlich", started.config)
            store.append(run_id, 0, [to_new_event(e) for e in events])
    return url


def one_error(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_help_texts() -> None:
    for args in (
        ["export"],
        ["audit"],
        ["audit", "votes"],
        ["audit", "leaks"],
        ["audit", "protocol"],
    ):
        result = invoke(*args, "--help")
        assert result.exit_code == 0 and "Usage" in result.stdout
    assert "transcript" in invoke("export", "--help").stdout


def test_export_json_is_the_projection_and_deterministic(
    engine_ledger: str, engine_history: History
) -> None:
    first = invoke("export", ENGINE_RUN, "--db", engine_ledger)
    second = invoke("export", ENGINE_RUN[:8], "--db", engine_ledger)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout == dumps(agent_log(engine_history))
    assert json.loads(first.stdout)["run"]["status"] == "completed"


def test_export_one_agent_to_a_file_and_unknown_agent(engine_ledger: str, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "bob.json"
    result = invoke("export", ENGINE_RUN, "--db", engine_ledger, "--agent", "bob", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert list(json.loads(out.read_text())["agents"]) == ["bob"]
    bad = invoke("export", ENGINE_RUN, "--db", engine_ledger, "--agent", "dave")
    assert bad.exit_code == 2
    line = one_error(bad)
    assert ENGINE_RUN in line and "'dave'" in line and "alice, bob, carol" in line


def test_export_transcript(engine_ledger: str) -> None:
    result = invoke("export", ENGINE_RUN, "--db", engine_ledger, "--format", "transcript")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"# Phase-2 discussion of run {ENGINE_RUN}")


def test_export_tables_of_several_runs(
    engine_ledger: str, golden_events: list[Event], tmp_path: Path
) -> None:
    url = ledger_with(tmp_path, {"run-a": golden_events, "run-b": golden_events})
    out = tmp_path / "tables"
    result = invoke("export", "--all", "--db", url, "--format", "tables", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "data_dictionary.md").exists()
    rows = (out / "payoffs.csv").read_text().splitlines()
    assert rows[0].startswith("run_id,") and {r.split(",")[0] for r in rows[1:]} == {
        "run-a",
        "run-b",
    }
    one = tmp_path / "one"
    result = invoke("export", "run-b", "--db", url, "-f", "tables", "--out", str(one))
    assert result.exit_code == 0
    assert {r.split(",")[0] for r in (one / "ballots.csv").read_text().splitlines()[1:]} == {
        "run-b"
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "a", "b"], "exactly one run"),
        (["export", "a", "--out", "d"], "--out DIR is for --format tables"),
        (["export", "a", "-f", "tables"], "give --out DIR"),
        (["export", "a", "-f", "tables", "--out", "d", "--all"], "not both"),
        (["export", "a", "-f", "transcript", "--agent", "x"], "--agent works with --format json"),
        (["export", "nope"], "no run with id 'nope'"),
        (["audit", "protocol", "nope"], "no run with id 'nope'"),
    ],
)
def test_usage_errors_are_one_line(engine_ledger: str, args: list[str], message: str) -> None:
    result = invoke(*args, "--db", engine_ledger)
    assert result.exit_code == 2
    assert message in one_error(result)


def test_unwritable_output_names_the_file(engine_ledger: str, tmp_path: Path) -> None:
    result = invoke("export", ENGINE_RUN, "--db", engine_ledger, "-o", str(tmp_path))
    assert result.exit_code == 2 and str(tmp_path) in one_error(result)


def test_audit_votes(engine_ledger: str, engine_history: History) -> None:
    as_json = invoke("audit", "votes", ENGINE_RUN, "--db", engine_ledger, "--json")
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout) == json.loads(dumps(vote_audit(engine_history)))
    table = invoke("audit", "votes", ENGINE_RUN, "--db", engine_ledger)
    assert table.exit_code == 0
    assert "(a): 2; (b): 1 → no consensus" in table.stdout
    assert "outcome: no agreement after 2 round(s)" in table.stdout


def test_audit_votes_written_to_a_file_reads_across(
    engine_ledger: str, engine_history: History
) -> None:
    """Piped or redirected (no terminal, no ``COLUMNS``), the vote tables are laid out for
    ``FILE_WIDTH`` columns: each value on one line, not one character per line as rich's 80
    columns left them."""
    result = runner.invoke(
        APP, ["audit", "votes", ENGINE_RUN, "--db", engine_ledger], env={"COLUMNS": None}
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) == FILE_WIDTH
    assert any("│ proposes a vote " in line for line in lines)
    assert "(a): 2; (b): 1 → no consensus" in result.stdout
    assert [line.strip() for line in lines if line.strip().startswith("round ")] == ["round 2"]


def test_the_vote_audit_prints_one_table_per_round_with_the_same_columns(
    engine_history: History,
) -> None:
    """Each round's rows in a table of its own (built and written one at a time), every row
    in one of them, in seq order, the columns in the same places in every table; a
    terminal's width is kept."""
    rows = vote_audit(engine_history)["rows"]
    later = [{**row, "seq": row["seq"] + 1000, "round": 13, "agent": "Bartholomew"} for row in rows]
    last = {**rows[-1], "seq": 99999, "round": None}
    shown = io.StringIO()
    console = Console(file=shown, width=120, force_terminal=True, color_system=None)
    print_vote_tables(console, "r", [*rows, *later, last], describe_vote)
    lines = shown.getvalue().splitlines()
    titles = [line.strip() for line in lines if line.strip().startswith(("round", "no round"))]
    assert titles == ["round 2", "round 13", "no round"]
    seqs = [line.split("│")[1].strip() for line in lines if line.startswith("│ ")]
    assert [s for s in seqs if s] == [str(r["seq"]) for r in [*rows, *later, last]]
    headers = [line for line in lines if line.startswith("┃ seq")]
    assert len(headers) == 3 and len(set(headers)) == 1
    assert max(len(line) for line in lines) == 120


def test_audits_pass_on_a_clean_run(engine_ledger: str) -> None:
    for kind in ("leaks", "protocol"):
        result = invoke("audit", kind, ENGINE_RUN, "--db", engine_ledger)
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith("ok: ")


def test_audits_fail_on_a_broken_run(golden_events: list[Event], tmp_path: Path) -> None:
    events = replaced(golden_events, PayoffAwarded, balance_cents=1)
    i = index_of(events, ModelCallRequested, lambda r: r.request.address == "p2/r2/carol/statement")
    leaky = events[i]
    assert isinstance(leaky, ModelCallRequested)
    secret = find(events, ReasoningRecorded, lambda r: r.agent == "alice").text
    request = leaky.request.model_copy(update={"input": f"{leaky.request.input}\n{secret}"})
    events[i] = leaky.model_copy(
        update={"request": request, "request_hash": request.request_hash()}
    )
    url = ledger_with(tmp_path, {"broken": events})

    leaks = invoke("audit", "leaks", "broken", "--db", url)
    assert leaks.exit_code == 1
    assert "prompt of carol contains the private reasoning of alice" in leaks.stdout
    protocol = invoke("audit", "protocol", "broken", "--db", url)
    assert protocol.exit_code == 1
    assert "violation bank_balance at seq" in protocol.stdout
    as_json = json.loads(invoke("audit", "protocol", "broken", "--db", url, "--json").stdout)
    # The leaky prompt no longer has the hash its answer was given for; the forged balance
    # is caught by the recomputation and by what the agent was told.
    assert {v["rule"] for v in as_json["violations"]} == {
        "bank_balance",
        "calls_paired",
        "reference_payoffs",
        "prompt_round_outcome",
    }


def test_audit_votes_exits_1_on_a_forged_tally_or_poll(
    agreeable_events: list[Event], tmp_path: Path
) -> None:
    """``audit votes`` recounts the tallies, consensus and polls from the ballots and answers:
    a listing that only repeated the record would pass forged ballots."""
    url = ledger_with(tmp_path, {"clean": list(agreeable_events)})
    assert invoke("audit", "votes", "clean", "--db", url).exit_code == 0
    forged = replaced(agreeable_events, BallotResolved, consensus=False, agreement=None)
    (tmp_path / "f").mkdir()
    url = ledger_with(tmp_path / "f", {"forged": forged})
    result = invoke("audit", "votes", "forged", "--db", url, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["rows"]  # the listing is still printed
    assert "inconsistent seq" in result.stderr and "consensus=False" in result.stderr
    poll = replaced(agreeable_events, PollResolved, lambda p: p.passed, passed=False)
    (tmp_path / "p").mkdir()
    url = ledger_with(tmp_path / "p", {"poll": poll})
    assert invoke("audit", "votes", "poll", "--db", url).exit_code == 1
