"""What every experiment's leak audit reports: a private item of one agent (or of nobody in
particular, such as a table not yet public) found in another agent's prompt."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
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

    The automaton holds the first line of each text's first ``PREFIX_CHARS`` characters,
    and a text is found where that line is and the rest follows: an automaton over whole
    texts takes a node per character (every memory and reasoning of a long run, 100 MB and
    more), this one at most ``PREFIX_CHARS`` per text, and finds the same texts (the
    automaton reports every occurrence of every beginning, overlapping ones included).

    The automaton runs over a prompt's lines, each distinct line once (``_lines`` keeps what
    it found in each, up to ``CACHE_CHARS`` characters of lines): a long run's prompts
    repeat the discussion so far, so their text grows with the square of the run while
    their distinct lines grow with it (32 × 40 Frohlich: about 2 GB of prompts; scanned
    whole, each audit's pass took minutes)."""

    PREFIX_CHARS = 256
    """Long enough that few texts share a beginning (successive memories of an agent share
    their first 64 characters often: checking each of them at every hit cost 20% more time
    on 32 × 40), short enough to save most of the automaton (191 → 158 MB peak there)."""

    CACHE_CHARS = 1_000_000
    """The most characters of lines whose findings are kept, with about 200 bytes a line for
    the entry (the cache then starts over): a command holds one prompt at a time, not the
    run's text (tests/projections/test_bounded_memory.py; at 64 M characters `maai audit
    leaks` held 144 MB for a 32 MB ledger)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._automaton = ahocorasick.Automaton()
        # first line -> [(newlines before it, prefix length, {prefix: texts})]
        groups: dict[str, dict[tuple[int, int], dict[str, list[str]]]] = {}
        self._blank: list[str] = []  # texts of newlines alone: looked for with ``in``
        for text in sorted(set(texts)):
            if not text:
                continue
            prefix = text[: self.PREFIX_CHARS]
            first = prefix.lstrip("\n")
            lead = len(prefix) - len(first)
            first = first.split("\n", 1)[0]
            if not first:
                self._blank.append(text)
                continue
            table = groups.setdefault(first, {}).setdefault((lead, len(prefix)), {})
            table.setdefault(prefix, []).append(text)
        self._groups = {
            first: tuple(
                (lead, length, {p: tuple(w) for p, w in table.items()})
                for (lead, length), table in by_shape.items()
            )
            for first, by_shape in groups.items()
        }
        for first in self._groups:
            self._automaton.add_word(first, first)
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()
        self._lines: dict[str, tuple[tuple[int, str], ...]] = {}
        self._cached = 0

    def _line_hits(self, line: str) -> tuple[tuple[int, str], ...]:
        hits = self._lines.get(line)
        if hits is None:
            hits = tuple((end - len(first) + 1, first) for end, first in self._automaton.iter(line))
            if self._cached > self.CACHE_CHARS:
                self._lines.clear()
                self._cached = 0
            self._lines[line] = hits
            self._cached += len(line) + 200
        return hits

    def occurrences(self, prompt: str) -> Iterator[tuple[int, str]]:
        """(start, text) of every occurrence of every text in ``prompt``, overlapping and
        repeated ones included (texts of newlines alone excepted: see ``found_in``)."""
        if self._empty:
            return
        offset = 0
        for line in prompt.split("\n"):
            for at, first in self._line_hits(line):
                for lead, length, table in self._groups[first]:
                    start = offset + at - lead
                    if start < 0:
                        continue
                    whole = table.get(prompt[start : start + length])
                    if whole is None:
                        continue
                    for text in whole:
                        if prompt.startswith(text, start):
                            yield start, text
            offset += len(line) + 1

    def found_in(self, prompt: str) -> set[str]:
        found = {text for text in self._blank if text in prompt}
        found.update(text for _, text in self.occurrences(prompt))
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
