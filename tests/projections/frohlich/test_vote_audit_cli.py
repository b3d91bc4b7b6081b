"""``maai audit votes`` on Frohlich's runs: the ballots and polls of each round recounted,
one table a round, laid out for a file when piped, and a forged tally or poll refused."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from maai.cli.vote_table import FILE_WIDTH, print_vote_tables
from maai.domain.events import Event
from maai.domain.frohlich.events import BallotResolved, PollResolved
from maai.projections.frohlich.votes import describe_value as describe_vote
from maai.projections.frohlich.votes import vote_audit
from maai.projections.history import History
from maai.projections.jsonout import dumps
from tests.projections.conftest import ENGINE_RUN
from tests.projections.export_cli import APP, invoke, ledger_with, runner
from tests.projections.tamper import replaced


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
