"""Rules that recompute what was paid and counted with ``reference`` (docs/frohlich.md
§1-§4), which shares no code with the domain: each payoff (the pick from the recorded table,
the class income, the payoff, the counterfactuals, the running balance) and each ballot's
tally, consensus and agreement. What each prompt showed is read back by ``protocol_shown``,
what each answer said by ``protocol_supported``."""

from __future__ import annotations

from collections.abc import Iterator

from maai.domain.frohlich.events import (
    BallotResolved,
    GroupDistributionChosen,
    PayoffAwarded,
    PollResolved,
)
from maai.projections.frohlich import reference
from maai.projections.frohlich.protocol_base import Audit, Violation, rule


@rule(
    "reference_payoffs",
    "§1-§4",
    "each payoff recomputed independently: the distribution the principle picks from the "
    "recorded table (closest floor or range when infeasible), the income of the drawn class, "
    "the payoff, the counterfactuals and the running balance",
)
def reference_payoffs(audit: Audit) -> Iterator[Violation]:
    run_probs = audit.reference_probs
    group = next((g for _, g in audit.history.each(GroupDistributionChosen)), None)
    balance: dict[str, int] = {}
    for entry, paid in audit.history.each(PayoffAwarded):
        if paid.scope == "phase1":
            drawn = audit.phase1_tables.get((paid.agent, paid.round or 0))
        else:
            drawn = audit.phase2_table
        if drawn is None:
            continue
        table = drawn[1].distributions
        probs = run_probs
        if paid.scope == "phase1" and audit.config.original_values and 1 <= (paid.round or 0) <= 4:
            probs = reference.situation(paid.round or 0)[2]
        expected = None
        if paid.choice is not None:
            expected = reference.pick(paid.choice.principle.value, paid.choice.amount, table, probs)
        elif paid.scope == "phase2" and group is not None:
            expected = group.distribution
        where = f"{paid.agent} {paid.scope} round {paid.round or '-'}"
        if expected is not None and expected != paid.distribution:
            yield Violation(
                "reference_payoffs",
                entry.seq,
                f"{where}: paid by Dist. {paid.distribution}, the rule picks Dist. {expected}",
            )
            continue
        row = reference.CLASSES.index(paid.income_class.value)
        income = table[paid.distribution - 1][row]
        if paid.income != income or paid.payoff_cents != reference.payoff_cents(income):
            yield Violation(
                "reference_payoffs",
                entry.seq,
                f"{where}: income {paid.income} / {paid.payoff_cents}¢, the table gives "
                f"{income} / {reference.payoff_cents(income)}¢",
            )
        for cf in paid.counterfactuals:
            other = table[cf.distribution - 1][row]
            if cf.income != other or cf.payoff_cents != reference.payoff_cents(other):
                yield Violation(
                    "reference_payoffs",
                    entry.seq,
                    f"{where}: counterfactual Dist. {cf.distribution} says {cf.income}, the "
                    f"table gives {other}",
                )
        balance[paid.agent] = balance.get(paid.agent, 0) + paid.payoff_cents
        if paid.balance_cents != balance[paid.agent]:
            yield Violation(
                "reference_payoffs",
                entry.seq,
                f"{where}: balance {paid.balance_cents}¢, the payoffs add up to "
                f"{balance[paid.agent]}¢",
            )


def _ballot_of(audit: Audit, slot: str) -> tuple[str, int | None] | None:
    found = audit.accepted.get(slot)
    if found is None or not isinstance(found[1].value, dict):
        return None
    value = found[1].value
    return (str(value.get("principle")), value.get("amount"))


@rule(
    "reference_votes",
    "§4",
    "each ballot's tally recounted from the secret ballots, consensus exactly when every "
    "ballot is valid and identical, the agreement that ballot, and a poll passes exactly "
    "when every answer is yes",
)
def reference_votes(audit: Audit) -> Iterator[Violation]:
    for entry, poll in audit.history.each(PollResolved):
        everyone = all(poll.answers.get(name) is True for name in audit.names)
        if poll.passed != everyone:
            yield Violation(
                "reference_votes",
                entry.seq,
                f"poll r{poll.round}.t{poll.turn}: passed={poll.passed}, answers {poll.answers}",
            )
    for entry, resolved in audit.history.each(BallotResolved):
        ballots = [
            _ballot_of(audit, f"p2/r{resolved.round}/t{resolved.turn}/ballot/{name}")
            for name in audit.names
        ]
        counted = reference.tally(ballots)
        recorded: dict[tuple[str, int | None] | None, int] = {}
        for line in resolved.tally:
            key = None if line.choice is None else (line.choice.principle.value, line.choice.amount)
            recorded[key] = recorded.get(key, 0) + line.count
        where = f"ballot r{resolved.round}.t{resolved.turn}"
        if recorded != counted:
            yield Violation(
                "reference_votes", entry.seq, f"{where}: tally {recorded}, ballots say {counted}"
            )
        if resolved.consensus != reference.consensus(ballots):
            yield Violation(
                "reference_votes",
                entry.seq,
                f"{where}: consensus={resolved.consensus}, the ballots say "
                f"{reference.consensus(ballots)}",
            )
        elif resolved.consensus:
            agreed = resolved.agreement
            key = None if agreed is None else (agreed.principle.value, agreed.amount)
            if key != ballots[0]:
                yield Violation(
                    "reference_votes", entry.seq, f"{where}: agreement {key}, ballots {ballots[0]}"
                )
