"""The end-of-run summary table (``run``, ``resume``, ``replay``, ``show``)."""

from __future__ import annotations

from maai.domain.frohlich.render import cents
from maai.runtime.runs import RunSummary
from rich.console import Console
from rich.table import Table


def print_summary(console: Console, summary: RunSummary) -> None:
    console.print(
        f"status: [bold]{summary.status}[/bold]   phase: {summary.phase}   "
        f"round: {summary.round}   outcome: [bold]{summary.outcome}[/bold]",
        highlight=False,
    )
    if summary.failure:
        console.print(f"[red]failure:[/red] {summary.failure}", highlight=False, soft_wrap=True)
    table = Table(title=None, show_edge=False)
    table.add_column("agent")
    table.add_column("Phase 1", justify="right")
    table.add_column("Phase 2", justify="right")
    table.add_column("bank balance", justify="right")
    table.add_column("missing answers")
    for agent in summary.agents:
        table.add_row(
            agent.name,
            cents(agent.phase1_cents),
            "—" if agent.phase2_cents is None else cents(agent.phase2_cents),
            cents(agent.bank_cents),
            ", ".join(agent.missing) or "—",
        )
    console.print(table)
    phases = "; ".join(
        f"{phase}: {t['calls']} calls, {t['input_tokens'] + t['output_tokens']} tokens"
        for phase, t in summary.by_phase.items()
    )
    console.print(
        f"model calls: {summary.calls} ({phases}); tokens in/out: "
        f"{summary.input_tokens}/{summary.output_tokens}; "
        f"failed attempts: {summary.failed_attempts}",
        highlight=False,
    )
