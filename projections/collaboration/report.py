"""The collaboration game's sections of ``maai report`` (docs/projections.md, "Reports"; the
rules: docs/collaboration.md): conditions and outcome, beliefs over the exchanges,
predictions against the partner's actual beliefs, decisions and points, the messages.

Built from the game's table rows (the same read models as its CSV export)."""

from __future__ import annotations

from typing import Any

from maai.projections.charts import Line, Series, bar_chart, grouped_bars, line_chart
from maai.projections.history import History
from maai.projections.markup import facts, figures, join, paragraph, quote, table
from maai.projections.report import Section

Row = dict[str, Any]


def report(history: History) -> list[Section]:
    if history.experiment is None or history.config is None:
        return []
    rows: dict[str, list[Row]] = history.experiment.views().table_rows(history)
    agents = history.agent_names
    # Decisions are recorded in the order they arrive; a reader expects the agents' order.
    decisions = sorted(rows["decisions"], key=lambda d: _position(agents, d["agent"]))
    return [
        outcome_section(rows["outcome"], decisions),
        beliefs_section(rows["beliefs"], agents),
        decisions_section(decisions),
        messages_section(rows["messages"]),
    ]


def _position(agents: list[str], agent: str) -> int:
    return agents.index(agent) if agent in agents else len(agents)


def _outcome_words(outcome: Row) -> str:
    if outcome["outcome"] is None:
        return "not reached yet (the game has not ended)"
    reason = outcome.get("reason")
    return outcome["outcome"] + (f" ({reason})" if reason else "")


def outcome_section(outcome_rows: list[Row], decisions: list[Row]) -> Section:
    if not outcome_rows:
        return Section("Conditions and outcome", paragraph("The game has not ended."))
    o = outcome_rows[0]
    pairs: list[tuple[str, Any]] = [
        ("outcome", _outcome_words(o)),
        ("baseline (partner is a lottery)", o["baseline"]),
        ("exchanges", o["exchanges"]),
        ("initial beliefs disclosed", o["disclose_initial_belief"]),
        ("message rule", o["message_rule"]),
        ("messages sent", o["messages"]),
        ("rule breaches in messages", o["breaches"]),
        ("both chose to collaborate", o["both_collaborative"]),
        ("strategies differ", o["mismatch"]),
        ("joint points", o["joint_points"]),
    ]
    if o["baseline"]:
        pairs += [
            ("partner's probability of collaborating", o["partner_p"]),
            ("partner's draw", o["partner_draw"]),
            ("partner collaborates", o["partner_collaborates"]),
        ]
    choices = ", ".join(f"{d['agent']} {d.get('option') or d['status']}" for d in decisions)
    pairs.append(("decisions", choices or "none"))
    # A fact left empty does not apply to this run (the baseline has no exchanges).
    return Section("Conditions and outcome", facts((k, v) for k, v in pairs if v is not None))


def beliefs_section(beliefs: list[Row], agents: list[str]) -> Section:
    """Beliefs (0-100) of each agent after each message, and each prediction of the
    partner's belief against the partner's belief stated last before it."""
    lines = [
        Line(
            agent,
            [
                (r["step"], r["belief"])
                for r in beliefs
                if r["agent"] == agent and r["belief"] is not None
            ],
        )
        for agent in agents
    ]
    # A prediction is of the partner's belief: drawn dashed in the partner's colour, so it
    # lies against the line it tries to predict.
    for agent in agents:
        partner = next((a for a in agents if a != agent), None)
        predictions = [
            (r["step"], r["prediction"])
            for r in beliefs
            if r["agent"] == agent and r["prediction"] is not None
        ]
        label = f"{agent}'s prediction of {partner or 'the partner'}"
        colour = agents.index(partner) if partner else None
        lines.append(Line(label, predictions, dashed=True, colour=colour))
    steps = sorted({r["step"] for r in beliefs})
    belief_plot = line_chart(
        "beliefs",
        "Beliefs that the collaboration succeeds, after each message",
        [line for line in lines if line.points],
        x_label="messages exchanged",
        y_label="belief (0-100)",
        y_range=(0, 100),
        x_ticks=[(s, str(s)) for s in steps],
    )
    predicted = [r for r in beliefs if r["prediction"] is not None]
    prediction_plot = grouped_bars(
        "predictions",
        "Predicted partner belief against the partner's belief",
        [f"{r['agent']} @ {r['step']}" for r in predicted],
        [
            Series("prediction", [r["prediction"] for r in predicted]),
            Series("partner's belief", [r["partner_belief"] for r in predicted]),
        ],
        x_label="who predicted, after how many messages",
        y_label="belief (0-100)",
    )
    rows = [
        (
            r["agent"],
            r["step"],
            r["kind"],
            r["belief"],
            r["prediction"],
            r["partner_belief"],
            r["prediction_error"],
        )
        for r in beliefs
    ]
    columns = [
        "agent",
        "after message",
        "kind",
        "belief",
        "prediction",
        "partner's belief",
        "prediction error",
    ]
    return Section(
        "Beliefs and predictions",
        join([figures(belief_plot, prediction_plot), table(columns, rows)]),
    )


def decisions_section(decisions: list[Row]) -> Section:
    made = [d for d in decisions if d["points"] is not None]
    plot = bar_chart(
        "points",
        "Points per agent",
        [d["agent"] for d in made],
        [d["points"] for d in made],
        x_label="agent",
        y_label="points",
    )
    columns = [
        "agent",
        "status",
        "option",
        "strategy",
        "points",
        "u value",
        "u*",
        "initial belief",
        "final belief",
        "final prediction",
    ]
    rows = [
        (
            d["agent"],
            d["status"],
            d["option"],
            d["strategy"],
            d["points"],
            d["u_value"],
            d["u_star"],
            d["initial_belief"],
            d["final_belief"],
            d["final_prediction"],
        )
        for d in decisions
    ]
    return Section("Decisions and points", join([figures(plot), table(columns, rows)]))


def messages_section(messages: list[Row]) -> Section:
    if not messages:
        return Section("Messages", paragraph("No message was exchanged."))
    parts = []
    for m in messages:
        note = (
            "missing" if m["missing"] else (f"breach: {m['breach_text']}" if m["breaches"] else "")
        )
        parts.append(quote(f"{m['index']}. {m['agent']}", m["text"] or "", note))
    return Section("Messages", join(parts))
