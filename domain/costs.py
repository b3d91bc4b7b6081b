"""What model calls cost (docs/studies.md "Cost"): a price table per model, in US dollars per
million input and output tokens, applied to the usage each call recorded. The simulated model
is free unless the table prices it (to rehearse a budget offline). A model with no price
gives no cost (never a guessed one)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from maai.domain.config import Price
from maai.domain.events import Event, ModelCallCompleted

SIMULATED = "simulated"


@dataclass
class Usage:
    """Tokens per model over some calls."""

    calls: dict[str, int] = field(default_factory=dict)
    input_tokens: dict[str, int] = field(default_factory=dict)
    output_tokens: dict[str, int] = field(default_factory=dict)

    def add(self, model: str, input_tokens: int, output_tokens: int) -> None:
        self.calls[model] = self.calls.get(model, 0) + 1
        self.input_tokens[model] = self.input_tokens.get(model, 0) + input_tokens
        self.output_tokens[model] = self.output_tokens.get(model, 0) + output_tokens

    def add_event(self, event: Event) -> None:
        if isinstance(event, ModelCallCompleted):
            usage = event.answer.usage
            self.add(event.model, usage.input_tokens, usage.output_tokens)

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
            price = prices[model]
            total += self.input_tokens[model] * price.input
            total += self.output_tokens[model] * price.output
        return total / 1_000_000


__all__ = ["Price", "Usage", "usage_of"]


def usage_of(events: Iterable[Event]) -> Usage:
    usage = Usage()
    for event in events:
        usage.add_event(event)
    return usage
