"""Live progress lines of a collaboration run (``maai run``, ``maai resume``), from the
events as they land: rich markup, which the CLI prints. The CLI is the researcher's view, so
private beliefs, predictions and choices are shown."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from maai.domain.answers import AnswerMissing, AnswerRejected
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    GameEnded,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.events import Event, ModelAttemptFailed, RunFailed
from maai.projections.progress_lines import AttemptLines

MESSAGE_CHARS = 140  # a message is shown whole in the transcript


class Progress:
    def __init__(self, config: CollaborationConfig) -> None:
        self.attempts = AttemptLines()
        self.config = config
        self.width = max(len(a.name) for a in config.agents)
        self.announced: set[str] = set()
        self._lines: list[str] = []

    def lines(self, event: Event, state: Any) -> list[str]:
        self._lines = []
        self.on_event(event)
        return self._lines

    def line(self, text: str) -> None:
        self._lines.append(text)

    def section(self, key: str, title: str) -> None:
        if key not in self.announced:
            self.announced.add(key)
            self.line(f"[bold]{escape(title)}[/bold]")

    def who(self, name: str) -> str:
        return f"[cyan]{escape(name).ljust(self.width)}[/cyan]"

    def on_event(self, event: Event) -> None:
        config = self.config
        if isinstance(event, BeliefStated):
            if event.step == 0:
                self.section("initial", "Step 1 · initial beliefs (private)")
                self.line(f"  {self.who(event.agent)} initial belief {event.belief}")
            else:
                partner = escape(config.partner_of(event.agent) or "partner")
                self.line(
                    f"  {self.who(event.agent)} step {event.step}: belief {event.belief}, "
                    f"predicts {partner} at {event.prediction}"
                )
        elif isinstance(event, MessageSent):
            self.section("conversation", f"Conversation · {config.exchanges} exchange(s), public")
            to = escape(config.partner_of(event.agent) or "")
            if event.text is None:
                missing = "[red]no readable message[/red]"
                self.line(f"  {event.index}. {self.who(event.agent)} → {to}: {missing}")
                return
            said = " ".join(event.text.split())
            said = said if len(said) <= MESSAGE_CHARS else said[: MESSAGE_CHARS - 1] + "…"
            self.line(f"  {event.index}. {self.who(event.agent)} → {to}: {escape(said)}")
            if event.breaches:
                self.line(
                    f"     [yellow]{len(event.breaches)} rule breach(es):[/yellow] "
                    + escape("; ".join(event.breaches))
                )
        elif isinstance(event, DecisionMade):
            self.section("decisions", "Decisions (independent)")
            if event.option is None:
                self.line(f"  {self.who(event.agent)} [red]no readable decision[/red]")
            else:
                self.line(
                    f"  {self.who(event.agent)} chooses {escape(event.option)} ({event.strategy})"
                )
        elif isinstance(event, PartnerDrawn):
            verdict = "collaborates" if event.collaborates else "goes individual"
            self.line(f"lottery partner (p = {event.p:g}): draw {event.draw:.3f} → {verdict}")
        elif isinstance(event, PointsAwarded):
            points = ", ".join(f"{escape(a)} {p:+d}" for a, p in event.points.items())
            verdict = (
                "both collaborative"
                if event.both_collaborative
                else "[yellow]mismatch[/yellow]"
                if event.mismatch
                else "both individual"
            )
            self.line(f"[bold]Points:[/bold] {points} ({verdict})")
        elif isinstance(event, GameEnded):
            if event.outcome == "complete":
                self.line("[green]game complete[/green]")
            else:
                self.line(f"[red]game incomplete:[/red] {escape(event.reason or '')}")
        else:
            self.on_trouble(event)

    def on_trouble(self, event: Event) -> None:
        if isinstance(event, AnswerRejected):
            self.line(
                f"  {self.who(event.agent)} [yellow]{escape(event.kind)} answer rejected:"
                f"[/yellow] {escape(event.reason)}"
            )
        elif isinstance(event, AnswerMissing):
            self.line(
                f"  {self.who(event.agent)} [red]{escape(event.kind)} answer missing after "
                f"{event.attempts} attempt(s)[/red]"
            )
        elif isinstance(event, ModelAttemptFailed):
            line = self.attempts.line(event)
            if line is not None:
                self.line(line)
        elif isinstance(event, RunFailed):
            self.line(f"[red]run failed:[/red] {escape(event.reason)}")
