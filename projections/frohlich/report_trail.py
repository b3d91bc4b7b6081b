"""Each participant's private trail in the Frohlich report: rankings, Phase-1 choices, the
reasoning before each statement and the memory after each step, from the agent log
(docs/frohlich.md §6 says who may see what; a report is for the researchers, who see all)."""

from __future__ import annotations

from typing import Any

from maai.projections.jsonout import resolved
from maai.projections.markup import (
    Markup,
    details,
    heading,
    join,
    paragraph,
    preformatted,
    table,
)
from maai.projections.report import Section


def _ranking(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    return " > ".join(f"({letter})" for letter in value.get("order", []))


def _choice(value: Any) -> str:
    if not isinstance(value, dict) or value.get("principle") is None:
        return ""
    amount = value.get("amount")
    return f"({value['principle']})" + (f" ${amount:,}" if amount else "")


def _read_by(item: dict[str, Any]) -> str:
    if item.get("status") != "accepted":
        return item.get("last_reason") or ""
    return f"{item.get('source')}, attempt {item.get('attempt')}"


def agent_trail(agent: dict[str, Any]) -> Markup:
    rankings = [
        (
            r["step"],
            r["status"],
            _ranking(r.get("value")),
            (r.get("value") or {}).get("certainty"),
            _read_by(r),
        )
        for r in agent["rankings"]
    ]
    choices = [
        (c["round"], c["status"], _choice(c.get("value")), _read_by(c)) for c in agent["choices"]
    ]
    reasoning = [(r["round"], r["text"]) for r in agent["reasoning"]]
    memory = [
        (m["step"], m["slot"], m["source"], m["words"], preformatted(m["after"]))
        for m in agent["memory"]
    ]
    parts = [
        heading(4, "Rankings"),
        table(["step", "status", "ranking", "certainty", "read by / why missing"], rankings),
        heading(4, "Phase-1 choices"),
        table(["round", "status", "choice", "read by / why missing"], choices),
        heading(4, "Private reasoning before each statement"),
        table(["round", "reasoning"], reasoning) if reasoning else paragraph("None recorded."),
        heading(4, "Memory after each step"),
        table(["step", "slot", "source", "words", "memory"], memory),
    ]
    return join(parts)


def trail_section(log: dict[str, Any]) -> Section:
    agents: dict[str, Any] = log["agents"]
    # A section read from a store is built when asked for (agent_log._section): one at a time.
    blocks = [
        details(f"{name}: private trail", agent_trail(resolved(agent)))
        for name, agent in agents.items()
    ]
    intro = paragraph(
        "What each participant alone saw and wrote (open a name). The other participants "
        "never saw any of it; the leak audit checks that (maai audit leaks)."
    )
    return Section("Private trails", join([intro, *blocks]))
