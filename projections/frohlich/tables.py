"""The Frohlich experiment's tables: one row per fact (rankings, choices, payoffs, votes,
...), declared with their columns for the generic writer in ``maai.projections.tables``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from maai.projections.calls import CALL_COLUMNS_HEAD, CALL_COLUMNS_TAIL
from maai.projections.frohlich import table_rows as rows
from maai.projections.history import History
from maai.projections.schema import CATEGORY, COUNT, FLAG, INTEGER, TEXT, ColumnType, col
from maai.projections.tables import RUN_ID, Table
from maai.projections.tables import data_dictionary as generic_dictionary
from maai.projections.tables import render_tables as render_generic

UNITS = "money is in whole dollars (incomes) or cents (payoffs, balances)."

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
SITUATION = ("situation", "Original-values mode: the round's situation, A-D; empty otherwise.")


TYPES: dict[str, ColumnType] = {
    "agreement": CATEGORY,
    "amount": col("int64", "dollars"),
    "answer": CATEGORY,
    "balance_cents": col("int64", "cents"),
    "borda_a": col("int64", "Borda points"),
    "borda_b": col("int64", "Borda points"),
    "borda_c": col("int64", "Borda points"),
    "borda_d": col("int64", "Borda points"),
    "certainty": CATEGORY,
    "chosen": FLAG,
    "consensus": FLAG,
    "constraint_satisfied": FLAG,
    "distribution": col("int64", "distribution number"),
    "history_window_rounds": col("int64", "rounds"),
    "income": col("int64", "dollars"),
    "income_class": CATEGORY,
    "language": CATEGORY,
    "manipulator": CATEGORY,
    "memory": TEXT,
    "multiplier": col("float64", "factor"),
    "original_values": FLAG,
    "passed": FLAG,
    "payoff_cents": col("int64", "cents"),
    "phase": INTEGER,
    "picked_by": TEXT,
    "principle": CATEGORY,
    "proposer": CATEGORY,
    "proposes_vote": FLAG,
    "rank_1": CATEGORY,
    "rank_2": CATEGORY,
    "rank_3": CATEGORY,
    "rank_4": CATEGORY,
    "raw_text": TEXT,
    "round": col("int64", "round number"),
    "scope": CATEGORY,
    "situation": CATEGORY,
    "slot": CATEGORY,
    "step": CATEGORY,
    "target": CATEGORY,
    "target_adopted": FLAG,
    "turn": col("int64", "turn number"),
    "words": col("int64", "words"),
    "words_before_cut": col("int64", "words"),
    "breaches": COUNT,
}
"""The declared type of each column of these tables beyond the shared ones
(``projections/schema.py``)."""


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
            SITUATION,
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
            SITUATION,
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
        "conditions",
        "One row per run: the conditions it ran under (docs/frohlich.md \"Conditions\").",
        (
            RUN_ID,
            ("language", "The run's language: en, es or zh."),
            ("original_values", "true when Phase-1 rounds played situations A-D."),
            ("manipulator", "The agent told to steer the group; empty without the condition."),
            (
                "history_window_rounds",
                "Rounds of discussion Phase-2 prompts showed word for word before the current"
                " one (history.window_rounds); empty: the whole discussion.",
            ),
            ("target", "The principle the manipulator was told to steer to."),
            ("borda_a", "Borda points of (a) over the other agents' final Phase-1 rankings."),
            ("borda_b", "Borda points of (b)."),
            ("borda_c", "Borda points of (c)."),
            ("borda_d", "Borda points of (d)."),
            ("agreement", "The principle the group agreed on; empty without agreement."),
            ("target_adopted", "true when the group agreed on the target principle."),
            ("seq", "Seq of the event that chose the target."),
            ("hash", "Hash of that event."),
        ),
        rows.conditions,
    ),
    Table(
        "model_calls",
        "One row per model call (participants and the utility agent).",
        (
            RUN_ID,
            *CALL_COLUMNS_HEAD,
            ("purpose", "ranking, choice, reasoning, statement, poll, ballot, memory, ..."),
            ("phase", "1 or 2."),
            ("step", "Protocol step."),
            ("round", "Phase-1 or Phase-2 round, where the call has one."),
            ("turn", "Turn within a Phase-2 round (polls and ballots)."),
            *CALL_COLUMNS_TAIL,
        ),
        rows.model_calls,
    ),
)


def render_tables(histories: Sequence[History]) -> Mapping[str, str]:
    """File name → content for every table and the data dictionary."""
    return render_generic(TABLES, histories, UNITS, types=TYPES)


def data_dictionary() -> str:
    return generic_dictionary(TABLES, units=UNITS, types=TYPES)
