"""The end-of-run summary (``run``, ``resume``, ``replay``, ``show``) of any experiment."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from maai.domain.config import Price
from maai.domain.experiment import Summary
from maai.ledger import EventStore


def cost_text(usd: float | None) -> str:
    """A cost in US dollars: cents below $1 to four places (a short run costs fractions of a
    cent), else two; ``—`` where there is none (no prices set, or a model without one)."""
    if usd is None:
        return "—"
    return f"${usd:,.4f}" if usd < 1 else f"${usd:,.2f}"


def print_summary(console: Console, summary: Summary, cost_usd: float | None = None) -> None:
    """The summary; ``cost_usd`` (``runtime.study.run_cost``) joins its first line when the
    config sets prices."""
    head = [f"status: [bold]{escape(summary.status)}[/bold]"]
    head += [f"{label}: {escape(value)}" for label, value in summary.headline]
    head.append(f"outcome: [bold]{escape(summary.outcome)}[/bold]")
    if cost_usd is not None:
        head.append(f"cost: {cost_text(cost_usd)}")
    console.print("   ".join(head), highlight=False)
    if summary.failure:
        console.print(
            f"[red]failure:[/red] {escape(summary.failure)}", highlight=False, soft_wrap=True
        )
    if summary.table is not None:
        table = Table(title=None, show_edge=False)
        for i, column in enumerate(summary.table.columns):
            cells = [row[i] for row in summary.table.rows]
            numeric = i > 0 and all(map(_numeric, cells)) and any(c != "—" for c in cells)
            table.add_column(column, justify="right" if numeric else "left")
        for row in summary.table.rows:
            table.add_row(*(escape(cell) for cell in row))
        console.print(table)
    for line in summary.footer:
        console.print(escape(line), highlight=False)


def _numeric(cell: str) -> bool:
    text = cell.strip().lstrip("$-").replace(",", "").replace(".", "")
    return text.isdigit() or cell.strip() == "—"


def print_usage(console: Console, store: EventStore, run_id: str, prices: dict[str, Price]) -> None:
    """The run's tokens as its calls recorded them, cached input and reasoning apart
    (docs/providers.md, "Usage and cost"), one line after the summary (whose first line gives
    the cost); which models lack a price, where some have one."""
    from maai.runtime.study import recorded_usage

    usage = recorded_usage(store, run_id)
    # A run of the simulated model alone, unpriced, has nothing worth a line.
    if prices or any(model != "simulated" for model in usage.calls):
        console.print(escape(usage.describe_usage(prices)), highlight=False, soft_wrap=True)
