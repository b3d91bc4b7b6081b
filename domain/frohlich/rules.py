"""The rules of the Frohlich experiment (docs/frohlich.md §1, §2, §4, §7): pure functions over
value types.

Money is exact: probabilities are fractions, averages are fractions, incomes and payoffs are
whole numbers. Whatever a prompt shows about which principle picks which distribution is
computed here, by the same code that applies a principle to a participant's choice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import lru_cache
from math import lcm

from pydantic import Field, field_validator, model_validator

from maai.domain.frohlich.config import BASE_DISTRIBUTIONS, FrohlichConfig, Multiplier
from maai.domain.frohlich.types import (
    INCOME_CLASSES,
    Frozen,
    IncomeClass,
    Principle,
    PrincipleChoice,
)
from maai.domain.random_streams import draw_uniform, draw_weighted, exact_weight, shuffle, stream

Probabilities = Mapping[IncomeClass, Fraction]

# ---------------------------------------------------------------------------------------------
# Distributions and their statistics


class Distribution(Frozen):
    """One distribution: ``number`` is 1-based as the participants see it; incomes high..low."""

    number: int = Field(ge=1)
    incomes: tuple[int, int, int, int, int]

    @field_validator("incomes")
    @classmethod
    def _non_negative(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        # Zero is allowed: a tiny multiplier may round a small income down to $0.
        if any(x < 0 for x in value):
            raise ValueError("incomes must not be negative")
        return value

    def income(self, income_class: IncomeClass) -> int:
        return self.incomes[INCOME_CLASSES.index(income_class)]

    @property
    def floor(self) -> int:
        return min(self.incomes)

    @property
    def range_(self) -> int:
        return max(self.incomes) - min(self.incomes)


class DistributionSet(Frozen):
    """The distributions of one table, numbered 1..n in order."""

    distributions: tuple[Distribution, ...]

    @model_validator(mode="after")
    def _numbered(self) -> DistributionSet:
        numbers = [d.number for d in self.distributions]
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError("distributions must be numbered 1..n in order")
        return self

    @classmethod
    def from_incomes(cls, rows: Sequence[Sequence[int]]) -> DistributionSet:
        # Validating the models costs more than the rules that use them, and the decider
        # asks for the same few tables on every walk: they are immutable, so share them.
        return _distribution_set(tuple(tuple(row) for row in rows))

    def get(self, number: int) -> Distribution:
        if not 1 <= number <= len(self.distributions):
            raise KeyError(number)
        return self.distributions[number - 1]


@lru_cache(maxsize=1024)
def _distribution_set(rows: tuple[tuple[int, ...], ...]) -> DistributionSet:
    return DistributionSet(
        distributions=tuple(
            Distribution(number=i, incomes=row)  # type: ignore[arg-type]
            for i, row in enumerate(rows, 1)
        )
    )


def base_set(config: FrohlichConfig | None = None) -> DistributionSet:
    """The configured base set (docs/frohlich.md §1's table when none is configured)."""
    rows = BASE_DISTRIBUTIONS if config is None else config.base_distributions()
    return DistributionSet.from_incomes(rows)


def exact_probabilities(
    probs: Mapping[IncomeClass, float | Fraction],
) -> dict[IncomeClass, Fraction]:
    """Class probabilities as exact fractions (0.05 → 1/20), in class order.

    The config accepts sums within 1e-9 of 1; a sum that is not exactly 1 (e.g. three times
    0.3333333333333333) is normalized so the result is a probability distribution.
    """
    missing = [c.value for c in INCOME_CLASSES if c not in probs]
    if missing:
        raise ValueError(f"missing probabilities for: {', '.join(missing)}")
    exact = {c: exact_weight(probs[c]) for c in INCOME_CLASSES}
    if any(p < 0 for p in exact.values()):
        raise ValueError("probabilities must not be negative")
    total = sum(exact.values(), Fraction(0))
    if total <= 0:
        raise ValueError("probabilities must not all be zero")
    return {c: p / total for c, p in exact.items()}


def config_probabilities(config: FrohlichConfig) -> dict[IncomeClass, Fraction]:
    return exact_probabilities(config.class_probabilities)


DEFAULT_PROBABILITIES: dict[IncomeClass, Fraction] = exact_probabilities(
    {
        IncomeClass.HIGH: 0.05,
        IncomeClass.MEDIUM_HIGH: 0.10,
        IncomeClass.MEDIUM: 0.50,
        IncomeClass.MEDIUM_LOW: 0.25,
        IncomeClass.LOW: 0.10,
    }
)


def floor(dist: Distribution) -> int:
    return dist.floor


def range_(dist: Distribution) -> int:
    return dist.range_


def average(dist: Distribution, probs: Mapping[IncomeClass, float | Fraction]) -> Fraction:
    """The probability-weighted mean income (divided by the total weight, so it stays a mean
    even for weights that do not sum to one)."""
    return _mean(dist.incomes, _weights(probs))


def _weights(probs: Mapping[IncomeClass, float | Fraction]) -> tuple[Fraction, ...]:
    return _exact_weights(tuple(probs[c] for c in INCOME_CLASSES))


@lru_cache(maxsize=64)
def _exact_weights(weights: tuple[float | Fraction, ...]) -> tuple[Fraction, ...]:
    return tuple(exact_weight(w) for w in weights)


# Fraction arithmetic is slow and the decider asks for the same few tables' averages over and
# over (every walk of the protocol, every prompt, every audit): the values are pure, so cache.
@lru_cache(maxsize=4096)
def _mean(incomes: tuple[int, ...], weights: tuple[Fraction, ...]) -> Fraction:
    # Exact, in whole numbers: the weights over their common denominator.
    scaled = _whole_weights(weights)
    return Fraction(sum(w * x for w, x in zip(scaled, incomes, strict=True)), sum(scaled))


@lru_cache(maxsize=64)
def _whole_weights(weights: tuple[Fraction, ...]) -> tuple[int, ...]:
    denominator = lcm(*(w.denominator for w in weights))
    return tuple(w.numerator * (denominator // w.denominator) for w in weights)


# ---------------------------------------------------------------------------------------------
# Applying a principle (docs/frohlich.md §2)


class Application(Frozen):
    distribution_number: int
    constraint_satisfied: bool = True


def apply_principle(
    choice: PrincipleChoice, dset: DistributionSet, probs: Probabilities
) -> Application:
    """The distribution ``choice`` picks from ``dset``. Never raises for a valid choice."""
    return _apply(choice.principle, choice.amount, dset, _averages(dset, _weights(probs)))


def _averages(dset: DistributionSet, weights: tuple[Fraction, ...]) -> dict[int, Fraction]:
    """Each distribution's average income, by number."""
    return {d.number: _mean(d.incomes, weights) for d in dset.distributions}


def _apply(
    principle: Principle,
    amount: int | None,
    dset: DistributionSet,
    avg: Mapping[int, Fraction],
) -> Application:
    """``apply_principle`` given the table's averages (``_explain`` applies every principle
    at many amounts to one table: the averages, exact fractions, are computed once)."""
    dists = dset.distributions

    def best_average(candidates: Sequence[Distribution]) -> Distribution:
        return min(candidates, key=lambda d: (-avg[d.number], d.number))

    if principle is Principle.FLOOR:
        pick = min(dists, key=lambda d: (-d.floor, d.number))
        return Application(distribution_number=pick.number)
    if principle is Principle.AVERAGE:
        return Application(distribution_number=best_average(dists).number)
    assert amount is not None  # a PrincipleChoice has an amount for (c) and (d)
    if principle is Principle.FLOOR_CONSTRAINT:
        feasible = [d for d in dists if d.floor >= amount]
        closest = min(dists, key=lambda d: (-d.floor, -avg[d.number], d.number))
    else:
        feasible = [d for d in dists if d.range_ <= amount]
        closest = min(dists, key=lambda d: (d.range_, -avg[d.number], d.number))
    if feasible:
        return Application(distribution_number=best_average(feasible).number)
    return Application(distribution_number=closest.number, constraint_satisfied=False)


# ---------------------------------------------------------------------------------------------
# Explaining which principle picks which distribution (step 1.2 and the payoff feedback)


class Pick(Frozen):
    """One way a principle arrives at a distribution.

    (a) and (b) pick directly (no amounts). For (c) and (d) the pick holds for every amount
    from ``min_amount`` to ``max_amount`` inclusive (``None``: no upper bound);
    ``constraint_satisfied`` is False where no distribution meets the constraint.
    """

    principle: Principle
    distribution_number: int
    min_amount: int | None = None
    max_amount: int | None = None
    constraint_satisfied: bool = True

    def covers(self, amount: int) -> bool:
        if self.min_amount is None:
            return True
        return self.min_amount <= amount and (self.max_amount is None or amount <= self.max_amount)


class DistributionFacts(Frozen):
    number: int
    floor: int
    range: int
    average: Fraction


class PrincipleExplanation(Frozen):
    """Everything a participant is told about how the principles pick from one table."""

    distributions: tuple[DistributionFacts, ...]
    floor_pick: Pick
    average_pick: Pick
    floor_constraint: tuple[Pick, ...]  # amounts ascending, covering 1..unbounded
    range_constraint: tuple[Pick, ...]  # amounts ascending, covering 1..unbounded

    @property
    def picks(self) -> tuple[Pick, ...]:
        return (self.floor_pick, self.average_pick, *self.floor_constraint, *self.range_constraint)

    def picks_for(self, distribution_number: int) -> tuple[Pick, ...]:
        return tuple(p for p in self.picks if p.distribution_number == distribution_number)

    def pick_for(self, choice: PrincipleChoice) -> Pick:
        return next(
            p
            for p in self.picks
            if p.principle is choice.principle
            and (choice.amount is None or p.covers(choice.amount))
        )


def explain_principles(dset: DistributionSet, probs: Probabilities) -> PrincipleExplanation:
    return _explain(dset, _weights(probs))


@lru_cache(maxsize=1024)
def _explain(dset: DistributionSet, weights: tuple[Fraction, ...]) -> PrincipleExplanation:
    avg = _averages(dset, weights)
    facts = tuple(
        DistributionFacts(number=d.number, floor=d.floor, range=d.range_, average=avg[d.number])
        for d in dset.distributions
    )
    direct = {
        p: Pick(principle=p, distribution_number=_apply(p, None, dset, avg).distribution_number)
        for p in (Principle.FLOOR, Principle.AVERAGE)
    }
    return PrincipleExplanation(
        distributions=facts,
        floor_pick=direct[Principle.FLOOR],
        average_pick=direct[Principle.AVERAGE],
        floor_constraint=_amount_picks(Principle.FLOOR_CONSTRAINT, dset, avg),
        range_constraint=_amount_picks(Principle.RANGE_CONSTRAINT, dset, avg),
    )


def _amount_picks(
    principle: Principle, dset: DistributionSet, avg: Mapping[int, Fraction]
) -> tuple[Pick, ...]:
    # The set of distributions meeting "floor >= X" changes only where X passes a floor
    # (at floor + 1), and "range <= X" only where X reaches a range; between those points the
    # pick is constant, so applying the rule at each interval's start describes every X.
    if principle is Principle.FLOOR_CONSTRAINT:
        points = {d.floor + 1 for d in dset.distributions}
    else:
        points = {d.range_ for d in dset.distributions}
    starts = sorted({1} | {p for p in points if p > 1})
    picks: list[Pick] = []
    for i, start in enumerate(starts):
        end = starts[i + 1] - 1 if i + 1 < len(starts) else None
        app = _apply(principle, start, dset, avg)
        previous = picks[-1] if picks else None
        if (
            previous is not None
            and previous.distribution_number == app.distribution_number
            and previous.constraint_satisfied == app.constraint_satisfied
        ):
            picks[-1] = previous.model_copy(update={"max_amount": end})
            continue
        picks.append(
            Pick(
                principle=principle,
                distribution_number=app.distribution_number,
                min_amount=start,
                max_amount=end,
                constraint_satisfied=app.constraint_satisfied,
            )
        )
    return tuple(picks)


class Counterfactual(Frozen):
    """What one distribution would have paid in a given class, and which principles pick it."""

    distribution_number: int
    income: int
    payoff_cents: int
    picked_by: tuple[Pick, ...]


def counterfactuals(
    dset: DistributionSet, income_class: IncomeClass, probs: Probabilities
) -> tuple[Counterfactual, ...]:
    explanation = explain_principles(dset, probs)
    return tuple(
        Counterfactual(
            distribution_number=d.number,
            income=d.income(income_class),
            payoff_cents=payoff_cents(d.income(income_class)),
            picked_by=explanation.picks_for(d.number),
        )
        for d in dset.distributions
    )


# ---------------------------------------------------------------------------------------------
# Money


def scale(dset: DistributionSet, multiplier: float) -> DistributionSet:
    """Every income times ``multiplier``, rounded to the whole dollar, half to even.

    The multiplier is read as the decimal it prints as, so 1.15 means exactly 1.15.
    """
    factor = Decimal(repr(multiplier))
    if not factor > 0:
        raise ValueError(f"multiplier must be positive, got {multiplier}")

    def times(income: int) -> int:
        return int((Decimal(income) * factor).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))

    return DistributionSet(
        distributions=tuple(
            Distribution(number=d.number, incomes=tuple(times(x) for x in d.incomes))  # type: ignore[arg-type]
            for d in dset.distributions
        )
    )


def payoff_cents(income: int) -> int:
    """$1 per $10,000 of income, in cents (income / 100), rounded half to even."""
    if income < 0:
        raise ValueError("income must not be negative")
    cents, rest = divmod(income, 100)
    if rest > 50 or (rest == 50 and cents % 2 == 1):
        cents += 1
    return cents


# ---------------------------------------------------------------------------------------------
# Draws (every one from a named stream, docs/frohlich.md §7)


def multiplier_for(multiplier_config: Multiplier, seed: int, label: str) -> float:
    if multiplier_config.fixed is not None:
        return multiplier_config.fixed
    assert multiplier_config.low is not None and multiplier_config.high is not None
    return draw_uniform(seed, label, multiplier_config.low, multiplier_config.high)


def draw_class(seed: int, label: str, probs: Mapping[IncomeClass, float | Fraction]) -> IncomeClass:
    return draw_weighted(seed, label, INCOME_CLASSES, [probs[c] for c in INCOME_CLASSES])


def speaking_order(
    seed: int, label: str, agents: Sequence[str], previous_last: str | None
) -> list[str]:
    """A fresh random order in which ``previous_last`` (last speaker of the previous round) does
    not speak first.

    When the shuffle puts that agent first, it swaps places with a speaker drawn from a
    sub-stream. Both steps are uniform, so every allowed order stays equally likely.
    """
    if len(agents) < 2:
        raise ValueError("a speaking order needs at least two agents")
    if len(set(agents)) != len(agents):
        raise ValueError("agent names must be unique")
    order = shuffle(seed, label, agents)
    if previous_last is not None and order[0] == previous_last:
        other = stream(seed, f"{label}/swap").randrange(1, len(order))
        order[0], order[other] = order[other], order[0]
    return order


# ---------------------------------------------------------------------------------------------
# Ballots (docs/frohlich.md §4)


def ballot_key(ballot: PrincipleChoice) -> tuple[str, int]:
    """What makes two ballots the same: principle and amount (0 for (a)/(b))."""
    return (ballot.principle.value, ballot.amount or 0)


def is_consensus(ballots: Sequence[PrincipleChoice | None]) -> bool:
    """Every ballot valid (``None`` = invalid or missing) and all identical."""
    if not ballots or any(b is None for b in ballots):
        return False
    return len({ballot_key(b) for b in ballots if b is not None}) == 1


def tally(ballots: Sequence[PrincipleChoice | None]) -> list[tuple[PrincipleChoice | None, int]]:
    """Counts per principle and amount, ordered by principle then amount, invalid last; the
    order never depends on who voted or in which order ballots arrived."""
    valid = Counter(ballot_key(b) for b in ballots if b is not None)
    by_key = {ballot_key(b): b for b in ballots if b is not None}
    result: list[tuple[PrincipleChoice | None, int]] = [
        (by_key[key], valid[key]) for key in sorted(valid)
    ]
    invalid = sum(1 for b in ballots if b is None)
    if invalid:
        result.append((None, invalid))
    return result
