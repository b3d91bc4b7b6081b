"""The world's protocol audit (docs/world.md §9): machine-checked rules over a run's history.
The rules recompute what they check with their own small code (positions replayed from the
world file and the applied moves; payoffs with their own arithmetic), sharing nothing with
``domain/world/apply.py`` or ``pgg.py``: a bug there shows up here."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import ROUND_HALF_EVEN, Decimal

from maai.domain.answers import AnswerRead
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OrderDrawn,
    OutcomeComputed,
)
from maai.projections.audit import (
    ProtocolReport,
    Rule,
    Rules,
    Violation,
    add_record_rules,
    audit_configured,
)
from maai.projections.history import Entry, History
from maai.projections.world.plan_audit import plan_queue_violations

RULES = Rules()
rule = RULES.rule
SPEC = "docs/world.md"


class Audit:
    def __init__(self, history: History, config: WorldConfig) -> None:
        self.history = history
        self.config = config

    def replay(self) -> Iterator[tuple[Entry, ActionResolved, dict[str, str], dict[str, str]]]:
        """Each action with the positions just before and just after it."""
        positions = {a.name: a.start for a in self.config.world.agents}
        for entry, e in self.history.each(ActionResolved):
            before = dict(positions)
            if e.kind == "move" and e.outcome == "applied" and e.to is not None:
                positions[e.agent] = e.to
            yield entry, e, before, dict(positions)


def _at(positions: dict[str, str], where: str, names: list[str]) -> list[str]:
    return [a for a in names if positions.get(a) == where]


add_record_rules(RULES, f"{SPEC} §2")


@rule(
    "drawn_order",
    f"{SPEC} §2",
    "each tick's order is a permutation of the agents, and its actions are applied in it",
)
def drawn_order(audit: Audit) -> Iterator[Violation]:
    orders = {e.tick: (entry, e) for entry, e in audit.history.each(OrderDrawn)}
    names = sorted(audit.config.names)
    for entry, e in orders.values():
        if sorted(e.order) != names:
            yield Violation("drawn_order", entry.seq, f"tick {e.tick}: order is not the agents")
    for entry, act in audit.history.each(ActionResolved):
        held = orders.get(act.tick)
        if held is None:
            yield Violation("drawn_order", entry.seq, f"tick {act.tick}: no drawn order")
        elif held[1].order[act.position : act.position + 1] != [act.agent]:
            yield Violation("drawn_order", entry.seq, f"{act.agent} out of the drawn order")


@rule(
    "witnesses",
    f"{SPEC} §3",
    "the witnesses of an applied action are exactly the agents present (a move: where the "
    "agent left and where it arrived), as are a missing contribution's; a refused or other "
    "missing action's, the actor alone",
)
def witnesses(audit: Audit) -> Iterator[Violation]:
    names = audit.config.names
    missing_contributions = {
        (e.player, e.tick) for _, e in audit.history.each(ContributionRecorded) if e.amount is None
    }
    for entry, e, before, after in audit.replay():
        if e.kind == "missing" and (e.agent, e.tick) in missing_contributions:
            expected = set(_at(before, e.location, names))
        elif e.outcome != "applied" or e.kind in ("done", "failed"):
            expected = {e.agent}
        elif e.kind == "move":
            expected = set(_at(before, e.location, names)) | set(_at(after, e.to or "", names))
        else:
            expected = set(_at(before, e.location, names))
        if set(e.witnesses) != expected:
            detail = f"{e.agent} tick {e.tick}: witnesses {sorted(e.witnesses)}, present "
            yield Violation("witnesses", entry.seq, detail + str(sorted(expected)))
        if before.get(e.agent) != e.location:
            yield Violation("witnesses", entry.seq, f"{e.agent} was not in {e.location}")


def _allowed(audit: Audit) -> dict[str, set[str] | None]:
    """Who may enter each location, read from the world file's ``allowed`` lists (None:
    everyone). The audit's own reading: the engine's ``admits`` is what it checks."""
    return {
        loc.name: None if loc.allowed == "all" else set(loc.allowed)
        for loc in audit.config.world.locations
    }


@rule("access", f"{SPEC} §1", "no agent is ever in a location it may not enter")
def access(audit: Audit) -> Iterator[Violation]:
    allowed = _allowed(audit)
    for entry, e, _, after in audit.replay():
        where = after[e.agent]
        if where not in allowed:
            yield Violation("access", entry.seq, f"{e.agent} is in {where}, not a location")
            continue
        who = allowed[where]
        if who is not None and e.agent not in who:
            yield Violation("access", entry.seq, f"{e.agent} is in {where}, not allowed")


@rule(
    "capacity",
    f"{SPEC} §1, §5",
    "no location ever holds more agents than its capacity, nor the contribution room two players",
)
def capacity(audit: Audit) -> Iterator[Violation]:
    config = audit.config
    for entry, e, _, after in audit.replay():
        if e.kind != "move" or e.outcome != "applied" or e.to is None:
            continue
        inside = _at(after, e.to, config.names)
        caps = {loc.name: loc.capacity for loc in config.world.locations}
        cap = caps.get(e.to)
        if cap is not None and len(inside) > cap:
            yield Violation("capacity", entry.seq, f"{e.to} holds {len(inside)} (at most {cap})")
        game = config.game
        if game is not None and e.to == game.contribution_room:
            players = [a for a in inside if a in config.players]
            if len(players) > 1:
                yield Violation("capacity", entry.seq, f"{e.to} holds players {players}")


@rule(
    "attempts_bounded",
    f"{SPEC} §4",
    "no question is asked more often than its attempts allow",
)
def attempts_bounded(audit: Audit) -> Iterator[Violation]:
    limits = {"act": audit.config.attempts.action, "importance": audit.config.attempts.importance}
    for entry, e in audit.history.each(AnswerRead):
        limit = limits.get(e.kind)
        if limit is not None and e.attempt > limit:
            yield Violation("attempts_bounded", entry.seq, f"{e.address}: attempt {e.attempt}")


@rule(
    "contributions",
    f"{SPEC} §5",
    "each contribution is a whole number 0..endowment (or missing), one per player and "
    "round, made in the contribution room",
)
def contributions(audit: Audit) -> Iterator[Violation]:
    config = audit.config
    if config.game is None:
        return
    seen: set[tuple[int, str]] = set()
    for entry, e in audit.history.each(ContributionRecorded):
        if (e.round, e.player) in seen:
            yield Violation("contributions", entry.seq, f"{e.player} twice in round {e.round}")
        seen.add((e.round, e.player))
        if e.amount is not None and not 0 <= e.amount <= config.endowment(e.player):
            yield Violation("contributions", entry.seq, f"{e.player}: {e.amount} out of range")
    for entry, act, before, _ in audit.replay():
        applied = act.kind == "contribute" and act.outcome == "applied"
        if applied and before[act.agent] != config.game.contribution_room:
            yield Violation("contributions", entry.seq, f"{act.agent} not in the room")


def _payoff(endowment: int, c: int, total: int, m: float, n: int) -> Decimal:
    value = Decimal(endowment - c) + Decimal(str(m)) * Decimal(total) / Decimal(n)
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


@rule(
    "payoffs",
    f"{SPEC} §5",
    "each round's payoffs are endowment − c + m·Σc/N (half-even, 2 decimals), from the "
    "recorded contributions (missing counts 0)",
)
def payoffs(audit: Audit) -> Iterator[Violation]:
    config = audit.config
    if config.game is None:
        return
    held: dict[int, dict[str, int]] = {}
    for _, c in audit.history.each(ContributionRecorded):
        held.setdefault(c.round, {})[c.player] = c.amount or 0
    for entry, e in audit.history.each(OutcomeComputed):
        amounts = held.get(e.round, {})
        if sorted(amounts) != sorted(config.players):
            yield Violation("payoffs", entry.seq, f"round {e.round}: contributions incomplete")
            continue
        total = sum(amounts.values())
        m, n = config.game.multiplier, len(config.players)
        for p in config.players:
            want = _payoff(config.endowment(p), amounts[p], total, m, n)
            if Decimal(str(e.payoffs.get(p))) != want:
                yield Violation("payoffs", entry.seq, f"{p}: {e.payoffs.get(p)} ≠ {want}")


@rule(
    "announcement",
    f"{SPEC} §5",
    "each announcement is checked against the computed outcome and recorded as it was said",
)
def announcement(audit: Audit) -> Iterator[Violation]:
    outcomes = {e.round: e for _, e in audit.history.each(OutcomeComputed)}
    said = [e for _, e in audit.history.each(ActionResolved) if e.kind == "announce"]
    for entry, e in audit.history.each(AnnouncementChecked):
        outcome = outcomes.get(e.round)
        if outcome is None or e.computed != outcome.payoffs:
            yield Violation("announcement", entry.seq, f"round {e.round}: not the outcome")
            continue
        same = all(
            abs(Decimal(str(e.announced.get(p, "NaN"))) - Decimal(str(v))) < Decimal("0.005")
            for p, v in outcome.payoffs.items()
        ) and set(e.announced) <= set(outcome.payoffs)
        if same != e.matches:
            yield Violation("announcement", entry.seq, f"round {e.round}: verdict is wrong")
        if not any(a.payoffs == e.announced and a.tick == e.tick for a in said):
            yield Violation("announcement", entry.seq, f"round {e.round}: not what was said")


@rule(
    "plans",
    f"{SPEC} §4",
    "each agent's plans form a queue: at most max_plans new plans per answer, queued last "
    "(postponed: first, in order); when the current plan ends the next one is promoted at "
    "once; a plan expires when its max ticks, counted from when it became current, are "
    "spent, and never outlives them",
)
def plans(audit: Audit) -> Iterator[Violation]:
    return plan_queue_violations(audit.history, audit.config)


def all_rules() -> list[Rule]:
    return list(RULES.rules)


def audit_protocol(history: History) -> ProtocolReport:
    return audit_configured(history, RULES, WorldConfig, Audit)
