"""The vocabulary of the Frohlich experiment: principles, classes, certainty, choices, rankings.

Pure value types; every other module of the experiment speaks in these.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, model_validator


class Principle(StrEnum):
    """The four justice principles, keyed by the letters the participants see."""

    FLOOR = "a"
    AVERAGE = "b"
    FLOOR_CONSTRAINT = "c"
    RANGE_CONSTRAINT = "d"

    @property
    def needs_amount(self) -> bool:
        return self in (Principle.FLOOR_CONSTRAINT, Principle.RANGE_CONSTRAINT)

    @property  # a principle's display title; str.title is never wanted on one
    def title(self) -> str:  # type: ignore[override]
        return PRINCIPLE_TITLES[self]


PRINCIPLE_TITLES: dict[Principle, str] = {
    Principle.FLOOR: "Maximizing the floor income",
    Principle.AVERAGE: "Maximizing the average income",
    Principle.FLOOR_CONSTRAINT: "Maximizing the average income with a floor constraint",
    Principle.RANGE_CONSTRAINT: "Maximizing the average income with a range constraint",
}


class IncomeClass(StrEnum):
    """Income classes, highest first (docs/frohlich.md §1)."""

    HIGH = "high"
    MEDIUM_HIGH = "medium_high"
    MEDIUM = "medium"
    MEDIUM_LOW = "medium_low"
    LOW = "low"

    @property
    def label(self) -> str:
        return self.value.replace("_", "-")


INCOME_CLASSES: tuple[IncomeClass, ...] = tuple(IncomeClass)


class Certainty(StrEnum):
    VERY_UNSURE = "very_unsure"
    UNSURE = "unsure"
    NO_OPINION = "no_opinion"
    SURE = "sure"
    VERY_SURE = "very_sure"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PrincipleChoice(Frozen):
    """A well-defined choice: (c) and (d) carry a positive whole-dollar amount, (a) and (b) none."""

    principle: Principle
    amount: int | None = None

    @model_validator(mode="after")
    def _amount_matches_principle(self) -> PrincipleChoice:
        if self.principle.needs_amount:
            if self.amount is None or self.amount <= 0:
                raise ValueError(f"principle ({self.principle.value}) needs a positive amount")
        elif self.amount is not None:
            raise ValueError(f"principle ({self.principle.value}) takes no amount")
        return self

    def describe(self) -> str:
        if self.amount is None:
            return f"({self.principle.value}) {self.principle.title}"
        return f"({self.principle.value}) {self.principle.title} of ${self.amount:,}"


class Ranking(Frozen):
    """A complete order of the four principles, best first, with one certainty."""

    order: tuple[Principle, Principle, Principle, Principle]
    certainty: Certainty

    @model_validator(mode="after")
    def _is_permutation(self) -> Ranking:
        if set(self.order) != set(Principle):
            raise ValueError("a ranking must name each of the four principles exactly once")
        return self
