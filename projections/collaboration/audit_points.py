"""Rules about the numbers (docs/collaboration.md §1): strategies derived from the choices,
points by the payoff rule, mismatch, the end of the game, the baseline's lottery draw and the
reference thresholds u*, each recomputed here from the config and the recorded choices."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from maai.domain.collaboration.config import OptionConfig
from maai.domain.collaboration.events import (
    DecisionMade,
    GameEnded,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.random_streams import stream
from maai.projections.collaboration import facts
from maai.projections.collaboration.audit_base import Audit, Violation, rule

LOTTERY_STREAM = "baseline/partner"


def _chosen(audit: Audit) -> dict[str, OptionConfig | None]:
    """Each agent's chosen option as the config defines it (None: missing or not its own)."""
    out: dict[str, OptionConfig | None] = {}
    for _, made in audit.history.each(DecisionMade):
        own = (
            {o.name: o for o in audit.config.options_of(made.agent)}
            if made.agent in audit.names
            else {}
        )
        out[made.agent] = own.get(made.option or "")
    return out


def _lottery(audit: Audit) -> bool | None:
    drawn = audit.history.of(PartnerDrawn)
    if not drawn or audit.config.baseline is None:
        return None
    return drawn[0][1].draw < audit.config.baseline.p


@rule(
    "strategies_derived",
    "docs/collaboration.md §2",
    "each choice is one of the agent's own options and its strategy is that option's kind; "
    "the recorded strategies, mismatch (strategies differ) and both_collaborative follow from "
    "the choices alone",
)
def strategies_derived(audit: Audit) -> Iterator[Violation]:
    chosen = _chosen(audit)
    for entry, made in audit.history.each(DecisionMade):
        option = chosen.get(made.agent)
        if made.option is not None and option is None:
            yield Violation(
                "strategies_derived", entry.seq, f"{made.agent}: {made.option!r} is not its option"
            )
        want = option.kind if option is not None else None
        if made.strategy != want:
            detail = f"{made.agent}: strategy {made.strategy} for option {made.option}, due {want}"
            yield Violation("strategies_derived", entry.seq, detail)
    for entry, awarded in audit.history.each(PointsAwarded):
        want_all = {a: o.kind for a, o in chosen.items() if o is not None}
        partner = _lottery(audit)
        if partner is not None:
            want_all["partner"] = "collaborative" if partner else "individual"
        if awarded.strategies != want_all:
            detail = f"strategies {awarded.strategies}, the choices give {want_all}"
            yield Violation("strategies_derived", entry.seq, detail)
        kinds = list(want_all.values())
        mismatch = any(k != kinds[0] for k in kinds)
        both = bool(kinds) and all(k == "collaborative" for k in kinds)
        if awarded.mismatch != mismatch or awarded.both_collaborative != both:
            detail = (
                f"mismatch {awarded.mismatch} / both_collaborative {awarded.both_collaborative}"
                f", the choices give {mismatch} / {both}"
            )
            yield Violation("strategies_derived", entry.seq, detail)


def _earned(option: OptionConfig, partner_collaborates: bool) -> int | None:
    if option.kind == "individual":
        return option.points
    return option.upside if partner_collaborates else option.downside


@rule(
    "payoff",
    "docs/collaboration.md §1",
    "points recomputed from the config's options and the recorded choices: both collaborate → "
    "each its own option's upside; one collaborates → it gets its downside, the other its "
    "guaranteed points; both individual → each its guaranteed points (baseline: the lottery "
    "partner collaborates iff its draw < p)",
)
def payoff(audit: Audit) -> Iterator[Violation]:
    chosen = _chosen(audit)
    for entry, awarded in audit.history.each(PointsAwarded):
        want: dict[str, int | None] = {}
        for agent in audit.names:
            option = chosen.get(agent)
            if option is None:
                yield Violation("payoff", entry.seq, f"points awarded without {agent}'s choice")
                continue
            partner = audit.partner(agent)
            if partner is None:
                collaborates = _lottery(audit)
            else:
                other = chosen.get(partner)
                collaborates = None if other is None else other.kind == "collaborative"
            if collaborates is None:
                continue
            want[agent] = _earned(option, collaborates)
        if dict(awarded.points) != want:
            yield Violation("payoff", entry.seq, f"points {awarded.points}, the rule gives {want}")


@rule(
    "outcome",
    "docs/collaboration.md §2",
    "the game ends complete with points when every decision was read, incomplete without "
    "points (the reason naming whose decision is missing) otherwise",
)
def outcome(audit: Audit) -> Iterator[Violation]:
    ended = audit.history.of(GameEnded)
    awarded = audit.history.of(PointsAwarded)
    made = {d.agent: d for _, d in audit.history.each(DecisionMade)}
    if not ended:
        return  # still running (points come just before the end)
    entry, event = ended[0]
    lacking = [a for a in audit.names if a not in made or made[a].option is None]
    if event.outcome == "complete" and (lacking or not awarded):
        yield Violation("outcome", entry.seq, f"complete without points or decisions {lacking}")
    if event.outcome == "incomplete":
        if awarded or not lacking:
            yield Violation("outcome", entry.seq, "incomplete although every decision was read")
        for agent in lacking:
            if agent not in (event.reason or ""):
                yield Violation("outcome", entry.seq, f"the reason does not name {agent}")


@rule(
    "lottery_partner",
    "docs/collaboration.md §4",
    "baseline only: one lottery draw from the run's stream 'baseline/partner', with the "
    "configured p, collaborating iff draw < p",
)
def lottery_partner(audit: Audit) -> Iterator[Violation]:
    drawn = audit.history.of(PartnerDrawn)
    if audit.config.baseline is None:
        for entry, _ in drawn:
            yield Violation("lottery_partner", entry.seq, "a lottery partner outside the baseline")
        return
    p = audit.config.baseline.p
    for entry, _ in drawn[1:]:
        yield Violation("lottery_partner", entry.seq, "a second lottery draw")
    for entry, event in drawn[:1]:
        value = stream(
            audit.history.started.seed if audit.history.started else 0, LOTTERY_STREAM
        ).random()
        if event.label != LOTTERY_STREAM or event.draw != value:
            detail = f"draw {event.draw} from {event.label!r}; the seed's stream gives {value}"
            yield Violation("lottery_partner", entry.seq, detail)
        if event.p != p or event.collaborates != (event.draw < p):
            detail = f"p {event.p}, collaborates {event.collaborates}; config p {p}"
            yield Violation("lottery_partner", entry.seq, detail)


@rule(
    "u_star",
    "docs/collaboration.md §1",
    "the exported reference threshold of every collaborative option (tables, JSON log) is "
    "(Y − D)/(U − D) to 4 decimals, and the individual option has none",
)
def u_star(audit: Audit) -> Iterator[Violation]:
    for agent in audit.names:
        options = audit.config.options_of(agent)
        y = next((o.points for o in options if o.kind == "individual"), None)
        for option in options:
            exported = facts.option_u_star(audit.config, agent, option)
            want = None
            if option.kind == "collaborative" and y is not None:
                up, down = option.upside or 0, option.downside or 0
                want = float(round(Fraction(y - down, up - down), 4))
            if exported != want:
                detail = f"{agent} option {option.name}: u* {exported}, (Y − D)/(U − D) = {want}"
                yield Violation("u_star", None, detail)
