"""The collaboration game's exports on a small run with exact expectations: tables (row
counts, predictions beside the partner's actual belief, u*), the transcript, the agent log,
the progress lines, and the views the CLI and the Python API call."""

from __future__ import annotations

import csv
import io

import pytest

from maai.domain import experiments
from maai.domain.collaboration.events import BeliefStated, MessageSent
from maai.domain.events import ModelCallRequested
from maai.projections.collaboration import VIEWS
from maai.projections.collaboration.progress import Progress
from maai.projections.collaboration.tables import TABLES, TYPES, data_dictionary
from maai.projections.history import History, UnknownAgentError, history_from_events
from maai.projections.jsonout import dumps
from maai.projections.schema import COMMON
from tests.projections.collaboration.runs import record, small_config
from tests.projections.tamper import with_config

N = 2  # exchanges of the small run


@pytest.fixture(scope="module")
def small() -> History:
    return record(small_config(), "small-run")[1]


@pytest.fixture(scope="module")
def baseline() -> History:
    return record(small_config(agents=[{"name": "Ada"}], baseline={"p": 0.5}), "base-run")[1]


def rows(history: History, table: str) -> list[dict[str, str]]:
    text = VIEWS.tables([history])[f"{table}.csv"]
    return list(csv.DictReader(io.StringIO(text)))


def test_the_views_are_the_experiments() -> None:
    assert experiments.get("collaboration").views() is VIEWS


def test_row_counts(small: History) -> None:
    assert len(rows(small, "beliefs")) == 2 + 2 * N
    assert len(rows(small, "messages")) == 2 * N
    assert len(rows(small, "decisions")) == 2
    assert len(rows(small, "outcome")) == 1
    assert len(rows(small, "model_calls")) == len(small.of(ModelCallRequested)) == 8


def test_beliefs_table(small: History) -> None:
    table = rows(small, "beliefs")
    assert [(r["agent"], r["step"], r["kind"]) for r in table] == [
        ("Ada", "0", "initial"),
        ("Ben", "0", "initial"),
        ("Ben", "2", "update"),
        ("Ada", "3", "update"),
        ("Ben", "4", "update"),
        ("Ada", "5", "update"),
    ]
    assert [
        (r["belief"], r["prediction"], r["partner_belief"], r["prediction_error"]) for r in table
    ] == [
        ("76", "", "", ""),
        ("52", "", "", ""),
        ("63", "66", "76", "-10"),
        ("79", "92", "63", "29"),
        ("72", "86", "79", "7"),
        ("84", "91", "72", "19"),
    ]
    stated = {e.seq: e.hash for e, _ in small.of(BeliefStated)}
    assert all(stated[int(r["seq"])] == r["hash"] for r in table)
    assert {(r["source"], r["attempt"]) for r in table} == {("parser", "1")}


def test_messages_table(small: History) -> None:
    table = rows(small, "messages")
    assert [(r["index"], r["agent"]) for r in table] == [
        ("1", "Ada"), ("2", "Ben"), ("3", "Ada"), ("4", "Ben"),
    ]  # fmt: skip
    sent = [m.text for _, m in small.of(MessageSent)]
    assert [r["text"] for r in table] == sent
    assert {(r["breaches"], r["breach_text"], r["missing"]) for r in table} == {("0", "", "false")}


def test_decisions_and_outcome_tables(small: History) -> None:
    ada, ben = rows(small, "decisions")
    assert (ada["agent"], ada["option"], ada["strategy"], ada["points"]) == (
        "Ada",
        "A",
        "collaborative",
        "-90",
    )
    assert (ada["u_value"], ada["u_star"], ada["final_belief"]) == ("0.75", "0.6965", "84")
    assert (ben["option"], ben["strategy"], ben["points"], ben["u_star"]) == (
        "Y",
        "individual",
        "50",
        "",
    )
    (outcome,) = rows(small, "outcome")
    assert outcome["outcome"] == "complete" and outcome["reason"] == ""
    assert (outcome["mismatch"], outcome["both_collaborative"], outcome["joint_points"]) == (
        "true",
        "false",
        "-40",
    )
    assert outcome["partner_p"] == outcome["partner_draw"] == ""


def test_u_star_of_the_default_options(small: History) -> None:
    log = VIEWS.agent_log(small, "Ada")
    stars = {o["name"]: o["u_star"] for o in log["agents"]["Ada"]["options"]}
    assert stars == {"A": 0.6965, "B": 0.6934, "C": 0.7065, "Y": None}  # SPEC: .697 .693 .707


def test_the_baseline_tables(baseline: History) -> None:
    assert len(rows(baseline, "beliefs")) == 1 and rows(baseline, "messages") == []
    (outcome,) = rows(baseline, "outcome")
    assert outcome["baseline"] == "true" and outcome["partner_p"] == "0.5"
    assert outcome["partner_collaborates"] in ("true", "false") and outcome["joint_points"] == ""
    assert (
        float(outcome["partner_draw"]) < 0.5 if outcome["partner_collaborates"] == "true" else True
    )


def test_the_data_dictionary_describes_every_column() -> None:
    text = data_dictionary()
    for table in TABLES:
        assert f"## {table.filename}" in text
        for name, description in table.columns:
            kind = {**COMMON, **TYPES}[name]
            row = f"| `{name}` | {kind.dtype} | {kind.unit} | {description} |"
            assert row in text and description


def test_table_rows_for_the_python_api(small: History) -> None:
    built = VIEWS.table_rows(small)
    assert set(built) == {t.name for t in TABLES}
    assert (
        built["beliefs"][2]["prediction_error"] == -10
        and built["outcome"][0]["joint_points"] == -40
    )


