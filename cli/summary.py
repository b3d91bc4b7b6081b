"""The end-of-run summary (``run``, ``resume``, ``replay``, ``show``) of any experiment."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from maai.domain.config import Price
from maai.domain.experiment import Summary
from maai.ledger import EventStore


def print_summary(console: Console, summary: Summary) -> None:
    head = [f"status: [bold]{escape(summary.status)}[/bold]"]
    head += [f"{label}: {escape(value)}" for label, value in summary.headline]
    head.append(f"outcome: [bold]{escape(summary.outcome)}[/bold]")
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


def print_cost(
    console: Console, store: EventStore, run_id: str, prices: dict[str, Price]
) -> None:
    """The run's cost from the usage its calls recorded (docs/providers.md, "Usage and
    cost"), one line after the summary."""
    from maai.runtime.study import recorded_usage

    usage = recorded_usage(store, run_id)
    # A run of the simulated model alone, unpriced, costs nothing worth a line.
    if prices or any(model != "simulated" for model in usage.calls):
        console.print(escape(usage.describe_cost(prices)), highlight=False, soft_wrap=True)
