"""Live progress lines of a Frohlich run (``maai run``, ``maai resume``), from the events as
they land: rich markup, which the CLI prints."""

from __future__ import annotations

from rich.markup import escape

from maai.domain.events import Event, ModelAttemptFailed, RunFailed
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import (
    AnswerMissing,
    AnswerRejected,
    BallotResolved,
    DiscussionEnded,
    GroupDistributionChosen,
    PayoffAwarded,
    PollResolved,
    SpeakingOrderDrawn,
    StatementMade,
    StepStarted,
)
from maai.domain.frohlich.render import cents, tally_text
from maai.domain.frohlich.state import State
from maai.projections.progress_lines import AttemptLines

STEP_NAMES = {
    "1.1": "initial ranking",
    "1.2": "explanation and second ranking",
    "1.3": "paid round",
    "1.4": "final Phase-1 ranking",
    "2.1": "group discussion",
    "2.2": "group payment",
    "2.3": "final ranking",
}


class Progress:
    def __init__(self, config: FrohlichConfig) -> None:
        self.attempts = AttemptLines()
        self.rounds = config.phase2_rounds
        self.phase1_announced = False
        self.width = max(len(a.name) for a in config.agents)
        self._lines: list[str] = []

    def line(self, text: str) -> None:
        self._lines.append(text)

    def lines(self, event: Event, state: State) -> list[str]:
        self._lines = []
        self.on_event(event, state)
        return self._lines

    def who(self, name: str) -> str:
        return f"[cyan]{escape(name).ljust(self.width)}[/cyan]"

    def on_event(self, event: Event, state: State) -> None:
        if isinstance(event, StepStarted):
            name = STEP_NAMES.get(event.step, event.step)
            if event.agent is None:
                self.line(f"[bold]Phase 2 · {event.step} {name}[/bold]")
            elif event.step == "1.3":
                self.line(f"{self.who(event.agent)} 1.3 {name} {event.round}/4")
            else:
                if event.step == "1.1" and not self.phase1_announced:
                    self.phase1_announced = True
                    self.line("[bold]Phase 1 · agents work alone, in parallel[/bold]")
                self.line(f"{self.who(event.agent)} {event.step} {name}")
        elif isinstance(event, PayoffAwarded):
            choice = event.choice.describe() if event.choice else "no agreement"
            scope = f"round {event.round}" if event.scope == "phase1" else "Phase 2"
            self.line(
                f"{self.who(event.agent)} {scope}: {escape(choice)} → Dist. {event.distribution}, "
                f"{event.income_class.label}, paid {cents(event.payoff_cents)} "
                f"(balance {cents(event.balance_cents)})"
            )
        elif isinstance(event, AnswerRejected):
            self.line(
                f"{self.who(event.agent)} [yellow]{event.kind} rejected:[/yellow] "
                f"{escape(event.reason)}"
            )
        elif isinstance(event, AnswerMissing):
            self.line(
                f"{self.who(event.agent)} [red]{event.kind} missing after "
                f"{event.attempts} attempts[/red]"
            )
        elif isinstance(event, SpeakingOrderDrawn):
            self.line(
                f"[bold]Round {event.round}/{self.rounds}[/bold] order: {', '.join(event.order)}"
            )
        elif isinstance(event, StatementMade):
            extra = " [magenta]and proposes a vote[/magenta]" if event.proposes_vote else ""
            self.line(f"  {self.who(event.agent)} speaks{extra}")
        elif isinstance(event, PollResolved):
            answers = ", ".join(
                f"{n} {'yes' if a else 'no' if a is not None else '?'}"
                for n, a in event.answers.items()
            )
            verdict = "[green]vote held[/green]" if event.passed else "no vote"
            self.line(f"  poll: {answers} → {verdict}")
        elif isinstance(event, BallotResolved):
            if event.consensus and event.agreement is not None:
                self.line(f"  [green]consensus:[/green] {escape(event.agreement.describe())}")
            else:
                self.line(f"  ballot: {escape(tally_text(event.tally))} → no consensus")
        elif isinstance(event, DiscussionEnded):
            what = event.agreement.describe() if event.agreement else "no agreement"
            self.line(
                f"[bold]Discussion ended after {event.rounds_used} round(s):[/bold] {escape(what)}"
            )
        elif isinstance(event, GroupDistributionChosen):
            how = "drawn at random" if event.drawn else "picked by the agreed principle"
            self.line(f"  payment distribution: Dist. {event.distribution} ({how})")
        elif isinstance(event, ModelAttemptFailed):
            line = self.attempts.line(event)
            if line is not None:
                self.line(line)
        elif isinstance(event, RunFailed):
            self.line(f"[red]run failed:[/red] {escape(event.reason)}")
