"""The Frohlich experiment's sections of ``maai report`` (docs/projections.md, "Reports";
the rules: docs/frohlich.md): conditions and outcome, rankings, Phase-1 choices, payoffs,
the discussion with its vote timeline, and each participant's private trail.

Built from the experiment's table rows and agent log (the same read models as the CSV and
JSON exports), never from the events directly, so the report shows what the exports show.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from maai.domain.frohlich.types import Principle
from maai.projections.charts import Series, grouped_bars
from maai.projections.frohlich.report_discussion import discussion_section
from maai.projections.frohlich.report_trail import trail_section
from maai.projections.frohlich.table_rows import Row
from maai.projections.frohlich.tables import TABLES
from maai.projections.history import History
from maai.projections.markup import facts, figures, join, paragraph, table
from maai.projections.report import Section
from maai.projections.tables import build_tables

SHORT_NAMES: dict[str, str] = {
    Principle.FLOOR: "(a) floor",
    Principle.AVERAGE: "(b) average",
    Principle.FLOOR_CONSTRAINT: "(c) floor constraint",
    Principle.RANGE_CONSTRAINT: "(d) range constraint",
}
LETTERS = [p.value for p in Principle]


def choice_text(principle: str | None, amount: int | None) -> str:
    """``(c) $13,000``; an empty string when there is no principle."""
    if principle is None:
        return ""
    return f"({principle})" + (f" ${amount:,}" if amount else "")


REPORTED_TABLES = frozenset(
    ("rankings", "choices", "payoffs", "conditions", "statements", "polls", "ballots")
)


def report(history: History) -> list[Section]:
    views: Any = history.experiment.views() if history.experiment else None
    if views is None or history.config is None:
        return []
    # The tables the sections show, not all (a long run's memory and model_calls rows are
    # most of the rows, and none is shown).
    shown = [t for t in TABLES if t.name in REPORTED_TABLES]
    rows: dict[str, list[Row]] = build_tables(shown, [history])
    log: dict[str, Any] = views.agent_log(history)
    return [
        outcome_section(history, rows, log),
        rankings_section(rows["rankings"]),
        phase1_section(rows["choices"], history.agent_names),
        payoffs_section(rows["payoffs"], history.agent_names),
        discussion_section(rows, history.agent_names),
        trail_section(log),
    ]


def outcome_section(history: History, rows: dict[str, list[Row]], log: dict[str, Any]) -> Section:
    outcome = log["run"].get("outcome")
    conditions = rows["conditions"][0] if rows["conditions"] else {}
    pairs: list[tuple[str, Any]] = [
        ("participants", ", ".join(history.agent_names)),
        ("discussion rounds allowed", history.config.phase2_rounds),
    ]
    if outcome is None:
        pairs.append(("discussion", "not ended (the run stopped before)"))
    else:
        agreement = outcome.get("agreement")
        pairs += [
            ("rounds used", outcome.get("rounds_used")),
            ("secret ballots held", outcome.get("ballots_held")),
            ("agreement", agreement["text"] if agreement else "none"),
        ]
    chosen = (log["run"].get("phase2_payment") or {}).get("chosen")
    if chosen:
        pairs.append(("Phase-2 distribution", f"{chosen['distribution']} ({chosen['how']})"))
    pairs += [
        ("language", conditions.get("language")),
        ("original values (situations A-D)", "yes" if conditions.get("original_values") else "no"),
        ("manipulator", conditions.get("manipulator") or "none"),
        (
            "history shown in Phase 2",
            f"the last {conditions['history_window_rounds']} rounds and the current one"
            if conditions.get("history_window_rounds")
            else "all of it",
        ),
    ]
    if conditions.get("target"):
        scores = ", ".join(f"({x}) {conditions.get(f'borda_{x}')}" for x in "abcd")
        adopted = conditions.get("target_adopted")
        pairs += [
            ("manipulator's target", f"({conditions['target']}); Borda scores {scores}"),
            ("target adopted", "not yet" if adopted is None else "yes" if adopted else "no"),
        ]
    return Section("Conditions and outcome", facts(pairs))


def rankings_section(rankings: list[Row]) -> Section:
    steps = sorted({row["step"] for row in rankings})
    firsts = Counter((row["step"], row.get("rank_1")) for row in rankings)
    missing = [
        sum(1 for r in rankings if r["step"] == s and r["status"] != "accepted") for s in steps
    ]
    series = [Series(SHORT_NAMES[p], [firsts[(s, p)] for s in steps]) for p in LETTERS]
    if any(missing):
        series.append(Series("no ranking", missing))
    plot = grouped_bars(
        "first-places",
        "Principle ranked first, per ranking step",
        [f"step {s}" for s in steps],
        series,
        x_label="ranking step (1.1 first, 1.2 after the examples, 1.4 after Phase 1, "
        "2.3 after the discussion)",
        y_label="participants",
        whole=True,
    )
    table_rows = [
        (
            r["agent"],
            r["step"],
            " > ".join(f"({r[f'rank_{i}']})" for i in range(1, 5) if r.get(f"rank_{i}"))
            or r["status"],
            r.get("certainty"),
        )
        for r in rankings
    ]
    body = join([figures(plot), table(["agent", "step", "ranking", "certainty"], table_rows)])
    return Section("Rankings of the principles", body)


def phase1_section(choices: list[Row], agents: list[str]) -> Section:
    rounds = sorted({row["round"] for row in choices})
    counted = Counter((row["round"], row.get("principle")) for row in choices)
    missing = [
        sum(1 for r in choices if r["round"] == n and r["status"] != "accepted") for n in rounds
    ]
    series = [Series(SHORT_NAMES[p], [counted[(n, p)] for n in rounds]) for p in LETTERS]
    if any(missing):
        series.append(Series("no valid choice", missing))
    plot = grouped_bars(
        "phase1-choices",
        "Phase-1 choices per round",
        [f"round {n}" for n in rounds],
        series,
        x_label="Phase-1 round",
        y_label="participants",
        whole=True,
    )
    by_cell = {(r["agent"], r["round"]): r for r in choices}
    grid = [[agent] + [_choice_cell(by_cell.get((agent, n))) for n in rounds] for agent in agents]
    columns = ["agent", *(f"round {n}" for n in rounds)]
    return Section("Phase 1: choices", join([figures(plot), table(columns, grid)]))


def _choice_cell(row: Row | None) -> str:
    if row is None:
        return ""
    if row["status"] != "accepted":
        return row["status"]
    return choice_text(row.get("principle"), row.get("amount"))


def payoffs_section(payoffs: list[Row], agents: list[str]) -> Section:
    def dollars(agent: str, scope: str) -> float:
        cents = sum(
            r.get("payoff_cents") or 0
            for r in payoffs
            if r["agent"] == agent and r["scope"] == scope
        )
        return cents / 100

    phase1 = [dollars(a, "phase1") for a in agents]
    phase2 = [dollars(a, "phase2") for a in agents]
    plot = grouped_bars(
        "payoffs",
        "Payoff per participant (Phase 1 and Phase 2, stacked)",
        agents,
        [Series("Phase 1", phase1), Series("Phase 2", phase2)],
        x_label="participant",
        y_label="payoff ($)",
        stacked=True,
    )
    unpaid = Counter(r["agent"] for r in payoffs if r["status"] != "paid")
    rows = [
        (a, f"${p1:,.2f}", f"${p2:,.2f}", f"${p1 + p2:,.2f}", unpaid[a])
        for a, p1, p2 in zip(agents, phase1, phase2, strict=True)
    ]
    columns = ["participant", "Phase 1", "Phase 2", "total", "unpaid rounds"]
    note = paragraph("$1 is paid for every $10,000 of assigned income (docs/frohlich.md).")
    return Section("Payoffs", join([figures(plot), table(columns, rows), note]))
