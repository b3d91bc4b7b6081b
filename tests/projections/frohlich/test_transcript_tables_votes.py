"""The transcript, the CSV tables and the vote audit."""

from __future__ import annotations

import csv
import io

from maai.domain.events import Event, ModelCallRequested
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerRejected,
    AnswerUndecided,
    BallotResolved,
    ReasoningRecorded,
    StatementMade,
)
from maai.projections.frohlich.tables import TABLES, data_dictionary, render_tables
from maai.projections.frohlich.transcript import transcript
from maai.projections.frohlich.votes import vote_audit
from maai.projections.history import History, history_from_events


def test_transcript_is_public_only(golden: History) -> None:
    text = transcript(golden)
    for _, said in golden.of(StatementMade):
        for line in said.text.strip().splitlines():
            assert line in text
    for _, thought in golden.of(ReasoningRecorded):
        assert thought.text not in text
    for _, answer in golden.of(AnswerAccepted, AnswerRejected, AnswerUndecided):
        if answer.kind == "ballot":
            assert answer.raw_text not in text
    assert "Speaking order: carol, alice, bob" in text
    assert "alice: yes, bob: no, carol: yes. Not everyone agreed" in text
    assert "(a) Maximizing the floor income: 2; (b) Maximizing the average income: 1" in text
    assert "No agreement after 2 rounds." in text
    assert "Distribution 4 was drawn at random" in text


def test_transcript_of_a_consensus(agreeable_events: list[Event]) -> None:
    text = transcript(history_from_events(agreeable_events))
    assert (
        "Consensus on (c) Maximizing the average income with a floor constraint of $13,000" in text
    )
    assert "The agreed principle selects Distribution" in text


def test_transcript_of_a_run_not_yet_in_phase_2(golden: History) -> None:
    text = transcript(History(golden.run_id, golden.entries[:100]))
    assert "The discussion has not started." in text and "has not ended" in text


def _read(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_tables_have_run_id_first_and_every_column_documented(golden: History) -> None:
    files = render_tables([golden])
    dictionary = data_dictionary()
    for table in TABLES:
        header = files[table.filename].splitlines()[0].split(",")
        assert header[0] == "run_id" and header == table.column_names
        for column in table.column_names:
            assert f"| `{column}` |" in dictionary
        assert f"## {table.filename}" in files["data_dictionary.md"]


def test_table_contents(golden: History) -> None:
    files = render_tables([golden])
    calls = _read(files["model_calls.csv"])
    requested = golden.of(ModelCallRequested)
    assert [c["address"] for c in calls] == [r.request.address for _, r in requested]
    assert {c["status"] for c in calls} == {"completed"}
    utility = [c for c in calls if c["agent"] == "utility"]
    assert utility and all(c["for_agent"] in {"alice", "bob", "carol"} for c in utility)
    rankings = _read(files["rankings.csv"])
    assert len(rankings) == 12 and {r["step"] for r in rankings} == {"1.1", "1.2", "1.4", "2.3"}
    payoffs = _read(files["payoffs.csv"])
    assert [p["status"] for p in payoffs if p["agent"] == "alice"].count("unpaid") == 2
    assert len(_read(files["ballots.csv"])) == 3 and len(_read(files["statements.csv"])) == 6
    cf = _read(files["counterfactuals.csv"])
    assert len(cf) == 4 * len([p for p in payoffs if p["status"] == "paid"])


def test_tables_of_several_runs_stack(golden: History, agreeable_events: list[Event]) -> None:
    other = history_from_events(agreeable_events, run_id="agreeable")
    one = render_tables([golden])
    both = render_tables([golden, other])
    for table in TABLES:
        rows = _read(both[table.filename])
        assert {r["run_id"] for r in rows} <= {"golden-run", "agreeable"}
        assert both[table.filename].startswith(one[table.filename])
    assert {r["run_id"] for r in _read(both["ballots.csv"])} == {"golden-run", "agreeable"}


def test_vote_audit_rows(golden: History) -> None:
    report = vote_audit(golden)
    rows = report["rows"]
    by_seq = {e.seq: e for e in golden.entries}
    for row in rows:
        assert by_seq[row["seq"]].hash == row["hash"]
    kinds = [r["kind"] for r in rows]
    assert kinds.count("proposal") == 2 and kinds.count("poll_result") == 2
    assert kinds.count("ballot") == 3 and kinds.count("ballot_result") == 1
    assert kinds[-1] == "outcome" and report["outcome"]["agreement"] is None
    utility = [r for r in rows if r["source"] == "utility"]
    assert utility[0]["agent"] == "bob" and utility[0]["valid"] is False
    assert utility[0]["via"] == "p2/r2/t1/poll/bob/1/extract/1" and utility[0]["reason"]
    undecided = [r for r in rows if r["kind"] == "poll" and r["valid"] is None]
    assert undecided and undecided[0]["reason"].startswith("undecided")
    counted = [r for r in rows if r["kind"] == "ballot" and r["counted"]]
    assert len(counted) == 3 and all(r["valid"] for r in counted)
    (result,) = [r for r in rows if r["kind"] == "ballot_result"]
    resolved = golden.of(BallotResolved)[0][1]
    assert [line["count"] for line in result["tally"]] == [t.count for t in resolved.tally]
    assert result["consensus"] is False