def test_the_transcript(small: History) -> None:
    text = VIEWS.transcript(small)
    texts = [m.text for _, m in small.of(MessageSent)]
    positions = [text.index(f"> {t}") for t in dict.fromkeys(texts)]
    assert positions == sorted(positions)
    assert text.count("### Message") == 2 * N
    assert "### Message 1 · Ada → Ben" in text and "### Message 4 · Ben → Ada" in text
    assert (
        "- **private** · Ben after reading it (step 2): belief 63; predicts Ada at 66 "
        "(Ada's latest belief 76, error -10)" in text
    )
    assert "- **private** · Ada when writing it (initial belief): belief 76" in text
    assert "| Ada | A | collaborative | -90 | 0.75 | 0.6965 |" in text
    assert "| Ben | Y | individual | 50 | 0.75 | — |" in text
    assert "- **private** · Ben's reasoning: “My belief is below my threshold.”" in text
    assert "Complete: Ada collaborative, Ben individual (mismatch)." in text
    assert "Points: Ada -90, Ben +50. Joint points: -40." in text
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_the_baseline_transcript_shows_the_lottery(baseline: History) -> None:
    text = VIEWS.transcript(baseline)
    assert "## Conversation" not in text and "## Lottery partner" in text
    assert "Collaborates with probability p = 0.5; the draw was 0." in text


def test_the_agent_log(small: History) -> None:
    log = VIEWS.agent_log(small)
    assert log["format"] == "maai.collaboration_agent_log/1"
    assert list(log["agents"]) == ["Ada", "Ben"] and log["run"]["run_id"] == "small-run"
    ada = log["agents"]["Ada"]
    assert [c["address"] for c in ada["calls"]] == [
        "c/Ada/initial/1", "c/t3/Ada/1", "c/t5/Ada/1", "c/Ada/decision/1",
    ]  # fmt: skip
    first = ada["calls"][0]
    assert first["input"].startswith("Your company and Studline Cars") and first["answer"]["text"]
    assert first["results"][0]["type"] == "answer.accepted" and first["results"][0]["seq"]
    assert [b["belief"] for b in ada["beliefs"]] == [76, 79, 84]
    assert ada["beliefs"][1]["prediction_error"] == 29 and ada["beliefs"][1]["reasoning"]
    assert [m["index"] for m in ada["messages_sent"]] == [1, 3]
    assert ada["decision"]["option"] == "A" and ada["decision"]["u_star"] == 0.6965
    assert ada["points"] == -90 and ada["missing"] == []
    assert log["run"]["outcome"]["joint_points"] == -40
    assert log["run"]["model_usage"]["total"]["calls"] == 8
    assert dumps(log) == dumps(VIEWS.agent_log(small))  # deterministic


def test_an_unknown_agent_is_an_error(small: History) -> None:
    with pytest.raises(UnknownAgentError, match="no agent named 'Zed'"):
        VIEWS.agent_log(small, "Zed")


def test_no_votes_and_the_rules_listed(small: History) -> None:
    assert VIEWS.audit_votes(small) is None
    assert VIEWS.audit_protocol(small).ok and VIEWS.audit_leaks(small).ok
    assert all(r.id and r.spec and r.description for r in VIEWS.protocol_rules())


def test_the_progress_lines(small: History) -> None:
    progress = VIEWS.progress(small.config)
    assert isinstance(progress, Progress)
    lines = [line for e in small.entries for line in progress.lines(e.event, None)]
    assert lines[0] == "[bold]Step 1 · initial beliefs (private)[/bold]"
    assert "  [cyan]Ada[/cyan] initial belief 76" in lines
    first = next(x for x in lines if x.startswith("  1. [cyan]Ada[/cyan] → Ben: "))
    assert len(first) > len("  1. [cyan]Ada[/cyan] → Ben: ") + 20  # the message itself
    assert "rule breach" not in lines[lines.index(first) + 1]
    assert "  [cyan]Ben[/cyan] step 2: belief 63, predicts Ada at 66" in lines
    assert "  [cyan]Ben[/cyan] chooses Y (individual)" in lines
    assert "[bold]Points:[/bold] Ada -90, Ben +50 ([yellow]mismatch[/yellow])" in lines
    assert lines[-1] == "[green]game complete[/green]"


def test_progress_shows_breaches() -> None:
    config = small_config(
        agents=[
            {"name": "Ada", "persona": {"kind": "trusting", "breach_rate": 1.0, "error_rate": 0.0}},
            {"name": "Ben", "persona": {"kind": "cautious", "breach_rate": 1.0, "error_rate": 0.0}},
        ]
    )
    history = record(config)[1]
    progress = VIEWS.progress(config)
    lines = [line for e in history.entries for line in progress.lines(e.event, None)]
    said = next(i for i, x in enumerate(lines) if x.startswith("  1. [cyan]Ada[/cyan] → Ben: "))
    assert lines[said + 1].strip().startswith("[yellow]1 rule breach(es):[/yellow]")


def test_a_run_with_an_unreadable_config_still_projects(small: History) -> None:
    events = [e.event for e in small.entries]
    broken = history_from_events(with_config(events, exchanges="many"))
    assert broken.config is None
    assert VIEWS.transcript(broken).startswith("# Collaboration game")
    assert VIEWS.agent_log(broken)["agents"] == {}
    assert set(VIEWS.tables([broken])) >= {"beliefs.csv", "outcome.csv"}
    assert not VIEWS.audit_leaks(broken).leaks
