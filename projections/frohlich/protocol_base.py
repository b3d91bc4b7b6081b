"""What the protocol audit is made of: rules, their violations, and the indexes of a history
that several rules share. Rules live in the ``protocol_*`` modules beside this one;
``projections.frohlich.protocol`` runs them all."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from functools import cached_property

from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    DistributionsDrawn,
    PayoffAwarded,
)
from maai.domain.frohlich.types import INCOME_CLASSES, IncomeClass, PrincipleChoice
from maai.projections.audit import Rule as Rule
from maai.projections.audit import Rules
from maai.projections.audit import Violation as Violation
from maai.projections.frohlich import reference
from maai.projections.frohlich.reference_words import PromptWords, words_for
from maai.projections.history import Entry, History

EntryCheck = Callable[[Entry], Iterable[Violation]]
"""What a rule finds in one event of the run, read whole (prompts included), in seq order."""
OnePassCheck = Callable[["Audit"], EntryCheck]

ONE_PASS: list[OnePassCheck] = []
"""The checks of the rules that read prompts, applied together in one read of the run."""


def in_one_pass(make: OnePassCheck) -> OnePassCheck:
    """Register a rule's check of each event for the audit's shared read of the run (its
    rule yields ``audit.found_in_one_pass(make)``): a history held without its prompts
    reads them from the store once for all these rules, not once per rule."""
    ONE_PASS.append(make)
    return make


class Audit:
    """A history with its config and the indexes rules share. Rules only run when the run's
    config could be read (``lifecycle`` reports it otherwise)."""

    def __init__(self, history: History, config: FrohlichConfig) -> None:
        self.history = history
        self.config = config

    def found_in_one_pass(self, make: OnePassCheck) -> Iterator[Violation]:
        """What the check ``make`` found in the shared read; a check that failed raises its
        exception here, for its rule to report as ``run_rules`` does."""
        violations, errors = self._one_pass
        if make in errors:
            raise errors[make]
        yield from violations[make]

    @cached_property
    def _one_pass(
        self,
    ) -> tuple[dict[OnePassCheck, list[Violation]], dict[OnePassCheck, Exception]]:
        violations: dict[OnePassCheck, list[Violation]] = {}
        errors: dict[OnePassCheck, Exception] = {}
        checks: dict[OnePassCheck, EntryCheck] = {}
        for make in ONE_PASS:
            try:
                checks[make] = make(self)
                violations[make] = []
            except Exception as exc:  # a damaged history must not stop the other rules
                errors[make] = exc
        for entry in self.history.stream():
            for make, check in list(checks.items()):
                try:
                    violations[make].extend(check(entry))
                except Exception as exc:
                    errors[make] = exc
                    del checks[make]
        return violations, errors

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.config.agents]

    @cached_property
    def probs(self) -> dict[IncomeClass, Fraction]:
        """The run's class probabilities as the reference reads the config (exact decimals,
        normalized): not the domain's reading, which the class draws it audits used."""
        return dict(zip(INCOME_CLASSES, self.reference_probs, strict=True))

    @cached_property
    def reference_probs(self) -> list[Fraction]:
        """The run's class probabilities, high to low, as the reference reads the config."""
        config_probs = self.config.class_probabilities
        return reference.probabilities({c.value: p for c, p in config_probs.items()})

    def words(self, agent: str) -> PromptWords:
        """What agent ``agent``'s prompts say, in its language (the run's unless its own)."""
        return words_for(self.config.language_of(agent))

    def payment_probs(self, paid: PayoffAwarded) -> dict[IncomeClass, Fraction]:
        """The class probabilities a payment was drawn and computed with: in original-values
        mode a Phase-1 round's are its situation's (``reference.SITUATIONS``)."""
        if paid.scope == "phase1" and self.config.original_values:
            return self.situation_probs.get(paid.round or 0, self.probs)
        return self.probs

    @cached_property
    def situation_probs(self) -> dict[int, dict[IncomeClass, Fraction]]:
        out = {}
        for round_ in range(1, len(reference.SITUATIONS) + 1):
            _, _, probs = reference.situation(round_)
            out[round_] = dict(zip(INCOME_CLASSES, probs, strict=True))
        return out

    @cached_property
    def base(self) -> list[list[int]]:
        return [list(row) for row in self.config.base_distributions()]

    @cached_property
    def accepted(self) -> dict[str, tuple[Entry, AnswerAccepted]]:
        """The accepted answer of each slot (the first, should a broken history hold two)."""
        out: dict[str, tuple[Entry, AnswerAccepted]] = {}
        for entry, event in self.history.each(AnswerAccepted):
            out.setdefault(event.slot, (entry, event))
        return out

    @cached_property
    def missing(self) -> dict[str, tuple[Entry, AnswerMissing]]:
        out: dict[str, tuple[Entry, AnswerMissing]] = {}
        for entry, event in self.history.each(AnswerMissing):
            out.setdefault(event.slot, (entry, event))
        return out

    @cached_property
    def phase1_tables(self) -> dict[tuple[str, int], tuple[Entry, DistributionsDrawn]]:
        out: dict[tuple[str, int], tuple[Entry, DistributionsDrawn]] = {}
        for entry, event in self.history.each(DistributionsDrawn):
            if event.scope == "phase1" and event.agent is not None and event.round is not None:
                out.setdefault((event.agent, event.round), (entry, event))
        return out

    @cached_property
    def phase2_table(self) -> tuple[Entry, DistributionsDrawn] | None:
        found = [(e, d) for e, d in self.history.each(DistributionsDrawn) if d.scope == "phase2"]
        return found[0] if found else None

    def choice_of(self, slot: str) -> PrincipleChoice | None:
        """The accepted choice or ballot of a slot; ``None`` when missing or unreadable."""
        found = self.accepted.get(slot)
        if found is None:
            return None
        try:
            return PrincipleChoice.model_validate(found[1].value)
        except ValueError:
            return None


RULES = Rules()
rule = RULES.rule
