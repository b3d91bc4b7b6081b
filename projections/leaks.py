"""What every experiment's leak audit reports: a private item of one agent (or of nobody in
particular, such as a table not yet public) found in another agent's prompt."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

import ahocorasick

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
    unchecked: str | None = None  # why the run could not be checked (an edited history)

    @property
    def ok(self) -> bool:
        return not self.leaks and self.unchecked is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "run_id": self.run_id,
            "prompts_checked": self.prompts_checked,
            "items_checked": self.items_checked,
            "leaks": [asdict(leak) for leak in self.leaks],
        }
        if self.unchecked is not None:
            out["unchecked"] = self.unchecked
        return out


def guarded(audit: Callable[[Any], LeakReport], history: Any) -> LeakReport:
    """``audit(history)``, or, where the history holds what no run could have recorded (a
    table short of a class, a name no agent has) and the audit cannot go on, a report that
    says so: it fails, and never with a traceback."""
    try:
        return audit(history)
    except Exception as exc:
        lines = str(exc).strip().splitlines() or [""]
        detail = f"could not be checked: {type(exc).__name__}: {lines[0]}"
        return LeakReport(history.run_id, 0, 0, (), detail)


class TextIndex:
    """Which of many texts occur in a prompt, found in one pass over the prompt
    (Aho–Corasick) instead of one scan per text: the leak audit stays linear in the run's
    length, where checking every private item against every prompt grew with its square.

    The automaton holds the first ``PREFIX_CHARS`` characters of each text, and a text is
    found where its beginning is and the rest follows: an automaton over whole texts takes a
    node per character (every memory and reasoning of a long run, 100 MB and more), this
    one at most ``PREFIX_CHARS`` per text, and finds the same texts (the automaton reports
    every occurrence of every beginning, overlapping ones included)."""

    PREFIX_CHARS = 256
    """Long enough that few texts share a beginning (successive memories of an agent share
    their first 64 characters often: checking each of them at every hit cost 20% more time
    on 32 × 40), short enough to save most of the automaton (191 → 158 MB peak there)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._automaton = ahocorasick.Automaton()
        by_prefix: dict[str, list[str]] = {}
        for text in sorted(set(texts)):
            if text:
                by_prefix.setdefault(text[: self.PREFIX_CHARS], []).append(text)
        for prefix, whole in by_prefix.items():
            self._automaton.add_word(prefix, (prefix, tuple(whole)))
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()

    def found_in(self, prompt: str) -> set[str]:
        if self._empty:
            return set()
        found: set[str] = set()
        for end, (prefix, whole) in self._automaton.iter(prompt):
            start = end - len(prefix) + 1
            found.update(t for t in whole if t not in found and prompt.startswith(t, start))
        return found


class FirstHeld:
    """When a text was first held within any of ``texts`` ((seq, text) pairs: what an agent
    wrote or was told, what was said in public), looked up once per text: asked
    again for every prompt that shows the text, a scan of all texts each time grew with
    the run's length times the items shown."""

    def __init__(self, texts: list[tuple[int, str]]) -> None:
        self._texts = texts
        self._first: dict[str, int | None] = {}

    def before(self, text: str, seq: int) -> bool:
        """Whether ``text`` is in a text held before ``seq``."""
        if text not in self._first:
            held_at = (at for at, held in self._texts if text in held)
            self._first[text] = min(held_at, default=None)
        first = self._first[text]
        return first is not None and first < seq


def excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:77] + "..."
