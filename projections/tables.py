"""Flat CSV tables for pandas and R, one row per fact, stacked over runs with ``run_id`` as
the first column of every table. Each table declares its columns with a description, and the
data dictionary is generated from those declarations, so the two cannot drift apart."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from maai.projections import table_rows as rows
from maai.projections.history import History

Row = dict[str, Any]


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: tuple[tuple[str, str], ...]  # (name, description)
    rows: Callable[[History], Iterable[Row]]

    @property
    def filename(self) -> str:
        return f"{self.name}.csv"

    @property
    def column_names(self) -> list[str]:
        return [name for name, _ in self.columns]


RUN_ID = ("run_id", "The run (as listed by `maai runs`).")
AGENT = ("agent", "The participant's name.")
SEQ = ("seq", "Sequence number of the event in the run's ledger (1 = first).")
HASH = ("hash", "Hash of that event in the ledger's hash chain (cite it to prove provenance).")
SOURCE = ("source", "Who read the answer: `parser` (deterministic) or `utility` (utility agent).")
ATTEMPT = ("attempt", "Which attempt (1-based) produced the accepted answer.")
STATUS = ("status", "`accepted`, or `missing` when no valid answer came within the attempts.")
PRINCIPLE = ("principle", "Principle letter: a floor, b average, c floor constraint, d range.")
AMOUNT = ("amount", "Constraint amount in dollars for (c)/(d); empty for (a)/(b).")
ROUND2 = ("round", "Discussion round (Phase 2).")
TURN = ("turn", "Turn within the round (1 = first speaker).")

TABLES: tuple[Table, ...] = (
    Table(
        "rankings",
        "One row per ranking of the four principles (steps 1.1, 1.2, 1.4 and 2.3).",
        (
            RUN_ID,
            AGENT,
            ("step", "Protocol step: 1.1, 1.2, 1.4 (Phase 1) or 2.3 (after Phase 2)."),
            STATUS,
            ("rank_1", "Principle ranked best."),
            ("rank_2", "Principle ranked second."),
            ("rank_3", "Principle ranked third."),
            ("rank_4", "Principle ranked worst."),
            ("certainty", "very_unsure, unsure, no_opinion, sure or very_sure."),
            SOURCE,
            ATTEMPT,
            SEQ,
            HASH,
        ),
        rows.rankings,
    ),
    Table(
        "choices",
        "One row per Phase-1 round (1.3): the principle each agent chose.",
        (
            RUN_ID,
            AGENT,
            ("round", "Phase-1 round, 1 to 4."),
            ("multiplier", "Multiplier of that round's table (1.0 in round 1)."),
            STATUS,
            PRINCIPLE,
            AMOUNT,
            SOURCE,
            ATTEMPT,
            SEQ,
            HASH,
        ),
        rows.choices,
    ),
    Table(
        "payoffs",
        "One row per payment: four Phase-1 rounds (paid or unpaid) and the Phase-2 payment.",
        (
            RUN_ID,
            AGENT,
            ("scope", "`phase1` or `phase2`."),
            ("round", "Phase-1 round (1-4); empty for Phase 2."),
            ("status", "`paid`, or `unpaid` when the round's choice was missing."),
            ("principle", "Principle that picked the distribution (empty: Phase 2 drawn)."),
            AMOUNT,
            ("distribution", "Number of the distribution the payment follows."),
            ("constraint_satisfied", "false when no distribution met the constraint."),
            ("income_class", "Income class drawn for the agent."),
            ("income", "Income in dollars in that class and distribution."),
            ("payoff_cents", "Payoff in cents (income / 100, half to even)."),
            ("balance_cents", "Bank balance in cents after this payment."),
            ("multiplier", "Multiplier of the table the payment used."),
            ("reason", "Why an unpaid round was not paid."),
            SEQ,
            HASH,
        ),
        rows.payoffs,
    ),
    Table(
        "counterfactuals",
        "What every distribution would have paid the agent in the same class, per payment.",
        (
            RUN_ID,
            AGENT,
            ("scope", "`phase1` or `phase2`."),
            ("round", "Phase-1 round (1-4); empty for Phase 2."),
            ("distribution", "Distribution number."),
            ("chosen", "true for the distribution the payment followed."),
            ("income", "Income in dollars in the agent's class."),
            ("payoff_cents", "Payoff in cents for that income."),
            ("picked_by", "Principles (with amount ranges) that pick it, `; `-separated."),
            ("seq", "Seq of the payment event."),
        ),
        rows.counterfactuals,
    ),
    Table(
        "statements",
        "One row per public Phase-2 statement.",
        (
            RUN_ID,
            ROUND2,
            TURN,
            AGENT,
            ("proposes_vote", "true when the statement proposes a vote."),
            ("words", "Number of whitespace-separated words."),
            ("text", "The statement as every participant saw it."),
            SEQ,
            HASH,
        ),
        rows.statements,
    ),
    Table(
        "polls",
        "One row per agent per poll (hold the vote now?) that followed a vote proposal.",
        (
            RUN_ID,
            ROUND2,
            TURN,
            ("proposer", "Who proposed the vote."),
            AGENT,
            STATUS,
            ("answer", "`yes` or `no`; empty when missing."),
            SOURCE,
            ATTEMPT,
            ("passed", "true when every answer was yes (a ballot followed)."),
            SEQ,
            HASH,
        ),
        rows.polls,
    ),
    Table(
        "ballots",
        "One row per agent per secret ballot: the ballot that counted, or missing.",
        (
            RUN_ID,
            ROUND2,
            TURN,
            AGENT,
            STATUS,
            PRINCIPLE,
            AMOUNT,
            SOURCE,
            ATTEMPT,
            ("raw_text", "The answer text the ballot was read from."),
            ("consensus", "true when every ballot of this vote was valid and identical."),
            SEQ,
            HASH,
        ),
        rows.ballots,
    ),
    Table(
        "memory",
        "One row per memory update (after every step).",
        (
            RUN_ID,
            AGENT,
            ("slot", "The memory slot (the step it follows)."),
            ("step", "Protocol step."),
            ("source", "`update`, `shortened` (sent back once) or `cut` (still too long)."),
            ("words", "Words in the kept memory."),
            ("words_before_cut", "Words before the cut (only for `cut`)."),
            ("memory", "The memory text after the update."),
            SEQ,
            HASH,
        ),
        rows.memory,
    ),
    Table(
        "model_calls",
        "One row per model call (participants and the utility agent).",
        (
            RUN_ID,
            ("seq", "Seq of the call's (first) model.requested event."),
            ("address", "The call's protocol address."),
            ("agent", "Caller: a participant or `utility`."),
            ("for_agent", "The participant whose answer or turn the call is about."),
            ("purpose", "ranking, choice, reasoning, statement, poll, ballot, memory, ..."),
            ("phase", "1 or 2."),
            ("step", "Protocol step."),
            ("round", "Phase-1 or Phase-2 round, where the call has one."),
            ("turn", "Turn within a Phase-2 round (polls and ballots)."),
            ("model", "Model name."),
            ("status", "`completed`, or `pending` when no answer was recorded."),
            ("input_tokens", "Input tokens reported by the provider."),
            ("output_tokens", "Output tokens reported by the provider."),
            ("latency_ms", "Wall time of the call in milliseconds."),
            ("attempts", "Transport attempts the answer took (1 = first try)."),
            ("failed_attempts", "Failed transport attempts recorded for the call."),
            ("times_requested", "How often the call was requested (>1 after a resume)."),
            ("request_hash", "Hash of the full request (prompt and settings)."),
        ),
        rows.model_calls,
    ),
)


def build_tables(histories: Sequence[History]) -> dict[str, list[Row]]:
    """Every table's rows over ``histories``, in the order given."""
    return {
        table.name: [
            {"run_id": history.run_id, **row}
            for history in histories
            for row in table.rows(history)
        ]
        for table in TABLES
    }


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def to_csv(table: Table, table_rows: Iterable[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.column_names)
    for row in table_rows:
        writer.writerow([_cell(row.get(name)) for name in table.column_names])
    return buffer.getvalue()


def render_tables(histories: Sequence[History]) -> dict[str, str]:
    """File name → content for every table and the data dictionary."""
    built = build_tables(histories)
    files = {table.filename: to_csv(table, built[table.name]) for table in TABLES}
    files["data_dictionary.md"] = data_dictionary()
    return files


def data_dictionary() -> str:
    lines = [
        "# Data dictionary",
        "",
        "Tables written by `maai export --format tables`. Every table starts with `run_id`;",
        "exports of several runs stack their rows. Empty cells are missing values; booleans are",
        "`true`/`false`; money is in whole dollars (incomes) or cents (payoffs, balances).",
        "",
    ]
    for table in TABLES:
        lines += [f"## {table.filename}", "", table.description, "", "| column | meaning |"]
        lines.append("|---|---|")
        lines += [f"| `{name}` | {text} |" for name, text in table.columns]
        lines.append("")
    return "\n".join(lines)
