"""``maai export`` and ``maai audit`` end to end on SQLite ledgers: the generic commands (their
options, errors, files), run on Frohlich's recorded runs, whose exports and audits are the
fullest; the vote audit, Frohlich's alone, is tests/projections/frohlich/test_vote_audit_cli.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maai.domain.events import Event, ModelCallRequested
from maai.domain.frohlich.events import PayoffAwarded, ReasoningRecorded
from maai.projections.frohlich.agent_log import agent_log
from maai.projections.history import History
from maai.projections.jsonout import dumps
from tests.projections.conftest import ENGINE_RUN
from tests.projections.export_cli import invoke, ledger_with, one_error
from tests.projections.tamper import find, index_of, replaced


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
