"""What model calls cost (docs/studies.md "Cost"): a price table per model, in US dollars per
million input, cached input and output tokens, applied to the usage each call recorded. The
simulated model is free unless the table prices it (to rehearse a budget offline). A model
with no price gives no cost (never a guessed one).

``tokens_cost_usd`` is the one formula: a call, a run and a study are all priced through
it (a sum of calls priced alike is the price of their summed tokens)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from maai.domain.calls import Usage as CallUsage
from maai.domain.config import Price
from maai.domain.events import Event, ModelCallCompleted

SIMULATED = "simulated"


def tokens_cost_usd(
    price: Price, *, input_tokens: int, cached_input_tokens: int, output_tokens: int
) -> float:
    """Cached input tokens (part of the input) at the cached rate, the rest of the input at
    the input rate, output (reasoning included: providers count it as output) at the output
    rate."""
    cached = min(max(cached_input_tokens, 0), input_tokens)
    return (
        (input_tokens - cached) * price.input
        + cached * price.cached_rate
        + output_tokens * price.output
    ) / 1_000_000


@dataclass
class Usage:
    """Tokens per model over some calls."""

    calls: dict[str, int] = field(default_factory=dict)
    input_tokens: dict[str, int] = field(default_factory=dict)
    output_tokens: dict[str, int] = field(default_factory=dict)
    cached_input_tokens: dict[str, int] = field(default_factory=dict)
    reasoning_tokens: dict[str, int] = field(default_factory=dict)

    def add(
        self,
        model: str,
        input_tokens: int,
        output_tokens: int,
        cached_input_tokens: int = 0,
        reasoning_tokens: int = 0,
    ) -> None:
        self.calls[model] = self.calls.get(model, 0) + 1
        self.input_tokens[model] = self.input_tokens.get(model, 0) + input_tokens
        self.output_tokens[model] = self.output_tokens.get(model, 0) + output_tokens
        self.cached_input_tokens[model] = (
            self.cached_input_tokens.get(model, 0) + cached_input_tokens
        )
        self.reasoning_tokens[model] = self.reasoning_tokens.get(model, 0) + reasoning_tokens

    def add_call(self, model: str, usage: CallUsage) -> None:
        self.add(
            model,
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_input_tokens,
            usage.reasoning_tokens,
        )

    def add_event(self, event: Event) -> None:
        if isinstance(event, ModelCallCompleted):
            self.add_call(event.model, event.answer.usage)

    def total(self, tokens: dict[str, int]) -> int:
        return sum(tokens.values())

    def unpriced(self, prices: Mapping[str, Price]) -> list[str]:
        return sorted(m for m in self.calls if m != SIMULATED and m not in prices)

    def cost_usd(self, prices: Mapping[str, Price]) -> float | None:
        """The cost of these calls; ``None`` when a model used has no price."""
        if self.unpriced(prices):
            return None
        total = 0.0
        for model in self.calls:
            if model not in prices:  # the simulated model, free unless priced
                continue
            total += tokens_cost_usd(
                prices[model],
                input_tokens=self.input_tokens[model],
                cached_input_tokens=self.cached_input_tokens.get(model, 0),
                output_tokens=self.output_tokens[model],
            )
        return total

    def describe_usage(self, prices: Mapping[str, Price]) -> str:
        """One line for a summary: the tokens, cached input and reasoning apart; and the
        models without a price, where prices are set (the cost is then unknown)."""
        cached = self.total(self.cached_input_tokens)
        reasoning = self.total(self.reasoning_tokens)
        text = (
            f"input tokens {self.total(self.input_tokens):,} ({cached:,} cached), "
            f"output tokens {self.total(self.output_tokens):,} ({reasoning:,} reasoning)"
        )
        missing = self.unpriced(prices)
        if prices and missing:
            text += f"; cost unknown: no price for {', '.join(missing)}"
        return text


__all__ = ["Price", "Usage", "tokens_cost_usd", "usage_of"]


def usage_of(events: Iterable[Event]) -> Usage:
    usage = Usage()
    for event in events:
        usage.add_event(event)
    return usage
