"""The collaboration game's tables: one row per fact (beliefs, messages, decisions, the
outcome, model calls), declared with their columns for the generic writer in
``maai.projections.tables``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from maai.projections.calls import CALL_COLUMNS_HEAD, CALL_COLUMNS_TAIL
from maai.projections.collaboration import table_rows as rows
from maai.projections.history import History
from maai.projections.schema import CATEGORY, COUNT, FLAG, TEXT, ColumnType, col
from maai.projections.tables import RUN_ID, Table
from maai.projections.tables import data_dictionary as generic_dictionary
from maai.projections.tables import render_tables as render_generic

AGENT = ("agent", "The participant's name.")
SEQ = ("seq", "Sequence number of the event in the run's ledger (1 = first).")
HASH = ("hash", "Hash of that event in the ledger's hash chain (cite it to prove provenance).")
SOURCE = ("source", "Who read the answer: `parser` (deterministic) or `utility` (utility agent).")
ATTEMPT = ("attempt", "Which attempt (1-based) produced the accepted answer.")


TYPES: dict[str, ColumnType] = {
    "baseline": FLAG,
    "belief": col("int64", "percent (0–100)"),
    "both_collaborative": FLAG,
    "breach_text": TEXT,
    "breaches": COUNT,
    "disclose_initial_belief": FLAG,
    "exchanges": COUNT,
    "final_belief": col("int64", "percent (0–100)"),
    "final_prediction": col("int64", "percent (0–100)"),
    "index": col("int64", "message number"),
    "initial_belief": col("int64", "percent (0–100)"),
    "joint_points": col("int64", "points"),
    "message_rule": CATEGORY,
    "messages": COUNT,
    "mismatch": FLAG,
    "missing": FLAG,
    "option": CATEGORY,
    "outcome": CATEGORY,
    "partner_belief": col("int64", "percent (0–100)"),
    "partner_collaborates": FLAG,
    "partner_draw": col("float64", "probability (0–1)"),
    "partner_p": col("float64", "probability (0–1)"),
    "points": col("int64", "points"),
    "prediction": col("int64", "percent (0–100)"),
    "prediction_error": col("int64", "percentage points"),
    "step": col("int64", "step number"),
    "strategy": CATEGORY,
    "u_star": col("float64", "probability (0–1)"),
    "u_value": col("float64", "probability (0–1)"),
}
"""The declared type of each column of these tables beyond the shared ones
(``projections/schema.py``)."""


TABLES: tuple[Table, ...] = (
    Table(
        "beliefs",
        "One row per stated belief: each agent's initial belief (step 0, before any message) "
        "and every update (step k = 2 … 2n+1, made after reading message k − 1), with the "
        "prediction of the partner's belief beside the partner's actual belief. A belief whose "
        "answer stayed unreadable has no row (see `missing` in the JSON export).",
        (
            RUN_ID,
            AGENT,
            ("step", "0 for the initial belief; k (2 … 2n+1) for the update after message k − 1."),
            ("kind", "`initial` or `update`."),
            ("belief", "The agent's belief (0–100) that the collaboration succeeds."),
            (
                "prediction",
                "The agent's prediction (0–100) of the partner's current belief; "
                "empty for initial beliefs and in the baseline.",
            ),
            (
                "partner_belief",
                "The partner's latest recorded belief when the prediction was "
                "made; empty where there is no prediction.",
            ),
            ("prediction_error", "prediction − partner_belief (positive: overestimated)."),
            SOURCE,
            ATTEMPT,
            SEQ,
            HASH,
        ),
        rows.beliefs,
    ),
    Table(
        "messages",
        "One row per message (1 … 2n, agent 1 writes the odd ones), public to both agents, "
        "with the rule breaches code found in it.",
        (
            RUN_ID,
            ("index", "Message number, 1 … 2n."),
            ("agent", "Who wrote it."),
            ("text", "The message as the partner saw it; empty when missing."),
            ("breaches", "Number of message-rule breaches code found (0: none)."),
            ("breach_text", "The breaches found, `; `-separated."),
            ("missing", "true when no readable message came within the attempts."),
            SEQ,
            HASH,
        ),
        rows.messages,
    ),
    Table(
        "decisions",
        "One row per agent: its choice (decided independently, after the conversation), the "
        "strategy code derived from it, and its points.",
        (
            RUN_ID,
            AGENT,
            ("status", "`made`, or `missing` when no readable decision came within the attempts."),
            ("option", "The option chosen (one of the agent's own)."),
            ("strategy", "`collaborative` or `individual`, derived from the option by code."),
            ("points", "Points by the payoff rule; empty when the game is incomplete."),
            ("u_value", "The agent's configured collaboration threshold u."),
            (
                "u_star",
                "Reference threshold of the chosen option, (Y − D)/(U − D), 4 decimals; "
                "empty for the individual option.",
            ),
            ("initial_belief", "The agent's initial belief."),
            ("final_belief", "The agent's latest belief before deciding."),
            ("final_prediction", "The agent's latest prediction of the partner's belief."),
            SOURCE,
            ATTEMPT,
            SEQ,
            HASH,
        ),
        rows.decisions,
    ),
    Table(
        "outcome",
        "One row per run: how the game ended and the condition it ran under.",
        (
            RUN_ID,
            ("outcome", "`complete` (points awarded) or `incomplete`; empty while running."),
            ("reason", "Why the game is incomplete (whose decision is missing)."),
            ("baseline", "true for the single-agent baseline (the partner is a lottery)."),
            ("exchanges", "Exchanges configured (2 messages each); empty in the baseline."),
            (
                "disclose_initial_belief",
                "true when each agent saw the partner's initial belief at its decision.",
            ),
            ("message_rule", "`flag` (breaches recorded) or `reask` (sent back)."),
            ("messages", "Messages recorded."),
            ("breaches", "Message-rule breaches recorded, all messages together."),
            ("mismatch", "true when the two strategies differ."),
            ("both_collaborative", "true when both chose a collaborative option."),
            ("joint_points", "Both agents' points together; empty in the baseline."),
            ("partner_p", "Baseline: probability that the lottery partner collaborates."),
            ("partner_draw", "Baseline: the uniform draw on [0, 1) (collaborates when below p)."),
            ("partner_collaborates", "Baseline: true when the lottery partner collaborated."),
            ("seq", "Seq of the game.ended event."),
            ("hash", "Hash of the game.ended event."),
        ),
        rows.outcome,
    ),
    Table(
        "model_calls",
        "One row per model call (participants and the utility agent).",
        (
            RUN_ID,
            *CALL_COLUMNS_HEAD,
            ("purpose", "initial, turn, update, decision or extract."),
            ("step", "0 for the initial belief, k for turn k; empty for decisions."),
            *CALL_COLUMNS_TAIL,
        ),
        rows.model_calls,
    ),
)


def render_tables(histories: Sequence[History]) -> Mapping[str, str]:
    """File name → content for every table and the data dictionary."""
    return render_generic(TABLES, histories, types=TYPES)


def data_dictionary() -> str:
    return generic_dictionary(TABLES, types=TYPES)
