"""A collaboration run as Markdown, for the researcher: the messages in order, each with the
sender's belief and prediction at that turn and the receiver's update after reading it, in
blocks marked **private** (no partner ever saw them); then the decisions, the points and the
outcome, and for the baseline the lottery draw."""

from __future__ import annotations

from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import BeliefStated
from maai.projections.collaboration import facts
from maai.projections.history import History

PRIVATE = "**private**"


def transcript(history: History) -> str:
    config = facts.config_of(history)
    lines = [f"# Collaboration game, run {history.run_id}", ""]
    lines += _header(history, config)
    if config is not None:
        stated = {(s.event.agent, s.event.step): s for s in facts.beliefs(history)}
        lines += _initial(config, stated)
        if config.baseline is None:
            lines += _conversation(history, config, stated)
        lines += _decisions(history, config)
        lines += _outcome(history, config)
    return "\n".join(lines).rstrip("\n") + "\n"


def _header(history: History, config: CollaborationConfig | None) -> list[str]:
    lines = []
    if config is not None:
        agents = ", ".join(
            f"{a.name} ({a.company})" if a.company else a.name for a in config.agents
        )
        lines.append(f"- Agents: {agents}")
        if config.baseline is not None:
            lines.append(
                f"- Baseline: the partner is a lottery that collaborates with probability "
                f"{config.baseline.p:g}; no messages"
            )
        else:
            disclose = "shown" if config.disclose_initial_belief else "not shown"
            lines += [
                f"- Exchanges: {config.exchanges} ({2 * config.exchanges} messages); "
                f"message rule: {config.message_rule}",
                f"- The partner's initial belief at the decision: {disclose}",
            ]
        u = ", ".join(f"{a.name} {a.u_value:g}" for a in config.agents)
        lines.append(f"- u-values (shown to each agent at its decision only): {u}")
    lines += [
        f"- Run status: {history.status}",
        "",
        f"Lines marked {PRIVATE} are an agent's own beliefs, predictions and reasoning: its "
        "partner never saw them.",
        "",
    ]
    return lines


Stated = dict[tuple[str, int], facts.Stated]


def _belief_text(stated: facts.Stated | None, partner: str | None) -> str:
    if stated is None:
        return "no belief recorded"
    event: BeliefStated = stated.event
    text = f"belief {event.belief}"
    if event.prediction is not None and partner is not None:
        text += f"; predicts {partner} at {event.prediction}"
        if stated.partner_belief is not None:
            error = stated.prediction_error
            text += f" ({partner}'s latest belief {stated.partner_belief}, error {error:+d})"
    if event.reasoning:
        text += f"; reasoning: “{_flat(event.reasoning)}”"
    return text


def _flat(text: str) -> str:
    return " ".join(text.split())


def _initial(config: CollaborationConfig, stated: Stated) -> list[str]:
    lines = ["## Step 1 · initial beliefs", ""]
    for agent in config.agents:
        found = stated.get((agent.name, 0))
        lines.append(f"- {PRIVATE} · {agent.name}: {_belief_text(found, None)}")
    return [*lines, ""]


def _conversation(history: History, config: CollaborationConfig, stated: Stated) -> list[str]:
    lines = ["## Conversation", ""]
    sent = facts.messages(history)
    if not sent:
        return [*lines, "No message yet.", ""]
    for entry, message in sent:
        sender = message.agent
        receiver = config.partner_of(sender) or ""
        lines.append(f"### Message {message.index} · {sender} → {receiver} (seq {entry.seq})")
        lines.append("")
        if message.text is None:
            lines.append("*(no readable message: the partner was told so)*")
        else:
            lines += [f"> {line}".rstrip() for line in message.text.strip().splitlines()] or [">"]
        lines.append("")
        if message.breaches:
            lines += ["Rule breaches flagged: " + "; ".join(message.breaches), ""]
        step = 0 if message.index == 1 else message.index
        when = "initial belief" if step == 0 else f"step {step}"
        lines.append(
            f"- {PRIVATE} · {sender} when writing it ({when}): "
            f"{_belief_text(stated.get((sender, step)), receiver)}"
        )
        lines.append(
            f"- {PRIVATE} · {receiver} after reading it (step {message.index + 1}): "
            f"{_belief_text(stated.get((receiver, message.index + 1)), sender)}"
        )
        lines.append("")
    return lines


def _decisions(history: History, config: CollaborationConfig) -> list[str]:
    made = facts.decisions(history)
    lines = ["## Decisions", ""]
    if not made:
        return [*lines, "No decision yet.", ""]
    awarded = facts.points(history)
    lines += [
        "| agent | choice | strategy | points | u | u* of the choice |",
        "|---|---|---|---:|---:|---:|",
    ]
    private = []
    for agent in config.agents:
        found = made.get(agent.name)
        if found is None:
            continue
        event = found[1]
        option = facts.option_of(config, agent.name, event.option)
        u_star = facts.option_u_star(config, agent.name, option) if option else None
        points = awarded[1].points.get(agent.name) if awarded else None
        lines.append(
            f"| {agent.name} | {event.option or 'missing'} | {event.strategy or '—'} | "
            f"{'—' if points is None else points} | {agent.u_value:g} | "
            f"{'—' if u_star is None else f'{u_star:.4f}'} |"
        )
        if event.reasoning:
            private.append(f"- {PRIVATE} · {agent.name}'s reasoning: “{_flat(event.reasoning)}”")
    return [*lines, "", *private, *([""] if private else [])]


def _outcome(history: History, config: CollaborationConfig) -> list[str]:
    lines = []
    drawn = facts.partner_drawn(history)
    if drawn is not None:
        partner = drawn[1]
        verdict = "collaborates" if partner.collaborates else "goes individual"
        lines += [
            "## Lottery partner",
            "",
            f"Collaborates with probability p = {partner.p:g}; the draw was "
            f"{partner.draw:.4f}, so the partner {verdict}.",
            "",
        ]
    lines += ["## Outcome", ""]
    ended = facts.ended(history)
    if ended is None:
        return [*lines, "The game has not ended.", ""]
    if ended[1].outcome == "incomplete":
        return [*lines, f"Incomplete: {ended[1].reason}. No points were computed.", ""]
    awarded = facts.points(history)
    if awarded is None:
        return [*lines, "Complete, but no points are recorded.", ""]
    event = awarded[1]
    strategies = ", ".join(f"{who} {what}" for who, what in event.strategies.items())
    verdict = (
        "both collaborative"
        if event.both_collaborative
        else "mismatch"
        if event.mismatch
        else "both individual"
    )
    points = ", ".join(f"{who} {value:+d}" for who, value in event.points.items())
    lines += [f"Complete: {strategies} ({verdict}).", "", f"Points: {points}."]
    joint = facts.joint_points(history)
    if joint is not None:
        lines[-1] += f" Joint points: {joint:+d}."
    return [*lines, ""]
