"""Live progress lines of a world run (``maai run``, ``maai resume``): rich markup, which
the CLI prints. The CLI is the researcher's view, so private facts may show."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from maai.domain.events import Event, ModelAttemptFailed, RunFailed
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OrderDrawn,
    OutcomeComputed,
    RoundStarted,
    WorldEnded,
)
from maai.projections.progress_lines import AttemptLines


class Progress:
    def __init__(self, config: WorldConfig) -> None:
        self.attempts = AttemptLines()
        self.config = config

    def lines(self, event: Event, state: Any) -> list[str]:
        e = event
        if isinstance(e, OrderDrawn):
            clock = self.config.world.clock(e.tick)
            return [f"[bold]Tick {e.tick}[/bold] ({clock})"]
        if isinstance(e, ActionResolved) and e.outcome != "applied":
            return [f"  [yellow]{escape(e.agent)}: {e.outcome}: {escape(e.reason or '')}[/yellow]"]
        if isinstance(e, ActionResolved) and e.kind not in ("wait",):
            return [f"  [{escape(e.location)}] {escape(e.description)}"]
        if isinstance(e, RoundStarted):
            return [f"[bold]Round {e.round}[/bold]: turn order {escape(', '.join(e.order))}"]
        if isinstance(e, ContributionRecorded) and e.amount is None:
            return [f"  [red]{escape(e.player)}: contribution missing (counts 0)[/red]"]
        if isinstance(e, OutcomeComputed):
            pays = ", ".join(f"{p} {v:.2f}" for p, v in e.payoffs.items())
            return [f"  outcome (code): total {e.total}; payoffs {escape(pays)}"]
        if isinstance(e, AnnouncementChecked):
            if e.matches:
                return ["  [green]announcement matches the computed outcome[/green]"]
            return ["  [red]wrong announcement: " + escape("; ".join(e.differences)) + "[/red]"]
        if isinstance(e, WorldEnded):
            return [f"[bold]World ended[/bold] at tick {e.tick}: {e.reason}"]
        if isinstance(e, ModelAttemptFailed):
            line = self.attempts.line(e)
            return [] if line is None else [line]
        if isinstance(e, RunFailed):
            return [f"[red]run failed: {escape(e.reason)}[/red]"]
        return []
