"""The public Phase-2 discussion as Markdown: what every participant could see, and the
payment that followed. Private reasoning and individual ballots never appear here; a failed
poll's answers do, because they became public (docs/frohlich.md §4)."""

from __future__ import annotations

from collections.abc import Sequence

from maai.domain.events import Event
from maai.domain.frohlich import render
from maai.domain.frohlich.events import (
    BallotResolved,
    DiscussionEnded,
    DistributionsDrawn,
    GroupDistributionChosen,
    PayoffAwarded,
    PollResolved,
    SpeakingOrderDrawn,
    StatementMade,
)
from maai.projections.history import History


def transcript(history: History) -> str:
    config = history.config
    lines = [f"# Phase-2 discussion of run {history.run_id}", ""]
    if config is not None:
        lines += [
            f"- Participants: {', '.join(history.agent_names)}",
            f"- Discussion rounds allowed: {config.phase2_rounds}",
        ]
    lines += [f"- Run status: {history.status}", ""]
    public = (SpeakingOrderDrawn, StatementMade, PollResolved, BallotResolved)
    phase2 = [event for _, event in history.each(*public)]
    if not phase2:
        lines += ["The discussion has not started.", ""]
    for event in phase2:
        lines += _public_lines(event, history.agent_names)
    lines += _ending(history)
    lines += _payment(history)
    return "\n".join(lines).rstrip("\n") + "\n"


def _public_lines(event: Event, names: Sequence[str]) -> list[str]:
    if isinstance(event, SpeakingOrderDrawn):
        return [f"## Round {event.round}", "", f"Speaking order: {', '.join(event.order)}", ""]
    if isinstance(event, StatementMade):
        quoted = [f"> {line}".rstrip() for line in event.text.strip().splitlines()] or [">"]
        out = [f"**{event.agent}** (turn {event.turn}):", "", *quoted, ""]
        if event.proposes_vote:
            out += [f"*{event.agent} proposes a vote.*", ""]
        return out
    if isinstance(event, PollResolved):
        answers = ", ".join(f"{name}: {_yes_no(a)}" for name, a in event.answers_in(names))
        if event.passed:
            return [f"Vote now? {answers}. Everyone agreed: a secret ballot is held.", ""]
        return [f"Vote now? {answers}. Not everyone agreed: no vote is held.", ""]
    if isinstance(event, BallotResolved):
        tally = render.tally_text(event.tally)
        if event.consensus and event.agreement is not None:
            verdict = f"Consensus on {event.agreement.describe()}."
        else:
            verdict = "No consensus; the discussion continues."
        return [f"**Secret ballot** — tally: {tally}. {verdict}", ""]
    return []


def _yes_no(answer: bool | None) -> str:
    if answer is None:
        return "no answer"
    return "yes" if answer else "no"


def _ending(history: History) -> list[str]:
    ended = history.of(DiscussionEnded)
    if not ended:
        return ["## Outcome", "", "The discussion has not ended.", ""]
    event = ended[-1][1]
    rounds = f"after {event.rounds_used} round{'s' if event.rounds_used != 1 else ''}"
    if event.agreement is not None:
        text = f"The group agreed {rounds} on {event.agreement.describe()}."
    else:
        text = f"No agreement {rounds}."
    return ["## Outcome", "", text, ""]


def _payment(history: History) -> list[str]:
    drawn = [d for _, d in history.each(DistributionsDrawn) if d.scope == "phase2"]
    chosen = history.of(GroupDistributionChosen)
    if not drawn:
        return []
    table = drawn[-1]
    lines = [
        "## Phase-2 payment",
        "",
        f"Payment distributions (base set × {table.multiplier!r}):",
        "",
        render.distribution_table(table.distributions),
        "",
    ]
    if chosen:
        pick = chosen[-1][1]
        if pick.drawn:
            lines.append(
                f"Without agreement, Distribution {pick.distribution} was drawn at random."
            )
        else:
            note = (
                ""
                if pick.constraint_satisfied
                else " (no distribution meets the constraint; the closest was chosen)"
            )
            lines.append(f"The agreed principle selects Distribution {pick.distribution}{note}.")
        lines.append("")
    paid = [p for _, p in history.each(PayoffAwarded) if p.scope == "phase2"]
    if paid:
        lines += ["| Participant | Income class | Income | Payoff |", "|---|---|---:|---:|"]
        lines += [
            f"| {p.agent} | {p.income_class.label} | {render.dollars(p.income)} | "
            f"{render.cents(p.payoff_cents)} |"
            for p in paid
        ]
        lines.append("")
    return lines
