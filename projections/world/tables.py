"""The world's tables (docs/world.md §8), declared with their columns for the generic
writer in ``maai.projections.tables``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from maai.domain.world.config import WorldConfig
from maai.projections.calls import CALL_COLUMNS_HEAD, CALL_COLUMNS_TAIL
from maai.projections.history import History
from maai.projections.schema import CATEGORY, COUNT, FLAG, INTEGER, TEXT, ColumnType, col
from maai.projections.tables import RUN_ID, Table
from maai.projections.tables import render_tables as render_generic
from maai.projections.world import table_rows as rows

SEQ = ("seq", "Sequence number of the event in the run's ledger (1 = first).")
HASH = ("hash", "Hash of that event in the ledger's hash chain.")
TICK = ("tick", "The logical tick (0 = first).")

PLAN_COLUMNS = (
    ("location", "Where the plan is carried out."),
    ("description", "What the plan is."),
    ("stop_condition", "When the agent is to judge it done."),
    ("max_ticks", "Ticks it may last, enforced by code."),
    SEQ,
    HASH,
)
PLANS = Table(
    "plans",
    "Plans over time: each plan queued (set or postponed), made current after the plan "
    "before it ended (promoted), cancelled, done, failed or expired. An agent's plans form "
    "a queue, the current plan first (docs/world.md §4).",
    (
        RUN_ID,
        ("agent", "Whose plan."),
        ("index", "The agent's plan change number (0 = first)."),
        TICK,
        (
            "status",
            "set (queued last), postponed (queued first), promoted (now current), "
            "cancelled, done, failed or expired (max ticks).",
        ),
        (
            "plan",
            "Which plan: the index of the change that queued it (empty in runs recorded "
            "before plan lists).",
        ),
        ("place", "set or postponed: its place in the queue once added (0 = current)."),
        *PLAN_COLUMNS,
    ),
    rows.plans,
)
# The plans table as it was before plan lists: what an export of runs recorded then, and
# only of those, writes, so that it stays byte for byte what it was (tests/compat).
PLANS_BEFORE_LISTS = Table(
    "plans",
    "Plans over time: each plan set, postponed, cancelled, done, failed or expired.",
    (
        RUN_ID,
        ("agent", "Whose plan."),
        ("index", "The agent's plan change number (0 = first)."),
        TICK,
        ("status", "set, postponed, cancelled, done, failed or expired (max ticks)."),
        *PLAN_COLUMNS,
    ),
    rows.plans,
)


TYPES: dict[str, ColumnType] = {
    "actor": CATEGORY,
    "amount": col("int64", "points"),
    "announced": col("float64", "points"),
    "announcement_matches": FLAG,
    "calls": COUNT,
    "contribution": col("int64", "points"),
    "created_tick": col("int64", "tick"),
    "description": TEXT,
    "endowment": col("int64", "points"),
    "importance": col("int64", "score (1–10)"),
    "index": INTEGER,
    "location": CATEGORY,
    "max_ticks": col("int64", "ticks"),
    "missing": FLAG,
    "multiplier": col("float64", "factor"),
    "outcome": CATEGORY,
    "payoff": col("float64", "points"),
    "place": INTEGER,
    "plan": INTEGER,
    "player": CATEGORY,
    "position": INTEGER,
    "round": col("int64", "round number"),
    "scored_tick": col("int64", "tick"),
    "share": col("float64", "points"),
    "stop_condition": TEXT,
    "tick": col("int64", "tick"),
    "time": TEXT,
    "to": CATEGORY,
    "total": col("int64", "points"),
    "witnesses": TEXT,
}
"""The declared type of each column of these tables beyond the shared ones
(``projections/schema.py``)."""


TABLES: tuple[Table, ...] = (
    Table(
        "events",
        "The event log: one row per agent per tick, in the drawn order of application, with "
        "the agents who witnessed it (computed by code when it was applied).",
        (
            RUN_ID,
            TICK,
            ("time", "The tick as simulated time."),
            ("position", "Its place in the tick's drawn order (0 = first)."),
            ("location", "Where the actor was when it acted."),
            ("actor", "Who acted."),
            ("kind", "move, speak, wait, done, failed, contribute, announce or missing."),
            ("outcome", "`applied`, `refused` (see reason) or `missing` (no readable action)."),
            ("to", "A move's destination, or whom speech was addressed to (`all`)."),
            ("description", "The event as witnesses observed it."),
            ("reason", "Why it was refused or missing (told to the actor next tick)."),
            ("witnesses", "Agents present, `;`-separated (a refused action: the actor alone)."),
            SEQ,
            HASH,
        ),
        rows.events,
    ),
    Table(
        "memories",
        "Each agent's memory stream: one row per observation, with the importance it gave.",
        (
            RUN_ID,
            ("agent", "Whose memory."),
            ("scored_tick", "The tick whose call scored it."),
            ("created_tick", "The tick in which it was observed."),
            ("index", "Its place among the memories scored together."),
            ("description", "What was observed."),
            ("importance", "1–10 as the agent scored it; empty when no readable score came."),
            SEQ,
            HASH,
        ),
        rows.memories,
    ),
    PLANS,
    Table(
        "contributions",
        "The public-goods game: one row per player per round.",
        (
            RUN_ID,
            ("round", "The round (1 = first)."),
            TICK,
            ("player", "The player."),
            ("amount", "Points contributed; empty when missing."),
            ("missing", "true when no valid contribution came within the attempts (counts 0)."),
            ("endowment", "The player's endowment this round."),
            SEQ,
            HASH,
        ),
        rows.contributions,
    ),
    Table(
        "payoffs",
        "The public-goods game: payoffs by round and player, computed by code "
        "(endowment − contribution + multiplier × total / N, half-even to 2 decimals), beside "
        "what the moderator announced.",
        (
            RUN_ID,
            ("round", "The round."),
            ("player", "The player."),
            ("contribution", "Points counted (a missing contribution counts 0)."),
            ("missing", "true when the contribution was missing."),
            ("total", "All contributions of the round."),
            ("multiplier", "The multiplier m."),
            ("share", "m × total / N, rounded."),
            ("payoff", "The payoff computed by code."),
            ("announced", "The payoff the moderator announced; empty before the announcement."),
            ("announcement_matches", "true when the whole announcement matched the outcome."),
            SEQ,
            HASH,
        ),
        rows.payoffs,
    ),
    Table(
        "ticks",
        "Cost: model calls (participants and utility agent) per tick.",
        (RUN_ID, TICK, ("time", "The tick as simulated time."), ("calls", "Model calls.")),
        rows.ticks,
    ),
    Table(
        "model_calls",
        "One row per model call (participants and the utility agent).",
        (
            RUN_ID,
            *CALL_COLUMNS_HEAD,
            ("purpose", "act, importance or extract."),
            TICK,
            *CALL_COLUMNS_TAIL,
        ),
        rows.model_calls,
    ),
)


def tables_for(histories: Sequence[History]) -> tuple[Table, ...]:
    """The tables of these runs: with the plan queue's columns unless every run was recorded
    before plan lists (``max_plans`` none)."""
    if any(_plan_lists(h) for h in histories) or not histories:
        return TABLES
    return tuple(PLANS_BEFORE_LISTS if t is PLANS else t for t in TABLES)


def _plan_lists(history: History) -> bool:
    config = history.config
    return not isinstance(config, WorldConfig) or config.plan_lists


def render_tables(histories: Sequence[History]) -> Mapping[str, str]:
    return render_generic(
        tables_for(histories), histories, "points are the game's points", types=TYPES
    )
