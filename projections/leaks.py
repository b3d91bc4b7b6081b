"""What every experiment's leak audit reports: a private item of one agent (or of nobody in
particular, such as a table not yet public) found in another agent's prompt."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

MIN_CHARS = 20
"""Shorter private texts are not searched for: short phrases recur innocently."""


@dataclass(frozen=True)
class Item:
    kind: str
    owner: str
    text: str
    seq: int


@dataclass(frozen=True)
class Leak:
    agent: str  # whose prompt
    address: str
    prompt_seq: int
    kind: str
    owner: str | None  # whose private item; None where it belongs to nobody in particular
    item_seq: int | None
    excerpt: str

    def describe(self) -> str:
        whose = f" of {self.owner}" if self.owner else ""
        at = f" (recorded at seq {self.item_seq})" if self.item_seq is not None else ""
        return (
            f"seq {self.prompt_seq} {self.address}: prompt of {self.agent} contains the "
            f"{self.kind}{whose}{at}: {self.excerpt!r}"
        )


@dataclass(frozen=True)
class LeakReport:
    run_id: str
    prompts_checked: int
    items_checked: int
    leaks: tuple[Leak, ...]

    @property
    def ok(self) -> bool:
        return not self.leaks

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "prompts_checked": self.prompts_checked,
            "items_checked": self.items_checked,
            "leaks": [asdict(leak) for leak in self.leaks],
        }


def excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:77] + "..."
