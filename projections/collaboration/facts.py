"""The facts of a collaboration run as the projections read them: beliefs with the answer
each was read from and the partner's belief at that moment, messages, decisions, the
lottery partner, points and the end of the game, each with its ledger entry."""

from __future__ import annotations

from dataclasses import dataclass

from maai.domain.answers import AnswerAccepted, AnswerMissing
from maai.domain.collaboration import rules
from maai.domain.collaboration.config import CollaborationConfig, OptionConfig
from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    GameEnded,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.projections.history import Entry, History

BELIEF_KINDS = ("initial", "turn", "update")


def config_of(history: History) -> CollaborationConfig | None:
    config = history.config
    return config if isinstance(config, CollaborationConfig) else None


@dataclass(frozen=True)
class Stated:
    """A belief.stated event, the accepted answer it was read from, and the partner's latest
    belief recorded before it (only where the agent made a prediction: the initial beliefs
    are simultaneous)."""

    entry: Entry
    event: BeliefStated
    answer: tuple[Entry, AnswerAccepted] | None
    partner_belief: int | None

    @property
    def kind(self) -> str:
        return "initial" if self.event.step == 0 else "update"

    @property
    def prediction_error(self) -> int | None:
        if self.event.prediction is None or self.partner_belief is None:
            return None
        return self.event.prediction - self.partner_belief


def belief_answers(history: History, agent: str) -> list[tuple[Entry, AnswerAccepted]]:
    """The agent's accepted belief answers (initial, turn, update), in seq order."""
    return [
        (e, a)
        for e, a in history.each(AnswerAccepted)
        if a.agent == agent and a.kind in BELIEF_KINDS
    ]


def beliefs(history: History) -> list[Stated]:
    """Every stated belief in seq order. Each agent's n-th belief was read from its n-th
    accepted belief answer (a missing answer leaves neither)."""
    config = config_of(history)
    answers: dict[str, list[tuple[Entry, AnswerAccepted]]] = {}
    used: dict[str, int] = {}
    latest: dict[str, int] = {}
    out: list[Stated] = []
    for entry, event in history.each(BeliefStated):
        agent = event.agent
        if agent not in answers:
            answers[agent] = belief_answers(history, agent)
        i = used.get(agent, 0)
        used[agent] = i + 1
        answer = answers[agent][i] if i < len(answers[agent]) else None
        partner = config.partner_of(agent) if config and agent in history.agent_names else None
        seen = latest.get(partner) if partner and event.prediction is not None else None
        out.append(Stated(entry, event, answer, seen))
        latest[agent] = event.belief
    return out


def messages(history: History) -> list[tuple[Entry, MessageSent]]:
    return history.of(MessageSent)


def decisions(history: History) -> dict[str, tuple[Entry, DecisionMade]]:
    out: dict[str, tuple[Entry, DecisionMade]] = {}
    for entry, event in history.each(DecisionMade):
        out.setdefault(event.agent, (entry, event))
    return out


def decision_answer(history: History, agent: str) -> tuple[Entry, AnswerAccepted] | None:
    found = [(e, a) for e, a in history.each(AnswerAccepted) if a.agent == agent]
    chosen = [(e, a) for e, a in found if a.kind == "decision"]
    return chosen[0] if chosen else None


def missing(history: History, agent: str | None = None) -> list[tuple[Entry, AnswerMissing]]:
    return [(e, m) for e, m in history.each(AnswerMissing) if agent is None or m.agent == agent]


def partner_drawn(history: History) -> tuple[Entry, PartnerDrawn] | None:
    found = history.of(PartnerDrawn)
    return found[0] if found else None


def points(history: History) -> tuple[Entry, PointsAwarded] | None:
    found = history.of(PointsAwarded)
    return found[0] if found else None


def ended(history: History) -> tuple[Entry, GameEnded] | None:
    found = history.of(GameEnded)
    return found[0] if found else None


def option_of(config: CollaborationConfig, agent: str, name: str | None) -> OptionConfig | None:
    if name is None:
        return None
    return next((o for o in config.options_of(agent) if o.name.upper() == name.upper()), None)


def option_u_star(config: CollaborationConfig, agent: str, option: OptionConfig) -> float | None:
    """The reference threshold u* of a collaborative option (the domain's ``u_star``), to
    four decimals; ``None`` for the individual option."""
    if option.kind != "collaborative":
        return None
    individual = next(o for o in config.options_of(agent) if o.kind == "individual")
    return float(round(rules.u_star(option, individual), 4))


def latest_belief(
    history: History, agent: str, before: int
) -> tuple[BeliefStated | None, int | None]:
    """The agent's latest belief and latest prediction recorded before seq ``before``."""
    belief: BeliefStated | None = None
    prediction: int | None = None
    for entry, event in history.each(BeliefStated):
        if entry.seq >= before:
            break
        if event.agent == agent:
            belief = event
            if event.prediction is not None:
                prediction = event.prediction
    return belief, prediction


def joint_points(history: History) -> int | None:
    """Both agents' points together (the game only: the baseline's lottery has none)."""
    config = config_of(history)
    awarded = points(history)
    if awarded is None or config is None or config.baseline is not None:
        return None
    return sum(awarded[1].points.values())
