"""Rules of Phase 1 (docs/frohlich.md §1–§3, §7) and of payments in both phases."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from maai.domain.frohlich.config import Multiplier
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    DistributionsDrawn,
    GroupDistributionChosen,
    PayoffAwarded,
    RoundUnpaid,
    SpeakingOrderDrawn,
)
from maai.domain.frohlich.types import INCOME_CLASSES
from maai.projections.frohlich import reference, reference_draws
from maai.projections.frohlich.calls import site_of
from maai.projections.frohlich.protocol_base import Audit, Violation, rule
from maai.projections.frohlich.reference_words import words_for

ROUNDS = 4
RANKING_STEPS = ("1.1", "1.2", "1.4", "2.3")


@rule(
    "phase1_rounds",
    "§3 1.3",
    "each agent plays Phase-1 rounds 1 to 4, each drawn once "
    "and in order; a completed run has all four for every agent",
)
def phase1_rounds(audit: Audit) -> Iterator[Violation]:
    rounds: dict[str, list[int]] = defaultdict(list)
    for entry, drawn in audit.history.each(DistributionsDrawn):
        if drawn.scope != "phase1":
            continue
        agent = drawn.agent or "?"
        expected = len(rounds[agent]) + 1
        if agent not in audit.names or drawn.round != expected or expected > ROUNDS:
            yield Violation(
                "phase1_rounds",
                entry.seq,
                f"{agent}: round {drawn.round} drawn where round {expected} was due",
            )
        rounds[agent].append(drawn.round or 0)
    if audit.history.completed:
        for name in audit.names:
            if len(rounds[name]) != ROUNDS:
                yield Violation(
                    "phase1_rounds",
                    None,
                    f"{name}: {len(rounds[name])} Phase-1 rounds in a completed run",
                )


@rule("round1_base", "§3 1.3", "round 1 uses the configured base set, unscaled (multiplier 1.0)")
def round1_base(audit: Audit) -> Iterator[Violation]:
    if audit.config.original_values:
        return  # round 1 plays situation A: the situations rule
    for (agent, rnd), (entry, drawn) in audit.phase1_tables.items():
        if rnd == 1 and (drawn.multiplier != 1.0 or drawn.distributions != audit.base):
            yield Violation(
                "round1_base",
                entry.seq,
                f"{agent}: round 1 has multiplier {drawn.multiplier} or a table "
                "other than the base set",
            )


def _within(multiplier: float, fixed: bool, config: Multiplier) -> bool:
    if config.fixed is not None:
        return fixed and multiplier == config.fixed
    assert config.low is not None and config.high is not None
    return not fixed and config.low <= multiplier <= config.high


@rule(
    "multiplier_range",
    "§3 1.3, §4 2.2",
    "multipliers of Phase-1 rounds 2-4 and of "
    "Phase 2 are the fixed value or within the configured range",
)
def multiplier_range(audit: Audit) -> Iterator[Violation]:
    for entry, drawn in audit.history.each(DistributionsDrawn):
        if drawn.scope == "phase1" and audit.config.original_values:
            continue  # no multiplier: the situations rule
        if drawn.scope == "phase1" and drawn.round == 1:
            continue
        config = (
            audit.config.phase1_multiplier
            if drawn.scope == "phase1"
            else (audit.config.phase2_multiplier)
        )
        if not _within(drawn.multiplier, drawn.fixed, config):
            yield Violation(
                "multiplier_range",
                entry.seq,
                f"{drawn.label}: multiplier {drawn.multiplier} (fixed={drawn.fixed}) "
                f"outside {config.model_dump()}",
            )


@rule(
    "scaled_tables",
    "§3 1.3",
    "every drawn table is the base set times its multiplier, rounded to whole dollars half to even",
)
def scaled_tables(audit: Audit) -> Iterator[Violation]:
    for entry, drawn in audit.history.each(DistributionsDrawn):
        if drawn.scope == "phase1" and audit.config.original_values:
            continue  # a situation's own table: the situations rule
        if not drawn.multiplier > 0:
            detail = f"{drawn.label}: multiplier must be positive, got {drawn.multiplier}"
            yield Violation("scaled_tables", entry.seq, detail)
            continue
        # The reference's own scaling: the domain's rules.scale is what this checks.
        if drawn.distributions != reference.scaled(audit.base, drawn.multiplier):
            yield Violation(
                "scaled_tables", entry.seq, f"{drawn.label}: table is not base × {drawn.multiplier}"
            )


@rule(
    "draws_reproducible",
    "§7",
    "every multiplier, class, speaking order and no-agreement "
    "draw is what the named stream of the run's seed gives",
)
def draws_reproducible(audit: Audit) -> Iterator[Violation]:
    # Every draw re-derived by reference_draws, which shares no code with the engine's; a
    # fork draws from its own seed after its fork point (docs/forks.md).
    seed_at = audit.history.config_at
    for entry, drawn in audit.history.each(DistributionsDrawn):
        if drawn.scope == "phase1" and (drawn.round == 1 or audit.config.original_values):
            continue
        config = (
            audit.config.phase1_multiplier
            if drawn.scope == "phase1"
            else (audit.config.phase2_multiplier)
        )
        expected = reference_draws.multiplier(
            config.fixed, config.low, config.high, seed_at(entry.seq).seed, drawn.label
        )
        if drawn.multiplier != expected:
            yield Violation(
                "draws_reproducible",
                entry.seq,
                f"{drawn.label}: multiplier {drawn.multiplier} is not the stream's {expected}",
            )
    for entry, paid in audit.history.each(PayoffAwarded):
        by_name = {c.value: p for c, p in audit.payment_probs(paid).items()}
        chances = [by_name[name] for name in reference.CLASSES]
        expected_class = reference_draws.income_class(
            seed_at(entry.seq).seed, paid.class_label, chances
        )
        if paid.income_class.value != expected_class:
            yield Violation(
                "draws_reproducible",
                entry.seq,
                f"{paid.class_label}: class {paid.income_class.value} is not the stream's "
                f"{expected_class}",
            )
    for entry, order in audit.history.each(SpeakingOrderDrawn):
        expected_order = reference_draws.speaking_order(
            seed_at(entry.seq).seed, order.label, audit.names, order.previous_last
        )
        if expected_order is None:
            yield Violation(
                "draws_reproducible",
                entry.seq,
                f"{order.label}: no speaking order can be drawn for {list(audit.names)}",
            )
        elif order.order != expected_order:
            yield Violation(
                "draws_reproducible",
                entry.seq,
                f"{order.label}: order {order.order} is not the stream's {expected_order}",
            )
    table = audit.phase2_table
    for entry, chosen in audit.history.each(GroupDistributionChosen):
        if chosen.drawn and chosen.label and table is not None:
            options = list(range(1, len(table[1].distributions) + 1))
            seed = seed_at(entry.seq).seed
            if chosen.distribution != reference_draws.uniform_choice(seed, chosen.label, options):
                yield Violation(
                    "draws_reproducible",
                    entry.seq,
                    f"{chosen.label}: distribution {chosen.distribution} is not the stream's",
                )


@rule(
    "rankings_recorded",
    "§3 1.1/1.2/1.4, §4 2.3",
    "each agent ranks once (or is recorded "
    "missing) at 1.1, 1.2, 1.4 and 2.3; a completed run has all four",
)
def rankings_recorded(audit: Audit) -> Iterator[Violation]:
    settled: dict[str, list[str]] = defaultdict(list)
    for entry, event in audit.history.each(AnswerAccepted, AnswerMissing):
        if event.kind != "ranking":
            continue
        step = site_of(f"{event.slot}/1").step
        if step not in RANKING_STEPS:
            yield Violation("rankings_recorded", entry.seq, f"{event.slot}: not a ranking step")
            continue
        if step in settled[event.agent]:
            yield Violation(
                "rankings_recorded", entry.seq, f"{event.agent}: ranking {step} settled twice"
            )
        settled[event.agent].append(step)
    if audit.history.completed:
        for name in audit.names:
            if sorted(settled[name]) != sorted(RANKING_STEPS):
                yield Violation(
                    "rankings_recorded",
                    None,
                    f"{name}: rankings {settled[name]} in a completed run",
                )


@rule(
    "phase1_payment",
    "§3 1.3",
    "a round with a valid choice is paid once by that choice, a "
    "round whose choice is missing is recorded unpaid; never both",
)
def phase1_payment(audit: Audit) -> Iterator[Violation]:
    settled: set[tuple[str, int]] = set()
    for entry, event in audit.history.each(PayoffAwarded, RoundUnpaid):
        if isinstance(event, PayoffAwarded) and event.scope != "phase1":
            continue
        rnd = event.round or 0
        key = (event.agent, rnd)
        slot = f"p1/{event.agent}/r{rnd}/choice"
        if key in settled:
            yield Violation("phase1_payment", entry.seq, f"{slot}: round settled twice")
        settled.add(key)
        if isinstance(event, RoundUnpaid):
            if slot not in audit.missing:
                yield Violation(
                    "phase1_payment", entry.seq, f"{slot}: unpaid without a missing choice"
                )
        elif event.choice is None or event.choice != audit.choice_of(slot):
            yield Violation(
                "phase1_payment",
                entry.seq,
                f"{slot}: paid by {event.choice} but the accepted choice is "
                f"{audit.choice_of(slot)}",
            )
    if audit.history.completed:
        for name in audit.names:
            for rnd in range(1, ROUNDS + 1):
                if (name, rnd) not in settled:
                    yield Violation("phase1_payment", None, f"{name}: round {rnd} never settled")


@rule(
    "principle_applied",
    "§2",
    "the paid distribution is the one the chosen principle picks "
    "from that round's table (Phase 1) or from the payment table (Phase-2 agreement)",
)
def principle_applied(audit: Audit) -> Iterator[Violation]:
    for entry, paid in audit.history.each(PayoffAwarded):
        if paid.choice is None:
            continue
        table = _table_for(audit, paid)
        if table is None:
            yield Violation("principle_applied", entry.seq, f"{paid.key}: no table was drawn")
            continue
        # The reference's own reading of the principles (reference.pick), not the domain's.
        letter, amount = paid.choice.principle.value, paid.choice.amount
        by_name = {c.value: p for c, p in audit.payment_probs(paid).items()}
        chances = [by_name[name] for name in reference.CLASSES]
        picked = reference.pick(letter, amount, table, chances)
        met = reference.constraint_met(letter, amount, table)
        if (picked, met) != (paid.distribution, paid.constraint_satisfied):
            yield Violation(
                "principle_applied",
                entry.seq,
                f"{paid.key}: {paid.choice.describe()} picks Distribution {picked}"
                f"{'' if met else ' (constraint unmet)'}, not {paid.distribution}"
                f"{'' if paid.constraint_satisfied else ' (constraint unmet)'}",
            )


def _table_for(audit: Audit, paid: PayoffAwarded) -> list[list[int]] | None:
    if paid.scope == "phase1":
        found = audit.phase1_tables.get((paid.agent, paid.round or 0))
    else:
        found = audit.phase2_table
    return found[1].distributions if found else None


@rule(
    "payoff_arithmetic",
    "§1, §3 1.3",
    "income is the drawn class's income in the paid "
    "distribution, payoff = income/100 cents half to even, counterfactuals likewise",
)
def payoff_arithmetic(audit: Audit) -> Iterator[Violation]:
    for entry, paid in audit.history.each(PayoffAwarded):
        table = _table_for(audit, paid)
        if table is None or not 1 <= paid.distribution <= len(table):
            yield Violation(
                "payoff_arithmetic",
                entry.seq,
                f"{paid.key}: distribution {paid.distribution} not in the table",
            )
            continue
        income = table[paid.distribution - 1][INCOME_CLASSES.index(paid.income_class)]
        if paid.income != income or paid.payoff_cents != reference.payoff_cents(paid.income):
            yield Violation(
                "payoff_arithmetic",
                entry.seq,
                f"{paid.key}: income {paid.income} / payoff {paid.payoff_cents}c, "
                f"expected {income} / {reference.payoff_cents(income)}c",
            )
        # Every distribution's income and payoff for the drawn class, read from the table
        # by the reference's own class order and rounding.
        row = reference.CLASSES.index(paid.income_class.value)
        numbers = [
            (n, d[row], reference.payoff_cents(d[row])) for n, d in enumerate(table, start=1)
        ]
        recorded = [(cf.distribution, cf.income, cf.payoff_cents) for cf in paid.counterfactuals]
        if recorded != numbers:
            yield Violation(
                "payoff_arithmetic",
                entry.seq,
                f"{paid.key}: counterfactuals {recorded} differ from the table's {numbers}",
            )
            continue
        # Which principles pick each row, in the agent's words: recomputed by the reference
        # (reference.picks_of) and named by its own table of words (reference_words).
        by_name = {c.value: p for c, p in audit.payment_probs(paid).items()}
        picks = reference.picks_of(table, [by_name[name] for name in reference.CLASSES])
        words = words_for(audit.config.language_of(paid.agent)).picks
        for cf in paid.counterfactuals:
            named = [words.pick(*p) for p in picks[cf.distribution]]
            if cf.picked_by != named:
                yield Violation(
                    "payoff_arithmetic",
                    entry.seq,
                    f"{paid.key}: Dist. {cf.distribution} is said to be picked by "
                    f"{cf.picked_by}, the principles pick it by {named}",
                )


@rule(
    "bank_balance", "§3 1.3, §4 2.2", "each agent's bank balance is the running sum of its payoffs"
)
def bank_balance(audit: Audit) -> Iterator[Violation]:
    balance: dict[str, int] = defaultdict(int)
    for entry, paid in audit.history.each(PayoffAwarded):
        balance[paid.agent] += paid.payoff_cents
        if paid.balance_cents != balance[paid.agent]:
            yield Violation(
                "bank_balance",
                entry.seq,
                f"{paid.key}: balance {paid.balance_cents}c, running sum {balance[paid.agent]}c",
            )


@rule("class_probability", "§1", "classes are drawn only among classes with positive probability")
def class_probability(audit: Audit) -> Iterator[Violation]:
    for entry, paid in audit.history.each(PayoffAwarded):
        if audit.payment_probs(paid).get(paid.income_class, 0) <= 0:
            yield Violation(
                "class_probability",
                entry.seq,
                f"{paid.key}: class {paid.income_class.value} has probability 0",
            )


@rule(
    "situations",
    "§8",
    "in original-values mode Phase-1 round k plays situation k (A-D): its table and its class "
    "probabilities, unscaled; outside it no table names a situation",
)
def situations(audit: Audit) -> Iterator[Violation]:
    original = audit.config.original_values
    for entry, drawn in audit.history.each(DistributionsDrawn):
        if not original or drawn.scope != "phase1":
            if drawn.situation is not None or drawn.class_probabilities is not None:
                yield Violation(
                    "situations", entry.seq, f"{drawn.label}: names situation {drawn.situation}"
                )
            continue
        rnd = drawn.round or 0
        if not 1 <= rnd <= ROUNDS:
            continue  # phase1_rounds reports it
        name, table, probs = reference.situation(rnd)
        recorded = drawn.class_probabilities or {}
        shown = [reference.fraction_of(recorded.get(c, 0)) for c in INCOME_CLASSES]
        if (
            drawn.situation != name
            or drawn.distributions != table
            or shown != probs
            or (drawn.multiplier, drawn.fixed) != (1.0, True)
        ):
            yield Violation(
                "situations",
                entry.seq,
                f"{drawn.label}: round {rnd} is not situation {name} as published (table, "
                "probabilities, multiplier 1)",
            )
